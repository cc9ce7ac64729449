/* Timeline demo: reference counts. `target data` maps a once; the regions
 * nested inside find it present (count 1 -> 2 -> 1) and copy nothing; only
 * `target update` and the end of `target data` move it again. */
// profile: copies 3
// profile: copy to_device 4000000 a
// profile: copy from_device 4000000 a
// profile: kernel main_l25
// profile: construct data enter @ refcounts.c:23
// profile: construct target update @ refcounts.c:29
#include <stdio.h>

#define N 1000000
static float a[N];

int main(void) {
  for (int i = 0; i < N; i++)
    a[i] = 1;
#pragma omp target data map(tofrom: a)
  {
#pragma omp target map(tofrom: a) /* present: no copy in or out */
    for (int i = 0; i < N; i++)
      a[i] += 1;
#pragma omp target data map(to: a) /* nested: count 2, still no copy */
    {
#pragma omp target
      for (int i = 0; i < N; i++)
        a[i] *= 2;
    }
#pragma omp target update from(a) /* the one explicit copy in the middle */
    printf("after update: a[0] = %g\n", a[0]);
  } /* count 0: a copied back and freed */
  printf("%s\n", a[0] == 4 ? "PASS" : "FAIL");
  return 0;
}
// svg: kernel main_l25
// svg: target update @ refcounts.c:29
// svg: target data @ refcounts.c:23
// svg: end of target data @ refcounts.c:18
// svg: free
// profile: refcount a 0 1
// profile: refcount a 2 3
// profile: refcount a 1 0
// svg: a 2→3
