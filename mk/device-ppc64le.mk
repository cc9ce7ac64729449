# ppc64le device images on this host (issue 18 part 1): included by Makefile.
#   build/lib/libomptarget.rtl.simdevice-ppc64le.so  the plugin, built from
#       simdevice/plugin/ with -DSIMDEVICE_DEVICE_PPC64LE (always: without a
#       ppc64le device process it reports zero devices and says why)
#   build/lib/simdevice-ppc64le/  the ppc64le device process: server, device
#       runtime, SONAME stand-ins; objects in build/ppc64le/. Built only when
#       $(PPC64LE_CC) is found (make says in one line when it is not).
#   build/bin/simtarget-config and build/lib/simdevice-ppc64le/link/: the
#       compile flags per clang version and the device link kit.
PPC64LE_CC ?= powerpc64le-linux-gnu-gcc
PPC64LE_HAVE_CC := $(shell command -v $(PPC64LE_CC) 2>/dev/null)
PB        := $(B)/ppc64le
PPC_DIR   := $(B)/lib/simdevice-ppc64le
PPC_PLUGIN := $(B)/lib/libomptarget.rtl.simdevice-ppc64le.so
PPC_PLUG_OBJ := $(PLUG_SRC:%.c=$(PB)/plugin-obj/%.o)
PPC_SERVER := $(PPC_DIR)/simdevice-server
PPC_DEVRT  := $(PPC_DIR)/libomp.so.5
PPC_STUBS  := $(addprefix $(PPC_DIR)/,$(SONAMES) libomptarget.so)
PPC_SERV_OBJ := $(SERV_SRC:%.c=$(PB)/obj/%.o) $(PB)/obj/common/image_entries.o \
  $(PB)/obj/common/check_findings.o
PPC_RT_OBJ := $(RT_SRC:%.c=$(PB)/obj/%.o)
# The device link kit (clang 19/22 link device images with --no-undefined
# against a libomp.so, and want libomptarget.so / libomptarget.devicertl.a
# on the device link path): the device runtime under the link names.
PPC_KIT    := $(PPC_DIR)/link
PPC_KIT_FILES := $(PPC_KIT)/libomp.so $(PPC_KIT)/libomptarget.so $(PPC_KIT)/libomptarget.devicertl.a \
  $(PPC_KIT)/ld-ppc64le
# C++ device links ask for -lstdc++: the sysroot has only the runtime name.
PPC64LE_SYSROOT ?= /usr/powerpc64le-linux-gnu
PPC_STDCXX := $(wildcard $(PPC64LE_SYSROOT)/lib/libstdc++.so.6)
ifneq ($(PPC_STDCXX),)
PPC_KIT_FILES += $(PPC_KIT)/libstdc++.so
endif
CONFIG_TOOL := $(B)/bin/simtarget-config

$(PB)/plugin-obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DSIMDEVICE_DEVICE_PPC64LE $(WARN) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

# The recording's version, as in the x86-64 plugin (Makefile: version.h).
$(PB)/plugin-obj/simdevice/plugin/record.o: $(B)/version.h
$(PB)/plugin-obj/simdevice/plugin/record.o: CPPFLAGS += -include $(B)/version.h

$(PPC_PLUGIN): $(PPC_PLUG_OBJ) $(COMMON_OBJ) simdevice/plugin/exports.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--version-script=simdevice/plugin/exports.map -Wl,--no-undefined \
	  -o $@ $(PPC_PLUG_OBJ) $(COMMON_OBJ) -lelf -ldl -lpthread

$(CONFIG_TOOL): tools/simtarget-config.sh
	@mkdir -p $(dir $@)
	install -m 755 $< $@

-include $(PPC_PLUG_OBJ:.o=.d)
ALL += $(PPC_PLUGIN) $(CONFIG_TOOL)
all: $(PPC_PLUGIN) $(CONFIG_TOOL)

ifneq ($(PPC64LE_HAVE_CC),)
$(PB)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(PPC64LE_CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

# Non-PIE at 0x40000000, as on x86-64 (server/indirect.c).
$(PPC_SERVER): $(PPC_SERV_OBJ)
	@mkdir -p $(dir $@)
	$(PPC64LE_CC) -rdynamic -no-pie -Wl,-Ttext-segment=0x40000000 -o $@ $(PPC_SERV_OBJ) -ldl -lpthread

$(PPC_DEVRT): $(PPC_RT_OBJ) simdevice/runtime/exports.map
	@mkdir -p $(dir $@)
	$(PPC64LE_CC) -shared -Wl,-soname,libomp.so.5 -Wl,--version-script=simdevice/runtime/exports.map \
	  -Wl,--no-undefined -o $@ $(PPC_RT_OBJ) -lpthread

$(PPC_STUBS): $(PPC_DIR)/%: simdevice/server/stub.c.in
	@mkdir -p $(dir $@)
	$(PPC64LE_CC) -x c -shared -fPIC -Wl,-soname,$(notdir $@) -o $@ $<

$(PPC_KIT)/libomp.so: $(PPC_DEVRT)
	@mkdir -p $(dir $@)
	ln -sf ../libomp.so.5 $@
$(PPC_KIT)/libomptarget.so: $(PPC_DIR)/libomptarget.so
	@mkdir -p $(dir $@)
	ln -sf ../libomptarget.so $@
$(PPC_KIT)/libomptarget.devicertl.a:
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@
$(PPC_KIT)/libstdc++.so:
	@mkdir -p $(dir $@)
	ln -sf $(PPC_STDCXX) $@
$(PPC_KIT)/ld-ppc64le: tools/ld-ppc64le.sh
	@mkdir -p $(dir $@)
	install -m 755 $< $@

-include $(PPC_SERV_OBJ:.o=.d) $(PPC_RT_OBJ:.o=.d)
PPC_ALL := $(PPC_SERVER) $(PPC_DEVRT) $(PPC_STUBS) $(PPC_KIT_FILES)
ALL += $(PPC_ALL)
all: $(PPC_ALL)
else
all: ppc64le-skipped
.PHONY: ppc64le-skipped
ppc64le-skipped:
	@echo "simtarget: $(PPC64LE_CC) not found: the ppc64le device process is not built (its plugin reports zero devices)"
endif

install-ppc64le: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(PPC_PLUGIN) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(CONFIG_TOOL) $(DESTDIR)$(PREFIX)/bin/
ifneq ($(PPC64LE_HAVE_CC),)
	install -d $(DESTDIR)$(PREFIX)/lib/simdevice-ppc64le/link
	install -m 755 $(PPC_SERVER) $(PPC_DEVRT) $(PPC_STUBS) $(DESTDIR)$(PREFIX)/lib/simdevice-ppc64le/
	cp -P $(PPC_KIT_FILES) $(DESTDIR)$(PREFIX)/lib/simdevice-ppc64le/link/
endif
install: install-ppc64le

# tests/ppc64le/device.sh: the clang program corpus compiled for the ppc64le
# device and run with the device under qemu (PPC_VERSIONS picks clangs).
check-ppc64le-device: all
	@tests/ppc64le/device.sh
.PHONY: install-ppc64le check-ppc64le-device

# Which images each simdevice plugin accepts (tests/ppc64le/test_images.c),
# linked once with each plugin; run by make check with the other tests.
PPC_IMAGE_TESTS := $(B)/tests/simdevice/test_images_ppc64le $(B)/tests/simdevice/test_images_x86_64
$(B)/tests/simdevice/test_images_ppc64le: tests/ppc64le/test_images.c $(PPC_PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DPLUGIN_PPC64LE $(WARN) $(CFLAGS) -o $@ $< -L$(B)/lib \
	  -l:libomptarget.rtl.simdevice-ppc64le.so -Wl,-rpath,'$$ORIGIN/../../lib' -lcmocka
$(B)/tests/simdevice/test_images_x86_64: tests/ppc64le/test_images.c $(PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< -L$(B)/lib \
	  -l:libomptarget.rtl.simdevice.so -Wl,-rpath,'$$ORIGIN/../../lib' -lcmocka
testbins: $(PPC_IMAGE_TESTS)
