#!/bin/sh
# The numbers of cube_view's page: CubeModel (cli/view/model.js) computes
# every pane in every value mode from the page data cube_view writes, and
# tests/view/test_model.js compares them with cube_dump on the shipped
# experiments.  It needs node (Debian package nodejs); without it the test
# fails.
: "${BIN:=build/bin}"
if ! command -v node >/dev/null 2>&1; then
    echo "not ok - view model: node is not installed (Debian package nodejs)"
    exit 0
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
BIN="$BIN" node tests/view/test_model.js >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -ne 0 ] && ! grep -q '^not ok ' "$out"; then
    echo "not ok - tests/view/test_model.js exited with status $rc"
fi
exit 0
