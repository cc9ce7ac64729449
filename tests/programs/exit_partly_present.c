/* exit_partly_present.c - `target exit data` and the end of `target data`
 * naming an item only partly present (issue 13, item 8). As LLVM 19 does,
 * such an item is skipped at exit (nothing released, nothing copied), and
 * the mapping stays until a matching exit.
 * expect: the program runs; the section mapped first keeps its device copy
 * until its own exit.
 */
#include <omp.h>
#include "check.h"

#define N 64

int main(void) {
  int dev = omp_get_default_device();
  int a[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp target enter data map(to : a[0 : 16])
  /* the whole array: only a[0:16] is present, so this is skipped */
#pragma omp target exit data map(from : a)
  CHECK(omp_target_is_present(a, dev));
#pragma omp target map(a[0 : 16])
  for (int i = 0; i < 16; i++)
    a[i] += 100;
#pragma omp target exit data map(from : a[0 : 16])
  CHECK(!omp_target_is_present(a, dev));
  CHECK_EQ(a[0], 100);
  CHECK_EQ(a[15], 115);
  CHECK_EQ(a[16], 16);

  int b[N];
  for (int i = 0; i < N; i++)
    b[i] = -i;
#pragma omp target enter data map(to : b[8 : 8])
  /* a section overlapping the present one at both ends */
#pragma omp target exit data map(release : b[4 : 16])
  CHECK(omp_target_is_present(&b[8], dev));
#pragma omp target exit data map(release : b[8 : 8])
  CHECK(!omp_target_is_present(&b[8], dev));
  return check_finish();
}
