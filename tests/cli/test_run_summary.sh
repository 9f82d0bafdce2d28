# The driver of `make check` (tests/run.sh) on a made-up tree: a cmocka-like
# binary that passes, fails and skips, one that crashes, a CLI script with
# "ok", "not ok" and "ok - ... # SKIP ..." lines, a good and a bad man page.
# The terminal gets the failed tests, the log's path and the summary
# "N passed, N failed, N skipped" (skips counted apart from passes); the
# details go to BUILD/check.log.
. tests/cli/lib.sh
REPO=$(pwd)
T="$TMP/tree"
mkdir -p "$T/tests/cli" "$T/man/man1" "$T/b"
cp tests/cli/lib.sh "$T/tests/cli/"
cat >"$T/tests/cli/test_made_up.sh" <<'EOF'
. tests/cli/lib.sh
ok "first"
ok "second # SKIP no such thing here"
not_ok "third"
echo "#   why the third failed"
EOF
cat >"$T/cmocka_like" <<'EOF'
#!/bin/sh
echo "[==========] Running 4 test(s)."
echo "[  FAILED  ] test_broken"
echo "[  SKIPPED ] test_locale"
echo "[==========] 4 test(s) run."
echo "[  PASSED  ] 2 test(s)."
echo "[  SKIPPED ] 1 test(s), listed below:"
echo "[  SKIPPED ] test_locale"
echo "[  FAILED  ] 1 test(s), listed below:"
echo "[  FAILED  ] test_broken"
exit 1
EOF
printf '#!/bin/sh\nkill -SEGV $$\n' >"$T/crashing"
chmod +x "$T/cmocka_like" "$T/crashing"
cp man/man1/cube_info.1 "$T/man/man1/"
printf '.TH BAD 1\n.NOSUCHMACRO\n' >"$T/man/man1/bad.1"

(cd "$T" && sh "$REPO/tests/run.sh" b ./cmocka_like ./crashing >"$TMP/out" 2>"$TMP/err")
rc=$?
expect_rc 1 "run.sh exits 1 when a test failed"
tail -n 1 "$TMP/out" >"$TMP/summary"
# cmocka 2 + script 1 + man 1 passed; cmocka 1 + crash 1 + script 1 + man 1
# failed; cmocka 1 + script 1 skipped
expect_text_eq "4 passed, 4 failed, 2 skipped" "$TMP/summary" \
    "run.sh: summary 'N passed, N failed, N skipped', skips not counted as passes"
expect_text_eq "failed:
  ./cmocka_like: test_broken
  ./crashing
  tests/cli/test_made_up.sh:
    not ok - third
  man lint man/man1/bad.1
details: b/check.log
4 passed, 4 failed, 2 skipped" "$TMP/out" \
    "run.sh prints only the failed tests, the log's path and the summary"
expect_grep "^#   why the third failed$" "$T/b/check.log" "run.sh: the details are in BUILD/check.log"
expect_grep "^4 passed, 4 failed, 2 skipped$" "$T/b/check.log" "run.sh: check.log ends with the summary"

# all passing: the summary alone
rm "$T/man/man1/bad.1"
cat >"$T/tests/cli/test_made_up.sh" <<'EOF'
. tests/cli/lib.sh
ok "first"
ok "second # SKIP no such thing here"
EOF
(cd "$T" && sh "$REPO/tests/run.sh" b >"$TMP/out" 2>"$TMP/err")
rc=$?
expect_rc 0 "run.sh exits 0 when nothing failed"
expect_text_eq "2 passed, 0 failed, 1 skipped" "$TMP/out" "run.sh prints the summary alone when nothing failed"
