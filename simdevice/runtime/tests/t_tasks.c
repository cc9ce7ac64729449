/* explicit tasks: every task runs once, taskwait waits for children,
 * taskgroup waits for descendants, depend orders tasks, if(0) and final
 * run inline, tasks run on several threads, tasks inside teams, many
 * tasks (no leak per task under valgrind). */
#include <stdatomic.h>
#include <unistd.h>

#include "check.h"

static atomic_int counter;

static void spawn_tree(int depth)
{
  atomic_fetch_add(&counter, 1);
  if (depth == 0)
    return;
  for (int k = 0; k < 2; k++) {
#pragma omp task
    spawn_tree(depth - 1);
  }
}

int main(void)
{
  /* 1000 tasks from a single, taskwait, all done, run by several threads. */
  atomic_int done = 0;
  int after_wait = -1;
  int thread_used[64] = {0};
#pragma omp parallel num_threads(4)
  {
#pragma omp single
    {
      for (int i = 0; i < 1000; i++) {
#pragma omp task shared(done, thread_used)
        {
          thread_used[omp_get_thread_num() & 63] = 1;
          if (i % 50 == 0)
            usleep(1000);
          atomic_fetch_add(&done, 1);
        }
      }
#pragma omp taskwait
      after_wait = atomic_load(&done);
    }
  }
  int threads = 0;
  for (int i = 0; i < 64; i++)
    threads += thread_used[i];
  CHECK(after_wait == 1000, "taskwait returned with %d of 1000 tasks done", after_wait);
  CHECK(threads >= 2, "tasks ran on %d thread(s): they are not deferred to the team", threads);

  /* Deferred tasks finish by the end of the region even without taskwait. */
  atomic_store(&done, 0);
#pragma omp parallel num_threads(3)
  {
#pragma omp single nowait
    for (int i = 0; i < 100; i++) {
#pragma omp task
      atomic_fetch_add(&done, 1);
    }
  }
  CHECK(atomic_load(&done) == 100, "after the region: %d of 100 tasks", atomic_load(&done));

  /* taskgroup waits for grandchildren too (taskwait would not). */
  atomic_store(&counter, 0);
  int in_group = -1;
#pragma omp parallel num_threads(4)
  {
#pragma omp single
    {
#pragma omp taskgroup
      {
        spawn_tree(6); /* 127 nodes */
      }
      in_group = atomic_load(&counter);
    }
  }
  CHECK(in_group == 127, "taskgroup ended with %d of 127 descendant tasks done", in_group);

  /* depend: a chain out -> inout -> in must run in order. */
  for (int rep = 0; rep < 20; rep++) {
    int x = 0, y = -1, z = -1;
#pragma omp parallel num_threads(4)
    {
#pragma omp single
      {
#pragma omp task depend(out : x) shared(x)
        {
          usleep(200);
          x = 1;
        }
#pragma omp task depend(inout : x) shared(x, y)
        {
          y = x;
          x = 2;
        }
#pragma omp task depend(in : x) shared(x, z)
        z = x;
#pragma omp taskwait
      }
    }
    CHECK(y == 1 && z == 2, "rep %d: depend order broken: y=%d z=%d", rep, y, z);
  }

  /* if(0) runs immediately on the encountering thread; final too. */
  int seq[4], n = 0, inl_thread = -1, fin = -1;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    {
      int me = omp_get_thread_num();
      seq[n++] = 1;
#pragma omp task if (0) shared(seq, n, inl_thread)
      {
        seq[n++] = 2;
        inl_thread = omp_get_thread_num();
      }
      seq[n++] = 3;
#pragma omp task final(1) shared(fin)
      fin = omp_in_final();
      if (inl_thread != me)
        inl_thread = -2;
    }
  }
  CHECK(n == 3 && seq[0] == 1 && seq[1] == 2 && seq[2] == 3 && inl_thread >= 0 && fin == 1,
        "if(0)/final: n=%d inl_thread=%d in_final=%d", n, inl_thread, fin);

  /* Tasks with firstprivate data, created at team level inside teams. */
  atomic_int team_sum = 0;
#pragma omp teams num_teams(3)
  {
    int t = omp_get_team_num();
#pragma omp parallel num_threads(2)
    {
#pragma omp single
      for (int i = 0; i < 10; i++) {
#pragma omp task firstprivate(i, t)
        atomic_fetch_add(&team_sum, i + 100 * t);
      }
    }
  }
  CHECK(atomic_load(&team_sum) == 3 * 45 + 10 * 300, "tasks in teams: %d", atomic_load(&team_sum));

  /* taskyield inside tasks is harmless. */
  atomic_store(&done, 0);
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    for (int i = 0; i < 50; i++) {
#pragma omp task
      {
#pragma omp taskyield
        atomic_fetch_add(&done, 1);
      }
    }
  }
  CHECK(atomic_load(&done) == 50, "taskyield: %d of 50", atomic_load(&done));
  CHECK_DONE();
}
