/* global_ptr_section.c - a file-scope pointer mapped with a section, the most
 * common way real code maps arrays (issue 13, item 1). clang 13-19 pass it as
 * one PTR_AND_OBJ|TARGET_PARAM entry (base &gp, begin gp): the kernel must get
 * the device pointee, not the pointee plus (&gp - gp).
 * expect: the kernel reads and writes gp[0:n] through the device copy, in a
 * target region, after enter data, and through a second global pointer into
 * the middle of the same array.
 */
#include <stdlib.h>
#include "check.h"

#define N 64
int *gp;
double *gq;
int n = N;

int main(void) {
  gp = malloc(N * sizeof *gp);
  gq = malloc(N * sizeof *gq);
  for (int i = 0; i < N; i++) {
    gp[i] = i;
    gq[i] = 0.5 * i;
  }
#pragma omp target map(tofrom : gp[0 : n])
  for (int i = 0; i < n; i++)
    gp[i] += 1;
  for (int i = 0; i < N; i++)
    CHECK_EQ(gp[i], i + 1);

  /* A section that does not start at element 0. */
#pragma omp target map(tofrom : gp[8 : 16])
  for (int i = 8; i < 24; i++)
    gp[i] *= 2;
  CHECK_EQ(gp[7], 8);
  CHECK_EQ(gp[8], 18);
  CHECK_EQ(gp[23], 48);
  CHECK_EQ(gp[24], 25);

#pragma omp target enter data map(to : gq[0 : n])
#pragma omp target map(to : gq[0 : n]) map(tofrom : gp[0 : n])
  for (int i = 0; i < n; i++)
    gp[i] = (int)(gq[i] * 4);
#pragma omp target exit data map(release : gq[0 : n])
  for (int i = 0; i < N; i++)
    CHECK_EQ(gp[i], 2 * i);
  free(gp);
  free(gq);
  return check_finish();
}
