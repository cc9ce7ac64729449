#!/bin/bash
# tests/valgrind_check.sh - SIMDEVICE_VALGRIND in `make check`, kept short
# (Valgrind is slow): the bug programs of tests/valgrind/, each reported
# with its variable and line, then a subset of the correct programs of
# tests/programs/ run clean under memcheck and helgrind (no report, no
# finding; a program whose device runs in the host process with the whole
# program under memcheck); servers ended under a wrapper.
#
# Usage: tests/valgrind_check.sh [--versions "14 19"] [--spread] [PROGRAM ...]
#   --spread  each bug program with one of the clangs it is for, from a
#             place its file name's checksum picks (make check; as
#             programs.sh --spread), instead of each of them
#
# Each bug program says in header lines (see tests/valgrind/*.c):
#   versions: 14 19     clangs to build it with (default: --versions)
#   cflags: -O2 -g      extra compiler flags
#   env: VAR=VALUE ...  the run's environment (SIMDEVICE_VALGRIND=...)
#   vg-expect: REGEX    an extended regex (case-insensitive) some line of
#                       stderr must match; several lines allowed, all must
#   vg-expect-not: REGEX  no line of a report's first four may match it (a
#                       report in the device runtime, or at a correct line)
#   vg-finding: REGEX   the same for a line of the findings file
#                       (SIMTARGET_CHECK_REPORT)
#   vg-stderr-not: REGEX  no line of stderr may match it
#   vg-expect-times: N REGEX  exactly N lines of stderr match it (Valgrind's
#                       output reaches stderr whole: none lost, none twice)
# Every program's stdout goes through a pipe and must hold a line "PASS"
# (the bugs here run to a wrong result and exit 0, as on a GPU).
# Binaries are cached in build/valgrind-check/<N>/. Ends with
# "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=build/valgrind-check
VERSIONS="14 19"
SPREAD=0
PROGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --versions) VERSIONS=$2; shift ;;
    --spread) SPREAD=1 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) PROGS+=("$1") ;;
  esac
  shift
done
[ ${#PROGS[@]} -gt 0 ] || PROGS=(tests/valgrind/*.c tests/valgrind/*.cpp)
# Correct programs of tests/programs/ that must run clean, each under the
# tools named (PROGRAM:TOOL,TOOL), with the last clang of --versions only
# (time): structs, teams with a reduction, mappers, the device memory API.
CLEAN=(tests/programs/data_struct.c:memcheck,helgrind
       tests/programs/teams_reduction.c:memcheck,helgrind,drd
       tests/programs/mapper.c:memcheck,helgrind
       tests/programs/target_api.c:memcheck,helgrind
       tests/programs/usm_threads_exit.c:host)
# (tool "host": the whole program under memcheck, for a device that runs in
# the host process, unified_shared_memory's: Valgrind sees the program and
# the device runtime's link namespace, its libc included, at once)
passed=0 failed=0 skipped=0

if ! command -v valgrind >/dev/null; then
  echo "valgrind_check.sh: valgrind is not installed"
  echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
# shellcheck disable=SC1091
. build/toolchains/env.sh 2>/dev/null || { echo "valgrind_check.sh: no build/toolchains/env.sh"; echo "0 passed, 1 failed"; exit 1; }

field() { # FILE NAME: the values of header lines "NAME: value"
  sed -n -E "s@^[[:space:]/*]*$2:[[:space:]]*(.*[^[:space:]*/])[[:space:]*/]*\$@\\1@p" "$1"
}

build() { # SRC N OPT -> prints the binary, or nothing
  local src=$1 n=$2 opt=$3 cc flags bin
  eval "cc=\${TC_CC_$n:-} flags=\${TC_FLAGS_$n:-}"
  [ -n "$cc" ] || return
  bin=$OUT/$n/$(basename "${src%.*}")
  local extra
  extra=$(field "$src" cflags | head -1)
  case $src in *.cpp) cc=${cc/clang-/clang++-}; extra="$extra -lstdc++" ;; esac
  mkdir -p "$OUT/$n"
  if ! [ "$bin" -nt "$src" ] || ! [ "$bin" -nt tests/programs/check.h ]; then
    # shellcheck disable=SC2086
    $cc $flags $opt -Itests/programs $extra "$src" -o "$bin" >"$bin.log" 2>&1 || return
  fi
  echo "$bin"
}

run() { # BIN N LOG ENV...: runs it (under $WRAP), stdout through a pipe; sets rc
  local bin=$1 n=$2 log=$3; shift 3
  local hostlib
  eval "hostlib=\${TC_HOSTLIB_$n:-}"
  rm -f "$log.findings"
  ( env LD_LIBRARY_PATH="$ROOT/build/lib:$hostlib" OMP_TARGET_OFFLOAD=mandatory \
      SIMTARGET_CHECK_REPORT="$ROOT/$log.findings" "$@" \
      timeout -k 5 300 ${WRAP:-} "$bin" 2>"$log.err" | cat >"$log.out"
    exit "${PIPESTATUS[0]}" )
  rc=$?
  touch "$log.findings"
}

verdict() { # NAME WHY...: counts one result
  if [ $# -eq 1 ]; then
    passed=$((passed + 1)); echo "ok    $1"
  else
    failed=$((failed + 1)); echo "FAIL  $1: $2"
  fi
}

# clangs_of SRC: the clangs of VERSIONS that SRC is built with (--spread:
# one of them)
clangs_of() {
  local n list=()
  for n in $(field "$1" versions | head -1 | grep . || echo "$VERSIONS"); do
    case " $VERSIONS " in *" $n "*) list+=("$n") ;; esac
  done
  [ ${#list[@]} -gt 0 ] || return 0
  if [ $SPREAD = 1 ]; then
    echo "${list[$(($(basename "$1" | cksum | cut -d' ' -f1) % ${#list[@]}))]}"
  else
    echo "${list[*]}"
  fi
}

for src in "${PROGS[@]}"; do
  for n in $(clangs_of "$src"); do
    name="$(basename "$src") clang-$n"
    bin=$(build "$src" "$n" "")
    if [ -z "$bin" ]; then
      verdict "$name" "does not compile (log: $OUT/$n/$(basename "${src%.*}").log)"; continue
    fi
    read -ra envs <<<"$(field "$src" env | head -1)"
    run "$bin" "$n" "$bin" "${envs[@]}"
    why=""
    grep -q '^PASS$' "$bin.out" || why="no PASS line on stdout (exit $rc)"
    while IFS= read -r re; do
      [ -z "$why" ] && ! grep -Eiq -- "$re" "$bin.err" && why="stderr has no line matching /$re/ (see $bin.err)"
    done < <(field "$src" vg-expect)
    while IFS= read -r re; do
      [ -z "$why" ] && ! grep -Eiq -- "$re" "$bin.findings" && why="no finding matching /$re/ (see $bin.findings)"
    done < <(field "$src" vg-finding)
    # each report's first lines: what and where it happened
    grep -A3 -E '^==[0-9]+== (Possible data race|Conflicting|Invalid|Conditional|Use of)' \
      "$bin.err" >"$bin.reports"
    while IFS= read -r re; do
      [ -z "$why" ] && grep -Eiq -- "$re" "$bin.reports" && why="a report matches /$re/: $(grep -Ei -m1 -- "$re" "$bin.reports" | cut -c1-160)"
    done < <(field "$src" vg-expect-not)
    while IFS= read -r re; do
      [ -z "$why" ] && grep -Eiq -- "$re" "$bin.err" && why="stderr matches /$re/: $(grep -Ei -m1 -- "$re" "$bin.err" | cut -c1-160)"
    done < <(field "$src" vg-stderr-not)
    while read -r times re; do
      count=$(grep -Eic -- "$re" "$bin.err")
      [ -z "$why" ] && [ "$count" != "$times" ] && why="$count lines of stderr match /$re/, not $times (see $bin.err)"
    done < <(field "$src" vg-expect-times)
    verdict "$name" ${why:+"$why"}
  done
done

# The correct programs: as programs.sh builds them (-O1), clean.
last=${VERSIONS##* }
for item in "${CLEAN[@]}"; do
  src=${item%%:*} tools=${item#*:}
  for n in $last; do
    bin=$(build "$src" "$n" -O1)
    for tool in ${tools//,/ }; do
      name="clean $(basename "$src") clang-$n $tool"
      if [ -z "$bin" ]; then verdict "$name" "does not compile"; continue; fi
      if [ "$tool" = host ]; then
        WRAP="valgrind -q --vgdb=no --error-exitcode=99" run "$bin" "$n" "$bin.$tool"
      else
        run "$bin" "$n" "$bin.$tool" SIMDEVICE_VALGRIND=$tool
      fi
      why=""
      if [ $rc != 0 ]; then why="exit $rc $(grep -m1 -E '^==[0-9]*== [A-Z]|invalid pointer' "$bin.$tool.err")"
      elif grep -q '^==[0-9]*== ' "$bin.$tool.err"; then
        why="Valgrind reported: $(grep -m1 '^==[0-9]*== [A-Z]' "$bin.$tool.err")"
      elif grep -q 'simdevice: ' "$bin.$tool.err"; then
        why="$(grep -m1 'simdevice: ' "$bin.$tool.err" | cut -c1-200)"
      elif [ -s "$bin.$tool.findings" ]; then why="findings: $(head -c 200 "$bin.$tool.findings")"
      fi
      verdict "$name" ${why:+"$why"}
    done
  done
done

# Device servers that end under a wrapper: one killed for a kernel that
# never ends (SIMDEVICE_TIMEOUT) under memcheck leaves nothing in $TMPDIR
# (Valgrind's gdbserver FIFOs outlive a killed process); a wrapper that
# writes its last words after the server has ended, as Valgrind writes its
# summary, is let finish at the program's end.
name="killed kernel_timeout.c clang-$last memcheck: nothing left in TMPDIR"
bin=$(build tests/programs/kernel_timeout.c "$last" -O1)
if [ -z "$bin" ]; then verdict "$name" "does not compile"; else
  tmp=$(mktemp -d)
  run "$bin" "$last" "$bin.killed" TMPDIR="$tmp" SIMDEVICE_VALGRIND=memcheck SIMDEVICE_TIMEOUT=3
  left=$(ls -A "$tmp" | tr '\n' ' ')
  rm -rf "$tmp"
  if [ $rc != 1 ] || ! grep -q 'did not finish within 3 s' "$bin.killed.err"; then
    verdict "$name" "exit $rc, no timeout message ($bin.killed.err)"
  else
    verdict "$name" ${left:+"left: $left"}
  fi
fi
name="clean data_struct.c clang-$last under a wrapper that ends 2 s after the server"
bin=$(build tests/programs/data_struct.c "$last" -O1)
mark=$OUT/wrapper.mark
rm -f "$mark"
if [ -z "$bin" ]; then verdict "$name" "does not compile"; else
  run "$bin" "$last" "$bin.wrapper" \
    SIMDEVICE_WRAPPER="$ROOT/tests/valgrind/slow_exit_wrapper.sh $ROOT/$mark"
  if [ $rc != 0 ] || ! grep -q '^PASS$' "$bin.wrapper.out"; then verdict "$name" "exit $rc ($bin.wrapper.err)"
  elif ! grep -q 'server status 0' "$mark" 2>/dev/null; then verdict "$name" "the wrapper was killed before its last words"
  else verdict "$name"; fi
fi
# The host program under memcheck, as CI runs a test: Valgrind runs the
# device's starter as a forked copy of the host, whose leak search must not
# read the host's view of device memory (1 GiB there; each page it reads is
# a page allocated). A search of this program reads a few MB.
name="data_struct.c clang-$last, the host under memcheck: no leak search reads device memory"
bin=$(build tests/programs/data_struct.c "$last" -O1)
if [ -z "$bin" ]; then verdict "$name" "does not compile"; else
  WRAP="valgrind -v --vgdb=no --leak-check=summary" run "$bin" "$last" "$bin.hostvg"
  most=$(sed -n -E 's/^==[0-9]+== Checked ([0-9,]+) bytes$/\1/p' "$bin.hostvg.err" | tr -d , | sort -n | tail -1)
  if [ $rc != 0 ] || [ -z "$most" ]; then verdict "$name" "exit $rc, no leak search ($bin.hostvg.err)"
  elif [ "$most" -ge $((256 << 20)) ]; then verdict "$name" "a leak search read $most bytes ($bin.hostvg.err)"
  else verdict "$name"; fi
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
