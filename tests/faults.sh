#!/bin/bash
# tests/faults.sh - the fault sweep (make faults; make check runs it).
#
# For every program of the corpus: run it once with SIMTARGET_FAULTS=count
# to learn how often each plugin call site (src/fault_sites.h) and each
# simdevice failure point (simdevice/plugin/plugin_faults.h) is reached,
# then rerun it once per (site, call index) with exactly that one fault.
# Sites called more than SWEEP_ALL_UP_TO times (6) are sampled: calls 1, 2,
# 3, the middle one and the last two (with SWEEP_ALL_UP_TO under 6, as make
# check sets 3: the first, the middle and the last). Then once per
# optional __tgt_rtl_ function made absent, and a sample of fault runs
# under Valgrind.
#
# A run passes when it ends in one of the accepted ways:
#  * OMP_TARGET_OFFLOAD=mandatory: exit status 1 with "omptarget fatal
#    error: <construct> at <file:line:col> failed" and a cause; or exit 0 with
#    the correct result when the fault hit no construct (a clean-up call)
#    and a diagnostic says so on stderr;
#  * default policy: exit 0 with the correct result ("PASS"): the construct
#    fell back to the host, with a warning on stderr.
# A signal, a timeout, a wrong result, a fault that was asked for but never
# happened, or a silent success (exit 0, nothing on stderr) fails. The only
# functions whose failure value is a valid answer (so silence is right) are
# listed in ANSWER_FUNCTIONS.
#
# Prints per function how many sites and calls were injected and ends with
# "N passed, N failed"; also fails when a __tgt_rtl_ function that
# libomptarget called in the corpus was never injected.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=$ROOT/build/faults
LOGS=build/faults/logs
LIBDIR=${FAULTS_LIBDIR:-$ROOT/build/lib}
TIMEOUT=${FAULTS_TIMEOUT:-30}
# under Valgrind: a run there took 13 s alone (the coverage build), more
# beside other suites
VALGRIND_TIMEOUT=${FAULTS_VALGRIND_TIMEOUT:-120}
SWEEP_ALL_UP_TO=${SWEEP_ALL_UP_TO:-6}
VALGRIND_SAMPLE=${FAULTS_VALGRIND_SAMPLE:-6}
# is_data_exchangable: 0 means "copy through the host", a valid answer;
# is_valid_binary: 0 means "not for this device" (a kernel that needs the
# image then fails loudly; a device used only for memory does not need it).
# abi_version/init_plugin/number_of_devices: the plugin is refused, so there
# is no device and constructs run on the host (the documented quiet case).
# get_last_error: only the explanation of another failure is lost.
ANSWER_FUNCTIONS=" is_data_exchangable is_valid_binary abi_version init_plugin number_of_devices get_last_error "
# query_async is polled: how often depends on timing, so only its first
# calls are certain to happen in every run.
POLLED_FUNCTIONS=" query_async "
mkdir -p "$OUT" "$LOGS"
rm -f "$LOGS"/*

for f in build/lib/libomptarget.so build/lib/libomptarget.rtl.simdevice.so build/tests/abi/kernels.so build/tests/abi/kernels23.so; do
  [ -e "$f" ] || { echo "faults.sh: $f is missing: run 'make all testbins'" >&2; exit 2; }
done
if ! tests/toolchains.sh -q; then
  echo "faults.sh: no usable clang" >&2
  exit 2
fi
. build/toolchains/env.sh

# ---------------------------------------------------------------- corpus
# build_prog VERSION SRC [CFLAGS]: build/faults/<VERSION>/<name>, with -g so
# that failures carry a source location.
build_prog() {
  local n=$1 src=$2 extra=${3:-} cc flags bin
  eval "cc=\${TC_CC_$n:-} flags=\${TC_FLAGS_$n:-}"
  [ -n "$cc" ] || return 1
  bin=$OUT/$n/$(basename "${src%.*}")
  mkdir -p "$OUT/$n"
  if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
    $cc $flags -g -O1 -Itests/programs $extra "$src" -o "$bin" >"$bin.log" 2>&1 || return 1
  fi
  echo "$bin"
}
if [ ! -x $OUT/abi_driver ] || [ tests/faults/abi_driver.c -nt $OUT/abi_driver ] ||
   [ tests/abi/abi_image.h -nt $OUT/abi_driver ]; then
  ${CC:-cc} -Iinclude -std=gnu11 -Wall -Wextra -Werror -O1 -g tests/faults/abi_driver.c \
    -o $OUT/abi_driver -Lbuild/lib -lomptarget -Wl,-rpath,"$ROOT/build/lib" || exit 2
fi

# Corpus rows: NAME|COMMAND|POLICY|ENV|NOLOC. NOLOC=1: the entry points have
# no source location (the legacy ABI), so "unknown location" is accepted.
CORPUS=()
add() { CORPUS+=("$1|$2|$3|${4:-}|${5:-0}"); }
V=19
[[ " $TOOLCHAINS_USABLE " == *" 19 "* ]] || V=${TOOLCHAINS_USABLE##* }
libpath() { eval "echo $LIBDIR:\$TC_HOSTLIB_$1"; }
if b=$(build_prog $V tests/faults/fallback.c); then
  add "fallback/clang-$V" "$b" mandatory
  add "fallback/clang-$V/default" "$b" default
fi
b=$(build_prog $V tests/faults/full.c) && add "full/clang-$V" "$b" mandatory SIMDEVICE_NUM_DEVICES=2
if [[ " $TOOLCHAINS_USABLE " == *" 14 "* ]] && b=$(build_prog 14 tests/faults/fallback.c); then
  add "fallback/clang-14" "$b" mandatory "" 0
  CORPUS[-1]="${CORPUS[-1]/|mandatory|/|mandatory|LIBV=14}"
fi
b=$(build_prog $V tests/programs/indirect.c -fopenmp-version=51) && add "indirect/clang-$V" "$b" mandatory
b=$(build_prog $V tests/programs/neg_unmapped_ptr.c) && add "neg_unmapped_ptr/clang-$V" "$b" mandatory
b=$(build_prog $V tests/programs/usm.c) && add "usm/clang-$V" "$b" mandatory
# target nowait + depend: the asynchronous queues (libomp 16+ on the host)
if b=$(build_prog $V tests/programs/nowait_depend.c); then
  # completed through libomp's protocol (__tgt_rtl_query_async) ...
  add "nowait_depend/clang-$V" "$b" mandatory
  # ... and each region waiting in its task (__tgt_rtl_synchronize)
  add "nowait_depend/clang-$V/wait" "$b" mandatory SIMTARGET_NOWAIT=wait
fi
add "abi_driver" "$OUT/abi_driver $ROOT/build/tests/abi/kernels.so $ROOT/build/tests/abi/kernels23.so" mandatory "" 1

# ---------------------------------------------------------------- running
passed=0 failed=0 runs=0
declare -A inj_sites inj_calls called
failures=()

# run_case NAME COMMAND POLICY ENV FAULTSPEC LOGBASE [WRAPPER]: sets rc.
run_case() {
  local cmd=$2 policy=$3 env=$4 spec=$5 log=$6 wrap=${7:-} ver=$V limit=$TIMEOUT
  [ -z "$wrap" ] || limit=$VALGRIND_TIMEOUT
  [[ $env == LIBV=* ]] && { ver=${env#LIBV=}; env=""; }
  rm -f "$log.counts"
  local pol=""
  [ "$policy" = mandatory ] && pol=mandatory
  (cd "$OUT" && env $env LD_LIBRARY_PATH="$(libpath "$ver")" OMP_TARGET_OFFLOAD=$pol \
     SIMTARGET_FAULTS="$spec" SIMTARGET_FAULT_COUNTS="$ROOT/$log.counts" \
     timeout -k 5 "$limit" $wrap $cmd >"$ROOT/$log.out" 2>"$ROOT/$log.err")
  rc=$?
}

# judge NAME POLICY NOLOC FUNCTION LOG: prints nothing; sets verdict/why.
judge() {
  local policy=$2 noloc=$3 fn=$4 log=$5
  verdict=ok why=""
  if [ $rc = 124 ] || [ $rc = 137 ]; then verdict=FAIL why="hang (timed out: ${TIMEOUT}s, ${VALGRIND_TIMEOUT}s under Valgrind)"; return; fi
  if [ $rc -gt 128 ]; then verdict=FAIL why="signal $((rc - 128))"; return; fi
  if [ -n "$fn" ] && ! grep -q '^injected' "$log.counts" 2>/dev/null; then
    verdict=FAIL why="the fault was never reached"; return
  fi
  local pass=0 diag=0 fatal=0
  grep -q '^PASS$' "$log.out" && pass=1
  grep -Eq 'omptarget (error|warning|fatal error)|simdevice' "$log.err" && diag=1
  local loc='at [^ ]+:[0-9]+:[0-9]+'
  [ "$noloc" = 1 ] && loc='at [^ ]+'
  grep -Eq "omptarget fatal error: .* $loc.* failed" "$log.err" &&
    grep -q 'omptarget fatal error: cause: ' "$log.err" && fatal=1
  if [ $rc = 1 ] && [ $fatal = 1 ]; then return; fi
  # a device memory routine failed: libomptarget said why, the program where
  if [ $rc = 1 ] && grep -q 'omptarget error: ' "$log.err" &&
     grep -Eq '^[^ ]+\.c:[0-9]+: .* failed$' "$log.err"; then return; fi
  if [ $rc = 0 ] && [ $pass = 1 ]; then
    [ $diag = 1 ] && return
    [[ $ANSWER_FUNCTIONS == *" $fn "* ]] && return
    [ -z "$fn" ] && return
    verdict=FAIL why="silent success"; return
  fi
  if [ $rc = 1 ] && [ $fatal = 0 ] && grep -q FAIL "$log.out"; then
    verdict=FAIL why="wrong result"; return
  fi
  verdict=FAIL why="exit $rc without the expected message: $(grep -v '^$' "$log.err" | tail -1 | cut -c1-160)"
}

record() { # NAME SPEC
  runs=$((runs + 1))
  if [ "$verdict" = ok ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("$1 [$2]: $why")
    echo "FAIL  $1 [$2]: $why"
  fi
}

# samples COUNT: the call indices to inject.
samples() {
  local c=$1
  if [ "$c" -le "$SWEEP_ALL_UP_TO" ]; then seq 1 "$c"; return; fi
  if [ "$SWEEP_ALL_UP_TO" -lt 6 ]; then printf '%s\n' 1 $((c / 2)) "$c" | sort -n -u; return; fi
  printf '%s\n' 1 2 3 $((c / 2)) $((c - 1)) "$c" | sort -n -u
}

# The runs are independent processes (each its own device process), and a
# run is mostly process start-up: JOBS of them at a time. Each run's exit
# status goes to LOGBASE.rc; the verdicts come after, in the same order.
JOBS=${FAULTS_JOBS:-$(nproc)}
running=0
# pool NAME COMMAND POLICY ENV FAULTSPEC LOGBASE [WRAPPER]: run_case in the
# background once fewer than JOBS runs are running.
pool() {
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
  (run_case "$@"; echo "$rc" >"$6.rc") &
  running=$((running + 1))
}
pool_wait() { wait; running=0; }

# judged NAME POLICY NOLOC FUNCTION LOGBASE SPEC [valgrind]: the verdict on
# a pooled run; a run under Valgrind fails first on any report of its own.
judged() {
  rc=$(cat "$5.rc" 2>/dev/null || echo 255)
  local name=$1
  if [ "${7:-}" = valgrind ]; then
    name="$1 (valgrind)"
    if [ "$rc" = 99 ] || grep -q '^==[0-9]*== ' "$5.err"; then
      verdict=FAIL why="valgrind: $(grep -m1 '^==[0-9]*== [A-Z]' "$5.err" | cut -c1-160)"
      record "$name" "$6"
      return
    fi
  fi
  judge "$1" "$2" "$3" "$4" "$5"
  record "$name" "$6"
}

# The counting run of each program: how often each site is reached.
for row in "${CORPUS[@]}"; do
  IFS='|' read -r name cmd policy env noloc <<<"$row"
  pool "$name" "$cmd" "$policy" "$env" count "$LOGS/${name//\//_}.count"
done
pool_wait

# One run per (site, sampled call index): INJECTIONS rows are
# NAME|COMMAND|POLICY|ENV|NOLOC|SPEC|LOGBASE|FUNCTION|SITE|K.
sampled_sites=0
INJECTIONS=()
for row in "${CORPUS[@]}"; do
  IFS='|' read -r name cmd policy env noloc <<<"$row"
  base="$LOGS/${name//\//_}"
  # the baseline must itself be an accepted outcome
  judged "$name" "$policy" "$noloc" "" "$base.count" baseline
  while read -r kind a b c d; do
    case $kind in
      site) site=$a id=$b fn=$c count=$d; target="site=$site"; key=$fn ;;
      simdevice) id=$a fn=$a count=$b; target=$a; key=$a ;;
      function) called[$a]=$(( ${called[$a]:-0} + b )); continue ;;
      *) continue ;;
    esac
    [ "$count" -gt 0 ] || continue
    [[ $POLLED_FUNCTIONS == *" $key "* ]] && [ "$count" -gt 3 ] && count=3
    [ "$count" -gt "$SWEEP_ALL_UP_TO" ] && sampled_sites=$((sampled_sites + 1))
    for k in $(samples "$count"); do
      INJECTIONS+=("$row|$target@$k|$base.$id.$k|$key|$id|$k")
    done
  done <"$base.count.counts"
done
for job in "${INJECTIONS[@]}"; do
  IFS='|' read -r name cmd policy env noloc spec log key id k <<<"$job"
  pool "$name" "$cmd" "$policy" "$env" "$spec" "$log"
done
pool_wait
vg_candidates=()
for job in "${INJECTIONS[@]}"; do
  IFS='|' read -r name cmd policy env noloc spec log key id k <<<"$job"
  judged "$name" "$policy" "$noloc" "$key" "$log" "$spec"
  [ "$verdict" = ok ] || continue
  inj_calls[$key]=$(( ${inj_calls[$key]:-0} + 1 ))
  [[ " ${inj_sites[$key]:-} " == *" $id "* ]] || inj_sites[$key]="${inj_sites[$key]:-} $id"
  # not the nowait programs: under Valgrind's one-at-a-time threads,
  # libomp's spinning helper threads make them take minutes; not
  # supervisor_exec: a host under Valgrind starts its device through a
  # forked copy (simdevice/plugin/process.c), which has no such fault
  [ "$k" = 1 ] && [[ $name != nowait_* ]] && [ "$key" != simdevice.supervisor_exec ] &&
    vg_candidates+=("$name|$cmd|$policy|$env|$noloc|$spec|$key")
done

# Every optional function made absent: the fallback must still work.
optional=$(sed -n -E 's/^[[:space:]]*X\(0, [^,]+, ([a-z_]+),.*/\1/p' include/omptarget_plugin.h)
ABSENT=()
for row in "${CORPUS[@]}"; do
  IFS='|' read -r name cmd policy env noloc <<<"$row"
  case $name in fallback/*/default|full/*|indirect/*) ;; *) continue ;; esac
  for fn in $optional; do
    ABSENT+=("$row|$fn")
    pool "$name" "$cmd" "$policy" "$env" "absent=$fn" "$LOGS/${name//\//_}.absent_$fn"
  done
done
pool_wait
for job in "${ABSENT[@]}"; do
  IFS='|' read -r name cmd policy env noloc fn <<<"$job"
  judged "$name" "$policy" "$noloc" "" "$LOGS/${name//\//_}.absent_$fn" "absent=$fn"
done

# A sample of fault runs under Valgrind: no host-side errors, no leaks.
vg_runs=0
vg_log() { echo "$LOGS/${1//\//_}.valgrind.${2//[=@.]/_}"; } # NAME SPEC: its log base
if command -v valgrind >/dev/null && [ "${#vg_candidates[@]}" -gt 0 ]; then
  step=$(( ${#vg_candidates[@]} / VALGRIND_SAMPLE + 1 ))
  for ((i = 0; i < ${#vg_candidates[@]}; i += step)); do
    IFS='|' read -r name cmd policy env noloc spec key <<<"${vg_candidates[$i]}"
    pool "$name" "$cmd" "$policy" "$env" "$spec" "$(vg_log "$name" "$spec")" \
      "valgrind -q --vgdb=no --fair-sched=yes --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --error-exitcode=99"
  done
  pool_wait
  for ((i = 0; i < ${#vg_candidates[@]}; i += step)); do
    IFS='|' read -r name cmd policy env noloc spec key <<<"${vg_candidates[$i]}"
    judged "$name" "$policy" "$noloc" "$key" "$(vg_log "$name" "$spec")" "$spec" valgrind
    vg_runs=$((vg_runs + 1))
  done
fi

# ---------------------------------------------------------------- summary
echo "fault sweep: $runs runs ($vg_runs under valgrind); $sampled_sites site(s) called more than $SWEEP_ALL_UP_TO times were sampled"
printf '  %-24s %6s %6s %8s\n' function sites calls "called"
never=()
for fn in $(printf '%s\n' "${!called[@]}" "${!inj_calls[@]}" | sort -u); do
  [ "${called[$fn]:-1}" -gt 0 ] || continue
  n_sites=$(wc -w <<<"${inj_sites[$fn]:-}")
  printf '  %-24s %6d %6d %8s\n' "$fn" "$n_sites" "${inj_calls[$fn]:-0}" "${called[$fn]:--}"
  if [ "${inj_calls[$fn]:-0}" = 0 ]; then never+=("$fn"); fi
done
if [ ${#never[@]} -gt 0 ]; then
  failed=$((failed + 1))
  echo "FAIL  never injected although called: ${never[*]}"
fi
# Every function libomptarget has a call site for must have been reached by
# the corpus (and so injected), not only those that happened to be called.
unreached=()
# Known gap, not swept: abandon_queues runs only at an exit with a nowait
# region still running; when it fails, that region's copies back still run
# and can land in main's ended stack frame (SIGSEGV with
# tests/programs/nowait_running_exit_stack.c, as before issue 30 item 8):
# open, see the issue's note.
for fn in $(sed -n -E 's/.*X\([0-9]+, *[A-Z_0-9]+, *([a-z_]+),.*/\1/p' src/fault_sites.h | sort -u); do
  [ "$fn" = abandon_queues ] && continue
  [ "${inj_calls[$fn]:-0}" != 0 ] || unreached+=("$fn")
done
if [ ${#unreached[@]} -gt 0 ]; then
  failed=$((failed + 1))
  echo "FAIL  libomptarget calls these, but the corpus never reached them: ${unreached[*]}"
fi
if [ ${#failures[@]} -gt 0 ]; then
  echo "failed runs (logs in $LOGS):"; printf '  %s\n' "${failures[@]}" | head -50
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
