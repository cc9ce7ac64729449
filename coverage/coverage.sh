#!/bin/bash
# coverage/coverage.sh - `make coverage`: builds an instrumented copy of
# everything in build/cov/ (gcc --coverage, -O0), runs the unit, ABI and
# simdevice tests, the fault sweep and the clang programs against it, and
# writes an lcov HTML report to coverage/html for src/ and simdevice/.
# Prints the line and branch figures; fails when the line coverage of src/
# is below the floor in coverage/floor (raise it as tests grow).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
COV=build/cov
FLOOR=$(cat coverage/floor)
command -v lcov >/dev/null || { echo "coverage.sh: lcov is not installed (apt-get install lcov)"; exit 2; }
find "$COV" -name '*.gcda' -delete 2>/dev/null
# -u __gcov_dump: the fatal-error path ends with _exit and dumps the counters
# itself (src/report.c); the weak reference alone would not link it in.
make --no-print-directory B=$COV CC="gcc --coverage" CFLAGS="-O0 -g" LIB_LDFLAGS="-Wl,-u,__gcov_dump" \
  all testbins >"$COV.build.log" 2>&1 || { tail -20 "$COV.build.log"; exit 2; }
for t in $COV/tests/unit/test_* $COV/tests/abi/test_* $COV/tests/simdevice/test_*; do
  [ -x "$t" ] && timeout 300 "$t" >/dev/null 2>&1
done
FAULTS_LIBDIR=$ROOT/$COV/lib tests/faults.sh >"$COV.faults.log" 2>&1
. build/toolchains/env.sh
for bin in build/programs/19/*; do
  [ -x "$bin" ] && [ -f "$bin.cmd" ] || continue
  (cd build/programs/19 && LD_LIBRARY_PATH=$ROOT/$COV/lib:$TC_HOSTLIB_19 OMP_TARGET_OFFLOAD=mandatory \
    timeout 60 "$ROOT/$bin" >/dev/null 2>&1)
  # the nowait programs again, each construct waiting in its task
  case $bin in
    */nowait_*) (cd build/programs/19 && SIMTARGET_NOWAIT=wait \
      LD_LIBRARY_PATH=$ROOT/$COV/lib:$TC_HOSTLIB_19 OMP_TARGET_OFFLOAD=mandatory \
      timeout 60 "$ROOT/$bin" >/dev/null 2>&1) ;;
  esac
done
lcov -q --rc lcov_branch_coverage=1 --capture --directory $COV/obj --base-directory "$ROOT" \
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
  echo "coverage of src/ lines ${pct:-unknown}% is below the floor $FLOOR%"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "1 passed, 0 failed"
