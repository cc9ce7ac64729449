// `target enter data` twice (an init called from two places), `exit data`
// once: the count stays at 1, the `from` copies nothing, and the results
// are still on the device when the program ends.
// stale-expect: mapped-at-exit field[0:1024] 1
#include <stdio.h>

#define N 1024
static int field[N];

static void setup(void) {
#pragma omp target enter data map(to: field[0:N])
}

int main(void) {
  setup();
  setup(); /* mapped again: the count is 2 */
#pragma omp target teams distribute parallel for
  for (int i = 0; i < N; i++)
    field[i] = i + 1;
#pragma omp target exit data map(from: field[0:N])
  long s = 0;
  for (int i = 0; i < N; i++)
    s += field[i];
  printf("sum %ld\n", s);
  return 0;
}
