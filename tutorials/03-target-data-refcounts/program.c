/* 03-target-data-refcounts/program.c - target data and reference counts.
 * info: 0xa9
 * An object already
 * on the device is not copied again by an inner construct; copies happen
 * only when its count goes from 0 to 1 (in) and from 1 to 0 (out), or when
 * `target update` / `always` asks for them. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device();
  int a[4] = {1, 1, 1, 1};
  int ok = 1;
#pragma omp target data map(tofrom : a) /* count 1: copied in */
  {
#pragma omp target map(tofrom : a)      /* count 2: present, no copy */
    a[0] = 2;
    /* The inner tofrom did not copy back: its count went 2 -> 1. */
    printf("after inner target:   host a[0] = %d (still 1)\n", a[0]);
    ok &= a[0] == 1;

    /* always: copy back anyway. (always, tofrom would also copy the host's
     * stale a in first, undoing a[0] = 2 on the device.) */
#pragma omp target map(always, from : a)
    a[1] = 3;
    printf("after always from:    host a[0] = %d, a[1] = %d\n", a[0], a[1]);
    ok &= a[0] == 2 && a[1] == 3;

#pragma omp target enter data map(to : a) /* count 2 */
  } /* count 2 -> 1: no copy back, still present */
  printf("after target data:    present = %d\n", omp_target_is_present(a, dev));
  ok &= omp_target_is_present(a, dev);
#pragma omp target
  a[2] = 4;
#pragma omp target exit data map(from : a) /* count 1 -> 0: copied back */
  printf("after exit data:      a[2] = %d, present = %d\n", a[2],
         omp_target_is_present(a, dev));
  ok &= a[2] == 4 && !omp_target_is_present(a, dev);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return !ok;
}
