#!/bin/bash
# tests/doc_commands.sh - the commands README.md and the tutorials show,
# run as written from the checkout's root, after `make demo`: every
# `tutorials/run.sh ...` and `tutorials/timeline.sh ...` in tutorials/ and
# README.md (in code blocks and in the text), `simtarget-grade` on the
# class of tests/grade, and README.md's ```sh blocks that compile with
# `simtarget-clang` (each block as one script, with a small offload program
# as the prog.c and t.c they name). tests/fresh_root.sh --doc-commands runs
# it in a fresh Debian 12 root after `make demo`.
#
# Usage: tests/doc_commands.sh [--ppc64le] [--list]
#   --ppc64le  also the blocks that need the ppc64le cross tools (installs them as root)
#   --list     print the commands only
# A lesson command passes when its program compiled and ran ("== exit
# status" line: a broken variant's own status is the lesson's point); the
# others when they exit 0. Prints "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
ppc=0 list=0
for a in "$@"; do
  case $a in
    --ppc64le) ppc=1 ;;
    --list) list=1 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "doc_commands: unknown option $a" >&2; exit 2 ;;
  esac
done
DOCS=(README.md tutorials/README.md tutorials/[0-9]*/README.md)
LOG=$ROOT/build/doc-commands
mkdir -p "$LOG"
passed=0 failed=0 skipped=0

# The lesson commands: in backticks or on a line of their own.
# shellcheck disable=SC2016 # backticks in the pattern are literal
lesson_commands() {
  grep -ohE '(`|^ *)([A-Z_]+=[^ `]+ )*tutorials/(run|timeline)\.sh [^`#]*' "${DOCS[@]}" |
    sed -E 's/^[` ]+//; s/[[:space:]]+$//' | grep -vE ' (NN|PROG\.c)( |$)' | sort -u
}

# README.md's ```sh blocks that use simtarget-clang, one file each. A block
# written as a session ("$ " before each command, output lines between) runs
# its commands only, each allowed exit 1 (check and diff exit 1 on findings).
sh_blocks() {
  awk -v dir="$LOG" '
    /^```sh$/ { inb = 1; n++; text = ""; session = ""; next }
    /^```$/ && inb { inb = 0; if (session != "") text = session
      if (text ~ /simtarget-clang/) { f = dir "/block" n ".sh"; printf "%s", text > f; close(f); print f } next }
    inb && /^\$ / { session = session "{ " substr($0, 3) "\n} || [ $? -le 1 ]\n" }
    inb { text = text $0 "\n" }' README.md
}

PROG='#include <stdio.h>
int main(void) {
  int a[8], s = 0;
  for (int i = 0; i < 8; i++) a[i] = i;
#pragma omp target map(to: a) map(tofrom: s)
  for (int i = 0; i < 8; i++) s += a[i];
  printf("s = %d\n", s);
  return s != 28;
}'

if [ $list = 1 ]; then
  lesson_commands
  for f in $(sh_blocks); do echo "--- README.md block:"; cat "$f"; done
  echo "tools/simtarget-grade/simtarget-grade tests/grade/class"
  exit 0
fi

report() { # name ok log
  if [ "$2" = 1 ]; then passed=$((passed + 1)); echo "ok    $1"
  else failed=$((failed + 1)); echo "FAIL  $1 (log: $3)"; tail -5 "$3" | sed 's/^/      /'; fi
}

i=0
before=$(ls ./*.svg 2>/dev/null)
while IFS= read -r cmd; do
  i=$((i + 1))
  log=$LOG/lesson$i.log
  bash -c "$cmd" >"$log" 2>&1
  rc=$?
  case $cmd in
    *timeline.sh*) ok=0; [ $rc = 0 ] && ok=1 ;;
    *) ok=0; grep -q '^== exit status' "$log" && ok=1 ;;
  esac
  report "$cmd" $ok "$log"
done < <(lesson_commands)
# what the timeline commands drew in the root (as written: OUT.svg here)
for f in ./*.svg; do
  [ -e "$f" ] && [[ $'\n'"$before"$'\n' != *$'\n'"$f"$'\n'* ]] && rm -f "$f"
done

log=$LOG/grade.log
tools/simtarget-grade/simtarget-grade tests/grade/class >"$log" 2>&1
ok=0; grep -q '^PASS  alice_reduction.c' "$log" && ok=1
report "tools/simtarget-grade/simtarget-grade tests/grade/class" $ok "$log"

for f in $(sh_blocks); do
  if grep -q 'ppc64le' "$f" && [ $ppc = 0 ]; then
    skipped=$((skipped + 1)); echo "skip  README.md block $(head -1 "$f") (ppc64le: --ppc64le)"
    continue
  fi
  for p in prog.c t.c; do [ -e "$p" ] && { echo "doc_commands: $p exists in the checkout" >&2; exit 2; }; done
  echo "$PROG" >prog.c; cp prog.c t.c
  bash -e "$f" >"$f.log" 2>&1
  rc=$?
  rm -f prog.c t.c prog t14 t19 t22 t14.jsonl t19.jsonl t22.jsonl omp60
  ok=0; [ $rc = 0 ] && ok=1
  report "README.md block: $(grep -m1 simtarget-clang "$f")" $ok "$f.log"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
