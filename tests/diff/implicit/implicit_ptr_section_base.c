/* implicit_ptr_section_base.c - p = a; map(a[5:10]); p used implicitly
 * (issue item 9): p's target a[0] is not mapped but the section's base
 * pointer is, and LLVM translates p by it. The kernel touches only a[5:10].
 */
#include "check.h"

int main(void) {
  int a[20];
  for (int i = 0; i < 20; i++) a[i] = i;
  int *p = a;
#pragma omp target data map(tofrom : a[5:10])
  {
#pragma omp target
    for (int i = 5; i < 15; i++) p[i] *= 3;
  }
  for (int i = 0; i < 20; i++) CHECK_EQ(a[i], (i >= 5 && i < 15) ? 3 * i : i);
  return check_finish();
}
