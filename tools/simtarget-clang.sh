#!/bin/bash
# simtarget-clang - compile and link an OpenMP offload program for simtarget
# with any installed Debian clang 13-22, in one command:
#
#   build/bin/simtarget-clang [--clang N] [--device=x86_64|ppc64le] CLANG-ARGS...
#   build/bin/simtarget-clang [--clang N] [--device=...] --print-flags
#
#   --clang N      use clang-N (default: the newest usable one)
#   --device=D     the device code: x86_64 (default, simdevice) or ppc64le
#                  (flags from simtarget-config; needs tests/deps.sh --ppc64le)
#   --print-flags  print the flags instead of compiling, e.g. for a Makefile
#
# Example: build/bin/simtarget-clang --clang 19 -O2 prog.c -o prog && ./prog
#
# Each clang N needs LLVM N's omp.h and libomp at compile and link time, and
# Debian's libomp-N-dev packages conflict with each other: the flags come from
# build/toolchains/env.sh, which tests/toolchains.sh writes (it is run here
# when that file is missing or lacks clang-N; it downloads LLVM's libomp
# packages into build/toolchains/ with apt-get download, installing nothing).
# The program gets a run path to build/lib (simtarget's libomptarget) and to
# the libomp.so.5 of its clang, so it runs as it is; LD_LIBRARY_PATH still
# comes first (to run it on LLVM's own runtime, point it at TC_RTDIR_N).
# A clang-N that is not installed is installed when run as root (Debian's
# clang-N and its offload tools, tests/deps.sh --clang N); otherwise the
# apt-get command is printed.
# It lives in the build tree only (build/bin): it needs build/toolchains.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TC_ENV=$ROOT/build/toolchains/env.sh
want="" device=x86_64 print=0
while [ $# -gt 0 ]; do
  case $1 in
    --clang) [ $# -ge 2 ] || { echo "simtarget-clang: --clang needs a version" >&2; exit 2; }
             want=$2; shift ;;
    --clang=*) want=${1#--clang=} ;;
    --device=*) device=${1#--device=} ;;
    --print-flags) print=1 ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
  shift
done
case $want in
  ""|1[3-9]|2[0-2]) ;;
  *) echo "simtarget-clang: --clang $want: a clang version from 13 to 22" >&2; exit 2 ;;
esac
# A clang that is not installed: installed as root (tests/deps.sh --clang N,
# as make demo and make check install theirs), else the command is printed.
if [ -n "$want" ] && [ ! -x "/usr/bin/clang-$want" ]; then
  "$ROOT/tests/deps.sh" --clang "$want" >&2 || exit 1
fi

# usable N: whether env.sh (sourced) lists N.
usable() { [[ " ${TOOLCHAINS_USABLE:-} " == *" $1 "* ]]; }
# shellcheck source=/dev/null
load() { TOOLCHAINS_USABLE=""; [ -r "$TC_ENV" ] && . "$TC_ENV"; }
load
if { [ -n "$want" ] && ! usable "$want"; } || [ -z "${TOOLCHAINS_USABLE:-}" ]; then
  mkdir -p "$ROOT/build/toolchains"
  why=$("$ROOT/tests/toolchains.sh" 2>&1 | grep -E "^clang-${want:-[0-9]+}: not usable")
  load
fi
n=$want
[ -n "$n" ] || for v in $TOOLCHAINS_USABLE; do n=$v; done
if [ -z "$n" ] || ! usable "$n"; then
  echo "simtarget-clang: clang-${n:-N} cannot compile offload programs here:" >&2
  echo "${why:-  no usable clang in $TC_ENV}" | grep -v '^$' | sed 's/^/  /' >&2
  exit 1
fi
cc="" flags="" hostlib=""
eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n hostlib=\$TC_HOSTLIB_$n"
case $device in
  x86_64|x86-64|x86_64-pc-linux-gnu) ;;
  *)
    # The device flags replace -fopenmp-targets; the host side keeps
    # LLVM N's omp.h and libomp.
    dev=$("$HERE/simtarget-config" --cflags --device="$device" --cc="$cc") || exit 2
    flags="$dev ${flags//-fopenmp-targets=x86_64-pc-linux-gnu/}"
    flags=${flags//-fopenmp -fopenmp/-fopenmp}
    ;;
esac
flags="$flags -Wl,-rpath,$ROOT/build/lib:$hostlib"
if [ $print = 1 ]; then
  echo "$cc $flags"
  exit 0
fi
# shellcheck disable=SC2086
exec "$cc" $flags "$@"
