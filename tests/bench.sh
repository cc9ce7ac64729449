#!/usr/bin/env bash
# make bench: the offload benchmarks of tests/bench/, each built once with
# clang-14 and run against LLVM 14's runtime from Debian and against
# simtarget, interleaved (LLVM, simtarget, LLVM, ...) BENCH_ROUNDS times;
# prints the median of each figure for both, their ratio and the goal next
# to it. Figures, not tests: a missed goal is printed, not failed.
#
# A benchmark program prints lines "metric value unit" (unit us, ms, s:
# lower is better; GB/s, GF/s: higher is better) and takes no arguments.
set -eu
cd "$(dirname "$0")/.."
out=build/bench
mkdir -p "$out/runs"
rm -f "$out"/runs/*
rounds=${BENCH_ROUNDS:-5}
cc=${BENCH_CC:-clang-14}
llvm_lib=${BENCH_LLVM_LIB:-/usr/lib/llvm-14/lib}
sim_lib=$PWD/build/lib

# The median of a list of numbers ("3 1 2"), for the awk scripts below.
AWK_MEDIAN='
  function median(list,    v, n, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++)
      for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
'

# ---- the programs (tests/bench/NAME.c) ----
# host side of the runtime: launch, mappings, transfers, compute, first region,
# the memory routines' alloc/free path with 5,000 and 50,000 live blocks
HOST_PROGRAMS="bench_offload bench_first_region bench_free"
# device runtime: teams launch, back-to-back kernels (issue 19's other half)
KERNEL_PROGRAMS="bench_kernels"
PROGRAMS="$HOST_PROGRAMS $KERNEL_PROGRAMS"

# ---- the goals: tests/bench/goals.txt ("metric kind bound") ----

echo "simdevice at the plugin interface (build/tests/simdevice/bench_plugin):"
build/tests/simdevice/bench_plugin | grep -v '^\['
echo

for p in $PROGRAMS; do
  $cc -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu "tests/bench/$p.c" -o "$out/$p"
done
cc -std=gnu11 -O2 -o "$out/page_cost" tests/bench/page_cost.c
echo "$rounds rounds of: $PROGRAMS; each against LLVM 14 ($llvm_lib), then simtarget (build/lib)"
for r in $(seq 1 "$rounds"); do
  for p in $PROGRAMS; do
    LD_LIBRARY_PATH=$llvm_lib OMP_TARGET_OFFLOAD=mandatory "$out/$p" > "$out/runs/$p.llvm.$r"
    LD_LIBRARY_PATH=$sim_lib OMP_TARGET_OFFLOAD=mandatory "$out/$p" > "$out/runs/$p.sim.$r"
  done
  # The new-object loop again, simtarget without guard pages: what the
  # mapping costs apart from the new page each guarded object needs (no
  # goal; LLVM's side is the same loop run again).
  LD_LIBRARY_PATH=$llvm_lib OMP_TARGET_OFFLOAD=mandatory "$out/bench_offload" new \
    | sed 's/^new_object_64B_us/new_object_64B_unguarded_us/' >> "$out/runs/bench_offload.llvm.$r"
  SIMDEVICE_GUARD=0 LD_LIBRARY_PATH=$sim_lib OMP_TARGET_OFFLOAD=mandatory "$out/bench_offload" new \
    | sed 's/^new_object_64B_us/new_object_64B_unguarded_us/' >> "$out/runs/bench_offload.sim.$r"
  # The kernel's price of a new page, the floor under new_object_64B_us.
  "$out/page_cost" > "$out/runs/page_cost.sim.$r"
  # Small map(tofrom) regions with the whole program on one CPU (taskset; the
  # device process inherits it), as in a one-core CI container: simtarget's
  # host and device threads then take turns on that CPU (no goal).
  cpu=$(cut -d' ' -f39 /proc/self/stat)
  for side in llvm sim; do
    lib=$llvm_lib; [ $side = sim ] && lib=$sim_lib
    LD_LIBRARY_PATH=$lib OMP_TARGET_OFFLOAD=mandatory taskset -c "$cpu" "$out/bench_offload" tofrom \
      | sed -n 's/^map_tofrom_4KiB_GBps/map_tofrom_4KiB_one_cpu_GBps/p' >> "$out/runs/bench_offload.$side.$r"
  done
  echo "  round $r done"
done

grep -v '^#' tests/bench/goals.txt > "$out/goals.txt"
# shellcheck disable=SC2086
for p in $PROGRAMS page_cost; do
  for f in "$out"/runs/"$p".*; do
    side=${f#"$out/runs/$p."}
    side=${side%%.*}
    awk -v side="$side" 'NF >= 2 { print side, $1, $2, $3 }' "$f"
  done
done | awk -v rounds="$rounds" "$AWK_MEDIAN"'
  FILENAME != "-" { if (NF >= 3) { kind[$1] = $2; arg[$1] = $3; bound[$1] = $4 } next }
  {
    if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
    vals[$1, $2] = vals[$1, $2] " " $3
    unit[$2] = $4
  }
  END {
    for (i = 1; i <= n; i++) {
      m = order[i]
      L[m] = ((("llvm", m) in vals) ? median(vals["llvm", m]) : "")
      S[m] = ((("sim", m) in vals) ? median(vals["sim", m]) : "")
    }
    printf "\nmedians of %d interleaved runs\n", rounds
    printf "%-24s %14s %14s %8s  %s\n", "metric", "llvm-14", "simtarget", "sim/llvm", "goal"
    missed = 0
    for (i = 1; i <= n; i++) {
      m = order[i]
      ratio = (L[m] != "" && S[m] != "" && L[m] + 0 != 0) ? S[m] / L[m] : -1
      goal = ""; ok = ""
      k = kind[m]
      if (k == "max") { goal = "sim/llvm <= " arg[m]; ok = ratio >= 0 && ratio <= arg[m] }
      else if (k == "min") { goal = "sim/llvm >= " arg[m]; ok = ratio >= arg[m] }
      else if (k == "abs_max") { goal = "simtarget <= " arg[m] " " unit[m]; ok = S[m] != "" && S[m] + 0 <= arg[m] }
      else if (k == "own") { o = S[arg[m]] + 0 ? S[m] / S[arg[m]] : 0
        goal = sprintf("simtarget vs its %s: %.2fx >= %s", arg[m], o, bound[m]); ok = o >= bound[m] }
      else if (k == "plus_page") { o = L[m] + S[arg[m]]
        goal = sprintf("simtarget <= llvm + %s = %.3f %s", arg[m], o, unit[m]); ok = S[m] != "" && L[m] != "" && S[arg[m]] != "" && S[m] + 0 <= o }
      else if (k == "flat") { o = S[arg[m]] + 0 ? S[m] / S[arg[m]] : 0
        goal = sprintf("simtarget vs its %s: %.2fx <= %s", arg[m], o, bound[m]); ok = o > 0 && o <= bound[m] }
      if (goal != "") { goal = goal (ok ? "  ok" : "  MISSED"); missed += !ok }
      printf "%-24s %9s %-4s %9s %-4s %8s  %s\n", m,
             L[m] == "" ? "-" : sprintf("%.3f", L[m]), unit[m],
             S[m] == "" ? "-" : sprintf("%.3f", S[m]), unit[m],
             ratio < 0 ? "-" : sprintf("%.2fx", ratio), goal
    }
    printf "\n%d goal%s missed\n", missed, missed == 1 ? "" : "s"
  }' "$out/goals.txt" -

# ---- the floor under new_object_64B_us: the kernel's price of a page ----
echo
echo "what a new page of memory costs on this machine (tests/bench/page_cost.c, median of $rounds, run in the rounds above):"
cat "$out"/runs/page_cost.sim.* | awk "$AWK_MEDIAN"'
  { vals[$1] = vals[$1] " " $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
  END { for (i = 1; i <= n; i++) printf "  %-26s %7.3f us\n", order[i], median(vals[order[i]]) }'

# ---- issue 29's figures again with N busy processes on the same CPUs ----
echo
tests/bench/loaded.sh

# ---- the program corpus two at a time, LLVM 19 against simtarget ----
echo
tests/bench/corpus.sh

# ---- each bug-finding check's cost against the plain run (issue 32) ----
echo
tests/bench/check_modes.sh

# ---- target nowait (clang-19 builds: their libomp polls nowait regions) ----
# bench_nowait.c: 256 regions that each keep the device busy ~1 ms, on 2
# hidden helper threads; simtarget's side is built with clang-19 and runs on
# LLVM 19's libomp (16+ re-runs a target task through
# __tgt_target_nowait_query instead of blocking a helper thread on it), LLVM
# 14's side is the same program built with clang-14 on its own runtime.
# nowait_threads.c: 8 host threads x 200 target nowait, against LLVM 19's
# own offload runtime (goal: no slower).
echo
helpers=${BENCH_HIDDEN_HELPERS:-2}
[ -f build/toolchains/env.sh ] || tests/toolchains.sh >/dev/null
# shellcheck disable=SC1091
. build/toolchains/env.sh
if [ -z "${TC_CC_19:-}" ] || [ ! -e "$TC_HOSTLIB_19/libomp.so.5" ]; then
  echo "nowait benchmarks skipped: clang-19 or LLVM 19's libomp is missing (tests/toolchains.sh)"
  exit 0
fi
# shellcheck disable=SC2086
$TC_CC_19 $TC_FLAGS_19 -O2 tests/bench/bench_nowait.c -o "$out/bench_nowait_19"
$cc -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu tests/bench/bench_nowait.c -o "$out/bench_nowait_14"
echo "target nowait, $helpers hidden helper threads: LLVM 14 ($llvm_lib) ..."
LIBOMP_NUM_HIDDEN_HELPER_THREADS=$helpers LD_LIBRARY_PATH=$llvm_lib OMP_TARGET_OFFLOAD=mandatory \
  "$out/bench_nowait_14" > "$out/nowait_llvm.txt"
echo "target nowait, $helpers hidden helper threads: simtarget (build/lib, libomp 19) ..."
LIBOMP_NUM_HIDDEN_HELPER_THREADS=$helpers LD_LIBRARY_PATH=$PWD/build/lib:$TC_HOSTLIB_19 \
  OMP_TARGET_OFFLOAD=mandatory "$out/bench_nowait_19" > "$out/nowait_simtarget.txt"
awk '
  FNR == NR { llvm[$1] = $2; next }
  { sim[$1] = $2 }
  END {
    printf "%-22s %12s %12s\n", "metric", "llvm-14", "simtarget"
    printf "%-22s %9.1f ms %9.1f ms\n", "serial (no nowait)", llvm["nowait_serial_ms"], sim["nowait_serial_ms"]
    printf "%-22s %9.1f ms %9.1f ms\n", "nowait + taskwait", llvm["nowait_wall_ms"], sim["nowait_wall_ms"]
    printf "%-22s %10.2fx %10.2fx\n", "overlap (serial/wall)", llvm["nowait_overlap_x"], sim["nowait_overlap_x"]
    printf "simtarget nowait wall vs its serial sum: %.3fx (target < 0.1x)\n", sim["nowait_wall_ms"] / sim["nowait_serial_ms"]
    printf "simtarget nowait wall vs LLVM 14: %.2fx\n", sim["nowait_wall_ms"] / llvm["nowait_wall_ms"]
  }' "$out/nowait_llvm.txt" "$out/nowait_simtarget.txt"

echo
if [ ! -e "${TC_RTDIR_19:-}/libomptarget.so.19.1" ]; then
  echo "nowait_threads skipped: LLVM 19's offload runtime is missing (tests/toolchains.sh)"
  exit 0
fi
# shellcheck disable=SC2086
$TC_CC_19 $TC_FLAGS_19 -O2 tests/bench/nowait_threads.c -o "$out/nowait_threads_19"
echo "8 host threads x 200 target nowait, $rounds rounds: LLVM 19 ($TC_RTDIR_19), then simtarget (libomp 19)"
for r in $(seq 1 "$rounds"); do
  LD_LIBRARY_PATH=$TC_RTDIR_19 OMP_TARGET_OFFLOAD=mandatory "$out/nowait_threads_19" n 8 \
    | awk '{print "llvm", $0}'
  LD_LIBRARY_PATH=$PWD/build/lib:$TC_HOSTLIB_19 OMP_TARGET_OFFLOAD=mandatory "$out/nowait_threads_19" n 8 \
    | awk '{print "sim", $0}'
done | awk "$AWK_MEDIAN"'
  NF >= 3 { vals[$1, $2] = vals[$1, $2] " " $3; unit[$2] = $4; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
  END {
    for (i = 1; i <= n; i++) {
      m = order[i]; l = median(vals["llvm", m]); s = median(vals["sim", m]); r = l + 0 ? s / l : 0
      printf "%-24s %9.3f %-2s %9.3f %-2s %7.2fx%s\n", m, l, unit[m], s, unit[m], r,
             m == "nowait_threads_ms" ? sprintf("  goal sim/llvm-19 <= 1.0  %s", r <= 1.0 ? "ok" : "MISSED") : ""
    }
  }'

# simtarget-maps on large traces (issue 30 item 19)
echo
tests/traces_bench.sh

# remote simdevice devices over Open MPI (issue 36): bandwidth against Open
# MPI's own transfer, launch latency against a local device
echo
tests/bench/mpi.sh
