/*
 * t_translate.c - __kmpc_target_translate_fptr (seed 003): a host function
 * pointer in the installed table becomes its device twin; anything else
 * comes back unchanged; an emptied table translates nothing.
 */
#include <stdint.h>
#include <stdio.h>

#include "../simdev_rt.h"
#include "check.h"

static int dev_a(int x) { return x + 1; }
static int dev_b(int x) { return x + 2; }
static int dev_c(int x) { return x + 3; }

int main(void) {
  /* host addresses are arbitrary keys, sorted as the server sends them */
  static const struct simdev_rt_fptr_row rows[] = {
      {0x1000, (uint64_t)(uintptr_t)dev_a},
      {0x2000, (uint64_t)(uintptr_t)dev_b},
      {0x3000, (uint64_t)(uintptr_t)dev_c},
  };
  simdev_rt_set_fptr_map(rows, 3);
  int (*f)(int) = (int (*)(int))__kmpc_target_translate_fptr(0x2000);
  CHECK(f == dev_b, "translation");
  CHECK(f(40) == 42, "translation");
  CHECK(__kmpc_target_translate_fptr(0x1000) == (void *)dev_a, "translation");
  CHECK(__kmpc_target_translate_fptr(0x3000) == (void *)dev_c, "translation");
  /* unknown pointers, including ones between rows, pass through */
  CHECK(__kmpc_target_translate_fptr(0x2001) == (void *)0x2001, "translation");
  CHECK(__kmpc_target_translate_fptr(0x500) == (void *)0x500, "translation");
  CHECK(__kmpc_target_translate_fptr((uint64_t)(uintptr_t)dev_a) ==
            (void *)dev_a,
        "a device function is returned as is");
  /* a cleared table translates nothing */
  simdev_rt_set_fptr_map(NULL, 0);
  CHECK(__kmpc_target_translate_fptr(0x2000) == (void *)0x2000, "translation");
  CHECK_DONE();
}
