#!/bin/bash
# tests/traces.sh - golden SIMTARGET_TRACE files of the map-codegen programs
# in tests/traces/programs/ (C and C++), per clang (issue 16). For each program and each
# usable clang: compile it once (-g -O1; cached in build/traces/<N>/), run it
# on simtarget with the trace on, and check that
#   - it prints PASS and exits 0 (or exits with its "expect-exit:" status,
#     its stderr matching the extended regex of "expect-stderr:"),
#   - every line of the trace is valid against
#     tools/simtarget-maps/trace.schema.json (python3-jsonschema),
#   - `simtarget-maps check` finds what the program's "check:" header says
#     (a rule name, and no other; none: no violation),
#   - with "keep-going-violations: N", `simtarget-maps run --keep-going`
#     runs the program to its end and reports N violations,
#   - a second run of the binary, with address-space randomisation off
#     where `setarch -R` may turn it off (the heap then lies right after the
#     globals: a layout the first run seldom has), gives a trace that
#     `simtarget-maps diff` finds equal to the first (no false differences),
#   - the normalised trace (simtarget-maps normalize) equals
#     tests/traces/golden/<N>/<program>.jsonl.
# Then the checker's own tests: tests/traces/rules/<rule>.jsonl are
# hand-built traces that each break one rule (and only it), and
# tests/traces/malformed/ traces that break the schema (expected.txt: the
# message for each malformed line, with its number), and the diffs of the
# golden traces of clang 14, 19 and 22 (tests/traces/diffs/).
#
# Usage: tests/traces.sh [--update] [--versions "19 22"] [PROGRAM.c ...]
#   --update   rewrite the golden files from this run (review the diff)
# Prints one line per test and "N passed, N failed, N skipped".
set -u
# setarch -R: no address-space randomisation, where seccomp allows it
NORANDOM=""
setarch -R true 2>/dev/null && NORANDOM="setarch -R"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOL=$ROOT/build/bin/simtarget-maps
SCHEMA=$ROOT/tools/simtarget-maps/trace.schema.json
PROGDIR=$ROOT/tests/traces/programs
GOLDEN=$ROOT/tests/traces/golden
OUT=$ROOT/build/traces
# TRACES_LIBDIR replaces build/lib as the simtarget under test (coverage.sh).
LIBDIR=${TRACES_LIBDIR:-$ROOT/build/lib}
update=0 versions="" progs=()
while [ $# -gt 0 ]; do
  case $1 in
    --update) update=1 ;;
    --versions) versions=$2; shift ;;
    *) progs+=("$1") ;;
  esac
  shift
done
[ ${#progs[@]} -gt 0 ] || progs=("$PROGDIR"/*.c "$PROGDIR"/*.cpp)
# shellcheck source=tests/suite_lib.sh
. "$ROOT/tests/suite_lib.sh"

[ -x "$TOOL" ] || { echo "no $TOOL (run make)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

# ---- the checker's rules, one hand-built trace each
for t in "$ROOT"/tests/traces/rules/*.jsonl; do
  [ -f "$t" ] || continue
  rule=$(basename "$t" .jsonl); rule=${rule%%.*} # RULE.VARIANT.jsonl
  out=$("$TOOL" check "$t" 2>&1); rc=$?
  # each violation names the trace line of its construct's call
  while read -r seq line; do
    [ -n "$seq" ] || continue
    want=$(grep -n "\"ev\":\"call\",\"seq\":$seq," "$t" | cut -d: -f1)
    [ "$line" = "$want" ] || { rc=99; out="trace line $line, the call is on line $want: $out"; }
  done < <(sed -n -E 's/.*\(construct ([0-9]+), [a-z]+, trace line ([0-9]+)\).*/\1 \2/p' <<<"$out")
  if [ "$rule" = correct ]; then
    [ $rc = 0 ] && ok "check rule: correct trace, no violation" || fail "check: correct trace: $out"
  elif [ $rc = 1 ] && grep -q "\[$rule\]" <<<"$out" && [ "$(grep -c '\[' <<<"$out")" = "$(grep -c "\[$rule\]" <<<"$out")" ]; then
    ok "check rule: $rule ($(basename "$t"))"
  else
    fail "check rule $rule (exit $rc): $out"
  fi
done

# ---- malformed traces: every broken line named with its number, exit 2
while read -r file msgs; do
  case $file in ''|'#'*) continue ;; esac
  err=$("$TOOL" check "$ROOT/tests/traces/malformed/$file" 2>&1 >/dev/null); rc=$?
  missing=
  IFS='|' read -ra want <<<"$msgs"
  for m in "${want[@]}"; do grep -qE -- "$m" <<<"$err" || missing="$missing /$m/"; done
  if [ $rc = 2 ] && [ -z "$missing" ]; then
    ok "malformed trace: $file"
  else
    fail "malformed trace $file (exit $rc, missing$missing): $err"
  fi
done <"$ROOT/tests/traces/malformed/expected.txt"

# ---- diff between the golden traces of two clangs (tests/traces/diffs/
# NAME.A-B[.summary].txt: `simtarget-maps diff [--summary] A/NAME B/NAME`)
for want in "$ROOT"/tests/traces/diffs/*.txt; do
  [ -f "$want" ] || continue
  f=$(basename "$want" .txt); opt=
  case $f in *.summary) opt=--summary; f=${f%.summary} ;; esac
  name=${f%.*} pair=${f##*.}
  got=$(cd "$GOLDEN" && "$TOOL" diff $opt "${pair%-*}/$name.jsonl" "${pair#*-}/$name.jsonl" 2>&1)
  if [ $update = 1 ]; then
    echo "$got" >"$want"; ok "diff $f $opt (written)"
  elif [ "$got" = "$(cat "$want")" ]; then
    ok "diff $f $opt"
  else
    fail "diff $f $opt: $(diff <(echo "$got") "$want" | head -6)"
  fi
done

ENV_SH=$ROOT/build/toolchains/env.sh
if [ ! -f "$ENV_SH" ]; then
  skip "golden traces (no $ENV_SH: run tests/toolchains.sh)"
  suite_end
fi
# shellcheck disable=SC1090
. "$ENV_SH"
[ -n "$versions" ] || versions=$TOOLCHAINS_USABLE

# ---- matrix: two clangs in one command, their verdicts, rules and diff
if grep -qw 19 <<<"$TOOLCHAINS_USABLE" && grep -qw 22 <<<"$TOOLCHAINS_USABLE"; then
  mx=$("$TOOL" matrix --clang 19,22 --toolchains "$ENV_SH" --lib "$LIBDIR" \
    "$PROGDIR/nested_ptr_member.c" 2>&1)
  if grep -q '^clang-19 .*simtarget: exit 1 (.*`s.in.n`.*rules: member-inside x2$' <<<"$mx" &&
    grep -q '^clang-22 .*simtarget: exit 1 .*rules: attach-storage x1  vs clang-19: [1-9][0-9]* differences in 1 construct$' <<<"$mx"; then
    ok "matrix nested_ptr_member.c --clang 19,22"
  else
    fail "matrix nested_ptr_member.c --clang 19,22: $mx"
  fi
fi
have_jsonschema=1
python3 -c 'import jsonschema' 2>/dev/null || have_jsonschema=0

# compile N SRC: build/traces/N/<name>, rebuilt when the source or flags change
# shellcheck disable=SC2317 # run by compile_each (xargs bash -c)
compile() {
  local n=$1 src=$2 name cc flags bin cmd
  local file extra=
  file=$(basename "$src"); name=${file%.*}; bin=$OUT/$n/$name
  eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n"
  case $file in *.cpp) cc=${cc/clang-/clang++-}; extra=-lstdc++ ;; esac
  # (--allow-shlib-undefined: half a compile's time, tests/programs.sh says why)
  cmd="$cc $flags -g -O1 -Wl,--allow-shlib-undefined $(sed -n -E 's@^// cflags: *(.*)$@\1@p' "$src" | head -1) $file $extra -o $bin"
  (cd "$PROGDIR" && build_cached "$src" "$bin" "$cmd")
}
export -f compile
export OUT PROGDIR
compile_each "$versions" "${progs[@]}"

for n in $versions; do
  eval "hostlib=\$TC_HOSTLIB_$n"
  for src in "${progs[@]}"; do
    name=$(basename "$src"); name=${name%.*}; bin=$OUT/$n/$name; what="$name clang-$n"
    if [ ! -x "$bin" ]; then
      fail "$what: does not compile ($(grep -m1 error "$bin.log" | cut -c1-160))"; continue
    fi
    trace=$bin.jsonl
    # "env:": settings of the run (SIMTARGET_KEEP_GOING=1)
    runenv=$(sed -n -E 's@^// env: *(.*)$@\1@p' "$src" | head -1)
    (cd "$OUT/$n" && env $runenv SIMTARGET_TRACE=$trace LD_LIBRARY_PATH=$LIBDIR:$hostlib \
      OMP_TARGET_OFFLOAD=mandatory timeout 60 "$bin" >"$bin.out" 2>"$bin.err")
    rc=$?
    want_exit=$(sed -n -E 's@^// expect-exit: *([0-9]+).*@\1@p' "$src" | head -1)
    if [ "$rc" != "${want_exit:-0}" ] || { [ -z "$want_exit" ] && ! grep -qx PASS "$bin.out"; }; then
      fail "$what: exit $rc, $(head -c 300 "$bin.err")"; continue
    fi
    want_err=$(sed -n -E 's@^// expect-stderr: *(.*)$@\1@p' "$src" | head -1)
    if [ -n "$want_err" ] && ! grep -qE "$want_err" "$bin.err"; then
      fail "$what: stderr does not match /$want_err/: $(head -c 600 "$bin.err")"; continue
    fi
    if [ $have_jsonschema = 1 ]; then
      bad=$(python3 - "$SCHEMA" "$trace" <<'PY'
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
for no, line in enumerate(open(sys.argv[2]), 1):
    for e in v.iter_errors(json.loads(line)):
        print(f"line {no}: {e.json_path}: {e.message}"); sys.exit(0)
PY
)
      [ -z "$bad" ] || { fail "$what: trace does not match the schema: $bad"; continue; }
    fi
    want=$(sed -n -E 's@^// check: *([a-z-]+).*@\1@p' "$src" | head -1)
    # "check-versions:": the clangs whose codegen breaks that rule
    wantv=$(sed -n -E 's@^// check-versions: *(.*)$@\1@p' "$src" | head -1)
    [ -n "$wantv" ] && ! grep -qw "$n" <<<"$wantv" && want=
    # "check-N: rule": what clang N breaks instead
    wantn=$(sed -n -E "s@^// check-$n: *([a-z-]+).*@\\1@p" "$src" | head -1)
    [ -n "$wantn" ] && want=$wantn
    check=$("$TOOL" check "$trace"); crc=$?
    if [ -z "$want" ] && [ $crc != 0 ]; then
      fail "$what: check found violations: $(grep '\[' <<<"$check" | head -3)"; continue
    fi
    if [ -n "$want" ] && ! grep -q "\[$want\]" <<<"$check"; then
      fail "$what: check should report [$want]: $check"; continue
    fi
    # exactly that rule: a known codegen bug, and nothing else
    if [ -n "$want" ] && grep '\[[a-z-]*\]' <<<"$check" | grep -qv "\[$want\]"; then
      fail "$what: check reports more than [$want]: $(grep '\[' <<<"$check" | grep -v "\[$want\]" | head -3)"; continue
    fi
    # "keep-going-violations: N": `simtarget-maps run --keep-going` runs
    # the whole program and finds N violations (exit status 1)
    wantkg=$(sed -n -E 's@^// keep-going-violations: *([0-9]+).*@\1@p' "$src" | head -1)
    if [ -n "$wantkg" ]; then
      kg=$(cd "$OUT/$n" && LD_LIBRARY_PATH=$LIBDIR:$hostlib OMP_TARGET_OFFLOAD=mandatory \
        timeout 60 "$TOOL" run --keep-going -- "$bin" 2>/dev/null); kgrc=$?
      if [ $kgrc != 1 ] || ! grep -q "exit status 0, [0-9]* constructs, $wantkg violations" <<<"$kg"; then
        fail "$what: simtarget-maps run --keep-going (exit $kgrc): $(tail -1 <<<"$kg")"; continue
      fi
    fi
    # a second run of the same binary, in another layout: `diff` finds no
    # difference
    if [ -z "$want_exit" ]; then
      (cd "$OUT/$n" && env $runenv SIMTARGET_TRACE=$bin.2.jsonl LD_LIBRARY_PATH=$LIBDIR:$hostlib \
        OMP_TARGET_OFFLOAD=mandatory timeout 60 $NORANDOM "$bin" >/dev/null 2>&1)
      if ! twice=$("$TOOL" diff "$trace" "$bin.2.jsonl" 2>&1); then
        fail "$what: diff of two runs: $(head -3 <<<"$twice")"; continue
      fi
    fi
    golden=$GOLDEN/$n/$name.jsonl
    "$TOOL" normalize "$trace" >"$bin.norm"
    golden_compare "$what" "$bin.norm" "$golden" $update "tests/traces.sh --update"
  done
done
suite_end
