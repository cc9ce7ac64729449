#!/usr/bin/env bash
# tests/private_install.sh - simtarget installed where only root may enter
# (a checkout in /root, mode 700, as tests/fresh_root.sh makes one), with
# programs that start as root and drop to `nobody` before their first
# region, as daemons do. Device 0, started as root before main, must keep
# working: it takes the program's credentials itself before each kernel. A
# device started anew as `nobody` could not run simdevice-server there, nor
# load an image that needs libomptarget.so.N from that folder.
# Runs build/lib copied into a new mode-700 folder (PROGRAMS_LIBDIR) with
# clang 14 and 19 (19's images NEED libomptarget.so.19.1). Needs root:
# skipped otherwise. Prints "N passed, N failed, N skipped".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" != 0 ]; then
  echo "skip  private_install: needs root (the programs drop from root to nobody)"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
private=$(mktemp -d "${TMPDIR:-/tmp}/simtarget-private.XXXXXX") || exit 1
trap 'rm -rf "$private"' EXIT
chmod 700 "$private"
cp -a "$ROOT/build/lib" "$private/lib"
PROGRAMS_LIBDIR=$private/lib "$ROOT/tests/programs.sh" --versions "${PRIVATE_CLANGS:-14 19}" \
  "$ROOT"/tests/programs/early_start_privileges.c "$ROOT"/tests/programs/privileges_dropped_after_offload.c
