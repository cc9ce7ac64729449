/* usm.c - requires unified_shared_memory: host memory used in target regions
 * as it is.
 * (SIMTARGET_CHECK=stale reports the `close` copy the host changes without
 * an update, on purpose)
 * stale-expect: stale-launch * 1
 * ppc64le-skip: requires unified_shared_memory or unified_address, which simdevice serves by running kernels in the (x86-64) host process
 * expect-stderr-not: not device memory|stopped with|faulted
 * expect: under unified_shared_memory stack, static, heap and malloc'ed data
 * (through a global pointer, with and without is_device_ptr, with map
 * clauses that must not copy, with `close` that must, and a linked list built
 * on the host) is the same memory in target regions as on the host: a region
 * sees host writes made inside a data region without any update, and its
 * writes are seen by the host at once. Teams and threads run as on the
 * device (omp_get_num_teams > 1, omp_is_initial_device() == 0). Several host
 * threads offload at once (usm_info.c checks what LIBOMPTARGET_INFO says). */
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#pragma omp requires unified_shared_memory

#define N 1000

static int static_data[N];
int *global_ptr; /* set from malloc */

struct node {
  int value;
  struct node *next;
};

/* Sums a host-built list in a kernel: a deep structure, no mapping. */
static long list_sum_on_device(struct node *head, int *on_device) {
  long sum = 0;
#pragma omp target map(tofrom : sum) map(from : on_device[0:1])
  {
    *on_device = !omp_is_initial_device();
    for (struct node *n = head; n != NULL; n = n->next) {
      sum += n->value;
      n->value *= 2; /* seen by the host without a copy */
    }
  }
  return sum;
}

/* One host thread's share: a quarter of global_ptr set to its number. */
static void *fill_slice(void *arg) {
  long t = (long)arg;
  int *slice = global_ptr + t * (N / 4);
#pragma omp target teams distribute parallel for
  for (int i = 0; i < N / 4; i++)
    slice[i] = (int)t;
  return NULL;
}

int main(void) {
  int stack_data[N];
  int *heap = malloc(N * sizeof(int));
  global_ptr = malloc(N * sizeof(int));
  if (heap == NULL || global_ptr == NULL)
    return 2;
  for (int i = 0; i < N; i++) {
    stack_data[i] = i;
    static_data[i] = 2 * i;
    heap[i] = 3 * i;
    global_ptr[i] = 4 * i;
  }

  /* No map clauses at all: pointers are the host's. */
  int teams = 0, initial = 1;
#pragma omp target teams distribute parallel for num_teams(4) \
    map(tofrom : teams, initial)
  for (int i = 0; i < N; i++) {
    if (i == 0) {
      teams = omp_get_num_teams();
      initial = omp_is_initial_device();
    }
    stack_data[i] += 1;
    static_data[i] += 1;
    heap[i] += 1;
    global_ptr[i] += 1;
  }
  CHECK(teams > 1);
  CHECK_EQ(initial, 0);
  CHECK_EQ(stack_data[10], 11);
  CHECK_EQ(static_data[10], 21);
  CHECK_EQ(heap[10], 31);
  CHECK_EQ(global_ptr[10], 41);

  /* is_device_ptr on a host pointer. */
#pragma omp target is_device_ptr(heap)
  heap[5] = -5;
  CHECK_EQ(heap[5], -5);

  /* map is a no-op: a host write inside the data region is seen by the
   * region without `update`, and its write is seen without copy-back. */
#pragma omp target data map(to : heap[0:N])
  {
    heap[7] = 700;
    int seen = 0;
#pragma omp target map(from : seen)
    {
      seen = heap[7];
      heap[8] = 800;
    }
    CHECK_EQ(seen, 700);
    CHECK_EQ(heap[8], 800);
  }

  /* map(close, ...) asks for a copy in device memory: the region works on
   * the copy and the host keeps its value until the copy back. */
  int closed[4] = {1, 2, 3, 4};
#pragma omp target data map(close, tofrom : closed)
  {
    closed[0] = 100; /* the device copy still holds 1 */
    int seen = 0;
#pragma omp target map(from : seen) map(close, tofrom : closed)
    {
      seen = closed[0];
      closed[1] = 20;
    }
    CHECK_EQ(seen, 1);
    CHECK_EQ(closed[1], 2); /* not copied back yet */
  }
  CHECK_EQ(closed[0], 1); /* overwritten by the copy back */
  CHECK_EQ(closed[1], 20);

  /* omp_target_alloc memory is reachable from the host too. */
  int *dev = omp_target_alloc(N * sizeof(int), omp_get_default_device());
  CHECK(dev != NULL);
  if (dev != NULL) {
#pragma omp target is_device_ptr(dev)
    for (int i = 0; i < N; i++)
      dev[i] = i;
    CHECK_EQ(dev[N - 1], N - 1);
    /* Mapped like host memory: the end of the mapping must not free it
     * (a later malloc would then hand the same memory out again). */
#pragma omp target data map(tofrom : dev[0:N])
    {
#pragma omp target
      dev[1] = 5;
    }
    int *other = malloc(N * sizeof(int));
    CHECK(other != dev);
    CHECK_EQ(dev[1], 5);
    free(other);
    omp_target_free(dev, omp_get_default_device());
  }

  /* A deep copy that is no copy: a linked list. */
  struct node *head = NULL;
  for (int i = 1; i <= 100; i++) {
    struct node *n = malloc(sizeof *n);
    if (n == NULL)
      return 2;
    n->value = i;
    n->next = head;
    head = n;
  }
  int on_device = 0;
  CHECK_EQ(list_sum_on_device(head, &on_device), 5050);
  CHECK_EQ(on_device, 1);
  CHECK_EQ(head->value, 200);
  while (head != NULL) {
    struct node *next = head->next;
    free(head);
    head = next;
  }

  /* Several host threads offload at once, each on its own slice. */
  pthread_t threads[4];
  for (long t = 0; t < 4; t++)
    CHECK_EQ(pthread_create(&threads[t], NULL, fill_slice, (void *)t), 0);
  for (int t = 0; t < 4; t++)
    pthread_join(threads[t], NULL);
  for (int t = 0; t < 4; t++)
    CHECK_EQ(global_ptr[t * (N / 4) + 3], t);

  printf("device region printed through %s\n", "the host");
  free(heap);
  free(global_ptr);
  return check_finish();
}
/* mpi-skip: requires unified_shared_memory, which a remote device cannot give (init_device refuses it by name) */
