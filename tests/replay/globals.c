/* Declare-target globals: a table read on the device, a counter written,
 * and a pointer to the table that the device image's loader set (device
 * memory that holds an image address: replay must load the image where the
 * recording had it). */
#include <stdio.h>

#pragma omp declare target
int table[256];
long total;
int *cursor = &table[3];
#pragma omp end declare target

int main(void) {
  for (int i = 0; i < 256; i++)
    table[i] = i * i;
  total = 7;
#pragma omp target update to(table, total)
#pragma omp target map(tofrom: total)
  {
    long sum = 0;
    for (int i = 0; i < 256; i++)
      sum += table[i];
    total += sum + *cursor;
    table[0] = -1;
  }
#pragma omp target update from(table, total)
  printf("globals %ld %d\n", total, table[0]);
  return 0;
}
