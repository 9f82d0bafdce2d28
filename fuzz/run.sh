#!/bin/sh
# run.sh - run every libFuzzer harness for a fixed time (make fuzz).
#
#   sh fuzz/run.sh BUILD_FUZZ_DIR SECONDS [HARNESS...]
#
# Seeds each corpus fuzz/corpus/<harness>/ (not committed) from testdata/,
# runs the harness on it plus testdata/fuzz/<harness>/ (the regressions),
# and fails when any harness had a finding (crash, leak, timeout > 10 s,
# RSS > 2048 MB); the reproducer is in BUILD_FUZZ_DIR/findings/<harness>/.
set -u
B=$1
SECS=$2
shift 2
HARNESSES=${*:-"cube_xml cube_gzip statfile linktest params algebra cubex_tar cubex_anchor cubex_read"}
C=fuzz/corpus

seed() { # harness
    d=$C/$1
    mkdir -p "$d"
    case $1 in
    cube_xml)
        cp testdata/reader/*.cube "$d"/
        for f in testdata/cube/*.cube; do # the real files: their first 16 KB
            head -c 16384 "$f" > "$d/head-$(basename "$f")"
        done ;;
    cube_gzip)
        for f in testdata/reader/plain.cube testdata/reader/tolerate-*.cube; do
            { printf '\000'; cat "$f"; } > "$d/plain-$(basename "$f")"
        done
        for f in testdata/reader/*.gz; do
            { printf '\001'; cat "$f"; } > "$d/gz-$(basename "$f")"
        done ;;
    statfile) cp testdata/statfile/* "$d"/ ;;
    linktest)
        for f in testdata/linktest/*.sion testdata/linktest/v1/*.sion; do
            [ "$(wc -c < "$f")" -le 65536 ] && cp "$f" "$d"/
        done ;;
    params)
        cp bench/default.par "$d"/
        for f in tests/cli/*.par tests/unit/*.par fuzz/seeds/params/*; do
            [ -f "$f" ] && cp "$f" "$d"/
        done ;;
    cubex_tar|cubex_read) # the CUBE 4 archives up to 128 KB, one of them gzip-compressed
        for f in testdata/cubex/*.cubex; do
            [ "$(wc -c < "$f")" -le 131072 ] && cp "$f" "$d"/
        done
        gzip -c testdata/cubex/mkcubex_minimal.cubex > "$d/mkcubex_minimal.cubex.gz" ;;
    cubex_anchor) # the anchor.xml members of the archives up to 128 KB, one gzip-compressed
        for f in testdata/cubex/*.cubex; do
            o=$d/$(basename "$f" .cubex).xml
            [ "$(wc -c < "$f")" -le 131072 ] &&
                { tar -xOf "$f" anchor.xml > "$o" 2>/dev/null || rm -f "$o"; }
        done
        gzip -c "$d/mkcubex_minimal.xml" > "$d/mkcubex_minimal.xml.gz" ;;
    algebra)
        i=0
        for a in testdata/reader/plain.cube testdata/reader/tolerate-*.cube; do
            i=$((i + 1))
            { printf "\\$(printf %03o $((i % 18)))"; cat testdata/reader/plain.cube
              printf '@@SPLIT@@'; cat "$a"; } > "$d/pair-$(basename "$a")"
        done ;;
    esac
}

maxlen() {
    case $1 in
    cube_xml|cube_gzip) echo 65536 ;;
    linktest) echo 65536 ;;
    cubex_tar|cubex_anchor|cubex_read) echo 131072 ;;
    algebra) echo 32768 ;;
    *) echo 16384 ;;
    esac
}

dict() {
    case $1 in
    cube_xml|cube_gzip|algebra) echo -dict=fuzz/cube_xml.dict ;;
    cubex_read) echo -dict=fuzz/cubex_tar.dict ;;
    *) [ -f fuzz/$1.dict ] && echo -dict=fuzz/$1.dict ;;
    esac
}

failed=""
for h in $HARNESSES; do
    seed "$h"
    mkdir -p "$B/findings/$h" "testdata/fuzz/$h"
    log=$B/$h.log
    echo "fuzz: $h for ${SECS}s (log $log)"
    "$B/fuzz_$h" "$C/$h" "testdata/fuzz/$h" $(dict "$h") \
        -max_len="$(maxlen "$h")" -max_total_time="$SECS" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$B/findings/$h/" > "$log" 2>&1
    rc=$?
    grep -E '^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss' "$log" | sed "s/^/  $h: /"
    if [ $rc -ne 0 ]; then
        echo "fuzz: $h FAILED (exit $rc): a finding in $B/findings/$h/" >&2
        grep -E 'ERROR|SUMMARY' "$log" | head -5 >&2
        failed="$failed $h"
    fi
done
if [ -n "$failed" ]; then
    echo "fuzz: findings in:$failed" >&2
    exit 1
fi
echo "fuzz: no findings"
