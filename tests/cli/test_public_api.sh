# libcube's public boundary: libcube.so exports exactly the functions that
# the public headers (libcube/include) declare, nothing more and nothing
# missing; each public header compiles on its own against that folder
# alone; no program includes a private header; and the version cube.h
# defines is the one of the shared library's name and soname, the
# pkg-config file, every tool's --version and the man pages.
. tests/cli/lib.sh

LIB="$BIN/../lib"
SO="$LIB/libcube.so"
MAJOR=${CUBE_VERSION%%.*}

# --- what libcube.so exports ----------------------------------------------
python3 tests/cli/public_api.py libcube/include/*.h | sort -u >"$TMP/declared"
# _init, _fini, _edata, _end, __bss_start: made by the linker, not exported
# functions (some binutils list them)
nm -D --defined-only "$SO" | awk 'NF == 3 { print $3 }' |
    grep -v -x -e _init -e _fini -e _edata -e _end -e __bss_start | sort -u >"$TMP/exported"
n=$(wc -l <"$TMP/declared")
if [ "$n" -gt 100 ]; then ok "the public headers declare $n functions"; else
    not_ok "the public headers declare $n functions (expected the whole API)"; fi
comm -13 "$TMP/declared" "$TMP/exported" >"$TMP/extra"
if [ ! -s "$TMP/extra" ]; then ok "libcube.so exports nothing the public headers do not declare"; else
    not_ok "libcube.so exports $(wc -l <"$TMP/extra") symbols the public headers do not declare"
    head -20 "$TMP/extra" | sed 's/^/#   /'
fi
comm -23 "$TMP/declared" "$TMP/exported" >"$TMP/missing"
if [ ! -s "$TMP/missing" ]; then ok "libcube.so exports every function the public headers declare"; else
    not_ok "libcube.so lacks $(wc -l <"$TMP/missing") declared functions (CUBE_API missing?)"
    head -20 "$TMP/missing" | sed 's/^/#   /'
fi

# The tools and cube_bench are linked with libcube.a, which holds the
# internals too: none of their objects may call a library function that is
# not public (the include path keeps the declarations away; this catches a
# hand-written one)
OBJ="$BIN/../obj"
nm --defined-only "$LIB/libcube.a" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' |
    sort -u >"$TMP/library"
objects=$(ls "$OBJ"/cli/*.o "$OBJ"/bench/*.o "$OBJ"/bench-mpi/*.o 2>/dev/null)
if [ -n "$objects" ]; then
    # shellcheck disable=SC2086
    nm -u $objects | awk 'NF == 2 { print $2 }' | sort -u |
        comm -12 - "$TMP/library" | comm -23 - "$TMP/declared" >"$TMP/internal"
    if [ ! -s "$TMP/internal" ]; then
        ok "the tools and cube_bench call only public library functions"
    else
        not_ok "the tools or cube_bench call internal library functions: $(tr '\n' ' ' <"$TMP/internal")"
    fi
else
    not_ok "no objects of the tools in $OBJ"
fi

# --- the public headers stand alone ----------------------------------------
for h in libcube/include/*.h; do
    name=${h##*/}
    if printf '#include "%s"\n' "$name" |
        ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -Ilibcube/include \
            -x c - 2>"$TMP/cc_err"; then
        ok "$name compiles on its own (C11, public folder only)"
    else
        not_ok "$name compiles on its own (C11, public folder only)"
        head -5 "$TMP/cc_err" | sed 's/^/#   /'
    fi
    if printf '#include "%s"\n' "$name" |
        ${CXX:-c++} -Wall -Wextra -Werror -fsyntax-only -Ilibcube/include -x c++ - 2>"$TMP/cc_err"; then
        ok "$name compiles on its own as C++"
    else
        not_ok "$name compiles on its own as C++"
        head -5 "$TMP/cc_err" | sed 's/^/#   /'
    fi
done

# the include path keeps programs out of the private headers
# (libcube/*/*_private.h); this names any that tries.  A fuzz harness of a
# layer that has no public interface yet says so in its opening comment
# ("a harness of library internals") and is built with -Ilibcube.
if ! grep -rln '#include *"[^"]*_private\.h"' cli bench examples fuzz |
        while read -r f; do grep -q 'a harness of library internals' "$f" || echo "$f"; done |
        grep . >"$TMP/inc"; then
    ok "no program, example or fuzzer includes a private header"
else
    not_ok "private headers included by: $(tr '\n' ' ' <"$TMP/inc")"
fi

# --- one version ------------------------------------------------------------
case $CUBE_VERSION in
[0-9]*.[0-9]*.[0-9]*) ok "cube.h defines the version $CUBE_VERSION" ;;
*) not_ok "cube.h defines the version (found '$CUBE_VERSION')" ;;
esac
soname=$(readelf -d "$SO" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
if [ "$soname" = "libcube.so.$MAJOR" ]; then ok "the soname is libcube.so.$MAJOR"; else
    not_ok "the soname is '$soname', expected libcube.so.$MAJOR"; fi
if [ -f "$LIB/libcube.so.$CUBE_VERSION" ]; then ok "the shared library is libcube.so.$CUBE_VERSION"; else
    not_ok "no $LIB/libcube.so.$CUBE_VERSION"; fi
pcv=$(sed -n 's/^Version: *//p' "$LIB/libcube.pc")
if [ "$pcv" = "$CUBE_VERSION" ]; then ok "libcube.pc has Version: $CUBE_VERSION"; else
    not_ok "libcube.pc has Version: '$pcv', expected $CUBE_VERSION"; fi

# cube_bench's --version is checked by test_cube_bench.sh (it needs mpiexec)
for path in "$BIN"/cube_*; do
    t=${path##*/}
    [ "$t" = cube_bench ] && continue
    run "$t" --version
    expect_text_eq "$t (libcube) $CUBE_VERSION" "$TMP/out" "$t --version"
done

for page in man/man1/*.1 man/man3/*.3 man/man5/*.5; do
    built="$BIN/../$page"
    if [ -f "$built" ] && sed -n '/^\.TH /p' "$built" | grep -q "\"libcube $CUBE_VERSION\"" &&
        ! grep -q '@VERSION@' "$built"; then
        ok "${page##*/} as built names libcube $CUBE_VERSION"
    else
        not_ok "${page##*/} as built names libcube $CUBE_VERSION ($built)"
    fi
done
