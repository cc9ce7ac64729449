/* devrt.c - what device code asks of the device runtime: parallel, for with
 * static/dynamic/guided schedules, reductions, critical, atomic, single,
 * master, barrier, tasks and taskwait, nested teams/distribute.
 * expect: every construct gives the same result it gives on the host. */
#include <omp.h>
#include "check.h"

#define N 1000

int main(void) {
  static double a[N], b[N];
  long long dyn_sum = 0, guided_sum = 0;
  int in_critical = 0, atomic_count = 0, single_count = 0, master_team = -1;
  int threads = 0, level = -1, tasks_done = 0, on_host = -1, barrier_ok = 1;
  int arrived[4] = {0, 0, 0, 0};
  for (int i = 0; i < N; i++) a[i] = i;

#pragma omp target teams distribute parallel for map(to : a) map(from : b) \
    schedule(static, 7)
  for (int i = 0; i < N; i++) b[i] = 2 * a[i];
  CHECK(b[10] == 20.0 && b[N - 1] == 2.0 * (N - 1));

#pragma omp target map(tofrom : dyn_sum, guided_sum, in_critical, atomic_count, \
                           single_count, master_team, threads, level,          \
                           tasks_done, on_host, barrier_ok, arrived)           \
    map(to : a)
  {
    on_host = omp_is_initial_device();
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : dyn_sum)
    for (int i = 0; i < N; i++) dyn_sum += (long long)a[i];
#pragma omp parallel for schedule(guided) reduction(+ : guided_sum)
    for (int i = 0; i < N; i++) guided_sum += (long long)a[i] * 2;
#pragma omp parallel num_threads(4)
    {
      int me = omp_get_thread_num();
#pragma omp critical
      in_critical++;
#pragma omp atomic
      atomic_count++;
      if (me < 4) arrived[me] = 1;
#pragma omp barrier
      /* After the barrier every thread's mark must be visible. */
      int marks = 0;
      for (int t = 0; t < omp_get_num_threads() && t < 4; t++) marks += arrived[t];
      if (marks != (omp_get_num_threads() < 4 ? omp_get_num_threads() : 4)) {
#pragma omp atomic write
        barrier_ok = 0;
      }
#pragma omp single
      single_count++;
#pragma omp master
      {
        threads = omp_get_num_threads();
        level = omp_get_level();
        master_team = me;
      }
#pragma omp single
      {
        for (int t = 0; t < 5; t++) {
#pragma omp task shared(tasks_done)
          {
#pragma omp atomic
            tasks_done++;
          }
        }
#pragma omp taskwait
      }
    }
  }
  printf("threads=%d level=%d critical=%d atomic=%d single=%d tasks=%d\n",
         threads, level, in_critical, atomic_count, single_count, tasks_done);
  CHECK_EQ(on_host, 0);
  CHECK_EQ(dyn_sum, (long long)N * (N - 1) / 2);
  CHECK_EQ(guided_sum, (long long)N * (N - 1));
  CHECK(threads >= 1 && threads <= 4);
  CHECK_EQ(level, 1);
  CHECK_EQ(in_critical, threads);
  CHECK_EQ(atomic_count, threads);
  CHECK_EQ(single_count, 1);
  CHECK_EQ(master_team, 0);
  CHECK_EQ(tasks_done, 5);
  CHECK_EQ(barrier_ok, 1);

#pragma omp target teams distribute map(tofrom : a) dist_schedule(static, 16)
  for (int i = 0; i < N; i++) a[i] += 1;
  CHECK(a[5] == 6.0 && a[N - 1] == (double)N);
  return check_finish();
}
