/* nested_data_subsection.c - an inner target data maps a subsection of
 * what the outer one mapped: present, nothing new allocated. */
#include "check.h"

int main(void) {
  int a[100];
  for (int i = 0; i < 100; i++) a[i] = i;
#pragma omp target data map(tofrom : a)
  {
#pragma omp target data map(tofrom : a[20:10])
    {
#pragma omp target map(tofrom : a[25:2])
      a[25] = a[26] = -1;
    }
  }
  CHECK_EQ(a[25], -1);
  CHECK_EQ(a[26], -1);
  CHECK_EQ(a[27], 27);
  return check_finish();
}
