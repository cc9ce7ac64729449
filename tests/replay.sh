#!/bin/bash
# tests/replay.sh - SIMTARGET_RECORD and build/bin/simtarget-replay (issue
# 35). Each program of tests/replay/ (a C kernel, a C++ kernel with a
# class, declare-target globals, nowait kernels, a kernel that faults, one
# host thread launching while another copies into device memory) is
# compiled -O2 with every usable clang (build/toolchains/env.sh, or
# --versions), run with SIMTARGET_RECORD, and its recording replayed: the
# program's output and exit status are those of a run without recording,
# stderr says how much was recorded, every launch replays "identical" (the
# faulting one "faulted as recorded" with the same message), and a byte
# changed in after.bin is reported as a difference by block address.
# Once: SIMTARGET_RECORD_FILTER by `#N` and by kernel name, --times,
# --teams, --gdb, --valgrind, two recordings into one folder, and a
# recording made under SIMDEVICE_GUARD=0 replays too; a launch recorded on
# 1 CPU or with SIMDEVICE_DEFAULT_TEAMS=3 keeps its team count on replay,
# and one the program set after the device started is not recorded
# (tests/replay/once/setenv_later.c);
# a requires unified_shared_memory program records nothing and says so.
# Portability (issue 35 item 4): recordings copied to another folder and
# replayed by simtarget installed elsewhere (make install PREFIX=tmp), from
# another working directory with an empty environment (as nobody when run
# as root), recorded with another stack limit; another simtarget version
# refused, and another page size; a -fsanitize=thread host's recording
# (device memory off its default base); device code built with
# -fsanitize=address (its ASan fault); and the ppc64le device (clang 19, device process under
# qemu-ppc64le): a kernel and a faulting kernel, recorded and replayed.
#
# Usage: tests/replay.sh [--versions "14 19"] [PROGRAM ...]
# Prints one line per test and "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPLAY=$ROOT/build/bin/simtarget-replay
OUT=$ROOT/build/replay-tests
versions="" progs=()
while [ $# -gt 0 ]; do
  case $1 in
    --versions) versions=$2; shift ;;
    *) progs+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")") ;;
  esac
  shift
done
[ ${#progs[@]} -gt 0 ] || progs=("$ROOT"/tests/replay/*.c "$ROOT"/tests/replay/*.cpp)
# shellcheck source=tests/suite_lib.sh
. "$ROOT/tests/suite_lib.sh" # the counters, ppc64le_device_missing

TC_ENV=$ROOT/build/toolchains/env.sh
if [ ! -f "$TC_ENV" ] || [ ! -x "$REPLAY" ]; then
  skip "no build/toolchains/env.sh or build/bin/simtarget-replay (make all, tests/toolchains.sh)"
  echo "$passed passed, $failed failed, $skipped skipped"
  exit 0
fi
# shellcheck source=/dev/null
. "$TC_ENV"
[ -n "$versions" ] || versions=$TOOLCHAINS_USABLE
mkdir -p "$OUT"

compile() { # version, source, binary
  local n=$1 src=$2 bin=$3 cc flags extra=""
  eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n"
  case $src in *.cpp) extra=-lstdc++ ;; esac
  [ "$bin" -nt "$src" ] && return 0
  # shellcheck disable=SC2086
  "$cc" $flags -O2 "$src" -o "$bin" -L"$ROOT/build/lib" -lomptarget \
    -Wl,-rpath,"$ROOT/build/lib" -Wl,-rpath,"$(eval echo "\$TC_RTDIR_$n")" $extra
}

# Runs `bin` without and with recording into `rec`; compares what the
# program shows (1, counted as a failure, when it differs), then replays
# the recording: its exit status in REPLAY_RC, its output in
# $OUT/replay.txt.
record_and_replay() { # label, bin, rec, env...
  local label=$1 bin=$2 rec=$3
  shift 3
  rm -rf "$rec"
  local plain rc_plain got rc_got
  plain=$(env "$@" "$bin" 2>/dev/null | cat); rc_plain=${PIPESTATUS[0]}
  got=$(env "$@" SIMTARGET_RECORD="$rec" "$bin" 2>"$rec.err" | cat)
  rc_got=${PIPESTATUS[0]}
  if [ "$plain" != "$got" ] || [ "$rc_plain" != "$rc_got" ]; then
    fail "$label: recording changes what the program shows ($rc_plain: $plain / $rc_got: $got)"
    return 1
  fi
  if ! grep -q "^simtarget: recorded launch [0-9]* of kernel .* ([0-9]* bytes)" "$rec.err"; then
    fail "$label: stderr does not say what was recorded: $(head -3 "$rec.err")"
    return 1
  fi
  "$REPLAY" "$rec" >"$OUT/replay.txt" 2>&1
  REPLAY_RC=$?
  return 0
}

for src in "${progs[@]}"; do
  name=$(basename "${src%.*}")
  for n in $versions; do
    bin=$OUT/$name-$n
    label="$name clang-$n"
    if ! compile "$n" "$src" "$bin" >"$OUT/$name-$n.cc.log" 2>&1; then
      fail "$label: does not compile: $(head -3 "$OUT/$name-$n.cc.log")"
      continue
    fi
    rec=$OUT/rec-$name-$n
    record_and_replay "$label" "$bin" "$rec" || continue
    rc=$REPLAY_RC
    launches=$(find "$rec" -maxdepth 1 -name 'launch-*' | wc -l)
    if [ "$name" = fault ]; then
      if [ "$rc" -eq 0 ] && grep -q "faulted as recorded: kernel .* wrote address 0x" "$OUT/replay.txt"; then
        ok "$label: faults on replay as recorded ($launches launch)"
        sed -i 's/^outcome fault kernel/outcome fault the kernel/' "$rec"/launch-*/manifest.txt
        if ! "$REPLAY" "$rec" >"$OUT/replay.txt" 2>&1 &&
           grep -q "differs: the replay failed with another message" "$OUT/replay.txt"; then
          ok "$label: a fault with another message than recorded is a difference"
        else
          fail "$label: a changed fault message: $(cat "$OUT/replay.txt")"
        fi
      else
        fail "$label: replay (exit $rc): $(cat "$OUT/replay.txt")"
      fi
      continue
    fi
    identical=$(grep -c ": identical (" "$OUT/replay.txt")
    if [ "$rc" -eq 0 ] && [ "$identical" -eq "$launches" ] && [ "$launches" -gt 0 ]; then
      ok "$label: $launches launches recorded and replayed identical"
    else
      fail "$label: replay (exit $rc, $identical of $launches identical): $(head -5 "$OUT/replay.txt")"
      continue
    fi
    # A changed byte of the recorded result is named by its block.
    last=$(find "$rec" -maxdepth 1 -name 'launch-*' | sort -V | tail -1)
    block=$(awk '$1 == "block" && $3 > 0 {print $2; exit}' "$last/manifest.txt")
    printf '\x5a' | dd of="$last/after.bin" bs=1 seek=0 conv=notrunc 2>/dev/null
    if "$REPLAY" "$last" >"$OUT/replay.txt" 2>&1; then
      fail "$label: a changed after.bin still replays as identical"
    elif grep -q "differs: block at $block" "$OUT/replay.txt" ||
         grep -q "differs: global" "$OUT/replay.txt"; then
      ok "$label: a changed byte is reported: $(head -1 "$OUT/replay.txt" | sed 's|.*differs|differs|')"
    else
      fail "$label: a changed after.bin: $(cat "$OUT/replay.txt")"
    fi
  done
done

# ---- once, with the first version: filters, --times, no guard pages
n=${versions%% *}
bin=$OUT/nowait-$n
if [ -x "$bin" ]; then
  rec=$OUT/rec-filter
  rm -rf "$rec"
  SIMTARGET_RECORD=$rec SIMTARGET_RECORD_FILTER='#2' "$bin" >/dev/null 2>&1
  if [ -d "$rec/launch-2" ] && [ ! -d "$rec/launch-1" ] && "$REPLAY" "$rec" >/dev/null 2>&1; then
    ok "SIMTARGET_RECORD_FILTER=#2 records the second launch only"
  else
    fail "SIMTARGET_RECORD_FILTER=#2: $(ls "$rec" 2>&1)"
  fi
  rm -rf "$rec"
  SIMTARGET_RECORD=$rec SIMTARGET_RECORD_FILTER=no_such_kernel "$bin" >/dev/null 2>"$rec.err"
  if [ ! -e "$rec" ] && [ ! -s "$rec.err" ]; then
    ok "SIMTARGET_RECORD_FILTER with a name no kernel has records nothing and says nothing"
  else
    fail "SIMTARGET_RECORD_FILTER=no_such_kernel: $(ls "$rec" 2>&1) $(cat "$rec.err")"
  fi
  rm -rf "$rec"
  SIMTARGET_RECORD=$rec SIMTARGET_RECORD_FILTER=failed "$bin" >/dev/null 2>"$rec.err"
  if [ -d "$rec" ] && [ -z "$(ls "$rec")" ] && [ ! -s "$rec.err" ]; then
    ok "SIMTARGET_RECORD_FILTER=failed keeps nothing of launches that succeed"
  else
    fail "SIMTARGET_RECORD_FILTER=failed on a correct program: $(ls "$rec" 2>&1) $(cat "$rec.err")"
  fi
  rm -rf "$rec"
  SIMTARGET_RECORD=$rec SIMTARGET_RECORD_FILTER=failed "$OUT/fault-$n" >/dev/null 2>&1
  if [ -f "$rec/launch-1/manifest.txt" ] && "$REPLAY" "$rec" >"$OUT/replay.txt" 2>&1 &&
     grep -q "faulted as recorded" "$OUT/replay.txt"; then
    ok "SIMTARGET_RECORD_FILTER=failed keeps the launch that faults"
  else
    fail "SIMTARGET_RECORD_FILTER=failed on a fault: $(ls "$rec" 2>&1) $(cat "$OUT/replay.txt")"
  fi
  if record_and_replay "no guard pages" "$bin" "$rec" SIMDEVICE_GUARD=0 &&
     [ "$REPLAY_RC" -eq 0 ] && [ "$(grep -c ': identical (' "$OUT/replay.txt")" -eq 2 ]; then
    ok "a recording made with SIMDEVICE_GUARD=0 replays identical"
  else
    fail "SIMDEVICE_GUARD=0: $(cat "$OUT/replay.txt")"
  fi
  if ! command -v gdb >/dev/null; then
    skip "--gdb: no gdb"
  elif rm -rf "$OUT/gdb-tmp" && mkdir "$OUT/gdb-tmp" &&
       out=$(printf 'bt 1\ncontinue\n' | TMPDIR=$OUT/gdb-tmp timeout 120 "$REPLAY" --gdb "$rec/launch-1" 2>&1) &&
       grep -q "hit Temporary breakpoint .* in __omp_offloading_" <<<"$out" &&
       grep -q ": identical (" <<<"$out"; then
    # its gdb command file is removed at the end
    if [ -z "$(ls -A "$OUT/gdb-tmp")" ]; then
      ok "--gdb stops at the kernel's entry with its symbol, then replays identical, its TMPDIR left empty"
    else
      fail "--gdb left in TMPDIR: $(ls -A "$OUT/gdb-tmp")"
    fi
  else
    fail "--gdb: $(tail -5 <<<"$out")"
  fi
  if ! command -v valgrind >/dev/null; then
    skip "--valgrind: no valgrind"
  elif REPLAY_TEST_MARK=valgrind-$$ "$REPLAY" --valgrind "$rec/launch-1" >"$OUT/replay.txt" 2>&1 &&
       grep -q ": identical (" "$OUT/replay.txt"; then
    # $rec is SIMDEVICE_GUARD=0's: all device memory readable, which
    # memcheck's leak search at the device's end must not read (it went
    # on for minutes, allocating every page, until the kernel's OOM killer)
    for _ in $(seq 20); do
      left=$(grep -l "REPLAY_TEST_MARK=valgrind-$$" /proc/[0-9]*/environ 2>/dev/null)
      [ -n "$left" ] || break
      sleep 0.5
    done
    if [ -z "$left" ]; then ok "--valgrind replays identical under Valgrind, its device process ended with it"
    else fail "--valgrind: 10 s after the replay its device process still runs: $left"; fi
  else
    fail "--valgrind: $(cat "$OUT/replay.txt")"
  fi
  if "$REPLAY" --times 3 "$rec/launch-1" >"$OUT/replay.txt" 2>&1 &&
     grep -q ": 3 runs, [0-9.]* s per run" "$OUT/replay.txt" &&
     grep -q ": identical (" "$OUT/replay.txt"; then
    ok "--times 3 runs the kernel 3 times from the recorded memory, identical"
  else
    fail "--times 3: $(cat "$OUT/replay.txt")"
  fi
  SIMTARGET_RECORD=$rec "$bin" >/dev/null 2>&1
  if [ -d "$rec/launch-1" ] && compgen -G "$rec/launch-1.[0-9]*" >/dev/null &&
     "$REPLAY" "$rec" >"$OUT/replay.txt" 2>&1 &&
     [ "$(grep -c ': identical (' "$OUT/replay.txt")" -eq 4 ]; then
    ok "a second recording into the same folder keeps the first (launch-N.PID), all four replay"
  else
    fail "recording twice into one folder: $(ls "$rec") $(cat "$OUT/replay.txt")"
  fi
fi
bin=$OUT/geometry-$n
if [ -x "$bin" ]; then
  rec=$OUT/rec-geometry
  rm -rf "$rec"
  SIMTARGET_RECORD=$rec "$bin" >/dev/null 2>&1
  if "$REPLAY" --teams 3 "$rec" >"$OUT/replay.txt" 2>&1; then
    fail "--teams 3 on a kernel that stores its team count replays identical"
  elif grep -q "differs: block at 0x[0-9a-f]* (4 bytes): 1 bytes differ" "$OUT/replay.txt"; then
    ok "--teams 3 runs the kernel with 3 teams (its stored team count differs)"
  else
    fail "--teams 3: $(cat "$OUT/replay.txt")"
  fi
  # The geometry of a launch without clauses follows the device's CPUs and
  # settings: replay takes the recorded ones, not its own.
  rm -rf "$rec"
  if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
    skip "a recording made on 1 CPU: needs 2 CPUs and taskset"
  elif taskset -c 0 env SIMTARGET_RECORD="$rec" "$bin" >/dev/null 2>&1 &&
       grep -q "^cpus 1$" "$rec/launch-1/manifest.txt" &&
       "$REPLAY" "$rec" >"$OUT/replay.txt" 2>&1 && grep -q ": identical (" "$OUT/replay.txt"; then
    ok "a launch recorded on 1 CPU replays identical on $(nproc) (its team count is that of 1 CPU)"
  else
    fail "recorded on 1 CPU, replayed on $(nproc): $(cat "$OUT/replay.txt")"
  fi
  rm -rf "$rec"
  if SIMDEVICE_DEFAULT_TEAMS=3 SIMTARGET_RECORD="$rec" "$bin" >/dev/null 2>&1 &&
     SIMDEVICE_DEFAULT_TEAMS=5 "$REPLAY" "$rec" >"$OUT/replay.txt" 2>&1 &&
     grep -q ": identical (" "$OUT/replay.txt"; then
    ok "a launch recorded with SIMDEVICE_DEFAULT_TEAMS=3 replays identical where it is 5"
  else
    fail "SIMDEVICE_DEFAULT_TEAMS=3 recorded, 5 at replay: $(cat "$OUT/replay.txt")"
  fi
fi

# A setting the program changes after the device started does not reach
# the device: the recording names the device's (its /proc environ).
bin=$OUT/setenv_later-$n
rec=$OUT/rec-setenv
rm -rf "$rec"
if ! compile "$n" "$ROOT/tests/replay/once/setenv_later.c" "$bin" >"$bin.cc.log" 2>&1; then
  fail "setenv_later.c clang-$n does not compile: $(head -3 "$bin.cc.log")"
elif env -u SIMDEVICE_DEFAULT_TEAMS SIMTARGET_RECORD="$rec" "$bin" 2>/dev/null | grep -q "^setenv_later 1$" &&
     ! grep -q "^env SIMDEVICE_DEFAULT_TEAMS" "$rec/launch-2/manifest.txt" &&
     SIMDEVICE_DEFAULT_TEAMS=5 "$REPLAY" "$rec" >"$OUT/replay.txt" 2>&1 &&
     [ "$(grep -c ": identical (" "$OUT/replay.txt")" -eq 2 ]; then
  ok "SIMDEVICE_DEFAULT_TEAMS set by the program after its first region: the device's value is recorded, both launches replay identical (where it is 5)"
else
  fail "setenv_later.c: $(grep -h "^env" "$rec"/launch-*/manifest.txt) $(cat "$OUT/replay.txt")"
fi

# A requires unified_shared_memory program runs its kernels in the host
# process: nothing to record, and stderr says so once.
bin=$OUT/usm-$n
if ! compile "$n" "$ROOT/tests/programs/usm.c" "$bin" >"$bin.cc.log" 2>&1; then
  fail "usm.c clang-$n does not compile: $(head -3 "$bin.cc.log")"
else
  rec=$OUT/rec-usm
  rm -rf "$rec"
  plain=$("$bin" 2>/dev/null | cat)
  got=$(SIMTARGET_RECORD=$rec "$bin" 2>"$rec.err" | cat)
  said=$(grep -c "SIMTARGET_RECORD: launch [0-9]* of kernel .* not recorded, nor any later one like it: the program requires unified_shared_memory" "$rec.err")
  if [ "$plain" = "$got" ] && [ "$said" -eq 1 ] && [ ! -e "$rec" ]; then
    ok "a requires unified_shared_memory program: nothing recorded, said once on stderr, its output unchanged"
  else
    fail "usm.c with SIMTARGET_RECORD (said $said times): $(head -3 "$rec.err")"
  fi
fi

# ---- portability (issue 35 item 4): a recording replayed elsewhere, by
# simtarget installed with make install into another folder, from another
# working directory, with an empty environment and (as root) as nobody.
# Recorded with another stack limit than the replay's (it places the device
# process's images, so a pointer to a global kept in a global).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay-portable.XXXXXX")
chmod 755 "$tmp"
prefix=$tmp/prefix
runas=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  runas=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  # a TMPDIR that only root may enter: replayed as root then
  "${runas[@]}" test -x "$tmp" 2>/dev/null || runas=()
fi
elsewhere() { # replays $tmp/$1 as another user would: exit status, output in $OUT/replay.txt
  (cd "$tmp" && chmod -R a+rX "$tmp" &&
   env -i PATH=/usr/bin:/bin HOME="$tmp" ${runas[@]+"${runas[@]}"} \
     "$prefix/bin/simtarget-replay" "$1") >"$OUT/replay.txt" 2>&1
}
# record_elsewhere NAME BIN [ENV...]: records BIN into $tmp/NAME (made in
# $OUT, then copied and removed there); 1 when nothing was recorded.
record_elsewhere() {
  local name=$1 bin=$2 rec=$OUT/rec-portable
  shift 2
  rm -rf "$rec" "${tmp:?}/$name"
  (cd "$OUT" && ulimit -s "$other" && env "$@" SIMTARGET_RECORD="$rec" "$bin") >/dev/null 2>&1
  [ -d "$rec/launch-1" ] && cp -r "$rec" "$tmp/$name" && rm -rf "$rec"
}
if [ "$(ulimit -s)" = unlimited ]; then other=8192; else other=unlimited; fi
[ "$other" = 8192 ] || [ "$(ulimit -Hs)" = unlimited ] || other=$(ulimit -s)
# what is built, as it is (-o all): a rebuild here (a commit changes
# build/version.h) would rewrite build/lib under the suites running beside
if ! make -s -C "$ROOT" install -o all PREFIX="$prefix" >"$OUT/install.log" 2>&1; then
  fail "make install PREFIX=$prefix: $(tail -3 "$OUT/install.log")"
elif [ ! -x "$OUT/globals-$n" ]; then
  skip "portability: no globals-$n"
elif ! record_elsewhere copied "$OUT/globals-$n"; then
  fail "portability: globals-$n recorded nothing"
elif elsewhere copied && grep -q ": identical (" "$OUT/replay.txt" &&
     ! grep -q "note: image" "$OUT/replay.txt" &&
     grep -q "^stack_limit $([ "$other" = unlimited ] && echo unlimited || echo $((other * 1024)))$" \
       "$tmp/copied/launch-1/manifest.txt"; then
  ok "a recording copied elsewhere replays identical with an installed simtarget, another folder, an empty environment${runas[*]:+, as nobody} (recorded with stack limit $other)"
else
  fail "portability: $(cat "$OUT/replay.txt")"
fi
manifest=$tmp/copied/launch-1/manifest.txt
# refused WHAT SED MESSAGE: the manifest edited by SED is refused with
# MESSAGE (a grep pattern)
refused() {
  sed "$2" "$manifest.orig" >"$manifest"
  if elsewhere copied; then
    fail "$1 replays"
  elif grep -q "$3" "$OUT/replay.txt"; then
    ok "$1 is refused, both named"
  else
    fail "$1: $(cat "$OUT/replay.txt")"
  fi
}
if [ -f "$manifest" ]; then
  cp "$manifest" "$manifest.orig"
  refused "a recording of another simtarget version" \
    's/^simtarget_version .*/simtarget_version 2000.01.01-g0000000/' \
    "recorded by simtarget 2000.01.01-g0000000, this is simtarget [0-9]"
  page=$(getconf PAGESIZE)
  refused "a recording from a host with $((page * 16))-byte pages" \
    "s/^page_size .*/page_size $((page * 16))/" \
    "recorded on a host with $((page * 16))-byte pages, this one has $page-byte pages"
fi
# A host built with -fsanitize=thread moves device memory off its default
# base (TSan's application memory): replay places it where it was.
tsan_rt=/usr/lib/llvm-19/lib/clang/19/lib/linux
# shellcheck disable=SC2086 # TC_FLAGS_N are words
if [[ " $versions " != *" 19 "* ]] || [ ! -e "$tsan_rt/libclang_rt.tsan-x86_64.so" ]; then
  skip "a recording from a -fsanitize=thread host: needs clang 19 and its TSan runtime"
elif ! "$TC_CC_19" $TC_FLAGS_19 -O2 -Xarch_host -fsanitize=thread -shared-libsan \
       -Wl,-rpath,"$tsan_rt" -I"$ROOT/tests/programs" "$ROOT/tests/programs/sanitize_thread.c" \
       -o "$OUT/tsan-19" -L"$ROOT/build/lib" -lomptarget -Wl,-rpath,"$ROOT/build/lib" \
       -Wl,-rpath,"$TC_RTDIR_19" >"$OUT/tsan.log" 2>&1; then
  fail "sanitize_thread.c does not compile: $(head -3 "$OUT/tsan.log")"
elif ! TSAN_OPTIONS=suppressions=$ROOT/tests/programs/tsan_runtimes.supp "$OUT/tsan-19" >"$OUT/tsan.log" 2>&1; then
  skip "a recording from a -fsanitize=thread host: the program does not run here: $(head -2 "$OUT/tsan.log")"
elif ! record_elsewhere tsan "$OUT/tsan-19" SIMTARGET_RECORD_FILTER='#1' \
       TSAN_OPTIONS="suppressions=$ROOT/tests/programs/tsan_runtimes.supp"; then
  fail "a -fsanitize=thread host recorded nothing"
elif base=$(awk '$1 == "device_base" {print $2}' "$tmp/tsan/launch-1/manifest.txt") &&
     [ "$base" != 0x600000000000 ] && elsewhere tsan && grep -q ": identical (" "$OUT/replay.txt"; then
  ok "a recording from a -fsanitize=thread host (device memory at $base) replays identical elsewhere"
else
  fail "a -fsanitize=thread host's recording (device_base ${base:-?}): $(cat "$OUT/replay.txt")"
fi
# Device code built with -fsanitize=address (clang 14 instruments it): the
# device process runs under ASan's runtime (is_valid_binary says so), its
# memory at 0x650000000000, and ASan's report is the recorded fault.
asan_rt=$(compgen -G "/usr/lib/llvm-14/lib/clang/14*/lib/linux/libclang_rt.asan-x86_64.so" | head -1)
# shellcheck disable=SC2086 # TC_FLAGS_N are words
if [[ " $versions " != *" 14 "* ]] || [ -z "$asan_rt" ]; then
  skip "device code built with -fsanitize=address: needs clang 14 and its ASan runtime"
elif ! "$TC_CC_14" $TC_FLAGS_14 -O2 -g -fsanitize=address \
       "$ROOT/tests/programs/sanitize_device_overrun.c" -o "$OUT/asan-device-14" -L"$ROOT/build/lib" \
       -lomptarget -Wl,-rpath,"$ROOT/build/lib" -Wl,-rpath,"$TC_RTDIR_14" >"$OUT/asan.log" 2>&1; then
  fail "sanitize_device_overrun.c does not compile: $(head -3 "$OUT/asan.log")"
elif ! record_elsewhere asan "$OUT/asan-device-14" ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0; then
  fail "device code built with -fsanitize=address: nothing recorded"
elif elsewhere asan &&
     grep -q ": faulted as recorded: AddressSanitizer in the device process: .* wrote address 0x" "$OUT/replay.txt"; then
  ok "device code built with -fsanitize=address: its fault replays elsewhere as recorded (ASan's report)"
else
  fail "device code built with -fsanitize=address: $(grep -v '^ \|^=\|^$' "$OUT/replay.txt" | head -5)"
fi

# ---- the ppc64le device (its process under qemu-ppc64le): a recording
# names its machine, and replay runs it on the ppc64le plugin, under qemu.
pn=19
[[ " $versions " == *" 19 "* ]] || pn=${versions##* }
why=$(ppc64le_device_missing "$ROOT")
for name in globals fault; do
  [ -z "$why" ] || { skip "ppc64le $name: $why"; continue; }
  bin=$OUT/$name-ppc64le-$pn
  if ! "$ROOT/build/bin/simtarget-clang" --clang "$pn" --device=ppc64le -O2 \
       "$ROOT/tests/replay/$name.c" -o "$bin" >"$bin.log" 2>&1; then
    fail "ppc64le $name clang-$pn does not compile: $(grep -v 'skipping incompatible' "$bin.log" | head -3)"
    continue
  fi
  record_elsewhere "ppc64le-$name" "$bin" || { fail "ppc64le $name: nothing recorded"; continue; }
  want=": identical ("
  [ "$name" = fault ] && want=": faulted as recorded: kernel .* wrote address 0x"
  if grep -q "^machine ppc64le$" "$tmp/ppc64le-$name/launch-1/manifest.txt" &&
     elsewhere "ppc64le-$name" && grep -q "$want" "$OUT/replay.txt"; then
    ok "ppc64le $name clang-$pn: recorded on the ppc64le device, replayed under qemu elsewhere: $(sed 's/.*launch-1: //; s/: kernel.*//' "$OUT/replay.txt" | head -1)"
    if [ "$name" = globals ] && [ "$(uname -m)" != ppc64le ]; then
      if "$REPLAY" --gdb "$tmp/ppc64le-$name" >"$OUT/replay.txt" 2>&1; then
        fail "--gdb on a ppc64le recording under qemu runs"
      elif grep -q -- "--gdb and --valgrind run the device process on this machine's debugger; this recording's device is ppc64le" "$OUT/replay.txt"; then
        ok "--gdb on a ppc64le recording is refused, the device machine named"
      else
        fail "--gdb on a ppc64le recording: $(cat "$OUT/replay.txt")"
      fi
    fi
  else
    fail "ppc64le $name clang-$pn: $(cat "$OUT/replay.txt")"
  fi
done
rm -rf "$tmp"

if "$REPLAY" "$OUT" >"$OUT/replay.txt" 2>&1; then
  fail "simtarget-replay accepts a folder that is no recording"
elif grep -q "simtarget-replay: .* holds neither manifest.txt nor launch-N" "$OUT/replay.txt"; then
  ok "simtarget-replay refuses a folder that is no recording"
else
  fail "simtarget-replay on a folder that is no recording: $(cat "$OUT/replay.txt")"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
