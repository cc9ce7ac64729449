/* parallel regions: thread counts, ids, levels, nesting, if(0), many
 * shared arguments (the trampoline's stack arguments), and that repeated
 * regions reuse pooled threads instead of creating new ones. */
#include <string.h>

#include "check.h"

static int count_os_threads(void)
{
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  int n = -1;
  while (f && fgets(line, sizeof(line), f))
    if (strncmp(line, "Threads:", 8) == 0)
      n = atoi(line + 8);
  if (f)
    fclose(f);
  return n;
}

int main(void)
{
  /* num_threads(4): four distinct thread numbers, all see 4 threads. */
  int seen[4] = {0}, nthr[4] = {0}, bad_id = 0, level = -1, inpar = -1;
#pragma omp parallel num_threads(4)
  {
    int id = omp_get_thread_num();
    if (id < 0 || id >= 4) {
#pragma omp atomic
      bad_id++;
    } else {
      seen[id]++;
      nthr[id] = omp_get_num_threads();
    }
    if (id == 0) {
      level = omp_get_level();
      inpar = omp_in_parallel();
    }
  }
  CHECK(bad_id == 0, "%d threads had an id outside 0..3", bad_id);
  for (int i = 0; i < 4; i++) {
    CHECK(seen[i] == 1, "thread %d ran the region %d times", i, seen[i]);
    CHECK(nthr[i] == 4, "thread %d saw omp_get_num_threads()=%d", i, nthr[i]);
  }
  CHECK(level == 1 && inpar == 1, "level=%d in_parallel=%d", level, inpar);
  CHECK(omp_get_level() == 0 && !omp_in_parallel(), "outside: level %d", omp_get_level());

  /* Nested parallel inside an active region runs on one thread, level 2. */
  int inner_n[3] = {0}, inner_level[3] = {0}, anc[3] = {-1, -1, -1};
#pragma omp parallel num_threads(3)
  {
    int outer = omp_get_thread_num();
#pragma omp parallel num_threads(4)
    {
      inner_n[outer] = omp_get_num_threads();
      inner_level[outer] = omp_get_level();
      anc[outer] = omp_get_ancestor_thread_num(1);
    }
  }
  for (int i = 0; i < 3; i++)
    CHECK(inner_n[i] == 1 && inner_level[i] == 2 && anc[i] == i,
          "outer %d: nested n=%d level=%d ancestor=%d", i, inner_n[i], inner_level[i], anc[i]);

  /* parallel if(0): serialized, one thread, but still a new level. */
  int ser_n = 0, ser_level = 0, ser_active = -1, zero = 0;
#pragma omp parallel if (zero) num_threads(8)
  {
    ser_n = omp_get_num_threads();
    ser_level = omp_get_level();
    ser_active = omp_get_active_level();
  }
  CHECK(ser_n == 1 && ser_level == 1 && ser_active == 0, "if(0): n=%d level=%d active=%d", ser_n,
        ser_level, ser_active);

  /* Eleven shared variables: 13 arguments to the outlined function, 7 of
   * them on the stack; then twelve (an even stack count). */
  long a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5, a6 = 6, a7 = 7, a8 = 8, a9 = 9, a10 = 10, a11 = 11;
  long total = 0;
#pragma omp parallel num_threads(2) shared(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, total)
  {
#pragma omp atomic
    total += a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
  }
  CHECK(total == 2 * 66, "11-argument region: total=%ld", total);
  long a12 = 12;
  total = 0;
#pragma omp parallel num_threads(3) shared(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, total)
  {
    long double x = (long double)(a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12);
#pragma omp atomic
    total += (long)x;
  }
  CHECK(total == 3 * 78, "12-argument region: total=%ld", total);

  /* Pool reuse: after a warm-up, 300 more regions create no threads. */
#pragma omp parallel num_threads(4)
  { }
  int before = count_os_threads();
  int runs = 0;
  for (int r = 0; r < 300; r++) {
#pragma omp parallel num_threads(4)
    {
#pragma omp atomic
      runs++;
    }
  }
  int after = count_os_threads();
  CHECK(runs == 1200, "300 regions of 4 threads ran %d implicit tasks", runs);
  CHECK(after == before, "threads before=%d after=%d: regions created threads", before, after);

  /* omp_set_num_threads is the default for later regions. */
  omp_set_num_threads(3);
  int n3 = 0;
#pragma omp parallel
  {
#pragma omp master
    n3 = omp_get_num_threads();
  }
  CHECK(n3 == 3, "after omp_set_num_threads(3): %d threads", n3);
  CHECK(omp_is_initial_device() == 0 && omp_get_num_devices() == 0, "device queries");
  CHECK_DONE();
}
