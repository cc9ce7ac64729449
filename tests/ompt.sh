#!/bin/sh
# tests/ompt.sh - OMPT for offload (README "OMPT"): every program of
# tests/ompt/programs/ is compiled by each clang (default 14 and 19) and run
# with the recording tool tests/ompt/record_tool.c attached through libomp
# (OMP_TOOL_LIBRARIES). A version C@L (default 14@19) runs clang C's
# programs with LLVM L's libomp and compares them with LLVM L's runtime.
#
# With a libomp that has the handshake (ompt_libomp_connect: 19, not 14):
#   - the events pass tests/ompt/events.py's structural check;
#   - normalized, they equal tests/ompt/programs/NAME.expected (NAME's
#     "per-construct" programs: their constructs, each normalized alone);
#   - differential: on that clang's own LLVM runtime the same program gives
#     the same events, normalized with --llvm-diff; a known difference is
#     stored as NAME.llvmN.diff (the diff output, reasons in the README);
#   - "nonemi" programs run again with the non-EMI callbacks, compared the
#     same way with LLVM;
#   - "trace" programs run again with device tracing on (OMPT_RECORD_TRACE):
#     each operation has its trace record (events.py trace-check); with
#     "kernel-time MS" each kernel record spans at least MS ms and lies
#     within its construct on the tool's own clock, and every copy back
#     from the device begins after its construct's kernel ended there
#     (events.py kernel-time).
#   - timeline: the program runs again with the OMPT timeline tool
#     (build/lib/libsimtarget-ompt-timeline.so, tools/simtarget-ompt-timeline)
#     and LIBOMPTARGET_PROFILE both on; the two timelines hold the same
#     constructs, allocations, frees, copies and kernels in the same order
#     per host thread and device (tests/ompt/compare_timelines.py), the
#     comparison sees one copy left out of the OMPT timeline, and
#     tools/simtarget-timeline draws it; "trace" programs once more with
#     the tool drawing copies and kernels from the device-tracing records
#     (SIMTARGET_OMPT_TIMELINE_TRACE=1); with LLVM's own runtime the tool's
#     timeline is drawn too.
# Without it (libomp 14): no tool receives a target event, on simtarget as
# on LLVM 14's own runtime, which has no OMPT for offload (the timeline
# tool's file stays an empty array).
#
# Usage: tests/ompt.sh [--versions "14 19"] [PROGRAM.c ...]
# Env: OMPT_LIBDIR  the simtarget library folder (default build/lib; the
#      coverage run points it at its instrumented build)
# Prints "N passed, N failed, N skipped" last.
set -u
cd "$(dirname "$0")/.." || exit 1
VERSIONS="14 19 14@19"
if [ "${1:-}" = "--versions" ]; then VERSIONS=$2; shift 2; fi
PROGRAMS=${*:-$(ls tests/ompt/programs/*.c)}
ENVSH=build/toolchains/env.sh
SIMLIB=${OMPT_LIBDIR:-$PWD/build/lib}
pass=0 fail=0 skip=0 traced=""
if [ ! -f "$ENVSH" ] || [ ! -e build/lib/libomptarget.so ]; then
  echo "skip: no $ENVSH or build/lib (make all; tests/toolchains.sh)"
  echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
. "./$ENVSH"
EVENTS="python3 tests/ompt/events.py"
ok() { pass=$((pass + 1)); echo "ok    $*"; }
bad() { fail=$((fail + 1)); echo "FAIL  $*"; }

# run WHO (sim|llvm) BIN RECORD ENV...: the program with the tool attached;
# 0 when it printed PASS.
run() {
  who=$1 bin=$2 rec=$3; shift 3
  if [ "$who" = sim ]; then lib=$SIMLIB:$hostlib; else lib=$rtdir; fi
  rm -f "$rec"
  env "$@" LD_LIBRARY_PATH="$lib" OMP_TOOL_LIBRARIES="$tool" \
    OMPT_RECORD="$rec" timeout 120 "$bin" > "$rec.out" 2> "$rec.err"
  st=$?
  [ -f "$rec" ] || : > "$rec" # libomp never started: no tool either
  [ "$st" -eq 0 ] && grep -q '^PASS' "$rec.out"
}

# view MODE RECORD: the normalized events (MODE: normalize or constructs).
view() { $EVENTS "$1" "$2" ${3:-}; }

# differential NAME MODE SIM LLVM: the --llvm-diff views equal, or differ
# exactly as NAME.llvmN.diff says.
differential() {
  d=$out/$1.llvm.diff
  diff "$3.view" "$4.view" > "$d"
  known=tests/ompt/programs/$1.llvm$lv.diff
  if [ ! -s "$d" ] && [ ! -f "$known" ]; then ok "$1 clang $v ($2): as LLVM $lv"
  elif [ -f "$known" ] && cmp -s "$d" "$known"; then
    ok "$1 clang $v ($2): as LLVM $lv but the known difference ($known)"
  else bad "$1 clang $v ($2): events differ from LLVM $lv's:"; head -20 "$d"; fi
}

# timeline NAME BIN WHO ENV...: the OMPT timeline tool and the profile on
# one run (WHO sim), or the tool alone on LLVM's runtime (WHO llvm).
TIMELINE_TOOL=$PWD/build/lib/libsimtarget-ompt-timeline.so
COMPARE="python3 tests/ompt/compare_timelines.py"
DRAW=tools/simtarget-timeline/simtarget-timeline
timeline() {
  name=$1 bin=$2 who=$3; shift 3
  if [ ! -e "$TIMELINE_TOOL" ]; then
    skip=$((skip + 1)); echo "skip  $name clang $v: no $TIMELINE_TOOL (make all)"; return
  fi
  tl=$bin.$who$traced.timeline.json prof=$bin.$who$traced.profile.json
  if [ "$who" = sim ]; then lib=$SIMLIB:$hostlib; else lib=$rtdir; fi
  rm -f "$tl" "$prof"
  set -- "$@" LD_LIBRARY_PATH="$lib" OMP_TOOL_LIBRARIES="$TIMELINE_TOOL" \
    SIMTARGET_OMPT_TIMELINE="$tl"
  [ -n "$traced" ] && set -- "$@" SIMTARGET_OMPT_TIMELINE_TRACE=1
  [ "$who" = sim ] && set -- "$@" LIBOMPTARGET_PROFILE="$prof"
  if ! env "$@" timeout 120 "$bin" > "$tl.out" 2> "$tl.err" ||
      ! grep -q '^PASS' "$tl.out"; then
    bad "$name clang $v: the program failed with the timeline tool ($who)"
    head -5 "$tl.err"; return
  fi
  if [ -z "$connect" ]; then
    [ -f "$tl" ] || echo '[]' > "$tl" # libomp never started: no tool either
    if [ "$(tr -d ' \n' < "$tl")" = "[]" ]; then
      ok "$name clang $v: no handshake: the OMPT timeline is empty"
    else bad "$name clang $v: OMPT timeline events without the handshake"; fi
    return
  fi
  if ! python3 tests/timeline/check_profile.py "$tl" > "$tl.check" ||
      ! "$DRAW" "$tl" -o "$tl.svg" 2> "$tl.svg.err" ||
      ! grep -q 'data-kind="construct"' "$tl.svg"; then
    bad "$name clang $v: the OMPT timeline ($who) is not drawn:"
    cat "$tl.check" "$tl.svg.err" | head -5; return
  fi
  if [ "$who" = llvm ]; then
    ok "$name clang $v: OMPT timeline on LLVM $lv's runtime drawn"; return
  fi
  if ! $COMPARE ${traced:+--trace} "$prof" "$tl" > "$tl.cmp"; then
    bad "$name clang $v: the OMPT timeline and the profile differ:"
    head -10 "$tl.cmp"; return
  fi
  # the comparison must see a difference: one copy left out
  python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))
ev.remove(next(e for e in ev if e.get("cat") == "copy"))
json.dump(ev, open(sys.argv[2], "w"))' "$tl" "$tl.cut.json"
  $COMPARE ${traced:+--trace} "$prof" "$tl.cut.json" > /dev/null
  if [ $? -ne 1 ]; then
    bad "$name clang $v: the comparison misses a copy left out"; return
  fi
  if [ -n "$traced" ]; then
    # from the records, flushed later: the first construct comes first
    c=$(grep -n -m1 '"cat":"construct"' "$tl" | cut -d: -f1)
    a=$(grep -n -m1 '"cat":"alloc"' "$tl" | cut -d: -f1)
    if [ -z "$c" ] || [ -z "$a" ] || [ "$c" -gt "$a" ]; then
      bad "$name clang $v: device tracing: the events are not the records'"; return
    fi
    ok "$name clang $v: OMPT timeline from the trace records, as the profile: $(cat "$tl.cmp")"
  else ok "$name clang $v: OMPT timeline drawn, as the profile: $(cat "$tl.cmp")"; fi
}

one_program() { # SOURCE
  src=$1 name=$(basename "$1" .c)
  envs=$(sed -n 's/^.*env: \(.*\)$/\1/p' "$src" | head -1)
  mode=normalize
  grep -q 'per-construct' "$src" && mode=constructs
  bin=$out/$name
  if ! $cc $flags -O2 "$src" -o "$bin" 2> "$bin.cc"; then
    bad "$name clang $v: does not compile"; cat "$bin.cc"; return
  fi
  if ! run sim "$bin" "$bin.sim" $envs; then
    bad "$name clang $v: the program failed on simtarget"; cat "$bin.sim.err"; return
  fi
  if [ -z "$connect" ]; then
    if grep -v ' tool_' "$bin.sim" | grep -q .; then
      bad "$name clang $v: events without the libomp handshake"
    else ok "$name clang $v: libomp $v has no ompt_libomp_connect: no events"; fi
    if ! grep -q 'simtarget-only' "$src" && [ -e "$rtdir/libomptarget.so" ] &&
        run llvm "$bin" "$bin.llvm" $envs; then
      if grep -v ' tool_' "$bin.llvm" | grep -q .; then
        bad "$name clang $v: LLVM $lv raised target events: compare them"
      else ok "$name clang $v: no events on LLVM $lv's runtime either"; fi
    fi
    timeline "$name" "$bin" sim $envs
    return
  fi
  if ! $EVENTS check "$bin.sim"; then bad "$name clang $v: structure"; return; fi
  view $mode "$bin.sim" > "$bin.sim.norm"
  if diff -u "tests/ompt/programs/$name.expected" "$bin.sim.norm" > "$bin.d"; then
    ok "$name clang $v: events as expected"
  else bad "$name clang $v: events differ from $name.expected:"; head -30 "$bin.d"; fi
  if grep -q 'ompt: .*trace' "$src"; then
    if run sim "$bin" "$bin.tsim" $envs OMPT_RECORD_TRACE=1 &&
        $EVENTS check "$bin.tsim" && $EVENTS trace-check "$bin.tsim"; then
      ok "$name clang $v: device tracing"
    else bad "$name clang $v: device tracing"; fi
    ms=$(sed -n 's/^.*ompt: .*kernel-time \([0-9]*\).*$/\1/p' "$src" | head -1)
    if [ -n "$ms" ]; then
      if $EVENTS kernel-time "$bin.tsim" "$ms"; then
        ok "$name clang $v: kernels timed on the device"
      else bad "$name clang $v: kernels timed on the device"; fi
    fi
  fi
  timeline "$name" "$bin" sim $envs
  if grep -q 'ompt: .*trace' "$src"; then
    traced=.trace
    timeline "$name" "$bin" sim $envs
    traced=""
  fi
  grep -q 'simtarget-only' "$src" && return
  if [ ! -e "$rtdir/libomptarget.so" ]; then
    skip=$((skip + 1)); echo "skip  $name clang $v: no LLVM runtime"; return
  fi
  if ! run llvm "$bin" "$bin.llvm" $envs; then
    skip=$((skip + 1)); echo "skip  $name clang $v: fails on LLVM's runtime"; return
  fi
  view $mode "$bin.sim" --llvm-diff > "$bin.sim.view"
  view $mode "$bin.llvm" --llvm-diff > "$bin.llvm.view"
  differential "$name" emi "$bin.sim" "$bin.llvm"
  timeline "$name" "$bin" llvm $envs
  grep -q 'nonemi' "$src" || return
  run sim "$bin" "$bin.nsim" $envs OMPT_RECORD_NONEMI=1 &&
    run llvm "$bin" "$bin.nllvm" $envs OMPT_RECORD_NONEMI=1 ||
    { bad "$name clang $v: non-EMI runs failed"; return; }
  view $mode "$bin.nsim" --llvm-diff > "$bin.nsim.view"
  view $mode "$bin.nllvm" --llvm-diff > "$bin.nllvm.view"
  differential "$name.nonemi" non-emi "$bin.nsim" "$bin.nllvm"
}

for v in $VERSIONS; do
  cv=${v%@*} lv=${v#*@} # clang cv's program, run with LLVM lv's libomp
  eval "cc=\${TC_CC_$cv:-} flags=\${TC_FLAGS_$cv:-} hostlib=\${TC_HOSTLIB_$lv:-}"
  eval "rtdir=\${TC_RTDIR_$lv:-}"
  if [ -z "$cc" ] || [ -z "$hostlib" ]; then
    skip=$((skip + 1)); echo "skip  clang $v: not in $ENVSH"; continue
  fi
  out=build/ompt/$v
  mkdir -p "$out"
  inc=$(printf '%s\n' $flags | sed -n 's/^-I//p' | head -1)
  tool=$PWD/$out/record_tool.so
  if ! $cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$inc" \
      tests/ompt/record_tool.c -o "$tool" -lm; then
    bad "clang $v: the recording tool does not compile"; continue
  fi
  connect=$(nm -D "$hostlib/libomp.so.5" 2>/dev/null | grep -w ompt_libomp_connect)
  for p in $PROGRAMS; do one_program "$p"; done
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
