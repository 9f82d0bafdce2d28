#!/bin/sh
# The test driver of `make check`: runs every cmocka unit test binary, the
# CLI tests and the man page lint, writes their whole output to
# BUILD_DIR/check.log and prints one summary line
# "N passed, N failed, N skipped" (after the failed tests' names and the
# log's path, when anything failed); exits non-zero when anything failed.
# A skipped check (cmocka's skip(), a CLI test's "ok - ... # SKIP ...") is
# counted as skipped, never as passed.
#
#   tests/run.sh BUILD_DIR TEST_BINARY...
#   VALGRIND=1 tests/run.sh ...   runs the CLI tests' tool calls under valgrind
BUILD=$1
shift
passed=0
failed=0
skipped=0
failed_names=""
LOG="$BUILD/check.log"
mkdir -p "$BUILD"
: >"$LOG" || exit 2

# cmocka's closing lines: "[  PASSED  ] 6 test(s).", "[  FAILED  ] 1
# test(s), listed below:", "[  SKIPPED ] 1 test(s), listed below:"
cmocka_count() { # WORD FILE -> the count on the last such line (0 if none)
    n=$(sed -n "s/^\\[  $1 *\\] \\([0-9]*\\) test(s).*/\\1/p" "$2" | tail -n 1)
    echo "${n:-0}"
}

out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in "$@"; do
    echo "== $t" >>"$LOG"
    CMOCKA_MESSAGE_OUTPUT=stdout "$t" >"$out" 2>&1
    rc=$?
    cat "$out" >>"$LOG"
    p=$(cmocka_count PASSED "$out")
    f=$(cmocka_count FAILED "$out")
    s=$(cmocka_count SKIPPED "$out")
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        # crashed before cmocka could count: the whole binary is one failure
        echo "not ok - $t exited with status $rc" >>"$LOG"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
    if [ $rc -ne 0 ]; then
        # the failed tests' names ("[  FAILED  ] test_x"), else the binary's
        names=$(sed -n 's/^\[  FAILED  \] \([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' "$out" | sort -u | tr '\n' ' ' | sed 's/ $//')
        failed_names="$failed_names
  $t${names:+: $names}"
    fi
done

for s in tests/cli/test_*.sh; do
    [ -f "$s" ] || continue
    echo "== $s" >>"$LOG"
    BIN="$BUILD/bin" sh "$s" >"$out" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        # the script itself failed (a syntax error, a command missing): the
        # tests after that point did not run, so the script is a failure
        echo "not ok - $s exited with status $rc" >>"$out"
    fi
    cat "$out" >>"$LOG"
    # TAP: "ok - NAME # SKIP REASON" is a skip
    k=$(grep -c '^ok .*# *SKIP' "$out")
    p=$(($(grep -c '^ok ' "$out") - k))
    f=$(grep -c '^not ok ' "$out")
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + k))
    if [ "$f" -gt 0 ]; then
        failed_names="$failed_names
  $s:
$(grep '^not ok ' "$out" | sed 's/^/    /')"
    fi
done

echo "== man pages" >>"$LOG"
for page in man/man1/*.1 man/man3/*.3 man/man5/*.5; do
    [ -f "$page" ] || continue
    lint=$(LC_ALL=C.UTF-8 groff -ww -z -man -t "$page" 2>&1)
    if [ -z "$lint" ]; then
        echo "ok - man lint $page" >>"$LOG"
        passed=$((passed + 1))
    else
        { echo "not ok - man lint $page"; echo "$lint"; } >>"$LOG"
        failed=$((failed + 1))
        failed_names="$failed_names
  man lint $page"
    fi
done

if [ -n "$failed_names" ]; then
    echo "failed:$failed_names"
    echo "details: $LOG"
fi
echo "$passed passed, $failed failed, $skipped skipped" | tee -a "$LOG"
[ "$failed" -eq 0 ]
