#!/usr/bin/env bash
# tests/check_stale.sh - SIMTARGET_CHECK=stale (issue 32 item 3; README,
# "Checks: finding the bugs that run"), three parts:
#   bugs     every program in tests/check_stale/ (bugs of each class, written
#            as users write them), compiled with -g and its cflags by each
#            clang of STALE_VERSIONS, runs with the check, its stdout through
#            a pipe: it exits as without the check, prints the same stdout,
#            and its findings (the SIMTARGET_CHECK_REPORT lines, and the
#            stderr messages) are exactly its "stale-expect:" lines;
#   programs tests/programs/ (the correct programs, a subset: STALE_PROGRAMS
#            or all but the few that map gigabytes) through programs.sh,
#            each with one of CORPUS_CLANGS (default "14 16 19 22", --spread),
#            with the check on: each passes as without it, and its findings are
#            exactly its "stale-expect:" lines (none for all but a few that
#            keep device writes on the device on purpose);
#   lessons  every lesson's correct program.c runs clean with the check;
#   memcheck the host program under Valgrind's memcheck with the check: each
#            program of tests/check_stale/memcheck/ (host reads of results
#            that never came back, or have not yet) gets memcheck's report
#            of uninitialised values at its "memcheck-expect: FILE:LINE";
#            lesson 12's correct nowait program.c gets none.
# A "stale-expect: RULE VARIABLE COUNT" line wants COUNT findings of RULE on
# VARIABLE (`*`: any; without -g variables are "unknown").
#
# Usage: tests/check_stale.sh [bugs|programs|lessons|memcheck ...]
# Prints one line per check and "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/suite_lib.sh
. "$ROOT/tests/suite_lib.sh"
# shellcheck source=tutorials/lib.sh
. "$ROOT/tutorials/lib.sh"
ENV_SH=$ROOT/build/toolchains/env.sh
OUT=$ROOT/build/check_stale
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(bugs programs lessons memcheck)
if [ ! -f "$ENV_SH" ] || [ ! -e "$ROOT/build/lib/libomptarget.so" ]; then
  skip "check_stale (no $ENV_SH or build/lib: run make and tests/toolchains.sh)"
  suite_end
fi
# shellcheck disable=SC1090
. "$ENV_SH"
mkdir -p "$OUT"

# expectations SRC: "RULE VARIABLE COUNT" per stale-expect line
expectations() { lesson_field "$1" stale-expect; }

# findings REPORT: "RULE VARIABLE" per finding of the JSON lines file
findings() {
  [ -s "$1" ] || return 0
  python3 -c '
import json, sys
for line in open(sys.argv[1]):
    f = json.loads(line)
    print(f["rule"], f.get("variable", "unknown"))' "$1"
}

# compare_findings EXPECTED REPORT ERR: empty when the findings in REPORT
# (and the messages in ERR) are those EXPECTED lists ("RULE VARIABLE COUNT"
# lines), else what differs.
compare_findings() {
  local expected=$1 report=$2 err=$3 rule var count got msgs total=0
  local found
  found=$(findings "$report")
  while read -r rule var count; do
    [ -n "$rule" ] || continue
    got=$(awk -v r="$rule" -v v="$var" \
      '$1 == r && (v == "*" || $2 == v) { n++ } END { print n + 0 }' <<<"$found")
    [ "$got" = "$count" ] || { echo "$count $rule on $var wanted, $got found"; return; }
    msgs=$(grep -c "^omptarget check: stale data ($rule): " "$err")
    [ "$msgs" -ge "$count" ] || { echo "$rule: $msgs stderr messages, $count wanted"; return; }
    total=$((total + count))
  done <<<"$expected"
  got=$(grep -c . <<<"$found")
  [ -n "$found" ] || got=0
  [ "$got" = "$total" ] ||
    echo "$got findings, $total expected: $(head -c 300 <<<"$found" | tr '\n' ';')"
}

# run_bin BIN LOG [ENV...]: BIN with simtarget, stdout through a pipe into
# LOG.out, stderr into LOG.err; the exit status is BIN's.
run_bin() {
  local bin=$1 log=$2 n=$3; shift 3
  (cd "$(dirname "$bin")" && env "$@" OMP_TARGET_OFFLOAD=mandatory \
    LD_LIBRARY_PATH="$ROOT/build/lib:$(eval echo "\$TC_HOSTLIB_$n")" \
    timeout 60 "$bin" 2>"$log.err" | cat >"$log.out"
   exit "${PIPESTATUS[0]}")
}

# shellcheck disable=SC2317 # run by compile_each (xargs bash -c)
compile() { # N SRC
  local n=$1 src=$2 cc flags base
  eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n"
  case $src in *.cpp) cc=${cc/clang-/clang++-} ;; esac
  base=$(basename "${src%.*}")
  build_cached "$src" "$OUT/$n/$base" \
    "$cc $flags -g $(lesson_field "$src" cflags | head -1) $src -o $OUT/$n/$base"
}
export -f compile lesson_field
export OUT

part_bugs() {
  local versions="" v n src base bin log rc0 rc1 why
  for v in ${STALE_VERSIONS:-14 19 22}; do
    [[ " $TOOLCHAINS_USABLE " == *" $v "* ]] && versions="$versions $v"
  done
  [ -n "$versions" ] || { skip "bugs (none of clang ${STALE_VERSIONS:-14 19 22} usable)"; return; }
  compile_each "$versions" "$ROOT"/tests/check_stale/*.c "$ROOT"/tests/check_stale/*.cpp
  for n in $versions; do
    for src in "$ROOT"/tests/check_stale/*.c "$ROOT"/tests/check_stale/*.cpp; do
      base=$(basename "${src%.*}"); bin=$OUT/$n/$base; log=$OUT/$n/$base.run
      what="bugs/$(basename "$src") clang-$n"
      [ -x "$bin" ] || { fail "$what: does not compile: $(grep -m1 error "$bin.log" | cut -c1-200)"; continue; }
      run_bin "$bin" "$log.plain" "$n"; rc0=$?
      rm -f "$log.json"
      run_bin "$bin" "$log" "$n" SIMTARGET_CHECK=stale SIMTARGET_CHECK_REPORT="$log.json"; rc1=$?
      why=""
      if [ "$rc0" != "$rc1" ]; then why="exit $rc1 with the check, $rc0 without"
      elif ! cmp -s "$log.plain.out" "$log.out"; then why="stdout differs with the check"
      else why=$(compare_findings "$(expectations "$src")" "$log.json" "$log.err")
      fi
      if [ -z "$why" ]; then ok "$what"; else fail "$what: $why (stderr: $log.err)"; fi
    done
  done
}

# The correct programs: all but those that map gigabytes (over the check's
# record limit anyway) and those whose run is long.
default_programs() {
  local src
  for src in "$ROOT"/tests/programs/*.c "$ROOT"/tests/programs/*.cpp; do
    case $(basename "$src") in
      big_arrays.c | address_space_limit.c | kernel_timeout.c) continue ;;
    esac
    echo "$src"
  done
}

# The program corpus's binaries as make check's programs suite builds them
# (CORPUS_CLANGS, --spread: each program with one clang), so that none is
# compiled twice; programs.sh's lines say which clang each ran with.
part_programs() {
  local src base why report=$OUT/programs.json kind file clang
  local -a progs
  local -A clang_of=()
  if [ -n "${STALE_PROGRAMS:-}" ]; then read -r -a progs <<<"$STALE_PROGRAMS"
  else mapfile -t progs < <(default_programs); fi
  rm -f "$report"
  SIMTARGET_CHECK=stale SIMTARGET_CHECK_REPORT=$report \
    "$ROOT/tests/programs.sh" --versions "${CORPUS_CLANGS:-14 16 19 22}" --spread "${progs[@]}" >"$OUT/programs.log" 2>&1
  while read -r kind file clang _; do
    clang=${clang#clang-}; clang_of[$file]=${clang%:}
  done < <(grep -E '^(ok|FAIL) ' "$OUT/programs.log")
  if tail -1 "$OUT/programs.log" | grep -q ' 0 failed'; then
    ok "programs: $(tail -1 "$OUT/programs.log" | cut -d'(' -f1)with the check"
  else
    fail "programs with the check: $(grep '^FAIL' "$OUT/programs.log" | head -5 | tr '\n' ';')"
  fi
  # each program's findings, from its stderr (programs.sh keeps it)
  local total=0 expected=0 bad=""
  for src in "${progs[@]}"; do
    base=$(basename "${src%.*}")
    [ -n "${clang_of[$(basename "$src")]:-}" ] || continue
    local err=$ROOT/build/programs/${clang_of[$(basename "$src")]}/$base.err
    [ -f "$err" ] || continue
    local want got
    want=$(expectations "$src" | awk '{ n += $3 } END { print n + 0 }')
    got=$(grep -c '^omptarget check: stale data' "$err")
    expected=$((expected + want)); total=$((total + got))
    [ "$got" = "$want" ] || bad="$bad $base($got, $want expected)"
  done
  # the stale check's lines (programs that fail a construct on purpose
  # add the plain run's "guard" findings)
  local lines=0
  [ -s "$report" ] && lines=$(grep -c '"check":"stale"' "$report")
  if [ -z "$bad" ] && [ "$lines" = "$expected" ]; then
    ok "programs: $total findings, all expected (stale-expect), ${#progs[@]} programs"
  else
    fail "programs: unexpected findings:${bad:- none by stderr,} report has $lines lines, $expected expected"
  fi
}

# Lessons whose correct program shows dropped writes on purpose (their
# texts explain them; a header line would move the lines they quote).
declare -A lesson_expect=(
  [02-to-from-implicit]=$'released-unread to_only 1\nreleased-unread scratch 1'
)

part_lessons() {
  local n d src bin lesson rc out why log
  n=$(lesson_clang "${LESSONS_CLANG:-}") || { skip "lessons (no usable clang)"; return; }
  local lout=$ROOT/build/lessons
  for d in "$ROOT"/tutorials/[0-9][0-9]-*/; do
    lesson=$(basename "$d"); src=$d/program.c; bin=$lout/$n/$lesson/program
    log=$OUT/lesson-$lesson
    lesson_compile "$n" "$src" "$bin" || { fail "lessons/$lesson: does not compile"; continue; }
    rm -f "$log.json"
    out=$(SIMTARGET_CHECK=stale SIMTARGET_CHECK_REPORT=$log.json LIBOMPTARGET_INFO=0 \
      lesson_run "$n" "$src" "$bin")
    rc=$?
    printf '%s\n' "$out" >"$log.err"
    why=""
    if [ $rc != 0 ] || ! grep -q '^PASS' <<<"$out"; then
      why="exit $rc with the check"
    else
      why=$(compare_findings "${lesson_expect[$lesson]:-}" "$log.json" "$log.err")
    fi
    if [ -z "$why" ]; then ok "lessons/$lesson/program.c clang-$n with the check"
    else fail "lessons/$lesson/program.c clang-$n: $why (output: $log.err)"; fi
  done
}

# run_memcheck BIN LOG N: BIN under memcheck with the check, its output
# (memcheck's too) into LOG; memcheck's errors make the exit status 99.
# --fair-sched=yes: under Valgrind's default lock, libomp 17+'s hidden helper
# threads (a `target nowait` starts them) spin on sched_yield and starve the
# thread they wait for; the run never ended (a host-only program too).
run_memcheck() {
  local bin=$1 log=$2 n=$3
  (cd "$(dirname "$bin")" && SIMTARGET_CHECK=stale OMP_TARGET_OFFLOAD=mandatory \
    LD_LIBRARY_PATH="$ROOT/build/lib:$(eval echo "\$TC_HOSTLIB_$n")" \
    timeout 120 valgrind -q --vgdb=no --fair-sched=yes --error-exitcode=99 "$bin" >"$log" 2>&1)
}

part_memcheck() {
  local n=${STALE_CLEAN_CLANG:-19} src base bin want rc lesson
  command -v valgrind >/dev/null || { skip "memcheck (no valgrind)"; return; }
  [[ " $TOOLCHAINS_USABLE " == *" $n "* ]] || { skip "memcheck (clang $n not usable)"; return; }
  compile_each "$n" "$ROOT"/tests/check_stale/memcheck/*.c
  for src in "$ROOT"/tests/check_stale/memcheck/*.c; do
    base=$(basename "$src" .c); bin=$OUT/$n/$base
    want=$(lesson_field "$src" memcheck-expect | head -1)
    [ -x "$bin" ] || { fail "memcheck/$base.c: does not compile"; continue; }
    run_memcheck "$bin" "$bin.memcheck" "$n"; rc=$?
    if [ $rc = 99 ] && grep -q 'uninitialised value' "$bin.memcheck" &&
       grep -q "($want)" "$bin.memcheck"; then
      ok "memcheck/$base.c clang-$n: memcheck reports the use at $want"
    else
      fail "memcheck/$base.c clang-$n: exit $rc, no report at $want (output: $bin.memcheck)"
    fi
  done
  lesson=12-nowait-depend
  bin=$ROOT/build/lessons/$n/$lesson/program
  lesson_compile "$n" "$ROOT/tutorials/$lesson/program.c" "$bin" ||
    { fail "memcheck: lessons/$lesson does not compile"; return; }
  run_memcheck "$bin" "$OUT/lesson-$lesson.memcheck" "$n"; rc=$?
  if [ $rc = 0 ] && grep -q '^PASS' "$OUT/lesson-$lesson.memcheck"; then
    ok "memcheck: lessons/$lesson/program.c clang-$n clean"
  else
    fail "memcheck: lessons/$lesson/program.c clang-$n: exit $rc (output: $OUT/lesson-$lesson.memcheck)"
  fi
}

for part in "${parts[@]}"; do
  case $part in
    bugs) part_bugs ;;
    programs) part_programs ;;
    lessons) part_lessons ;;
    memcheck) part_memcheck ;;
    *) echo "check_stale.sh: unknown part $part (bugs, programs, lessons, memcheck)"; exit 2 ;;
  esac
done
suite_end
