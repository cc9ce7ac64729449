/* default_geometry.c - under the geometry simtarget-check runs programs
 * with (SIMDEVICE_DEFAULT_TEAMS=max(CPUs, 4), SIMDEVICE_DEFAULT_THREADS=2),
 * a `target teams distribute parallel for` and a `target parallel` without
 * num_teams, thread_limit or num_threads run several teams of several
 * threads, as on a GPU, so a race among them can show (issue 32: plain
 * runs give 2 teams of 1 thread on 2 CPUs, as cheap as LLVM's launches).
 * simtarget-only
 * env: SIMDEVICE_DEFAULT_TEAMS=4 SIMDEVICE_DEFAULT_THREADS=2
 * expect: at least 4 teams and at least 2 threads in each
 * team's parallel region and in a plain target parallel; the reduction's
 * sum is exact. */
#include <omp.h>
#include "check.h"

#define N 4096

int main(void) {
  int teams = 0, threads[64] = {0};
  long sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum) map(tofrom : teams, threads)
  for (int i = 0; i < N; i++) {
    sum += i;
    if (omp_get_thread_num() == 0 && omp_get_team_num() < 64) {
      threads[omp_get_team_num()] = omp_get_num_threads();
      if (omp_get_team_num() == 0)
        teams = omp_get_num_teams();
    }
  }
  int par = 0;
#pragma omp target parallel map(tofrom : par)
  {
#pragma omp master
    par = omp_get_num_threads();
  }
  printf("default geometry: %d teams of %d threads; target parallel: %d threads\n", teams,
         threads[0], par);
  CHECK_EQ(sum, (long)N * (N - 1) / 2);
  CHECK(teams >= 4);
  for (int t = 0; t < teams && t < 64; t++)
    CHECK(threads[t] >= 2);
  CHECK(par >= 2);
  return check_finish();
}
