#!/usr/bin/env bash
# tests/bench/check_modes.sh - what each bug-finding check costs (issue 32):
# one correct program run by simtarget-check with one mode at a time
# (`--only MODE`), and with SIMDEVICE_VALGRIND=drd, which the tool does not
# run; the wall time of each (median of BENCH_CHECK_RUNS, default 3) and its
# ratio to the plain run's. Modes are interleaved within a round. Run by
# `make bench` (tests/bench.sh); alone: tests/bench/check_modes.sh.
#   BENCH_CHECK_PROGRAM  the program (default tests/programs/teams_reduction.c:
#                        a 100000-element reduction over 4 teams, then a few
#                        small regions), built with clang 19 at -O1 -g
set -eu
cd "$(dirname "$0")/../.."
runs=${BENCH_CHECK_RUNS:-3}
src=${BENCH_CHECK_PROGRAM:-tests/programs/teams_reduction.c}
out=build/bench/check_modes
mkdir -p "$out"
bin=$out/$(basename "${src%.*}")
if ! build/bin/simtarget-clang --clang 19 -O1 -g -gdwarf-4 -I tests/programs "$src" -o "$bin" \
     >"$bin.log" 2>&1; then
  echo "check modes benchmark skipped: $src did not compile with clang 19 ($bin.log)"
  exit 0
fi
modes="plain stale stale-memcheck memcheck helgrind drd"
command -v valgrind >/dev/null || modes="plain stale"

# run MODE: one timed run (seconds on stdout); a run that fails or finds a
# bug in this correct program stops the benchmark (its figure would lie).
run() {
  local t0 t1 rc
  t0=$(date +%s.%N)
  if [ "$1" = drd ]; then
    SIMDEVICE_VALGRIND=drd OMP_TARGET_OFFLOAD=mandatory "$bin" >"$out/$1.out" 2>&1; rc=$?
  else
    build/bin/simtarget-check --only "$1" "$bin" >"$out/$1.out" 2>&1; rc=$?
  fi
  t1=$(date +%s.%N)
  if [ $rc != 0 ]; then
    echo "check modes benchmark: the $1 run exited $rc ($out/$1.out)" >&2
    return 1
  fi
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

declare -A times
for _ in $(seq 1 "$runs"); do
  for m in $modes; do
    times[$m]="${times[$m]:-} $(run "$m")" || exit 1
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
plain=$(echo "${times[plain]}" | median)
echo "check modes: $src (clang 19, -O1 -g), median of $runs runs; simtarget-check --only MODE (drd: SIMDEVICE_VALGRIND=drd alone)"
printf '  %-16s %9s %9s\n' mode wall "vs plain"
for m in $modes; do
  t=$(echo "${times[$m]}" | median)
  printf '  %-16s %7.2f s %8.1fx\n' "$m" "$t" "$(awk -v a="$t" -v b="$plain" 'BEGIN { print a / b }')"
done
