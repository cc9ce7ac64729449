#!/bin/bash
# coverage/coverage.sh - `make coverage`: builds an instrumented copy of
# everything in build/cov/ (gcc --coverage, -O0), runs the unit, ABI and
# simdevice tests, the fault sweep and the clang programs against it, and
# writes an lcov HTML report to coverage/html for src/ and simdevice/.
# Prints the line and branch figures. Each instrumented run counts as a
# test (the programs with their expectations checked by programs.sh), and so
# does the floor: the line coverage of src/ against coverage/floor (raise it
# as tests grow). Ends with "N passed, N failed"; exits 1 if any failed.
# --build: only the instrumented build (make check starts it early, beside
# entry_points and the program corpus; the run's own make then has nothing
# left to do, and says why if that early build failed).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
COV=build/cov
FLOOR=$(cat coverage/floor)
command -v lcov >/dev/null || { echo "coverage.sh: lcov is not installed (apt-get install lcov)"; exit 2; }
find "$COV" -name '*.gcda' -delete 2>/dev/null
passed=0 failed=0
failures=()
# count NAME STATUS: the instrumented runs are tests too; one that fails
# fails this suite, whatever the coverage figure.
count() {
  [ "$2" -eq 77 ] && return # skipped (e.g. test_setuid, which needs the main build)
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); return; fi
  failed=$((failed + 1)); failures+=("$1 (exit $2)")
  # The failed item and the lines of its log that say what failed.
  echo "FAIL  $1 (exit $2)${3:+: $(grep -m2 -E '^FAIL|\[  FAILED  \]' "$3" | cut -c1-160 | paste -sd'|')}"
}
# -u __gcov_dump: the fatal-error path ends with _exit and dumps the counters
# itself; the weak reference alone would not link it in.
make -j"$(nproc)" --no-print-directory B=$COV CC="gcc --coverage" CFLAGS="-O0 -g" LIB_LDFLAGS="-Wl,-u,__gcov_dump" \
  all testbins >"$COV.build.log" 2>&1 || { tail -20 "$COV.build.log"; echo "0 passed, 1 failed"; exit 1; }
[ "${1:-}" != --build ] || exit 0
for t in $COV/tests/unit/test_* $COV/tests/abi/test_* $COV/tests/simdevice/test_*; do
  [ -x "$t" ] || continue
  timeout 300 "$t" >"$t.cov.log" 2>&1
  count "${t#$COV/tests/}" $? "$t.cov.log"
done
# The fault sweep beside the corpus runs below: it is mostly one program at
# a time, and each process adds its counts to the .gcda files under a lock.
FAULTS_LIBDIR=$ROOT/$COV/lib tests/faults.sh >"$COV.faults.log" 2>&1 &
faults_pid=$!
# The program corpus with its expectations checked, each program with the
# one clang of CORPUS_CLANGS make check's programs suite builds it with (its
# binaries: none is compiled twice), then the nowait ones again with each
# construct waiting in its task.
corpus=(--versions "${CORPUS_CLANGS:-14 16 19 22}" --spread)
PROGRAMS_LIBDIR=$ROOT/$COV/lib tests/programs.sh "${corpus[@]}" >"$COV.programs.log" 2>&1
count "programs.sh (log: $COV.programs.log)" $? "$COV.programs.log"
# The golden traces on clang 19: the trace writer runs only under
# SIMTARGET_TRACE.
TRACES_LIBDIR=$ROOT/$COV/lib tests/traces.sh --versions 19 >"$COV.traces.log" 2>&1
count "traces.sh (log: $COV.traces.log)" $? "$COV.traces.log"
# LIBOMPTARGET_PROFILE: the profile writer runs only under it.
TIMELINE_LIBDIR=$ROOT/$COV/lib tests/timeline.sh --versions 19 >"$COV.timeline.log" 2>&1
count "timeline.sh (log: $COV.timeline.log)" $? "$COV.timeline.log"
# OMPT: its events are raised only with a tool attached.
OMPT_LIBDIR=$ROOT/$COV/lib tests/ompt.sh --versions 19 >"$COV.ompt.log" 2>&1
count "ompt.sh (log: $COV.ompt.log)" $? "$COV.ompt.log"
SIMTARGET_NOWAIT=wait PROGRAMS_LIBDIR=$ROOT/$COV/lib tests/programs.sh "${corpus[@]}" \
  tests/programs/nowait_*.c >"$COV.programs-wait.log" 2>&1
count "programs.sh, SIMTARGET_NOWAIT=wait (log: $COV.programs-wait.log)" $? "$COV.programs-wait.log"
wait $faults_pid
count "faults.sh (log: $COV.faults.log)" $? "$COV.faults.log"
# obj-test/: the unit tests' objects and the server with test hooks
# (-DSIMTARGET_TEST_HOOKS), counted with the shipped objects' runs.
lcov -q --rc lcov_branch_coverage=1 --capture --directory $COV/obj --directory $COV/obj-test --base-directory "$ROOT" \
  --output-file $COV/all.info >/dev/null 2>&1
lcov -q --rc lcov_branch_coverage=1 --extract $COV/all.info "$ROOT/src/*" "$ROOT/simdevice/*" \
  --output-file $COV/cov.info >/dev/null 2>&1
lcov -q --rc lcov_branch_coverage=1 --extract $COV/all.info "$ROOT/src/*" --output-file $COV/src.info >/dev/null 2>&1
rm -rf coverage/html
genhtml -q --branch-coverage --output-directory coverage/html $COV/cov.info >/dev/null 2>&1
echo "src/ and simdevice/:"
lcov --rc lcov_branch_coverage=1 --summary $COV/cov.info 2>&1 | grep -E 'lines|branches'
echo "src/:"
summary=$(lcov --rc lcov_branch_coverage=1 --summary $COV/src.info 2>&1 | grep -E 'lines|branches')
echo "$summary"
pct=$(echo "$summary" | sed -n -E 's/.*lines[^:]*: *([0-9.]+)%.*/\1/p')
echo "report: coverage/html/index.html; floor for src/ lines: $FLOOR%"
if [ -z "$pct" ] || awk -v p="$pct" -v f="$FLOOR" 'BEGIN { exit !(p < f) }'; then
  count "coverage of src/ lines ${pct:-unknown}% against the floor $FLOOR%" 1
else
  count "coverage floor" 0
fi
if [ ${#failures[@]} -gt 0 ]; then
  echo "failed:"; printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
