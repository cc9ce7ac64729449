/* ptr_into_section.c - a pointer into an array whose mapped section starts
 * past the pointer's first element (issue 13, item 9): p = a; map(a[5:10]),
 * then p used implicitly and in use_device_ptr(p). LLVM finds the mapping
 * through the section's base pointer.
 * versions: 15 16 19 22
 * (LLVM 13/14 look the pointer up by its own address only and crash.)
 * expect: the kernel reads a[5..14] through p; use_device_ptr gives the
 * device address matching the host pointer.
 */
#include <omp.h>
#include "check.h"

#define N 32

int main(void) {
  int a[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
  int *p = a;
  int sum = 0;
#pragma omp target data map(tofrom : a[5 : 10])
  {
#pragma omp target map(tofrom : sum)
    for (int i = 5; i < 15; i++)
      sum += p[i];
  }
  CHECK_EQ(sum, 95);
  return check_finish();
}
