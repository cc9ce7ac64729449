#!/bin/bash
# test_setuid (installed as build/tests/simdevice/test_setuid): in a setuid
# program, the variables that name a program or a file are not taken from
# the environment (secure_getenv), so an attacker's SIMDEVICE_WRAPPER does not
# run with the program's privileges, and SIMTARGET_FAULT_COUNTS writes nothing.
# The same probe without the setuid bit shows the test can see both happen.
# Needs root (to give the probe to `nobody` with the setuid bit); skipped
# (exit 77) otherwise.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PLUGIN=$ROOT/build/lib/libomptarget.rtl.simdevice.so
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to make a setuid probe"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
printf '#!/bin/sh\ntouch %s/wrapper-ran\nexec "$@"\n' "$dir" >"$dir/wrapper.sh"
chmod 755 "$dir/wrapper.sh"
cp "$HERE/setuid_probe" "$dir/plain"
cp "$HERE/setuid_probe" "$dir/setuid"
chown nobody "$dir/setuid" && chmod 4755 "$dir/setuid"
run() { # PROBE: runs it with the attacker's environment
  SIMDEVICE_WRAPPER=$dir/wrapper.sh SIMTARGET_FAULTS=count \
    SIMTARGET_FAULT_COUNTS=$dir/counts "$dir/$1" "$PLUGIN"
}
failures=0
out=$(run plain 2>&1)
if [ ! -e "$dir/wrapper-ran" ] || [ ! -e "$dir/counts" ]; then
  echo "FAIL: control: without setuid the wrapper must run and the counts be written ($out)"
  failures=$((failures + 1))
fi
rm -f "$dir/wrapper-ran" "$dir/counts"
out=$(run setuid 2>&1)
case $out in
  *"devices "*) ;;
  *) echo "SKIP: the setuid probe cannot load $PLUGIN as nobody ($out)"; exit 77 ;;
esac
if [ -e "$dir/wrapper-ran" ]; then
  echo "FAIL: setuid: SIMDEVICE_WRAPPER ran with the program's privileges ($out)"
  failures=$((failures + 1))
fi
if [ -e "$dir/counts" ]; then
  echo "FAIL: setuid: SIMTARGET_FAULT_COUNTS was written ($out)"
  failures=$((failures + 1))
fi
[ $failures = 0 ] && echo "ok: setuid probe ignored SIMDEVICE_WRAPPER and SIMTARGET_FAULT_COUNTS ($out)"
exit $((failures > 0))
