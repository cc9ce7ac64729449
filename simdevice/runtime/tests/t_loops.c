/* worksharing loops: static, chunked, dynamic, guided, runtime, auto for
 * signed/unsigned 32/64-bit induction variables, negative steps, nowait
 * loops back to back (more than the dispatch slots), lastprivate, ordered
 * and collapse. Every iteration must run exactly once. */
#include <stdatomic.h>
#include <string.h>

#include "check.h"

#define N 1003
static atomic_int hits[N];

static void reset(void) { memset(hits, 0, sizeof(hits)); }
static int wrong_hits(void)
{
  int w = 0;
  for (int i = 0; i < N; i++)
    w += atomic_load(&hits[i]) != 1;
  return w;
}

#define DO_PRAGMA(...) _Pragma(#__VA_ARGS__)
#define LOOP_TEST(T, ...)                                                                          \
  do {                                                                                            \
    const char *SCHED = #__VA_ARGS__;                                                             \
    reset();                                                                                      \
    T lastv = 0;                                                                                  \
    DO_PRAGMA(omp parallel for num_threads(4) lastprivate(lastv) __VA_ARGS__)                     \
    for (T i = 0; i < (T)N; i++) {                                                                \
      atomic_fetch_add(&hits[i], 1);                                                              \
      lastv = i;                                                                                  \
    }                                                                                             \
    CHECK(wrong_hits() == 0 && lastv == (T)(N - 1), "%s %s: %d wrong, last=%lld", SCHED, #T,     \
          wrong_hits(), (long long)lastv);                                                        \
  } while (0)

#define ALL_TYPES(...)                                                                             \
  LOOP_TEST(int, __VA_ARGS__);                                                                    \
  LOOP_TEST(unsigned, __VA_ARGS__);                                                               \
  LOOP_TEST(long, __VA_ARGS__);                                                                   \
  LOOP_TEST(unsigned long, __VA_ARGS__)

int main(void)
{
  ALL_TYPES(schedule(static));
  ALL_TYPES(schedule(static, 7));
  ALL_TYPES(schedule(dynamic));
  ALL_TYPES(schedule(dynamic, 5));
  ALL_TYPES(schedule(guided));
  ALL_TYPES(schedule(guided, 3));
  ALL_TYPES(schedule(runtime));
  ALL_TYPES(schedule(auto));
  ALL_TYPES(schedule(nonmonotonic: dynamic, 2));

  /* Negative step, 64-bit, dynamic. */
  reset();
#pragma omp parallel for num_threads(3) schedule(dynamic, 4)
  for (long i = N - 1; i >= 0; i -= 1)
    atomic_fetch_add(&hits[i], 1);
  CHECK(wrong_hits() == 0, "negative step dynamic: %d wrong", wrong_hits());

  /* Step 3 with static chunks. */
  reset();
#pragma omp parallel for num_threads(4) schedule(static, 2)
  for (int i = 0; i < N; i += 3)
    atomic_fetch_add(&hits[i], 1);
  int w = 0;
  for (int i = 0; i < N; i++)
    w += atomic_load(&hits[i]) != (i % 3 == 0);
  CHECK(w == 0, "step 3: %d wrong", w);

  /* Empty loop. */
  int ran = 0, lo = 5, hi = 2;
#pragma omp parallel for num_threads(4) schedule(dynamic)
  for (int i = lo; i < hi; i++)
    ran++;
  CHECK(ran == 0, "empty loop ran %d iterations", ran);

  /* 20 dynamic nowait loops in a row: more than the dispatch slots, and a
   * fast thread runs ahead into later loops. */
  static atomic_int multi[20][64];
  memset(multi, 0, sizeof(multi));
#pragma omp parallel num_threads(4)
  {
    for (int l = 0; l < 20; l++) {
#pragma omp for schedule(dynamic, 1) nowait
      for (int i = 0; i < 64; i++)
        atomic_fetch_add(&multi[l][i], 1);
    }
  }
  w = 0;
  for (int l = 0; l < 20; l++)
    for (int i = 0; i < 64; i++)
      w += atomic_load(&multi[l][i]) != 1;
  CHECK(w == 0, "nowait dynamic loops: %d wrong", w);

  /* ordered: the ordered parts run in iteration order. */
  int order[200], pos = 0;
#pragma omp parallel for num_threads(4) ordered schedule(dynamic, 3)
  for (int i = 0; i < 200; i++) {
#pragma omp ordered
    order[pos++] = i;
  }
  w = pos != 200;
  for (int i = 0; i < pos; i++)
    w += order[i] != i;
  CHECK(w == 0, "ordered dynamic: %d out of order (pos=%d)", w, pos);

  /* ordered with some iterations skipping their ordered region. */
  pos = 0;
#pragma omp parallel for num_threads(3) ordered schedule(static, 2)
  for (int i = 0; i < 100; i++) {
    if (i % 3 != 1) {
#pragma omp ordered
      order[pos++] = i;
    }
  }
  w = 0;
  for (int i = 1; i < pos; i++)
    w += order[i] <= order[i - 1];
  CHECK(w == 0 && pos == 67, "ordered with skips: %d out of order, pos=%d", w, pos);

  /* collapse(2). */
  static atomic_int grid[30][40];
  memset(grid, 0, sizeof(grid));
#pragma omp parallel for collapse(2) num_threads(4) schedule(guided)
  for (int i = 0; i < 30; i++)
    for (int j = 0; j < 40; j++)
      atomic_fetch_add(&grid[i][j], 1);
  w = 0;
  for (int i = 0; i < 30; i++)
    for (int j = 0; j < 40; j++)
      w += atomic_load(&grid[i][j]) != 1;
  CHECK(w == 0, "collapse(2): %d wrong", w);

  /* static schedule is the balanced split: thread t gets a contiguous block. */
  int who[16];
#pragma omp parallel for num_threads(4) schedule(static)
  for (int i = 0; i < 16; i++)
    who[i] = omp_get_thread_num();
  w = 0;
  for (int i = 0; i < 16; i++)
    w += who[i] != i / 4;
  CHECK(w == 0, "schedule(static) blocks: %d iterations on the wrong thread", w);
  CHECK_DONE();
}
