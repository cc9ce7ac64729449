#!/usr/bin/env bash
# Checks (and, as root with apt-get, installs) what building and testing
# simtarget needs on Debian 12. `make demo` and `make check` run it first.
#   tests/deps.sh            install what is missing if root, else print the command
#   tests/deps.sh --check    only report what is missing (exit 1 if anything is)
#   tests/deps.sh --demo     only what `make demo` needs: what `make all` builds
#                            with (C compiler, libelf, json-c) and one clang with
#                            its offload tools and runtime (clang 14)
#   tests/deps.sh --fresh-root  what tests/fresh_root.sh needs (debootstrap)
#   tests/deps.sh --clang N  one clang (13 14 15 16 19 22) with its offload
#                            tools, as the full list has it (LLVM N's libomp
#                            comes from tests/toolchains.sh, except for 14)
#   tests/deps.sh --ppc64le  what `make check-ppc64le` needs besides the above:
#                            qemu user mode, the ppc64le cross GCC and sysroot
#                            (its libelf, CMocka, json-c, libomp: tests/ppc64le/kit.sh)
set -u
mode=${1:-}
# The build: a C compiler, libelf, CMocka. The tests: every clang Debian 12
# ships (13, 14, 15, 16, 19, 22; clang-tools-N holds 13/15/16's offload
# wrapper tools), LLVM 14's OpenMP runtime (the host libomp), Valgrind, lcov;
# json-c for simtarget-maps, python3-jsonschema to validate traces;
# chromium to check that timeline SVGs render (tests/timeline.sh);
# bubblewrap, which simtarget-grade isolates each student's program with;
# libclang-rt-N-dev, the sanitizer runtimes of the sanitize_* programs
# (only recommended by clang-N: an install without recommends lacks them;
# clang 15's are in libclang-common-15-dev); Open MPI (mpirun, mpicc,
# libmpi) for remote simdevice devices and tests/mpi.sh; iproute2 (`ip`)
# for tests/mpi.sh's second machine of network namespaces (tests/mpi/node2.sh).
PKGS="gcc make libc6-dev libelf-dev libcmocka-dev pkg-config valgrind lcov
      libjson-c-dev python3-jsonschema chromium bubblewrap
      openmpi-bin libopenmpi-dev iproute2
      libomp-14-dev clang-14 libclang-rt-14-dev
      clang-13 clang-tools-13 llvm-13
      clang-15 clang-tools-15 llvm-15
      clang-16 clang-tools-16 llvm-16 libclang-rt-16-dev
      clang-19 llvm-19 libclang-rt-19-dev
      clang-22 llvm-22"
# make demo = make all (libomptarget, plugins, device server and runtime:
# libelf; simtarget-maps: json-c; simtarget-timeline: python3, which clang-14
# pulls in anyway) + tutorials/demo.sh with clang 14, whose
# offload link step needs clang-offload-wrapper (clang-tools-14) and whose
# programs link LLVM 14's libomp (libomp-14-dev). tests/fresh_root.sh checks
# that this list is enough on a minimal Debian 12.
[ "$mode" = --demo ] && PKGS="gcc make libc6-dev libelf-dev libjson-c-dev python3
      clang-14 clang-tools-14 libomp-14-dev"
[ "$mode" = --fresh-root ] && PKGS="debootstrap"
if [ "$mode" = --clang ]; then
  n=${2:-}
  case $n in
    14) PKGS="clang-14 clang-tools-14 libomp-14-dev" ;;
    13|15|16) PKGS="clang-$n clang-tools-$n llvm-$n" ;;
    19|22) PKGS="clang-$n llvm-$n" ;;
    *) echo "simtarget: deps.sh --clang N: N is one of 13 14 15 16 19 22" >&2; exit 2 ;;
  esac
fi
[ "$mode" = --ppc64le ] && PKGS="qemu-user gcc-powerpc64le-linux-gnu binutils-powerpc64le-linux-gnu
      libc6-dev-ppc64el-cross"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$mode" != "--check" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "simtarget: installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq $missing >/dev/null && exit 0
  echo "simtarget: apt-get install failed" >&2
  exit 1
fi
echo "simtarget: missing packages:$missing" >&2
echo "simtarget: install them with: sudo apt-get install -y$missing" >&2
exit 1
