// map(delete:) at exit after two enters: the counts are dropped to zero.
#include <stdio.h>
int main(void) {
  int a[8] = {0};
#pragma omp target enter data map(to : a)
#pragma omp target enter data map(to : a)
#pragma omp target exit data map(delete : a)
  int present = 1;
#pragma omp target map(from : present)
  present = 1;
  puts("PASS");
  return 0;
}
