/* teams_gpu_sized.c - the launch shape GPU test suites use: `target teams
 * distribute parallel for num_teams(T) thread_limit(L)` for T = 1..256 and
 * L = 32..1024 over a few thousand elements, back to back. A runtime that
 * gives every team its own OS thread and every team's parallel region L
 * threads made thousands of threads per launch and stalled the machine.
 * Each kernel counts the threads of the process it runs in (the device
 * process; /proc/self/task) and the CPUs it may use (sched_getaffinity);
 * the program stops at the first launch with too many threads so that a
 * runtime that explodes fails fast instead of stalling the machine.
 * expect: every sum is exact; each league reports 1..T teams whose numbers
 * 0..n-1 each run exactly once; a team's parallel region has 1..L threads
 * whose numbers are distinct; and no launch adds more than the thread
 * budget, max(2 x CPUs, 16), to the process's threads of a plain target
 * region (an explicit thread_limit within it is honoured, so 2 x CPUs
 * alone is not the bound). */
#define _GNU_SOURCE
#include <dirent.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

#define N 4096
#define MAX_T 256
#define MAX_L 1024

static double values[N];

#pragma omp declare target
/* Entries of /proc/self/task (the threads of the calling process), -1 if
 * it cannot be read. */
static int process_threads(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

static int usable_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
  return CPU_COUNT(&set);
}
#pragma omp end declare target

/* The league of one (T, L) launch: team count, each team number's runs,
 * each team's parallel size and whether its thread numbers were distinct.
 * 0 when it is as the specification allows. */
static int check_league(int T, int L) {
  static int runs[MAX_T], par_threads[MAX_T], par_ok[MAX_T];
  int nteams = -1;
  memset(runs, 0, sizeof(runs));
#pragma omp target teams num_teams(T) thread_limit(L) \
    map(tofrom : runs[0:MAX_T], par_threads[0:MAX_T], par_ok[0:MAX_T], nteams)
  {
    int t = omp_get_team_num();
    if (t == 0) nteams = omp_get_num_teams();
    if (t >= 0 && t < MAX_T) {
      runs[t]++; /* each team writes only its own slot */
      int seen[MAX_L];
      memset(seen, 0, sizeof(seen));
      int n = 0;
#pragma omp parallel shared(seen, n)
      {
        int id = omp_get_thread_num();
#pragma omp master
        n = omp_get_num_threads();
        if (id >= 0 && id < MAX_L) {
#pragma omp atomic
          seen[id]++;
        }
      }
      int ok = n >= 1 && n <= L;
      for (int i = 0; ok && i < n; i++) ok = seen[i] == 1;
      par_threads[t] = n;
      par_ok[t] = ok;
    }
  }
  if (nteams < 1 || nteams > T) {
    printf("T=%d L=%d: omp_get_num_teams() = %d\n", T, L, nteams);
    return 1;
  }
  for (int t = 0; t < nteams; t++)
    if (runs[t] != 1 || !par_ok[t]) {
      printf("T=%d L=%d: team %d ran %d times, its parallel region had %d threads%s\n", T, L,
             t, runs[t], par_threads[t], par_ok[t] ? "" : " (bad count or thread numbers)");
      return 1;
    }
  return 0;
}

int main(void) {
  double want = 0;
  for (int i = 0; i < N; i++) {
    values[i] = (double)(i % 13);
    want += values[i];
  }
  int base = -1, cpus = -1;
#pragma omp target map(from : base, cpus)
  {
    base = process_threads();
    cpus = usable_cpus();
  }
  CHECK(base > 0 && cpus > 0);
  if (base <= 0 || cpus <= 0) return check_finish();
  /* The plain region's thread counts as one of the launch's threads. */
  int most = base - 1 + (2 * cpus > 16 ? 2 * cpus : 16);

  int worst = 0, launches = 0, bad_sums = 0, bad_leagues = 0;
#pragma omp target enter data map(to : values[0:N])
  for (int L = 32; L <= MAX_L && worst <= most; L *= 2)
    for (int T = 1; T <= MAX_T && worst <= most; T++) {
      double sum = 0;
      int threads = -1;
#pragma omp target teams distribute parallel for num_teams(T) thread_limit(L) \
    reduction(+ : sum) map(tofrom : threads)
      for (int i = 0; i < N; i++) {
        sum += values[i];
        if (i == 0) threads = process_threads();
      }
      launches++;
      if (threads > worst) worst = threads;
      if (sum != want && bad_sums++ < 5)
        printf("T=%d L=%d: sum %g, expected %g\n", T, L, sum, want);
      if ((T % 17 == 1 || T == MAX_T) && check_league(T, L)) bad_leagues++;
    }
#pragma omp target exit data map(delete : values[0:N])
  printf("%d launches, %d CPUs, %d threads in a plain region, at most %d in a launch "
         "(limit %d)\n",
         launches, cpus, base, worst, most);
  CHECK(worst <= most);
  CHECK_EQ(launches, 6 * MAX_T);
  CHECK_EQ(bad_sums, 0);
  CHECK_EQ(bad_leagues, 0);
  return check_finish();
}
