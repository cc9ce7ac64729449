#!/bin/sh
# Builds every simdevice/runtime/tests/t_*.c with each available clang
# (-fopenmp -c), links it against build/lib/simdevice/libomp.so.5 only, and
# runs it. Usage: run.sh [--valgrind] [compiler...]   (default: clang-14 clang-19)
# Last line: "N passed, N failed"; exit status 1 if any failed.
# Another architecture (tests/ppc64le/check.sh): RUNTIME_TESTS_BUILD is the
# build folder (default build), RUNTIME_TESTS_CFLAGS extra compile and link
# flags (--target=...), RUNTIME_TESTS_RUNNER the emulator the tests run under
# (the device-image check, x86-64 only, is then skipped); RUNTIME_TESTS_XFAIL
# names tests known to fail there: failing, they count as skipped; passing,
# as failed (XPASS), so the mark goes when the cause is fixed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build="$root/${RUNTIME_TESTS_BUILD:-build}"
lib="$build/lib/simdevice"
out="$build/tests/simdevice-runtime"
xflags=${RUNTIME_TESTS_CFLAGS:-}
runner=${RUNTIME_TESTS_RUNNER:-}
xfail=" ${RUNTIME_TESTS_XFAIL:-} "
wrap=""
if [ "${1:-}" = "--valgrind" ]; then
  wrap="valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --suppressions=$here/valgrind.supp"
  shift
fi
compilers="${*:-clang-14 clang-19}"
pass=0
fail=0
skip=0
mkdir -p "$out"
if [ ! -f "$lib/libomp.so.5" ]; then
  echo "missing $lib/libomp.so.5 (make build/lib/simdevice/libomp.so.5)"
  echo "0 passed, 1 failed"
  exit 1
fi
for cc in $compilers; do
  if ! command -v "$cc" >/dev/null 2>&1; then
    echo "SKIP $cc: not installed"
    skip=$((skip + 1))
    continue
  fi
  for src in "$here"/t_*.c; do
    name=$(basename "$src" .c)
    exe="$out/$name.$cc"
    log="$out/$name.$cc.log"
    flags=""
    case "$name" in t_launch*) flags="-O0 -fno-omit-frame-pointer" ;; *) flags="-O1" ;; esac
    if ! "$cc" $xflags -fopenmp $flags -g -Wall -c "$src" -o "$exe.o" >"$log" 2>&1 ||
       ! "$cc" $xflags "$exe.o" -o "$exe" "$lib/libomp.so.5" -Wl,-rpath,"$lib" -lpthread -ldl >>"$log" 2>&1; then
      echo "FAIL $name ($cc): build, see $log"
      fail=$((fail + 1))
      continue
    fi
    if LD_LIBRARY_PATH="$lib" SIMDEVICE_TEST_CC="$cc" SIMDEVICE_TEST_OUT="$out" \
       timeout 300 $wrap $runner "$exe" >>"$log" 2>&1; then
      case "$xfail" in
        *" $name "*) echo "FAIL $name ($cc): XPASS: passes now, take it out of RUNTIME_TESTS_XFAIL"
                     fail=$((fail + 1)); continue ;;
      esac
      echo "PASS $name ($cc)"
      pass=$((pass + 1))
    elif case "$xfail" in *" $name "*) true ;; *) false ;; esac; then
      echo "xfail $name ($cc): see $log"
      skip=$((skip + 1))
    else
      echo "FAIL $name ($cc): see $log"
      sed 's/^/    /' "$log" | tail -15
      fail=$((fail + 1))
    fi
  done
done

# A real device image of each compiler, loaded and launched like the device
# server does. clang 15+ links the host side against libomptarget, which
# Debian cannot install beside libomp-14-dev: set SIMDEVICE_OFFLOAD_LIBDIR to
# an unpacked LLVM lib dir (e.g. from libomp-19-dev) to include them.
[ -n "$runner" ] && compilers="" && echo "SKIP devimage: its images are x86-64"
for cc in $compilers; do
  command -v "$cc" >/dev/null 2>&1 || continue
  name="devimage"
  dir="$out/$name.$cc.d"
  log="$out/$name.$cc.log"
  rm -rf "$dir"
  mkdir -p "$dir"
  extra=""
  case "$cc" in
    clang-13|clang-14) ;;
    *)
      # clang 15+ links the device image against its own libomptarget:
      # SIMDEVICE_OFFLOAD_LIBDIR, else the one tests/toolchains.sh unpacked.
      offload_libdir=${SIMDEVICE_OFFLOAD_LIBDIR:-}
      if [ -z "$offload_libdir" ] && [ -r "$root/build/toolchains/env.sh" ]; then
        offload_libdir=$(. "$root/build/toolchains/env.sh" && eval "echo \${TC_RTDIR_${cc#clang-}:-}")
      fi
      if [ -z "$offload_libdir" ]; then
        echo "SKIP $name ($cc): SIMDEVICE_OFFLOAD_LIBDIR not set and no toolchain in build/toolchains"
        skip=$((skip + 1))
        continue
      fi
      extra="-L$offload_libdir -I$offload_libdir/clang/${cc#clang-}/include" ;;
  esac
  if ! (cd "$dir" && "$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu $extra -save-temps \
          "$here/devimage_kernel.c" -o prog) >"$log" 2>&1 ||
     ! "$cc" -g -Wall "$here/devimage_host.c" -o "$dir/host" "$lib/libomp.so.5" \
          -Wl,-rpath,"$lib" -ldl >>"$log" 2>&1; then
    echo "FAIL $name ($cc): build, see $log"
    fail=$((fail + 1))
    continue
  fi
  image=""
  for f in "$dir"/*; do
    case "$f" in *.o|*.bc|*.s|*.i|*.ll|*/prog|*/host) continue ;; esac
    if file -L "$f" 2>/dev/null | grep -q 'ELF 64-bit LSB shared object'; then image="$f"; fi
  done
  kernel=$(nm -D --defined-only "$image" 2>/dev/null | awk '$3 ~ /^__omp_offloading_.*_run_l[0-9]+$/ {print $3}' | head -1)
  dyn=0
  case "$cc" in clang-13|clang-14|clang-15|clang-16) ;; *) dyn=1 ;; esac
  if [ -n "$image" ] && [ -n "$kernel" ] &&
     LD_LIBRARY_PATH="$lib" timeout 120 $wrap "$dir/host" "$image" "$kernel" "$dyn" >>"$log" 2>&1; then
    echo "PASS $name ($cc)"
    pass=$((pass + 1))
  else
    echo "FAIL $name ($cc): image '$image' kernel '$kernel', see $log"
    tail -5 "$log" | sed 's/^/    /'
    fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
