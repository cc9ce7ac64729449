/* full.c - fault-sweep corpus: data regions, updates, enter/exit data, a
 * declare-target global, the device memory routines (also between two
 * devices when there are two) and a teams reduction, each checked. Run under
 * OMP_TARGET_OFFLOAD=mandatory: a fault must end it with status 1 and a
 * message, never with a wrong result.
 * Prints PASS when every result is right, FAIL otherwise. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 128

/* A device memory routine failed: say which and where, as a program
 * checking the routines' results would, and stop. */
#define API_OK(call)                                                           \
  do {                                                                         \
    if (!(call)) {                                                             \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call);        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#pragma omp requires dynamic_allocators

int counter = 5;
#pragma omp declare target to(counter)

int main(void) {
  int bad = 0;
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  if (!a || !b)
    return 2;
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 0;
  }
#pragma omp target data map(to : a[0:N]) map(tofrom : b[0:N])
  {
#pragma omp target
    for (int i = 0; i < N; i++)
      b[i] = a[i] * 3;
#pragma omp target update from(b[0:N])
    bad += b[10] != 30;
  }
  for (int i = 0; i < N; i++)
    bad += b[i] != 3.0 * i;

#pragma omp target enter data map(to : a[0:N])
#pragma omp target
  for (int i = 0; i < N; i++)
    a[i] += 1;
#pragma omp target exit data map(from : a[0:N])
  bad += a[5] != 6;

#pragma omp target update to(counter)
#pragma omp target
  counter += 10;
#pragma omp target update from(counter)
  bad += counter != 15;

  long sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum)
  for (int i = 0; i < 1000; i++)
    sum += i;
  bad += sum != 499500;

  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int *d = omp_target_alloc(N * sizeof(int), dev);
  int src[N], back[N];
  for (int i = 0; i < N; i++) {
    src[i] = i * i;
    back[i] = -1;
  }
  API_OK(d != NULL);
  API_OK(omp_target_memcpy(d, src, sizeof src, 0, 0, dev, host) == 0);
  API_OK(omp_target_memcpy(back, d, sizeof back, 0, 0, host, dev) == 0);
  bad += memcmp(src, back, sizeof src) != 0;
  if (omp_get_num_devices() > 1) {
    int *d1 = omp_target_alloc(N * sizeof(int), 1);
    memset(back, 0, sizeof back);
    API_OK(d1 != NULL);
    API_OK(omp_target_memcpy(d1, d, sizeof src, 0, 0, 1, dev) == 0);
    API_OK(omp_target_memcpy(back, d1, sizeof back, 0, 0, host, 1) == 0);
    bad += memcmp(src, back, sizeof src) != 0;
    omp_target_free(d1, 1);
  }
  omp_target_free(d, dev);
  free(a);
  free(b);
  printf(bad ? "FAIL\n" : "PASS\n");
  return bad ? 1 : 0;
}
