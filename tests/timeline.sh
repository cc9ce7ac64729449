#!/bin/bash
# tests/timeline.sh - LIBOMPTARGET_PROFILE and tools/simtarget-timeline
# (issue 17). For each program of tutorials/timeline/ and tests/timeline/,
# with clang-14, 19 and the newest usable clang (or --versions): compile it
# (-g -O1, cached in build/timeline-tests/<N>/), run it on simtarget with the
# profile on, and check that
#   - it prints PASS and exits 0 (any status but a signal with "// any-exit:"),
#   - the profile is valid Trace Event Format (tests/timeline/check_profile.py:
#     required fields, X durations, B/E pairs per track, named tracks) and
#     holds what the program's "// profile:" lines say (copies with their
#     direction and bytes, kernels, constructs, nowait overlap, tracks),
#   - simtarget-timeline renders it, and headless chromium lays the SVG out
#     with its events drawn and the program's "// svg:" texts shown
#     (tests/timeline/svg_in_browser.py; skipped without chromium),
#   - data_movement.c on LLVM's own runtime (not 22: none) writes a profile
#     the renderer draws with its copies and kernels coloured (LLVM 14's
#     runtime writes none: skipped).
# Also: every hand-broken profile in tests/timeline/bad/ is rejected, and
# the renderer refuses a file that is not a profile with a message.
#
# Usage: tests/timeline.sh [--versions "14 22"] [PROGRAM.c ...]
# Prints one line per test and "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOL=$ROOT/tools/simtarget-timeline/simtarget-timeline
CHECK=$ROOT/tests/timeline/check_profile.py
BROWSER=$ROOT/tests/timeline/svg_in_browser.py
OUT=$ROOT/build/timeline-tests
LIBDIR=${TIMELINE_LIBDIR:-$ROOT/build/lib}
versions="" progs=()
while [ $# -gt 0 ]; do
  case $1 in
    --versions) versions=$2; shift ;;
    *) progs+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")") ;;
  esac
  shift
done
[ ${#progs[@]} -gt 0 ] || progs=("$ROOT"/tutorials/timeline/*.c "$ROOT"/tests/timeline/*.c)
# shellcheck source=tests/suite_lib.sh
. "$ROOT/tests/suite_lib.sh"

# ---- the validator rejects what breaks the format
for f in "$ROOT"/tests/timeline/bad/*.json; do
  if why=$(python3 "$CHECK" "$f"); then
    fail "check_profile accepts the broken $(basename "$f")"
  else
    ok "check_profile rejects $(basename "$f"): $(head -1 <<<"$why" | cut -c1-80)"
  fi
done
mkdir -p "$OUT"
# (files of this run's own: make check runs this suite beside the coverage
# suite's run of it)
not=$OUT/not_a_profile.$$
echo '{"not": "a profile"}' >"$not.json"
msg=$("$TOOL" "$not.json" -o "$not.svg" 2>&1); rc=$?
rm -f "$not.json" "$not.svg"
if [ $rc = 0 ]; then
  fail "simtarget-timeline renders a file that is not a profile"
elif grep -q "simtarget-timeline: .*" <<<"$msg"; then
  ok "simtarget-timeline refuses a file that is not a profile: $msg"
else
  fail "simtarget-timeline fails without its message: $msg"
fi

ENV_SH=$ROOT/build/toolchains/env.sh
"$ROOT/tests/toolchains.sh" -q >/dev/null 2>&1
if [ ! -f "$ENV_SH" ]; then
  skip "profiled programs (no $ENV_SH: run tests/toolchains.sh)"
  suite_end
fi
# shellcheck disable=SC1090
. "$ENV_SH"
newest=""
for n in $TOOLCHAINS_USABLE; do newest=$n; done
if [ -z "$versions" ]; then
  # 14: libomp before hidden helper threads; 19: LLVM's own profile drawn
  # too; the newest: the SVGs in chromium
  for n in 14 19; do
    [[ " $TOOLCHAINS_USABLE " == *" $n "* ]] && versions="$versions $n"
  done
  [[ " $versions " == *" $newest "* ]] || versions="$versions $newest"
fi

# compile N SRC: OUT/N/<name>, rebuilt when the source or flags change
# shellcheck disable=SC2317 # run by compile_each (xargs bash -c)
compile() {
  local n=$1 src=$2 name cc flags bin cmd
  name=$(basename "$src" .c); bin=$OUT/$n/$name
  eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n"
  cmd="$cc $flags -g -O1 $src -o $bin"
  build_cached "$src" "$bin" "$cmd"
}
export -f compile
export OUT
compile_each "$versions" "${progs[@]}"

for n in $versions; do
  eval "hostlib=\$TC_HOSTLIB_$n"
  for src in "${progs[@]}"; do
    name=$(basename "$src" .c); bin=$OUT/$n/$name; what="$name clang-$n"
    if [ ! -x "$bin" ]; then
      fail "$what: does not compile ($(grep -m1 error "$bin.log" | cut -c1-160))"; continue
    fi
    prof=$bin.json
    rm -f "$prof"
    (cd "$OUT/$n" && LIBOMPTARGET_PROFILE=$prof LD_LIBRARY_PATH=$LIBDIR:$hostlib \
      OMP_TARGET_OFFLOAD=mandatory timeout 60 "$bin" >"$bin.out" 2>"$bin.err")
    rc=$?
    # "// any-exit:": only the profile is judged (exit() cut constructs short)
    if { [ $rc != 0 ] && ! grep -q '^// any-exit:' "$src"; } || [ $rc -gt 128 ] ||
      ! grep -qx PASS "$bin.out"; then
      fail "$what: exit $rc, $(head -c 300 "$bin.err")"; continue
    fi
    if ! why=$(python3 "$CHECK" "$prof" "$src"); then
      fail "$what: profile: $why"; continue
    fi
    ok "$what: profile valid, $(grep -c '^// profile:' "$src") expectations met"
    if [ "$name" = data_movement ] && [ "$n" != 22 ]; then
      # LLVM's own runtime writes its LIBOMPTARGET_PROFILE; the renderer
      # draws that too (a comparison picture for a lesson)
      eval "rtdir=\$TC_RTDIR_$n"
      rm -f "$bin.llvm.json"
      (cd "$OUT/$n" && LIBOMPTARGET_PROFILE=$bin.llvm.json LD_LIBRARY_PATH=$rtdir \
        timeout 60 "$bin" >/dev/null 2>&1)
      if [ ! -s "$bin.llvm.json" ]; then
        skip "$what: LLVM $n's runtime wrote no profile"
      elif "$TOOL" "$bin.llvm.json" -o "$bin.llvm.svg" 2>"$bin.llvm.svg.err" &&
        grep -q 'data-kind="to_device"' "$bin.llvm.svg" && grep -q 'data-kind="kernel"' "$bin.llvm.svg"; then
        ok "$what: LLVM $n's own profile drawn, its copies and kernels coloured"
      else
        fail "$what: LLVM $n's profile: $(head -c 300 "$bin.llvm.svg.err")"
      fi
    fi
    [ "$n" = "$newest" ] || continue
    if ! "$TOOL" --skip-startup "$prof" -o "$bin.svg" 2>"$bin.svg.err"; then
      fail "$what: simtarget-timeline: $(cat "$bin.svg.err")"; continue
    fi
    texts=()
    while IFS= read -r t; do texts+=("$t"); done < <(sed -n -E 's@^// svg: *(.*[^ ]) *$@\1@p' "$src")
    res=$(python3 "$BROWSER" "$bin.svg" ${texts[@]+"${texts[@]}"}); brc=$?
    case $brc in
      0) ok "$what: chromium draws the SVG: $res" ;;
      77) skip "$what: SVG in chromium: $res" ;;
      *) fail "$what: SVG in chromium: $res" ;;
    esac
  done
done
suite_end
