/* device_ptr.c - use_device_ptr, use_device_addr and is_device_ptr.
 * expect: inside target data the translated addresses are device addresses
 * (different from the host's, and accepted by is_device_ptr regions). */
#include <omp.h>
#include <stdlib.h>
#include "check.h"

#define N 64

/* Runs on the device with a pointer that is already a device address. */
static void triple_on_device(double *dptr, int n) {
#pragma omp target is_device_ptr(dptr)
  for (int i = 0; i < n; i++) dptr[i] = dptr[i] * 3;
}

int main(void) {
  int dev = omp_get_default_device();
  double *p = malloc(N * sizeof(double));
  double arr[N];
  if (!p) return 2;
  for (int i = 0; i < N; i++) { p[i] = i; arr[i] = i + 1; }
  double *const host_p = p;
  double *seen_p = NULL, *seen_arr = NULL;
  int present_p = 0, present_arr = 0;

#pragma omp target data map(tofrom : p[0:N]) map(tofrom : arr)
  {
#pragma omp target data use_device_ptr(p)
    {
      seen_p = p;
      triple_on_device(p, N);
    }
#pragma omp target data use_device_addr(arr)
    {
      seen_arr = &arr[0];
      triple_on_device(&arr[0], N);
    }
    /* The device addresses are what omp_target_is_present calls device
     * memory; the host addresses are what it calls present. */
    present_p = omp_target_is_present(host_p, dev);
    present_arr = omp_target_is_present(arr, dev);
  }
  printf("host p=%p device p=%p device arr=%p\n", (void *)host_p,
         (void *)seen_p, (void *)seen_arr);
  CHECK(seen_p != NULL && seen_p != host_p);
  CHECK(seen_arr != NULL && seen_arr != arr);
  CHECK(p == host_p); /* p is the host pointer again after the construct */
  CHECK(present_p && present_arr);
  for (int i = 0; i < N; i++) {
    CHECK(p[i] == 3.0 * i);
    CHECK(arr[i] == 3.0 * (i + 1));
  }
  free(p);
  return check_finish();
}
