# shellcheck shell=bash
# tests/suite_lib.sh - sourced by the suite scripts that compile programs
# with every clang and compare what they print or write with files kept in
# the tree (tests/lessons.sh, tests/traces.sh, tests/timeline.sh, ...):
# their counters, the cached compile, the golden-file comparison, and
# whether the ppc64le device can run here.

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }
skip() { skipped=$((skipped + 1)); echo "skip  $*"; }
# The last line of every suite; exits 1 when a test failed.
suite_end() {
  echo "$passed passed, $failed failed, $skipped skipped"
  exit $((failed > 0))
}

# list_programs FILE [MARK]: the paths of the programs of tests/programs/
# that a list file names (the first word of a line; '#' starts a comment),
# or only those whose second word is MARK (tests/ppc64le/*.list).
list_programs() {
  sed -e 's/#.*//' "$1" | awk -v only="${2:-}" 'NF && (only == "" || $2 == only) {print $1}' |
    sed "s|^|$ROOT/tests/programs/|"
}

# build_cached SRC BIN CMD: makes BIN with the command line CMD (run in the
# current folder, its output in BIN.log), unless BIN is newer than SRC and
# was made by the same CMD (kept in BIN.cmd).
build_cached() {
  local src=$1 bin=$2 cmd=$3
  if [ -x "$bin" ] && [ "$bin" -nt "$src" ] && [ "$(cat "$bin.cmd" 2>/dev/null)" = "$cmd" ]; then
    return 0
  fi
  mkdir -p "$(dirname "$bin")"; rm -f "$bin"
  # shellcheck disable=SC2086 # CMD is a command line
  $cmd >"$bin.log" 2>&1 && echo "$cmd" >"$bin.cmd"
}
export -f build_cached

# compile_each "VERSIONS" SRC...: the suite's `compile N SRC` (a function
# it exports) for every clang N and source, two at a time, with the
# toolchains' settings ($ENV_SH) loaded.
compile_each() {
  local versions=$1 n src; shift
  for n in $versions; do
    for src in "$@"; do echo "$n $src"; done
  done | xargs -P 2 -n 2 bash -c ". \"$ENV_SH\"; compile \"\$0\" \"\$1\""
}

# golden_compare WHAT GOT GOLDEN UPDATE HOW: the file GOT must equal the
# kept file GOLDEN; with UPDATE=1 GOT becomes GOLDEN. HOW says how to write
# a missing one.
golden_compare() {
  local what=$1 got=$2 golden=$3 update=$4 how=$5
  if [ "$update" = 1 ]; then
    mkdir -p "$(dirname "$golden")"; cp "$got" "$golden"
    ok "$what (golden file written)"
  elif [ ! -f "$golden" ]; then
    fail "$what: no $golden ($how)"
  elif ! cmp -s "$golden" "$got"; then
    fail "$what: differs from $golden: $(diff "$golden" "$got" | head -6 | cut -c1-200 | tr '\n' ' ')"
  else
    ok "$what"
  fi
}

# ppc64le_device_missing ROOT: why the ppc64le device cannot run here (its
# process not built, no qemu-ppc64le on x86-64, no sysroot), or nothing.
ppc64le_device_missing() {
  if [ ! -x "$1/build/lib/simdevice-ppc64le/simdevice-server" ]; then
    echo "no ppc64le device process in build/lib/simdevice-ppc64le (powerpc64le-linux-gnu-gcc missing when make ran?)"
  elif [ "$(uname -m)" != ppc64le ] && ! command -v "${SIMDEVICE_QEMU:-qemu-ppc64le}" >/dev/null; then
    echo "qemu-ppc64le is not installed (qemu-user)"
  elif [ ! -e "${SIMDEVICE_PPC64LE_SYSROOT:-/usr/powerpc64le-linux-gnu}/lib/ld64.so.2" ]; then
    echo "no ppc64le sysroot (libc6-dev-ppc64el-cross)"
  fi
}
