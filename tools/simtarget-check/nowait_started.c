/*
 * nowait_started.c - libsimtarget-check-nowait.so, preloaded by
 * simtarget-check into the program in its stale-memcheck mode (issue 32).
 *
 * A `target nowait` region is a task libomp creates and queues without
 * calling libomptarget; libomptarget first sees it when a helper thread
 * runs the task. A host read of its results before that moment is made on
 * bytes nobody has marked yet, and memcheck cannot report it. So here,
 * after libomp has queued a target task, the creating thread waits until
 * libomptarget has dispatched one more nowait construct (and so marked the
 * host bytes of its pending copies back): simtarget_nowait_dispatched. A
 * task may start at any time after its creation, so the wait changes no
 * result the program may rely on; it is bounded (WAIT_MAX_NS) for a task
 * that cannot start yet, and without simtarget (the counter is missing) it
 * does nothing. Tasks with dependences (__kmpc_omp_task_with_deps) are not
 * waited for: they may wait for the creating thread itself.
 *
 * The wrappers bind before libomp's definitions because the library is
 * preloaded; an unversioned definition satisfies the program's
 * `@VERSION` references.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define WAIT_MAX_NS 5000000000LL
#define POLL_NS 1000000L

typedef void *(*task_alloc_fn)(void *, int32_t, int32_t, size_t, size_t, void *, int64_t);
typedef int32_t (*task_fn)(void *, int32_t, void *);

/* The target task this thread created last and has not queued yet. */
static __thread void *target_task;

void *__kmpc_omp_target_task_alloc(void *loc, int32_t gtid, int32_t flags, size_t task_size,
                                   size_t shareds_size, void *entry, int64_t device_id);
int32_t __kmpc_omp_task(void *loc, int32_t gtid, void *task);

/* libomp's two functions and libomptarget's counter (NULL without
 * simtarget), looked up once: every task of the program comes here. */
static pthread_once_t looked_up = PTHREAD_ONCE_INIT;
static task_alloc_fn real_alloc;
static task_fn real_task;
static const volatile uint64_t *dispatched;

static void look_up(void)
{
  real_alloc = (task_alloc_fn)dlsym(RTLD_NEXT, "__kmpc_omp_target_task_alloc");
  real_task = (task_fn)dlsym(RTLD_NEXT, "__kmpc_omp_task");
  dispatched = (const volatile uint64_t *)dlsym(RTLD_DEFAULT, "simtarget_nowait_dispatched");
}

static int64_t now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void *__kmpc_omp_target_task_alloc(void *loc, int32_t gtid, int32_t flags, size_t task_size,
                                   size_t shareds_size, void *entry, int64_t device_id)
{
  pthread_once(&looked_up, look_up);
  if (real_alloc == NULL)
    return NULL; /* no libomp: the program could not have linked */
  void *task = real_alloc(loc, gtid, flags, task_size, shareds_size, entry, device_id);
  target_task = task;
  return task;
}

int32_t __kmpc_omp_task(void *loc, int32_t gtid, void *task)
{
  pthread_once(&looked_up, look_up);
  int is_target = task != NULL && task == target_task;
  if (is_target)
    target_task = NULL;
  uint64_t before = dispatched ? __atomic_load_n(dispatched, __ATOMIC_ACQUIRE) : 0;
  int32_t rc = real_task ? real_task(loc, gtid, task) : 0;
  if (!is_target || dispatched == NULL)
    return rc;
  const struct timespec poll = {0, POLL_NS};
  for (int64_t t0 = now_ns();
       __atomic_load_n(dispatched, __ATOMIC_ACQUIRE) == before && now_ns() - t0 < WAIT_MAX_NS;)
    nanosleep(&poll, NULL);
  return rc;
}
