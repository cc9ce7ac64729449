/* 06-structs-attach/program.c - a struct with a pointer member.
 * info: 0x29
 * map(to : s) copies the struct, pointer member included: on the device
 * that member still holds the host address. Mapping the data too,
 * s.data[0:s.n], maps the elements and "attaches" them: the runtime writes
 * the device address of the elements into the device copy of s.data. */
#include <stdio.h>
#include <stdlib.h>

struct vec {
  int n;
  double *data;
};

int main(void) {
  struct vec s = {4, malloc(4 * sizeof(double))};
  if (!s.data) return 2;
  for (int i = 0; i < s.n; i++) s.data[i] = i;
#pragma omp target map(to : s) map(tofrom : s.data[0:s.n])
  for (int i = 0; i < s.n; i++) s.data[i] += 10;
  printf("s.data[3] = %g (13)\n", s.data[3]);
  int ok = s.data[3] == 13;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(s.data);
  return !ok;
}
