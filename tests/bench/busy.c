/*
 * busy.c - a process that keeps one CPU busy (a loop that never sleeps)
 * for tests/bench/loaded.sh, which runs the benchmarks beside N of these on
 * the same CPUs, as a CI machine running tests in parallel (`make -j`,
 * `ctest -j`, lit) does. Ends on SIGTERM, or by itself after the seconds
 * given (default 600), so a benchmark that dies leaves nothing spinning.
 */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  long seconds = argc > 1 ? atol(argv[1]) : 600;
  time_t end = time(NULL) + (seconds > 0 ? seconds : 600);
  volatile unsigned long spins = 0;
  while (time(NULL) < end)
    for (int i = 0; i < 1000000; i++)
      spins++;
  return 0;
}
