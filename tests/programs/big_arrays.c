/* big_arrays.c - device memory is sized like a GPU's, not 1 GiB: three
 * 512 MiB arrays and one of 1.5 GiB are mapped at once (map(alloc), so
 * nothing is copied and only the pages the kernel touches are backed), and
 * a kernel writes one element per MiB of each and reads them back.
 * expect: every mapping succeeds and the values written are read back. */
#include <stdlib.h>
#include "check.h"

#define MIB (1024L * 1024L)
#define SMALL (512L * MIB / (long)sizeof(double))
#define BIG (1536L * MIB / (long)sizeof(double))
#define STEP (MIB / (long)sizeof(double))

double *a, *b, *c, *big; /* global pointers, as users write them */

int main(void) {
  a = malloc(SMALL * sizeof(double));
  b = malloc(SMALL * sizeof(double));
  c = malloc(SMALL * sizeof(double));
  big = malloc(BIG * sizeof(double));
  CHECK(a && b && c && big);
  if (!(a && b && c && big))
    return check_finish();
  long sum = 0;
#pragma omp target data map(alloc : a[0:SMALL], b[0:SMALL], c[0:SMALL], big[0:BIG])
  {
#pragma omp target map(tofrom : sum)
    {
      for (long i = 0; i < SMALL; i += STEP) {
        a[i] = 1;
        b[i] = 2;
        c[i] = 3;
      }
      for (long i = 0; i < BIG; i += STEP) big[i] = 4;
      for (long i = 0; i < SMALL; i += STEP) sum += (long)(a[i] + b[i] + c[i]);
      for (long i = 0; i < BIG; i += STEP) sum += (long)big[i];
    }
  }
  CHECK_EQ(sum, 512L * 6 + 1536L * 4);
  free(a);
  free(b);
  free(c);
  free(big);
  return check_finish();
}
