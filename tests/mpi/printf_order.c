/* printf_order.c - what device code prints reaches the program's stdout in
 * program order with the host's own lines, from every remote device, also
 * when a region prints more than a pipe holds (2000 lines, about 60 KiB):
 * host and device lines alternate, and the program checks nothing itself:
 * tests/mpi.sh compares its stdout, read through a pipe, with the lines
 * this program must print (printf_order.expected).
 * Run with two devices. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int devices = omp_get_num_devices();
  if (devices < 2) {
    printf("FAIL: %d devices\n", devices);
    return 1;
  }
  for (int i = 0; i < 6; i++) {
    int d = i % 2;
    printf("host before region %d\n", i);
#pragma omp target device(d) firstprivate(i)
    {
      printf("device %d region %d: first line\n", omp_get_device_num(), i);
      printf("device %d region %d: last line\n", omp_get_device_num(), i);
    }
    printf("host after region %d\n", i);
  }
#pragma omp target device(1)
  for (int line = 0; line < 2000; line++)
    printf("device 1 long output, line %04d of 2000 lines\n", line);
  printf("host end\n");
  return 0;
}
