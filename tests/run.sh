#!/bin/sh
# The test driver of `make check`: runs every cmocka unit test binary, the
# CLI tests and the man page lint, then prints one summary line
# "N passed, N failed" and exits non-zero when anything failed.
#
#   tests/run.sh BUILD_DIR TEST_BINARY...
#   VALGRIND=1 tests/run.sh ...   runs the CLI tests' tool calls under valgrind
BUILD=$1
shift
passed=0
failed=0
failed_names=""

count_cmocka() { # log file -> adds to passed/failed
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in "$@"; do
    echo "== $t"
    CMOCKA_MESSAGE_OUTPUT=stdout "$t" >"$log" 2>&1
    rc=$?
    cat "$log"
    count_cmocka "$log"
    if [ $rc -ne 0 ] && ! grep -q '^\[  FAILED  \]' "$log"; then
        # crashed before cmocka could count: the whole binary is one failure
        failed=$((failed + 1))
        failed_names="$failed_names $t"
    elif [ $rc -ne 0 ]; then
        failed_names="$failed_names $t"
    fi
done

for s in tests/cli/test_*.sh; do
    [ -f "$s" ] || continue
    echo "== $s"
    BIN="$BUILD/bin" sh "$s" >"$log" 2>&1
    rc=$?
    cat "$log"
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^not ok ' "$log")
    if [ $rc -ne 0 ]; then
        # the script itself failed (a syntax error, a command missing): the
        # tests after that point did not run, so the script is a failure
        echo "not ok - $s exited with status $rc"
        f=$((f + 1))
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    [ "$f" -gt 0 ] && failed_names="$failed_names $s"
done

echo "== man pages"
for page in man/man1/*.1 man/man3/*.3 man/man5/*.5; do
    [ -f "$page" ] || continue
    out=$(LC_ALL=C.UTF-8 groff -ww -z -man -t "$page" 2>&1)
    if [ -z "$out" ]; then
        echo "ok - man lint $page"
        passed=$((passed + 1))
    else
        echo "not ok - man lint $page"
        echo "$out"
        failed=$((failed + 1))
        failed_names="$failed_names $page"
    fi
done

[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
