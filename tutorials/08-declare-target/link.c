/* 08-declare-target/link.c - declare target link: a big global that the
 * device gets only when a construct maps it.
 * info: 0x29
 * `to` (program.c) puts a copy of the global into the device image; `link`
 * puts only a pointer there, and a map clause decides when the data is
 * present, as for any variable. */
#include <stdio.h>

double table[1024];
#pragma omp declare target link(table)

int main(void) {
  for (int i = 0; i < 1024; i++) table[i] = i;
  double sum = 0;
#pragma omp target map(to : table) map(tofrom : sum)
  for (int i = 0; i < 1024; i++) sum += table[i];
  printf("sum = %g (523776)\n", sum);
  printf("%s\n", sum == 523776 ? "PASS" : "FAIL");
  return sum != 523776;
}
