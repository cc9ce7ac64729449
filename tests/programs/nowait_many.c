/* nowait_many.c - hundreds of target nowait regions: dependence chains,
 * shared and private mappings, target update / exit data nowait, taskwait.
 * expect: every chain applies its steps in order; regions that map the same
 * array at the same time (a shared mapping, and one created and removed by
 * whichever region comes first or last) never see a half-copied entry, nor
 * device memory that another region freed.
 * repeat: 15 */
#include <omp.h>
#include "check.h"

#define CHAINS 16
#define STEPS 16
#define N 256
static long chain[CHAINS][N];
static long shared[N];
static long total[CHAINS];

int main(void) {
  for (int i = 0; i < N; i++) shared[i] = i;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    /* Each chain: STEPS regions, each depending on the previous one, each
     * creating and removing its mapping (tofrom copy back deferred until the
     * region's queue completes). */
    for (int c = 0; c < CHAINS; c++)
      for (int s = 0; s < STEPS; s++) {
        long *row = chain[c];
#pragma omp target map(tofrom : row[0:N]) depend(inout : chain[c]) nowait
        for (int i = 0; i < N; i++) row[i] = row[i] * 2 + 1;
      }
    /* Many regions at once read one array that none of them keeps mapped:
     * the mapping is shared while they overlap and recreated after. */
    for (int c = 0; c < CHAINS; c++)
#pragma omp target map(to : shared[0:N]) map(from : total[c:1]) nowait
    {
      long t = 0;
      for (int i = 0; i < N; i++) t += shared[i];
      total[c] = t;
    }
#pragma omp taskwait
  }
  long expect = 0;
  for (int s = 0; s < STEPS; s++) expect = expect * 2 + 1;
  for (int c = 0; c < CHAINS; c++)
    for (int i = 0; i < N; i++) CHECK_EQ(chain[c][i], expect);
  for (int c = 0; c < CHAINS; c++) CHECK_EQ(total[c], (long)N * (N - 1) / 2);

  /* enter data, updates and exit data nowait, chained on one array. */
#pragma omp target enter data map(to : shared[0:N]) depend(out : shared) nowait
  for (int k = 0; k < 8; k++) {
#pragma omp target depend(inout : shared) nowait
    for (int i = 0; i < N; i++) shared[i] += 1;
  }
#pragma omp target update from(shared[0:N]) depend(inout : shared) nowait
#pragma omp target exit data map(delete : shared[0:N]) depend(in : shared) nowait
#pragma omp taskwait
  for (int i = 0; i < N; i++) CHECK_EQ(shared[i], i + 8);
  CHECK_EQ(omp_target_is_present(shared, omp_get_default_device()), 0);
  return check_finish();
}
