#!/bin/sh
# Builds every simdevice/runtime/tests/t_*.c with each available clang
# (-fopenmp -c), links it against build/lib/simdevice/libomp.so.5 only, and
# runs it. Usage: run.sh [--valgrind] [compiler...]   (default: clang-14 clang-19)
# Last line: "N passed, N failed"; exit status 1 if any failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
lib="$root/build/lib/simdevice"
out="$root/build/tests/simdevice-runtime"
wrap=""
if [ "${1:-}" = "--valgrind" ]; then
  wrap="valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite"
  shift
fi
compilers="${*:-clang-14 clang-19}"
pass=0
fail=0
mkdir -p "$out"
if [ ! -f "$lib/libomp.so.5" ]; then
  echo "missing $lib/libomp.so.5 (make build/lib/simdevice/libomp.so.5)"
  echo "0 passed, 1 failed"
  exit 1
fi
for cc in $compilers; do
  if ! command -v "$cc" >/dev/null 2>&1; then
    echo "SKIP $cc: not installed"
    continue
  fi
  for src in "$here"/t_*.c; do
    name=$(basename "$src" .c)
    exe="$out/$name.$cc"
    log="$out/$name.$cc.log"
    flags=""
    case "$name" in t_launch*) flags="-O0 -fno-omit-frame-pointer" ;; *) flags="-O1" ;; esac
    if ! "$cc" -fopenmp $flags -g -Wall -c "$src" -o "$exe.o" >"$log" 2>&1 ||
       ! "$cc" "$exe.o" -o "$exe" "$lib/libomp.so.5" -Wl,-rpath,"$lib" -lpthread -ldl >>"$log" 2>&1; then
      echo "FAIL $name ($cc): build, see $log"
      fail=$((fail + 1))
      continue
    fi
    if LD_LIBRARY_PATH="$lib" SIMDEVICE_TEST_CC="$cc" SIMDEVICE_TEST_OUT="$out" \
       timeout 300 $wrap "$exe" >>"$log" 2>&1; then
      echo "PASS $name ($cc)"
      pass=$((pass + 1))
    else
      echo "FAIL $name ($cc): see $log"
      sed 's/^/    /' "$log" | tail -15
      fail=$((fail + 1))
    fi
  done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
