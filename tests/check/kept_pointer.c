/* A device address kept past `target exit data`: the next kernel writes
 * the freed device copy of `buf`.
 * check-finding: freed-device-copy buf[0:n] kept_pointer.c:20 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 4096;
  int *buf = malloc(n * sizeof *buf);
  for (int i = 0; i < n; i++)
    buf[i] = i;
  int *dev = NULL;
#pragma omp target enter data map(to : buf[0:n])
#pragma omp target data use_device_ptr(buf)
  dev = buf;
#pragma omp target exit data map(delete : buf[0:n])
  int first = -1;
  printf("kept %s\n", dev ? "a device address" : "nothing");
#pragma omp target is_device_ptr(dev) map(from : first)
  {
    dev[0] = 7;
    first = dev[0];
  }
  printf("first = %d\n", first);
  free(buf);
  return 0;
}
