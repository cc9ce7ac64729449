#!/bin/bash
# tests/ppc64le/kit.sh - the ppc64le libraries a cross build of simtarget
# and its tests need, unpacked under build/cross-ppc64le/kit/ (nothing
# installed: Debian's ppc64el libelf, CMocka, json-c and libomp cannot be
# installed next to the amd64 ones without multiarch).
#
# How: `apt-get update` and `apt-get download` with a private state folder
# that knows only the ppc64el architecture (build/cross-ppc64le/apt/), then
# `dpkg -x` of each .deb into the kit. `make CROSS=ppc64le` runs it first;
# it does the work once (kit/.unpacked).
#
# Output (kit = build/cross-ppc64le/kit):
#   kit/usr/include                         libelf, CMocka, json-c headers
#   kit/usr/lib/powerpc64le-linux-gnu       their libraries (and zlib, zstd)
#   kit/usr/lib/llvm-14/lib/libomp.so.5     LLVM 14's ppc64le OpenMP runtime
# Exit 1, with the reason, when a package cannot be had.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CROSS="$ROOT/build/cross-ppc64le"
KIT="$CROSS/kit"
APT="$CROSS/apt"
PKGS="libelf1 libelf-dev zlib1g libzstd1 libcmocka0 libcmocka-dev libjson-c5 libjson-c-dev
      libomp5-14 libomp-14-dev libomp5-19"

[ -f "$KIT/.unpacked" ] && [ "$(cat "$KIT/.unpacked")" = "$PKGS" ] && exit 0
command -v apt-get >/dev/null && command -v dpkg >/dev/null ||
  { echo "ppc64le kit: needs apt-get and dpkg (Debian)" >&2; exit 1; }
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/debs" || exit 1
# The host's sources, a private package index and cache, ppc64el only, no
# installed-package state (nothing is installed).
APT_OPTS=(-o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache"
          -o APT::Architecture=ppc64el -o APT::Architectures::=ppc64el
          -o Dir::State::status=/dev/null -o Debug::NoLocking=1
          -o APT::Sandbox::User=root)
# One failing index (a mirror mid-sync) is not fatal: the download says.
apt-get "${APT_OPTS[@]}" update -qq >"$APT/update.log" 2>&1 || true
for p in $PKGS; do
  ls "$APT/debs/${p}_"*.deb >/dev/null 2>&1 && continue
  if ! (cd "$APT/debs" && apt-get "${APT_OPTS[@]}" download "$p" >"$APT/download.log" 2>&1); then
    echo "ppc64le kit: apt-get download $p failed: $(grep -m1 '^E:' "$APT/download.log")" >&2
    grep '^E:' "$APT/update.log" | head -3 | sed 's/^/  update: /' >&2
    exit 1
  fi
done
rm -rf "$KIT" && mkdir -p "$KIT" || exit 1
for p in $PKGS; do
  dpkg -x "$(ls "$APT/debs/${p}_"*.deb | head -1)" "$KIT" ||
    { echo "ppc64le kit: dpkg -x $p failed" >&2; exit 1; }
done
echo "$PKGS" >"$KIT/.unpacked"
echo "ppc64le kit: $(echo $PKGS | wc -w) packages unpacked in ${KIT#$ROOT/}"
