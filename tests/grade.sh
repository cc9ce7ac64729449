#!/bin/bash
# tests/grade.sh - the teachers' tool tools/simtarget-grade on two small
# folders of student programs (tests/grade/): `class` (an expectations file:
# one correct program, a pointer mapped without its array, a result never
# copied back, a compile error, a section one element short in a subfolder,
# and a broken program the exercise asked for, which must fail as expected)
# and `headers` (no file: the programs' own header fields, one of them a
# broken program that must fail with simtarget's diagnosis). Checks each
# program's verdict, the diagnosis lines, LLVM's verdict beside (--llvm, with
# clang-19 when usable), the summary and the exit status. Then `isolation`
# (issue 30): students that try to pass without doing the exercise (print
# the teacher's expectations, rewrite another submission, bring their own
# expectations file, require unified_shared_memory, have no target region)
# must each fail, run isolated with bubblewrap; skipped where bwrap cannot
# make its namespaces (the other folders then run with --no-sandbox).
# Prints one line per check and "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOL=$ROOT/tools/simtarget-grade/simtarget-grade
OUT=$ROOT/build/grade-tests
passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }
mkdir -p "$OUT"

"$ROOT/tests/toolchains.sh" -q >/dev/null 2>&1
if [ ! -r "$ROOT/build/toolchains/env.sh" ]; then
  echo "skip  simtarget-grade (no usable clang: tests/toolchains.sh)"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
# shellcheck disable=SC1091
. "$ROOT/build/toolchains/env.sh"
args=()
if [[ " $TOOLCHAINS_USABLE " == *" 19 "* ]]; then args=(--clang 19 --llvm); fi
isolated=1 sandbox_args=()
if ! bwrap --unshare-all --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
    /usr/bin/true >/dev/null 2>&1; then
  isolated=0 args+=(--no-sandbox) sandbox_args=(--no-sandbox)
fi

# expect OUTPUT REGEX WHAT: one check that a line of OUTPUT matches REGEX.
expect() {
  if grep -Eq -- "$2" <<<"$1"; then ok "$3"; else fail "$3: no line matches /$2/"; fi
}

out=$("$TOOL" ${args[@]+"${args[@]}"} --work "$OUT/class" "$ROOT/tests/grade/class" 2>&1); rc=$?
echo "$out" >"$OUT/class.log"
[ $rc = 1 ] && ok "class: exit 1 (some failed)" || fail "class: exit $rc, expected 1 (log: $OUT/class.log)"
expect "$out" '^PASS  alice_reduction\.c' "class: the correct program passes (its own header, which would fail it, is ignored)"
expect "$out" '^FAIL  bob_no_section\.c: exit 1, expected 0$' "class: the pointer without its array fails"
expect "$out" '^        simtarget: omptarget fatal error: target at bob_no_section\.c:10:1 \(in main\)' "class: its diagnosis names the construct, file and line"
expect "$out" '^        cause: .*read address 0x[0-9a-f]+ \(not device memory\)' "class: and the cause: a host address read on the device"
expect "$out" '^FAIL  carol_to_only\.c: stdout does not match' "class: the result never copied back fails"
expect "$out" '^        printed: sum = 0$' "class: showing what it printed"
expect "$out" "^FAIL  dave_typo\.c: does not compile: dave_typo\.c:6:[0-9]+: error: use of undeclared identifier 'j'" "class: the compile error is shown"
expect "$out" '^FAIL  erin/one_short\.c: ' "class: the section one element short (a subfolder) fails"
expect "$out" '^PASS  broken_frank\.c' "class: a broken program the exercise asked for passes (its globbed expectations, stdout unset by '-')"
expect "$out" '^2 passed, 4 failed$' "class: summary"
if [ ${#args[@]} -gt 0 ]; then
  expect "$out" "^        LLVM's runtime: passes \(it shares memory with the host" "class: --llvm shows that LLVM's runtime hides the unmapped array"
  expect "$out" "^PASS  alice_reduction\.c \(LLVM's runtime: pass\)" "class: --llvm verdict beside a pass"
fi

out=$("$TOOL" ${sandbox_args[@]+"${sandbox_args[@]}"} --work "$OUT/headers" "$ROOT/tests/grade/headers" 2>&1); rc=$?
echo "$out" >"$OUT/headers.log"
[ $rc = 0 ] && ok "headers: exit 0 (all passed)" || fail "headers: exit $rc (log: $OUT/headers.log)"
expect "$out" '^PASS  find_the_bug\.c$' "headers: a broken program expected to fail with its diagnosis passes"
expect "$out" '^PASS  mapped_right\.c$' "headers: expect-stdout from the header"

if [ $isolated = 1 ]; then
  # On a copy: aa_rewriter.c tries to overwrite zz_victim.c.
  rm -rf "$OUT/isolation-src" && cp -r "$ROOT/tests/grade/isolation" "$OUT/isolation-src"
  out=$("$TOOL" --work "$OUT/isolation" "$OUT/isolation-src" 2>&1); rc=$?
  echo "$out" >"$OUT/isolation.log"
  [ $rc = 1 ] && ok "isolation: exit 1 (some failed)" || fail "isolation: exit $rc, expected 1 (log: $OUT/isolation.log)"
  expect "$out" '^PASS  alice\.c$' "isolation: the exercise done right passes in its sandbox"
  expect "$out" '^FAIL  mallory_reads\.c: stdout does not match' "isolation: a student cannot read the teacher's expectations"
  if grep -q 'checks that every one of them fails' <<<"$out"; then
    fail "isolation: the teacher's expectations appear in the output"
  else
    ok "isolation: nothing of the teacher's expectations is printed"
  fi
  expect "$out" '^FAIL  aa_rewriter\.c: ' "isolation: a student that rewrites another submission fails"
  expect "$out" '^PASS  zz_victim\.c$' "isolation: the submission it tried to rewrite still passes"
  cmp -s "$ROOT/tests/grade/isolation/zz_victim.c" "$OUT/isolation-src/zz_victim.c" &&
    ok "isolation: the other submission's file is unchanged" ||
    fail "isolation: zz_victim.c was changed"
  expect "$out" '^NOTE  oscar/expectations is ignored' "isolation: a student's own expectations file is ignored, and said"
  expect "$out" '^FAIL  oscar/wrong\.c: stdout does not match' "isolation: so its wrong result fails"
  expect "$out" '^FAIL  peggy_usm\.c: requires unified_shared_memory, which the expectations forbid' "isolation: forbid-usm fails a program that requires unified_shared_memory (through a macro)"
  expect "$out" '^FAIL  trent_host_only\.c: no kernel ran on the device' "isolation: expect-device-kernel fails a program without a target region"
  expect "$out" '^2 passed, 5 failed$' "isolation: summary"
else
  skipped=$((skipped + 1))
  echo "skip  isolation (bwrap cannot create namespaces here)"
fi

out=$("$TOOL" "$ROOT/tests/grade/nonexistent" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "is not a folder" <<<"$out" && ok "a missing folder: exit 2 with a message" ||
  fail "a missing folder: exit $rc: $out"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
