#!/usr/bin/env bash
# tests/bench/loaded.sh - the small offload figures on a busy machine, as a
# test runs in CI beside other tests (`make -j`, `ctest -j`, lit): the empty
# `target`, map(tofrom) of 4 and 16 KiB (bench_offload.c "small", clang-14,
# against LLVM 14's runtime) and 8 host threads x 200 `target nowait`
# (nowait_threads.c, clang-19, against LLVM 19's), each while N busy
# processes (busy.c, one never-sleeping loop each) share the CPUs this
# script may use. Both runtimes run in the same conditions, interleaved
# (LLVM, simtarget, LLVM, ...) BENCH_ROUNDS times (default 5); the table has
# the medians, the ratio and the goal (the quiet machine's goal holds here
# too). Run by `make bench` (tests/bench.sh); alone: tests/bench/loaded.sh.
#   BENCH_BUSY   the values of N (default "0 <CPUs>"; <CPUs> from nproc,
#                which counts the CPUs this process may run on)
set -eu
cd "$(dirname "$0")/../.."
out=build/bench
mkdir -p "$out/loaded"
rm -f "$out"/loaded/*
rounds=${BENCH_ROUNDS:-5}
cc=${BENCH_CC:-clang-14}
llvm_lib=${BENCH_LLVM_LIB:-/usr/lib/llvm-14/lib}
sim_lib=$PWD/build/lib
cpus=$(nproc)
busy_list=${BENCH_BUSY:-"0 $cpus"}

$cc -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu tests/bench/bench_offload.c -o "$out/bench_offload"
cc -std=gnu11 -O2 tests/bench/busy.c -o "$out/busy"
have19=0
[ -f build/toolchains/env.sh ] || tests/toolchains.sh >/dev/null
# shellcheck disable=SC1091
. build/toolchains/env.sh
if [ -n "${TC_CC_19:-}" ] && [ -e "$TC_HOSTLIB_19/libomp.so.5" ] &&
   [ -e "${TC_RTDIR_19:-}/libomptarget.so.19.1" ]; then
  # shellcheck disable=SC2086
  $TC_CC_19 $TC_FLAGS_19 -O2 tests/bench/nowait_threads.c -o "$out/nowait_threads_19"
  have19=1
fi

busy_pids=""
stop_busy() {
  for p in $busy_pids; do kill "$p" 2>/dev/null || true; done
  for p in $busy_pids; do wait "$p" 2>/dev/null || true; done
  busy_pids=""
}
trap stop_busy EXIT

# One round of both runtimes; lines "side N metric value unit".
one_round() {
  local n=$1
  LD_LIBRARY_PATH=$llvm_lib OMP_TARGET_OFFLOAD=mandatory "$out/bench_offload" small |
    sed "s/^/llvm $n /"
  LD_LIBRARY_PATH=$sim_lib OMP_TARGET_OFFLOAD=mandatory "$out/bench_offload" small |
    sed "s/^/sim $n /"
  if [ $have19 = 1 ]; then
    LD_LIBRARY_PATH=$TC_RTDIR_19 OMP_TARGET_OFFLOAD=mandatory "$out/nowait_threads_19" n 8 |
      sed "s/^/llvm $n /"
    LD_LIBRARY_PATH=$sim_lib:$TC_HOSTLIB_19 OMP_TARGET_OFFLOAD=mandatory \
      "$out/nowait_threads_19" n 8 | sed "s/^/sim $n /"
  fi
}

echo "small figures with N busy processes on the same $cpus CPUs, $rounds rounds each:" \
  "LLVM (14: $llvm_lib; nowait_threads: 19) then simtarget"
for n in $busy_list; do
  for _ in $(seq 1 "$n"); do
    "$out/busy" 900 &
    busy_pids="$busy_pids $!"
  done
  for r in $(seq 1 "$rounds"); do
    one_round "$n" >> "$out/loaded/runs.txt"
  done
  stop_busy
  echo "  N=$n done"
done

awk '
  function median(list,    v, k, i, j, t) {
    k = split(list, v, " ")
    for (i = 2; i <= k; i++)
      for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  BEGIN {
    goal["empty_launch_us"] = "max 2"; goal["map_tofrom_4KiB_GBps"] = "min 0.5"
    goal["map_tofrom_16KiB_GBps"] = "min 0.5"; goal["nowait_threads_ms"] = "max 1.0"
  }
  NF >= 5 {
    key = $2 SUBSEP $3
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    vals[$1, key] = vals[$1, key] " " $4
    unit[$3] = $5
  }
  END {
    printf "%-24s %6s %14s %14s %8s  %s\n", "metric", "busy", "llvm", "simtarget", "sim/llvm", "goal"
    missed = 0
    for (i = 1; i <= n; i++) {
      split(order[i], k, SUBSEP); m = k[2]
      l = median(vals["llvm", order[i]]); s = median(vals["sim", order[i]])
      r = l + 0 ? s / l : -1
      g = ""
      if (m in goal) {
        split(goal[m], gk, " ")
        ok = gk[1] == "max" ? (r >= 0 && r <= gk[2]) : (r >= gk[2])
        g = sprintf("sim/llvm %s %s  %s", gk[1] == "max" ? "<=" : ">=", gk[2], ok ? "ok" : "MISSED")
        missed += !ok
      }
      printf "%-24s %6s %9.3f %-4s %9.3f %-4s %7.2fx  %s\n", m, k[1], l, unit[m], s, unit[m], r, g
    }
    printf "%d loaded goal%s missed\n", missed, missed == 1 ? "" : "s"
  }' "$out/loaded/runs.txt"
