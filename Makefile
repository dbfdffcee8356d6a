# mmlab - kernel regression lab. See README.md.
#
#   make             build ./mmlab and the guest programs
#   make demo        install what is missing, build, run jobs/demo.yaml
#   make check       every test: format-check and lint, unit (ASan/UBSan),
#                    cli (no VM), integration (boots VMs) and e2e (builds kernels)
#   make check-unit  unit tests only (T=NAME: tests/unit/*/test_NAME.c alone)
#   make check-cli   the CLI tests of tests/cli/: ./mmlab over fixture stores,
#                    no libvirt, no guest (under a minute)
#   make check-fuzz  each libFuzzer target of tests/fuzz/ for CHECK_FUZZ_SECONDS
#                    (10; part of make check); make fuzz runs each
#                    FUZZ_SECONDS (300), make fuzz-long 600 s each (release)
#   make check-e2e   the kernel-building end-to-end tests
#   make check-fresh the README's first commands in a fresh Debian 12 chroot
#                    (tests/fresh/run; root, network; tests the last commit)
#   make bench       benchmarks (ratios measured side by side)
#   make deps        install the Debian packages 'make' and 'make demo' need
#                    (TIER=unit, test or e2e: also those of the tests)
#   make install PREFIX=/usr/local   (mmlab, the guest programs, images/ recipes)
#
# The host tool's library flags come from pkg-config through build/config.mk,
# which a rule writes when a target first needs them; when a library is
# missing, that rule names it and its Debian package and says to run
# 'make deps'. The targets that install packages (deps, demo, check*, bench)
# do not read build/config.mk themselves: they install first, then run
# $(MAKE) again, and that make reads flags computed with the packages there.

PREFIX ?= /usr/local
CC ?= cc
PKG_CONFIG ?= pkg-config
export PKG_CONFIG

# the host tool's libraries: pkg-config module:Debian package
PKGS := libvirt:libvirt-dev libxml-2.0:libxml2-dev yaml-0.1:libyaml-dev \
	jansson:libjansson-dev sqlite3:libsqlite3-dev gsl:libgsl-dev \
	libarchive:libarchive-dev libcrypto:libssl-dev zlib:zlib1g-dev \
	libguestfs:libguestfs-dev

# the host tool's sources are lab/<stage>/*.c; lab/builtin/main.c holds main()
LAB_DIRS := lab
LAB_MAIN := lab/builtin/main.c

MAKEFLAGS += --no-print-directory

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
	-Wstrict-prototypes -Wmissing-prototypes -Wvla
MMLAB_VERSION ?= 0.1.0
BASE_CFLAGS := -DMMLAB_VERSION=\"$(MMLAB_VERSION)\" -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(WARN) \
	$(addprefix -I,$(LAB_DIRS)) -Icommon -Iworkloads/lib

CFLAGS ?= -O2 -g

# kernel-style quiet build; "make V=1" shows the commands
ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-6s %s\n' $(1) $(2);
endif
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined

# the host tool: lab/<stage>/*.c (docs/architecture.md)
LAB_SRCS := $(sort $(wildcard $(addsuffix /*/*.c,$(LAB_DIRS))))
COMMON_SRCS := $(sort $(wildcard common/*.c))
AGENT_SRCS := $(sort $(wildcard collectors/*.c))
WL_LIB_SRCS := $(sort $(wildcard workloads/lib/*.c))
WL_SRCS := $(sort $(wildcard workloads/*.c))
WL_NAMES := $(patsubst workloads/%.c,%,$(WL_SRCS))
# the unit suites: tests/unit/<folder>/test_*.c, <folder> the lab/ folder
# (or collectors, common) of the module a suite tests
UNIT_SRCS := $(sort $(wildcard tests/unit/*/test_*.c))

HOST_OBJS := $(patsubst %.c,build/host/%.o,$(LAB_SRCS) $(COMMON_SRCS))
SAN_LIB_OBJS := $(patsubst %.c,build/san/%.o,$(filter-out $(LAB_MAIN),$(LAB_SRCS)) $(COMMON_SRCS))
GUEST_COMMON_OBJS := $(patsubst %.c,build/gobj/%.o,$(COMMON_SRCS))
AGENT_OBJS := $(patsubst %.c,build/gobj/%.o,$(AGENT_SRCS)) $(GUEST_COMMON_OBJS)
WL_LIB_OBJS := $(patsubst %.c,build/gobj/%.o,$(WL_LIB_SRCS)) $(GUEST_COMMON_OBJS)
WL_BINS := $(patsubst %,build/guest/workloads/%,$(WL_NAMES))
UNIT_BINS := $(patsubst tests/unit/%.c,build/san/tests/unit/%,$(UNIT_SRCS))

# kernel-module sources of workloads (workloads/<name>/Kbuild): the host
# builds them per variant at run time from build/guest/modules-src/<name>
MOD_SRCS := $(filter-out workloads/lib/%,$(wildcard workloads/*/Kbuild workloads/*/*.c))
MOD_COPIES := $(patsubst workloads/%,build/guest/modules-src/%,$(MOD_SRCS))

GUEST := build/guest/agent build/guest/rootinit $(WL_BINS) $(MOD_COPIES)

.SECONDARY:

.PHONY: guard all demo check check-unit check-cli check-integration check-e2e check-fresh bench deps \
	install clean format lint unit-bins fuzz fuzz-long check-fuzz fuzz-bins

all: mmlab $(GUEST)

# Goals that read no library flags: they build nothing, or they install
# packages and then run $(MAKE) again. Any other goal (and plain 'make')
# includes build/config.mk, which make writes first when it is missing or
# older than this Makefile. 'make deps all' in one go installs before it.
CONFIG_MK := build/config.mk
NOCONFIG_GOALS := deps demo check check-unit check-cli check-integration check-e2e check-fresh \
	bench clean format lint format-check fuzz fuzz-long check-fuzz
ifneq ($(filter-out $(NOCONFIG_GOALS),$(or $(MAKECMDGOALS),all)),)
include $(CONFIG_MK)
endif

$(CONFIG_MK): Makefile scripts/pkg-config-mk | $(filter deps,$(MAKECMDGOALS))
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)
	$(Q)scripts/pkg-config-mk $@ $(PKGS)

mmlab: $(HOST_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) -lm -lpthread

# -MMD: each object depends on the headers it includes (build/**/*.d)
DEPFLAGS = -MMD -MP

build/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

build/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

# guest programs: static, no host libraries but zlib; objects in build/gobj,
# programs alone in build/guest (the image takes every file there)
build/gobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(DEPFLAGS) -Icollectors -O2 -g -c -o $@ $<

build/guest/agent: $(AGENT_OBJS)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)
	$(Q)$(CC) -static -o $@ $^ -lz -lpthread

# /init of the disk image's own initramfs (lab/image/rootinitrd.c)
build/guest/rootinit: build/gobj/collectors/rootinit/rootinit.o
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)
	$(Q)$(CC) -static -o $@ $^

build/guest/workloads/%: build/gobj/workloads/%.o $(WL_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)
	$(Q)$(CC) -static -o $@ $^ -lz -lpthread -lm

# test-only guest programs (tests/guest/*.c): never in build/guest, so only
# an image a test makes for itself holds one (t-collect-hostile.sh)
build/test-guest/%: build/gobj/tests/guest/%.o $(WL_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)
	$(Q)$(CC) -static -o $@ $^ -lz -lpthread -lm

build/guest/modules-src/%: workloads/%
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

build/san/tests/unit/%: tests/unit/%.c $(SAN_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) $(SAN_FLAGS) -Itests/unit -o $@ $< \
		$(SAN_LIB_OBJS) $(PKG_LIBS) -lm -lpthread -lcmocka

unit-bins: $(UNIT_BINS)

# bench/run track: the change points of `mmlab track` on simulated series
# (bench/track.c), linked against the host build's objects; only the
# benchmark builds it ('make build/bench/track')
BENCH_TRACK_OBJS := $(addprefix build/host/lab/,analysis/changepoint.o analysis/stats.o lib/util.o)
build/bench/track: bench/track.c $(BENCH_TRACK_OBJS) lab/analysis/changepoint.h \
		lab/analysis/stats.h lab/lib/util.h
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(BENCH_TRACK_OBJS) $(PKG_LIBS) -lm

# the Slurm tests' guard: an LD_PRELOAD shim logging opens of SQLite files
# in the store from inside a Slurm task (tests/guard/dbopen.c)
build/tests/guard-dbopen.so: tests/guard/dbopen.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -shared -O2 -o $@ $< -ldl

guard: build/tests/guard-dbopen.so

# The targets that install packages: install-deps first, each the tier it
# needs (scripts/install-deps --help), then a new make builds (one line after
# the other, so 'make -jN' keeps that order).
TIER := run
deps:
	scripts/install-deps $(TIER)

demo:
	scripts/install-deps run
	$(MAKE) all
	scripts/start-libvirt
	./mmlab doctor
	./mmlab run jobs/demo.yaml
	./mmlab compare latest

check:
	scripts/install-deps e2e
	$(MAKE) all
	tests/prebuild --start
	$(MAKE) format-check lint
	$(MAKE) check-unit
	$(MAKE) check-fuzz
	$(MAKE) check-cli
	$(MAKE) check-integration
	$(MAKE) check-e2e

# T=NAME runs one suite: tests/unit/*/test_NAME.c (T=test_NAME works too)
UNIT_RUN = $(if $(T),$(filter %/test_$(patsubst test_%,%,$(T)),$(UNIT_BINS)),$(UNIT_BINS))

check-unit:
	$(if $(wildcard tests/unit/test_*.c),$(error $(wildcard tests/unit/test_*.c): a suite goes in tests/unit/<folder>/, the lab/ folder it tests; here it would never run))
	$(if $(T),$(if $(UNIT_RUN),,$(error T=$(T): no tests/unit/*/test_$(patsubst test_%,%,$(T)).c)))
	scripts/install-deps unit
	$(MAKE) all $(UNIT_RUN)
	@set -e; for t in $(UNIT_RUN); do \
		echo "== $$t"; \
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		MMLAB_SRCDIR=$(CURDIR) MMLAB_IMAGES_DIR=$(CURDIR)/images $$t; \
	done

# ---- fuzzing: tests/fuzz/README.md ----
# Each tests/fuzz/fuzz_<name>.c is a libFuzzer target linked against the
# project's own objects, built again with clang and the fuzzer's
# instrumentation (ASan, UBSan) into build/fuzz/.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 300
# make check's share: 12 targets x 10 s, about 2.5 min with the replays,
# inside CI's 60-minute budget; the longer runs are make fuzz / fuzz-long
CHECK_FUZZ_SECONDS ?= 10
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -O1 -g
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRCS))
FUZZ_LIB_OBJS := $(patsubst %.c,build/fuzz/obj/%.o,$(filter-out $(LAB_MAIN),$(LAB_SRCS)) \
	$(COMMON_SRCS) collectors/plan.c)

build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call msg,FUZZCC,$@)
	$(Q)$(FUZZ_CC) $(BASE_CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) $(FUZZ_SAN) \
		-fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/liblab.a: $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h build/fuzz/liblab.a
	$(call msg,LD,$@)
	$(Q)$(FUZZ_CC) $(BASE_CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer \
		-Icollectors -Itests/fuzz -o $@ $< build/fuzz/liblab.a $(PKG_LIBS) -lm -lpthread

fuzz-bins: $(FUZZ_BINS)

# tests/fuzz/run replays tests/fuzz/corpus/regressions/, then fuzzes each
# target; any finding fails, naming the reproducer
fuzz:
	scripts/install-deps test
	$(MAKE) fuzz-bins
	tests/fuzz/run --seconds $(FUZZ_SECONDS)

fuzz-long:
	scripts/install-deps test
	$(MAKE) fuzz-bins
	tests/fuzz/run --seconds 600

check-fuzz:
	scripts/install-deps test
	$(MAKE) fuzz-bins
	tests/fuzz/run --seconds $(CHECK_FUZZ_SECONDS)

# tests/cli/run: every command's help and bad usage, results, compare and
# report over a store the tests write from fixture files; boots nothing
check-cli:
	scripts/install-deps test
	$(MAKE) mmlab
	tests/cli/run

check-integration:
	scripts/install-deps test
	$(MAKE) all
	scripts/start-libvirt
	tests/integration/run

check-e2e:
	scripts/install-deps e2e
	$(MAKE) all
	scripts/start-libvirt
	tests/e2e/run

# not part of 'make check': it tests a commit, not this tree (.ci/run)
check-fresh:
	tests/fresh/run

bench:
	scripts/install-deps test
	$(MAKE) all
	scripts/start-libvirt
	bench/run

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/mmlab/guest/workloads \
		$(DESTDIR)$(PREFIX)/share/mmlab/images
	install -m 0755 mmlab $(DESTDIR)$(PREFIX)/bin/mmlab
	install -m 0755 build/guest/agent $(DESTDIR)$(PREFIX)/lib/mmlab/guest/agent
	install -m 0755 build/guest/rootinit $(DESTDIR)$(PREFIX)/lib/mmlab/guest/rootinit
	install -m 0755 $(WL_BINS) $(DESTDIR)$(PREFIX)/lib/mmlab/guest/workloads/
	cp -r build/guest/modules-src $(DESTDIR)$(PREFIX)/lib/mmlab/guest/
	install -m 0644 images/*.yaml $(DESTDIR)$(PREFIX)/share/mmlab/images/
	install -d $(DESTDIR)$(PREFIX)/share/mmlab/guest-scripts
	install -m 0755 scripts/guest/*.sh $(DESTDIR)$(PREFIX)/share/mmlab/guest-scripts/
	for d in jobs kernels docs; do \
		if [ -d $$d ]; then cp -r $$d $(DESTDIR)$(PREFIX)/share/mmlab/; fi; \
	done

# ---- lint, format, clang: .clang-tidy, .clang-format, scripts/lint* ----
#   make lint          the folder layers (lab/LAYERS), the headers' include
#                      guards (scripts/check-header-guards), bench/run's awk under
#                      mawk and gawk, cppcheck, clang-tidy and the
#                      include-cycle check on every source the build
#                      compiles, then the linters'
#                      own test (check-lint); any finding fails
#   make format        clang-format the sources in place
#   make format-check  fail, listing the files clang-format would change
CLANG_TIDY ?= clang-tidy
CLANG_FORMAT ?= clang-format
LINT_JOBS ?= 2
LINT_DIR ?= build/lint
LINT_SRCS ?= $(LAB_SRCS) $(COMMON_SRCS) $(AGENT_SRCS) collectors/rootinit/rootinit.c \
	$(WL_LIB_SRCS) $(WL_SRCS) \
	$(wildcard tests/guest/*.c)
LINT_CPPFLAGS := -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DMMLAB_VERSION='"lint"' \
	$(addprefix -I,$(LAB_DIRS)) -Icommon -Icollectors -Iworkloads/lib
TIDY_STAMPS = $(patsubst %.c,$(LINT_DIR)/%.tidy,$(LINT_SRCS))
# the static analyzer's budget per function (clang's default: 225000):
# half the time on the largest files, the same findings there
TIDY_MAX_NODES ?= 100000
TIDY_CFLAGS = -std=c11 $(LINT_CPPFLAGS) $(PKG_CFLAGS) \
	-Xclang -analyzer-config -Xclang max-nodes=$(TIDY_MAX_NODES)
# every C file the project owns: the host tool, the guest side, the kernel
# modules of workloads/<name>/, the tests and their fixtures, the example
# jobs' programs and the benchmarks' (build/ holds none of them)
FORMAT_SRCS = $(sort $(shell find $(LAB_DIRS) common collectors workloads tests bench jobs \
	-type f -name '*.[ch]' 2>/dev/null))
# the workloads' kernel modules: cppcheck only, as kernel code (clang-tidy
# would need the kernel's own compiler flags; the module is compiled with
# them against the distro kernel by tests/integration/t-workload-pagebench.sh)
LINT_KMOD_SRCS ?= $(filter %.c,$(MOD_SRCS))
# a known cycle tolerated while it is being removed: "--allow A:B" with
# the modules as check-include-cycles names them; it fails once the
# cycle is gone, so the exception goes with it
CYCLES_ALLOW :=

.PHONY: lint-cppcheck lint-cppcheck-kmod lint-tidy lint-tidy-stale lint-cycles lint-layers lint-guards lint-json \
	lint-awk check-lint format-check

lint:
	$(Q)$(MAKE) --no-print-directory -Otarget -j$(LINT_JOBS) lint-layers lint-guards lint-json lint-awk \
		lint-cycles lint-cppcheck lint-cppcheck-kmod lint-tidy-stale
	$(Q)$(MAKE) --no-print-directory check-lint

lint-cycles:
	$(call msg,CYCLES,$(LAB_DIRS))
	$(Q)scripts/check-include-cycles $(CYCLES_ALLOW) $(LAB_DIRS)
	$(Q)scripts/check-include-cycles -Icommon -Icollectors -Iworkloads/lib \
		common collectors workloads

# a folder of lab/ includes only itself and the folders below it in
# lab/LAYERS (docs/architecture.md, "The folders")
lint-layers:
	$(call msg,LAYERS,lab/LAYERS)
	$(Q)scripts/check-layers lab

# each header's include guard names its file, and no two are the same
# (scripts/check-header-guards; tests/lint/ holds planted headers)
lint-guards:
	$(call msg,GUARDS,headers)
	$(Q)scripts/check-header-guards $(filter-out tests/lint/%,$(filter %.h,$(FORMAT_SRCS)))

# JSON is read into typed records at the edges (docs/architecture.md,
# "Typed records"): at most JSON_GET_MAX string-key reads outside the
# *_json.c (de)serialisers, the count measured when it was set (lower it
# as reads go, never raise it); every header function returning a json_t
# says who owns it
JSON_GET_MAX := 1
lint-json:
	$(call msg,JSON,lab)
	$(Q)scripts/count-json-get $(JSON_GET_MAX) >/dev/null
	$(Q)scripts/check-json-owner

# the benchmarks' awk programs under mawk and gawk (Debian's awk is
# either): they must parse, run and print the same with both
lint-awk:
	$(call msg,AWK,bench/run)
	$(Q)scripts/check-awk bench/run >/dev/null || scripts/check-awk bench/run

lint-cppcheck:
	$(call msg,CPPCHECK,sources)
	$(Q)scripts/lint-cppcheck -j$(LINT_JOBS) --accepted scripts/lint/cppcheck-accepted \
		$(CPPCHECK_OPTS) $(LINT_CPPFLAGS) $(LINT_SRCS)

lint-cppcheck-kmod:
	$(call msg,CPPCHECK,$(LINT_KMOD_SRCS))
	$(Q)scripts/lint-cppcheck -j$(LINT_JOBS) --partial -D__KERNEL__ -DMODULE $(LINT_KMOD_SRCS)

lint-tidy: $(TIDY_STAMPS)

# accepted clang-tidy findings that went away fail too (whole tree only)
lint-tidy-stale: lint-tidy
	$(Q)scripts/lint-clang-tidy --accepted scripts/lint/clang-tidy-accepted --stale \
		$(TIDY_STAMPS)

# a stamp per source: checked again when the source, a header it includes
# (the .d made alongside), .clang-tidy or the accepted list changes
$(LINT_DIR)/%.tidy: %.c .clang-tidy scripts/lint/clang-tidy-accepted
	@mkdir -p $(dir $@)
	$(call msg,TIDY,$<)
	$(Q)$(CC) -std=c11 $(LINT_CPPFLAGS) $(PKG_CFLAGS) -MM -MP -MT $@ -MF $(@:.tidy=.d) $<
	$(Q)CLANG_TIDY=$(CLANG_TIDY) scripts/lint-clang-tidy \
		--accepted scripts/lint/clang-tidy-accepted --stamp $@ $< -- $(TIDY_CFLAGS)

# the linters must fail on the known bugs of tests/lint (run by make lint)
check-lint:
	$(Q)tests/lint/run

format:
	$(CLANG_FORMAT) -i $(FORMAT_SRCS)

format-check:
	$(Q)CLANG_FORMAT=$(CLANG_FORMAT) scripts/check-format $(FORMAT_SRCS)

clean:
	rm -rf build mmlab

-include $(shell find build/host build/san build/gobj build/lint build/fuzz -name '*.d' -type f 2>/dev/null)
