#!/usr/bin/env bash
# The test runner behind `make check`: every test executable under
# build/tests/*/ (CMocka units, ABI drivers, simdevice drivers), then the
# suites with their own scripts (device runtime, clang-compiled programs).
# Ends with the summary line "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
passed=0 failed=0 skipped=0
failures=() timings=()
log_dir=build/test-logs
mkdir -p "$log_dir"

# A CMocka executable counts its test cases (passed, failed, skipped, from
# its summary lines, over every group it runs); any other executable counts
# as one, skipped when it exits 77 (automake's "skipped"). A non-zero exit
# with no failed case reported (a crash, an assertion in a group setup) is
# one more failure.
run_one() { # name, command...
  local name=$1; shift
  local log="$log_dir/${name//\//_}.log" rc p f s
  timeout 300 "$@" >"$log" 2>&1
  rc=$?
  if grep -q '^\[==========\] .* test(s) run\.' "$log"; then
    p=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) test.*/\1/p' "$log" | awk '{n += $1} END {print n + 0}')
    f=$(sed -nE 's/^\[  FAILED  \] ([0-9]+) test.*/\1/p' "$log" | awk '{n += $1} END {print n + 0}')
    s=$(sed -nE 's/^\[  SKIPPED \] ([0-9]+) test.*/\1/p' "$log" | awk '{n += $1} END {print n + 0}')
  elif [ $rc -eq 77 ]; then
    p=0 f=0 s=1 rc=0
  else
    p=1 f=0 s=0
    [ $rc -eq 0 ] || p=0
  fi
  [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  if [ "$f" -eq 0 ]; then
    local note="$p passed"
    [ "$s" -eq 0 ] || note="$note, $s skipped"
    echo "ok    $name ($note)"
  else
    failures+=("$name"); echo "FAIL  $name (exit $rc, $f failed; log: $log)"
    tail -n 15 "$log" | sed 's/^/      /'
  fi
}

# A suite script prints its own "N passed, N failed[, N skipped]" last.
# SUITE_TIMEOUT (seconds, default 900) bounds one suite.
run_suite() { # name, script, arguments...
  local name=$1 script=$2
  shift 2
  local log="$log_dir/$name.log"
  # A suite whose script is gone (deleted, renamed, not executable) must not
  # vanish from the count: it is a failure.
  if [ ! -x "$script" ]; then
    echo "FAIL  $name (no executable $script)"
    failed=$((failed + 1)); failures+=("$name (no executable $script)")
    return
  fi
  local start=$SECONDS
  timeout "${SUITE_TIMEOUT:-900}" "$script" "$@" 2>&1 | tee "$log" | grep -Ev '^(ok|PASS|xfail|llvm-fail)' | tail -n 40
  timings+=("$(printf '%5d s  %s' $((SECONDS - start)) "$name")")
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  if [ -z "$line" ]; then
    failed=$((failed + 1)); failures+=("$name (no summary line)")
    return
  fi
  local p f s
  p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
  f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${s:-0}))
  [ "$f" -eq 0 ] || failures+=("$name ($f failed)")
}

for t in build/tests/unit/test_* build/tests/abi/test_* build/tests/simdevice/test_* build/tests/cuda/test_*; do
  [ -x "$t" ] || continue
  run_one "${t#build/tests/}" "$t"
done
# The layer gate: no object file calls a layer above its own (src/LAYERS
# and the LAYERS files of the plugins and the device process; issue 27).
run_suite layers tests/layers.sh
# The image parsers under libFuzzer for a moment: the fuzz target builds and
# the seed corpus (every rejection path) runs clean under AddressSanitizer.
run_one "fuzz/fuzz_images (2000 inputs)" make --no-print-directory fuzz FUZZ_RUNS=2000
run_suite runtime simdevice/runtime/tests/run.sh
run_suite entry_points tests/simdevice/entry_points.sh
# a cold build compiles about 1,200 binaries
SUITE_TIMEOUT=1500 run_suite programs tests/programs.sh
run_suite traces tests/traces.sh
# simtarget-maps (sanitized) on mutated traces: no crash, every error a line
run_suite traces_fuzz tests/traces_fuzz.sh
# OMPT for offload: the events a tool receives, checked, against expected
# sequences and against LLVM 14's and 19's own runtimes (tests/ompt.sh)
run_suite ompt tests/ompt.sh
# The lessons in tutorials/: each program's output as the lesson text says.
run_suite lessons tests/lessons.sh
# SIMTARGET_CHECK=stale: its bug programs found with every finding they
# expect, the correct programs and lessons clean, the memcheck marking
run_suite check_stale tests/check_stale.sh
# LIBOMPTARGET_PROFILE files, their SVG rendering in headless chromium
run_suite timeline tests/timeline.sh
# the teachers' tool on folders of good and bad student programs
run_suite grade tests/grade.sh
# simtarget-check on programs with known bugs and correct ones (tests/check/)
run_suite check tests/check.sh
# The differential corpus: every program LLVM's runtime runs correctly runs
# correctly on simtarget (tests/diff/README.md). A cold build compiles about
# 900 binaries, hence the longer bound.
SUITE_TIMEOUT=1500 run_suite diff tests/programs.sh --diff
run_suite faults tests/faults.sh
# remote simdevice devices over Open MPI, several ranks on this machine
# (skipped, counted, where mpirun is absent)
run_suite mpi tests/mpi.sh
# SIMDEVICE_VALGRIND: bug programs reported with variable and line under
# memcheck, helgrind and drd; correct programs clean (about 3 minutes)
run_suite valgrind_check tests/valgrind_check.sh
# SIMTARGET_RECORD and simtarget-replay: programs recorded and replayed
run_suite replay tests/replay.sh
run_suite coverage coverage/coverage.sh

# Where the time went (CI's budget: make check under 20 minutes).
echo "time per suite:"; printf '  %s\n' "${timings[@]}"
echo "  $SECONDS s in all"
if [ ${#failures[@]} -gt 0 ]; then
  echo "failed:"; printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
