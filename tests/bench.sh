#!/usr/bin/env bash
# make bench: the same offload benchmark (tests/bench/bench_offload.c, built
# once with clang-14) run against LLVM 14's runtime from Debian and against
# simtarget in one go, printed side by side as ratios. Figures, not tests.
set -eu
cd "$(dirname "$0")/.."
out=build/bench
mkdir -p "$out"
echo "simdevice at the plugin interface (build/tests/simdevice/bench_plugin):"
build/tests/simdevice/bench_plugin | grep -v '^\['
echo
cc=${BENCH_CC:-clang-14}
$cc -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu tests/bench/bench_offload.c -o "$out/bench_offload"
llvm_lib=${BENCH_LLVM_LIB:-/usr/lib/llvm-14/lib}
echo "running against LLVM 14 ($llvm_lib) ..."
LD_LIBRARY_PATH=$llvm_lib OMP_TARGET_OFFLOAD=mandatory "$out/bench_offload" > "$out/llvm.txt"
echo "running against simtarget (build/lib) ..."
LD_LIBRARY_PATH=$PWD/build/lib OMP_TARGET_OFFLOAD=mandatory "$out/bench_offload" > "$out/simtarget.txt"
awk '
  FNR == NR { llvm[$1] = $2; unit[$1] = $3; next }
  { sim[$1] = $2; order[++n] = $1 }
  END {
    printf "%-22s %12s %12s %8s\n", "metric", "llvm-14", "simtarget", "sim/llvm"
    for (i = 1; i <= n; i++) {
      m = order[i]
      printf "%-22s %10.3f %-2s %9.3f %-2s %7.2fx\n", m, llvm[m], unit[m] == "us" ? "us" : "", sim[m], unit[m] == "us" ? "us" : "", llvm[m] ? sim[m] / llvm[m] : 0
    }
    print ""
    printf "simtarget transfers vs memcpy: to %.2fx, from %.2fx (target >= 0.9x)\n", sim["to_device_GBps"] / sim["host_memcpy_GBps"], sim["from_device_GBps"] / sim["host_memcpy_GBps"]
    printf "simtarget triad on the device vs host omp parallel for: %.2fx (target >= 0.9x)\n", sim["triad_device_GBps"] / sim["triad_host_GBps"]
    printf "simtarget lookup 100000 vs 10 objects: %.2fx (target: flat)\n", sim["lookup_100000_us"] / sim["lookup_10_us"]
    printf "simtarget empty launch vs LLVM 14: %.1fx (target <= 10x)\n", sim["empty_launch_us"] / llvm["empty_launch_us"]
  }' "$out/llvm.txt" "$out/simtarget.txt"

# ---- target nowait: 256 regions that each keep the device busy ~1 ms ----
# (tests/bench/bench_nowait.c). simtarget's side is built with clang-19 and
# runs on LLVM 19's libomp (16+ re-runs a target task through
# __tgt_target_nowait_query instead of blocking a helper thread on it);
# LLVM 14's side is the same program built with clang-14 on its own runtime.
# Both with the same number of hidden helper threads.
echo
helpers=${BENCH_HIDDEN_HELPERS:-2}
[ -f build/toolchains/env.sh ] || tests/toolchains.sh >/dev/null
# shellcheck disable=SC1091
. build/toolchains/env.sh
if [ -z "${TC_CC_19:-}" ] || [ ! -e "$TC_HOSTLIB_19/libomp.so.5" ]; then
  echo "nowait benchmark skipped: clang-19 or LLVM 19's libomp is missing (tests/toolchains.sh)"
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

# ---- device runtime: teams launches, back-to-back kernels, nowait from ----
# ---- several host threads (issue 19, device half) ----
# tests/bench/bench_kernels.c (clang-14) against LLVM 14 and simtarget;
# tests/bench/nowait_threads.c (clang-19: its libomp polls nowait regions)
# against LLVM 19's own offload runtime and simtarget (+ LLVM 19's libomp).
# Goals are ratios to LLVM in the same run (simdevice/runtime/README.md).
echo
$cc -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu tests/bench/bench_kernels.c -o "$out/bench_kernels"
echo "teams kernels: LLVM 14 ($llvm_lib) ..."
LD_LIBRARY_PATH=$llvm_lib OMP_TARGET_OFFLOAD=mandatory "$out/bench_kernels" > "$out/kernels_llvm.txt"
echo "teams kernels: simtarget (build/lib) ..."
LD_LIBRARY_PATH=$PWD/build/lib OMP_TARGET_OFFLOAD=mandatory "$out/bench_kernels" > "$out/kernels_simtarget.txt"
kernels_table() { # LLVM-FILE SIM-FILE LLVM-NAME: "metric llvm sim ratio (goal)"
  awk -v name="$3" '
    BEGIN {
      goal["teams_dpf_0trips_us"] = 1.5; goal["teams_dpf_1024trips_us"] = 1.5
      goal["back_to_back_us"] = 1.5; goal["nowait_threads_ms"] = 1.0
    }
    FNR == NR { llvm[$1] = $2; unit[$1] = $3; next }
    { sim[$1] = $2; order[++n] = $1 }
    END {
      printf "%-24s %12s %12s %8s\n", "metric", name, "simtarget", "sim/llvm"
      for (i = 1; i <= n; i++) {
        m = order[i]; r = llvm[m] ? sim[m] / llvm[m] : 0
        g = (m in goal) ? sprintf("(goal <= %.1fx: %s)", goal[m], r <= goal[m] ? "met" : "NOT met") : ""
        printf "%-24s %9.3f %-2s %9.3f %-2s %7.2fx %s\n", m, llvm[m], unit[m], sim[m], unit[m], r, g
      }
    }' "$1" "$2"
}
kernels_table "$out/kernels_llvm.txt" "$out/kernels_simtarget.txt" llvm-14
if [ -n "${TC_CC_19:-}" ] && [ -e "${TC_RTDIR_19:-}/libomptarget.so.19.1" ]; then
  # shellcheck disable=SC2086
  $TC_CC_19 $TC_FLAGS_19 -O2 tests/bench/nowait_threads.c -o "$out/nowait_threads_19"
  echo "8 host threads x 200 target nowait: LLVM 19 ($TC_RTDIR_19) ..."
  LD_LIBRARY_PATH=$TC_RTDIR_19 OMP_TARGET_OFFLOAD=mandatory "$out/nowait_threads_19" n 8 > "$out/nowait_threads_llvm.txt"
  echo "8 host threads x 200 target nowait: simtarget (build/lib, libomp 19) ..."
  LD_LIBRARY_PATH=$PWD/build/lib:$TC_HOSTLIB_19 OMP_TARGET_OFFLOAD=mandatory \
    "$out/nowait_threads_19" n 8 > "$out/nowait_threads_simtarget.txt"
  kernels_table "$out/nowait_threads_llvm.txt" "$out/nowait_threads_simtarget.txt" llvm-19
else
  echo "nowait_threads skipped: clang-19 or LLVM 19's offload runtime is missing (tests/toolchains.sh)"
fi
