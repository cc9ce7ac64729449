/* offset_section.c - a section that starts past the first element: only
 * a[10:20] exists on the device, the kernel indexes it from the base. */
#include "check.h"

int main(void) {
  int a[64];
  for (int i = 0; i < 64; i++) a[i] = i;
#pragma omp target map(tofrom : a[10:20])
  for (int i = 10; i < 30; i++) a[i] = -a[i];
  for (int i = 0; i < 64; i++) CHECK_EQ(a[i], (i >= 10 && i < 30) ? -i : i);
  return check_finish();
}
