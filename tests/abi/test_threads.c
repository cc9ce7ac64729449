/*
 * test_threads.c - 8 host threads launching and mapping on one simdevice
 * device at once: each maps its own arrays, runs scale_kernel
 * (tests/abi/kernels.c) on them many times, and moves data with
 * omp_target_alloc / omp_target_memcpy, while the others do the same. Every
 * thread must get its own right results. `make valgrind` also runs it under
 * helgrind, which must report no race.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "abi_image.h"
#include "omptarget.h"

#define THREADS 8
#define ROUNDS 20
#define N 64

static const char scale_region;
static __tgt_offload_entry host_entries[] = {
    {(void *)&scale_region, "scale_kernel", 0, 0, 0},
};
static struct abi_image kernels;

/* One thread's work; returns the number of wrong results. */
static void *worker(void *arg) {
  long id = (long)(intptr_t)arg, bad = 0;
  long x[N], y[N], n = N;
  for (int round = 0; round < ROUNDS; round++) {
    long k = id * 100 + round;
    for (int i = 0; i < N; i++) {
      x[i] = i + id;
      y[i] = -1;
    }
    void *base[4] = {y, x, (void *)n, (void *)k};
    int64_t sizes[4] = {sizeof y, sizeof x, 0, 0};
    int64_t types[4] = {
        OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_FROM,
        OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_TO,
        OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_LITERAL,
        OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_LITERAL};
    if (__tgt_target_teams(0, (void *)&scale_region, 4, base, base, sizes,
                           types, 1, 1) != 0)
      bad++;
    for (int i = 0; i < N; i++)
      bad += y[i] != (i + id) * k;

    long *d = omp_target_alloc(sizeof x, 0);
    long back[N];
    if (!d) {
      bad++;
      continue;
    }
    bad += omp_target_memcpy(d, x, sizeof x, 0, 0, 0,
                             omp_get_initial_device()) != 0;
    bad += omp_target_memcpy(back, d, sizeof back, 0, 0,
                             omp_get_initial_device(), 0) != 0;
    bad += memcmp(back, x, sizeof x) != 0;
    omp_target_free(d, 0);
  }
  return (void *)(intptr_t)bad;
}

static void test_eight_threads_launch_and_map_at_once(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  for (long t = 0; t < THREADS; t++)
    assert_int_equal(
        pthread_create(&threads[t], NULL, worker, (void *)(intptr_t)t), 0);
  long bad = 0;
  for (int t = 0; t < THREADS; t++) {
    void *r;
    assert_int_equal(pthread_join(threads[t], &r), 0);
    bad += (long)(intptr_t)r;
  }
  assert_int_equal(bad, 0);
}

static int setup(void **state) {
  (void)state;
  return abi_kernels_register(&kernels, NULL, host_entries, 1);
}

static int teardown(void **state) {
  (void)state;
  abi_image_unregister(&kernels);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_eight_threads_launch_and_map_at_once),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
