/* device_taskloop.c - taskloop in target regions, as device code uses it:
 * plain, grainsize, num_tasks, nogroup + taskwait, if(0), lastprivate and
 * firstprivate, negative steps, `master taskloop`, `parallel master
 * taskloop`, taskloop reductions, `taskgroup task_reduction` with
 * `in_reduction` tasks, `parallel for reduction(task, ...)`, and the
 * `affinity` clause.
 * cflags: -fopenmp-version=50
 * repeat: 3
 * expect: every sum and count equals the host's arithmetic. */
#include <omp.h>
#include "check.h"

#define N 1000

int hits[N]; /* global, as users write it */

int main(void) {
  long sum_plain = 0, sum_grain = 0, sum_tasks = 0, sum_nogroup = 0, sum_if0 = 0;
  long red_taskloop = 0, red_group = 0, red_modifier = 0, red_master = 0;
  int last = -1, first_seen_ok = 1, neg_sum = 0, tasks_used = 0, aff_sum = 0;
  int base = 5;

#pragma omp target map(tofrom : sum_plain, sum_grain, sum_tasks, sum_nogroup, \
                           sum_if0, red_taskloop, red_group, red_modifier,   \
                           red_master, last, first_seen_ok, neg_sum,         \
                           tasks_used, aff_sum, hits)
  {
#pragma omp parallel num_threads(4)
#pragma omp single
    {
#pragma omp taskloop
      for (int i = 0; i < N; i++) {
#pragma omp atomic
        sum_plain += i;
        hits[i]++;
      }
#pragma omp taskloop grainsize(7)
      for (int i = 0; i < N; i++) {
#pragma omp atomic
        sum_grain += i;
      }
      int chunks[8] = {0};
#pragma omp taskloop num_tasks(8) shared(chunks)
      for (int i = 0; i < 800; i++) {
#pragma omp atomic
        sum_tasks += i;
        if (i % 100 == 0) {
#pragma omp atomic
          chunks[i / 100]++;
        }
      }
      for (int c = 0; c < 8; c++) tasks_used += chunks[c];
#pragma omp taskloop nogroup
      for (int i = 0; i < N; i++) {
#pragma omp atomic
        sum_nogroup += i;
      }
#pragma omp taskwait
#pragma omp taskloop if(0)
      for (int i = 0; i < 100; i++) sum_if0 += i; /* undeferred, in order */
#pragma omp taskloop lastprivate(last) firstprivate(base)
      for (int i = 0; i < N; i++) {
        if (base != 5) first_seen_ok = 0;
        last = i + base;
      }
#pragma omp taskloop
      for (int i = N; i > 0; i -= 3) {
#pragma omp atomic
        neg_sum += i;
      }
#pragma omp taskloop reduction(+ : red_taskloop)
      for (int i = 0; i < N; i++) red_taskloop += i;
#pragma omp taskgroup task_reduction(+ : red_group)
      {
        for (int t = 0; t < 10; t++) {
#pragma omp task in_reduction(+ : red_group) firstprivate(t)
          red_group += t + 1;
        }
      }
      for (int t = 0; t < 4; t++) {
#pragma omp task affinity(hits[t * 10]) firstprivate(t)
        {
#pragma omp atomic
          aff_sum += t;
        }
      }
#pragma omp taskwait
    }
#pragma omp parallel for reduction(task, + : red_modifier) num_threads(4)
    for (int i = 0; i < 8; i++) {
#pragma omp task in_reduction(+ : red_modifier) firstprivate(i)
      red_modifier += i * 10;
    }
#pragma omp parallel master taskloop reduction(+ : red_master) num_threads(3)
    for (int i = 0; i < 100; i++) red_master += 2;
  }
  long want = (long)N * (N - 1) / 2;
  CHECK_EQ(sum_plain, want);
  CHECK_EQ(sum_grain, want);
  CHECK_EQ(sum_tasks, 800L * 799 / 2);
  CHECK_EQ(tasks_used, 8);
  CHECK_EQ(sum_nogroup, want);
  CHECK_EQ(sum_if0, 4950);
  CHECK_EQ(last, N - 1 + 5);
  CHECK_EQ(first_seen_ok, 1);
  int neg_want = 0;
  for (int i = N; i > 0; i -= 3) neg_want += i;
  CHECK_EQ(neg_sum, neg_want);
  CHECK_EQ(red_taskloop, want);
  CHECK_EQ(red_group, 55);
  CHECK_EQ(red_modifier, 280);
  CHECK_EQ(red_master, 200);
  CHECK_EQ(aff_sum, 6);
  int once = 1;
  for (int i = 0; i < N; i++) once &= hits[i] == 1;
  CHECK(once);
  return check_finish();
}
