# shellcheck shell=bash
# tutorials/lib.sh - shared by tutorials/run.sh (one lesson, for a student)
# and tests/lessons.sh (every lesson, checked against its expected output).
# Source it with ROOT set to the repository root.
#
# A lesson program states how it runs in comment lines near its top:
#   info: 0x29          LIBOMPTARGET_INFO for the run (default 0x29)
#   env: VAR=VALUE ...  more environment (split at spaces)
#   cflags: ...         more compiler flags
#   expect-exit: N      exit status wanted (default 0)
#   expect: REGEX       an extended regex a line of the normalised output
#                       must match (several lines allowed)
#   golden: no          the output's order varies (threads): only the
#                       expect: lines are checked, no expected/ file
#   run: simtarget-check  run it under build/bin/simtarget-check (on
#                       simtarget only; LLVM's runtime runs it directly)
#   build: host-only    compile it without -fopenmp-targets (no device code)

# lesson_field FILE NAME: the values of "NAME: value" lines, one a line.
lesson_field() {
  sed -n -E "s@^[[:space:]/*]*$2:[[:space:]]*(.*[^[:space:]*/])[[:space:]*/]*\$@\\1@p" "$1"
}

# lesson_dir ARG: the lesson folder for "03", "3", "03-target-data-refcounts"
# or a path to one.
lesson_dir() {
  local a=$1 d
  if [ -d "$a" ]; then (cd "$a" && pwd); return; fi
  [[ $a =~ ^[0-9]$ ]] && a=0$a
  for d in "$ROOT"/tutorials/"$a"*/; do
    [ -f "$d/program.c" ] && { (cd "$d" && pwd); return; }
  done
  return 1
}

# lesson_clang [N]: the clang version to use (N, else LESSONS_CLANG, else the
# newest usable); needs build/toolchains/env.sh sourced.
lesson_clang() {
  local want=${1:-${LESSONS_CLANG:-}} n newest=""
  for n in $TOOLCHAINS_USABLE; do newest=$n; done
  if [ -n "$want" ]; then
    [[ " $TOOLCHAINS_USABLE " == *" $want "* ]] && { echo "$want"; return; }
    return 1
  fi
  [ -n "$newest" ] && echo "$newest"
}

# lesson_out_dir: where compiled lessons and their runs go: build/lessons,
# or, when the checkout is read-only or shared (build/ not writable), a
# folder of this user's under $TMPDIR. Nothing is written beside the lessons.
lesson_out_dir() {
  local d=${LESSONS_OUT:-$ROOT/build/lessons}
  if mkdir -p "$d" 2>/dev/null && [ -w "$d" ]; then
    echo "$d"
  else
    d=${TMPDIR:-/tmp}/simtarget-lessons-$(id -u)
    mkdir -p "$d" && echo "$d"
  fi
}

# lesson_compile N SRC BIN: compile SRC with clang-N, -g, into BIN (kept
# when it is newer than SRC and was built with the same command). The
# compiler runs in SRC's folder on the file's bare name, so the trace says
# "program.c:12:1", the same on every checkout.
lesson_compile() {
  local n=$1 src=$2 bin=$3 cc flags cmd
  eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n"
  if [ "$(lesson_field "$src" build | head -1)" = host-only ]; then
    flags=$(sed 's/-fopenmp-targets=[^ ]*//' <<<"$flags")
    # no libomptarget: the binary finds clang's libomp by its run path
    flags="$flags -Wl,-rpath,$(sed -n 's/.*-L\([^ ]*\).*/\1/p' <<<"$flags")"
  fi
  cmd="$cc $flags -g -O1 $(lesson_field "$src" cflags | head -1) $(basename "$src") -o $bin"
  if [ -x "$bin" ] && [ "$bin" -nt "$src" ] && [ "$(cat "$bin.cmd" 2>/dev/null)" = "$cmd" ]; then
    return 0
  fi
  mkdir -p "$(dirname "$bin")"; rm -f "$bin" "$bin.cmd"
  echo "$cmd" >"$bin.log"
  if (cd "$(dirname "$src")" && $cmd >>"$bin.log" 2>&1); then
    echo "$cmd" >"$bin.cmd"; return 0
  fi
  return 1
}

# lesson_run N SRC BIN [llvm]: run BIN on simtarget (or on clang-N's own LLVM
# runtime) in BIN's folder (what the program writes, a core file, goes there,
# not into the lesson) with the program's info bits and environment, stdout and stderr
# interleaved as printed (stdbuf -oL: through a pipe the program's own
# output would otherwise be block-buffered and come after the whole
# trace). Trace lines lose their "omptarget info: " prefix for "  | ".
lesson_run() {
  local n=$1 src=$2 bin=$3 mode=${4:-simtarget} info libpath hostlib rtdir
  local -a env=() run=()
  if [ "$mode" != llvm ] && [ "$(lesson_field "$src" run | head -1)" = simtarget-check ]; then
    run=("$ROOT/build/bin/simtarget-check")
  fi
  info=${LIBOMPTARGET_INFO:-$(lesson_field "$src" info | head -1)}
  read -r -a env <<<"$(lesson_field "$src" env | head -1)"
  eval "hostlib=\$TC_HOSTLIB_$n rtdir=\$TC_RTDIR_$n"
  if [ "$mode" = llvm ]; then libpath=$rtdir; else libpath=$ROOT/build/lib:$hostlib; fi
  (cd "$(dirname "$bin")" && env ${env[@]+"${env[@]}"} LIBOMPTARGET_INFO="${info:-0x29}" \
    OMP_TARGET_OFFLOAD=mandatory LD_LIBRARY_PATH="$libpath" \
    timeout 60 stdbuf -oL -eL ${run[@]+"${run[@]}"} "$bin" 2>&1 | sed -u 's/^omptarget info: /  | /'
    exit "${PIPESTATUS[0]}")
}

# lesson_normalise: the run's output without what changes from run to run
# or machine to machine: addresses outside simdevice's heap (0x6000...)
# numbered <addr 1>, <addr 2>, ... in order of appearance; pids; the
# kernel's file id; the CUDA plugin's "no devices" line; the checkout path.
lesson_normalise() {
  grep -v 'libomptarget.rtl.cuda.so' | sed -E "s@$ROOT@<root>@g; s/__omp_offloading_[0-9a-f]+_[0-9a-f]+_/__omp_offloading_<id>_/g; s/(pid|process) [0-9]+/\\1 <pid>/g" |
    awk '{
      out = ""
      while (match($0, /0x[0-9a-f]+/)) {
        a = substr($0, RSTART, RLENGTH)
        if (RLENGTH >= 11 && a !~ /^0x6000/) {
          if (!(a in id)) id[a] = ++n
          a = "<addr " id[a] ">"
        }
        out = out substr($0, 1, RSTART - 1) a
        $0 = substr($0, RSTART + RLENGTH)
      }
      print out $0
    }'
}
