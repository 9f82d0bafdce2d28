# The one Makefile of libcube and its tools (non-recursive).
#
#   make            libcube.a, libcube.so, libcube.pc, the tools and the man pages, in build/
#   make check      unit tests (cmocka), CLI tests (with the README's and the man
#                   pages' examples), man page lint; the details in $(BUILD)/check.log
#   make demo       the tools on the real experiments in testdata/
#   make perf       the performance benchmark (bench/perf), prints figures
#   cube_bench      the MPI benchmark (bench/*.c, built with $(MPICC)); without
#                   an MPI compiler it is skipped (one line says so) and the
#                   library and the other tools are built and installed alone
#   make install    PREFIX=/usr/local DESTDIR=  library, headers, libcube.pc,
#                   tools, man pages (and make uninstall); libcube.pc is written
#                   for the PREFIX of the install, whatever the build used
#   make install-lib  the library alone: libcube.a/.so, headers, libcube.pc,
#                   man3 and man5 pages
#   SANITIZE=1      build and test with AddressSanitizer + UBSan (in build/sanitize)
#   make check-tsan the tests that run threads and cube_view (-o, --serve with
#                   8 clients), under ThreadSanitizer (in build/tsan)
#   make check-browser  cube_view's pages in Debian's headless Chromium, driven
#                   by playwright-core from npm (tests/browser; no browser
#                   download); the details in $(BUILD)/check-browser.log,
#                   screenshots in $(BUILD)/screenshots/
#   V=1             print the compiler's command lines (quiet by default:
#                   one "CC target" line each)
#   make check-libxml2-headers XML2_INCLUDE=DIR   compile the XML reader
#                   against the libxml2 headers in DIR (another libxml2 version)
#
# `make deps` installs the missing Debian packages of the build (MPICH
# included) when run as root, else names them; it does nothing when all are
# there.  Only `make demo`, `make check` and `make check-browser` run it
# (deps-check: also the test tools; deps-browser: Chromium and Node.js);
# `make`, `make install` and the other targets never call apt or dpkg.

# The version is defined once, by the CUBE_VERSION_MAJOR/MINOR/PATCH
# macros of cube.h; the shared library's name, its soname (the major
# version), the pkg-config file and the man pages take it from there.
PUBLIC_HDRS := $(wildcard libcube/include/*.h)
version_part = $(shell sed -n 's/^[#]define CUBE_VERSION_$(1)  *\([0-9][0-9]*\)$$/\1/p' libcube/include/cube.h)
VERSION    := $(call version_part,MAJOR).$(call version_part,MINOR).$(call version_part,PATCH)
SOVERSION  := $(call version_part,MAJOR)
ifneq ($(words $(subst ., ,$(VERSION))),3)
$(error libcube/include/cube.h: expected "#define CUBE_VERSION_MAJOR N" (and MINOR, PATCH), found version "$(VERSION)")
endif
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man

CC      ?= cc
MPICC   ?= mpicc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wpedantic
# Programs, examples, fuzzers and the tests of the public API see only the
# public headers; the library's own sources, and the unit tests of its
# internals (TEST_PRIVATE), also see libcube/ and its folders' *_private.h
# headers, included by path ("core/cube_private.h").
CPPFLAGS_ALL := -D_POSIX_C_SOURCE=200809L -Ilibcube/include \
                $(shell pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)
LDLIBS_ALL := -lxml2 -lz -lm -pthread

ifeq ($(SANITIZE),1)
BUILD   ?= build/sanitize
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(TSAN),1)
# ThreadSanitizer (make check-tsan): with $(CC), gcc's runtime (libtsan2)
# comes with build-essential, clang's with libclang-rt-14-dev
BUILD   ?= build/tsan
SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
else
BUILD   ?= build
SANFLAGS :=
endif

# Quiet build: one "CC target" line per command; V=1 prints the commands.
ifeq ($(V),1)
Q :=
quiet =
else
Q := @
quiet = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif

ALL_CFLAGS  = $(WARN) $(CFLAGS) $(SANFLAGS) -pthread $(CPPFLAGS_ALL) $(CPPFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)

# one folder per concern (the README's "Code map"); a private header is
# included by its path below libcube/ ("core/cube_private.h"), so every
# include line names the concern it reaches into
LIB_DIRS := core io xml algebra views statfile linktest cubex transform
LIB_SRC  := $(wildcard $(addprefix libcube/,$(addsuffix /*.c,$(LIB_DIRS))))
LIB_HDRS := $(wildcard $(addprefix libcube/,$(addsuffix /*.h,$(LIB_DIRS)))) $(PUBLIC_HDRS)
# only the functions marked CUBE_API in the public headers are exported
LIB_CPPFLAGS := -Ilibcube -fvisibility=hidden
LIB_OBJ  := $(patsubst libcube/%.c,$(BUILD)/obj/libcube/%.o,$(LIB_SRC))
LIB_A    := $(BUILD)/lib/libcube.a
LIB_SO   := $(BUILD)/lib/libcube.so.$(VERSION)
LIB_PC   := $(BUILD)/lib/libcube.pc

# cli_signals.o: the handler of SIGINT, SIGTERM, SIGHUP and SIGPIPE, cube_bench's too
CLI_SIGNALS_OBJ := $(BUILD)/obj/cli/cli_signals.o
CLI_COMMON_OBJ := $(BUILD)/obj/cli/cli_common.o $(BUILD)/obj/cli/cli_rank.o $(CLI_SIGNALS_OBJ)
ALGEBRA_CLI_OBJ := $(BUILD)/obj/cli/algebra_cli.o
# every cli/cube_*.c is a tool (cli_common.c, cli_rank.c, algebra_cli.c and kind_cli.c are
# shared parts)
TOOLS    := $(patsubst cli/%.c,%,$(wildcard cli/cube_*.c))
TOOL_BIN := $(addprefix $(BUILD)/bin/,$(TOOLS))

TEST_SRC := $(filter-out tests/unit/test_support.c,$(wildcard tests/unit/test_*.c))
TEST_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRC))
TEST_SUPPORT_OBJ := $(BUILD)/obj/tests/test_support.o
# the LinkTest writer (tests/support): for making files in tests and benchmarks only
LT_WRITER_OBJ := $(BUILD)/obj/tests/linktest_writer.o

# cube_bench: the measurement mechanisms that need no MPI (unit-tested
# without it) and the MPI side, compiled with mpicc
BENCH_CORE     := asec refine params report merge util quantum
BENCH_CORE_OBJ := $(patsubst %,$(BUILD)/obj/bench/%.o,$(BENCH_CORE))
BENCH_MPI_SRC  := $(filter-out $(patsubst %,bench/%.c,$(BENCH_CORE)),$(wildcard bench/*.c))
BENCH_MPI_OBJ  := $(patsubst bench/%.c,$(BUILD)/obj/bench-mpi/%.o,$(BENCH_MPI_SRC))
# no MPI compiler (MPICC=/nonexistent, no mpicc on PATH): no cube_bench
HAVE_MPICC     := $(shell command -v $(firstword $(MPICC)) >/dev/null 2>&1 && echo yes)
BENCH_BIN      := $(if $(HAVE_MPICC),$(if $(BENCH_MPI_SRC),$(BUILD)/bin/cube_bench))

GEN_BIN  := $(BUILD)/perf/gen_cube
GEN_LT_BIN := $(BUILD)/perf/gen_linktest
RW_BIN   := $(BUILD)/perf/cube_rw

MAN_PAGES := $(wildcard man/man1/*.1 man/man3/*.3 man/man5/*.5)
# the man pages as installed: @VERSION@ replaced by the version
MAN_OUT   := $(patsubst man/%,$(BUILD)/man/%,$(MAN_PAGES))

.SECONDARY:

.PHONY: all deps deps-check deps-browser browser-modules lib tools man check check-run check-browser \
        check-browser-run demo demo-run perf \
        install install-lib install-tools uninstall clean check-libxml2-headers

all: lib tools man

lib: $(LIB_A) $(LIB_SO) $(LIB_PC)
tools: $(TOOL_BIN) $(BENCH_BIN)
ifneq ($(HAVE_MPICC),yes)
	@echo "cube_bench: skipped (no MPI compiler: '$(MPICC)' not found; install MPICH or set MPICC=)"
endif
man: $(MAN_OUT)

$(BUILD)/man/%: man/% libcube/include/cube.h
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)sed 's/@VERSION@/$(VERSION)/g' $< > $@

# --- dependencies ---------------------------------------------------------
# Debian packages; `make deps` / `make deps-check` only (see the top)
BUILD_DEPS := libxml2-dev zlib1g-dev pkg-config mpich libmpich-dev libmicrohttpd-dev
CHECK_DEPS := libcmocka-dev groff-base libxml2-utils python3 locales bsdextrautils jq nodejs
PERF_DEPS  := libxml2-utils time
# npm comes with the machine's Node.js (20 or later, which playwright-core
# needs); Debian's own npm package conflicts with that nodejs package
BROWSER_DEPS := chromium nodejs

deps:
	@sh scripts/deps.sh $(BUILD_DEPS)

deps-check:
	@sh scripts/deps.sh $(BUILD_DEPS) $(CHECK_DEPS)

deps-browser:
	@sh scripts/deps.sh $(BUILD_DEPS) $(BROWSER_DEPS)
	@command -v npm >/dev/null 2>&1 || { echo "deps: npm not found (it comes with Node.js 20 or later)" >&2; exit 1; }

# --- the library ----------------------------------------------------------
$(BUILD)/obj/libcube/%.o: libcube/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $(LIB_CPPFLAGS) -fPIC -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(Q)rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

$(LIB_SO): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libcube.so.$(SOVERSION) -o $@ $^ $(LDLIBS_ALL)
	$(Q)ln -sf libcube.so.$(VERSION) $(BUILD)/lib/libcube.so.$(SOVERSION)
	$(Q)ln -sf libcube.so.$(SOVERSION) $(BUILD)/lib/libcube.so

# libcube.pc for PREFIX, LIBDIR and INCLUDEDIR as they are now: built by
# `make` (for the PREFIX given then) and written anew by `make install`,
# whose PREFIX may differ
pc_subst = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
               -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' libcube/libcube.pc.in

$(LIB_PC): libcube/libcube.pc.in libcube/include/cube.h Makefile
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)$(pc_subst) > $@

# --- the tools (linked statically against libcube: they run from build/) --
$(BUILD)/obj/cli/%.o: cli/%.c $(wildcard cli/*.h) $(PUBLIC_HDRS)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/bin/%: $(BUILD)/obj/cli/%.o $(CLI_COMMON_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# the algebra tools share their whole body
ALGEBRA_TOOLS := $(addprefix $(BUILD)/bin/,cube_diff cube_merge cube_mean cube_cmp \
                                          cube_commoncalltree)
$(ALGEBRA_TOOLS): $(BUILD)/bin/%: $(BUILD)/obj/cli/%.o $(ALGEBRA_CLI_OBJ) $(CLI_COMMON_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# cube_exclusify and cube_inclusify share their whole body
KIND_CLI_OBJ := $(BUILD)/obj/cli/kind_cli.o
KIND_TOOLS := $(addprefix $(BUILD)/bin/,cube_exclusify cube_inclusify)
$(KIND_TOOLS): $(BUILD)/bin/%: $(BUILD)/obj/cli/%.o $(KIND_CLI_OBJ) $(CLI_COMMON_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# cube_linktest draws its picture in a module of its own
LINKTEST_SVG_OBJ := $(BUILD)/obj/cli/linktest_svg.o
$(BUILD)/bin/cube_linktest: $(BUILD)/obj/cli/cube_linktest.o $(LINKTEST_SVG_OBJ) $(CLI_COMMON_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# cube_view carries its page (cli/view: the HTML, the style sheet, the model
# and the user interface's scripts) as byte arrays that tools/embed.c, built
# for the build machine with $(BUILD_CC), generates; its --serve links
# libmicrohttpd (the library libcube never does)
BUILD_CC   ?= cc
EMBED_BIN  := $(BUILD)/host/embed
VIEW_FILES := cli/view/page.html cli/view/view.css cli/view/model.js \
              $(sort $(wildcard cli/view/ui*.js)) cli/view/open.js
VIEW_ASSETS_C := $(BUILD)/gen/view_assets.c
VIEW_OBJ   := $(BUILD)/obj/cli/view_page.o $(BUILD)/obj/cli/view_serve.o $(BUILD)/obj/cli/view_number.o \
              $(BUILD)/obj/gen/view_assets.o
MHD_CFLAGS := $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
MHD_LIBS   := $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)

$(EMBED_BIN): tools/embed.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(BUILD_CC) -std=c11 -O2 -o $@ $<

$(VIEW_ASSETS_C): $(EMBED_BIN) $(VIEW_FILES)
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)$(EMBED_BIN) $@ -n view_asset_page cli/view/page.html \
	    -s view_asset_css cli/view/view.css \
	    -s view_asset_script $(filter %.js,$(VIEW_FILES))

$(BUILD)/obj/gen/view_assets.o: $(VIEW_ASSETS_C)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(WARN) $(CFLAGS) $(SANFLAGS) -c $< -o $@

$(BUILD)/obj/cli/view_serve.o: CPPFLAGS += $(MHD_CFLAGS)

$(BUILD)/bin/cube_view: $(BUILD)/obj/cli/cube_view.o $(VIEW_OBJ) $(CLI_COMMON_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(MHD_LIBS) $(LDLIBS_ALL)

# --- cube_bench -------------------------------------------------------------
BENCH_HDRS := $(wildcard bench/*.h) $(PUBLIC_HDRS) cli/cli_signals.h

$(BUILD)/obj/bench/%.o: bench/%.c $(BENCH_HDRS)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -Ibench -c $< -o $@

$(BUILD)/obj/bench-mpi/%.o: bench/%.c $(BENCH_HDRS)
	@mkdir -p $(@D)
	$(call quiet,MPICC,$@)$(MPICC) $(ALL_CFLAGS) -Ibench -Icli -c $< -o $@

$(BUILD)/bin/cube_bench: $(BENCH_MPI_OBJ) $(BENCH_CORE_OBJ) $(CLI_COMMON_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(call quiet,MPILD,$@)$(MPICC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# bench/compare: cube_bench's measurement against a fixed-iteration
# loop, interleaved; cube_bench's MPI objects without its main.  Run by
# `make bench-compare` on 2 ranks (about a minute: the loop's 10 000
# iterations at 4 MiB dominate).
COMPARE_SRC := $(wildcard bench/compare/*.c)
COMPARE_BIN := $(BUILD)/perf/bench_compare
COMPARE_OBJ := $(filter-out $(BUILD)/obj/bench-mpi/cube_bench.o,$(BENCH_MPI_OBJ))

$(COMPARE_BIN): $(COMPARE_SRC) $(BENCH_HDRS) $(COMPARE_OBJ) $(BENCH_CORE_OBJ) \
                $(CLI_COMMON_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(call quiet,MPICC,$@)$(MPICC) $(ALL_CFLAGS) -Ibench $(ALL_LDFLAGS) -o $@ $(COMPARE_SRC) $(COMPARE_OBJ) \
	    $(BENCH_CORE_OBJ) $(CLI_COMMON_OBJ) $(LIB_A) $(LDLIBS_ALL)

.PHONY: bench-compare
bench-compare: $(COMPARE_BIN) $(BENCH_BIN)
	sh bench/compare/run.sh $(COMPARE_BIN) $(BENCH_BIN) $(COMPARE_ARGS)

# --- tests ----------------------------------------------------------------
# The unit tests of internals: they include the *_private.h headers
# (libcube/ on their include path); every other unit test uses the public
# API only.
TEST_PRIVATE := test_concurrency test_linktest_writer test_model_cnodes test_number \
                test_severity_store test_cubex_tar test_cubex_binary test_cubex_anchor \
                test_cubex_write test_cubex_read test_fuzz_regressions test_algebra_cube4 \
                test_cubex_totals test_transform
$(patsubst %,$(BUILD)/obj/tests/%.o,$(TEST_PRIVATE)): TEST_CPPFLAGS := -Ilibcube

# the tests that compare with the expected-values files (JSON) of
# testdata/cubex link a small JSON reader
TEST_JSON_OBJ := $(BUILD)/obj/tests/json_reader.o $(BUILD)/obj/tests/cubex_expected.o
CUBEX_TESTS := test_cubex_tar test_cubex_binary test_cubex_anchor test_cubex_read \
               test_views_inclusive test_cubex_totals test_view_values
$(addprefix $(BUILD)/tests/,$(CUBEX_TESTS)): $(TEST_JSON_OBJ)
$(patsubst %,$(BUILD)/obj/tests/%.o,$(CUBEX_TESTS)) $(BUILD)/obj/tests/cubex_expected.o: \
    tests/unit/json_reader.h tests/unit/cubex_expected.h
$(BUILD)/obj/tests/cubex_expected.o: TEST_CPPFLAGS := -Ilibcube

$(BUILD)/obj/tests/%.o: tests/unit/%.c tests/unit/test_support.h $(LIB_HDRS) $(wildcard bench/*.h)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -Itests/unit -Itests/support -Ibench $(TEST_CPPFLAGS) -c $< -o $@

# the fuzz regression test compiles the harnesses' sources in
$(BUILD)/obj/tests/test_fuzz_regressions.o: $(wildcard fuzz/*.c fuzz/*.h)

$(LT_WRITER_OBJ): tests/support/linktest_writer.c tests/support/linktest_writer.h
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -Itests/support -c $< -o $@

$(BUILD)/tests/test_%: $(BUILD)/obj/tests/test_%.o $(TEST_SUPPORT_OBJ) $(LT_WRITER_OBJ) $(BENCH_CORE_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS_ALL)

EXAMPLE_BIN := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))

$(BUILD)/examples/%: examples/%.c $(LIB_A) $(PUBLIC_HDRS)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(WARN) $(CFLAGS) $(SANFLAGS) -Ilibcube/include $(ALL_LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS_ALL)

# the generators make the large inputs of tests/cli/test_signals.sh.  The
# Debian packages first (deps-check), then a make of its own that sees them
# (pkg-config's flags, mpicc).
check: deps-check
	@$(MAKE) --no-print-directory check-run
check-run: lib tools man $(TEST_BIN) $(EXAMPLE_BIN) $(GEN_BIN) $(GEN_LT_BIN)
	@sh tests/run.sh $(BUILD) $(TEST_BIN)

# cube_view's pages (embedded and served) in Debian's headless Chromium:
# tests/browser/run.js prints "ok - ..." / "not ok - ..." and the summary
# line; playwright-core is installed from tests/browser/package-lock.json
# when tests/browser/node_modules is missing.
check-browser: deps-browser
	@$(MAKE) --no-print-directory check-browser-run
check-browser-run: tools browser-modules
	@node tests/browser/run.js $(BUILD)
# playwright-core from the npm registry, as package-lock.json pins it; it
# drives Debian's Chromium and never downloads a browser
browser-modules:
	@test -d tests/browser/node_modules/playwright-core || \
	    (cd tests/browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --ignore-scripts >/dev/null)

# The unit tests that run threads of their own or of the library (the
# concurrency test, the algebra's read-ahead workers, the LinkTest
# analysis's second thread), and cube_view (-o, and --serve with its
# threads at load and per answer, 8 clients at once: tests/tsan_cube_view.sh),
# built with -fsanitize=thread in build/tsan and run by tests/tsan.sh, which
# fails on any ThreadSanitizer report.
TSAN_TESTS := test_concurrency test_algebra test_algebra_cube4 test_linktest_stats
TSAN_SCRIPTS := tests/tsan_cube_view.sh
.PHONY: check-tsan tsan-run
check-tsan: deps-check
	@$(MAKE) --no-print-directory TSAN=1 tsan-run
tsan-run: $(addprefix $(BUILD)/tests/,$(TSAN_TESTS)) $(BUILD)/bin/cube_view $(GEN_BIN)
	@sh tests/tsan.sh $(BUILD) $(addprefix $(BUILD)/tests/,$(TSAN_TESTS)) $(TSAN_SCRIPTS)

# --- demo and benchmarks --------------------------------------------------
demo: deps
	@$(MAKE) --no-print-directory demo-run
demo-run: all
	@sh scripts/demo.sh $(BUILD)/bin

$(GEN_BIN): bench/perf/gen_cube.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) -std=c11 -O2 -o $@ $<

$(GEN_LT_BIN): bench/perf/gen_linktest.c tests/support/linktest_writer.c tests/support/linktest_writer.h
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) -std=c11 -O2 -Itests/support -o $@ bench/perf/gen_linktest.c tests/support/linktest_writer.c -lm

# cube_rw: cube_read and cube_write_file alone, for the CUBE 4 figures
$(RW_BIN): bench/perf/cube_rw.c $(PUBLIC_HDRS) $(LIB_A)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS_ALL)

perf: all $(GEN_BIN) $(GEN_LT_BIN) $(RW_BIN)
	@sh scripts/deps.sh $(PERF_DEPS)
	GEN=$(GEN_BIN) RW=$(RW_BIN) bash bench/perf/run.sh $(BUILD)/bin
	GEN_LT=$(GEN_LT_BIN) bash bench/perf/run_linktest.sh $(BUILD)/bin
	GEN=$(GEN_BIN) RW=$(RW_BIN) bash bench/perf/run_huge.sh $(BUILD)/bin
	GEN=$(GEN_BIN) bash bench/perf/run_view.sh $(BUILD)/bin
	@$(MAKE) --no-print-directory deps-browser browser-modules
	node tests/browser/perf_view.js $(BUILD)/bin $(GEN_BIN) 50 5

# --- fuzzing -------------------------------------------------------------------
# make fuzz: the libFuzzer harnesses fuzz/fuzz_*.c (clang, ASan + UBSan) in
# build/fuzz/, each run for FUZZ_SECONDS on a corpus seeded from testdata/;
# fails on any finding (saved under build/fuzz/findings/).  See fuzz/README.md.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  := $(WARN) -g -O1 $(FUZZ_SAN) -pthread $(CPPFLAGS_ALL) -Ibench
FUZZ_NAMES   := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_BINS    := $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_NAMES))
FUZZ_LIB_OBJ := $(patsubst libcube/%.c,$(FUZZ_DIR)/obj/libcube/%.o,$(LIB_SRC)) \
                $(patsubst %,$(FUZZ_DIR)/obj/bench/%.o,$(BENCH_CORE))

$(FUZZ_DIR)/obj/libcube/%.o: libcube/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) $(LIB_CPPFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/obj/bench/%.o: bench/%.c $(BENCH_HDRS)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

# the CUBE 4 harnesses reach the library's private modules
$(FUZZ_DIR)/fuzz_cubex_tar $(FUZZ_DIR)/fuzz_cubex_anchor: FUZZ_CFLAGS += -Ilibcube

$(FUZZ_DIR)/fuzz_%: fuzz/fuzz_%.c $(wildcard fuzz/*.h) $(FUZZ_LIB_OBJ)
	$(call quiet,LD,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) $(LDLIBS_ALL)

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	sh fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

# --- install --------------------------------------------------------------
# install-lib: what a program using libcube needs; install-tools: the tools
# (cube_bench when it was built).  Both only build, never fetch packages.
# The man pages are installed as `make man` wrote them, with the version.
BENCH_MAN   := $(BUILD)/man/man1/cube_bench.1 $(BUILD)/man/man5/cube_bench.5
LIB_MAN     := $(filter %.3,$(MAN_OUT)) $(filter-out $(BENCH_MAN),$(filter %.5,$(MAN_OUT)))
TOOL_MAN    := $(filter-out $(BENCH_MAN),$(filter %.1,$(MAN_OUT)))

install: install-lib install-tools

install-lib: lib $(LIB_MAN)
	$(call quiet,INSTALL,$(DESTDIR)$(LIBDIR))install -d $(DESTDIR)$(LIBDIR)/pkgconfig \
	    $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5
	$(Q)install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)
	$(Q)install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)
	$(Q)ln -sf libcube.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libcube.so.$(SOVERSION)
	$(Q)ln -sf libcube.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libcube.so
	$(Q)$(pc_subst) > $(DESTDIR)$(LIBDIR)/pkgconfig/libcube.pc
	$(Q)chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/libcube.pc
	$(call quiet,INSTALL,$(DESTDIR)$(INCLUDEDIR))install -m 644 $(PUBLIC_HDRS) $(DESTDIR)$(INCLUDEDIR)
	$(call quiet,INSTALL,$(DESTDIR)$(MANDIR))install -m 644 $(filter %.3,$(LIB_MAN)) $(DESTDIR)$(MANDIR)/man3
	$(Q)install -m 644 $(filter %.5,$(LIB_MAN)) $(DESTDIR)$(MANDIR)/man5

install-tools: tools $(TOOL_MAN) $(BENCH_MAN)
	$(call quiet,INSTALL,$(DESTDIR)$(BINDIR))install -d $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	$(Q)install -m 755 $(TOOL_BIN) $(BENCH_BIN) $(DESTDIR)$(BINDIR)
	$(Q)install -m 644 $(TOOL_MAN) $(DESTDIR)$(MANDIR)/man1
ifneq ($(BENCH_BIN),)
	$(Q)install -m 644 $(filter %.1,$(BENCH_MAN)) $(DESTDIR)$(MANDIR)/man1
	$(Q)install -m 644 $(filter %.5,$(BENCH_MAN)) $(DESTDIR)$(MANDIR)/man5
	$(Q)install -d $(DESTDIR)$(PREFIX)/share/cube_bench
	$(Q)install -m 644 bench/default.par $(DESTDIR)$(PREFIX)/share/cube_bench/default.par
endif

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(TOOLS) cube_bench)
	rm -f $(DESTDIR)$(LIBDIR)/libcube.a $(DESTDIR)$(LIBDIR)/libcube.so \
	      $(DESTDIR)$(LIBDIR)/libcube.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libcube.so.$(VERSION) \
	      $(DESTDIR)$(LIBDIR)/pkgconfig/libcube.pc \
	      $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(PUBLIC_HDRS)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/man1/*.1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(wildcard man/man3/*.3)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(wildcard man/man5/*.5)))
	rm -f $(DESTDIR)$(PREFIX)/share/cube_bench/default.par
	-rmdir $(DESTDIR)$(PREFIX)/share/cube_bench 2>/dev/null

# the XML reader compiled against another libxml2's headers (XML2_INCLUDE:
# the folder holding libxml/), with gcc and clang, warnings as errors
check-libxml2-headers:
	@test -n "$(XML2_INCLUDE)" || { echo "check-libxml2-headers: set XML2_INCLUDE=DIR (DIR/libxml/xmlversion.h)"; exit 2; }
	@sed -n 's/^#define LIBXML_DOTTED_VERSION "\(.*\)"/libxml2 \1 headers/p' $(XML2_INCLUDE)/libxml/xmlversion.h
	$(call quiet,CC,libcube/xml/reader.c)$(CC) $(WARN) -Werror -fsyntax-only -D_POSIX_C_SOURCE=200809L -Ilibcube -Ilibcube/include -I$(XML2_INCLUDE) libcube/xml/reader.c
	$(Q)if command -v clang >/dev/null 2>&1; then printf '  %-8s %s\n' CLANG libcube/xml/reader.c; \
	    clang $(WARN) -Werror -fsyntax-only -D_POSIX_C_SOURCE=200809L -Ilibcube -Ilibcube/include -I$(XML2_INCLUDE) libcube/xml/reader.c; fi

clean:
	rm -rf build
