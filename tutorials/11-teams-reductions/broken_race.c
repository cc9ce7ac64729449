/* 11-teams-reductions/broken_race.c - threads updating one shared counter
 * without a reduction.
 * info: 0x01
 * expect-exit: 1
 * expect: ^count = 1 \(want 8, one per thread\)$
 * Every thread reads the shared `count`, then writes back what it read plus
 * one. That is a data race: two threads that read the same old value lose
 * one of the two updates. The barrier between the read and the write makes
 * the worst case certain (every thread reads 0), so the run always shows
 * it; without it the total would only sometimes be too small. No runtime
 * reports a race. The fix: `reduction(+ : count)` with count += 1, as in
 * program.c's sum. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int count = 0, threads = 0;
#pragma omp target teams num_teams(1) thread_limit(8) map(tofrom : count, threads)
#pragma omp parallel num_threads(8)
  {
    int old = count;
#pragma omp barrier
    count = old + 1;
#pragma omp master
    threads = omp_get_num_threads();
  }
  printf("count = %d (want %d, one per thread)\n", count, threads);
  printf("%s\n", count == threads ? "PASS" : "FAIL");
  return count != threads;
}
