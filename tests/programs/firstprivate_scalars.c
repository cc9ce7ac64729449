/* firstprivate_scalars.c - scalars smaller than a pointer passed by value
 * (int, short, char, float firstprivate: clang writes them into the low
 * bytes of a pointer-sized argument slot and leaves the rest unset) reach
 * the kernel with their values; the runtime reads only the bytes the value
 * has (tests/valgrind.sh runs this under memcheck: no uninitialised read).
 * cflags: -O0
 * (At -O0 clang leaves the slot's upper bytes unset; at -O1 and above it
 * widens the value.)
 * expect: every kernel sees each scalar's value, negative ones too, over
 * repeated launches with changing values. */
#include "check.h"

static int run(int i, short s, signed char c, unsigned u, float f) {
  int ok = 0;
#pragma omp target firstprivate(i, s, c, u, f) map(from : ok)
  ok = i == -7 * s && c == (signed char)(s - 1) && u == (unsigned)i * 3u &&
       f == (float)s * 0.5f;
  return ok;
}

int main(void) {
  int good = 0, rounds = 20;
  for (int r = 1; r <= rounds; r++) {
    short s = (short)(r % 2 ? r : -r);
    int i = -7 * s;
    good += run(i, s, (signed char)(s - 1), (unsigned)i * 3u, (float)s * 0.5f);
  }
  CHECK_EQ(good, rounds);
  int total = 0;
#pragma omp target teams distribute parallel for reduction(+ : total) firstprivate(rounds)
  for (int k = 0; k < 100; k++)
    total += rounds;
  CHECK_EQ(total, 100 * rounds);
  return check_finish();
}
