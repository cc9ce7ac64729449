/* implicit_array_section_present.c - an array used implicitly in a target
 * region while only a section of it is mapped by an enclosing target data /
 * enter data (issue 13, item 7). LLVM uses the present part.
 * expect: the kernel works on the present section.
 */
#include "check.h"

#define N 100

int main(void) {
  int a[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp target data map(tofrom : a[10 : 50])
  {
#pragma omp target
    for (int i = 10; i < 60; i++)
      a[i] += 1000;
  }
  CHECK_EQ(a[9], 9);
  CHECK_EQ(a[10], 1010);
  CHECK_EQ(a[59], 1059);
  CHECK_EQ(a[60], 60);

  double b[N];
  for (int i = 0; i < N; i++)
    b[i] = i;
#pragma omp target enter data map(to : b[0 : 40])
#pragma omp target
  for (int i = 0; i < 40; i++)
    b[i] *= 2;
#pragma omp target exit data map(from : b[0 : 40])
  CHECK(b[39] == 78.0);
  CHECK(b[40] == 40.0);
  return check_finish();
}
