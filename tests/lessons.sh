#!/bin/bash
# tests/lessons.sh - keep the lessons in tutorials/NN-*/ true. For every
# lesson program (program.c, broken_*.c, other *.c), compiled once with -g
# (cached in build/lessons/<N>/<lesson>/) and run on simtarget the way
# tutorials/run.sh runs it, check that
#   - it exits with its "expect-exit:" status (default 0; a correct program
#     also prints PASS),
#   - every "expect:" regex matches a line of its normalised output,
#   - the normalised output equals <lesson>/expected/<prog>.out (unless
#     "golden: no"; only with the clang the files were made with, GOLDEN_CLANG),
#   - every line of the lesson README's ```text blocks appears in one of
#     that lesson's outputs of this run (the texts quote real output).
# Then every lesson's program.c runs on LLVM's own runtime of each clang in
# LESSONS_LLVM (default "14 19", those usable) and must print PASS there
# too, unless its header says "llvm: no" (with the reason).
#
# Usage: tests/lessons.sh [--update] [--broken-on-llvm] [LESSON ...]
#   --update          rewrite the expected/ files from this run (review the diff)
#   --broken-on-llvm  also run the broken variants on LLVM's runtimes and
#                     show what happens (not checked; for the lesson texts)
# Prints one line per check and "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tutorials/lib.sh
. "$ROOT/tutorials/lib.sh"
GOLDEN_CLANG=22
update=0 broken_llvm=0 lessons=()
while [ $# -gt 0 ]; do
  case $1 in
    --update) update=1 ;;
    --broken-on-llvm) broken_llvm=1 ;;
    *) lessons+=("$(lesson_dir "$1")") || { echo "no lesson $1"; exit 2; } ;;
  esac
  shift
done
[ ${#lessons[@]} -gt 0 ] || for d in "$ROOT"/tutorials/[0-9][0-9]-*/; do lessons+=("${d%/}"); done
# shellcheck source=tests/suite_lib.sh
. "$ROOT/tests/suite_lib.sh"

ENV_SH=$ROOT/build/toolchains/env.sh
if [ ! -f "$ENV_SH" ] || [ ! -e "$ROOT/build/lib/libomptarget.so" ]; then
  skip "lessons (no $ENV_SH or build/lib: run make and tests/toolchains.sh)"
  echo "$passed passed, $failed failed, $skipped skipped"; exit 0
fi
# shellcheck disable=SC1090
. "$ENV_SH"
n=$(lesson_clang "${LESSONS_CLANG:-}") || n=""
[ -n "$n" ] || { skip "lessons (no usable clang)"; echo "$passed passed, $failed failed, $skipped skipped"; exit 0; }
llvm_versions=""
for v in ${LESSONS_LLVM:-14 19}; do lesson_clang "$v" >/dev/null && llvm_versions="$llvm_versions $v"; done

OUT=$ROOT/build/lessons
srcs=()
for d in "${lessons[@]}"; do for s in "$d"/*.c; do srcs+=("$s"); done; done
# Compile everything once, two at a time: clang-n for simtarget, and the
# LLVM clangs for the programs LLVM runs.
export ROOT
{
  for s in "${srcs[@]}"; do echo "$n $s"; done
  for v in $llvm_versions; do
    for s in "${srcs[@]}"; do
      case $(basename "$s") in program.c) ;; *) [ $broken_llvm = 1 ] || continue ;; esac
      [ "$v" = "$n" ] || echo "$v $s"
    done
  done
} | xargs -P 2 -n 2 bash -c ". \"$ROOT/tutorials/lib.sh\"; . \"$ENV_SH\"; lesson_compile \"\$0\" \"\$1\" \"$OUT/\$0/\$(basename \"\$(dirname \"\$1\")\")/\$(basename \"\$1\" .c)\" || true"

for d in "${lessons[@]}"; do
  lesson=$(basename "$d")
  outs=()
  for src in "$d"/*.c; do
    prog=$(basename "$src" .c); bin=$OUT/$n/$lesson/$prog; what="$lesson/$prog.c clang-$n"
    if [ ! -x "$bin" ]; then
      fail "$what: does not compile: $(grep -m1 error "$bin.log" | cut -c1-200)"; continue
    fi
    LIBOMPTARGET_INFO='' lesson_run "$n" "$src" "$bin" | lesson_normalise >"$bin.out"
    rc=${PIPESTATUS[0]}
    outs+=("$bin.out")
    want_exit=$(lesson_field "$src" expect-exit | head -1)
    if [ "$rc" != "${want_exit:-0}" ]; then
      fail "$what: exit $rc, want ${want_exit:-0}: $(tail -3 "$bin.out" | tr '\n' ' ' | cut -c1-300)"; continue
    fi
    if [ -z "$want_exit" ] && ! grep -qx PASS "$bin.out"; then
      fail "$what: no PASS line"; continue
    fi
    bad=""
    while IFS= read -r re; do
      [ -n "$re" ] && ! grep -qE -- "$re" "$bin.out" && bad="$bad /$re/"
    done < <(lesson_field "$src" expect)
    [ -z "$bad" ] || { fail "$what: no line matches$bad"; continue; }
    expected=$d/expected/$prog.out
    if [ "$(lesson_field "$src" golden | head -1)" = no ]; then
      ok "$what (expectations; output order varies)"
    elif [ "$n" != "$GOLDEN_CLANG" ]; then
      ok "$what (expectations; expected/ made with clang-$GOLDEN_CLANG, not compared)"
    else
      golden_compare "$what" "$bin.out" "$expected" $update "tests/lessons.sh --update $lesson"
    fi
  done
  # The README quotes only lines this run printed (with the expected/ clang).
  if [ "$n" != "$GOLDEN_CLANG" ]; then
    skip "$lesson/README.md: its quotes are clang-$GOLDEN_CLANG's output"
  else
  missing=$(awk '/^```text/ {q = 1; next} /^```/ {q = 0} q' "$d/README.md" | while IFS= read -r line; do
    [ -z "$line" ] && continue
    grep -qxF -- "$line" ${outs[@]+"${outs[@]}"} /dev/null || echo "$line"
  done)
  if [ -n "$missing" ]; then
    fail "$lesson/README.md quotes lines no program printed: $(head -3 <<<"$missing" | cut -c1-160 | tr '\n' '|')"
  else
    ok "$lesson/README.md: every quoted output line was printed"
  fi
  fi
  for v in $llvm_versions; do
    for src in "$d"/*.c; do
      prog=$(basename "$src" .c)
      [ "$prog" = program ] || [ $broken_llvm = 1 ] || continue
      what="$lesson/$prog.c on LLVM $v's runtime"
      reason=$(lesson_field "$src" llvm | head -1)
      if [ "${reason%%:*}" = no ]; then skip "$what: ${reason#no}"; continue; fi
      bin=$OUT/$v/$lesson/$prog
      [ -x "$bin" ] || { fail "$what: does not compile with clang-$v"; continue; }
      LIBOMPTARGET_INFO='' lesson_run "$v" "$src" "$bin" llvm >"$bin.llvm.out" 2>&1
      rc=$?
      if [ "$prog" != program ]; then
        echo "info  $what: exit $rc; $(grep -v '^  |' "$bin.llvm.out" | tail -2 | tr '\n' ' ' | cut -c1-240)"
      elif [ $rc = 0 ] && grep -qx PASS "$bin.llvm.out"; then
        ok "$what"
      else
        fail "$what: exit $rc: $(tail -2 "$bin.llvm.out" | tr '\n' ' ' | cut -c1-200)"
      fi
    done
  done
done
suite_end
