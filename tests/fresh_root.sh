#!/usr/bin/env bash
# tests/fresh_root.sh - the README's first command on a new machine: build a
# minimal Debian 12 root (debootstrap --variant=minbase bookworm), install
# only make, git and ca-certificates in it, copy this checkout in (the files
# git knows, without build/), and run `make demo` there as root, as a
# newcomer would. `.ci/run` runs it before `make check`.
#
# Usage: tests/fresh_root.sh [--keep] [--doc-commands] [--check]
#   --keep   leave the root (its path is printed) instead of removing it
#   --doc-commands  after `make demo`, every command README.md and the
#            tutorials show (tests/doc_commands.sh; installs clang 19 and 22)
#   --check  after that, `make check` in the root too (long)
# Env:
#   FRESH_ROOT_MIRROR  the Debian mirror (default: the first bookworm "main"
#                      source in /etc/apt/sources.list*, else deb.debian.org)
#   FRESH_ROOT_SECURITY  the same for bookworm-security
#   FRESH_ROOT_DIR     where the temporary root goes (default /var/tmp)
#   FRESH_ROOT_CACHE   a debootstrap --make-tarball file of the base system's
#                      .debs (default build/fresh-root/bookworm-minbase.tgz):
#                      made on the first run, used by later ones. It holds
#                      downloaded packages only; the root is still installed
#                      from them from scratch each time.
# Needs root (debootstrap, chroot, mounts). Prints the time each step took;
# the last line is "fresh_root: make demo passed (N s)" or why it failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
keep=0 check=0 doc=0
for a in "$@"; do
  case $a in
    --keep) keep=1 ;;
    --check) check=1 ;;
    --doc-commands) doc=1 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fresh_root: unknown option $a" >&2; exit 2 ;;
  esac
done
die() { echo "fresh_root: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || "$ROOT/tests/deps.sh" --fresh-root || die "debootstrap is missing"

# The mirror apt already uses for SUITE's "main": deb822 "URIs:" or a
# one-line "deb URI SUITE main"; else DEFAULT.
apt_uri() {
  local suite=$1 default=$2 f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    awk -v want="$suite" '
      function done_stanza() { if (uri != "" && (" " s " ") ~ (" " want " ") && c ~ /main/) { print uri; exit } uri = ""; s = ""; c = "" }
      /^URIs:/ { uri = $2 } /^Suites:/ { s = $0; sub(/^Suites:/, "", s) } /^Components:/ { c = $0 }
      /^[ \t]*$/ { done_stanza() }
      /^deb[ \t]/ && $3 == want { for (i = 4; i <= NF; i++) if ($i == "main") { print $2; exit } }
      END { done_stanza() }' "$f" | head -1
  done | grep -m1 . || echo "$default"
}
MIRROR=${FRESH_ROOT_MIRROR:-$(apt_uri bookworm http://deb.debian.org/debian)}
SECURITY=${FRESH_ROOT_SECURITY:-$(apt_uri bookworm-security http://deb.debian.org/debian-security)}
CACHE=${FRESH_ROOT_CACHE:-$ROOT/build/fresh-root/bookworm-minbase.tgz}
R=$(mktemp -d "${FRESH_ROOT_DIR:-/var/tmp}/simtarget-fresh.XXXXXX") || die "mktemp failed"
chmod 755 "$R"   # a root's / is world-readable (apt downloads as _apt)
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null; done
  if [ $keep = 1 ]; then echo "fresh_root: kept $R"; else rm -rf --one-file-system "$R"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$SECONDS
step() { echo "fresh_root: [$((SECONDS - t0)) s] $*"; }
log=$R.debootstrap.log
step "debootstrap --variant=minbase bookworm from $MIRROR into $R"
made=""
if [ ! -s "$CACHE" ]; then
  made=1
  mkdir -p "$(dirname "$CACHE")"
  if ! debootstrap --variant=minbase --make-tarball="$CACHE.tmp" bookworm "$R.tarball" "$MIRROR" >"$log" 2>&1 ||
     ! mv "$CACHE.tmp" "$CACHE"; then
    tail -20 "$log" >&2
    rm -rf "$R.tarball" "$CACHE.tmp"
    die "debootstrap --make-tarball failed"
  fi
  rm -rf "$R.tarball"
fi
[ -n "$made" ] || step "(the base system's .debs from $CACHE, downloaded by an earlier run)"
debootstrap --variant=minbase --unpack-tarball="$CACHE" bookworm "$R" "$MIRROR" >"$log" 2>&1 ||
  { tail -20 "$log" >&2; die "debootstrap failed (log $log)"; }
rm -f "$log"

# What the root needs from its host: name resolution and the same apt
# settings (a proxy or pinned dates), nothing else. Its sources are those
# of every installed Debian 12 (debootstrap writes only the first line):
# clang-22, for one, comes with bookworm-security.
cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null
cat >"$R/etc/apt/sources.list" <<SOURCES
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SECURITY bookworm-security main
SOURCES
for f in /etc/apt/apt.conf.d/*; do
  grep -qiE 'proxy|Check-Valid-Until|Check-Date' "$f" 2>/dev/null && cp "$f" "$R/etc/apt/apt.conf.d/"
done
for m in proc sys dev dev/pts dev/shm; do
  mkdir -p "$R/$m"
  case $m in
    proc) mount -t proc proc "$R/proc" ;;
    sys) mount -t sysfs sys "$R/sys" ;;
    dev/pts) mount -t devpts devpts "$R/dev/pts" ;;
    dev/shm) mount -t tmpfs -o mode=1777 shm "$R/dev/shm" ;;
    dev) mount --bind /dev "$R/dev" ;;
  esac || die "mounting $R/$m failed"
  mounted+=("$R/$m")
done
in_root() { chroot "$R" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -c "$1"; }

step "apt-get install make git ca-certificates"
in_root 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq --no-install-recommends make git ca-certificates >/dev/null' ||
  die "installing make git ca-certificates failed"

step "copying the checkout (the files git knows, no build/) to /root/simtarget"
mkdir -p "$R/root/simtarget"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf -) | tar -xf - -C "$R/root/simtarget" || die "copying the checkout failed"

step "make demo"
t_demo=$SECONDS
if ! in_root 'cd /root/simtarget && make demo'; then
  die "make demo failed on a fresh Debian 12 root after $((SECONDS - t_demo)) s"
fi
demo_s=$((SECONDS - t_demo))
if [ $doc = 1 ]; then
  step "tests/doc_commands.sh: the commands README.md and the tutorials show"
  in_root 'cd /root/simtarget && tests/doc_commands.sh' || die "a command of README.md or the tutorials failed on the fresh root"
fi
if [ $check = 1 ]; then
  step "make check"
  in_root 'cd /root/simtarget && make check' || die "make check failed on the fresh root"
fi
step "done"
echo "fresh_root: make demo passed ($demo_s s)"
