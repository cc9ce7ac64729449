#!/bin/bash
# tutorials/timeline.sh PROGRAM.c OUT.svg [clang version]: compile PROGRAM.c
# with the newest usable clang (-g -O1), run it on simdevice with
# LIBOMPTARGET_PROFILE=build/timeline/OUT.json and render that profile
# with tools/simtarget-timeline --skip-startup (the time before the device
# process was ready is left out). Needs `make all` first. The program's own
# output and exit status pass through; the picture is drawn either way.
#
# --ompt: the timeline comes from OMPT instead, written by the OMPT tool
# build/lib/libsimtarget-ompt-timeline.so (OMP_TOOL_LIBRARIES) from the
# target events libomp hands it; needs a clang whose libomp connects an
# offload runtime to a tool (19 or later; the newest such by default).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OMPT=0
if [ "${1:-}" = --ompt ]; then OMPT=1; shift; fi
if [ $# -lt 2 ]; then
  echo "usage: tutorials/timeline.sh [--ompt] PROGRAM.c OUT.svg [CLANG_VERSION]" >&2
  exit 2
fi
SRC=$1 SVG=$2 WANT=${3:-}
tools="libomptarget.so libomptarget.rtl.simdevice.so"
[ $OMPT = 1 ] && tools="$tools libsimtarget-ompt-timeline.so"
for f in $tools; do
  if [ ! -e "$ROOT/build/lib/$f" ]; then
    echo "timeline: build/lib/$f is missing: run 'make all' first" >&2
    exit 2
  fi
done
"$ROOT/tests/toolchains.sh" -q >/dev/null 2>&1
if [ ! -r "$ROOT/build/toolchains/env.sh" ]; then
  echo "timeline: tests/toolchains.sh found no usable clang; run it to see why" >&2
  exit 2
fi
# shellcheck disable=SC1091
. "$ROOT/build/toolchains/env.sh"
n=$WANT
# libomp 14 has no ompt_libomp_connect; 16's connects nothing (README "OMPT")
[ -n "$n" ] || for v in $TOOLCHAINS_USABLE; do
  [ $OMPT = 1 ] && [ "$v" -lt 19 ] || n=$v
done
if [ -z "$n" ] || ! [[ " $TOOLCHAINS_USABLE " == *" $n "* ]]; then
  echo "timeline: clang-${n:-?} is not usable (usable: ${TOOLCHAINS_USABLE:-none})" >&2
  exit 2
fi
eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n hostlib=\$TC_HOSTLIB_$n"
work="$ROOT/build/timeline"
mkdir -p "$work"
bin="$work/$(basename "${SRC%.*}")"
json="$work/$(basename "${SVG%.svg}").json"
# shellcheck disable=SC2086
if ! $cc $flags -g -O1 "$SRC" -o "$bin"; then
  echo "timeline: compiling $SRC with clang-$n failed" >&2
  exit 2
fi
rm -f "$json"
if [ $OMPT = 1 ]; then
  SIMTARGET_OMPT_TIMELINE=$json OMP_TOOL_LIBRARIES="$ROOT/build/lib/libsimtarget-ompt-timeline.so" \
    OMP_TARGET_OFFLOAD=mandatory LD_LIBRARY_PATH="$ROOT/build/lib:$hostlib" "$bin"
  rc=$? source="simdevice, OMPT tool"
else
  LIBOMPTARGET_PROFILE=$json OMP_TARGET_OFFLOAD=mandatory \
    LD_LIBRARY_PATH="$ROOT/build/lib:$hostlib" "$bin"
  rc=$? source=simdevice
fi
if ! "$ROOT/tools/simtarget-timeline/simtarget-timeline" --skip-startup \
    --title "$(basename "$SRC") (clang-$n, $source)" "$json" -o "$SVG"; then
  echo "timeline: rendering $json failed" >&2
  exit 2
fi
echo "timeline: $json -> $SVG" >&2
exit "$rc"
