/* default_geometry_env.c - the default geometry set for a run:
 * SIMDEVICE_DEFAULT_TEAMS and SIMDEVICE_DEFAULT_THREADS give a region
 * without clauses its teams and threads, and OMP_THREAD_LIMIT lowers every
 * team's threads, an explicit num_threads too (a team is a contention
 * group).
 * simtarget-only
 * env: SIMDEVICE_DEFAULT_TEAMS=3 SIMDEVICE_DEFAULT_THREADS=5 OMP_THREAD_LIMIT=4
 * expect: 3 teams of 4 threads (5 asked, OMP_THREAD_LIMIT=4); num_threads(8)
 * gets 4 too. */
#include <omp.h>
#include "check.h"

int main(void) {
  int teams = 0, threads = 0, limited = 0;
#pragma omp target teams map(tofrom : teams, threads)
  {
#pragma omp parallel
    {
      if (omp_get_team_num() == 0 && omp_get_thread_num() == 0) {
        teams = omp_get_num_teams();
        threads = omp_get_num_threads();
      }
    }
  }
#pragma omp target parallel num_threads(8) map(tofrom : limited)
  {
#pragma omp master
    limited = omp_get_num_threads();
  }
  printf("%d teams of %d threads; num_threads(8): %d\n", teams, threads, limited);
  CHECK_EQ(teams, 3);
  CHECK_EQ(threads, 4);
  CHECK_EQ(limited, 4);
  return check_finish();
}
