# simtarget - top-level build.
#   make            build libomptarget.so, the simdevice plugin, its server and device runtime
#   make check      unit tests, ABI tests, clang-compiled programs on simdevice
#   make demo       build, then run a bundled offload program with its mapping trace
#   make install PREFIX=/usr/local   (make uninstall PREFIX=... removes it)
#   make clean
# Outputs go under build/.

CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -std=gnu11 -Wall -Wextra -Werror -Wmissing-prototypes -Wshadow
# Test kernels stand in for compiler-generated device code: entry points
# found by name, which no code compiles against, so no prototypes.
KERNEL_WARN := $(WARN) -Wno-missing-prototypes
CPPFLAGS += -Iinclude -Icommon -D_GNU_SOURCE
PREFIX   ?= /usr/local
B        := build
# make CROSS=ppc64le: everything for ppc64le in build/cross-ppc64le/.
ifeq ($(CROSS),ppc64le)
include mk/cross-ppc64le.mk
else ifneq ($(CROSS),)
$(error CROSS=$(CROSS): the one cross target is ppc64le)
endif

# libomptarget answers to every SONAME clang binaries need (clang-abi.md 11.1).
SONAMES  := libomptarget.so.15 libomptarget.so.16 libomptarget.so.19.1 libomptarget.so.22.1

CORE_SRC := $(wildcard src/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(B)/obj/%.o)
PLUG_SRC := $(wildcard simdevice/plugin/*.c)
PLUG_OBJ := $(PLUG_SRC:%.c=$(B)/obj/%.o)
SERV_SRC := $(wildcard simdevice/server/*.c)
SERV_OBJ := $(SERV_SRC:%.c=$(B)/obj/%.o)
RT_SRC   := $(wildcard simdevice/runtime/*.c)
RT_OBJ   := $(RT_SRC:%.c=$(B)/obj/%.o)
# TLS descriptors: the device runtime is dlopened, and its per-thread context
# (the current team member) is read at nearly every entry point; a
# descriptor resolves to a static offset once, where __tls_get_addr is a
# call at every access (issue 29: a tenth of a GPU-shaped league's work).
# The runtime's thread-local data must stay small for that (runtime.c).
# libomptarget.so too, which a program loads at start (its thread-locals are
# in the static block): 1813 -> 1782 host instructions an empty launch.
# memset through libc: GCC inlines a fixed-size one as `rep stos`, whose
# start-up cost made clearing a team's context 5% of such a league.
# `override`: also in builds that set CFLAGS on the command line (coverage).
ifneq ($(filter x86_64-%,$(shell $(CC) -dumpmachine)),)
$(RT_OBJ): override CFLAGS += -mtls-dialect=gnu2 -fno-builtin-memset
$(CORE_OBJ) $(PLUG_OBJ): override CFLAGS += -mtls-dialect=gnu2
endif
# Shared by the libraries (the image parser): linked into each, hidden by
# its version script. Needs -lelf.
COMMON_SRC := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(B)/obj/%.o)

LIB      := $(B)/lib/libomptarget.so
PLUGIN   := $(B)/lib/libomptarget.rtl.simdevice.so
SERVER   := $(B)/lib/simdevice/simdevice-server
DEVRT    := $(B)/lib/simdevice/libomp.so.5
# The device process stands these in for the libomptarget.so.N names that
# 15+ device images list as NEEDED (they import nothing from it).
# Sanitizer runtimes that device images of -Xarch_host -fsanitize=... builds
# NEED (their device code is not instrumented): the device process must not
# start a sanitizer inside itself.
SANITIZER_SONAMES := libclang_rt.asan-x86_64.so libclang_rt.tsan-x86_64.so
DEVSTUBS := $(addprefix $(B)/lib/simdevice/,$(SONAMES) libomptarget.so $(SANITIZER_SONAMES))
# Suppressions for the device process under SIMDEVICE_VALGRIND=<tool>.
VGSUPP   := $(addprefix $(B)/lib/simdevice/valgrind-,memcheck.supp helgrind.supp drd.supp)

# The compiler teams' tool over SIMTARGET_TRACE files (json-c).
MAPS_TOOL := $(B)/bin/simtarget-maps
MAPS_TOOL_SRC := $(wildcard tools/simtarget-maps/*.c)

# Teachers' timeline renderer over LIBOMPTARGET_PROFILE files (python3, stdlib only).
TIMELINE_TOOL := $(B)/bin/simtarget-timeline

# Runs a program with every bug-finding check that applies (python3, stdlib only).
CHECK_TOOL := $(B)/bin/simtarget-check

# An OMPT tool (OMP_TOOL_LIBRARIES) that writes the same timeline from the
# OMPT target events (README "OMPT").
OMPT_TIMELINE := $(B)/lib/libsimtarget-ompt-timeline.so
OMPT_TIMELINE_SRC := $(wildcard tools/simtarget-ompt-timeline/*.c)

# Preloaded by simtarget-check's stale-memcheck mode: after libomp queues a
# target task, waits until libomptarget has dispatched it.
CHECK_NOWAIT := $(B)/lib/libsimtarget-check-nowait.so

# Runs a launch recorded by SIMTARGET_RECORD again (simdevice/plugin/record.c).
REPLAY_TOOL := $(B)/bin/simtarget-replay
REPLAY_TOOL_SRC := $(wildcard tools/simtarget-replay/*.c)

# One command to compile an offload program for simtarget with any installed
# clang 13-22 (build tree only: it uses build/toolchains).
CLANG_TOOL := $(B)/bin/simtarget-clang

ALL := $(LIB) $(addprefix $(B)/lib/,$(SONAMES)) $(PLUGIN) $(SERVER) $(DEVRT) $(DEVSTUBS) $(VGSUPP) $(MAPS_TOOL) \
  $(TIMELINE_TOOL) $(CLANG_TOOL) $(REPLAY_TOOL) $(OMPT_TIMELINE) $(CHECK_TOOL) $(CHECK_NOWAIT)

.PHONY: all check check-full demo install uninstall clean testbins deps bench check-ppc64le
all: $(ALL)

# ---------------------------------------------------------------- CUDA plugin
# libomptarget.rtl.cuda.so (plugins/cuda/), always built: it dlopens
# libcuda.so.1 at run time and declares the driver API it uses itself
# (plugins/cuda/cuda_driver_api.h). When $(CUDA_PATH)/include/cuda.h exists
# the real header is used instead, and checked against those declarations.
CUDA_PATH   ?= /usr/local/cuda
CUDA_HEADER := $(wildcard $(CUDA_PATH)/include/cuda.h)
CUDA_PLUGIN := $(B)/lib/libomptarget.rtl.cuda.so
CUDA_OBJ    := $(patsubst %.c,$(B)/obj/%.o,$(wildcard plugins/cuda/*.c))
CUDA_TESTS  := $(B)/tests/cuda/test_cuda_plugin $(B)/tests/cuda/test_cuda_fallback
CUDA_API_CPPFLAGS := -Iplugins/cuda
ifneq ($(CUDA_HEADER),)
CUDA_API_CPPFLAGS += -DSIMTARGET_HAVE_CUDA_H -isystem $(CUDA_PATH)/include
endif
CUDA_TARGETS := $(CUDA_PLUGIN)
$(CUDA_OBJ): CPPFLAGS += $(CUDA_API_CPPFLAGS)
$(CUDA_PLUGIN): $(CUDA_OBJ) $(COMMON_OBJ) plugins/cuda/exports.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--version-script=plugins/cuda/exports.map -Wl,--no-undefined \
	  -o $@ $(CUDA_OBJ) $(COMMON_OBJ) -lelf -ldl -lpthread
# Test-only: a driver test double and the host "kernels" its modules hold.
$(B)/tests/cuda/libcuda_testdouble.so: tests/cuda/cuda_driver_testdouble.c tests/cuda/testdouble.h \
  plugins/cuda/cuda_driver_api.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CUDA_API_CPPFLAGS) $(WARN) $(CFLAGS) -shared -fPIC -o $@ $< -ldl -lpthread
$(B)/tests/cuda/libtestdouble_kernels.so: tests/cuda/testdouble_kernels.c tests/cuda/testdouble.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(KERNEL_WARN) $(CFLAGS) -shared -fPIC -o $@ $<
$(B)/tests/cuda/test_cuda_plugin: tests/cuda/test_cuda_plugin.c tests/cuda/testdouble.h $(CUDA_PLUGIN) \
  $(B)/tests/cuda/libcuda_testdouble.so $(B)/tests/cuda/libtestdouble_kernels.so
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< -L$(B)/lib \
	  -l:libomptarget.rtl.cuda.so -Wl,-rpath,'$$ORIGIN/../../lib' -lcmocka -ldl -lpthread
$(B)/tests/cuda/test_cuda_fallback: tests/cuda/test_cuda_fallback.sh $(B)/tests/cuda/libcuda_testdouble.so
	install -m 755 $< $@
testbins: $(CUDA_TESTS)
ALL += $(CUDA_TARGETS)
all: $(CUDA_TARGETS)
-include $(CUDA_OBJ:.o=.d)
# ---------------------------------------------------------------- end CUDA plugin

# Valgrind's client-request headers turn the annotations of the runtime
# and the device process on (`__has_include`, common/valgrind_hints.h), so
# the objects are rebuilt when the headers appear or go: `make demo` builds
# before `make check` installs valgrind, and its device runtime then had no
# annotations (helgrind reported the runtime's own benign races). The stamp
# names what the last build found.
VALGRIND_STAMP := $(B)/valgrind-headers.$(if $(wildcard /usr/include/valgrind/helgrind.h),yes,no)
$(VALGRIND_STAMP):
	@mkdir -p $(dir $@); rm -f $(B)/valgrind-headers.*; touch $@

$(B)/obj/%.o: %.c $(VALGRIND_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(LIB): $(CORE_OBJ) $(COMMON_OBJ) src/exports.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libomptarget.so -Wl,--version-script=src/exports.map -Wl,-Bsymbolic \
	  -Wl,--no-undefined $(LIB_LDFLAGS) -o $@ $(CORE_OBJ) $(COMMON_OBJ) -lelf -ldl -lpthread

$(addprefix $(B)/lib/,$(SONAMES)): $(LIB)
	ln -sf libomptarget.so $@

# The core objects again as an archive, so unit tests reach hidden functions.
# Compiled a second time with the test hooks (-DSIMTARGET_TEST_HOOKS: the
# *_for_test functions), which the shipped library's objects do not contain.
TEST_HOOKS    := -DSIMTARGET_TEST_HOOKS
TEST_CORE_OBJ := $(CORE_SRC:%.c=$(B)/obj-test/%.o)
$(B)/obj-test/%.o: %.c $(VALGRIND_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_HOOKS) $(WARN) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@
$(B)/libcore.a: $(TEST_CORE_OBJ) $(COMMON_OBJ)
	@rm -f $@; ar rcs $@ $^

$(PLUGIN): $(PLUG_OBJ) $(COMMON_OBJ) simdevice/plugin/exports.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--version-script=simdevice/plugin/exports.map -Wl,--no-undefined \
	  -o $@ $(PLUG_OBJ) $(COMMON_OBJ) -lelf -ldl -lpthread

# Non-PIE at 0x40000000: host code never lies there, so a host function
# pointer called in the device process faults (simdevice/server/indirect.c).
$(SERVER): $(SERV_OBJ) $(B)/obj/common/image_entries.o $(B)/obj/common/check_findings.o
	@mkdir -p $(dir $@)
	$(CC) -rdynamic -no-pie -Wl,-Ttext-segment=0x40000000 -o $@ $(SERV_OBJ) \
	  $(B)/obj/common/image_entries.o $(B)/obj/common/check_findings.o -ldl -lpthread

# The same server with its test hooks (-DSIMTARGET_TEST_HOOKS, environment.c),
# for tests/simdevice/test_faults.c only: beside the real one (it finds the
# device runtime and the stand-ins in its own folder), never installed.
HOOKS_SERVER   := $(B)/lib/simdevice/simdevice-server-hooks
TEST_SERV_OBJ  := $(SERV_SRC:%.c=$(B)/obj-test/%.o)
$(HOOKS_SERVER): $(TEST_SERV_OBJ) $(B)/obj/common/image_entries.o $(B)/obj/common/check_findings.o
	@mkdir -p $(dir $@)
	$(CC) -rdynamic -no-pie -Wl,-Ttext-segment=0x40000000 -o $@ $(TEST_SERV_OBJ) \
	  $(B)/obj/common/image_entries.o $(B)/obj/common/check_findings.o -ldl -lpthread

$(DEVRT): $(RT_OBJ) simdevice/runtime/exports.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libomp.so.5 -Wl,--version-script=simdevice/runtime/exports.map \
	  -Wl,--no-undefined -o $@ $(RT_OBJ) -lpthread

$(MAPS_TOOL): $(MAPS_TOOL_SRC) tools/simtarget-maps/tool.h
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -o $@ $(MAPS_TOOL_SRC) -ljson-c

$(REPLAY_TOOL): $(REPLAY_TOOL_SRC) tools/simtarget-replay/replay.h common/record_settings.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $(REPLAY_TOOL_SRC) -ldl

# The simtarget version a recording names and simtarget-replay requires of
# the plugin it replays with (__tgt_rtl_simdevice_record_version): the
# commit's date and hash (build/version.h, rewritten only when it changes,
# so that record.o is rebuilt whenever it does).
SIMTARGET_VERSION := $(shell git log -1 --format=%cd-g%h --date=format:%Y.%m.%d 2>/dev/null || echo 0)
$(B)/version.h: FORCE
	@mkdir -p $(dir $@)
	@v='#define SIMTARGET_VERSION "$(SIMTARGET_VERSION)"'; \
	  [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" >$@
$(B)/obj/simdevice/plugin/record.o: $(B)/version.h
$(B)/obj/simdevice/plugin/record.o: CPPFLAGS += -include $(B)/version.h
.PHONY: FORCE
FORCE:

$(OMPT_TIMELINE): $(OMPT_TIMELINE_SRC) $(wildcard tools/simtarget-ompt-timeline/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -D_GNU_SOURCE -shared -fPIC -Wl,--no-undefined -o $@ \
	  $(OMPT_TIMELINE_SRC) -ldl -lpthread

$(TIMELINE_TOOL): tools/simtarget-timeline/simtarget-timeline
	@mkdir -p $(dir $@)
	install -m 755 $< $@

$(CHECK_TOOL): tools/simtarget-check/simtarget-check
	@mkdir -p $(dir $@)
	install -m 755 $< $@

$(CHECK_NOWAIT): tools/simtarget-check/nowait_started.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -shared -fPIC -Wl,--no-undefined -o $@ $< -ldl

$(CLANG_TOOL): tools/simtarget-clang.sh
	@mkdir -p $(dir $@)
	install -m 755 $< $@

$(VGSUPP): $(B)/lib/simdevice/valgrind-%: simdevice/valgrind/%
	@mkdir -p $(dir $@)
	install -m 644 $< $@

$(DEVSTUBS): $(B)/lib/simdevice/%: simdevice/server/stub.c.in
	@mkdir -p $(dir $@)
	$(CC) -x c -shared -fPIC -Wl,-soname,$(notdir $@) -o $@ $<

-include $(CORE_OBJ:.o=.d) $(TEST_CORE_OBJ:.o=.d) $(COMMON_OBJ:.o=.d) $(PLUG_OBJ:.o=.d) $(SERV_OBJ:.o=.d) $(TEST_SERV_OBJ:.o=.d) $(RT_OBJ:.o=.d)

# ppc64le devices: the plugin, the device process, simtarget-config (not
# in a cross build, whose host is ppc64le itself).
ifeq ($(CROSS),)
include mk/device-ppc64le.mk
include mk/mpi.mk
endif

# ---------------------------------------------------------------- tests
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%)
ABI_SRC   := $(wildcard tests/abi/test_*.c)
ABI_BIN   := $(ABI_SRC:tests/abi/%.c=$(B)/tests/abi/%)

$(B)/tests/unit/%: tests/unit/%.c $(B)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_HOOKS) -Isrc $(WARN) $(CFLAGS) -MMD -MP -o $@ $< $(B)/libcore.a -lcmocka -lelf -ldl -lpthread
-include $(UNIT_BIN:=.d)

$(B)/tests/abi/kernels.so: tests/abi/kernels.c tests/abi/image_entry.h
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_WARN) -O1 -shared -fPIC -o $@ $<
# The same kernels in an image that names clang 22 as its compiler, and
# clang 23's convention with and without its compiler's name (kernels23.c)
$(B)/tests/abi/kernels22.so: tests/abi/kernels.c tests/abi/image_entry.h
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_WARN) -O1 -shared -fPIC '-DPRODUCER="clang version 22.1.8"' -o $@ $<
$(B)/tests/abi/kernels23.so: tests/abi/kernels23.c tests/abi/image_entry.h
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_WARN) -O1 -shared -fPIC '-DPRODUCER="clang version 23.1.0 (simtarget hand-built)"' -o $@ $<
$(B)/tests/abi/kernels23_anon.so: tests/abi/kernels23.c tests/abi/image_entry.h
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_WARN) -O1 -shared -fPIC -o $@ $<
ABI_IMAGES := $(addprefix $(B)/tests/abi/,kernels.so kernels22.so kernels23.so kernels23_anon.so)

# Tiny plugins for test_plugins: tests/unit/fixtures/rtl_<x>.c ->
# build/tests/plugins/libomptarget.rtl.<x>.so
TEST_RTL_SRC := $(wildcard tests/unit/fixtures/rtl_*.c)
TEST_RTL     := $(TEST_RTL_SRC:tests/unit/fixtures/rtl_%.c=$(B)/tests/plugins/libomptarget.rtl.%.so)
$(B)/tests/plugins/libomptarget.rtl.%.so: tests/unit/fixtures/rtl_%.c tests/unit/fixtures/rtl_common.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -shared -fPIC -o $@ $<
$(B)/tests/unit/test_plugins: $(TEST_RTL)

$(B)/tests/abi/%: tests/abi/%.c tests/abi/abi_image.h $(LIB) $(ABI_IMAGES)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< -L$(B)/lib -lomptarget -lcmocka -ldl -Wl,-rpath,'$$ORIGIN/../../lib'

# The build before a check on every CPU, however make was called (CI calls
# plain `make check`): the test binaries alone took 27 s one at a time,
# 13.5 s two at a time.
BUILD_JOBS := -j$(shell nproc 2>/dev/null || echo 1)
check:
	@tests/deps.sh
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all testbins
	@tests/run_tests.sh

# make check with every usable clang (13-22) for the compiled corpora and
# the differential one, and the fault sweep on the optimised build as well:
# before a change to a construct lands.
check-full:
	@tests/deps.sh
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all testbins
	@CHECK_FULL=1 tests/run_tests.sh

# simtarget built for ppc64le (build/cross-ppc64le/) and tested under
# qemu-ppc64le user mode on this machine (tests/ppc64le/check.sh). Its
# programs with clang 19 only: CI runs this after make check, and each
# clang's programs under qemu took 2 to 3 minutes (PPC64LE_VERSIONS="14 19
# 22": all three).
PPC64LE_VERSIONS ?= 19
check-ppc64le:
	@tests/deps.sh --ppc64le
	@$(MAKE) --no-print-directory $(BUILD_JOBS) CROSS=ppc64le all testbins
	@tests/ppc64le/check.sh --versions "$(PPC64LE_VERSIONS)"

# simdevice plugin drivers: call __tgt_rtl_* directly on images they build.
SIMDEV_TEST_SRC := $(wildcard tests/simdevice/test_*.c)
SIMDEV_TEST_BIN := $(SIMDEV_TEST_SRC:tests/simdevice/%.c=$(B)/tests/simdevice/%)
$(B)/tests/simdevice/%: tests/simdevice/%.c tests/simdevice/simdev_test.h $(PLUGIN) $(SERVER) $(DEVSTUBS) $(HOOKS_SERVER)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< -L$(B)/lib -l:libomptarget.rtl.simdevice.so \
	  -Wl,-rpath,'$$ORIGIN/../../lib' -lcmocka -ldl -lpthread

# The setuid test: a script and the probe it makes setuid.
$(B)/tests/simdevice/setuid_probe: tests/simdevice/setuid_probe.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< -ldl
$(B)/tests/simdevice/test_setuid: tests/simdevice/test_setuid.sh $(B)/tests/simdevice/setuid_probe
	install -m 755 $< $@
SIMDEV_TEST_BIN += $(B)/tests/simdevice/test_setuid

testbins: $(UNIT_BIN) $(ABI_BIN) $(SIMDEV_TEST_BIN)

deps:
	@tests/deps.sh

bench: all $(B)/tests/simdevice/bench_plugin
	@tests/bench.sh

demo:
	@tests/deps.sh --demo
	@$(MAKE) --no-print-directory all
	@tutorials/demo.sh

# pkg-config: simtarget.pc (omptarget.h and libomptarget.so) under
# lib/pkgconfig, written with PREFIX. The version is the commit's date.
PC_VERSION ?= $(shell git log -1 --format=%cd --date=format:%Y.%m.%d 2>/dev/null || echo 0)
install: all
	install -d $(DESTDIR)$(PREFIX)/lib/simdevice $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(PC_VERSION)|' tools/simtarget.pc.in \
	  >$(DESTDIR)$(PREFIX)/lib/pkgconfig/simtarget.pc
	install -m 755 $(LIB) $(PLUGIN) $(CUDA_TARGETS) $(OMPT_TIMELINE) $(CHECK_NOWAIT) $(DESTDIR)$(PREFIX)/lib/
	for s in $(SONAMES); do ln -sf libomptarget.so $(DESTDIR)$(PREFIX)/lib/$$s; done
	install -m 755 $(SERVER) $(DEVRT) $(DEVSTUBS) $(DESTDIR)$(PREFIX)/lib/simdevice/
	install -m 644 $(VGSUPP) $(DESTDIR)$(PREFIX)/lib/simdevice/
	install -m 644 include/omptarget.h include/omptarget_plugin.h $(DESTDIR)$(PREFIX)/include/
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/simtarget
	install -m 755 $(MAPS_TOOL) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(TIMELINE_TOOL) $(REPLAY_TOOL) $(CHECK_TOOL) tools/simtarget-grade/simtarget-grade $(DESTDIR)$(PREFIX)/bin/
	install -m 644 tools/simtarget-grade/judge.sh $(DESTDIR)$(PREFIX)/share/simtarget/
	install -m 644 tools/simtarget-maps/trace.schema.json $(DESTDIR)$(PREFIX)/share/simtarget/

# Removes what install and install-ppc64le put under PREFIX, and the
# folders they made when empty.
uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/,$(notdir $(LIB) $(PLUGIN) $(CUDA_TARGETS) $(PPC_PLUGIN) $(OMPT_TIMELINE) $(CHECK_NOWAIT)) $(SONAMES))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/simdevice/,$(notdir $(SERVER) $(DEVRT) $(DEVSTUBS) $(VGSUPP)))
	rm -rf $(DESTDIR)$(PREFIX)/lib/simdevice-ppc64le
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/include/,omptarget.h omptarget_plugin.h)
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(MAPS_TOOL) $(TIMELINE_TOOL) $(REPLAY_TOOL) $(CONFIG_TOOL) $(CHECK_TOOL)) simtarget-grade)
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/simtarget/,judge.sh trace.schema.json)
	rm -f $(DESTDIR)$(PREFIX)/lib/pkgconfig/simtarget.pc
	-rmdir $(DESTDIR)$(PREFIX)/lib/simdevice $(DESTDIR)$(PREFIX)/share/simtarget \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig 2>/dev/null

clean:
	rm -rf $(B)

# ------------------------------------------------ quality gates (issue 4)
#   make faults     the fault-injection sweep (tests/faults.sh)
#   make fuzz       libFuzzer on the descriptor/image parsers, FUZZ_RUNS inputs
#   make valgrind   unit/ABI/simdevice tests and programs under memcheck,
#                   device processes too; the 8-thread test under helgrind
#   make coverage   gcov/lcov report in coverage/html for src/ and simdevice/;
#                   fails below the floor in coverage/floor
.PHONY: faults fuzz valgrind coverage
faults: all testbins
	@tests/faults.sh

FUZZ_CC   ?= $(firstword $(wildcard /usr/bin/clang-19 /usr/bin/clang-14))
FUZZ_RUNS ?= 20000
FUZZ_BIN  := $(B)/fuzz/fuzz_images
# The image parser (common/) and each of its callers: the registry, the
# simdevice plugin's ELF check, the CUDA plugin's image classification;
# the other readers of ELF: libomptarget's symbol tables (hostsyms.c) and
# the device process's DT_NEEDED reader (server/stubs.c); nothing else of
# the libraries but the bottom layer the registry's messages need
# (report.c, settings.c).
FUZZ_SRC  := tests/fuzz/fuzz_images.c $(COMMON_SRC) src/registry.c \
  src/report.c src/settings.c src/hostsyms.c simdevice/plugin/elfimage.c plugins/cuda/image.c \
  simdevice/server/stubs.c
$(FUZZ_BIN): $(FUZZ_SRC) $(wildcard common/*.h) plugins/cuda/cuda_internal.h plugins/cuda/cuda_driver_api.h \
  src/hostsyms.h simdevice/server/server.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -Isrc -Iplugins/cuda -std=gnu11 -g -O1 -fsanitize=fuzzer,address -o $@ \
	  $(FUZZ_SRC) -lelf -ldl -lpthread
fuzz: $(FUZZ_BIN)
	@mkdir -p $(B)/fuzz/new
	$(FUZZ_BIN) -runs=$(FUZZ_RUNS) -max_len=65536 $(B)/fuzz/new tests/fuzz/corpus

valgrind: all testbins
	@tests/valgrind.sh

coverage:
	@coverage/coverage.sh
