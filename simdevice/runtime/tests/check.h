/*
 * check.h - shared helpers for the device-runtime tests. The tests are
 * ordinary OpenMP programs compiled with clang -fopenmp -c and linked
 * against build/lib/simdevice/libomp.so.5 only, so they exercise exactly
 * the calls clang emits for device code. omp.h is not used (clang 19 ships
 * none here); the few omp_* prototypes needed are below.
 */
#ifndef SIMDEV_RT_TEST_CHECK_H
#define SIMDEV_RT_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

typedef struct { void *impl; } omp_lock_t;
typedef struct { void *impl; } omp_nest_lock_t;
int omp_get_num_teams(void);
int omp_get_team_num(void);
int omp_get_num_threads(void);
int omp_get_thread_num(void);
int omp_get_max_threads(void);
int omp_get_num_procs(void);
int omp_get_level(void);
int omp_get_active_level(void);
int omp_in_parallel(void);
int omp_in_final(void);
int omp_get_thread_limit(void);
int omp_get_team_size(int);
int omp_get_ancestor_thread_num(int);
double omp_get_wtime(void);
int omp_is_initial_device(void);
int omp_get_num_devices(void);
int omp_get_device_num(void);
void omp_set_num_threads(int);
void omp_set_dynamic(int);
int omp_get_dynamic(void);
/* The device server's call (simdev_rt.h): the flag of the thread that
 * waits for this thread's launches, 0 while it spins. */
void simdev_rt_set_launch_waiter(const _Atomic unsigned *sleeping);
void omp_init_lock(omp_lock_t *);
void omp_destroy_lock(omp_lock_t *);
void omp_set_lock(omp_lock_t *);
void omp_unset_lock(omp_lock_t *);
int omp_test_lock(omp_lock_t *);
void omp_init_nest_lock(omp_nest_lock_t *);
void omp_destroy_nest_lock(omp_nest_lock_t *);
void omp_set_nest_lock(omp_nest_lock_t *);
void omp_unset_nest_lock(omp_nest_lock_t *);
int omp_test_nest_lock(omp_nest_lock_t *);

static int check_failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      check_failures++;                                                                           \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                    \
      fprintf(stderr, __VA_ARGS__);                                                               \
      fputc('\n', stderr);                                                                        \
    }                                                                                             \
  } while (0)

#define CHECK_DONE()                                                                               \
  do {                                                                                            \
    if (check_failures)                                                                           \
      fprintf(stderr, "%s: %d check(s) failed\n", __FILE__, check_failures);                      \
    return check_failures ? 1 : 0;                                                                \
  } while (0)

#endif
