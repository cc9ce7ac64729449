#!/bin/bash
# tests/ppc64le/device.sh - the ppc64le device on this machine, its device
# process under qemu-ppc64le on x86-64:
#   1. the clang program corpus (tests/programs/) compiled for the ppc64le
#      device (tests/programs.sh --device=ppc64le; programs that cannot work
#      there are skipped with their ppc64le-skip reason); negative programs
#      must fail with the same diagnoses as on x86-64 (same expect-stderr);
#   2. per clang, both_devices.c: a binary with x86-64 and ppc64le images
#      runs on device 0 (x86-64) and device 1 (ppc64le);
#   3. the refusals: a device process of the wrong machine (the x86-64
#      server run as the ppc64le one) is refused by the handshake, by name;
#      without qemu there is no ppc64le device and the failure says why.
#
# Usage: tests/ppc64le/device.sh [--versions "14 19 22"] [--list FILE] [PROGRAM.c ...]
#   PPC_VERSIONS    clang versions when --versions is not given (14 19 22)
#   --list FILE     part 1 with the programs FILE names (one per line, '#'
#                   starts a comment; make check-ppc64le: device.list), then
#                   parts 2 and 3; programs named on the line: part 1 only
# Exits 77 (skipped) when the ppc64le device cannot run here: no cross
# compiler (so no ppc64le device process was built), no qemu-ppc64le, no
# sysroot. Needs `make all` first. Ends with "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
versions=${PPC_VERSIONS:-14 19 22}
# Device memory: qemu 7.2's user mode keeps flags for each guest page of a
# mapping, so the device process pays for the size of its memory's view at
# every start: data_struct.c ran in 0.68 s at the default (the machine's
# 24 GiB), 0.22 s with 4G (2026-11-29). 4G holds big_arrays.c's 3.5 GiB.
export SIMDEVICE_MEMORY=${SIMDEVICE_MEMORY:-4G}
# shellcheck source=tests/suite_lib.sh
. "$ROOT/tests/suite_lib.sh"
args=() listed=()
while [ $# -gt 0 ]; do
  case $1 in
    --versions) versions=$2; shift ;;
    --list)
      [ -r "$2" ] || { echo "device.sh: cannot read the list $2" >&2; exit 2; }
      mapfile -t listed < <(list_programs "$2")
      shift ;;
    *) args+=("$1") ;;
  esac
  shift
done

why=$(ppc64le_device_missing "$ROOT")
if [ -z "$why" ] && [ ! -x "$ROOT/build/bin/simtarget-config" ]; then
  why="build/bin/simtarget-config is missing: run make all"
fi
if [ -n "$why" ]; then
  echo "ppc64le device tests skipped: $why"
  exit 77
fi

# One program at a time (-j 1): with two at a time a launch of
# launches_back_to_back_no_stall.c waited for the ppc64le server's 1 s
# futex timeout (in a check-ppc64le run, and in every run beside 2 busy
# loops, stop 45's code too; x86-64 passed all 4 such runs). Costs a
# minute: clang 19's corpus ran in 148 s two at a time, 210 s alone.
"$ROOT/tests/programs.sh" -j 1 --device=ppc64le --versions "$versions" ${args[@]+"${args[@]}"} \
  ${listed[@]+"${listed[@]}"} | tee "$ROOT/build/ppc64le-device.log"
corpus_rc=${PIPESTATUS[0]}
[ $corpus_rc = 2 ] && exit 2
read -r passed failed skipped < <(tail -1 "$ROOT/build/ppc64le-device.log" | sed -E 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/')
[ ${#args[@]} -gt 0 ] && { [ "$corpus_rc" = 0 ]; exit; }

# shellcheck disable=SC1090
. "$ROOT/build/toolchains/env.sh"
OUT="$ROOT/build/programs-ppc64le"
CFG="$ROOT/build/bin/simtarget-config"
X86SERVER="$ROOT/build/lib/simdevice/simdevice-server"
result() { # result ok|FAIL NAME clang-N [why]
  if [ "$1" = ok ]; then passed=$((passed + 1)); printf 'ok    %-24s %s\n' "$2" "$3"
  else failed=$((failed + 1)); printf 'FAIL  %-24s %s: %s\n' "$2" "$3" "$4"; fi
}
# expect_run NAME N WANT_EXIT REGEX BIN [VAR=VALUE...]: run BIN, check both.
expect_run() {
  local name=$1 n=$2 want=$3 re=$4 bin=$5 hostlib rc
  shift 5
  eval "hostlib=\$TC_HOSTLIB_$n"
  env "$@" LD_LIBRARY_PATH="$ROOT/build/lib:$hostlib" OMP_TARGET_OFFLOAD=mandatory \
    timeout -k 5 120 "$bin" >"$bin.run" 2>&1
  rc=$?
  if [ $rc != "$want" ]; then
    result FAIL "$name" "clang-$n" "exit $rc, expected $want: $(grep -v '^ *$' "$bin.run" | tail -1 | cut -c1-200)"
  elif ! grep -Eq -- "$re" "$bin.run"; then
    result FAIL "$name" "clang-$n" "output does not match /$re/: $(grep -v '^ *$' "$bin.run" | tail -1 | cut -c1-200)"
  else
    result ok "$name" "clang-$n"
  fi
}
for n in $versions; do
  [[ " $TOOLCHAINS_USABLE " == *" $n "* ]] || continue
  eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n"
  flags=${flags/-fopenmp-targets=x86_64-pc-linux-gnu/}
  cflags=$("$CFG" --cflags --device=ppc64le --cc="$cc")
  cflags=${cflags/-fopenmp-targets=powerpc64le-ibm-linux-gnu/-fopenmp-targets=x86_64-pc-linux-gnu,powerpc64le-ibm-linux-gnu}
  bin="$OUT/$n/both_devices"
  mkdir -p "$OUT/$n"
  if ! [ "$bin" -nt "$ROOT/tests/ppc64le/both_devices.c" ] &&
     ! $cc $cflags ${flags/-fopenmp /} -O1 "$ROOT/tests/ppc64le/both_devices.c" -o "$bin" >"$bin.log" 2>&1; then
    result FAIL both_devices.c "clang-$n" "does not compile: $(grep -m1 error "$bin.log" | cut -c1-200)"
    continue
  fi
  expect_run both_devices.c "$n" 0 '^PASS$' "$bin"
  # The corpus's binaries: a ppc64le image, given the x86-64 server.
  expect_run handshake_refused "$n" 1 \
    "was refused: it runs machine 62 \(x86-64\), this plugin drives ppc64le devices" \
    "$OUT/$n/teams_reduction" SIMDEVICE_QEMU=direct SIMDEVICE_PPC64LE_SERVER="$X86SERVER"
  expect_run no_qemu "$n" 1 \
    "no ppc64le devices: .*/nonexistent/qemu-ppc64le. is not an executable file" \
    "$OUT/$n/teams_reduction" SIMDEVICE_QEMU=/nonexistent/qemu-ppc64le
done
echo "$passed passed, $failed failed, $skipped skipped (ppc64le device: corpus, both images, refusals)"
[ "$failed" = 0 ]
