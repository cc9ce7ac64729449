#!/bin/bash
# tests/traces_fuzz.sh - simtarget-maps on mutated traces (issue 30 item 19).
# Builds the tool with AddressSanitizer and UBSan (build/fuzz/simtarget-maps),
# then, for each seed trace (tests/traces/rules/ and the clang 14/22 golden
# traces), writes MUTANTS mutated copies (deterministic: one random seed per
# file) and runs `check`, `diff` (both ways against the seed) and `normalize`
# on each. A mutant passes when every command exits 0, 1 or 2, the sanitizers
# say nothing, and an exit status 2 comes with a message naming the file's
# line (FILE:LINE:) or an empty trace; every third mutant's runs are checked
# for leaks too. Mutations: a value of a random field
# replaced by one of another JSON type (an "args" or "params" that is not an
# array, a "type" that is not hex, ...), a field deleted, a line cut short,
# deleted, duplicated, swapped with the next, or replaced by garbage.
#
# Usage: tests/traces_fuzz.sh [--mutants N] [SEED.jsonl ...]
# Prints one line per seed and "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mutants=15 seeds=()
while [ $# -gt 0 ]; do
  case $1 in
    --mutants) mutants=$2; shift ;;
    *) seeds+=("$1") ;;
  esac
  shift
done
[ ${#seeds[@]} -gt 0 ] || seeds=("$ROOT"/tests/traces/rules/*.jsonl
  "$ROOT"/tests/traces/golden/14/{nested_member,struct_ptr_member,mapper_struct,host_threads}.jsonl
  "$ROOT"/tests/traces/golden/22/{nested_member,struct_ptr_member,mapper_struct,update}.jsonl)
OUT=$ROOT/build/fuzz/traces
TOOL=$ROOT/build/fuzz/simtarget-maps
mkdir -p "$OUT"
src=("$ROOT"/tools/simtarget-maps/*.c)
if [ ! -x "$TOOL" ] || [ -n "$(find "$ROOT/tools/simtarget-maps" -newer "$TOOL" -name '*.[ch]')" ]; then
  cc -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined \
    -o "$TOOL" "${src[@]}" -ljson-c 2>"$OUT/build.log" ||
    { echo "FAIL  build the sanitized simtarget-maps: $(head -3 "$OUT/build.log")"
      echo "0 passed, 1 failed, 0 skipped"; exit 1; }
fi
export UBSAN_OPTIONS=exitcode=99:print_stacktrace=1

passed=0 failed=0
for seed in "${seeds[@]}"; do
  name=$(basename "$(dirname "$seed")")/$(basename "$seed" .jsonl)
  dir=$OUT/${name//\//_}
  rm -rf "$dir"; mkdir -p "$dir"
  python3 - "$seed" "$dir" "$mutants" <<'PY' || { echo "FAIL  fuzz $name: mutator"; failed=$((failed + 1)); continue; }
import json, random, sys, zlib
seed, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(seed).read().splitlines()
rnd = random.Random(zlib.crc32(seed.encode()))
values = [[], {}, "x", "0xzz", "", 0, -1, 1.5, None, True, 2**63, -2**63,
          [1, [2, {}]], {"args": 3}, "0x" + "f" * 40, "inf", "a" * 5000]
def paths(o, p=()):
    yield p
    if isinstance(o, dict):
        for k, v in o.items(): yield from paths(v, p + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o): yield from paths(v, p + (i,))
def mutate_value(line):
    try: o = json.loads(line)
    except ValueError: return line[::-1]
    ps = [p for p in paths(o) if p]
    if not ps: return json.dumps(rnd.choice(values))
    p = rnd.choice(ps)
    parent = o
    for k in p[:-1]: parent = parent[k]
    if isinstance(parent, dict) and rnd.random() < 0.3: del parent[p[-1]]
    else: parent[p[-1]] = rnd.choice(values)
    return json.dumps(o, separators=(",", ":"))
for m in range(n):
    ls = list(lines)
    for _ in range(rnd.choice([1, 1, 1, 2, 3])):
        if not ls: break
        i = rnd.randrange(len(ls))
        op = rnd.random()
        if op < 0.6: ls[i] = mutate_value(ls[i])
        elif op < 0.7: ls[i] = ls[i][:rnd.randrange(len(ls[i]) + 1)]
        elif op < 0.78: del ls[i]
        elif op < 0.86: ls.insert(i, ls[i])
        elif op < 0.94 and i + 1 < len(ls): ls[i], ls[i + 1] = ls[i + 1], ls[i]
        else: ls[i] = rnd.choice(["]", "{", "\x00{}", "{\"v\":2,\"ev\":\"call\"}", "[]", "null"])
    with open(f"{out}/{m:04d}.jsonl", "w") as f:
        f.write("\n".join(ls) + ("\n" if ls else ""))
PY
  bad=""
  for m in "$dir"/[0-9]*.jsonl; do
    # LeakSanitizer's scan at exit is most of a run's time (70 of 103 ms
    # here): every third mutant's commands are checked for leaks too
    i=$(basename "$m" .jsonl); leaks=$((10#$i % 3 == 0))
    for cmd in "check $m" "diff $seed $m" "diff --summary --ignore-entry $m $seed" "normalize $m"; do
      # shellcheck disable=SC2086
      ASAN_OPTIONS=detect_leaks=$leaks:exitcode=99 timeout 20 "$TOOL" $cmd >"$dir/out" 2>"$dir/err"; rc=$?
      if [ $rc -gt 2 ]; then
        bad="$cmd: exit $rc: $(grep -m3 -E 'ERROR|runtime error|SUMMARY|Assert|assert' "$dir/err" | tr '\n' ' ' | cut -c1-300)"
      elif [ $rc = 2 ] && ! grep -qE "\.jsonl:[0-9]+: |an empty trace" "$dir/err"; then
        bad="$cmd: exit 2 without a line number: $(head -c 200 "$dir/err")"
      fi
      [ -z "$bad" ] || break 2
    done
  done
  if [ -z "$bad" ]; then
    passed=$((passed + 1)); echo "ok    fuzz $name: $mutants mutants, check/diff/normalize"
  else
    failed=$((failed + 1)); echo "FAIL  fuzz $name: $bad"
  fi
done
echo "$passed passed, $failed failed, 0 skipped"
[ $failed = 0 ]
