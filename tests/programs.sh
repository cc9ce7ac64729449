#!/bin/bash
# tests/programs.sh - compile every program in tests/programs/ with every
# usable clang and run it against simtarget (or, with --llvm, against that
# clang's own LLVM runtime, to check the programs themselves).
#
# Usage: tests/programs.sh [--llvm] [--versions "13 19"] [-j N] [PROGRAM.c ...]
#
# Each program states what it expects in comment lines near its top:
#   versions: 19 22        compile only with these clang versions
#   cflags: -fopenmp-version=51
#   expect-exit: 1         exit status wanted (default 0)
#   expect-stderr: REGEX   extended regex (case-insensitive) stderr must match
#   expect-stderr-not: REGEX  stderr must not match it
#   expect-stdout: REGEX   default for exit 0: a line "PASS"
#   simtarget-only         the expectation needs a separate device address
#                          space; skipped with --llvm
#   expect: TEXT           what the program checks, shown when it fails
#   repeat: N              run it N times, each run must pass (races that
#                          show in some runs only)
#   env: VAR=VALUE ...     environment of the run (simtarget's own settings,
#                          e.g. SIMDEVICE_NUM_DEVICES=2; split at spaces)
#
# PROGRAMS_HOST_LIBOMP=system runs the host side on the system libomp.so.5
# (LLVM 14) instead of each clang's own libomp. PROGRAMS_LIBDIR replaces
# build/lib as the simtarget under test (coverage.sh: the instrumented one).
#
# Binaries are cached in build/programs/<N>/ and rebuilt only when the
# program, check.h or the flags change; compile logs sit next to them
# (.log), and the last run's output too (.out, .err).
# Prints one line per (program, version) and "N passed, N failed, N skipped";
# exits 1 if any failed, 2 when it cannot run at all.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROGDIR="$ROOT/tests/programs"
OUT="$ROOT/build/programs"
LIBDIR=${PROGRAMS_LIBDIR:-$ROOT/build/lib}
ENV_SH="$ROOT/build/toolchains/env.sh"
RUN_TIMEOUT=${PROGRAMS_TIMEOUT:-60}

# ---------------------------------------------------------------- headers
# header_field FILE NAME: the value of "NAME: value" in the file's comments.
header_field() {
  sed -n -E "s@^[[:space:]/*]*$2:[[:space:]]*(.*[^[:space:]*/])[[:space:]*/]*\$@\\1@p" "$1" | head -1
}
has_marker() { grep -qE "^[[:space:]/*]*$2[[:space:]*/]*\$" "$1"; }

# ---------------------------------------------------------------- compile
# compile_one SRC N: build build/programs/N/<name> if it is out of date.
# Prints nothing; the log tells what happened. Exit status = compiler's.
compile_one() {
  local src=$1 n=$2 name cc flags extra bin
  # shellcheck disable=SC1090
  . "$ENV_SH"
  name=$(basename "$src")
  bin="$OUT/$n/${name%.*}"
  eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n"
  extra=$(header_field "$src" cflags)
  case $src in *.cpp) cc=${cc/clang-/clang++-}; extra="$extra -lstdc++" ;; esac
  local cmd="$cc $flags -O1 -I$PROGDIR $extra $src -o $bin"
  if [ -x "$bin" ] && [ "$bin" -nt "$src" ] && [ "$bin" -nt "$PROGDIR/check.h" ] &&
     [ "$(cat "$bin.cmd" 2>/dev/null)" = "$cmd" ]; then
    return 0
  fi
  mkdir -p "$OUT/$n"
  rm -f "$bin" "$bin.cmd"
  echo "$cmd" >"$bin.log"
  if $cmd >>"$bin.log" 2>&1; then
    echo "$cmd" >"$bin.cmd"
    return 0
  fi
  return 1
}

if [ "${1:-}" = "--compile-one" ]; then
  compile_one "$2" "$3"
  exit $?
fi

# ---------------------------------------------------------------- options
MODE=simtarget
VERSIONS=""
JOBS=2
PROGRAMS=()
while [ $# -gt 0 ]; do
  case $1 in
    --llvm) MODE=llvm ;;
    --versions) VERSIONS=$2; shift ;;
    -j) JOBS=$2; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    -*) echo "programs.sh: unknown option $1" >&2; exit 2 ;;
    *) PROGRAMS+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")") ;;
  esac
  shift
done
if [ ${#PROGRAMS[@]} -eq 0 ]; then
  PROGRAMS=("$PROGDIR"/*.c "$PROGDIR"/*.cpp)
fi

start=$(date +%s)
if ! "$ROOT/tests/toolchains.sh" -q; then
  echo "programs.sh: no usable clang (see the lines above)" >&2
  exit 2
fi
# shellcheck disable=SC1090
. "$ENV_SH"
[ -n "$VERSIONS" ] || VERSIONS=$TOOLCHAINS_USABLE

if [ $MODE = simtarget ]; then
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
  if [ $MODE = llvm ] && [ "$2" = 22 ]; then
    echo "LLVM 22 ships no offload runtime"
    return 1
  fi
  if ! [[ " $TOOLCHAINS_USABLE " == *" $2 "* ]]; then
    echo "clang-$2 not usable"
    return 1
  fi
}

# Compile everything wanted, JOBS at a time.
for src in "${PROGRAMS[@]}"; do
  for n in $VERSIONS; do
    wanted "$src" "$n" >/dev/null && printf '%s\0%s\0' "$src" "$n"
  done
done | xargs -0 -n2 -P"$JOBS" "$0" --compile-one
compiled=$(date +%s)

# ---------------------------------------------------------------- run
passed=0 failed=0 skipped=0
# verdict KIND NAME N REASON: print and count one result line.
verdict() {
  case $1 in
    ok) passed=$((passed + 1)); printf 'ok    %-24s clang-%s\n' "$2" "$3" ;;
    FAIL) failed=$((failed + 1)); printf 'FAIL  %-24s clang-%s: %s\n' "$2" "$3" "$4" ;;
    skip) skipped=$((skipped + 1)); printf 'skip  %-24s clang-%s: %s\n' "$2" "$3" "$4" ;;
  esac
}

# last_line FILE: the last non-empty line, for failure reasons.
last_line() { grep -v '^[[:space:]]*$' "$1" | tail -1 | cut -c1-200; }

for src in "${PROGRAMS[@]}"; do
  name=$(basename "$src")
  want_exit=$(header_field "$src" expect-exit)
  want_exit=${want_exit:-0}
  want_err=$(header_field "$src" expect-stderr)
  want_err_not=$(header_field "$src" expect-stderr-not)
  want_out=$(header_field "$src" expect-stdout)
  [ -z "$want_out" ] && [ "$want_exit" = 0 ] && want_out='^PASS$'
  repeat=$(header_field "$src" repeat)
  repeat=${repeat:-1}
  read -r -a run_env <<<"$(header_field "$src" env)"
  for n in $VERSIONS; do
    if ! why=$(wanted "$src" "$n"); then
      verdict skip "$name" "$n" "$why"
      continue
    fi
    bin="$OUT/$n/${name%.*}"
    if [ ! -x "$bin" ]; then
      verdict FAIL "$name" "$n" "does not compile: $(grep -m1 -E 'error' "$bin.log" | cut -c1-200)"
      continue
    fi
    eval "hostlib=\$TC_HOSTLIB_$n rtdir=\$TC_RTDIR_$n"
    if [ $MODE = simtarget ]; then
      # Host code of clang-N calls libomp N (19/22 need >= 19); the device
      # side is simtarget's own runtime in the device process.
      libpath="$LIBDIR:$hostlib"
      [ "${PROGRAMS_HOST_LIBOMP:-}" = system ] && libpath="$LIBDIR"
    else
      libpath="$rtdir"
    fi
    for ((run = 1; run <= repeat; run++)); do
    (cd "$OUT/$n" && env ${run_env[@]+"${run_env[@]}"} LD_LIBRARY_PATH=$libpath OMP_TARGET_OFFLOAD=mandatory \
      timeout -k 5 "$RUN_TIMEOUT" stdbuf -o0 "$bin" >"$bin.out" 2>"$bin.err") 2>/dev/null
    rc=$?
    reason=""
    if [ $rc = 124 ] || [ $rc = 137 ]; then
      reason="timed out after ${RUN_TIMEOUT}s"
    elif [ "$rc" != "$want_exit" ]; then
      reason="exit $rc, expected $want_exit"
      [ $rc -gt 128 ] && reason="$reason (signal $((rc - 128)))"
    elif [ -n "$want_err" ] && ! grep -Eiq -- "$want_err" "$bin.err"; then
      reason="stderr does not match /$want_err/"
    elif [ -n "$want_err_not" ] && grep -Eiq -- "$want_err_not" "$bin.err"; then
      reason="stderr matches /$want_err_not/: ...$(grep -Eio -m1 -- ".{0,80}($want_err_not).{0,40}" "$bin.err" | head -1)..."
    elif [ -n "$want_out" ] && ! grep -Eq -- "$want_out" "$bin.out"; then
      reason="stdout does not match /$want_out/"
    fi
    [ -z "$reason" ] || break
    done
    [ -n "$reason" ] && [ "$repeat" -gt 1 ] && reason="run $run of $repeat: $reason"
    if [ -z "$reason" ]; then
      verdict ok "$name" "$n"
    else
      # The runtime's "cause:" line says most; else the last words printed.
      detail=$(grep -m1 -o 'cause: .*' "$bin.err" | cut -c1-300)
      [ -z "$detail" ] && detail=$(last_line "$bin.err")
      [ -z "$detail" ] && detail=$(last_line "$bin.out")
      case $reason in
        "stderr matches"*) verdict FAIL "$name" "$n" "$reason" ;;
        *) verdict FAIL "$name" "$n" "$reason; last output: ${detail:-none}" ;;
      esac
    fi
  done
done
end=$(date +%s)
echo "$passed passed, $failed failed, $skipped skipped" \
  "(compile $((compiled - start))s, run $((end - compiled))s, runtime: $MODE)"
[ $failed = 0 ]
