/* implicit_array_part_present.c - an array used implicitly while only a
 * section of it is present (issue item 7): LLVM uses the present part.
 */
#include "check.h"

int main(void) {
  int a[100];
  for (int i = 0; i < 100; i++) a[i] = i;
#pragma omp target data map(tofrom : a[10:20])
  {
#pragma omp target
    for (int i = 10; i < 30; i++) a[i] += 1000;
  }
  for (int i = 0; i < 100; i++) CHECK_EQ(a[i], (i >= 10 && i < 30) ? i + 1000 : i);
  return check_finish();
}
