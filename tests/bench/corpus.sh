#!/usr/bin/env bash
# tests/bench/corpus.sh - the figure a CI user feels: the project's own
# program corpus (tests/programs/ and the differential corpus tests/diff/,
# built once with one clang) run two at a time, as `make -j2` or
# `ctest -j2` would on 2 CPUs, once on that clang's own LLVM offload runtime
# and once on simtarget; the total wall time of each, their ratio and the
# goal (simtarget/LLVM <= 1.3). Rounds interleave the runtimes (LLVM,
# simtarget, LLVM, ...); the medians are printed. Run by `make bench`
# (tests/bench.sh); alone: tests/bench/corpus.sh.
#
# The programs: every one that both runtimes can run and means to pass
# (no `simtarget-only`, no `expect-exit`, no `env:` line; for clang N), then
# only those that exit 0 on both runtimes in a first qualifying run, so
# that neither side is timed on programs that fail early.
#   BENCH_CORPUS_CLANG  the clang (default 19; needs its LLVM offload runtime)
#   BENCH_CORPUS_JOBS   programs at a time (default 2)
#   BENCH_ROUNDS        rounds (default 3 here)
set -eu
cd "$(dirname "$0")/../.."
root=$PWD
n=${BENCH_CORPUS_CLANG:-19}
jobs=${BENCH_CORPUS_JOBS:-2}
rounds=${BENCH_ROUNDS:-3}
out=build/bench/corpus
mkdir -p "$out"
[ -f build/toolchains/env.sh ] || tests/toolchains.sh >/dev/null
# shellcheck disable=SC1091
. build/toolchains/env.sh
eval "hostlib=\${TC_HOSTLIB_$n:-} rtdir=\${TC_RTDIR_$n:-} ccn=\${TC_CC_$n:-}"
if [ -z "$ccn" ] || ! ls "$rtdir"/libomptarget.so* >/dev/null 2>&1; then
  echo "corpus benchmark skipped: clang-$n or LLVM $n's offload runtime is missing (tests/toolchains.sh)"
  exit 0
fi
sim_path=$root/build/lib:$hostlib
llvm_path=$rtdir

# header_field FILE NAME / has_marker FILE NAME, as programs.sh reads them.
header_field() {
  sed -n -E "s@^[[:space:]/*]*$2:[[:space:]]*(.*[^[:space:]*/])[[:space:]*/]*\$@\\1@p" "$1" | head -1
}
has_marker() { grep -qE "^[[:space:]/*]*$2[[:space:]*/]*\$" "$1"; }
eligible() {
  local v
  has_marker "$1" simtarget-only && return 1
  [ -n "$(header_field "$1" expect-exit)" ] && return 1
  [ -n "$(header_field "$1" env)" ] && return 1
  v=$(header_field "$1" versions)
  [ -z "$v" ] || [[ " $v " == *" $n "* ]]
}
bin_of() {
  case $1 in
    "$root"/tests/diff/*) echo "$root/build/diff/$n/$(basename "$(dirname "$1")")/$(basename "${1%.*}")" ;;
    *) echo "$root/build/programs/$n/$(basename "${1%.*}")" ;;
  esac
}

sources=()
while IFS= read -r f; do
  eligible "$f" && sources+=("$f")
done < <(find "$root/tests/programs" "$root/tests/diff" -name '*.c' -o -name '*.cpp' | sort)
echo "corpus: ${#sources[@]} programs eligible; compiling with clang-$n (cached: build/programs, build/diff) ..."
for f in "${sources[@]}"; do printf '%s\0%s\0' "$f" "$n"; done |
  xargs -0 -n2 -P"$jobs" tests/programs.sh --compile-one || true

# run_one LIBPATH BIN: the program in its folder, output discarded; exit status.
run_one() {
  (cd "$(dirname "$2")" && LD_LIBRARY_PATH=$1 OMP_TARGET_OFFLOAD=mandatory \
    timeout -k 5 60 "$2" >/dev/null 2>&1 </dev/null)
}
export -f run_one

: > "$out/list"
: > "$out/dropped"
for f in "${sources[@]}"; do
  b=$(bin_of "$f")
  name=${f#"$root/tests/"}
  if [ ! -x "$b" ]; then
    echo "  $name: does not compile with clang-$n" >> "$out/dropped"
  elif ! run_one "$llvm_path" "$b"; then
    echo "  $name: fails on LLVM $n's runtime" >> "$out/dropped"
  elif ! run_one "$sim_path" "$b"; then
    echo "  $name: fails on simtarget" >> "$out/dropped"
  else
    echo "$b" >> "$out/list"
  fi
done
count=$(wc -l < "$out/list")
echo "corpus: $count programs exit 0 on both runtimes; $rounds rounds, $jobs at a time; left out:"
cat "$out/dropped"

# wall_ms LIBPATH: the whole list, `jobs` at a time; prints milliseconds.
wall_ms() {
  local t0 t1
  t0=$(date +%s%N)
  tr '\n' '\0' < "$out/list" | xargs -0 -n1 -P"$jobs" bash -c 'run_one "$0" "$1" || true' "$1"
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}

: > "$out/times"
for r in $(seq 1 "$rounds"); do
  echo "llvm $(wall_ms "$llvm_path")" >> "$out/times"
  echo "sim $(wall_ms "$sim_path")" >> "$out/times"
done
awk -v count="$count" -v n="$n" -v jobs="$jobs" '
  function median(list,    v, k, i, j, t) {
    k = split(list, v, " ")
    for (i = 2; i <= k; i++)
      for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  { vals[$1] = vals[$1] " " $2 }
  END {
    l = median(vals["llvm"]); s = median(vals["sim"]); r = l ? s / l : 0
    printf "%-24s %12s %12s %8s  %s\n", "metric", "llvm-" n, "simtarget", "sim/llvm", "goal"
    printf "%-24s %9.0f ms %9.0f ms %7.2fx  sim/llvm <= 1.3  %s\n",
           "corpus_" count "_progs_j" jobs, l, s, r, r <= 1.3 ? "ok" : "MISSED"
    printf "(rounds, ms: llvm%s; simtarget%s)\n", vals["llvm"], vals["sim"]
  }' "$out/times"
