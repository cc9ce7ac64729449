/* A kernel that writes past the end of its array: a fault on simdevice. */
#include <stdio.h>

int main(void) {
  int n = 1000;
  static int v[1000];
  volatile int past = 70000;
#pragma omp target map(tofrom: v[0:n])
  {
    v[0] = 1;
    v[past] = 2; /* far past the end: the guard page and beyond */
  }
  printf("fault: not reached %d\n", v[0]);
  return 0;
}
