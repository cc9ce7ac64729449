/* teams_reduction_kinds.c - reductions of every kind a compiler emits an
 * atomic form of (or a critical section, for a user-defined one), combined
 * across many teams and across the threads of a team: the device runtime
 * may answer a combine with its lock or with atomics, and each answer runs
 * the compiler's own code for it.
 * expect: every result equals the host's, for + * max min && || ^ & on
 * int, long long, float and double, and for a `declare reduction` on a
 * struct, with 1024 teams of one thread and with 4 teams of 4 threads,
 * 20 times each.
 * (No long double: its atomic form calls libatomic on the host, which a
 * program then has to link.) */
#include <omp.h>
#include "check.h"

#define N 4096
#define ROUNDS 20

struct span {
  long long lo, hi;
};

#pragma omp declare reduction(widen : struct span : \
    omp_out.lo = omp_in.lo < omp_out.lo ? omp_in.lo : omp_out.lo, \
    omp_out.hi = omp_in.hi > omp_out.hi ? omp_in.hi : omp_out.hi) \
    initializer(omp_priv = (struct span){1LL << 62, -(1LL << 62)})

static int values[N];

struct results {
  long long sum;
  int imax, imin, all_small, any_big, bits_x, bits_a;
  double dsum;
  float fprod;
  struct span span;
};

static void host_results(struct results *r) {
  *r = (struct results){0, -1, 1 << 30, 1, 0, 0, -1, 0.0, 1.0f, {1LL << 62, -(1LL << 62)}};
  for (int i = 0; i < N; i++) {
    int v = values[i];
    r->sum += v;
    r->imax = v > r->imax ? v : r->imax;
    r->imin = v < r->imin ? v : r->imin;
    r->all_small = r->all_small && v < 1000;
    r->any_big = r->any_big || v > 990;
    r->bits_x ^= v;
    r->bits_a &= v | 0x100;
    r->dsum += v * 0.5;
    r->fprod *= (i % 512 == 0) ? 2.0f : 1.0f;
    r->span.lo = v < r->span.lo ? v : r->span.lo;
    r->span.hi = v > r->span.hi ? v : r->span.hi;
  }
}

static void device_results(struct results *r, int teams, int threads) {
  long long sum = 0;
  int imax = -1, imin = 1 << 30, all_small = 1, any_big = 0, bits_x = 0, bits_a = -1;
  double dsum = 0.0;
  float fprod = 1.0f;
  struct span span = {1LL << 62, -(1LL << 62)};
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(threads) \
    map(to : values[0:N]) \
    reduction(+ : sum, dsum) reduction(max : imax) reduction(min : imin) \
    reduction(&& : all_small) reduction(|| : any_big) reduction(^ : bits_x) \
    reduction(& : bits_a) reduction(* : fprod) reduction(widen : span)
  for (int i = 0; i < N; i++) {
    int v = values[i];
    sum += v;
    imax = v > imax ? v : imax;
    imin = v < imin ? v : imin;
    all_small = all_small && v < 1000;
    any_big = any_big || v > 990;
    bits_x ^= v;
    bits_a &= v | 0x100;
    dsum += v * 0.5;
    fprod *= (i % 512 == 0) ? 2.0f : 1.0f;
    span.lo = v < span.lo ? v : span.lo;
    span.hi = v > span.hi ? v : span.hi;
  }
  *r = (struct results){sum, imax, imin, all_small, any_big, bits_x, bits_a,
                        dsum, fprod, span};
}

static void compare(const struct results *got, const struct results *want, int teams) {
  CHECK_EQ(got->sum, want->sum);
  CHECK_EQ(got->imax, want->imax);
  CHECK_EQ(got->imin, want->imin);
  CHECK_EQ(got->all_small, want->all_small);
  CHECK_EQ(got->any_big, want->any_big);
  CHECK_EQ(got->bits_x, want->bits_x);
  CHECK_EQ(got->bits_a, want->bits_a);
  /* halves and powers of two of small integers: exact in any order */
  CHECK(got->dsum == want->dsum);
  CHECK(got->fprod == want->fprod);
  CHECK_EQ(got->span.lo, want->span.lo);
  CHECK_EQ(got->span.hi, want->span.hi);
  if (check_failures)
    printf("with %d teams\n", teams);
}

int main(void) {
  for (int i = 0; i < N; i++)
    values[i] = (i * 37) % 997;
  struct results want, got;
  host_results(&want);
  for (int round = 0; round < ROUNDS && !check_failures; round++) {
    device_results(&got, 1024, 1);
    compare(&got, &want, 1024);
    device_results(&got, 4, 4);
    compare(&got, &want, 4);
  }
  return check_finish();
}
