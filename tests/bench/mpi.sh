#!/usr/bin/env bash
# tests/bench/mpi.sh - remote simdevice devices over Open MPI (in make
# bench, after the rest; issue 36): on ranks of this one machine,
#  - transfer bandwidth host -> remote device and back (remote_transfer.c under
#    mpirun, MPMD: the program and one simdevice-mpi-server rank) against
#    Open MPI's own transfer of the same size between two ranks of the same
#    mpirun setup, in the same direction and shape (mpi_pingpong.c: for
#    host -> device the data from rank 0 and 8 bytes back, for device -> host
#    8 bytes from rank 0 and the data back, both timed on rank 0 with a
#    nanosecond clock, as remote_transfer.c times a copy on the host), as a
#    ratio, goal >= 0.9 for 1 MiB and more;
#  - the launch latency of an empty target region on the remote device
#    against a local simdevice device (the same binary, no mpirun).
# Medians of BENCH_ROUNDS runs (each itself a median of 21; the three
# programs interleaved, round by round), and how many rounds met the goal
# (the ratio of that round's two medians). Figures, not tests: a missed
# goal is printed, not failed.
set -eu
cd "$(dirname "$0")/../.."
out=build/bench/mpi
mkdir -p "$out"
rounds=${BENCH_ROUNDS:-11}
server=$PWD/build/lib/simdevice/simdevice-mpi-server
if ! command -v mpirun >/dev/null || [ ! -x "$server" ]; then
  echo "simdevice-mpi skipped: no mpirun or no $server (Open MPI, make all)"
  exit 0
fi
. build/toolchains/env.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck disable=SC2086
mpicc -O2 tests/bench/mpi_pingpong.c -o "$out/mpi_pingpong"
# shellcheck disable=SC2086
$TC_CC_19 $TC_FLAGS_19 -O2 tests/bench/remote_transfer.c -o "$out/remote_transfer"
lib=$PWD/build/lib:$TC_HOSTLIB_19
echo "simdevice-mpi, $rounds rounds: Open MPI ping-pong (2 ranks), a remote device (MPMD), a local device"
for r in $(seq 1 "$rounds"); do
  mpirun --oversubscribe -q -np 2 "$out/mpi_pingpong" | awk '{print "mpi", $0}'
  SIMDEVICE_NUM_DEVICES=0 mpirun --oversubscribe -q -x SIMDEVICE_NUM_DEVICES \
    -x LD_LIBRARY_PATH="$lib" -x OMP_TARGET_OFFLOAD=mandatory \
    -np 1 "$out/remote_transfer" : -np 1 "$server" | awk '{print "remote", $0}'
  LD_LIBRARY_PATH=$lib OMP_TARGET_OFFLOAD=mandatory "$out/remote_transfer" \
    | awk '{print "local", $0}'
done > "$out/runs.txt"
awk '
  function median(list,    v, n, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++)
      for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  function rounds_met(ref, got,    a, b, n, k, met) { # rounds at >= 0.9
    n = split(ref, a, " "); split(got, b, " "); met = 0
    for (k = 1; k <= n; k++) if (a[k] + 0 && b[k] / a[k] >= 0.9) met++
    return met " of " n " rounds"
  }
  { vals[$1, $2] = vals[$1, $2] " " $3 }
  END {
    split("64 1024 4096 16384", kib, " ")
    split("xfer back", way, " ")
    split("pingpong_ pingpong_back_", ref, " ") # Open MPI, the same way
    printf "%-22s %12s %12s %8s\n", "size", "Open MPI", "remote dev", "ratio"
    for (w = 1; w <= 2; w++)
      for (i = 1; i <= 4; i++) {
        mk = ref[w] kib[i] "KiB_GBps"; dk = way[w] "_" kib[i] "KiB_GBps"
        m = median(vals["mpi", mk])
        d = median(vals["remote", dk])
        r = m + 0 ? d / m : 0
        goal = kib[i] >= 1024 ? sprintf("  goal >= 0.9  %s (%s)", r >= 0.9 ? "ok" : "MISSED", rounds_met(vals["mpi", mk], vals["remote", dk])) : ""
        printf "%-22s %7.3f GB/s %7.3f GB/s %7.2fx%s\n", kib[i] " KiB " (w == 1 ? "host->dev" : "dev->host"), m, d, r, goal
      }
    printf "Open MPI 8-byte round trip: %.1f us\n", median(vals["mpi", "pingpong_8B_roundtrip_us"])
    l = median(vals["local", "empty_launch_us"]); d = median(vals["remote", "empty_launch_us"])
    printf "empty target region: local device %.1f us, remote device %.1f us (%.1fx)\n", l, d, l + 0 ? d / l : 0
    printf "host -> local device 16 MiB: %.3f GB/s\n", median(vals["local", "xfer_16384KiB_GBps"])
  }' "$out/runs.txt"
