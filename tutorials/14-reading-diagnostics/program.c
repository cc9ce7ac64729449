/* 14-reading-diagnostics/program.c - everything the trace can say, on a
 * correct program.
 * info: 0xff
 * LIBOMPTARGET_INFO=0xff turns on every kind of trace line (-1 as well).
 * The broken_*.c programs of this lesson each fail in a different way;
 * the lesson text reads their messages line by line. */
#include <stdio.h>

int main(void) {
  int a[4] = {1, 2, 3, 4}, k = 3;
#pragma omp target data map(tofrom : a)
  {
#pragma omp target map(tofrom : a)
    for (int i = 0; i < 4; i++) a[i] *= k;
  }
  printf("a[3] = %d (12)\n", a[3]);
  printf("%s\n", a[3] == 12 ? "PASS" : "FAIL");
  return a[3] != 12;
}
