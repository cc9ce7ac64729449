/* teams: the number of teams asked for (within the caps), the threads of
 * their parallel regions, team numbers, that up to the CPUs teams run at the
 * same time and more run in turn on a bounded set of threads, distribute
 * schedules covering each iteration once, and league-wide reductions. */
#include <dirent.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <string.h>

#include "check.h"

#define N 100000

static double now(void) { return omp_get_wtime(); }

/* Threads of this process (/proc/self/task), -1 if unreadable. */
static int process_threads(void)
{
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* Teams of a league that run at once: min(num_teams, CPUs). */
static int at_once(int nteams)
{
  int procs = omp_get_num_procs();
  return nteams < procs ? nteams : procs;
}

/* The most threads a launch has: max(2 x CPUs, 16). */
static int budget(void)
{
  int b = 2 * omp_get_num_procs();
  return b > 16 ? b : 16;
}

/* Threads of a parallel region without num_threads in a team of a league
 * of nteams teams with thread_limit(limit): the limit where it is within
 * the budget (fewer teams run at once then), else the CPUs shared by the
 * teams that run at once, at least 1, at most the limit. */
static int team_width(int nteams, int limit)
{
  if (limit <= budget())
    return limit;
  int w = omp_get_num_procs() / at_once(nteams);
  w = w < 1 ? 1 : w;
  return w < limit ? w : limit;
}

/* A league of `n` teams of about `us` microseconds each (short teams);
 * team `release` sets *sleeping to 1 (the waiter went to sleep). Returns
 * the threads that ran its teams. */
#define HOLD_TEAMS 1000
static int hold_league(int n, double us, int release, _Atomic unsigned *sleeping)
{
  static long tid_of[HOLD_TEAMS];
#pragma omp teams num_teams(n)
  {
    int t = omp_get_team_num();
    tid_of[t] = syscall(SYS_gettid);
    if (t == release)
      atomic_store(sleeping, 1);
    double start = now();
    while (now() - start < us * 1e-6)
      ;
  }
  int threads = 0;
  for (int t = 0; t < n; t++) {
    int seen = 0;
    for (int u = 0; u < t && !seen; u++)
      seen = tid_of[u] == tid_of[t];
    threads += !seen;
  }
  return threads;
}

/* One teams region (one outlined function) run short (wait_all 0) and then
 * with every team waiting for all n (wait_all 1, at most 10 s); n teams
 * run at once (n <= CPUs). */
static void run_league(int n, int wait_all, atomic_int *here, atomic_int *late, int *runs)
{
#pragma omp teams num_teams(n)
  {
    runs[omp_get_team_num()]++;
    atomic_fetch_add(here, 1);
    if (wait_all) {
      double start = now();
      while (atomic_load(here) < n && now() - start < 10.0)
        ;
      if (atomic_load(here) < n)
        atomic_fetch_add(late, 1);
    }
  }
}

int main(void)
{
  int max_teams = getenv("SIMDEVICE_MAX_TEAMS") ? atoi(getenv("SIMDEVICE_MAX_TEAMS")) : 1024;

  /* num_teams(4) thread_limit(3): 4 teams, numbers 0..3, each parallel
   * region as wide as team_width says, or narrower where dyn-var found the
   * region too small to share (t_dynamic.c), the first run of it as wide. */
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
  int widest = 0;
  for (int t = 0; t < 4; t++) {
    CHECK(team_seen[t] == 1 && nteams[t] == 4 && limit[t] == 3 && par_n[t] >= 1 &&
              par_n[t] <= team_width(4, 3),
          "team %d: ran %d times, num_teams=%d thread_limit=%d parallel threads=%d", t,
          team_seen[t], nteams[t], limit[t], par_n[t]);
    widest = par_n[t] > widest ? par_n[t] : widest;
  }
  CHECK(widest == team_width(4, 3), "the widest team's parallel region: %d threads, want %d",
        widest, team_width(4, 3));

  /* Up to the CPUs, teams are concurrent: every team waits until all have
   * arrived. A runtime that ran teams one after the other would time out. */
  atomic_int arrived = 0;
  atomic_int timed_out = 0;
  int conc = at_once(6);
#pragma omp teams num_teams(conc)
  {
    atomic_fetch_add(&arrived, 1);
    double start = now();
    while (atomic_load(&arrived) < conc && now() - start < 10.0)
      ;
    if (atomic_load(&arrived) < conc)
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
      int n = at_once(4);
      run_league(n, wait_all, &here, &late, runs);
      for (int t = 0; t < n; t++)
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

  /* GPU-sized leagues: 1..256 teams of thread_limit(1024) (capped) run in
   * turn on at most budget() threads: the main thread and the pool's at
   * most budget() - 1 workers. Each team number once, each team's parallel
   * region as wide as team_width says, its threads all at its barrier at
   * once, every iteration once. */
  int most_threads = 0, bad_leagues = 0;
  for (int nt = 1; nt <= 256; nt += 15) {
    static int team_runs[256], iter_runs[4096];
    memset(team_runs, 0, sizeof(team_runs));
    memset(iter_runs, 0, sizeof(iter_runs));
    int reported = 0, bad_width = 0;
#pragma omp teams num_teams(nt) thread_limit(1024)
    {
      int t = omp_get_team_num();
      team_runs[t]++;
      if (t == 0)
        reported = omp_get_num_teams();
      atomic_int arrived_here = 0;
#pragma omp parallel
      {
        atomic_fetch_add(&arrived_here, 1);
#pragma omp barrier
        if (atomic_load(&arrived_here) != omp_get_num_threads() ||
            omp_get_thread_num() >= omp_get_num_threads() ||
            omp_get_num_threads() != team_width(nt, omp_get_thread_limit()))
          bad_width = 1;
      }
#pragma omp distribute parallel for
      for (int i = 0; i < 4096; i++) {
        iter_runs[i]++;
        if (i == 0) {
          int n = process_threads();
#pragma omp critical
          most_threads = n > most_threads ? n : most_threads;
        }
      }
    }
    int wrong = reported != nt || bad_width;
    for (int t = 0; t < nt; t++)
      wrong |= team_runs[t] != 1;
    for (int i = 0; i < 4096; i++)
      wrong |= iter_runs[i] != 1;
    bad_leagues += wrong;
  }
  CHECK(bad_leagues == 0, "%d GPU-sized leagues ran a team or an iteration not exactly once or "
        "reported the wrong team count or width", bad_leagues);
  CHECK(most_threads > 0 && most_threads <= budget(),
        "GPU-sized leagues: the process had %d threads with %d CPUs", most_threads,
        omp_get_num_procs());

  /* A league of short teams (its history says so) while the launch's
   * waiter spins: its CPU is the waiter's, so the league runs on the CPUs
   * left (one runner on 2 CPUs: two beside the spinning host made such
   * leagues slower). A held worker sleeps, but looks for its job every
   * 2 ms (pool.c), so a few of ten 0.2 ms leagues may get it; waking it at
   * once gave nearly all ten two threads. Once the waiter sleeps, the held
   * workers join; and teams that wait for each other still meet while it
   * spins (a GPU-style barrier across 2 teams; no worker joined before the
   * napping one could take its job). */
  if (omp_get_num_procs() >= 2) {
    _Atomic unsigned sleeping = 0;
    simdev_rt_set_launch_waiter(&sleeping);
    int cpus_left = omp_get_num_procs() - 1, wider = 0;
    hold_league(100, 2, -1, &sleeping); /* the region's history */
    for (int k = 0; k < 10; k++)
      wider += hold_league(100, 2, -1, &sleeping) > cpus_left;
    /* Under an emulator (tests/ppc64le/check.sh) a league lasts several
     * times longer, and the workers' naps find it more often. */
    const char *emulator = getenv("SIMTARGET_TEST_EMULATOR");
    CHECK(wider <= 5 || (emulator && *emulator),
          "%d of 10 leagues of 100 2-us teams beside a spinning waiter ran on more than %d "
          "threads (the CPUs but the waiter's)", wider, cpus_left);
    int released = hold_league(HOLD_TEAMS, 5, 100, &sleeping);
    CHECK(released > cpus_left,
          "a league of 1000 5-us teams whose waiter went to sleep at team 100 ran on %d "
          "threads: the held workers did not join", released);
    atomic_store(&sleeping, 0);
    for (int wait_all = 0; wait_all < 2; wait_all++) {
      atomic_int here = 0, late = 0;
      int runs[4] = {0};
      run_league(2, wait_all, &here, &late, runs);
      CHECK(atomic_load(&late) == 0, "beside a spinning waiter, %d of 2 teams waited 10 s for "
            "the other (wait_all %d)", atomic_load(&late), wait_all);
    }
    simdev_rt_set_launch_waiter(NULL);
  }

  /* Outside teams: one team. */
  CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0, "outside teams: %d/%d",
        omp_get_team_num(), omp_get_num_teams());
  CHECK_DONE();
}
