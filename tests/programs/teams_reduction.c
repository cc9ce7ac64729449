/* teams_reduction.c - target teams distribute parallel for with a reduction
 * and num_teams/thread_limit clauses.
 * expect: the sum is exact, the region ran on the device, and the team and
 * thread counts honour the clauses (never more than asked, at least one). */
#include <omp.h>
#include "check.h"

#define N 100000
static long long values[N];

int main(void) {
  for (int i = 0; i < N; i++) values[i] = i % 97;
  long long want = 0;
  for (int i = 0; i < N; i++) want += values[i];

  long long sum = 0;
  int on_host = -1;
#pragma omp target teams distribute parallel for reduction(+ : sum) \
    num_teams(4) thread_limit(16) map(to : values[0:N]) map(from : on_host)
  for (int i = 0; i < N; i++) {
    sum += values[i];
    if (i == 0) on_host = omp_is_initial_device();
  }
  CHECK_EQ(sum, want);
  CHECK_EQ(on_host, 0);

  /* What the device reports about its league and teams. Each team marks
   * its own slot, so no atomics are needed in the teams region. */
  int num_teams = -1, team_threads = -1;
  int teams_seen[8] = {0};
#pragma omp target teams num_teams(3) thread_limit(8) \
    map(tofrom : num_teams, team_threads, teams_seen)
  {
    int team = omp_get_team_num();
    if (team >= 0 && team < 8) teams_seen[team] = 1;
#pragma omp parallel
    {
      if (team == 0 && omp_get_thread_num() == 0) {
        num_teams = omp_get_num_teams();
        team_threads = omp_get_num_threads();
      }
    }
  }
  printf("num_teams=%d threads_in_team0=%d\n", num_teams, team_threads);
  CHECK(num_teams >= 1 && num_teams <= 3);
  CHECK(team_threads >= 1 && team_threads <= 8);
  int teams_marked = 0;
  for (int t = 0; t < 8; t++) teams_marked += teams_seen[t];
  CHECK_EQ(teams_marked, num_teams);

  /* Results only the device could have produced: the host array is left
   * untouched and the squares come back through map(from). */
  static long long squares[N];
#pragma omp target teams distribute parallel for num_teams(2) \
    map(to : values[0:N]) map(from : squares[0:N])
  for (int i = 0; i < N; i++) squares[i] = values[i] * values[i];
  for (int i = 0; i < N; i += 997) CHECK_EQ(squares[i], values[i] * values[i]);
  return check_finish();
}
