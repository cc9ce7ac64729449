/* 11-teams-reductions/program.c - teams, threads and a reduction.
 * info: 0x01
 * num_teams(4) thread_limit(8) asks for up to 4 teams of up to 8 threads;
 * the program records what it got. `distribute` shares the iterations
 * among teams, `parallel for` among each team's threads, and
 * reduction(+ : sum) gives every thread its own sum, added together at the
 * end. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int teams = 0, threads = 0;
#pragma omp target teams num_teams(4) thread_limit(8) map(from : teams, threads)
#pragma omp parallel
  if (omp_get_team_num() == 0 && omp_get_thread_num() == 0) {
    teams = omp_get_num_teams();
    threads = omp_get_num_threads();
  }
  printf("asked num_teams(4) thread_limit(8): got %d teams of %d threads\n",
         teams, threads);

  int n = 100000;
  long sum = 0;
#pragma omp target teams distribute parallel for num_teams(4) thread_limit(8) \
    reduction(+ : sum) map(tofrom : sum)
  for (int i = 1; i <= n; i++) sum += i;
  printf("sum 1..%d = %ld (5000050000)\n", n, sum);
  int ok = teams >= 1 && teams <= 4 && threads >= 1 && threads <= 8 &&
           sum == 5000050000L;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return !ok;
}
