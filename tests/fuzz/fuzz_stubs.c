/*
 * fuzz_stubs.c - the three functions of libomptarget that report.c calls,
 * for the fuzz target: it links only the parsers (registry.c, report.c for
 * their messages, common/offload_image.c), not the devices, the mapping
 * table or the plugin loader. No device and no rejected plugin exist here.
 */
#include <stdio.h>

#include "device.h"
#include "mapping.h"
#include "plugins.h"

int devices_count(void) { return 0; }

void mapping_dump(struct mapping_table *t, FILE *out, const char *title) {
  (void)t;
  (void)out;
  (void)title;
}

const char *plugins_rejections(void) { return ""; }
