#!/bin/bash
# tutorials/demo.sh - compile tutorials/demo.c with the newest usable clang,
# run it on simdevice with LIBOMPTARGET_INFO showing what is mapped, copied
# and launched, and explain what was shown. Run by `make demo` (after `make
# all`). Installs nothing: tests/toolchains.sh only downloads LLVM's libomp
# packages into build/toolchains/ and unpacks them there.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/build/demo"
SRC=${1:-$ROOT/tutorials/demo.c}

for f in libomptarget.so libomptarget.rtl.simdevice.so; do
  if [ ! -e "$ROOT/build/lib/$f" ]; then
    echo "demo: build/lib/$f is missing: run 'make all' first" >&2
    exit 1
  fi
done
if ! ls /usr/bin/clang-[0-9]* >/dev/null 2>&1; then
  cat >&2 <<'MSG'
demo: no clang found. Install one with its OpenMP offload tools, for example:
  sudo apt-get install clang-14 clang-tools-14 libomp-14-dev
(or clang-19 clang-tools-19 llvm-19: the demo then fetches LLVM 19's libomp
packages itself into build/toolchains/, installing nothing).
MSG
  exit 1
fi
"$ROOT/tests/toolchains.sh" -q >/dev/null 2>&1
if [ ! -r "$ROOT/build/toolchains/env.sh" ]; then
  echo "demo: tests/toolchains.sh found no usable clang; run it to see why" >&2
  exit 1
fi
# shellcheck disable=SC1091
. "$ROOT/build/toolchains/env.sh"
newest=""
for n in $TOOLCHAINS_USABLE; do newest=$n; done
if [ -z "$newest" ]; then
  echo "demo: no usable clang; run tests/toolchains.sh to see why, then e.g." >&2
  echo "  sudo apt-get install clang-14 clang-tools-14 libomp-14-dev" >&2
  exit 1
fi
eval "cc=\$TC_CC_$newest flags=\$TC_FLAGS_$newest hostlib=\$TC_HOSTLIB_$newest"
mkdir -p "$OUT"
bin="$OUT/$(basename "${SRC%.c}")"
echo "== compiling with clang-$newest:"
echo "   $cc -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O1 $(basename "$SRC")"
# shellcheck disable=SC2086
if ! $cc $flags -g -O1 "$SRC" -o "$bin"; then
  echo "demo: compiling failed" >&2
  exit 1
fi
info=${LIBOMPTARGET_INFO:-0x29}
echo "== running on simdevice (LIBOMPTARGET_INFO=$info; 0x29 = kernel launches, mapping changes, copies):"
echo
# stdbuf -oL: through the pipe the program's stdout would be block-buffered
# and all its lines would come after the whole trace; line-buffered, each
# line stands where the program printed it.
LIBOMPTARGET_INFO=$info OMP_TARGET_OFFLOAD=mandatory \
  LD_LIBRARY_PATH="$ROOT/build/lib:$hostlib" stdbuf -oL "$bin" 2>&1 | sed 's/^omptarget info: /  | /'
rc=${PIPESTATUS[0]}
[ "$SRC" = "$ROOT/tutorials/demo.c" ] && cat <<'EXPLAIN'

== what you just saw
 * "Creating new map entry": `target data` allocated x and y in the device
   process (addresses 0x6000... live there, not in this program), then
   "Copying data from host to device" sent both (x is `to`, y is `tofrom`).
 * "Launching kernel ...": the first `target` region ran in the device
   process. x and y were already present, so nothing was copied; the
   kernel's parameters are the device addresses.
 * After the host changed x, `target update to(x)` copied x again: without
   it the device would still use the old values.
 * When `target data` ended, only y was copied back ("device to host") and
   both entries were removed.
 * The teams loop mapped y again (`to`), ran with num_teams=2 thread_limit=4,
   and brought back only the reduction variable `sum`.
 Try: remove `target update to(x)` from demo.c and run again; the check at
 the end fails, because the device kept the stale x. Lessons on each of these
 points: tutorials/README.md (e.g. tutorials/run.sh 03).
EXPLAIN
exit "$rc"
