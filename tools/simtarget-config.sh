#!/bin/sh
# simtarget-config - the clang flags that build a program for a simtarget
# device, in the spirit of pkg-config.
#
#   simtarget-config --cflags [--device=x86_64|ppc64le] [--cc=clang-19]
#   simtarget-config --libs
#   simtarget-config --kit            the ppc64le device link kit folder
#
# --cflags prints the flags for one compile-and-link line, e.g.
#   clang-19 $(simtarget-config --cflags --device=ppc64le --cc=clang-19) prog.c -o prog
# For ppc64le devices on an x86-64 host every clang needs its own flags
# (measured with Debian's clang 13-22, GCC 12 cross tools):
#   13, 14, 15  the legacy driver reads the ppc64le glibc headers, which
#               need -U__FLOAT128__; it runs the host linker for the device
#               link too: --ld-path names ld-ppc64le (the kit), which hands
#               `-m elf64lppc` links to powerpc64le-linux-gnu-ld; 15 also
#               needs the cross GCC and sysroot folders on the device link.
#   16, 19, 22  (19, 22) the offload linker looks for the device GCC install:
#               --gcc-install-dir (19: -Xoffload-linker-<triple>, 22:
#               --device-compiler); the host's dynamic linker and host -L
#               would reach the device link: --dyld-prefix at a missing
#               folder plus -Wl,--dynamic-linker keep them apart; the
#               device link resolves __kmpc_* against the kit's libomp.so
#               (-z undefs: an entry point simdevice's runtime lacks is
#               named when the image loads, as on x86-64).
# --libs prints the library folder flags (libomptarget.so and its rpath).
# Paths: this script sits in <prefix>/bin (build/bin in the tree); the
# libraries in <prefix>/lib. SIMTARGET_PPC64LE_GCC_DIR overrides the cross
# GCC folder (default: the newest /usr/lib/gcc-cross/powerpc64le-linux-gnu/N).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
LIBDIR=$(cd "$HERE/../lib" 2>/dev/null && pwd || echo "$HERE/../lib")
KIT="$LIBDIR/simdevice-ppc64le/link"
T=powerpc64le-ibm-linux-gnu

device=x86_64 cc=clang want_cflags=0 want_libs=0 want_kit=0
for a in "$@"; do
  case $a in
    --cflags) want_cflags=1 ;;
    --libs) want_libs=1 ;;
    --kit) want_kit=1 ;;
    --device=*) device=${a#--device=} ;;
    --cc=*) cc=${a#--cc=} ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "simtarget-config: unknown option $a (see --help)" >&2; exit 2 ;;
  esac
done
case $device in
  x86_64|x86-64|x86_64-pc-linux-gnu) device=x86_64 ;;
  ppc64le|powerpc64le|powerpc64le-ibm-linux-gnu) device=ppc64le ;;
  *) echo "simtarget-config: unknown device '$device' (x86_64 or ppc64le)" >&2; exit 2 ;;
esac

out=""
if [ $want_cflags = 1 ] && [ $device = x86_64 ]; then
  out="-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu"
elif [ $want_cflags = 1 ]; then
  ver=$("$cc" --version 2>/dev/null | sed -n -E 's/.*clang version ([0-9]+).*/\1/p' | head -1)
  if [ -z "$ver" ]; then
    echo "simtarget-config: cannot tell the version of '$cc' (clang --version)" >&2
    exit 2
  fi
  gccdir=${SIMTARGET_PPC64LE_GCC_DIR:-$(ls -d /usr/lib/gcc-cross/powerpc64le-linux-gnu/* 2>/dev/null | sort -V | tail -1)}
  if [ -z "$gccdir" ]; then
    echo "simtarget-config: no ppc64le cross GCC in /usr/lib/gcc-cross/powerpc64le-linux-gnu (install gcc-powerpc64le-linux-gnu)" >&2
    exit 2
  fi
  sysroot=$(cd "$gccdir/../../../../powerpc64le-linux-gnu" 2>/dev/null && pwd || echo /usr/powerpc64le-linux-gnu)
  [ "$(uname -m)" = ppc64le ] && native=1 || native=0
  out="-fopenmp -fopenmp-targets=$T"
  host_pair="--dyld-prefix=/nonexistent -Wl,--dynamic-linker=/lib64/ld-linux-x86-64.so.2"
  [ $native = 1 ] && host_pair=""
  # 16+ link device images with --no-undefined; entry points the device
  # runtime does not define (doacross, ...) must fail when the image loads,
  # naming the construct, as on x86-64, not when the program links.
  undefs="-Xoffload-linker -z -Xoffload-linker undefs"
  case $ver in
    13|14)
      out="$out -Xopenmp-target=$T -U__FLOAT128__ --ld-path=$KIT/ld-ppc64le -Xopenmp-target=$T -L$KIT" ;;
    15)
      out="$out -Xopenmp-target=$T -U__FLOAT128__ --ld-path=$KIT/ld-ppc64le"
      out="$out -Xoffload-linker -L$gccdir -Xoffload-linker -L$sysroot/lib -Xoffload-linker -L$KIT" ;;
    16|17|18)
      out="$out -Xopenmp-target=$T -U__FLOAT128__ $host_pair -Xoffload-linker -L$KIT $undefs" ;;
    19|20|21)
      out="$out $host_pair -Xoffload-linker-$T --gcc-install-dir=$gccdir -Xoffload-linker -L$KIT $undefs" ;;
    *)
      out="$out $host_pair -Wl,--device-compiler=$T=--gcc-install-dir=$gccdir -Xoffload-linker -L$KIT $undefs" ;;
  esac
fi
if [ $want_libs = 1 ]; then
  out="${out:+$out }-L$LIBDIR -Wl,-rpath,$LIBDIR"
fi
if [ $want_kit = 1 ]; then
  out="${out:+$out }$KIT"
fi
echo "$out"
