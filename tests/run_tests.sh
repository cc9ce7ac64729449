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
touch "$log_dir/.started"

# The suites start python3 thousands of times. Where python3 is a version
# manager's shim (pyenv), every start first runs the shim's bash scripts:
# 10 starts took 4.2-5.9 s, against 0.8 s for the interpreter it chose. The
# suites get that same interpreter (its packages, its version) directly.
python_dir=$(python3 -c 'import os, sys; print(os.path.dirname(sys.executable))' 2>/dev/null)
[ -z "$python_dir" ] || [ "$(command -v python3)" = "$python_dir/python3" ] ||
  PATH=$python_dir:$PATH

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
# SUITE_TIMEOUT (seconds, default 900) bounds one suite. suite_start runs
# one in the background (its output only in its log), suite_finish waits
# for it, shows its log's lines that are not passes and counts its summary:
# two suites whose work is one thread each (Valgrind) share the two cores.
declare -A suite_pid suite_t0
# cpu_of FILE: the children's CPU time (user + system) in `times`'s output
# FILE, in whole seconds.
cpu_of() {
  tail -n 1 "$1" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t }'
}
# cpu_now: sets cpu_used to the CPU time of every child reaped so far.
# `times` must run in this shell: in a $(...) subshell it counts the
# subshell's children (none).
cpu_now() {
  times >"$log_dir/.times"
  cpu_used=$(cpu_of "$log_dir/.times")
}
suite_start() { # name, script, arguments...
  local name=$1 script=$2
  shift 2
  suite_t0[$name]=$SECONDS
  # A suite whose script is gone (deleted, renamed, not executable) must not
  # vanish from the count: it is a failure.
  if [ ! -x "$script" ]; then
    suite_pid[$name]=""
    return
  fi
  # The subshell's `times`: the suite's own CPU time (its processes that
  # were waited for), whatever runs beside it.
  rm -f "$log_dir/$name.times"
  ( timeout "${SUITE_TIMEOUT:-900}" "$script" "$@" >"$log_dir/$name.log" 2>&1
    rc=$?; times >"$log_dir/$name.times"; exit $rc ) &
  suite_pid[$name]=$!
}
suite_finish() { # name
  local name=$1 log="$log_dir/$1.log"
  if [ -z "${suite_pid[$name]}" ]; then
    echo "FAIL  $name (no executable script)"
    failed=$((failed + 1)); failures+=("$name (no executable script)")
    return
  fi
  wait "${suite_pid[$name]}"
  timings+=("$(printf '%5d s  %-16s cpu %5d s' $((SECONDS - suite_t0[$name])) "$name" "$(cpu_of "$log_dir/$name.times" 2>/dev/null)")")
  grep -Ev '^(ok|PASS|xfail|llvm-fail)' "$log" | tail -n 40
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
  # The failed items themselves: CI keeps only the end of the output.
  local what
  what=$(grep -m3 -E '^FAIL' "$log" | cut -c1-200 | sed 's/^/      /')
  [ "$f" -eq 0 ] || failures+=("$name ($f failed)${what:+
$what}")
}
run_suite() { # name, script, arguments...: in the foreground
  suite_start "$@"
  suite_finish "$1"
}

# The clangs of make check (CI's budget is 20 minutes on 2 cores): each ABI
# era (13-15, 16-18, 19-21, 22) once at least. A compile is about 8
# processes that each load libLLVM, and the corpora are most of make
# check's time, so no program is compiled twice with one clang: the program
# corpus each program with one of CORPUS_CLANGS, 14 16 19 22
# (programs.sh --spread), whose binaries check_stale and the coverage suite
# run too (each run's output beside them, so one after another); clang 19's
# golden traces, profiles and OMPT runs are the coverage suite's (on the
# instrumented build, every expectation judged as here), the others run
# here. The coverage suite runs beside the last suites, none of which runs
# the binaries it runs (build/programs/, build/traces/19, ...). The
# differential corpus with clang 14 against LLVM 14's own runtime, and
# with 19 against LLVM 19's the programs of newer OpenMP that clang 14
# cannot compile (clang 22 has no LLVM runtime to differ from; make
# check-full runs it). The checks' bug programs with two. CHECK_FULL=1
# (make check-full): the program corpus with every usable clang, every one
# but 19 for the traces here (19 in the coverage suite), every clang in the
# differential corpus, and the fault sweep on the optimised build too (make
# check runs it on the coverage build).
export CORPUS_CLANGS=${CORPUS_CLANGS:-14 16 19 22}
if [ "${CHECK_FULL:-0}" = 1 ]; then
  tests/toolchains.sh -q >/dev/null 2>&1
  # shellcheck disable=SC1091
  [ -f build/toolchains/env.sh ] && . build/toolchains/env.sh
  all_but_19=$(for n in ${TOOLCHAINS_USABLE:-}; do [ "$n" = 19 ] || printf '%s ' "$n"; done)
  corpus_clangs=(--versions "${TOOLCHAINS_USABLE:-}") traces_clangs=(--versions "$all_but_19") diff_clangs=()
else
  corpus_clangs=(--versions "$CORPUS_CLANGS" --spread)
  traces_clangs=(--versions "${TRACES_CLANGS:-14 22}")
  diff_clangs=(--versions "${DIFF_CLANGS:-14 19}" --first-of)
  export CHECK_VERSIONS=${CHECK_VERSIONS:-19 22} STALE_VERSIONS=${STALE_VERSIONS:-19 22}
  # the lessons' programs on LLVM 19's runtime (check-full: 14's too)
  export LESSONS_LLVM=${LESSONS_LLVM:-19}
  # the fault sweep (in the coverage suite): a site reached more than 3
  # times in a program is failed at its first, middle and last call
  # (check-full: all of the first 6, else 6 of them; tests/faults.sh)
  export SWEEP_ALL_UP_TO=${SWEEP_ALL_UP_TO:-3}
fi
timeline_clangs=(--versions "14 22") ompt_clangs=(--versions "14 14@19")
# simtarget-replay: an era each (make check-full: every usable clang)
replay_clangs=(--versions "14 16 19 22")
[ "${CHECK_FULL:-0}" != 1 ] || replay_clangs=()

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
# The coverage suite's instrumented build, now, beside entry_points (one
# thread) and the program corpus's compiles (niced): the suite's own make,
# later, finds it built. Not beside the test executables and the device
# runtime's tests, some of which time themselves (t_dynamic failed beside
# it once).
nice -n 10 coverage/coverage.sh --build >/dev/null 2>&1 &
cov_build=$!
run_suite entry_points tests/simdevice/entry_points.sh
# about 130 binaries from scratch (about 600 with every usable clang)
SUITE_TIMEOUT=1500 run_suite programs tests/programs.sh "${corpus_clangs[@]}"
# The differential corpus: every program LLVM's runtime runs correctly runs
# correctly on simtarget (tests/diff/README.md). A cold build compiles about
# 170 binaries (900 with every clang), hence the longer bound.
SUITE_TIMEOUT=1500 run_suite diff tests/programs.sh --diff "${diff_clangs[@]}"
[ "${CHECK_FULL:-0}" != 1 ] || run_suite faults tests/faults.sh
# simtarget where only root may enter, under programs that drop to nobody
run_suite private_install tests/private_install.sh
run_suite traces tests/traces.sh "${traces_clangs[@]}"
# simtarget-maps (sanitized) on mutated traces: no crash, every error a
# line (one thread: beside the next two, whose files are their own). Each
# seed's mutants are the same every run, so make check runs the first 5 of
# its 15 (about a minute less); make check-full all 15.
if [ "${CHECK_FULL:-0}" = 1 ]; then suite_start traces_fuzz tests/traces_fuzz.sh
else suite_start traces_fuzz tests/traces_fuzz.sh --mutants 5; fi
# SIMTARGET_CHECK=stale: its bug programs found with every finding they
# expect, the program corpus (its binaries: before the coverage suite) and
# lessons clean, the memcheck marking (mostly one thread: beside
# traces_fuzz and the next two, whose files are their own)
suite_start check_stale tests/check_stale.sh
# OMPT for offload: the events a tool receives, checked, against expected
# sequences and against LLVM 14's and 19's own runtimes, and clang 14's
# programs on libomp 19 (tests/ompt.sh; clang 19's in the coverage suite)
run_suite ompt tests/ompt.sh "${ompt_clangs[@]}"
# The lessons in tutorials/: each program's output as the lesson text says.
run_suite lessons tests/lessons.sh
suite_finish traces_fuzz
suite_finish check_stale
# The instrumented build (built beside entry_points): the unit tests, the fault
# sweep (make check's only one) beside the program corpus and clang 19's
# traces, profiles and OMPT. No suite beside it runs its binaries (above);
# its device processes are build/cov/lib's. It runs beside the rest, mostly
# one-thread suites. (Beside every suite from the differential corpus on,
# with the mpi suite too, the load on 2 CPUs passed 9 and a warm make check
# took 1335 s instead of 1269 s.)
wait "$cov_build"
suite_start coverage coverage/coverage.sh
# remote simdevice devices over Open MPI, several ranks on this machine
# (skipped, counted, where mpirun is absent). It runs the differential
# corpus's binaries (the diff suite ran before) on its own copy of
# build/lib, whose device processes are the only ones its leftover check
# looks at. It starts with the coverage suite: started after grade, it
# ended last, a minute after everything else. make check: its corpus with
# clang 19 and a third of the differential corpus (its whole time was 12
# minutes of a cold make check's 33, beside others); make check-full:
# clang 19 and 14, and all.
if [ "${CHECK_FULL:-0}" = 1 ]; then suite_start mpi tests/mpi.sh
else MPI_DIFF_SAMPLE=3 suite_start mpi tests/mpi.sh --versions 19; fi
# SIMTARGET_RECORD and simtarget-replay: programs recorded and replayed
# (beside the coverage suite and the next two, whose files are their own)
suite_start replay tests/replay.sh "${replay_clangs[@]}"
# LIBOMPTARGET_PROFILE files, their SVG rendering in headless chromium
run_suite timeline tests/timeline.sh "${timeline_clangs[@]}"
# the teachers' tool on folders of good and bad student programs
run_suite grade tests/grade.sh
suite_finish replay
# simtarget-check on programs with known bugs and correct ones
# (tests/check/; mostly Valgrind, one thread: beside valgrind_check)
suite_start check tests/check.sh
# SIMDEVICE_VALGRIND: bug programs reported with variable and line under
# memcheck, helgrind and drd (make check: each with one of clang 14 and 19,
# a Valgrind run is 5-18 s; make check-full: both); correct programs clean
if [ "${CHECK_FULL:-0}" = 1 ]; then run_suite valgrind_check tests/valgrind_check.sh
else run_suite valgrind_check tests/valgrind_check.sh --spread; fi
suite_finish check
suite_finish coverage
suite_finish mpi

# LLVM's runtime (the oracle's runs) writes each device image it loads to
# /tmp/tmpfile_XXXXXX, whatever TMPDIR says, and never removes it: about
# 2,000 files a run. Those this run made go; the count is shown.
llvm_left=$(find /tmp -maxdepth 1 -name 'tmpfile_??????' -user "$(id -u)" \
  -newer "$log_dir/.started" -print -delete 2>/dev/null | wc -l)
echo "removed $llvm_left device images LLVM's runtime left in /tmp"

# Where the time went (CI's budget: make check under 20 minutes).
echo "time per suite:"; printf '  %s\n' "${timings[@]}"
cpu_now
echo "  $SECONDS s in all, cpu $cpu_used s (on $(nproc) CPUs)"
if [ ${#failures[@]} -gt 0 ]; then
  echo "failed:"; printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
