#!/bin/sh
# ld-ppc64le - the --ld-path= linker for clang 13/14/15 device links of
# ppc64le images on an x86-64 host (simtarget-config prints it): those
# clangs run the host linker for the device link too, passing -m elf64lppc.
# Such links go to the ppc64le cross linker, every other to the host's ld.
for a in "$@"; do
  if [ "$a" = elf64lppc ]; then
    exec "${SIMTARGET_PPC64LE_LD:-powerpc64le-linux-gnu-ld}" "$@"
  fi
done
exec "${SIMTARGET_HOST_LD:-/usr/bin/ld}" "$@"
