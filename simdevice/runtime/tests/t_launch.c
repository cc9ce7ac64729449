/* The private launch API (simdev_rt.h): simdev_call's argument passing and
 * stack alignment for 0..256 arguments, its range check, kernel_begin/end
 * with num_teams/thread_limit and the caps, deferred tasks completed by
 * kernel_end, and launches running at once on several threads without
 * mixing their state. Built -O0 -fno-omit-frame-pointer. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "../simdev_rt.h"
#include "check.h"

static uint64_t got[SIMDEV_MAX_ARGS];
static int got_n;
static int misaligned;

static void note_frame(void)
{
  /* With frame pointers, rbp is 16-byte aligned iff rsp was at the call. */
  if (((uintptr_t)__builtin_frame_address(1) & 15) != 0)
    misaligned++;
}

static void f0(void) { got_n = 0; note_frame(); }
static void f1(uint64_t a) { got[0] = a; got_n = 1; note_frame(); }
static void f6(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
  uint64_t v[] = {a, b, c, d, e, f};
  memcpy(got, v, sizeof(v));
  got_n = 6;
  note_frame();
}
static void f7(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f, uint64_t g)
{
  uint64_t v[] = {a, b, c, d, e, f, g};
  memcpy(got, v, sizeof(v));
  got_n = 7;
  note_frame();
}
static void f8(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f, uint64_t g,
               uint64_t h)
{
  uint64_t v[] = {a, b, c, d, e, f, g, h};
  memcpy(got, v, sizeof(v));
  got_n = 8;
  note_frame();
}

/* 256 parameters: p0..p255. */
#define P4(n) uint64_t p##n##0, uint64_t p##n##1, uint64_t p##n##2, uint64_t p##n##3
#define P16(n) P4(n##0), P4(n##1), P4(n##2), P4(n##3)
#define A4(n) p##n##0, p##n##1, p##n##2, p##n##3
#define A16(n) A4(n##0), A4(n##1), A4(n##2), A4(n##3)
static void f256(P16(0), P16(1), P16(2), P16(3), P16(4), P16(5), P16(6), P16(7), P16(8), P16(9),
                 P16(a), P16(b), P16(c), P16(d), P16(e), P16(f))
{
  uint64_t v[] = {A16(0), A16(1), A16(2), A16(3), A16(4), A16(5), A16(6), A16(7), A16(8), A16(9),
                  A16(a), A16(b), A16(c), A16(d), A16(e), A16(f)};
  memcpy(got, v, sizeof(v));
  got_n = 256;
  note_frame();
}

static int args_match(int n, const uint64_t *want)
{
  if (got_n != n)
    return 0;
  for (int i = 0; i < n; i++)
    if (got[i] != want[i])
      return 0;
  return 1;
}

/* A "kernel": what clang emits for target teams is a function that forks
 * teams; here the teams construct has no clauses, so the launch's values
 * apply. */
static int k_teams, k_threads, k_limit;
static void kernel_teams(uint64_t *out)
{
#pragma omp teams
  {
    if (omp_get_team_num() == 0) {
      k_teams = omp_get_num_teams();
      k_limit = omp_get_thread_limit();
#pragma omp parallel
      {
#pragma omp master
        k_threads = omp_get_num_threads();
      }
    }
  }
  *out = 42;
}

static atomic_int deferred_done;
static void kernel_tasks(void)
{
  for (int i = 0; i < 20; i++) {
#pragma omp task
    atomic_fetch_add(&deferred_done, 1);
  }
}

/* As t_teams.c's: an explicit limit within max(2 x CPUs, 16) threads is
 * the width, else the CPUs shared by the teams at once. */
static int team_width(int nteams, int limit)
{
  int procs = omp_get_num_procs();
  if (limit <= (2 * procs > 16 ? 2 * procs : 16))
    return limit;
  int w = procs / (nteams < procs ? nteams : procs);
  w = w < 1 ? 1 : w;
  return w < limit ? w : limit;
}

struct launcher {
  int id;
  int errors;
};

static void kernel_sum(long *sum, int *nteams)
{
  long s = 0;
#pragma omp teams distribute parallel for reduction(+ : s)
  for (int i = 0; i < 1000; i++)
    s += i;
  *sum = s;
#pragma omp teams
  {
    if (omp_get_team_num() == 0)
      *nteams = omp_get_num_teams();
  }
}

static void *launcher_main(void *p)
{
  struct launcher *l = p;
  for (int r = 0; r < 40; r++) {
    long sum = -1;
    int nteams = -1;
    uint64_t args[2] = {(uint64_t)(uintptr_t)&sum, (uint64_t)(uintptr_t)&nteams};
    int want_teams = 1 + (l->id + r) % 5;
    if (simdev_rt_kernel_begin(want_teams, 2) != 0 || simdev_call((void *)kernel_sum, 2, args) != 0)
      l->errors++;
    simdev_rt_kernel_end();
    if (sum != 499500 || nteams != want_teams)
      l->errors++;
  }
  return NULL;
}

int main(void)
{
  /* Caps from the environment, read at the first use. */
  setenv("SIMDEVICE_MAX_TEAMS", "5", 1);
  setenv("SIMDEVICE_MAX_THREADS", "3", 1);
  int32_t mt = 0, mth = 0;
  simdev_rt_limits(&mt, &mth);
  CHECK(mt == 5 && mth == 3, "limits %d %d, want 5 3", mt, mth);

  uint64_t vals[SIMDEV_MAX_ARGS];
  for (int i = 0; i < SIMDEV_MAX_ARGS; i++)
    vals[i] = 0x1000000000000000ull * (uint64_t)(i % 15) + (uint64_t)i * 7919u + 1;

  CHECK(simdev_call((void *)f0, 0, vals) == 0 && args_match(0, vals), "0 args");
  CHECK(simdev_call((void *)f1, 1, vals) == 0 && args_match(1, vals), "1 arg");
  CHECK(simdev_call((void *)f6, 6, vals) == 0 && args_match(6, vals), "6 args");
  CHECK(simdev_call((void *)f7, 7, vals) == 0 && args_match(7, vals), "7 args (1 on stack)");
  CHECK(simdev_call((void *)f8, 8, vals) == 0 && args_match(8, vals), "8 args (2 on stack)");
  CHECK(simdev_call((void *)f256, 256, vals) == 0 && args_match(256, vals), "256 args");
  CHECK(misaligned == 0, "%d calls had a misaligned stack", misaligned);
  got_n = -5;
  CHECK(simdev_call((void *)f0, -1, vals) == -1 && got_n == -5, "nargs -1 must be refused");
  CHECK(simdev_call((void *)f256, 257, vals) == -1 && got_n == -5, "nargs 257 must be refused");

  /* Launch values within caps; over the caps they are clamped. */
  uint64_t out = 0;
  uint64_t a[1] = {(uint64_t)(uintptr_t)&out};
  CHECK(simdev_rt_kernel_begin(4, 2) == 0, "kernel_begin");
  CHECK(simdev_rt_kernel_begin(4, 2) == -1, "a second kernel_begin on one thread must fail");
  simdev_call((void *)kernel_teams, 1, a);
  simdev_rt_kernel_end();
  /* A team's parallel region gets the CPUs shared among the teams that run
   * at once (min(teams, CPUs)), at least 1, at most the thread limit. */
  CHECK(out == 42 && k_teams == 4 && k_threads == team_width(4, 2) && k_limit == 2,
        "launch(4,2): out=%lu teams=%d threads=%d limit=%d", (unsigned long)out, k_teams,
        k_threads, k_limit);
  /* The region's second run: dyn-var would narrow it, too small to share
   * (adaptive_width.c; it did on a 2-CPU VM in every run), so it is off
   * for this launch, whose width then is the clamped limit's. */
  int dynamic = omp_get_dynamic();
  omp_set_dynamic(0);
  simdev_rt_kernel_begin(100, 100);
  simdev_call((void *)kernel_teams, 1, a);
  simdev_rt_kernel_end();
  omp_set_dynamic(dynamic);
  CHECK(k_teams == 5 && k_threads == team_width(5, 3) && k_limit == 3, "launch(100,100): teams=%d threads=%d limit=%d",
        k_teams, k_threads, k_limit);

  /* Tasks a kernel defers at its top level complete by kernel_end. */
  simdev_rt_kernel_begin(0, 0);
  simdev_call((void *)kernel_tasks, 0, NULL);
  simdev_rt_kernel_end();
  CHECK(atomic_load(&deferred_done) == 20, "kernel_end left %d of 20 tasks undone",
        atomic_load(&deferred_done));

  /* Four launches at once on four threads, 40 each. */
  pthread_t th[4];
  struct launcher ls[4];
  for (int i = 0; i < 4; i++) {
    ls[i].id = i;
    ls[i].errors = 0;
    pthread_create(&th[i], NULL, launcher_main, &ls[i]);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    CHECK(ls[i].errors == 0, "launcher %d: %d wrong launches", i, ls[i].errors);
  }
  CHECK_DONE();
}
