/* nowait_data_ended.c - nowait data constructs end while they are
 * dispatched (their copies are done at once), so the target task completes
 * them in the same call, as LLVM's runtime does with a queue that is done,
 * and libomp re-runs no task to poll them (__tgt_target_nowait_query).
 * versions: 16 19 22
 * simtarget-only
 * env: LIBOMPTARGET_DEBUG=1 SIMTARGET_NOWAIT=
 * (SIMTARGET_NOWAIT emptied: the coverage run sets it to `wait` for every
 * nowait program, and then no construct is dispatched as nowait at all)
 * expect-stderr: nowait construct ended in its dispatch; completed there
 * expect-stderr-not: its task completes it
 * expect: enter data, update and exit data nowait move the values both ways
 * and each completes in its dispatching call. */
#include <omp.h>
#include "check.h"

#define N 1024
static int a[N];

int main(void) {
  for (int i = 0; i < N; i++) a[i] = i;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp target enter data map(to : a[0:N]) nowait
#pragma omp taskwait
#pragma omp target map(alloc : a[0:N])
    for (int i = 0; i < N; i++) a[i] += 1;
    for (int i = 0; i < N; i++) a[i] += 100; /* host copy only */
#pragma omp target update from(a[0:N]) nowait
#pragma omp taskwait
    CHECK_EQ(a[10], 11);
    for (int i = 0; i < N; i++) a[i] = 2 * i;
#pragma omp target update to(a[0:N]) nowait
#pragma omp taskwait
#pragma omp target map(alloc : a[0:N])
    for (int i = 0; i < N; i++) a[i] += 3;
#pragma omp target exit data map(from : a[0:N]) nowait
#pragma omp taskwait
  }
  CHECK_EQ(a[0], 3);
  CHECK_EQ(a[N - 1], 2 * (N - 1) + 3);
  CHECK_EQ(omp_target_is_present(a, omp_get_default_device()), 0);
  return check_finish();
}
