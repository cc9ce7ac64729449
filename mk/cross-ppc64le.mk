# `make CROSS=ppc64le`: the whole tree built for ppc64le (Linux, little
# endian) with Debian's cross GCC, in build/cross-ppc64le/ (the x86-64 build/
# is left alone). The ppc64le libelf, CMocka and json-c it links against come
# from tests/ppc64le/kit.sh (unpacked .debs, nothing installed); the C library
# is the cross sysroot. `make check-ppc64le` runs the result under qemu-ppc64le.
B          := build/cross-ppc64le
CROSS_KIT  := $(B)/kit
CROSS_LIBS := $(CROSS_KIT)/usr/lib/powerpc64le-linux-gnu
# The library folders ride on CC: the Makefile's link lines take no LDFLAGS
# (the compile lines ignore -L and -Wl). -rpath-link: libelf's own NEEDED
# (zlib, zstd) live in the kit too.
CC         := powerpc64le-linux-gnu-gcc -L$(CROSS_LIBS) \
              -Wl,-rpath-link,$(CROSS_LIBS):$(CROSS_KIT)/lib/powerpc64le-linux-gnu
CPPFLAGS   += -isystem $(CROSS_KIT)/usr/include
ifeq ($(shell command -v powerpc64le-linux-gnu-gcc),)
$(error CROSS=ppc64le: powerpc64le-linux-gnu-gcc is not installed (tests/deps.sh --ppc64le installs it))
endif
CROSS_READY := $(shell tests/ppc64le/kit.sh >&2 && echo yes)
ifneq ($(CROSS_READY),yes)
$(error CROSS=ppc64le: the ppc64le libraries are missing (tests/ppc64le/kit.sh above says why))
endif
