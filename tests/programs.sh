#!/bin/bash
# tests/programs.sh - compile every program in tests/programs/ with every
# usable clang and run it against simtarget (or, with --llvm, against that
# clang's own LLVM runtime, to check the programs themselves).
#
# Usage: tests/programs.sh [--llvm | --diff] [--versions "13 19"] [--first-of | --spread] [--device=ppc64le] [-j N] [PROGRAM.c | DIR ...]
#
# --first-of: each program with only the first of the --versions it is for
# (make check's differential corpus: "14 19", clang 19 for the programs of
# newer OpenMP that clang 14 cannot compile).
# --spread: each program with one of the --versions, the first it is for
# from a place in the list that its file name's checksum picks, so that
# each clang gets about its share of the programs, the same ones every run
# (make check's program corpus: "16 22").
# --diff: the differential corpus (tests/diff/<family>/, or the programs and
# folders named). Each (program, clang) runs on that clang's own LLVM runtime
# (none exists for 22) and on simtarget, and the rule is: what LLVM's runtime
# runs correctly, simtarget runs correctly. A program LLVM fails is reported
# as "llvm-fail" (skipped, not a simtarget failure; but simtarget crashing
# the host process on it is a failure). A negative program
# (simtarget-only, expect-exit not 0) must fail on simtarget with its message;
# LLVM's result is only shown for it. LLVM's verdict is cached per binary
# (build/diff/<N>/<family>/<prog>.llvm, keyed by the binary's hash).
#
# Each program states what it expects in comment lines near its top:
#   versions: 19 22        compile only with these clang versions
#   spread-versions: 19 22 (--spread) pick among these of --versions: the
#                          clangs that run all of the program (the others
#                          leave out what their LLVM lacks)
#   cflags: -fopenmp-version=51
#   expect-exit: 1         exit status wanted (default 0)
#   expect-stderr: REGEX   extended regex (case-insensitive) stderr must match
#   expect-stderr-not: REGEX  stderr must not match it
#   expect-stdout: REGEX   default for exit 0: a line "PASS"
#   simtarget-only         the expectation needs a separate device address
#                          space; skipped with --llvm
#   expect: TEXT           what the program checks, shown when it fails
#   stale-expect: RULE VAR N  under SIMTARGET_CHECK=stale the program has
#                          N findings of RULE (tests/check_stale.sh)
#   repeat: N              run it N times, each run must pass (races that
#                          show in some runs only)
#   env: VAR=VALUE ...     environment of the run (simtarget's own settings,
#                          e.g. SIMDEVICE_NUM_DEVICES=2; split at spaces)
#   xfail: [13 14:] CAUSE  (--diff) a known simtarget bug, for the clangs
#                          listed (all without a list); several lines allowed.
#                          Failing is reported as xfail (skipped); passing as
#                          XPASS, a failure, so the mark goes when the fix lands
#
# --device=ppc64le (or PROGRAMS_DEVICE=ppc64le): compile the device code
# for ppc64le (build/bin/simtarget-config's flags per clang) and run it on
# the ppc64le device, under qemu on x86-64 (tests/ppc64le/device.sh).
# Binaries go to build/programs-ppc64le/; the run's SIMDEVICE_NUM_DEVICES
# and SIMDEVICE_SERVER become the ppc64le plugin's variables. A program
# that cannot work there says why in a header field:
#   ppc64le-skip: CAUSE    (x86-only assembly, long double, ...)
#
# PROGRAMS_HOST_LIBOMP=system runs the host side on the system libomp.so.5
# (LLVM 14) instead of each clang's own libomp. PROGRAMS_LIBDIR replaces
# build/lib as the simtarget under test (coverage.sh: the instrumented one).
# Another architecture (tests/ppc64le/check.sh): PROGRAMS_ENV_SH names the
# toolchain file to use instead of tests/toolchains.sh's, PROGRAMS_OUT the
# binaries' folder, PROGRAMS_RUNNER the emulator each binary runs under.
# PROGRAMS_SIMTARGET_RUNNER: a command only the runs on simtarget go under
# (tests/mpi.sh: tests/mpi/remote_run.sh, the devices in MPI ranks); the
# runs on LLVM's runtime (--llvm, and --diff's LLVM verdicts) do not.
# PROGRAMS_SKIP_FIELD=NAME: a program with a comment line "NAME: CAUSE" is
# skipped with that cause (tests/mpi.sh: mpi-skip, what a remote device
# cannot do, such as host or shared memory; written as the file's last line,
# so that no line number that other expectations name moves).
#
# Binaries are cached in build/programs/<N>/ (--diff: build/diff/<N>/<family>/) and rebuilt only when the
# program, check.h or the flags change; compile logs sit next to them
# (.log), and the last run's output too (.out, .err).
# Prints one line per (program, version) and "N passed, N failed, N skipped";
# exits 1 if any failed, 2 when it cannot run at all.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROGDIR="$ROOT/tests/programs"
DIFFDIR="$ROOT/tests/diff"
for a in "$@"; do
  case $a in --device=*) PROGRAMS_DEVICE=${a#--device=} ;; esac
done
export PROGRAMS_DEVICE=${PROGRAMS_DEVICE:-x86_64}
case $PROGRAMS_DEVICE in
  x86_64) DEVSUFFIX="" ;;
  ppc64le) DEVSUFFIX="-ppc64le" ;;
  *) echo "programs.sh: unknown device $PROGRAMS_DEVICE (x86_64 or ppc64le)" >&2; exit 2 ;;
esac
OUT=${PROGRAMS_OUT:-$ROOT/build/programs$DEVSUFFIX}
DIFFOUT="$ROOT/build/diff$DEVSUFFIX"
LIBDIR=${PROGRAMS_LIBDIR:-$ROOT/build/lib}
ENV_SH=${PROGRAMS_ENV_SH:-$ROOT/build/toolchains/env.sh}
RUNNER=${PROGRAMS_RUNNER:-}
SIM_RUNNER=${PROGRAMS_SIMTARGET_RUNNER:-}
RUN_TIMEOUT=${PROGRAMS_TIMEOUT:-60}

# ---------------------------------------------------------------- headers
# header_field, has_marker, load_expectations, run_judged, libpath_for:
# shared with the teachers' tool tools/simtarget-grade (judge.sh).
# shellcheck disable=SC1091
. "$ROOT/tools/simtarget-grade/judge.sh"

# xfail_for SRC N: the cause of the first "xfail:" line that covers clang-N
# ("xfail: 13 14: cause" covers those two, "xfail: cause" every clang).
xfail_for() {
  local line
  while IFS= read -r line; do
    if [[ $line =~ ^([0-9][0-9 ]*):[[:space:]]*(.*)$ ]]; then
      [[ " ${BASH_REMATCH[1]} " == *" $2 "* ]] && { echo "${BASH_REMATCH[2]}"; return; }
    else
      echo "$line"; return
    fi
  done < <(sed -n -E "s@^[[:space:]/*]*xfail:[[:space:]]*(.*[^[:space:]*/])[[:space:]*/]*\$@\\1@p" "$1")
}

# bin_path SRC N: where clang-N's binary of SRC is cached.
bin_path() {
  local src=$1 name
  name=$(basename "$src")
  case $src in
    "$DIFFDIR"/*) echo "$DIFFOUT/$2/$(basename "$(dirname "$src")")/${name%.*}" ;;
    *) echo "$OUT/$2/${name%.*}" ;;
  esac
}

# ---------------------------------------------------------------- compile
# compile_one SRC N: build build/programs/N/<name> if it is out of date.
# Prints nothing; the log tells what happened. Exit status = compiler's.
compile_one() {
  local src=$1 n=$2 cc flags extra bin
  # shellcheck disable=SC1090
  . "$ENV_SH"
  bin=$(bin_path "$src" "$n")
  eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n"
  extra=$(header_field "$src" cflags)
  case $src in *.cpp) cc=${cc/clang-/clang++-}; extra="$extra -lstdc++" ;; esac
  if [ "$PROGRAMS_DEVICE" = ppc64le ]; then
    flags=${flags/-fopenmp-targets=x86_64-pc-linux-gnu/}
    flags="$("$ROOT/build/bin/simtarget-config" --cflags --device=ppc64le --cc="$cc") ${flags/-fopenmp /}"
  fi
  # --allow-shlib-undefined: GNU ld (clang's default) otherwise checks
  # every undefined symbol of the libraries a program links, through their
  # own dependencies: LLVM's libomptarget brings libLLVM, and that check
  # was 0.45 s of a 0.9 s compile (clang 22, teams_reduction.c), the half
  # of make check's cold compiles. The program runs the same: the link
  # only stops exporting the executable's _end, _edata and __bss_start,
  # which no library here imports. tests/traces.sh links so too; every
  # other suite links as users do.
  local cmd="$cc $flags -O1 -Wl,--allow-shlib-undefined -I$PROGDIR $extra $src -o $bin"
  # A program may #include another of its folder (the same program at
  # another -O level): that file is a dependency too.
  local dep fresh=1
  for dep in "$src" "$PROGDIR/check.h" $(sed -n -E 's/^#include "([^"]+)"/\1/p' "$src"); do
    case $dep in /*) ;; *) dep="$(dirname "$src")/$dep" ;; esac
    [ -e "$dep" ] && ! [ "$bin" -nt "$dep" ] && fresh=0
  done
  if [ -x "$bin" ] && [ $fresh = 1 ] && [ "$(cat "$bin.cmd" 2>/dev/null)" = "$cmd" ]; then
    return 0
  fi
  mkdir -p "$(dirname "$bin")"
  rm -f "$bin" "$bin.cmd"
  echo "$cmd" >"$bin.log"
  if $cmd >>"$bin.log" 2>&1; then
    echo "$cmd" >"$bin.cmd"
    return 0
  fi
  return 1
}


# run_simtarget BIN N LOG: run_judged on simtarget, under SIM_RUNNER too.
run_simtarget() {
  RUNNER="${RUNNER:+$RUNNER }$SIM_RUNNER" run_judged "$1" "$(libpath_for "$2" simtarget)" "$3"
}

# llvm_verdict SRC N BIN: "pass" or the reason LLVM's runtime fails the
# program, cached in BIN.llvm under the binary's hash and the expectations.
llvm_verdict() {
  local bin=$3 key libpath
  libpath=$(libpath_for "$2" llvm)
  key="$(sha1sum <"$bin" | cut -d' ' -f1) $libpath $want_exit $want_out $want_err $repeat ${run_env[*]+${run_env[*]}}"
  if [ -f "$bin.llvm" ] && [ "$(head -1 "$bin.llvm")" = "$key" ]; then
    tail -n +2 "$bin.llvm"
    return
  fi
  run_judged "$bin" "$libpath" "$bin.llvm"
  printf '%s\n%s\n' "$key" "${reason:-pass}" >"$bin.llvm"
  echo "${reason:-pass}"
}

# diff_one SRC N: one (program, clang) of the differential corpus; prints
# one line "KIND NAME clang-N[: why]", KIND = ok FAIL skip xfail llvm-fail.
diff_one() {
  local src=$1 n=$2 bin name llvm xfail negative=0
  # shellcheck disable=SC1090
  . "$ENV_SH"
  name="$(basename "$(dirname "$src")")/$(basename "$src")"
  bin=$(bin_path "$src" "$n")
  if [ ! -x "$bin" ]; then
    echo "FAIL $name clang-$n: does not compile: $(grep -m1 -E 'error' "$bin.log" | cut -c1-200)"
    return
  fi
  load_expectations "$src"
  has_marker "$src" simtarget-only && [ "$want_exit" != 0 ] && negative=1
  llvm="no LLVM $n runtime"
  if [ "$n" != 22 ] && { [ $negative = 1 ] || ! has_marker "$src" simtarget-only; }; then
    if [ $negative = 1 ]; then
      # A mapping bug LLVM's shared address space hides: shown, not judged.
      llvm=$(want_exit=0 want_out='^PASS$' want_err='' llvm_verdict "$src" "$n" "$bin")
    else
      llvm=$(llvm_verdict "$src" "$n" "$bin")
      if [ "$llvm" != pass ]; then
        # Not held against simtarget, whose result is shown for comparison;
        # except that simtarget never lets the host process crash.
        run_simtarget "$bin" "$n" "$bin"
        xfail=$(xfail_for "$src" "$n")
        if [[ $reason == *"(signal "* ]] && [ -z "$xfail" ]; then
          echo "FAIL $name clang-$n: simtarget crashed the host process: $reason (LLVM fails it too: $llvm)"
        else
          echo "llvm-fail $name clang-$n: LLVM's runtime fails it: $llvm (simtarget: ${reason:-passes}${xfail:+; xfail: $xfail})"
        fi
        return
      fi
    fi
  fi
  run_simtarget "$bin" "$n" "$bin"
  xfail=$(xfail_for "$src" "$n")
  if [ -n "$xfail" ]; then
    if [ -z "$reason" ]; then
      echo "FAIL $name clang-$n: XPASS: passes now, remove its mark 'xfail: $xfail'"
    else
      echo "xfail $name clang-$n: $xfail; simtarget: $reason"
    fi
  elif [ -n "$reason" ]; then
    echo "FAIL $name clang-$n: $reason (LLVM: $llvm)"
  elif [ $negative = 1 ]; then
    echo "ok $name clang-$n (negative; LLVM: $llvm)"
  else
    echo "ok $name clang-$n"
  fi
}

# run_one MODE SRC N: the compiled SRC run on MODE's runtime (simtarget or
# llvm); prints its one verdict line (short enough to be written at once).
run_one() {
  local mode=$1 src=$2 n=$3 bin name
  # shellcheck disable=SC1090
  . "$ENV_SH"
  name=$(basename "$src")
  bin=$(bin_path "$src" "$n")
  if [ ! -x "$bin" ]; then
    reason="does not compile: $(grep -m1 -E 'error' "$bin.log" | cut -c1-200)"
  else
    load_expectations "$src"
    if [ "$mode" = llvm ]; then
      run_judged "$bin" "$(libpath_for "$n" llvm)" "$bin"
    else
      run_simtarget "$bin" "$n" "$bin"
    fi
  fi
  if [ -z "$reason" ]; then
    printf 'ok    %-24s clang-%s\n' "$name" "$n"
  else
    printf 'FAIL  %-24s clang-%s: %s\n' "$name" "$n" "$reason"
  fi
}

case "${1:-}" in
  --compile-one) compile_one "$2" "$3"; exit $? ;;
  --diff-one) diff_one "$2" "$3"; exit 0 ;;
  --run-one) run_one "$2" "$3" "$4"; exit 0 ;;
esac

# ---------------------------------------------------------------- options
MODE=simtarget
VERSIONS=""
PICK=all
JOBS=2
PROGRAMS=()
while [ $# -gt 0 ]; do
  case $1 in
    --llvm) MODE=llvm ;;
    --diff) MODE=diff; export PROGRAMS_TIMEOUT=${PROGRAMS_TIMEOUT:-30} ;;
    --versions) VERSIONS=$2; shift ;;
    --first-of) PICK=first ;;
    --spread) PICK=spread ;;
    --device=*) ;;
    -j) JOBS=$2; shift ;;
    -h|--help) sed -n '2,56p' "$0"; exit 0 ;;
    -*) echo "programs.sh: unknown option $1" >&2; exit 2 ;;
    *) if [ -d "$1" ]; then
         while IFS= read -r f; do PROGRAMS+=("$f"); done < <(find "$(cd "$1" && pwd)" -name '*.c' -o -name '*.cpp' | sort)
       else
         PROGRAMS+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")")
       fi ;;
  esac
  shift
done
if [ ${#PROGRAMS[@]} -eq 0 ] && [ $MODE = diff ]; then
  while IFS= read -r f; do PROGRAMS+=("$f"); done < <(find "$DIFFDIR" -name '*.c' -o -name '*.cpp' | sort)
elif [ ${#PROGRAMS[@]} -eq 0 ]; then
  PROGRAMS=("$PROGDIR"/*.c "$PROGDIR"/*.cpp)
fi

start=$(date +%s)
if [ -z "${PROGRAMS_ENV_SH:-}" ] && ! "$ROOT/tests/toolchains.sh" -q; then
  echo "programs.sh: no usable clang (see the lines above)" >&2
  exit 2
fi
# shellcheck disable=SC1090
. "$ENV_SH"
[ -n "$VERSIONS" ] || VERSIONS=$TOOLCHAINS_USABLE

if [ $MODE != llvm ]; then
  for f in libomptarget.so libomptarget.rtl.simdevice.so; do
    if [ ! -e "$LIBDIR/$f" ]; then
      echo "programs.sh: $LIBDIR/$f is missing: run 'make all' first" >&2
      exit 2
    fi
  done
fi

# wanted SRC N: 0 when SRC is meant for clang-N, else prints why not.
wanted() {
  local v
  v=$(header_field "$1" versions)
  if [ -n "$v" ] && ! [[ " $v " == *" $2 "* ]]; then
    echo "only for clang $v"
    return 1
  fi
  if [ $MODE = llvm ] && has_marker "$1" simtarget-only; then
    echo "simtarget-only"
    return 1
  fi
  if [ -n "${PROGRAMS_SKIP_FIELD:-}" ] && [ -n "$(header_field "$1" "$PROGRAMS_SKIP_FIELD")" ]; then
    echo "$PROGRAMS_SKIP_FIELD: $(header_field "$1" "$PROGRAMS_SKIP_FIELD")"
    return 1
  fi
  if [ "$PROGRAMS_DEVICE" = ppc64le ] && [ -n "$(header_field "$1" ppc64le-skip)" ]; then
    echo "not on ppc64le: $(header_field "$1" ppc64le-skip)"
    return 1
  fi
  if [ $MODE = llvm ] && [ "$2" = 22 ]; then
    echo "LLVM 22 ships no offload runtime"
    return 1
  fi
  if ! [[ " $TOOLCHAINS_USABLE " == *" $2 "* ]]; then
    echo "clang-$2 not usable"
    return 1
  fi
}

# versions_of SRC: the clangs SRC runs with: every one of VERSIONS, or the
# first one it is for (--first-of; from the place --spread picks), or the
# first one when it is for none, so that its skip is said.
versions_of() {
  local -a list
  read -r -a list <<<"$VERSIONS"
  [ "$PICK" = all ] && { echo "$VERSIONS"; return; }
  local start=0 i n pool
  if [ "$PICK" = spread ]; then
    # spread-versions: the program's own choice, where one clang runs more
    # of it than another (those of VERSIONS that it names, if any)
    pool=$(header_field "$1" spread-versions)
    if [ -n "$pool" ]; then
      local -a own=()
      for n in "${list[@]}"; do [[ " $pool " == *" $n "* ]] && own+=("$n"); done
      [ ${#own[@]} -eq 0 ] || list=("${own[@]}")
    fi
    start=$(($(basename "$1" | cksum | cut -d' ' -f1) % ${#list[@]}))
  fi
  for ((i = 0; i < ${#list[@]}; i++)); do
    n=${list[$(((start + i) % ${#list[@]}))]}
    wanted "$1" "$n" >/dev/null && { echo "$n"; return; }
  done
  echo "${list[$start]}"
}

# Compile everything wanted, JOBS at a time.
for src in "${PROGRAMS[@]}"; do
  for n in $(versions_of "$src"); do
    wanted "$src" "$n" >/dev/null && printf '%s\0%s\0' "$src" "$n"
  done
done | xargs -0 -n2 -P"$JOBS" "$0" --compile-one
compiled=$(date +%s)

passed=0 failed=0 skipped=0 xfailed=0 llvm_failed=0
if [ $MODE = diff ]; then
  # Every (program, clang) in its own process, JOBS at a time; each prints
  # one line (short enough to be written atomically), sorted afterwards.
  results=$(for src in "${PROGRAMS[@]}"; do
    for n in $(versions_of "$src"); do
      if why=$(wanted "$src" "$n"); then
        printf '%s\0%s\0' "$src" "$n"
      else
        echo "skip $(basename "$(dirname "$src")")/$(basename "$src") clang-$n: $why" >&2
      fi
    done
  done 2>&1 >/dev/null; for src in "${PROGRAMS[@]}"; do
    for n in $(versions_of "$src"); do
      wanted "$src" "$n" >/dev/null && printf '%s\0%s\0' "$src" "$n"
    done
  done | xargs -0 -n2 -P"$JOBS" "$0" --diff-one)
  while read -r kind name rest; do
    case $kind in
      ok) passed=$((passed + 1)) ;;
      FAIL) failed=$((failed + 1)) ;;
      skip) skipped=$((skipped + 1)) ;;
      xfail) skipped=$((skipped + 1)); xfailed=$((xfailed + 1)) ;;
      llvm-fail) skipped=$((skipped + 1)); llvm_failed=$((llvm_failed + 1)) ;;
    esac
    printf '%-9s %-40s %s\n' "$kind" "$name" "$rest"
  done < <(sort -k2,2 -k3,3V <<<"$results")
  end=$(date +%s)
  echo "$passed passed, $failed failed, $skipped skipped" \
    "($xfailed xfail, $llvm_failed llvm-fail; compile $((compiled - start))s, run $((end - compiled))s, runtime: LLVM and simtarget)"
  [ $failed = 0 ]
  exit
fi

# Every (program, clang) run in its own process, JOBS at a time (each a
# host and a device process, mostly waiting on start-up and kernels); the
# lines sorted afterwards, as the programs and clangs come.
skips="" runs=()
for src in "${PROGRAMS[@]}"; do
  for n in $(versions_of "$src"); do
    if why=$(wanted "$src" "$n"); then
      runs+=("$MODE" "$src" "$n")
    else
      skips+=$(printf 'skip  %-24s clang-%s: %s' "$(basename "$src")" "$n" "$why")$'\n'
    fi
  done
done
results=$(printf '%s' "$skips"
  [ ${#runs[@]} -eq 0 ] || printf '%s\0' "${runs[@]}" | xargs -0 -n3 -P"$JOBS" "$0" --run-one)
while IFS= read -r line; do
  case $line in
    ok*) passed=$((passed + 1)) ;;
    FAIL*) failed=$((failed + 1)) ;;
    skip*) skipped=$((skipped + 1)) ;;
    *) continue ;;
  esac
  printf '%s\n' "$line"
done < <(sort -k2,2 -k3,3V <<<"$results")
end=$(date +%s)
echo "$passed passed, $failed failed, $skipped skipped" \
  "(compile $((compiled - start))s, run $((end - compiled))s, runtime: $MODE)"
[ $failed = 0 ]
