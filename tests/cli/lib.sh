# Shared by the CLI tests: run a tool (under valgrind when VALGRIND=1),
# compare outputs, and report TAP-like "ok - ..." / "not ok - ..." lines that
# tests/run.sh counts.
#
# Each test script is run from the repository root with BIN set to the
# directory of the tools.

: "${BIN:=build/bin}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run TOOL ARGS... : stdout -> $TMP/out, stderr -> $TMP/err, status -> $rc
run() {
    tool=$1
    shift
    if [ "${VALGRIND:-0}" = 1 ]; then
        valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
            "$BIN/$tool" "$@" >"$TMP/out" 2>"$TMP/err"
    else
        "$BIN/$tool" "$@" >"$TMP/out" 2>"$TMP/err"
    fi
    rc=$?
}

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }

# expect_rc N DESCRIPTION
expect_rc() {
    if [ "$rc" = "$1" ]; then ok "$2"; else
        not_ok "$2 (exit $rc, expected $1)"
        sed 's/^/#   stderr: /' "$TMP/err" | head -5
    fi
}

# expect_file_eq EXPECTED ACTUAL DESCRIPTION
expect_file_eq() {
    if cmp -s "$1" "$2"; then ok "$3"; else
        not_ok "$3"
        diff "$1" "$2" | head -20 | cut -c1-200 | sed 's/^/#   /'
    fi
}

# expect_text_eq "EXPECTED" FILE DESCRIPTION
expect_text_eq() {
    printf '%s\n' "$1" >"$TMP/expected_text"
    expect_file_eq "$TMP/expected_text" "$2" "$3"
}

# expect_grep PATTERN FILE DESCRIPTION
expect_grep() {
    if grep -q -- "$1" "$2"; then ok "$3"; else
        not_ok "$3 (no '$1' in $(basename "$2"))"
        head -5 "$2" | sed 's/^/#   /'
    fi
}

# pycheck DESCRIPTION SCRIPT ARGS... : ok when the python script exits 0
pycheck() {
    desc=$1
    shift
    if python3 "$@" >"$TMP/py.out" 2>&1; then ok "$desc"; else
        not_ok "$desc"
        head -5 "$TMP/py.out" | cut -c1-200 | sed 's/^/#   /'
    fi
}

# The version as cube.h defines it (CUBE_VERSION_MAJOR.MINOR.PATCH): what
# every --version, the pkg-config file and the man pages must say.
CUBE_VERSION=$(awk '$1 == "#define" && $2 ~ /^CUBE_VERSION_(MAJOR|MINOR|PATCH)$/ {
    v = v (v == "" ? "" : ".") $3 } END { print v }' libcube/include/cube.h)
