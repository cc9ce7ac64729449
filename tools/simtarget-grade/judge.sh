# judge.sh - how a program is judged against its expectations: sourced by
# tests/programs.sh and tools/simtarget-grade (one definition for both).
#
# Expectations are the header fields documented at the top of
# tests/programs.sh (expect-exit, expect-stdout, expect-stderr,
# expect-stderr-not, repeat, env). expect_field SRC NAME reads one; a caller
# may redefine it (simtarget-grade: a folder's expectations file first).
# Needs: RUN_TIMEOUT (seconds), LIBDIR (simtarget's libraries), and for
# libpath_for the TC_* variables of build/toolchains/env.sh.

# ---------------------------------------------------------------- headers
# header_field FILE NAME: the value of "NAME: value" in the file's comments.
header_field() {
  sed -n -E "s@^[[:space:]/*]*$2:[[:space:]]*(.*[^[:space:]*/])[[:space:]*/]*\$@\\1@p" "$1" | head -1
}
has_marker() { grep -qE "^[[:space:]/*]*$2[[:space:]*/]*\$" "$1"; }

# expect_field SRC NAME: the expectation NAME of program SRC.
expect_field() { header_field "$1" "$2"; }

# ---------------------------------------------------------------- run
# load_expectations SRC: the program's header fields, into want_exit,
# want_err, want_err_not, want_out, repeat and run_env.
load_expectations() {
  want_exit=$(expect_field "$1" expect-exit)
  want_exit=${want_exit:-0}
  want_err=$(expect_field "$1" expect-stderr)
  want_err_not=$(expect_field "$1" expect-stderr-not)
  want_out=$(expect_field "$1" expect-stdout)
  [ -z "$want_out" ] && [ "$want_exit" = 0 ] && want_out='^PASS$'
  repeat=$(expect_field "$1" repeat)
  repeat=${repeat:-1}
  local env_line
  env_line=$(expect_field "$1" env)
  # programs.sh --device=ppc64le: the same device settings, for that plugin.
  if [ "${PROGRAMS_DEVICE:-}" = ppc64le ]; then
    env_line=${env_line//SIMDEVICE_NUM_DEVICES=/SIMDEVICE_PPC64LE_NUM_DEVICES=}
    env_line=${env_line//SIMDEVICE_SERVER=/SIMDEVICE_PPC64LE_SERVER=}
  fi
  read -r -a run_env <<<"$env_line"
}

# last_line FILE: the last non-empty line, for failure reasons.
last_line() { grep -v '^[[:space:]]*$' "$1" | tail -1 | cut -c1-200; }

# run_judged BIN LIBPATH LOG: run BIN (repeat times, under the expectations
# load_expectations set) with LD_LIBRARY_PATH=LIBPATH, output in LOG.out and
# LOG.err. Sets reason (empty when everything was as expected) and, on a
# failure, detail: the runtime's "cause:" line, else the last words printed.
run_judged() {
  local bin=$1 libpath=$2 log=$3 run rc
  reason="" detail=""
  for ((run = 1; run <= repeat; run++)); do
    (cd "$(dirname "$bin")" && env ${run_env[@]+"${run_env[@]}"} LD_LIBRARY_PATH=$libpath OMP_TARGET_OFFLOAD=mandatory \
      timeout -k 5 "$RUN_TIMEOUT" stdbuf -o0 ${RUNNER:-} "$bin" >"$log.out" 2>"$log.err") 2>/dev/null
    rc=$?
    if [ $rc = 124 ] || [ $rc = 137 ]; then
      reason="timed out after ${RUN_TIMEOUT}s"
    elif [ "$rc" != "$want_exit" ]; then
      reason="exit $rc, expected $want_exit"
      [ $rc -gt 128 ] && reason="$reason (signal $((rc - 128)))"
    elif [ -n "$want_err" ] && ! grep -Eiq -- "$want_err" "$log.err"; then
      reason="stderr does not match /$want_err/"
    elif [ -n "$want_err_not" ] && grep -Eiq -- "$want_err_not" "$log.err"; then
      reason="stderr matches /$want_err_not/: ...$(grep -Eio -m1 -- ".{0,80}($want_err_not).{0,40}" "$log.err" | head -1)..."
      return
    elif [ -n "$want_out" ] && ! grep -Eq -- "$want_out" "$log.out"; then
      reason="stdout does not match /$want_out/"
    fi
    [ -z "$reason" ] || break
  done
  [ -z "$reason" ] && return
  [ "$repeat" -gt 1 ] && reason="run $run of $repeat: $reason"
  detail=$(grep -m1 -o 'cause: .*' "$log.err" | cut -c1-300)
  [ -z "$detail" ] && detail=$(last_line "$log.err")
  [ -z "$detail" ] && detail=$(last_line "$log.out")
  reason="$reason; last output: ${detail:-none}"
}

# libpath_for N MODE: LD_LIBRARY_PATH for a clang-N binary on MODE's runtime.
libpath_for() {
  local hostlib rtdir
  eval "hostlib=\$TC_HOSTLIB_$1 rtdir=\$TC_RTDIR_$1"
  if [ "$2" = simtarget ]; then
    # Host code of clang-N calls libomp N (19/22 need >= 19); the device
    # side is simtarget's own runtime in the device process.
    if [ "${PROGRAMS_HOST_LIBOMP:-}" = system ]; then echo "$LIBDIR"; else echo "$LIBDIR:$hostlib"; fi
  else
    echo "$rtdir"
  fi
}
