#!/bin/bash
# tutorials/run.sh - compile one lesson program with -g and run it on
# simdevice with the LIBOMPTARGET_INFO bits that lesson needs; the
# program's own lines stay where it printed them among the trace lines.
#
# Usage: tutorials/run.sh [--llvm] [--clang N] LESSON [PROGRAM]
#   LESSON   03, 3, 03-target-data-refcounts or the folder
#   PROGRAM  program (default), broken_... (with or without .c)
#   --llvm   run on that clang's own LLVM runtime instead of simtarget
#   --clang N  compile with clang-N (default: the newest usable)
# LIBOMPTARGET_INFO set in the environment replaces the lesson's bits.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tutorials/lib.sh
. "$ROOT/tutorials/lib.sh"
mode=simtarget clang=""
while [ $# -gt 0 ]; do
  case $1 in
    --llvm) mode=llvm ;;
    --clang) clang=$2; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
  shift
done
[ $# -ge 1 ] || { echo "usage: tutorials/run.sh [--llvm] [--clang N] LESSON [PROGRAM]" >&2; exit 2; }
dir=$(lesson_dir "$1") || { echo "run.sh: no lesson '$1' in tutorials/" >&2; exit 2; }
prog=${2:-program}; prog=${prog%.c}
src=$dir/$prog.c
[ -f "$src" ] || { echo "run.sh: no $src; the lesson has: $(cd "$dir" && echo *.c)" >&2; exit 2; }
for f in libomptarget.so libomptarget.rtl.simdevice.so; do
  [ -e "$ROOT/build/lib/$f" ] || { echo "run.sh: build/lib/$f is missing: run 'make all' first" >&2; exit 2; }
done
[ -r "$ROOT/build/toolchains/env.sh" ] || "$ROOT/tests/toolchains.sh" -q >/dev/null 2>&1
[ -r "$ROOT/build/toolchains/env.sh" ] || { echo "run.sh: no usable clang: run tests/toolchains.sh to see why" >&2; exit 2; }
# shellcheck disable=SC1091
. "$ROOT/build/toolchains/env.sh"
# --clang N for a clang that is not installed: installed as root (as make
# demo installs its own), else the apt-get command is printed.
if [ -n "$clang" ] && [ ! -x "/usr/bin/clang-$clang" ] && "$ROOT/tests/deps.sh" --clang "$clang" >&2; then
  "$ROOT/tests/toolchains.sh" -q >/dev/null 2>&1
  # shellcheck disable=SC1091
  . "$ROOT/build/toolchains/env.sh"
fi
n=$(lesson_clang "$clang") || { echo "run.sh: clang-$clang is not usable (usable: $TOOLCHAINS_USABLE)" >&2; exit 2; }
lesson=$(basename "$dir")
out=$(lesson_out_dir) || { echo "run.sh: no folder to write the lesson's binary in" >&2; exit 2; }
bin=$out/$n/$lesson/$prog
info=${LIBOMPTARGET_INFO:-$(lesson_field "$src" info | head -1)}
targets=" -fopenmp-targets=x86_64-pc-linux-gnu"
[ "$(lesson_field "$src" build | head -1)" = host-only ] && targets=""
echo "== clang-$n -fopenmp$targets -g -O1 $lesson/$prog.c"
lesson_compile "$n" "$src" "$bin" || { cat "$bin.log" >&2; exit 1; }
what="simdevice"; [ $mode = llvm ] && what="LLVM $n's own runtime"
[ $mode != llvm ] && [ "$(lesson_field "$src" run | head -1)" = simtarget-check ] && what="simdevice, under simtarget-check"
echo "== running on $what: LIBOMPTARGET_INFO=${info:-0x29} $(lesson_field "$src" env | head -1)"
lesson_run "$n" "$src" "$bin" "$mode"
rc=$?
echo "== exit status $rc"
exit $rc
