/*
 * image_entries.h - the device address of an offload entry inside a loaded
 * (dlopen'ed) device image, through the image's own entry table; used by the
 * device server and by the simdevice plugin's in-process mode (usm.c).
 * No state, no locks.
 */
#ifndef SIMTARGET_IMAGE_ENTRIES_H
#define SIMTARGET_IMAGE_ENTRIES_H

#include <stdint.h>

/* The address of entry `name` in the image `handle` (a dlopen handle):
 * .omp_offloading.entry.<name> (clang 13-16) or .offloading.entry.<name>
 * (19/22; clang-abi.md 11.5), else the plain symbol; 0 when none exists. */
uint64_t image_entry_resolve(void *handle, const char *name)
    __attribute__((visibility("hidden")));

#endif
