# make install / make install-lib and the build without MPI, in the build
# directory the other tests use ($BIN/..): no step calls apt or dpkg; the
# installed libcube.pc names the PREFIX of the install whatever `make` was
# given; a program builds against the installed library with pkg-config,
# statically and shared, and reads a real experiment; install-lib installs
# the library alone; without an MPI compiler everything but cube_bench
# builds and installs.
. tests/cli/lib.sh
build=$(dirname "$BIN")
# a make of its own, not a part of the one that runs the tests
unset MAKEFLAGS MFLAGS MAKELEVEL
mk() { make --no-print-directory BUILD="$build" "$@"; }
# an instrumented library (make check SANITIZE=1) needs its runtime
SAN=""
if nm "$build/lib/libcube.a" 2>/dev/null | grep -q __asan_; then
    SAN="-fsanitize=address,undefined"
fi

# apt-get, apt and dpkg-query that only note that they were called
mkdir "$TMP/fake"
for t in apt-get apt dpkg-query dpkg; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/apt.log"\nexit 1\n' "$t" "$TMP" >"$TMP/fake/$t"
    chmod +x "$TMP/fake/$t"
done
FAKEPATH="$TMP/fake:$PATH"
no_apt() { # DESCRIPTION
    if [ -e "$TMP/apt.log" ]; then
        not_ok "$1: calls $(head -n 1 "$TMP/apt.log")"
        rm -f "$TMP/apt.log"
    else ok "$1"; fi
}

# --- make install PREFIX=... after a build for the default PREFIX ---------
P="$TMP/prefix"
if PATH=$FAKEPATH mk install PREFIX="$P" >"$TMP/log" 2>&1; then ok "make install PREFIX=DIR"; else
    not_ok "make install PREFIX=DIR"; tail -n 5 "$TMP/log" | sed 's/^/#   /'; fi
no_apt "make install calls no apt or dpkg"
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
if [ "$(pkg-config --variable=prefix libcube)" = "$P" ] &&
   [ "$(pkg-config --variable=includedir libcube)" = "$P/include" ] &&
   pkg-config --libs libcube | grep -q -- "^-L$P/lib -lcube"; then
    ok "the installed libcube.pc names the install's PREFIX"
else
    not_ok "the installed libcube.pc names the install's PREFIX: $(pkg-config --cflags --libs libcube 2>&1)"
fi
for f in bin/cube_info bin/cube_dump lib/libcube.a lib/libcube.so include/cube.h \
         share/man/man1/cube_info.1 share/man/man3/libcube.3 share/man/man5/cube.5; do
    [ -e "$P/$f" ] || not_ok "make install: $f missing"
done

# --- a program against the installed library ------------------------------
DATA=testdata/cube/scalasca_trace.cube
"$BIN/cube_info" "$DATA" | sed -n 's/^\(metrics: [0-9]*\).*/\1/p; s/^\(regions: [0-9]*\).*/\1/p;
    s/^\(call paths: [0-9]*\).*/\1/p' >"$TMP/want"
libdir=$(pkg-config --variable=libdir libcube)
# shared: libcube.so found through the rpath
if cc -std=c11 $SAN -o "$TMP/summary_shared" examples/cube_summary.c \
       $(pkg-config --cflags --libs libcube) -Wl,-rpath,"$libdir" 2>"$TMP/err"; then
    ok "cube_summary builds against the installed libcube.so (pkg-config)"
else
    not_ok "cube_summary builds against the installed libcube.so (pkg-config)"; sed 's/^/#   /' "$TMP/err" | head -5
fi
if readelf -d "$TMP/summary_shared" 2>/dev/null | grep -q 'NEEDED.*libcube\.so\.'; then
    ok "the shared build needs libcube.so"; else not_ok "the shared build needs libcube.so"; fi
"$TMP/summary_shared" "$DATA" >"$TMP/out_shared" 2>"$TMP/err"
expect_file_eq "$TMP/want" "$TMP/out_shared" "cube_summary (shared) reads $DATA as cube_info does"
# static: libcube.a and what pkg-config --static adds (libxml2, zlib, ...)
if cc -std=c11 $SAN -o "$TMP/summary_static" examples/cube_summary.c \
       $(pkg-config --cflags --static --libs libcube | sed 's/-lcube\b/-l:libcube.a/') 2>"$TMP/err"; then
    ok "cube_summary builds against the installed libcube.a (pkg-config --static)"
else
    not_ok "cube_summary builds against the installed libcube.a (pkg-config --static)"; sed 's/^/#   /' "$TMP/err" | head -5
fi
if readelf -d "$TMP/summary_static" 2>/dev/null | grep -q 'NEEDED.*libcube'; then
    not_ok "the static build does not need libcube.so"; else ok "the static build does not need libcube.so"; fi
"$TMP/summary_static" "$DATA" >"$TMP/out_static" 2>"$TMP/err"
expect_file_eq "$TMP/want" "$TMP/out_static" "cube_summary (static) reads $DATA as cube_info does"
unset PKG_CONFIG_PATH

# --- make install-lib with DESTDIR ----------------------------------------
D="$TMP/dest"
if PATH=$FAKEPATH mk install-lib DESTDIR="$D" PREFIX=/opt/cube >"$TMP/log" 2>&1; then
    ok "make install-lib DESTDIR=DIR PREFIX=/opt/cube"
else
    not_ok "make install-lib DESTDIR=DIR PREFIX=/opt/cube"; tail -n 5 "$TMP/log" | sed 's/^/#   /'
fi
no_apt "make install-lib calls no apt or dpkg"
if grep -qx 'prefix=/opt/cube' "$D/opt/cube/lib/pkgconfig/libcube.pc" &&
   grep -qx 'libdir=/opt/cube/lib' "$D/opt/cube/lib/pkgconfig/libcube.pc"; then
    ok "install-lib: libcube.pc names PREFIX, not DESTDIR"
else
    not_ok "install-lib: libcube.pc names PREFIX, not DESTDIR"
fi
missing=""
major=$(sed -n 's/^#define CUBE_VERSION_MAJOR //p' libcube/include/cube.h)
for f in lib/libcube.a lib/libcube.so "lib/libcube.so.$major" include/cube.h share/man/man3/libcube.3 \
         share/man/man5/cube.5; do
    [ -e "$D/opt/cube/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then ok "install-lib: library, headers, man3 and man5"; else
    not_ok "install-lib: missing$missing"; fi
if [ -e "$D/opt/cube/bin" ] || [ -e "$D/opt/cube/share/man/man1" ]; then
    not_ok "install-lib installs the library alone (tools found)"
else ok "install-lib installs the library alone"; fi

# --- no MPI: a build directory of its own, no mpicc ---------------------------
N="$TMP/nompi"
if PATH=$FAKEPATH mk -j2 all BUILD="$N" MPICC="$TMP/no/mpicc" >"$TMP/log" 2>&1; then
    ok "make without an MPI compiler"
else
    not_ok "make without an MPI compiler"; tail -n 5 "$TMP/log" | sed 's/^/#   /'
fi
no_apt "make calls no apt or dpkg"
if [ "$(grep -c '^cube_bench: skipped' "$TMP/log")" = 1 ] && [ -x "$N/bin/cube_info" ] &&
   [ -f "$N/lib/libcube.a" ] && [ ! -e "$N/bin/cube_bench" ]; then
    ok "without MPI: libcube and the tools built, cube_bench skipped with one line"
else
    not_ok "without MPI: libcube and the tools built, cube_bench skipped with one line"
fi
if PATH=$FAKEPATH mk install BUILD="$N" MPICC="$TMP/no/mpicc" DESTDIR="$TMP/dest2" PREFIX=/usr \
       >"$TMP/log" 2>&1 && [ -x "$TMP/dest2/usr/bin/cube_info" ] &&
   [ ! -e "$TMP/dest2/usr/bin/cube_bench" ] && [ ! -e "$TMP/dest2/usr/share/man/man1/cube_bench.1" ]; then
    ok "without MPI: make install installs all but cube_bench"
else
    not_ok "without MPI: make install installs all but cube_bench"; tail -n 5 "$TMP/log" | sed 's/^/#   /'
fi
no_apt "make install without MPI calls no apt or dpkg"
