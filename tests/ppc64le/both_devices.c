/* both_devices.c - a binary that carries an x86-64 and a ppc64le image
 * (-fopenmp-targets=x86_64-pc-linux-gnu,powerpc64le-ibm-linux-gnu) has both
 * devices: the x86-64 one is device 0, the ppc64le one device 1, and each
 * runs the region from its own image (tests/ppc64le/device.sh). */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int n = omp_get_num_devices(), ok = n == 2;
  for (int d = 0; d < n; d++) {
    int x = 0, initial = 1;
    unsigned char_signed = 0;
#pragma omp target device(d) map(tofrom : x, initial, char_signed)
    {
      x = 42 + d;
      initial = omp_is_initial_device();
      char_signed = (char)-1 < 0; /* plain char: signed on x86-64 only */
    }
    printf("device %d: x=%d initial=%d char is %s\n", d, x, initial,
           char_signed ? "signed" : "unsigned");
    ok &= x == 42 + d && initial == 0 && char_signed == (d == 0);
  }
  if (n != 2)
    printf("%d devices, expected 2\n", n);
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
