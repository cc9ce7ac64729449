/* teams: the number of teams and threads asked for (within the caps), team
 * numbers, that teams really run at the same time, distribute schedules
 * covering each iteration once, and league-wide reductions. */
#include <stdatomic.h>
#include <time.h>

#include "check.h"

#define N 100000

static double now(void) { return omp_get_wtime(); }

/* One teams region (one outlined function) run short (wait_all 0) and then
 * with every team waiting for all 4 (wait_all 1, at most 10 s). */
static void run_league(int wait_all, atomic_int *here, atomic_int *late, int *runs)
{
#pragma omp teams num_teams(4)
  {
    runs[omp_get_team_num()]++;
    atomic_fetch_add(here, 1);
    if (wait_all) {
      double start = now();
      while (atomic_load(here) < 4 && now() - start < 10.0)
        ;
      if (atomic_load(here) < 4)
        atomic_fetch_add(late, 1);
    }
  }
}

int main(void)
{
  int max_teams = getenv("SIMDEVICE_MAX_TEAMS") ? atoi(getenv("SIMDEVICE_MAX_TEAMS")) : 64;

  /* num_teams(4) thread_limit(3): 4 teams, numbers 0..3, 3 threads each. */
  int team_seen[4] = {0}, nteams[4] = {0}, limit[4] = {0}, par_n[4] = {0}, bad = 0;
#pragma omp teams num_teams(4) thread_limit(3)
  {
    int t = omp_get_team_num();
    if (t < 0 || t >= 4)
      bad++;
    else {
      team_seen[t]++;
      nteams[t] = omp_get_num_teams();
      limit[t] = omp_get_thread_limit();
#pragma omp parallel
      {
#pragma omp master
        par_n[t] = omp_get_num_threads();
      }
    }
  }
  CHECK(bad == 0, "a team number outside 0..3");
  for (int t = 0; t < 4; t++)
    CHECK(team_seen[t] == 1 && nteams[t] == 4 && limit[t] == 3 && par_n[t] == 3,
          "team %d: ran %d times, num_teams=%d thread_limit=%d parallel threads=%d", t,
          team_seen[t], nteams[t], limit[t], par_n[t]);

  /* Teams are concurrent: every team waits until all 6 have arrived. A
   * runtime that ran teams one after the other would time out here. */
  atomic_int arrived = 0;
  atomic_int timed_out = 0;
#pragma omp teams num_teams(6)
  {
    atomic_fetch_add(&arrived, 1);
    double start = now();
    while (atomic_load(&arrived) < 6 && now() - start < 10.0)
      ;
    if (atomic_load(&arrived) < 6)
      atomic_fetch_add(&timed_out, 1);
  }
  CHECK(timed_out == 0, "%d teams waited 10 s for the others: teams are not concurrent",
        atomic_load(&timed_out));

  /* A request above the cap is clamped to it. */
  int big = 0;
#pragma omp teams num_teams(100000)
  {
    if (omp_get_team_num() == 0)
      big = omp_get_num_teams();
  }
  CHECK(big == max_teams, "num_teams(100000) gave %d teams, cap is %d", big, max_teams);

  /* distribute parallel for: every iteration exactly once, sum right. */
  static int hits[N];
  long long sum = 0;
#pragma omp teams distribute parallel for num_teams(5) thread_limit(4) reduction(+ : sum)
  for (int i = 0; i < N; i++) {
    hits[i]++;
    sum += i;
  }
  int wrong = 0;
  for (int i = 0; i < N; i++)
    wrong += hits[i] != 1;
  CHECK(wrong == 0, "%d iterations not run exactly once", wrong);
  CHECK(sum == (long long)N * (N - 1) / 2, "sum=%lld", sum);

  /* dist_schedule(static, 16) and the team that owns each block. */
  static int owner[N];
#pragma omp teams distribute num_teams(3) dist_schedule(static, 16)
  for (int i = 0; i < N; i++)
    owner[i] = omp_get_team_num() + 1;
  wrong = 0;
  for (int i = 0; i < N; i++)
    wrong += owner[i] != (i / 16) % 3 + 1;
  CHECK(wrong == 0, "%d iterations ran on the wrong team for dist_schedule(static,16)", wrong);

  /* Unchunked distribute: contiguous balanced blocks, lastprivate from the
   * last iteration. */
  int last = -1;
#pragma omp teams distribute num_teams(7) lastprivate(last)
  for (int i = 0; i < 1000; i++)
    last = i;
  CHECK(last == 999, "lastprivate after distribute: %d", last);

  /* A reduction combined across teams and threads, many times. */
  for (int rep = 0; rep < 20; rep++) {
    double dsum = 0;
    long prod_cnt = 0;
#pragma omp teams distribute parallel for num_teams(8) thread_limit(4) reduction(+ : dsum, prod_cnt)
    for (int i = 0; i < 4096; i++) {
      dsum += 0.5;
      prod_cnt += 1;
    }
    CHECK(dsum == 2048.0 && prod_cnt == 4096, "rep %d: dsum=%g cnt=%ld", rep, dsum, prod_cnt);
  }

  /* A teams region that ran short before (its league finished on the
   * launching thread without waking the sleeping workers), now with teams
   * that wait for each other: the workers must still join (they look for
   * jobs posted without a wake), and every team runs exactly once. */
  for (int round = 0; round < 3; round++)
    for (int wait_all = 0; wait_all < 2; wait_all++) {
      atomic_int here = 0, late = 0;
      int runs[4] = {0};
      run_league(wait_all, &here, &late, runs);
      for (int t = 0; t < 4; t++)
        CHECK(runs[t] == 1, "round %d wait_all %d: team %d ran %d times", round, wait_all, t,
              runs[t]);
      CHECK(atomic_load(&late) == 0, "round %d: %d teams waited 10 s for the others after a "
            "short run of the same region", round, atomic_load(&late));
    }

  /* Many short leagues back to back: each team exactly once per league. */
  int wrong_runs = 0;
  for (int k = 0; k < 2000; k++) {
    int runs[3] = {0};
#pragma omp teams num_teams(3)
    runs[omp_get_team_num()]++;
    wrong_runs += runs[0] != 1 || runs[1] != 1 || runs[2] != 1;
  }
  CHECK(wrong_runs == 0, "%d of 2000 short leagues did not run each team once", wrong_runs);

  /* Outside teams: one team. */
  CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0, "outside teams: %d/%d",
        omp_get_team_num(), omp_get_num_teams());
  CHECK_DONE();
}
