/* omp60_routines.c - OpenMP 6.0 routines that reach the offload runtime,
 * called from a clang-compiled program: device UIDs
 * (omp_get_uid_from_device / omp_get_device_from_uid, LLVM 22), and
 * omp_target_is_accessible with omp_initial_device; then what libomp 21+
 * does for omp_get_device_memspace + omp_init_allocator + omp_alloc:
 * look up __tgt_get_mem_resources, __tgt_omp_alloc and __tgt_omp_free by
 * name, make its memory space and allocator records, allocate, use the
 * memory in a kernel (is_device_ptr) and free it. The omp.h of clang 13-22
 * declares none of the memory-space hooks and most clangs' lack the UID
 * routines, so the program declares them itself; and since LLVM 13-19's
 * libomptarget, which clang links against, lacks them too, it finds them
 * by name at run time, as libomp 22 finds the UID routines and libomp 21
 * the hooks. Debian's libomp (14-19) has no omp_get_device_memspace.
 * env: SIMDEVICE_NUM_DEVICES=2
 * simtarget-only
 * expect-stderr: no simdevice memory is reachable from two devices
 * expect: UIDs round-trip, the host is "HOST", memory from a one-device
 * space works in that device's kernels, a two-device space allocates
 * nothing. */
#include <dlfcn.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include "check.h"

typedef const char *(*uid_from_device_fn)(int device_num);
typedef int (*device_from_uid_fn)(const char *device_uid);
typedef int (*is_accessible_fn)(const void *ptr, size_t size, int device_num);
static uid_from_device_fn uid_of;
static device_from_uid_fn device_of;
static is_accessible_fn accessible;
void *llvm_omp_target_alloc_shared(size_t size, int device_num);

/* libomp's records (kmp.h, LLVM 21+): a memory space with its resources,
 * an allocator whose first field is its memory space. */
struct memspace_rec {
  uintptr_t predefined;
  int num_resources;
  int *resources;
  struct memspace_rec *next;
};
struct allocator_rec {
  uintptr_t memspace;
  void **memkind;
  size_t alignment;
};

typedef int (*get_mem_resources_fn)(int, const int *, int, uintptr_t, int *);
typedef void *(*omp_alloc_fn)(size_t, uintptr_t);
typedef void (*omp_free_fn)(void *, uintptr_t);

enum { N = 1000, DEFAULT_MEM_SPACE = 99 };
static double *buffer; /* a global pointer, as programs keep them */

static void check_uids(void) {
  int n = omp_get_num_devices();
  CHECK_EQ(n, 2);
  for (int d = 0; d < n; d++) {
    const char *uid = uid_of(d);
    CHECK(uid != NULL);
    if (uid)
      CHECK_EQ(device_of(uid), d);
  }
  const char *u0 = uid_of(0);
  const char *u1 = uid_of(1);
  CHECK(u0 && u1 && strcmp(u0, u1) != 0);
  const char *host = uid_of(omp_get_initial_device());
  CHECK(host != NULL && strcmp(host, "HOST") == 0);
  CHECK_EQ(device_of("HOST"), omp_get_initial_device());
  CHECK_EQ(device_of("no such device"), -2);
  CHECK(uid_of(-2) == NULL);
  printf("uids: %s %s %s\n", u0 ? u0 : "?", u1 ? u1 : "?", host ? host : "?");
}

static void check_accessible(void) {
  int x = 1;
  CHECK_EQ(accessible(&x, sizeof x, -1), 1);
  CHECK_EQ(accessible(&x, sizeof x, 0), 0);
  char *s = llvm_omp_target_alloc_shared(128, 0);
  CHECK(s != NULL);
  CHECK_EQ(accessible(s, 128, 0), 1);
  CHECK_EQ(accessible(s, 128, 1), 0);
  omp_target_free(s, 0); /* the _shared free is LLVM 16+ */
}

/* omp_alloc from device `dev`'s memory space, as libomp 21 would do it. */
static void check_memspace(int dev) {
  get_mem_resources_fn get_res =
      (get_mem_resources_fn)dlsym(RTLD_DEFAULT, "__tgt_get_mem_resources");
  omp_alloc_fn alloc = (omp_alloc_fn)dlsym(RTLD_DEFAULT, "__tgt_omp_alloc");
  omp_free_fn release = (omp_free_fn)dlsym(RTLD_DEFAULT, "__tgt_omp_free");
  CHECK(get_res && alloc && release);
  if (!get_res || !alloc || !release)
    return;
  int res[2];
  CHECK_EQ(get_res(1, &dev, 0, DEFAULT_MEM_SPACE, NULL), 1);
  CHECK_EQ(get_res(1, &dev, 0, DEFAULT_MEM_SPACE, res), 1);
  struct memspace_rec ms = {DEFAULT_MEM_SPACE, 1, res, NULL};
  struct allocator_rec al = {(uintptr_t)&ms, NULL, 0};
  buffer = alloc(N * sizeof *buffer, (uintptr_t)&al);
  CHECK(buffer != NULL);
  if (!buffer)
    return;
  double *p = buffer, sum = 0;
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(p)
  for (int i = 0; i < N; i++)
    p[i] = 0.5 * i;
#pragma omp target device(dev) is_device_ptr(p) map(tofrom : sum)
  for (int i = 0; i < N; i++)
    sum += p[i];
  CHECK(sum == 0.5 * N * (N - 1) / 2);
  release(buffer, (uintptr_t)&al);
  /* both devices: no memory reachable from the two */
  int both[2] = {0, 1};
  CHECK_EQ(get_res(2, both, 0, DEFAULT_MEM_SPACE, res), 2);
  struct memspace_rec ms2 = {DEFAULT_MEM_SPACE, 2, res, NULL};
  struct allocator_rec al2 = {(uintptr_t)&ms2, NULL, 0};
  CHECK(alloc(64, (uintptr_t)&al2) == NULL);
}

int main(void) {
  uid_of =
      (uid_from_device_fn)dlsym(RTLD_DEFAULT, "omp_get_uid_from_device");
  device_of =
      (device_from_uid_fn)dlsym(RTLD_DEFAULT, "omp_get_device_from_uid");
  accessible =
      (is_accessible_fn)dlsym(RTLD_DEFAULT, "omp_target_is_accessible");
  CHECK(uid_of && device_of &&
        accessible);
  if (!uid_of || !device_of ||
      !accessible)
    return check_finish();
  check_uids();
  check_accessible();
  check_memspace(0);
  check_memspace(1);
  return check_finish();
}
/* mpi-skip: host or shared memory (llvm_omp_target_alloc_host/shared, omp_alloc's host and shared kinds), which a remote device has none of */
