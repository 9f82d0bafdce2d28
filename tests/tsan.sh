#!/bin/sh
# The driver of `make check-tsan`: runs unit test binaries built with
# -fsanitize=thread, and scripts (NAME.sh, run as `sh NAME.sh BUILD_DIR`)
# that run tools of BUILD_DIR/bin built so, writes their output to
# BUILD_DIR/tsan.log and prints one line per binary or script and the
# summary "N passed, N failed, N skipped".  A binary fails when a test in it
# fails, when it dies, or when ThreadSanitizer reported anything (a data
# race, a use of freed memory from another thread, a lock-order inversion),
# even if every test passed; a script's checks are its "ok - " and
# "not ok - " lines, and it fails likewise.
#
#   tests/tsan.sh BUILD_DIR TEST_BINARY_OR_SCRIPT...
BUILD=$1
shift
log="$BUILD/tsan.log"
: >"$log"

# ThreadSanitizer maps its shadow memory at fixed addresses and needs the
# program's mappings to lie in the ranges it expects.  With the larger mmap
# randomization of recent kernels (vm.mmap_rnd_bits above 28) a mapping can
# land outside them, and the run dies at start-up with "FATAL:
# ThreadSanitizer: unexpected memory mapping" before any test ran.  Running
# each binary (a script: with the programs it starts) with address-space
# randomization turned off for that process alone (setarch -R, the personality flag ADDR_NO_RANDOMIZE) avoids it on
# every kernel; where setarch cannot do that (a sandbox that forbids the
# personality call), the binaries run as they are.
arch=$(uname -m)
if setarch "$arch" -R true 2>/dev/null; then
    norandom="setarch $arch -R"
else
    norandom=""
fi

# exitcode: a report makes the binary exit 66 even when cmocka passed
TSAN_OPTIONS="halt_on_error=0 exitcode=66 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS

passed=0
failed=0
skipped=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in "$@"; do
    case $t in
    *.sh)
        $norandom sh "$t" "$BUILD" >"$out" 2>&1
        rc=$?
        p=$(grep -c '^ok - ' "$out")
        f=$(grep -c '^not ok - ' "$out")
        [ "$p" -gt 0 ] || p=
        s=
        ;;
    *)
        CMOCKA_MESSAGE_OUTPUT=stdout $norandom "$t" >"$out" 2>&1
        rc=$?
        p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n 1)
        f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n 1)
        s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | tail -n 1)
        ;;
    esac
    { echo "== $t (exit status $rc)"; cat "$out"; } >>"$log"
    reports=$(grep -c 'ThreadSanitizer' "$out")
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    skipped=$((skipped + ${s:-0}))
    if [ $rc -eq 0 ] && [ "$reports" -eq 0 ] && [ -n "$p" ] && [ "${f:-0}" -eq 0 ]; then
        echo "ok - $t under ThreadSanitizer"
    else
        echo "not ok - $t under ThreadSanitizer: exit status $rc, $reports report lines (see $log)"
        grep -A 12 'ThreadSanitizer' "$out" | head -n 40
        # a report or a crash with every test passed is one more failure
        [ -z "$f" ] || [ "$f" -eq 0 ] && failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
