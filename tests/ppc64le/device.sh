#!/bin/bash
# tests/ppc64le/device.sh - the clang program corpus (tests/programs/)
# compiled for the ppc64le device and run on this machine, the device
# process under qemu-ppc64le on x86-64 (tests/programs.sh --device=ppc64le;
# programs that cannot work there are skipped with their ppc64le-skip
# reason). Negative programs must fail with the same diagnoses as on x86-64
# (their expect-stderr lines are the same).
#
# Usage: tests/ppc64le/device.sh [--versions "14 19 22"] [PROGRAM.c ...]
#   PPC_VERSIONS    clang versions when --versions is not given (14 19 22)
# Exits 77 (skipped) when the ppc64le device cannot run here: no cross
# compiler (so no ppc64le device process was built), no qemu-ppc64le, no
# sysroot. Needs `make all` first.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
versions=${PPC_VERSIONS:-14 19 22}
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --versions) versions=$2; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done

why=""
if [ ! -x "$ROOT/build/lib/simdevice-ppc64le/simdevice-server" ]; then
  why="no ppc64le device process in build/lib/simdevice-ppc64le (powerpc64le-linux-gnu-gcc missing when make ran?)"
elif [ "$(uname -m)" != ppc64le ] && ! command -v "${SIMDEVICE_QEMU:-qemu-ppc64le}" >/dev/null; then
  why="qemu-ppc64le is not installed (qemu-user)"
elif [ ! -e "${SIMDEVICE_PPC64LE_SYSROOT:-/usr/powerpc64le-linux-gnu}/lib/ld64.so.2" ]; then
  why="no ppc64le sysroot (libc6-dev-ppc64el-cross)"
elif [ ! -x "$ROOT/build/bin/simtarget-config" ]; then
  why="build/bin/simtarget-config is missing: run make all"
fi
if [ -n "$why" ]; then
  echo "ppc64le device tests skipped: $why"
  exit 77
fi
exec "$ROOT/tests/programs.sh" --device=ppc64le --versions "$versions" ${args[@]+"${args[@]}"}
