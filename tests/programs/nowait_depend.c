/* nowait_depend.c - target nowait with depend clauses, ordered by task
 * dependences, and asynchronous enter/exit data; taskwait joins them.
 * expect: the dependent regions run in order, so each sees its
 * predecessor's results. */
#include <omp.h>
#include "check.h"

#define N 4096
static int a[N], b[N];

int main(void) {
  int on_host = -1;
  for (int i = 0; i < N; i++) a[i] = i;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp target map(tofrom : a[0:N]) map(from : on_host) depend(out : a) nowait
    {
      on_host = omp_is_initial_device();
      for (int i = 0; i < N; i++) a[i] += 1;
    }
#pragma omp target map(to : a[0:N]) map(from : b[0:N]) depend(in : a) \
    depend(out : b) nowait
    for (int i = 0; i < N; i++) b[i] = a[i] * 2;
#pragma omp task depend(in : b) shared(b)
    b[0] += 1000;
#pragma omp taskwait
  }
  CHECK_EQ(on_host, 0);
  CHECK_EQ(a[10], 11);
  CHECK_EQ(b[0], 1002);
  for (int i = 1; i < N; i++) CHECK_EQ(b[i], 2 * (i + 1));

  /* enter data / region / exit data, chained by dependences. */
#pragma omp target enter data map(to : a[0:N]) depend(out : a) nowait
#pragma omp target map(to : a[0:N]) depend(inout : a) nowait
  for (int i = 0; i < N; i++) a[i] = -a[i];
#pragma omp target exit data map(from : a[0:N]) depend(in : a) nowait
#pragma omp taskwait
  CHECK_EQ(a[5], -6);
  CHECK_EQ(a[N - 1], -N);
  return check_finish();
}
