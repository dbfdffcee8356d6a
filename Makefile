# mmlab - kernel regression lab. See README.md.
#
#   make             build ./mmlab and the guest programs
#   make demo        install what is missing, build, run jobs/demo.yaml
#   make check       every test: unit (ASan/UBSan) + integration (boots VMs) + e2e
#   make check-unit  unit tests only
#   make check-e2e   the kernel-building end-to-end tests
#   make bench       benchmarks (ratios measured side by side)
#   make deps        install the Debian packages the lab needs
#   make install PREFIX=/usr/local   (mmlab, the guest programs, images/ recipes)

PREFIX ?= /usr/local
CC ?= cc
PKG_CONFIG ?= pkg-config

PKGS := libvirt libxml-2.0 yaml-0.1 jansson sqlite3 gsl libarchive libcrypto zlib libguestfs

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
	-Wstrict-prototypes -Wmissing-prototypes -Wvla
MMLAB_VERSION ?= 0.1.0
BASE_CFLAGS := -DMMLAB_VERSION=\"$(MMLAB_VERSION)\" -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(WARN) -Ilab -Icommon \
	-Iworkloads/lib
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm -lpthread

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
LAB_SRCS := $(sort $(wildcard lab/*/*.c))
COMMON_SRCS := $(sort $(wildcard common/*.c))
AGENT_SRCS := $(sort $(wildcard collectors/*.c))
WL_LIB_SRCS := $(sort $(wildcard workloads/lib/*.c))
WL_SRCS := $(sort $(wildcard workloads/*.c))
WL_NAMES := $(patsubst workloads/%.c,%,$(WL_SRCS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))

HOST_OBJS := $(patsubst %.c,build/host/%.o,$(LAB_SRCS) $(COMMON_SRCS))
SAN_LIB_OBJS := $(patsubst %.c,build/san/%.o,$(filter-out lab/builtin/main.c,$(LAB_SRCS)) $(COMMON_SRCS))
GUEST_COMMON_OBJS := $(patsubst %.c,build/gobj/%.o,$(COMMON_SRCS))
AGENT_OBJS := $(patsubst %.c,build/gobj/%.o,$(AGENT_SRCS)) $(GUEST_COMMON_OBJS)
WL_LIB_OBJS := $(patsubst %.c,build/gobj/%.o,$(WL_LIB_SRCS)) $(GUEST_COMMON_OBJS)
WL_BINS := $(patsubst %,build/guest/workloads/%,$(WL_NAMES))
UNIT_BINS := $(patsubst tests/unit/%.c,build/san/tests/unit/%,$(UNIT_SRCS))

# kernel-module sources of workloads (workloads/<name>/Kbuild): the host
# builds them per variant at run time from build/guest/modules-src/<name>
MOD_SRCS := $(filter-out workloads/lib/%,$(wildcard workloads/*/Kbuild workloads/*/*.c))
MOD_COPIES := $(patsubst workloads/%,build/guest/modules-src/%,$(MOD_SRCS))

GUEST := build/guest/agent $(WL_BINS) $(MOD_COPIES)

.SECONDARY:

.PHONY: all demo check check-unit check-integration check-e2e bench deps install \
	clean format lint

all: mmlab $(GUEST)

mmlab: $(HOST_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS)

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

build/guest/workloads/%: build/gobj/workloads/%.o $(WL_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)
	$(Q)$(CC) -static -o $@ $^ -lz -lpthread -lm

build/guest/modules-src/%: workloads/%
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

build/san/tests/unit/%: tests/unit/%.c $(SAN_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)
	$(Q)$(CC) $(BASE_CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) $(SAN_FLAGS) -Itests/unit -o $@ $< $(SAN_LIB_OBJS) \
		$(PKG_LIBS) -lcmocka

deps:
	scripts/install-deps

demo: deps all
	scripts/start-libvirt
	./mmlab doctor
	./mmlab run jobs/demo.yaml
	./mmlab compare latest

check: deps all check-unit check-integration check-e2e

check-unit: $(UNIT_BINS) all
	@set -e; for t in $(UNIT_BINS); do \
		echo "== $$t"; \
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		MMLAB_SRCDIR=$(CURDIR) MMLAB_IMAGES_DIR=$(CURDIR)/images $$t; \
	done

check-integration: all
	scripts/start-libvirt
	tests/integration/run

check-e2e: all
	scripts/install-deps --e2e
	scripts/start-libvirt
	tests/e2e/run

bench: all
	scripts/start-libvirt
	bench/run

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/mmlab/guest/workloads \
		$(DESTDIR)$(PREFIX)/share/mmlab/images
	install -m 0755 mmlab $(DESTDIR)$(PREFIX)/bin/mmlab
	install -m 0755 build/guest/agent $(DESTDIR)$(PREFIX)/lib/mmlab/guest/agent
	install -m 0755 $(WL_BINS) $(DESTDIR)$(PREFIX)/lib/mmlab/guest/workloads/
	cp -r build/guest/modules-src $(DESTDIR)$(PREFIX)/lib/mmlab/guest/
	install -m 0644 images/*.yaml $(DESTDIR)$(PREFIX)/share/mmlab/images/
	for d in jobs kernels docs; do \
		if [ -d $$d ]; then cp -r $$d $(DESTDIR)$(PREFIX)/share/mmlab/; fi; \
	done

format:
	clang-format -i lab/*/*.[ch] common/*.[ch] collectors/*.[ch] workloads/*.c \
		workloads/lib/*.[ch] tests/unit/*.[ch]

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
		--suppress=missingIncludeSystem --suppress=unknownMacro \
		-D'json_array_foreach(a,i,v)=for(i=0;;)' \
		-D'json_object_foreach(o,k,v)=for(k=0;;)' \
		-Ilab -Icommon -Icollectors -Iworkloads/lib lab common collectors workloads

clean:
	rm -rf build mmlab

-include $(shell find build -name '*.d' 2>/dev/null)
