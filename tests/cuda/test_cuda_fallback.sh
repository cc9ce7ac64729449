#!/bin/bash
# test_cuda_fallback (installed as build/tests/cuda/test_cuda_fallback):
# the CUDA plugin in a real run, with no GPU. A program compiled by every
# usable clang runs with LIBOMPTARGET_PLUGINS=cuda and must
#   - see zero devices, with the plugin's reason said once under the
#     plugin-info bit of LIBOMPTARGET_INFO (0x10) and not under the others,
#     and run its host version (default policy);
#   - fail clearly under OMP_TARGET_OFFLOAD=mandatory;
#   - carry a driver failure in the driver's words (driver test double,
#     SIMTARGET_CUDA_DRIVER, cuInit forced to fail);
#   - with a (test double) GPU present, be refused because its image is
#     x86-64, with the plugin saying so;
# and the plugin lying beside simdevice must not disturb simdevice, nor
# add lines about itself to a mandatory failure there.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
SRC=$ROOT/tests/cuda/fallback.c
DOUBLE=$HERE/libcuda_testdouble.so
failures=0 checks=0

if ! "$ROOT/tests/toolchains.sh" -q >/dev/null 2>&1 || [ ! -f "$ROOT/build/toolchains/env.sh" ]; then
  echo "SKIP: no usable clang (tests/toolchains.sh); nothing was checked"
  exit 77 # run_tests.sh counts it as skipped
fi
# shellcheck disable=SC1091
. "$ROOT/build/toolchains/env.sh"

# On a machine with the driver, "no driver" is simulated with a bad path.
no_driver=() driver_words="libcuda.so.1 cannot be loaded"
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  no_driver=(SIMTARGET_CUDA_DRIVER=/nonexistent/libcuda.so.1)
  driver_words="/nonexistent/libcuda.so.1 cannot be loaded"
fi

# expect NAME WANT_RC STDOUT_REGEX STDERR_REGEX -- env... program
expect() {
  local name=$1 want_rc=$2 out_re=$3 err_re=$4
  shift 5
  checks=$((checks + 1))
  local out err rc
  out=$(mktemp) err=$(mktemp)
  env "$@" >"$out" 2>"$err"
  rc=$?
  local why=""
  if [ "$rc" != "$want_rc" ]; then why="exit $rc, expected $want_rc"
  elif [ -n "$out_re" ] && ! grep -Eq -- "$out_re" "$out"; then why="stdout lacks /$out_re/"
  elif [ -n "$err_re" ] && ! grep -Eq -- "$err_re" "$err"; then why="stderr lacks /$err_re/"
  fi
  if [ -z "$why" ]; then
    echo "ok    $name"
  else
    failures=$((failures + 1))
    echo "FAIL  $name: $why"
    sed 's/^/      out: /' "$out" | tail -n 5
    sed 's/^/      err: /' "$err" | tail -n 12
  fi
  rm -f "$out" "$err"
}

# expect_lines NAME REGEX COUNT -- env... program: stderr has exactly COUNT
# lines matching REGEX (the exit status is not checked).
expect_lines() {
  local name=$1 re=$2 count=$3
  shift 4
  checks=$((checks + 1))
  local err got
  err=$(mktemp)
  env "$@" >/dev/null 2>"$err"
  got=$(grep -Ec -- "$re" "$err")
  if [ "$got" = "$count" ]; then
    echo "ok    $name"
  else
    failures=$((failures + 1))
    echo "FAIL  $name: $got lines match /$re/, expected $count"
    sed 's/^/      err: /' "$err" | tail -n 12
  fi
  rm -f "$err"
}

for n in $TOOLCHAINS_USABLE; do
  eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n hostlib=\$TC_HOSTLIB_$n"
  bin=$HERE/fallback-$n
  if [ ! -x "$bin" ] || [ "$SRC" -nt "$bin" ]; then
    # shellcheck disable=SC2086
    if ! $cc $flags -O1 "$SRC" -o "$bin" >"$bin.log" 2>&1; then
      failures=$((failures + 1))
      echo "FAIL  clang-$n: does not compile (see $bin.log)"
      continue
    fi
  fi
  lib="LD_LIBRARY_PATH=$ROOT/build/lib:$hostlib"
  expect "clang-$n: no driver -> zero devices, reason, host fallback" 0 \
    '^devices=0 on_host=1 sum=2016$' "omptarget info: .*cuda.so: has no devices: cuda: no CUDA devices: .*$driver_words" -- \
    "$lib" LIBOMPTARGET_PLUGINS=cuda LIBOMPTARGET_INFO=0x10 "${no_driver[@]}" "$bin"
  expect_lines "clang-$n: no driver, LIBOMPTARGET_INFO=-1 -> the reason said once" \
    'no CUDA devices' 1 -- "$lib" LIBOMPTARGET_INFO=-1 "${no_driver[@]}" "$bin"
  expect_lines "clang-$n: no driver, LIBOMPTARGET_INFO=1 (no plugin bit) -> nothing about CUDA" \
    'cuda' 0 -- "$lib" LIBOMPTARGET_INFO=1 "${no_driver[@]}" "$bin"
  expect "clang-$n: no driver, mandatory -> clear failure" 1 \
    '' 'libomptarget\.rtl\.cuda\.so: has no devices' -- \
    "$lib" LIBOMPTARGET_PLUGINS=cuda OMP_TARGET_OFFLOAD=mandatory "${no_driver[@]}" "$bin"
  expect "clang-$n: cuInit failure in the driver's words" 0 \
    '^devices=0 on_host=1 sum=2016$' 'cuInit failed in .*CUDA_ERROR_NO_DEVICE: test double: no CUDA-capable device here' -- \
    "$lib" LIBOMPTARGET_PLUGINS=cuda LIBOMPTARGET_INFO=0x10 SIMTARGET_CUDA_DRIVER="$DOUBLE" \
    CUDA_TESTDOUBLE_FAIL=cuInit=100 "$bin"
  expect "clang-$n: a GPU present refuses the x86-64 image, saying why" 1 \
    '' 'not accepted by plugin cuda.*machine 62 \(x86-64\), not EM_CUDA \(190\)' -- \
    "$lib" LIBOMPTARGET_PLUGINS=cuda OMP_TARGET_OFFLOAD=mandatory SIMTARGET_CUDA_DRIVER="$DOUBLE" "$bin"
  expect "clang-$n: simdevice unaffected by the CUDA plugin beside it" 0 \
    '^devices=[1-9][0-9]* on_host=0 sum=2016$' '' -- \
    "$lib" OMP_TARGET_OFFLOAD=mandatory "${no_driver[@]}" "$bin"
done
echo "$((checks - failures)) of $checks checks passed"
[ "$failures" -eq 0 ]
