#!/usr/bin/env bash
# tests/bench/loaded.sh - issue 29's figures on a busy machine, as a test
# runs in CI beside other tests (`make -j`, `ctest -j`, lit): the empty
# `target`, map(tofrom) of 4 and 16 KiB (bench_offload.c "small"), new
# 64-byte objects (bench_offload.c "new", with the price of a new page
# under the same load: page_cost.c), the teams launches, back-to-back
# kernels and GPU-sized leagues (bench_kernels.c), all clang-14 against
# LLVM 14's runtime, and 8 host threads x 200 `target nowait`
# (nowait_threads.c, clang-19, against LLVM 19's), each while N busy
# processes (busy.c, one never-sleeping loop each) share the CPUs this
# script may use. Both runtimes run in the same conditions, interleaved
# (LLVM, simtarget, LLVM, ...) BENCH_ROUNDS times (default 5); the table has
# the medians, the ratio and the goal (the quiet machine's goal holds here
# too: tests/bench/goals.txt). Run by `make bench` (tests/bench.sh);
# alone: tests/bench/loaded.sh.
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

for p in bench_offload bench_kernels; do
  $cc -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu "tests/bench/$p.c" -o "$out/$p"
done
cc -std=gnu11 -O2 tests/bench/busy.c -o "$out/busy"
cc -std=gnu11 -O2 tests/bench/page_cost.c -o "$out/page_cost"
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
  local n=$1 side lib what
  for what in "bench_offload small" "bench_offload new" "bench_kernels"; do
    for side in llvm sim; do
      lib=$llvm_lib
      [ $side = sim ] && lib=$sim_lib
      # shellcheck disable=SC2086
      LD_LIBRARY_PATH=$lib OMP_TARGET_OFFLOAD=mandatory "$out"/$what |
        sed "s/^/$side $n /"
    done
  done
  # the new-object goal's page, priced under the same load (no LLVM side)
  "$out/page_cost" | grep '^page_shared_new_us ' | sed "s/^/sim $n /"
  if [ $have19 = 1 ]; then
    LD_LIBRARY_PATH=$TC_RTDIR_19 OMP_TARGET_OFFLOAD=mandatory "$out/nowait_threads_19" n 8 |
      sed "s/^/llvm $n /"
    LD_LIBRARY_PATH=$sim_lib:$TC_HOSTLIB_19 OMP_TARGET_OFFLOAD=mandatory \
      "$out/nowait_threads_19" n 8 | sed "s/^/sim $n /"
  fi
}

echo "issue 29's figures with N busy processes on the same $cpus CPUs, $rounds rounds each:" \
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
  # the goals of the quiet table, of the kinds that compare with LLVM
  FILENAME ~ /goals.txt$/ {
    if ($1 !~ /^#/ && ($2 == "max" || $2 == "min" || $2 == "plus_page"))
      goal[$1] = $2 " " $3
    next
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
      both = ("llvm", order[i]) in vals # else a figure of the simtarget run only
      l = median(vals["llvm", order[i]]); s = median(vals["sim", order[i]])
      r = l + 0 ? s / l : -1
      g = ""
      if (m in goal) {
        split(goal[m], gk, " ")
        if (gk[1] == "plus_page") { # simtarget at most LLVM plus a page priced in the same rounds
          o = l + median(vals["sim", k[1] SUBSEP gk[2]])
          ok = s + 0 <= o
          g = sprintf("simtarget <= llvm + %s = %.3f %s", gk[2], o, unit[m])
        } else {
          ok = gk[1] == "max" ? (r >= 0 && r <= gk[2]) : (r >= gk[2])
          g = sprintf("sim/llvm %s %s", gk[1] == "max" ? "<=" : ">=", gk[2])
        }
        g = g "  " (ok ? "ok" : "MISSED")
        missed += !ok
      }
      if (!both)
        printf "%-24s %6s %14s %9.3f %-4s %8s\n", m, k[1], "-", s, unit[m], "-"
      else
        printf "%-24s %6s %9.3f %-4s %9.3f %-4s %7.2fx  %s\n", m, k[1], l, unit[m], s, unit[m], r, g
    }
    printf "%d loaded goal%s missed\n", missed, missed == 1 ? "" : "s"
  }' tests/bench/goals.txt "$out/loaded/runs.txt"
