/*
 * api_async.c - the asynchronous device memory routines of OpenMP 5.1/6.0:
 * omp_target_memcpy_async, omp_target_memcpy_rect_async and
 * omp_target_memset_async. Each becomes an explicit task of the host's
 * libomp (as LLVM's runtime does), created with the dependences of its
 * depend objects, so it runs after the tasks those name, and `taskwait` or
 * a task that depends on the same data waits for it; its body is the
 * synchronous routine. The arguments are checked before the task is made
 * (a bad one returns EINVAL at once); a failure inside the task is printed,
 * naming the routine. Without a libomp in the process (no tasks), the copy
 * runs at once.
 *
 * Depend objects: an omp_depend_t made by `depobj` points at clang's
 * kmp_depend_info_t records, whose count sits in the record before the
 * first (its base_addr).
 *
 * Thread safety: the libomp entry points are looked up once
 * (pthread_once); everything else is per call.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "report.h"

#define EXPORT __attribute__((visibility("default")))

/* libomp's kmp_depend_info_t (24 bytes) and kmp_task_t (40 bytes). */
struct kmp_depend_info {
  intptr_t base_addr;
  size_t len;
  uint64_t flags;
};
#define KMP_TASK_BYTES 40
typedef int32_t (*task_entry_fn)(int32_t gtid, void *task);

static struct {
  int32_t (*global_thread_num)(void *loc);
  void *(*task_alloc)(void *loc, int32_t gtid, int32_t flags, size_t task_size,
                      size_t shareds_size, task_entry_fn entry);
  int32_t (*task)(void *loc, int32_t gtid, void *task);
  int32_t (*task_with_deps)(void *loc, int32_t gtid, void *task, int32_t ndeps,
                            void *deps, int32_t ndeps_noalias, void *noalias);
} kmp;
static pthread_once_t kmp_once = PTHREAD_ONCE_INIT;

static void kmp_lookup(void) {
  kmp.global_thread_num = (int32_t(*)(void *))dlsym(RTLD_DEFAULT, "__kmpc_global_thread_num");
  kmp.task_alloc = (void *(*)(void *, int32_t, int32_t, size_t, size_t, task_entry_fn))dlsym(
      RTLD_DEFAULT, "__kmpc_omp_task_alloc");
  kmp.task = (int32_t(*)(void *, int32_t, void *))dlsym(RTLD_DEFAULT, "__kmpc_omp_task");
  kmp.task_with_deps = (int32_t(*)(void *, int32_t, void *, int32_t, void *, int32_t, void *))dlsym(
      RTLD_DEFAULT, "__kmpc_omp_task_with_deps");
}

enum async_kind { ASYNC_MEMCPY, ASYNC_MEMCPY_RECT, ASYNC_MEMSET };

/* One routine call, owned by its task. */
struct async_call {
  enum async_kind kind;
  const char *routine;
  void *dst;
  const void *src;
  size_t length, dst_offset, src_offset, element_size;
  int dst_device, src_device, num_dims, value;
  size_t *dims; /* rect: volume, dst_offsets, src_offsets, dst_dimensions,
                   src_dimensions, num_dims each (copied: the caller's
                   arrays may be gone when the task runs) */
};

static int run_call(const struct async_call *c) {
  switch (c->kind) {
  case ASYNC_MEMCPY:
    return api_memcpy(c->routine, c->dst, c->src, c->length, c->dst_offset,
                      c->src_offset, c->dst_device, c->src_device);
  case ASYNC_MEMCPY_RECT: {
    size_t n = (size_t)c->num_dims;
    return api_memcpy_rect(c->routine, c->dst, c->src, c->element_size,
                           c->num_dims, c->dims, c->dims + n, c->dims + 2 * n,
                           c->dims + 3 * n, c->dims + 4 * n, c->dst_device,
                           c->src_device);
  }
  case ASYNC_MEMSET:
    return api_memset(c->routine, c->dst, c->value, c->length, c->dst_device);
  }
  return EINVAL;
}

static void free_call(struct async_call *c) {
  free(c->dims);
  free(c);
}

static int32_t call_task_entry(int32_t gtid, void *task) {
  (void)gtid;
  struct async_call *c;
  memcpy(&c, (char *)task + KMP_TASK_BYTES, sizeof c);
  run_call(c); /* a failure was printed, naming the routine */
  free_call(c);
  return 0;
}

/* Runs `c` as a libomp task after the dependences of the depend objects;
 * takes ownership of c. Returns 0, or an errno value. */
static int dispatch(struct async_call *c, int depobj_count, void **depobj_list) {
  pthread_once(&kmp_once, kmp_lookup);
  if (depobj_count < 0 || (depobj_count > 0 && !depobj_list)) {
    report_error("%s: %d depend objects at %p", c->routine, depobj_count,
                 (void *)depobj_list);
    free_call(c);
    return EINVAL;
  }
  if (!kmp.global_thread_num || !kmp.task_alloc || !kmp.task || !kmp.task_with_deps) {
    int rc = run_call(c); /* no libomp: nothing runs concurrently anyway */
    free_call(c);
    return rc;
  }
  /* Gather the records of every depend object into one list. */
  size_t ndeps = 0;
  for (int i = 0; i < depobj_count; i++) {
    const struct kmp_depend_info *d = depobj_list[i];
    if (!d) {
      report_error("%s: depend object %d is NULL (not initialised by a "
                   "depobj construct)", c->routine, i);
      free_call(c);
      return EINVAL;
    }
    ndeps += (size_t)d[-1].base_addr;
  }
  struct kmp_depend_info *deps = NULL;
  if (ndeps > 0) {
    deps = calloc(ndeps, sizeof *deps);
    if (!deps) {
      report_error("%s: out of host memory for %zu dependences", c->routine, ndeps);
      free_call(c);
      return ENOMEM;
    }
    size_t at = 0;
    for (int i = 0; i < depobj_count; i++) {
      const struct kmp_depend_info *d = depobj_list[i];
      size_t n = (size_t)d[-1].base_addr;
      memcpy(deps + at, d, n * sizeof *deps);
      at += n;
    }
  }
  int32_t gtid = kmp.global_thread_num(NULL);
  void *task = kmp.task_alloc(NULL, gtid, 1 /* tied */, KMP_TASK_BYTES + sizeof c, 0,
                              call_task_entry);
  if (!task) {
    report_error("%s: libomp could not allocate a task", c->routine);
    free(deps);
    free_call(c);
    return ENOMEM;
  }
  memcpy((char *)task + KMP_TASK_BYTES, &c, sizeof c);
  if (ndeps > 0)
    kmp.task_with_deps(NULL, gtid, task, (int32_t)ndeps, deps, 0, NULL);
  else
    kmp.task(NULL, gtid, task);
  free(deps); /* libomp keeps what it needs of them */
  return 0;
}

static struct async_call *new_call(enum async_kind kind, const char *routine) {
  struct async_call *c = calloc(1, sizeof *c);
  if (!c)
    report_error("%s: out of host memory", routine);
  else {
    c->kind = kind;
    c->routine = routine;
  }
  return c;
}

EXPORT int omp_target_memcpy_async(void *dst, const void *src, size_t length,
                                   size_t dst_offset, size_t src_offset,
                                   int dst_device, int src_device,
                                   int depobj_count, void **depobj_list) {
  const char *routine = "omp_target_memcpy_async";
  struct device *dev;
  if (!dst || !src) {
    report_error("%s: %s is NULL", routine, !dst ? "dst" : "src");
    return EINVAL;
  }
  if (api_device(routine, dst_device, &dev) < 0 || api_device(routine, src_device, &dev) < 0)
    return EINVAL;
  struct async_call *c = new_call(ASYNC_MEMCPY, routine);
  if (!c)
    return ENOMEM;
  c->dst = dst;
  c->src = src;
  c->length = length;
  c->dst_offset = dst_offset;
  c->src_offset = src_offset;
  c->dst_device = dst_device;
  c->src_device = src_device;
  return dispatch(c, depobj_count, depobj_list);
}

EXPORT int omp_target_memcpy_rect_async(
    void *dst, const void *src, size_t element_size, int num_dims,
    const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
    const size_t *dst_dimensions, const size_t *src_dimensions, int dst_device,
    int src_device, int depobj_count, void **depobj_list) {
  const char *routine = "omp_target_memcpy_rect_async";
  struct device *dev;
  if (!dst && !src)
    return INT32_MAX; /* OpenMP: the number of dimensions supported */
  int rc = api_memcpy_rect_check(routine, dst, src, element_size, num_dims, volume,
                                 dst_offsets, src_offsets, dst_dimensions, src_dimensions);
  if (rc)
    return rc;
  if (api_device(routine, dst_device, &dev) < 0 || api_device(routine, src_device, &dev) < 0)
    return EINVAL;
  struct async_call *c = new_call(ASYNC_MEMCPY_RECT, routine);
  if (!c)
    return ENOMEM;
  size_t n = (size_t)num_dims;
  c->dims = malloc(5 * n * sizeof *c->dims);
  if (!c->dims) {
    report_error("%s: out of host memory", routine);
    free_call(c);
    return ENOMEM;
  }
  const size_t *arrays[5] = {volume, dst_offsets, src_offsets, dst_dimensions, src_dimensions};
  for (int i = 0; i < 5; i++)
    memcpy(c->dims + (size_t)i * n, arrays[i], n * sizeof *c->dims);
  c->dst = dst;
  c->src = src;
  c->element_size = element_size;
  c->num_dims = num_dims;
  c->dst_device = dst_device;
  c->src_device = src_device;
  return dispatch(c, depobj_count, depobj_list);
}

EXPORT void *omp_target_memset_async(void *ptr, int value, size_t count,
                                     int device_num, int depobj_count,
                                     void **depobj_list) {
  const char *routine = "omp_target_memset_async";
  struct device *dev;
  if (!ptr || count == 0)
    return ptr;
  if (api_device(routine, device_num, &dev) < 0)
    return ptr;
  struct async_call *c = new_call(ASYNC_MEMSET, routine);
  if (!c)
    return ptr;
  c->dst = ptr;
  c->value = value;
  c->length = count;
  c->dst_device = device_num;
  dispatch(c, depobj_count, depobj_list);
  return ptr;
}
