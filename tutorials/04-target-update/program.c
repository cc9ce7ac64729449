/* 04-target-update/program.c - target update: copy while data stays mapped.
 * info: 0x29
 * The array lives on the device for the whole `target data` block. The host
 * and the device each change it; `target update to` sends the host's
 * change, `target update from` fetches the device's. A section
 * (a[2:2]) copies only those elements. */
#include <stdio.h>

int main(void) {
  int a[8] = {0};
  int ok = 1;
#pragma omp target data map(tofrom : a)
  {
    for (int i = 0; i < 8; i++) a[i] = i; /* host only: device has zeros */
#pragma omp target update to(a)
#pragma omp target
    for (int i = 0; i < 8; i++) a[i] *= 10; /* device: 0 10 20 ... */
#pragma omp target update from(a[2:2])
    printf("after update from(a[2:2]): a[1]=%d a[2]=%d a[3]=%d a[4]=%d\n", a[1],
           a[2], a[3], a[4]);
    ok = a[1] == 1 && a[2] == 20 && a[3] == 30 && a[4] == 4;
  } /* end of target data: the whole array comes back */
  printf("after target data:         a[1]=%d a[4]=%d\n", a[1], a[4]);
  ok = ok && a[1] == 10 && a[4] == 40;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return !ok;
}
