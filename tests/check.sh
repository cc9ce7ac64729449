#!/bin/bash
# tests/check.sh - simtarget-check (tools/simtarget-check) on the programs of
# tests/check/, compiled -g -O2 with several clangs (CHECK_VERSIONS, default
# "14 19 22", those usable). Each program says in its header what the tool
# must find:
#   check-finding: RULE VARIABLE FILE:LINE   a bug with that rule, that
#                       variable (`-`: any) and its construct at that line
#                       (and its kernel in that file); a memory routine's
#                       name instead of FILE:LINE; `none`: no bug at all
#   check-exit: N       the tool's exit status (default 1 with a finding, 0 without)
#   check-stdout: REGEX a line the program prints, which must reach the tool's
#                       stdout exactly once (the plain run's, through a pipe)
#   check-args: ...     the tool's options
#   check-versions: ... only with these clangs (of those the suite uses; the
#                       newest is still the one the text form is checked with)
# Every program runs with --json (the output must be one JSON object whose
# bugs carry the expected finding; the program's stdout goes to stderr),
# and, with the newest clang, also as text through a pipe. Then: a
# binary built without -fopenmp-targets is told so, a file that is not a
# program and bad options exit 2, a mode the build lacks is skipped with a
# note. Prints "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/suite_lib.sh
. "$ROOT/tests/suite_lib.sh"
ENV_SH=$ROOT/build/toolchains/env.sh
TOOL=$ROOT/build/bin/simtarget-check
CLANG=$ROOT/build/bin/simtarget-clang
if [ ! -f "$ENV_SH" ] || [ ! -x "$TOOL" ] || [ ! -e "$ROOT/build/lib/libomptarget.so" ]; then
  skip "check (no $ENV_SH, build/lib or $TOOL: run make and tests/toolchains.sh)"
  suite_end
fi
# shellcheck disable=SC1090
. "$ENV_SH"
versions=""
for v in ${CHECK_VERSIONS:-14 19 22}; do
  [[ " $TOOLCHAINS_USABLE " == *" $v "* ]] && versions="$versions $v"
done
[ -n "$versions" ] || { skip "check (none of ${CHECK_VERSIONS:-14 19 22} usable)"; suite_end; }
OUT=$ROOT/build/check
mkdir -p "$OUT"
# The tool keeps a run's reports in a folder of $TMPDIR when the program
# failed with no finding (fails.c): here, not left in /tmp by every run.
export TMPDIR=$OUT/tmp
rm -rf "$TMPDIR"; mkdir -p "$TMPDIR"
# The programs run where they are compiled: the tool is what the user runs.
unset OMP_TARGET_OFFLOAD LIBOMPTARGET_INFO SIMTARGET_CHECK_REPORT

field() { sed -n -E "s@^[[:space:]/*]*$2:[[:space:]]*(.*[^[:space:]*/])[[:space:]*/]*\$@\\1@p" "$1" | head -1; }

compile() { # N SRC -> build/check/N/NAME
  local n=$1 src=$2 name bin extra=""
  name=$(basename "$src"); bin=$OUT/$n/${name%.*}
  case $src in *.cpp) extra="-lstdc++" ;; esac
  # the compiler runs in the program's folder on its bare name: the
  # findings say "global_short.c:17" on every checkout
  mkdir -p "$OUT/$n"
  (cd "$(dirname "$src")" && build_cached "$name" "$bin" "$CLANG --clang $n -g -O2 $name -o $bin $extra")
}
export -f compile
export OUT CLANG

srcs=("$ROOT"/tests/check/*.c "$ROOT"/tests/check/*.cpp)
t0=$SECONDS
compile_each "$versions" "${srcs[@]}"

# judge N SRC: runs the tool on the compiled program both ways.
judge() {
  local n=$1 src=$2 name bin want_exit want_find want_out args rc js txt
  name=$(basename "$src"); bin=$OUT/$n/${name%.*}
  if [ ! -x "$bin" ]; then fail "$name clang-$n: did not compile ($bin.log)"; return; fi
  local only
  only=$(field "$src" check-versions)
  [ -z "$only" ] || [[ " $only " == *" $n "* ]] || return 0
  want_find=$(field "$src" check-finding)
  want_out=$(field "$src" check-stdout)
  args=$(field "$src" check-args)
  want_exit=$(field "$src" check-exit)
  [ -n "$want_exit" ] || { [ "$want_find" = none ] && want_exit=0 || want_exit=1; }
  # stale-memcheck runs the program under memcheck (seconds a run): where
  # a program asks for it, and for each correct one once, with the newest
  # clang and --json (it must stay silent there too)
  local all_args=$args
  if [ -z "$args" ]; then
    args="--only plain,stale,memcheck,helgrind"
    [ "$want_find" = none ] && [ "$n" = "${versions##* }" ] && all_args="" || all_args=$args
  fi
  js=$OUT/$n/${name%.*}.check.json
  # shellcheck disable=SC2086 # options
  (cd "$OUT/$n" && "$TOOL" --json $all_args "./${name%.*}" >"$js" 2>"$js.err" </dev/null)
  rc=$?
  if [ "$rc" != "$want_exit" ]; then
    fail "$name clang-$n --json: exit $rc, expected $want_exit ($js, $js.err)"; return
  fi
  if ! python3 - "$js" "$want_find" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = sys.argv[2].split()
assert isinstance(d.get("bugs"), list) and isinstance(d.get("findings"), list), "no bugs/findings lists"
for b in d["bugs"]:
    for k in ("rule", "checks", "count"):
        assert k in b, "a bug without " + k
if want == ["none"] or not want:
    assert not d["bugs"], "unexpected findings: %r" % d["bugs"]
    sys.exit(0)
rule, var, where = want[0], " ".join(want[1:-1]), want[-1]
for b in d["bugs"]:
    if b["rule"] == rule and (var == "-" or b.get("variable") == var) \
       and where in (b.get("construct") or "") \
       and (":" not in where or where.split(":")[0] in (b.get("kernel") or "")):
        sys.exit(0)
sys.exit("no bug %s `%s` at %s in %r" % (rule, var, where, d["bugs"]))
PY
  then fail "$name clang-$n --json: the findings are not as expected ($js)"; return; fi
  if [ "$n" != "${versions##* }" ]; then
    # the text form is the same for every clang: made with the newest; here
    # the program's line must have reached stderr once (--json moves it there)
    if [ -n "$want_out" ] && [ "$(grep -cE "$want_out" "$js.err")" != 1 ]; then
      fail "$name clang-$n --json: the program's line /$want_out/ is not on stderr once ($js.err)"; return
    fi
    ok "$name clang-$n (exit $rc${want_find:+, $want_find})"; return
  fi
  txt=$OUT/$n/${name%.*}.check.txt
  # shellcheck disable=SC2086
  (cd "$OUT/$n" && "$TOOL" $args "./${name%.*}" 2>"$txt.err" </dev/null | cat >"$txt")
  if [ -n "$want_out" ] && [ "$(grep -cE "$want_out" "$txt")" != 1 ]; then
    fail "$name clang-$n: the program's line /$want_out/ is not on the tool's stdout once ($txt)"; return
  fi
  if [ "$want_find" != none ] && ! grep -q "^\[1\] ${want_find%% *}" "$txt"; then
    fail "$name clang-$n: the text output names no ${want_find%% *} ($txt)"; return
  fi
  ok "$name clang-$n (exit $rc${want_find:+, $want_find})"
}

# Each clang's programs beside the other's: a judgement mostly waits on its
# Valgrind runs, and each clang's files are its own ($OUT/N/).
for n in $versions; do
  for src in "${srcs[@]}"; do judge "$n" "$src"; done >"$OUT/judged.$n" 2>&1 &
done
wait
for n in $versions; do
  cat "$OUT/judged.$n"
  passed=$((passed + $(grep -c '^ok ' "$OUT/judged.$n")))
  failed=$((failed + $(grep -c '^FAIL ' "$OUT/judged.$n")))
  skipped=$((skipped + $(grep -c '^skip ' "$OUT/judged.$n")))
done

# A binary without any device image: built without -fopenmp-targets.
n=${versions##* }
host=$OUT/$n/correct.host
eval "cc=\$TC_CC_$n flags=\$TC_FLAGS_$n"
# shellcheck disable=SC2154,SC2086 # set by the eval; flags are a command line
flags=$(echo $flags | sed 's/-fopenmp-targets=[^ ]*//')
# shellcheck disable=SC2154
libdir=$(echo "$flags" | sed -n 's/.*-L\([^ ]*\).*/\1/p')
if (cd "$ROOT/tests/check" && build_cached correct.c "$host" "$cc $flags -g -O2 correct.c -o $host -Wl,-rpath,${libdir:-/usr/lib}"); then
  "$TOOL" --json "$host" >"$host.json" 2>"$host.err" </dev/null; rc=$?
  if [ $rc = 1 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert [b['rule'] for b in d['bugs']]==['no-device-image']" "$host.json" &&
     grep -q "sum = 499500 PASS" "$host.err"; then
    ok "a binary built without -fopenmp-targets is told so (exit 1, its output passed through)"
  else
    fail "a binary built without -fopenmp-targets: exit $rc ($host.json)"
  fi
else
  fail "correct.c without -fopenmp-targets did not compile ($host.log)"
fi

# Could not check: not a program, bad options.
notprog=$OUT/not-a-program; echo "text" >"$notprog"; chmod -x "$notprog"
"$TOOL" "$notprog" >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "a file that is not a program: exit 2" || fail "a file that is not a program: exit $rc, expected 2"
"$TOOL" --only bogus "$OUT/$n/correct" >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "an unknown mode: exit 2" || fail "--only bogus: exit $rc, expected 2"
"$TOOL" >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "no program: exit 2" || fail "no program: exit $rc, expected 2"

# A mode the build lacks is skipped with a note, never counted as clean.
(cd "$OUT/$n" && "$TOOL" --json ./correct >"$OUT/modes.json" 2>/dev/null </dev/null)
if python3 - "$OUT/modes.json" "$ROOT/build/lib" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
lib = open(os.path.join(sys.argv[2], "libomptarget.so"), "rb").read()
plug = open(os.path.join(sys.argv[2], "libomptarget.rtl.simdevice.so"), "rb").read()
assert d["modes"][0] == "plain", d["modes"]
known = {"stale": b"SIMTARGET_CHECK\0" in lib, "memcheck": b"SIMDEVICE_VALGRIND\0" in plug}
for mode, have in known.items():
    ran = mode in d["modes"]
    noted = any(n.startswith(mode + " skipped") for n in d["notes"])
    assert ran != noted, (mode, d)
    if not have:
        assert noted, "%s: not in this build, yet no note" % mode
PY
then ok "each mode either runs or is skipped with a note"; else fail "modes and notes ($OUT/modes.json)"; fi

# Device code built with -fsanitize=address (clang 14-16 instrument it):
# either this simtarget runs it under ASan (then a correct program is
# clean, exit 0) or it refuses the image, and the tool says it could not
# check (exit 2, a note), never a bug of the program.
if [[ " $TOOLCHAINS_USABLE " == *" 14 "* ]]; then
  asan=$OUT/14/correct.asan
  if (cd "$ROOT/tests/check" && build_cached correct.c "$asan" "$CLANG --clang 14 -g -O2 -fsanitize=address correct.c -o $asan"); then
    ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 "$TOOL" --json "$asan" >"$asan.json" 2>"$asan.err" </dev/null; rc=$?
    if python3 - "$asan.json" "$rc" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); rc = int(sys.argv[2])
assert not d["bugs"], d["bugs"]
assert any("instrumented with asan" in n for n in d["notes"]), d["notes"]
refused = any("refuses the device code built with a sanitizer" in n for n in d["notes"])
assert (rc, refused) in ((2, True), (0, False)), (rc, refused)
PY
    then ok "device code built with -fsanitize=address: told, no bug (exit $rc)"
    else fail "device code built with -fsanitize=address: exit $rc ($asan.json)"; fi
  else
    fail "correct.c with -fsanitize=address did not compile ($asan.log)"
  fi
fi

# Device code built with a sanitizer (clang 19, 22): a race into a mapped
# section (TSan) and a misaligned load from a mapped buffer (UBSan) are one
# bug each, naming the section (the device process holds libomptarget's
# names, simdevice/server/names.c). SRC SANITIZER RULE VARIABLE LINE:
sanitizer_cases="histogram_race.c thread data-race count[0:8] 27
packet_misaligned.c alignment misaligned-pointer-use wire 24"
for n in $versions; do
  case $n in 19) zundefs=-Wl,-zundefs ;; 22) zundefs=-zundefs ;; *) continue ;; esac
  while read -r src san rule var line; do
    bin=$OUT/$n/${src%.c}.$san
    if ! (cd "$ROOT/tests/check/sanitizer" && build_cached "$src" "$bin" "$CLANG --clang $n -g -O2 -Xarch_device -fsanitize=$san -Xoffload-linker $zundefs $src -o $bin"); then
      fail "$src clang-$n -fsanitize=$san did not compile ($bin.log)"; continue
    fi
    (cd "$OUT/$n" && "$TOOL" --json "$bin" >"$bin.json" 2>"$bin.err" </dev/null); rc=$?
    if [ $rc = 1 ] && python3 - "$bin.json" "$rule" "$var" "${src}:$line:" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rule, var, where = sys.argv[2:5]
bugs = [b for b in d["bugs"] if b["rule"] == rule]
assert len(bugs) == 1, d["bugs"]
b = bugs[0]
assert b["variable"] == var and b["kernel"].startswith(where), b
assert "`%s`" % var in b["message"], b
PY
    then ok "$src clang-$n -fsanitize=$san: one $rule bug naming $var"
    else fail "$src clang-$n -fsanitize=$san: exit $rc ($bin.json)"; fi
  done <<<"$sanitizer_cases"
done

echo "($((SECONDS - t0)) s)"
suite_end
