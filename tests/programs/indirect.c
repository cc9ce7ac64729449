/* indirect.c - declare target indirect: a host function pointer called
 * inside a target region.
 * versions: 14 15 16 19 22
 * cflags: -fopenmp-version=51
 * expect: both functions are reachable through the pointer the host passes
 * (clang 13 rejects the indirect clause). */
#include <omp.h>
#include "check.h"

int add_one(int x) { return x + 1; }
int times_three(int x) { return x * 3; }
#pragma omp declare target to(add_one, times_three) indirect

/* Chosen at run time so the compiler cannot fold the call. */
static int (*pick(int which))(int) { return which ? add_one : times_three; }

int main(int argc, char **argv) {
  (void)argv;
  int (*fn)(int) = pick(argc > 5);
  int r = 0, on_host = -1;
#pragma omp target map(from : r, on_host)
  {
    r = fn(7);
    on_host = omp_is_initial_device();
  }
  CHECK_EQ(r, 21);
  CHECK_EQ(on_host, 0);
  fn = pick(argc < 5);
#pragma omp target map(from : r)
  r = fn(7);
  CHECK_EQ(r, 8);
  return check_finish();
}
