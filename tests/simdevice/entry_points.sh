#!/bin/bash
# tests/simdevice/entry_points.sh - every entry point that device code can
# reach in LLVM's own runtimes (the __kmpc_* and omp_* names exported by each
# libomp 13-22 found here, and the omp_*/llvm_omp_*/__kmpc_* names of each
# LLVM libomptarget) is either exported by simdevice's device runtime
# (build/lib/simdevice/libomp.so.5) or listed, with the construct that needs
# it, in simdevice/runtime/unsupported.def (the deliberate gaps; an image
# calling one fails to load naming that construct). A new clang's libomp
# with a new entry point makes this fail until it is decided.
# Fortran bindings (names ending in "_") are left out: device code from C
# and C++ never calls them.
# Prints one line per library and "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNTIME="$ROOT/build/lib/simdevice/libomp.so.5"
GAPS="$ROOT/simdevice/runtime/unsupported.def"
passed=0 failed=0 skipped=0

if [ ! -f "$RUNTIME" ]; then
  echo "FAIL  $RUNTIME is not built (make all)"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi
exports() { nm -D --defined-only "$1" 2>/dev/null | awk '{print $3}' | sed 's/@.*//' | sort -u; }
ours=$(exports "$RUNTIME")
gap_names=$(sed -nE 's/^GAP\("([^"]+)".*/\1/p' "$GAPS" | sort -u)
gap_prefixes=$(sed -nE 's/^GAP_PREFIX\("([^"]+)".*/\1/p' "$GAPS")

covered() { # name: exported, or a listed gap
  grep -qxF -- "$1" <<<"$ours" && return 0
  grep -qxF -- "$1" <<<"$gap_names" && return 0
  local p
  for p in $gap_prefixes; do [[ $1 == "$p"* ]] && return 0; done
  return 1
}

libs=()
declare -A seen
for f in "$ROOT"/build/toolchains/*/hostlib/libomp.so.5 "$ROOT"/build/toolchains/*/usr/lib/llvm-*/lib/libomp.so.5 \
         /usr/lib/llvm-*/lib/libomp.so.5 \
         "$ROOT"/build/toolchains/*/usr/lib/llvm-*/lib/libomptarget.so /usr/lib/llvm-*/lib/libomptarget.so; do
  [ -e "$f" ] || continue
  real=$(readlink -f "$f")
  [ -n "${seen[$real]:-}" ] && continue
  seen[$real]=1
  libs+=("$real")
done
if [ ${#libs[@]} -eq 0 ]; then
  echo "skip  no LLVM libomp found (tests/toolchains.sh prepares them)"
  echo "0 passed, 0 failed, 1 skipped"
  exit 77
fi

all_names=""
for lib in "${libs[@]}"; do
  names=$(exports "$lib" | grep -E '^(__kmpc_|omp_|llvm_omp_)' | grep -v '_$')
  all_names+="$names"$'\n'
  missing=()
  while read -r name; do
    [ -n "$name" ] || continue
    covered "$name" || missing+=("$name")
  done <<<"$names"
  if [ ${#missing[@]} -eq 0 ]; then
    echo "ok    $(wc -l <<<"$names") entry points of $lib"
    passed=$((passed + 1))
  else
    echo "FAIL  $lib: ${#missing[@]} entry points neither in the device runtime nor in unsupported.def: ${missing[*]}"
    failed=$((failed + 1))
  fi
done

# The gap list stays true: nothing listed is also exported, and every listed
# name is an entry point of some LLVM runtime found here.
stale=() both=()
while read -r name; do
  [ -n "$name" ] || continue
  grep -qxF -- "$name" <<<"$ours" && both+=("$name")
  grep -qxF -- "$name" <<<"$all_names" || stale+=("$name")
done <<<"$gap_names"
if [ ${#both[@]} -eq 0 ] && [ ${#stale[@]} -eq 0 ]; then
  echo "ok    unsupported.def lists $(wc -l <<<"$gap_names") entry points and $(wc -w <<<"$gap_prefixes") prefixes, none exported, all real"
  passed=$((passed + 1))
else
  echo "FAIL  unsupported.def: exported although listed: ${both[*]:-none}; in no LLVM runtime found: ${stale[*]:-none}"
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
