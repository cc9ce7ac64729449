/* usm_threads_exit.c - requires unified_shared_memory: host threads that
 * offloaded and ended, then a kernel whose teams and threads need new device
 * workers.
 * ppc64le-skip: requires unified_shared_memory or unified_address, which simdevice serves by running kernels in the (x86-64) host process
 * expect-stderr-not: not device memory|stopped with|faulted|invalid pointer
 * expect: each host thread's region wrote its own slot of a global array
 * through a global pointer; after the threads were joined, a league of 8
 * teams with parallel loops sums 4096 elements to the right total. Under
 * Valgrind (tests/valgrind_check.sh) the whole process runs clean: the
 * device runtime's new workers must not reuse the ended threads' stacks,
 * whose thread-local blocks belong to the program's libc. */
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include "check.h"

#pragma omp requires unified_shared_memory

#define THREADS 4
#define N 4096

int *slots; /* one per host thread, malloc'ed */

static void *offload_once(void *arg) {
  long t = (long)arg;
#pragma omp target
  slots[t] = (int)t + 1;
  return NULL;
}

int main(void) {
  slots = calloc(THREADS, sizeof(int));
  pthread_t threads[THREADS];
  for (long t = 0; t < THREADS; t++)
    CHECK_EQ(pthread_create(&threads[t], NULL, offload_once, (void *)t), 0);
  for (int t = 0; t < THREADS; t++)
    CHECK_EQ(pthread_join(threads[t], NULL), 0);
  for (int t = 0; t < THREADS; t++)
    CHECK_EQ(slots[t], t + 1);

  /* The threads' stacks are in libc's cache now; this league needs workers. */
  int *data = malloc(N * sizeof(int));
  for (int i = 0; i < N; i++)
    data[i] = i % 7;
  long sum = 0, want = 0;
  for (int i = 0; i < N; i++)
    want += i % 7;
#pragma omp target teams distribute parallel for num_teams(8) reduction(+ : sum)
  for (int i = 0; i < N; i++)
    sum += data[i];
  CHECK_EQ(sum, want);

  free(data);
  free(slots);
  return check_finish();
}
/* mpi-skip: requires unified_shared_memory, which a remote device cannot give (init_device refuses it by name) */
