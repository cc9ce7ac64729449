/*
 * unsupported.c - what a libomp entry point this runtime deliberately lacks
 * is for (the table is unsupported.def). The server asks when an image
 * cannot be loaded because of an undefined symbol, so the user reads which
 * construct simtarget does not support instead of a bare dlopen error.
 *
 * Locks: none (constant data).
 */
#include <string.h>

#include "rt_internal.h"
#include "simdev_rt.h"

struct gap {
  const char *name;
  int is_prefix;
  const char *why;
};

static const struct gap gaps[] = {
#define GAP(name, why) {name, 0, why},
#define GAP_PREFIX(prefix, why) {prefix, 1, why},
#include "unsupported.def"
#undef GAP
#undef GAP_PREFIX
};

EXPORT const char *simdev_rt_unsupported(const char *symbol)
{
  for (size_t i = 0; symbol && i < sizeof(gaps) / sizeof(gaps[0]); i++) {
    size_t n = strlen(gaps[i].name);
    if (gaps[i].is_prefix ? strncmp(symbol, gaps[i].name, n) == 0 : strcmp(symbol, gaps[i].name) == 0)
      return gaps[i].why;
  }
  return NULL;
}
