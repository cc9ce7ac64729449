#!/usr/bin/env bash
# tests/mpi.sh - remote simdevice devices over Open MPI (issue 36), with
# several ranks on this one machine (mpirun --oversubscribe):
#  1. programs of tests/programs/ with their devices remote, MPMD
#     (tests/mpi/remote_run.sh as programs.sh's PROGRAMS_SIMTARGET_RUNNER: the program and one
#     simdevice-mpi-server rank per device), with clang 19 and 14; a few
#     again with the device ranks spawned by the plugin (SIMDEVICE_MPI_SPAWN);
#  1b. the differential corpus (tests/diff/, tests/programs.sh --diff) with
#     its devices remote, MPMD, each program with the first of clang 14
#     and 19 it is for (MPI_DIFF_CLANGS, programs.sh --first-of: make
#     check's diff suite has compiled those binaries, and judged them on
#     LLVM's runtime, by then); LLVM's verdicts are LLVM's own runs (cached with the
#     binary), only simtarget's go remote (PROGRAMS_SIMTARGET_RUNNER);
#     what a remote device cannot do is skipped with its cause
#     (mpi-skip: in the program's header);
#  2. tests/mpi/*.c: omp_target_memcpy rank to rank, nowait kernels of two
#     remote devices overlapping (a rendezvous, no timing), a hybrid MPI + OpenMP
#     program (each rank its own spawned device), an MPI program that
#     offloads before MPI_Init, a device rank killed or stopped mid-kernel,
#     the rank's device process under SIMDEVICE_VALGRIND=memcheck;
#     OMPT device tracing timed on the rank (tests/ompt's kernel_time.c),
#     queued work dropped at the program's exit (exit_queued.c), KernelArgs
#     version 4 launches (build/tests/abi/test_kernel_abi --remote);
#  3. after each, no device rank or device process of this tree is left;
#  4. the transport between machines, TCP only (btl self,tcp): a few
#     programs MPMD and spawned, a fault naming its variable, rank to rank
#     copies, device printf in order, nowait, a killed rank; then, as root,
#     the same with the device ranks on a second "machine" made of
#     namespaces (tests/mpi/node2.sh), where the device sees none of the
#     host's files, /dev/shm or pids (tests/mpi/where.c); about 40 s.
# Skipped (counted, with the reason) where mpirun or the plugin is missing
# (4's second machine: where not root or no unshare/ip).
# Usage: tests/mpi.sh [--versions "19 14"]   (MPI_DIFF_CLANGS="14 19": the clangs of 1b;
#   MPI_DIFF_SAMPLE=N: a sample of 1b, below)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
. tests/suite_lib.sh
VERSIONS="19 14"
[ "${1:-}" = --versions ] && VERSIONS=$2
OUT=$ROOT/build/mpi
# Its own copy of build/lib, which every run here uses (PROGRAMS_LIBDIR,
# tests/mpi/remote_run.sh, LD_LIBRARY_PATH): the leftover check below finds
# this suite's device processes by their server's path, so the device
# processes of the suites make check runs beside it are not taken for its
# own. Outside OUT, which node2.sh hides from the second machine.
LIB=$ROOT/build/mpi-lib
SERVER=$LIB/simdevice/simdevice-mpi-server
export PROGRAMS_LIBDIR=$LIB MPI_TEST_LIBDIR=$LIB
# Its own copies of the corpus's binaries: programs.sh writes each run's
# output beside the binary, and make check runs this suite beside others
# that run build/programs/'s.
export PROGRAMS_OUT=$OUT/programs
# A run's bound: big_arrays.c touches one element per MiB of 3.5 GiB, and
# a device rank's memory is on 2 MiB pages (huge_memory.c), each first
# touch a whole page to clear: 8.1 s alone on the 2-core VM, where the
# host backs each new guest page lazily (0.77 s with
# SIMDEVICE_MPI_HUGE_PAGES=0; 2026-11-30), and past 60 s once beside the
# coverage suite.
export PROGRAMS_TIMEOUT=${PROGRAMS_TIMEOUT:-180}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
  skip "mpi: mpirun/mpicc not found (Debian: openmpi-bin libopenmpi-dev)"
  suite_end
fi
if [ ! -x build/lib/simdevice/simdevice-mpi-server ] || [ ! -e build/lib/libomptarget.rtl.simdevice-mpi.so ]; then
  skip "mpi: build/lib/simdevice/simdevice-mpi-server not built (make all with Open MPI installed)"
  suite_end
fi
rm -rf "$LIB" && cp -a build/lib "$LIB" || { fail "mpi: cannot copy build/lib to $LIB"; suite_end; }
if [ ! -f build/toolchains/env.sh ]; then
  skip "mpi: no build/toolchains/env.sh (tests/toolchains.sh)"
  suite_end
fi
ENV_SH=$ROOT/build/toolchains/env.sh
. "$ENV_SH"

# Nothing of this suite's remote devices may outlive a test: the device
# ranks, and the device processes of their simdevice plugins (whose
# servers are LIB/simdevice/simdevice-server). Servers running before this
# suite started are not its own: said once, ignored.
SERVERS="^$LIB/simdevice/simdevice-(mpi-)?server"
servers_now() { pgrep -f "$SERVERS" | grep -vxF -e "${PREEXISTING:-none}"; }
PREEXISTING=$(pgrep -f "$SERVERS")
[ -z "$PREEXISTING" ] ||
  echo "note: $(echo "$PREEXISTING" | wc -l) device processes of this tree were running before this suite (not counted): $(ps -o pid=,etimes=,args= -p "$(echo "$PREEXISTING" | paste -sd,)" | tr '\n' ';' | cut -c1-300)"
leftovers() {
  local left
  for _ in 1 2 3 4 5 6 7 8 9 10; do # mpirun reaps its ranks shortly after
    left=$(servers_now) || return 0
    sleep 0.3
  done
  # pid, parent, seconds alive: whose and since when
  ps -o pid=,ppid=,etimes=,args= -p "$(echo "$left" | paste -sd,)" | head -6
  echo "$left" | xargs -r kill -KILL
  return 1
}
check_left() { # what
  if leftovers >"$OUT/left.txt"; then ok "$1: nothing left running"
  else fail "$1: left running: $(tr '\n' ' ' <"$OUT/left.txt")"; fi
}

# ---- 1. the program corpus, devices remote
# (a subset: all of tests/programs/ with clang 19 takes about 4.5 minutes,
# simdevice/README.md; what a remote device cannot do is marked mpi-skip in
# the program; not nowait_many.c: 15 runs of 300 nowait regions, 4-7 s each
# with the device remote on the loaded 2-core machine: it passes, but not in
# this suite's time)
CORPUS="big_arrays.c data_struct.c declare_target.c default_device.c delete_then_map.c
device_ptr.c global_ptr_section.c neg_short_section.c neg_present.c
nowait_depend.c nowait_data_ended.c target_api.c teams_reduction.c many_args.c indirect.c
kernel_timeout.c lambda_capture.cpp fork_child_offload.c fork_child_quiet.c fork_child_exit.c"
# (nowait_depend.c: its first region, the one that spawns the rank, runs on
# a libomp hidden helper thread; a hang of it seen once is open, see
# simdevice/README.md)
SPAWNED="big_arrays.c neg_short_section.c data_struct.c nowait_depend.c"
mkdir -p "$OUT"
progs=() spawned=()
for p in $CORPUS; do progs+=("tests/programs/$p"); done
for p in $SPAWNED; do spawned+=("tests/programs/$p"); done
summary() { # label log: the programs.sh verdict lines and its counts
  grep -E '^(ok|FAIL|skip|xfail|llvm-fail) ' "$2" | sed "s/^/$1 /"
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$2" | tail -1)
  if [ -z "$line" ]; then
    fail "$1: programs.sh printed no summary"
    return
  fi
  passed=$((passed + $(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')))
  failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
  skipped=$((skipped + $(echo "$line" | sed -E 's/.* ([0-9]+) skipped.*/\1/')))
}
export PROGRAMS_SKIP_FIELD=mpi-skip
PROGRAMS_SIMTARGET_RUNNER=$ROOT/tests/mpi/remote_run.sh tests/programs.sh --versions "$VERSIONS" \
  "${progs[@]}" >"$OUT/mpmd.log" 2>&1
summary mpmd "$OUT/mpmd.log"
check_left "corpus (MPMD)"
MPI_RUN_MODE=spawn PROGRAMS_SIMTARGET_RUNNER=$ROOT/tests/mpi/remote_run.sh tests/programs.sh \
  --versions 19 "${spawned[@]}" >"$OUT/spawn.log" 2>&1
summary spawn "$OUT/spawn.log"
check_left "corpus (spawned)"

# ---- 1b. the differential corpus, devices remote (simdevice/README.md). With
# MPI_DIFF_SAMPLE=N only the programs whose file name's checksum N divides
# (make check: a third, the same every run; make check-full: all): each
# remote run starts mpirun and a rank, about 1.5 s of CPU.
sample=${MPI_DIFF_SAMPLE:-1}
[[ $sample =~ ^[1-9][0-9]*$ ]] || { fail "MPI_DIFF_SAMPLE=$sample: not a whole number from 1 up (all of 1b)"; sample=1; }
diff_progs=()
for f in tests/diff/*/*.c tests/diff/*/*.cpp; do
  [ $(($(basename "$f" | cksum | cut -d' ' -f1) % sample)) = 0 ] && diff_progs+=("$f")
done
PROGRAMS_SIMTARGET_RUNNER=$ROOT/tests/mpi/remote_run.sh tests/programs.sh --diff \
  --versions "${MPI_DIFF_CLANGS:-14 19}" --first-of "${diff_progs[@]}" >"$OUT/diff.log" 2>&1
summary diff "$OUT/diff.log"
check_left "differential corpus (MPMD)"

# ---- 2. programs of tests/mpi/
compile() { # N SRC: clang-N, with Open MPI's flags for an MPI program
  local n=$1 src=$2 cc flags bin mpi=""
  eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n"
  bin=$OUT/$n/$(basename "$src" .c)
  grep -q '#include <mpi.h>' "$src" &&
    mpi="$(mpicc --showme:compile) $(mpicc --showme:link)"
  build_cached "$src" "$bin" "$cc $flags -O2 $src -o $bin $mpi"
}
export -f compile
export OUT
compile_each 19 tests/mpi/*.c tests/programs/exit_during_kernel.c
libpath() { eval "echo $LIB:\$TC_HOSTLIB_$1"; }
run() { # LOG CMD...: output in LOG.out / LOG.err, exit status returned
  local log=$1; shift
  timeout -k 5 60 "$@" >"$log.out" 2>"$log.err"
}
B=$OUT/19
export LD_LIBRARY_PATH
LD_LIBRARY_PATH=$(libpath 19)

if [ ! -x "$B/remote_memcpy" ]; then fail "remote_memcpy: does not compile"
elif SIMDEVICE_NUM_DEVICES=2 LIBOMPTARGET_INFO=16 run "$B/memcpy" \
       tests/mpi/remote_run.sh "$B/remote_memcpy" &&
     grep -q '^PASS$' "$B/memcpy.out" &&
     grep -q 'device 0 -> device 1: 4194304 bytes, MPI rank 1 to rank 2' "$B/memcpy.err" &&
     ! grep -q 'omptarget error' "$B/memcpy.err"; then
  ok "remote_memcpy: 4 MiB device 0 -> 1 went MPI rank 1 to rank 2, exact"
else
  fail "remote_memcpy: $(tail -2 "$B/memcpy.err" | tr '\n' ' ')$(tail -1 "$B/memcpy.out")"
fi
check_left remote_memcpy

if [ ! -x "$B/nowait_overlap" ]; then fail "nowait_overlap: does not compile"
elif SIMDEVICE_NUM_DEVICES=2 run "$B/overlap" tests/mpi/remote_run.sh "$B/nowait_overlap" &&
     grep -q '^PASS$' "$B/overlap.out"; then
  ok "nowait_overlap: nowait kernels on two remote devices run at the same time"
else
  fail "nowait_overlap: $(tail -1 "$B/overlap.err") $(tail -1 "$B/overlap.out")"
fi
check_left nowait_overlap

if [ ! -x "$B/hybrid" ]; then fail "hybrid: does not compile"
elif SIMDEVICE_MPI_SPAWN=1 SIMDEVICE_NUM_DEVICES=0 run "$B/hybrid" \
       mpirun --oversubscribe -q -x LD_LIBRARY_PATH -x SIMDEVICE_MPI_SPAWN \
       -x SIMDEVICE_NUM_DEVICES -np 2 "$B/hybrid" &&
     grep -q '^PASS world 2$' "$B/hybrid.out" &&
     [ "$(grep -c "rank's device 0 done" "$B/hybrid.out")" = 2 ] &&
     ! grep -q 'omptarget error' "$B/hybrid.err"; then
  # (no error at exit either: the devices went at the program's MPI_Finalize)
  ok "hybrid: 2 MPI ranks, each offloading to its own spawned device rank"
else
  fail "hybrid: $(tail -2 "$B/hybrid.err" | tr '\n' ' ')$(tail -1 "$B/hybrid.out")"
fi
check_left hybrid

if [ ! -x "$B/init_late" ]; then fail "init_late: does not compile"
else
  SIMDEVICE_MPI_SPAWN=1 SIMDEVICE_NUM_DEVICES=0 run "$B/init_late" "$B/init_late"
  rc=$?
  if [ $rc = 1 ] && grep -q 'has not called MPI_Init yet' "$B/init_late.err"; then
    ok "init_late: a target region before the program's MPI_Init fails, saying so"
  else
    fail "init_late: exit $rc: $(tail -1 "$B/init_late.err")"
  fi
fi
check_left init_late

# main returns while another thread waits on a kernel that never ends: as
# for a local device, exit waits 2 s for it, then the rank is given up and
# killed (mpirun then exits non-zero, 137 when it names the killed rank:
# so the time taken, not the status, tells a timeout)
if [ ! -x "$B/exit_during_kernel" ]; then fail "exit_during_kernel: does not compile"
else
  start=$(date +%s)
  run "$B/exit_kernel" tests/mpi/remote_run.sh "$B/exit_during_kernel"
  rc=$? took=$(( $(date +%s) - start ))
  if [ $took -lt 30 ] && grep -q '^PASS$' "$B/exit_kernel.out"; then
    ok "exit_during_kernel: the program ends (${took}s, mpirun exit $rc)"
  else
    fail "exit_during_kernel: exit $rc after ${took}s"
  fi
fi
check_left exit_during_kernel

# Device memory on huge pages (simdevice/mpi/huge_memory.c): while
# huge_pages.c holds 8 MiB of its remote device's memory, the device rank
# maps it in 2 MiB pages, the tmpfs made by the rank itself (root) or by its
# helper in namespaces of its own (nobody); SIMDEVICE_MPI_HUGE_PAGES=0 gives
# the memfd of small pages. Each run also checks the bytes come back.
huge_kib() { # the device ranks' memory mapped in 2 MiB pages, in KiB
  local pid kib=0 n
  for pid in $(servers_now); do
    n=$(awk '/^ShmemPmdMapped:/ {print $2}' "/proc/$pid/smaps_rollup" 2>/dev/null)
    kib=$((kib + ${n:-0}))
  done
  echo $kib
}
huge_case() { # LABEL WANT(huge|small) [COMMAND PREFIX...]
  local label=$1 want=$2 log=$B/huge_$1 kib=0
  shift 2
  rm -f "$log.go"
  HOLD_UNTIL=$log.go "$@" timeout -k 5 60 tests/mpi/remote_run.sh "$B/huge_pages" \
    >"$log.out" 2>"$log.err" &
  local pid=$!
  for _ in $(seq 100); do grep -q '^ready' "$log.out" && break; sleep 0.2; done
  grep -q '^ready' "$log.out" && kib=$(huge_kib)
  touch "$log.go"
  wait $pid
  local rc=$?
  if [ $rc = 0 ] && grep -q '^PASS$' "$log.out" &&
     { [ "$want" = huge ] && [ "$kib" -ge 4096 ] || { [ "$want" = small ] && [ "$kib" = 0 ]; }; }; then
    ok "huge pages $label: device memory in 2 MiB pages: ${kib} KiB (want $want), bytes back exact"
  else
    fail "huge pages $label: exit $rc, ${kib} KiB in 2 MiB pages (want $want): $(tail -1 "$log.err")"
  fi
}
if [ ! -x "$B/huge_pages" ]; then fail "huge pages: huge_pages.c does not compile"
elif grep -q '\[deny\]' /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null ||
     [ ! -e /sys/kernel/mm/transparent_hugepage/shmem_enabled ]; then
  skip "huge pages: this kernel gives tmpfs no transparent huge pages"
else
  huge_case default huge
  huge_case off small env SIMDEVICE_MPI_HUGE_PAGES=0
  nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp)
  if [ "$(id -u)" != 0 ]; then
    skip "huge pages nobody: not root, so no other user to run as"
  elif ! "${nobody[@]}" unshare -U true 2>/dev/null; then
    skip "huge pages nobody: user namespaces are off for unprivileged users"
  elif ! "${nobody[@]}" test -x "$B/huge_pages" -a -x "$SERVER"; then
    skip "huge pages nobody: the build is not readable by nobody"
  else
    huge_case nobody huge "${nobody[@]}"
  fi
fi
check_left "huge pages"

# SIMDEVICE_VALGRIND=memcheck with the device remote (the rank's device
# process under memcheck): a correct program is clean (copies into the
# rank went straight to device memory, and memcheck reported bytes the host
# had sent as never written), and a program that copies back bytes nothing
# wrote is named with its variable, as on a local device.
if ! command -v valgrind >/dev/null; then
  skip "memcheck remote: no valgrind"
else
  for src in tests/programs/data_struct.c tests/valgrind/vg_from_read.c; do
    build_cached "$src" "$B/vg_$(basename "$src" .c)" \
      "$TC_CC_19 $TC_FLAGS_19 -O2 -g -Itests/programs $src -o $B/vg_$(basename "$src" .c)"
  done
  SIMDEVICE_VALGRIND=memcheck run "$B/vg_clean" tests/mpi/remote_run.sh "$B/vg_data_struct"
  rc=$?
  if [ $rc = 0 ] && grep -q '^PASS$' "$B/vg_clean.out" &&
     ! grep -q '^==[0-9]*== \|simdevice: ' "$B/vg_clean.err"; then
    ok "memcheck remote: data_struct.c runs clean"
  else
    fail "memcheck remote: data_struct.c: exit $rc: $(grep -m1 '^==[0-9]*== [A-Z]\|simdevice: ' "$B/vg_clean.err" | cut -c1-200)"
  fi
  SIMDEVICE_VALGRIND=memcheck run "$B/vg_bug" tests/mpi/remote_run.sh "$B/vg_vg_from_read"
  if grep -q 'the 64 bytes of `hist\[0:16\]` (map(from) at .*vg_from_read.c:2[0-9]' "$B/vg_bug.err"; then
    ok "memcheck remote: vg_from_read.c's never-written hist[0:16] is named"
  else
    fail "memcheck remote: vg_from_read.c: no finding naming hist[0:16]"
  fi
  check_left "memcheck remote"
fi

# OMPT device tracing with the device remote (time_next_op forwarded): the
# kernel and copy records carry the rank's times, as tests/ompt.sh checks
# them locally (events.py kernel-time: each 40 ms kernel, nowait too,
# spans 40 ms within its construct; each copy back begins after its
# kernel ended there). The host's times around the plugin call, as
# before, gave the nowait kernel 0.1 ms.
# shellcheck disable=SC2086 # the flags, one a line
inc=$(printf '%s\n' $TC_FLAGS_19 | sed -n 's/^-I//p' | head -1)
build_cached tests/ompt/record_tool.c "$B/record_tool.so" \
  "$TC_CC_19 -shared -fPIC -O2 -Wall -Wextra -Werror -I$inc tests/ompt/record_tool.c -o $B/record_tool.so -lm"
build_cached tests/ompt/programs/kernel_time.c "$B/kernel_time" \
  "$TC_CC_19 $TC_FLAGS_19 -O2 tests/ompt/programs/kernel_time.c -o $B/kernel_time"
EVENTS="python3 tests/ompt/events.py"
if [ ! -x "$B/kernel_time" ] || [ ! -e "$B/record_tool.so" ]; then
  fail "ompt remote: kernel_time.c or the recording tool does not compile"
else
  rm -f "$B/ompt.rec"
  OMP_TOOL_LIBRARIES=$B/record_tool.so OMPT_RECORD=$B/ompt.rec OMPT_RECORD_TRACE=1 \
    run "$B/ompt" tests/mpi/remote_run.sh "$B/kernel_time"
  rc=$?
  if [ $rc = 0 ] && grep -q '^PASS$' "$B/ompt.out" && $EVENTS check "$B/ompt.rec" &&
     $EVENTS trace-check "$B/ompt.rec" >"$B/ompt.check" &&
     $EVENTS kernel-time "$B/ompt.rec" 40 >>"$B/ompt.check" 2>&1; then
    ok "ompt remote: kernel_time.c's trace records timed on the rank ($(tail -1 "$B/ompt.check" | sed 's/^ompt kernel time: //'))"
  else
    fail "ompt remote: kernel_time.c: exit $rc: $(tail -1 "$B/ompt.check" 2>/dev/null)$(tail -1 "$B/ompt.err")"
  fi
fi
check_left "ompt remote"

# main returns with a nowait kernel running on the remote device and a
# second region's kernel queued behind it (abandon_queues forwarded): the
# queued kernel never runs (its file is not made), the program ends with
# status 0; both regions are said to be running at the exit (the second
# was queued, not yet to start). Before, the queue ran on at the exit and the file was made.
if [ ! -x "$B/exit_queued" ]; then fail "exit_queued: does not compile"
else
  dir=$(mktemp -d)
  start=$(date +%s)
  run "$B/exit_queued" tests/mpi/remote_run.sh "$B/exit_queued" "$dir"
  rc=$? took=$(( $(date +%s) - start ))
  if [ $rc = 0 ] && [ $took -lt 30 ] && grep -q '^PASS$' "$B/exit_queued.out" &&
     [ -e "$dir/first" ] && [ ! -e "$dir/second" ] &&
     [ "$(grep -c 'was still running on device 0' "$B/exit_queued.err")" = 2 ]; then
    ok "exit_queued: the queued kernel is dropped at the exit (${took}s)"
  else
    fail "exit_queued: exit $rc after ${took}s, files: $(find "$dir" -mindepth 1 -printf '%f ')$(tail -1 "$B/exit_queued.err" | cut -c1-150)"
  fi
  rm -rf "$dir"
fi
check_left exit_queued

# KernelArgs version 4 launches (clang 23's kernels, hand-built images)
# through run_target_kernel forwarded to the rank, nowait too; before,
# they reached the rank as run_target_team_region and were refused.
ABI=$ROOT/build/tests/abi/test_kernel_abi
if [ ! -x "$ABI" ]; then skip "kernel ABI remote: $ABI not built (make testbins)"
elif run "$B/kernel_abi" tests/mpi/remote_run.sh "$ABI" --remote &&
     cat "$B/kernel_abi.out" "$B/kernel_abi.err" | grep -q 'PASSED  \] 6 test'; then
  ok "kernel ABI remote: 6 launches through run_target_kernel (test_kernel_abi --remote)"
else
  fail "kernel ABI remote: $(grep -m1 'FAILED\|fatal error: cause' "$B/kernel_abi.out" "$B/kernel_abi.err" | cut -c1-200)"
fi
check_left "kernel ABI remote"

# ---- 4. the transport between machines: TCP. On one machine Open MPI's
# ranks talk through shared memory (the vader BTL); between machines over
# TCP. Here every rank talks TCP only (btl self,tcp, pml ob1): a few
# programs MPMD and spawned, a mapping fault naming its variable, nowait,
# device printf in order through a pipe, a copy rank to rank, a rank
# killed mid-kernel. Then, as root, the same with the device ranks on a
# second "machine" (tests/mpi/node2.sh: other network, pid, mount and UTS
# namespaces, reached over a veth pair; mpirun starts its daemon there
# through node2.sh as its ssh): where.c shows that the device there sees
# neither the program's binary, nor the host's /dev/shm, nor its pid
# namespace, so the images came over MPI.
TCP_PROGRAMS="data_struct.c fault_host_global.c neg_short_section.c nowait_depend.c target_api.c"
transport_cases() { # LABEL: run with the transport's settings exported
  local label=$1 p progs=() log="$OUT/$1"
  for p in $TCP_PROGRAMS; do progs+=("tests/programs/$p"); done
  PROGRAMS_SIMTARGET_RUNNER=$ROOT/tests/mpi/remote_run.sh tests/programs.sh \
    --versions 19 "${progs[@]}" >"$log.mpmd.log" 2>&1
  summary "$label mpmd" "$log.mpmd.log"
  MPI_RUN_MODE=spawn PROGRAMS_SIMTARGET_RUNNER=$ROOT/tests/mpi/remote_run.sh \
    tests/programs.sh --versions 19 tests/programs/data_struct.c \
    tests/programs/fault_host_global.c >"$log.spawn.log" 2>&1
  summary "$label spawn" "$log.spawn.log"
  check_left "$label programs"
  if SIMDEVICE_NUM_DEVICES=2 LIBOMPTARGET_INFO=16 run "$log.memcpy" \
       tests/mpi/remote_run.sh "$B/remote_memcpy" && grep -q '^PASS$' "$log.memcpy.out" &&
     grep -q 'device 0 -> device 1: 4194304 bytes, MPI rank 1 to rank 2' "$log.memcpy.err" &&
     { [ "$label" != tcp ] || [ "$(grep -c '^simdevice-mpi: device [01] is MPI rank [12], pid [0-9]* on .*: this machine (its pid is watched)$' "$log.memcpy.err")" = 2 ]; }; then
    ok "$label: remote_memcpy went rank to rank"
  else
    fail "$label: remote_memcpy: $(tail -1 "$log.memcpy.err" | cut -c1-200)"
  fi
  # (through a pipe, as programs.sh does not: the order of the lines)
  SIMDEVICE_NUM_DEVICES=2 run "$log.printf" sh -c \
    "tests/mpi/remote_run.sh '$B/printf_order' | cat"
  if cmp -s "$log.printf.out" tests/mpi/printf_order.expected; then
    ok "$label: device printf of two devices in program order"
  else
    fail "$label: printf_order: $(diff tests/mpi/printf_order.expected "$log.printf.out" | head -3 | tr '\n' ' ' | cut -c1-200)"
  fi
  if SIMDEVICE_NUM_DEVICES=2 run "$log.overlap" tests/mpi/remote_run.sh "$B/nowait_overlap" &&
     grep -q '^PASS$' "$log.overlap.out"; then
    ok "$label: nowait kernels of two remote devices overlap"
  else
    fail "$label: nowait_overlap: $(tail -1 "$log.overlap.out")"
  fi
  check_left "$label tests"
}
transport_lost() { # LABEL SIG WANT: rank_lost, MPMD; WANT: the cause, or
  local start rc took  # "" where only the end in bounds is checked
  start=$(date +%s)
  MPI_RUN_MODE=mpmd SIMDEVICE_TIMEOUT=2 OMP_TARGET_OFFLOAD=mandatory \
    run "$OUT/$1.lost$2" tests/mpi/remote_run.sh "$B/rank_lost" "$2"
  rc=$? took=$(( $(date +%s) - start ))
  if [ $rc != 0 ] && [ $rc != 124 ] && [ $took -lt 30 ] &&
     { [ -z "$3" ] || grep -Eq "$3" "$OUT/$1.lost$2.err"; }; then
    ok "$1: rank_lost $2: the program ends (exit $rc, ${took}s)${3:+ with the cause}"
  else
    fail "$1: rank_lost $2: exit $rc after ${took}s: $(grep -m1 -o 'cause: .*' "$OUT/$1.lost$2.err" | cut -c1-200)"
  fi
  check_left "$1: rank_lost $2"
}
export RANK_PATTERN="^$SERVER"
export OMPI_MCA_btl=self,tcp OMPI_MCA_pml=ob1
transport_cases tcp
transport_lost tcp KILL 'its MPI rank [0-9]+ \(pid [0-9]+ on [^)]*\) ended during a kernel'
node2_why=""
if [ "$(id -u)" != 0 ]; then
  node2_why="not root"
elif ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
  node2_why="no unshare or ip"
else
  exec 9>/tmp/simdevice-node2.lock # (one such machine at a time)
  if ! flock -w 120 9; then
    node2_why="/tmp/simdevice-node2.lock held for 120 s"
  elif ! tests/mpi/node2.sh up >"$OUT/node2.log" 2>&1; then
    node2_why="node2.sh up: $(tail -1 "$OUT/node2.log")"
  fi
fi
if [ -n "$node2_why" ]; then
  skip "node2: no second machine: $node2_why"
else
  export OMPI_MCA_plm_rsh_agent=$ROOT/tests/mpi/node2.sh MPI_DEVICE_HOST=10.231.0.2 \
    OMPI_MCA_oob_tcp_if_include=10.231.0.0/24 OMPI_MCA_btl_tcp_if_include=10.231.0.0/24 \
    NODE2_HIDE="$OUT $ROOT/build/programs"
  # (MPMD with node2 named as this machine: a host name does not tell the
  # host that the rank's pid is one of its own; before, it took the pid
  # of the rank in node2's pid namespace for one of this machine's)
  for mode in mpmd spawn; do
    name=node2
    [ $mode = mpmd ] && name=$(hostname)
    NODE2_NAME=$name LIBOMPTARGET_INFO=16 MPI_RUN_MODE=$mode \
      run "$OUT/where.$mode" tests/mpi/remote_run.sh "$B/where"
    if grep -Eqx "device: $name pid:\[[0-9]+\] binary=0 shm=0" "$OUT/where.$mode.out" &&
       [ "$(grep -o 'pid:\[[0-9]*\]' "$OUT/where.$mode.out" | sort -u | wc -l)" = 2 ] &&
       grep -q "^simdevice-mpi: device 0 is MPI rank [01], pid [0-9]* on $name: another machine or pid namespace (its pid is not watched" "$OUT/where.$mode.err"; then
      ok "node2 $mode: the device runs on node2 (named $name), without the host's binary, /dev/shm or pids, and its pid is not taken for one of the host's"
    else
      fail "node2 $mode: $(tr '\n' ' ' <"$OUT/where.$mode.out")$(grep -m1 'device 0 is\|error' "$OUT/where.$mode.err" | cut -c1-200)"
    fi
  done
  transport_cases node2
  # device 0 on this machine, device 1 on node2: a copy between them goes
  # rank to rank, from one machine to the other
  if SIMDEVICE_NUM_DEVICES=0 LIBOMPTARGET_INFO=16 run "$OUT/node2.split" mpirun \
       --oversubscribe -q -x LD_LIBRARY_PATH -x SIMDEVICE_NUM_DEVICES -x LIBOMPTARGET_INFO \
       --host "$(hostname)" -np 1 "$B/remote_memcpy" : --host "$(hostname)" -np 1 "$SERVER" : \
       --host 10.231.0.2 -np 1 "$SERVER" && grep -q '^PASS$' "$OUT/node2.split.out" &&
     grep -q 'device 0 -> device 1: 4194304 bytes, MPI rank 1 to rank 2' "$OUT/node2.split.err" &&
     grep -q '^simdevice-mpi: device 1 is MPI rank 2, pid [0-9]* on node2: another machine' "$OUT/node2.split.err"; then
    ok "node2: remote_memcpy from a device rank here to one on node2, rank to rank"
  else
    fail "node2: remote_memcpy across the two machines: $(grep -m1 'error\|FAIL' "$OUT/node2.split.err" "$OUT/node2.split.out" | cut -c1-200)"
  fi
  check_left "node2: remote_memcpy across"
  # A rank killed on another machine: Open MPI ends the job (mpirun: exit
  # 137, "noticed that process rank 1 ... exited on signal 9"): no cause
  # from the plugin, which cannot watch a pid there; a stopped one is
  # given up after SIMDEVICE_TIMEOUT + 2 s, with the cause.
  transport_lost node2 KILL ""
  transport_lost node2 STOP 'its MPI rank [0-9]+ \(pid [0-9]+ on node2\) did not answer a kernel within SIMDEVICE_TIMEOUT=2 s \(\+2 s\): the rank hangs or is stopped; it is given up'
  tests/mpi/node2.sh down
  unset OMPI_MCA_plm_rsh_agent MPI_DEVICE_HOST OMPI_MCA_oob_tcp_if_include \
    OMPI_MCA_btl_tcp_if_include NODE2_HIDE
fi
exec 9>&-
unset OMPI_MCA_btl OMPI_MCA_pml

export RANK_PATTERN="^$SERVER"
for mode in mpmd spawn; do
  for sig in KILL STOP; do
    name="rank_lost $mode $sig"
    start=$(date +%s)
    MPI_RUN_MODE=$mode SIMDEVICE_TIMEOUT=2 OMP_TARGET_OFFLOAD=mandatory \
      run "$B/lost_$mode$sig" tests/mpi/remote_run.sh "$B/rank_lost" $sig
    rc=$? took=$(( $(date +%s) - start ))
    case $sig in
      KILL) want='its MPI rank [0-9]+ \(pid [0-9]+ on [^)]*\) ended during a kernel' ;;
      STOP) want='did not answer a kernel within SIMDEVICE_TIMEOUT=2 s' ;;
    esac
    # (under mpirun, MPMD, a killed rank makes mpirun exit 137 itself)
    if [ $rc != 0 ] && [ $rc != 124 ] &&
       grep -Eq "$want" "$B/lost_$mode$sig.err" && [ $took -lt 30 ]; then
      ok "$name: the construct fails with the cause (${took}s)"
    else
      fail "$name: exit $rc after ${took}s: $(grep -m1 -o 'cause: .*' "$B/lost_$mode$sig.err" | cut -c1-200)"
    fi
    check_left "$name"
  done
done
suite_end
