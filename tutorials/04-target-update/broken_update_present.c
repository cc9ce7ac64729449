/* 04-target-update/broken_update_present.c - the same mistake, caught.
 * info: 0x20
 * expect-exit: 1
 * expect: omptarget (fatal )?error
 * `present` turns the silent no-op of broken_update_unmapped.c into an
 * error that names the construct, the variable and its address. */
#include <stdio.h>

int main(void) {
  int vals[4] = {1, 2, 3, 4};
#pragma omp target map(to : vals)
  for (int i = 0; i < 4; i++) vals[i] *= 10;
#pragma omp target update from(present : vals)
  printf("vals[3] = %d (want 40)\n", vals[3]);
  printf("%s\n", vals[3] == 40 ? "PASS" : "FAIL");
  return vals[3] != 40;
}
