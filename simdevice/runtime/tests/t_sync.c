/* synchronisation: critical (unnamed, named, with hint), atomic, barrier,
 * single (once per construct, also nowait), master, masked, copyprivate,
 * reductions of many types with many threads, omp locks and nest locks. */
#include <complex.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"

#define T 8

int main(void)
{
  /* A region asks for T threads and gets min(T, max(2 x CPUs, 16)): the
   * pool has at most that - 1 workers. The checks below count with what it
   * got. */
  int nt = 0;
#pragma omp parallel num_threads(T)
  {
#pragma omp master
    nt = omp_get_num_threads();
  }
  int most = 2 * omp_get_num_procs() > 16 ? 2 * omp_get_num_procs() : 16;
  CHECK(nt == (T < most ? T : most), "num_threads(%d) gave %d threads with %d CPUs", T, nt,
        omp_get_num_procs());

  /* critical: a non-atomic read-modify-write with a yield inside. */
  long plain = 0, named = 0;
#pragma omp parallel num_threads(T)
  {
    for (int k = 0; k < 2000; k++) {
#pragma omp critical
      {
        long v = plain;
        if (k % 100 == 0)
          sched_yield();
        plain = v + 1;
      }
#pragma omp critical(other) hint(1)
      named += 2;
    }
  }
  CHECK(plain == nt * 2000 && named == 2 * nt * 2000, "critical: %ld %ld", plain, named);

  /* atomic */
  int at = 0;
#pragma omp parallel num_threads(T)
  for (int k = 0; k < 1000; k++) {
#pragma omp atomic
    at++;
  }
  CHECK(at == nt * 1000, "atomic int: %d", at);

  /* atomic on long double and _Complex double: clang emits the generic
   * __atomic_* library calls for these, which the runtime provides. */
  long double ld = 0;
  double _Complex cz = 0;
#pragma omp parallel num_threads(T)
  for (int k = 0; k < 500; k++) {
#pragma omp atomic
    ld += 0.5L;
#pragma omp atomic
    cz += 1.0 + 3.0 * I;
  }
  CHECK(ld == nt * 250.0L && creal(cz) == nt * 500.0 && cimag(cz) == nt * 1500.0,
        "atomic long double %Lg, complex (%g,%g)", ld, creal(cz), cimag(cz));

  /* barrier: no thread passes phase p before all finished phase p. */
  atomic_int phase_count[5] = {0};
  int early = 0;
#pragma omp parallel num_threads(T)
  {
    for (int p = 0; p < 5; p++) {
      atomic_fetch_add(&phase_count[p], 1);
#pragma omp barrier
      if (atomic_load(&phase_count[p]) != nt) {
#pragma omp atomic
        early++;
      }
#pragma omp barrier
    }
  }
  CHECK(early == 0, "%d threads left a barrier early", early);

  /* single: once per construct, with and without nowait, 50 of each. */
  int singles = 0, singles_nowait = 0;
#pragma omp parallel num_threads(T)
  {
    for (int k = 0; k < 50; k++) {
#pragma omp single
      singles++;
#pragma omp single nowait
      {
#pragma omp atomic
        singles_nowait++;
      }
    }
  }
  CHECK(singles == 50 && singles_nowait == 50, "single ran %d and %d times (want 50)", singles,
        singles_nowait);

  /* master and masked. */
  int master_runs = 0, master_id = -1, masked_id = -1;
#pragma omp parallel num_threads(T)
  {
#pragma omp master
    {
      master_runs++;
      master_id = omp_get_thread_num();
    }
#pragma omp masked filter(3)
    masked_id = omp_get_thread_num();
  }
  CHECK(master_runs == 1 && master_id == 0 && masked_id == (nt > 3 ? 3 : -1), "master %d/%d masked %d",
        master_runs, master_id, masked_id);

  /* copyprivate: every thread gets the single thread's value. */
  int got_bad = 0;
#pragma omp parallel num_threads(T)
  {
    int x = -1;
    double y = 0;
#pragma omp single copyprivate(x, y)
    {
      x = 1234;
      y = 2.5;
    }
    if (x != 1234 || y != 2.5) {
#pragma omp atomic
      got_bad++;
    }
  }
  CHECK(got_bad == 0, "%d threads missed the copyprivate values", got_bad);

  /* Reductions of several types and operators, repeated. */
  for (int rep = 0; rep < 10; rep++) {
    long double rld = 0;
    double _Complex rc = 0;
    long rprod = 1;
    int rmax = -1, rmin = 1 << 30;
    unsigned rand_bits = 0;
#pragma omp parallel for num_threads(T) reduction(+ : rld, rc) reduction(* : rprod)             \
    reduction(max : rmax) reduction(min : rmin) reduction(| : rand_bits)
    for (int i = 0; i < 1000; i++) {
      rld += 0.25L;
      rc += 1.0 + 2.0 * I;
      if (i % 100 == 0)
        rprod *= 2;
      rmax = i > rmax ? i : rmax;
      rmin = i < rmin ? i : rmin;
      rand_bits |= 1u << (i % 32);
    }
    CHECK(rld == 250.0L && creal(rc) == 1000.0 && cimag(rc) == 2000.0 && rprod == 1024 &&
              rmax == 999 && rmin == 0 && rand_bits == 0xffffffffu,
          "rep %d: %Lg (%g,%g) %ld %d %d %x", rep, rld, creal(rc), cimag(rc), rprod, rmax, rmin,
          rand_bits);
  }

  /* Reduction with a blocking (non-nowait) end: parallel + for. */
  long r2 = 0;
#pragma omp parallel num_threads(T)
  {
#pragma omp for reduction(+ : r2)
    for (int i = 0; i < 100; i++)
      r2 += i;
    /* after the construct's barrier every thread sees the total */
    if (r2 != 4950) {
#pragma omp atomic
      got_bad++;
    }
  }
  CHECK(r2 == 4950 && got_bad == 0, "for reduction: %ld, %d threads saw a partial value", r2,
        got_bad);

  /* omp locks. */
  omp_lock_t lock;
  omp_init_lock(&lock);
  long locked_sum = 0;
  int tests_ok = 0;
#pragma omp parallel num_threads(T)
  {
    for (int k = 0; k < 1000; k++) {
      omp_set_lock(&lock);
      locked_sum++;
      omp_unset_lock(&lock);
    }
    while (!omp_test_lock(&lock))
      ;
    tests_ok++;
    omp_unset_lock(&lock);
  }
  CHECK(omp_test_lock(&lock) == 1, "free lock could not be taken");
  CHECK(omp_test_lock(&lock) == 0, "held lock was taken again");
  omp_unset_lock(&lock);
  omp_destroy_lock(&lock);
  CHECK(locked_sum == nt * 1000 && tests_ok == nt, "locks: %ld %d", locked_sum, tests_ok);

  omp_nest_lock_t nl;
  omp_init_nest_lock(&nl);
  long nested_sum = 0;
  int depth_bad = 0;
#pragma omp parallel num_threads(T)
  {
    for (int k = 0; k < 200; k++) {
      omp_set_nest_lock(&nl);
      int d = omp_test_nest_lock(&nl); /* owner: depth 2 */
      if (d != 2)
        depth_bad++;
      nested_sum++;
      omp_unset_nest_lock(&nl);
      omp_unset_nest_lock(&nl);
    }
  }
  omp_destroy_nest_lock(&nl);
  CHECK(nested_sum == nt * 200 && depth_bad == 0, "nest lock: %ld, %d bad depths", nested_sum,
        depth_bad);
  CHECK_DONE();
}
