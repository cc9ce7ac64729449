/* address_space_limit.c - the program runs under an address-space limit
 * (ulimit -v 4000000, RLIMIT_AS of about 4 GB, as batch systems and some CI
 * set): it sets the limit and re-executes itself, so that the runtime loads
 * under it, then offloads 64 MiB.
 * expect-stderr-not: slots|cannot
 * expect: offloading works: device memory by default fits what the limit
 * leaves (the host maps device memory twice, so a quarter of it). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "check.h"
#include "reexec.h"

#define N (16u << 20) /* 64 MiB of ints */

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--limited") != 0) {
    struct rlimit as = {4000000ull * 1024, 4000000ull * 1024};
    CHECK_EQ(setrlimit(RLIMIT_AS, &as), 0);
    char *args[] = {argv[0], "--limited", NULL};
    reexec_self(argv[0], args);
    return 2;
  }
  int *a = malloc(N * sizeof *a);
  CHECK(a != NULL);
  for (unsigned i = 0; i < N; i++)
    a[i] = (int)(i & 1023);
  long sum = 0;
#pragma omp target teams distribute parallel for map(to : a[0:N]) reduction(+ : sum)
  for (unsigned i = 0; i < N; i++)
    sum += a[i];
  CHECK_EQ(sum, (long)(N / 1024) * (1023 * 1024 / 2));
  free(a);
  return check_finish();
}
