/*
 * test_omp60.c - OpenMP 6.0 routines that reach the offload runtime, called
 * directly on two real simdevice devices (Debian's libomp 14-19 has none of
 * the 6.0 memory-space routines that would call the hooks):
 * omp_get_uid_from_device / omp_get_device_from_uid, omp_target_is_accessible
 * with omp_initial_device and NULL, and libomp 21+'s hooks
 * __tgt_get_mem_resources, __tgt_omp_alloc and __tgt_omp_free, fed with
 * allocators laid out as libomp's kmp_allocator_t / kmp_memspace_t.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "omptarget.h"

static int host;

/* libomp's (kmp.h, LLVM 21+) leading fields, as libomp hands them over. */
struct kmp_memspace {
  uintptr_t memspace;
  int num_resources;
  int *resources;
  struct kmp_memspace *next;
};
struct kmp_allocator {
  uintptr_t memspace; /* a struct kmp_memspace * for a device space */
  void **memkind;
  size_t alignment;
};

enum { DEFAULT_MEM_SPACE = 99, HIGH_BW_MEM_SPACE = 3 };

static int setup(void **state) {
  (void)state;
  setenv("SIMDEVICE_NUM_DEVICES", "2", 1);
  host = omp_get_initial_device();
  return omp_get_num_devices() == 2 ? 0 : -1;
}

static void test_uid_round_trip(void **state) {
  (void)state;
  const char *u0 = omp_get_uid_from_device(0);
  const char *u1 = omp_get_uid_from_device(1);
  assert_non_null(u0);
  assert_non_null(u1);
  assert_string_equal(u0, "simdevice-0");
  assert_string_equal(u1, "simdevice-1");
  assert_int_equal(omp_get_device_from_uid(u0), 0);
  assert_int_equal(omp_get_device_from_uid(u1), 1);
  /* the same pointer every time: valid for the whole run */
  assert_ptr_equal(omp_get_uid_from_device(1), u1);
  /* a copy finds it too (compared by content) */
  char copy[64];
  strcpy(copy, u1);
  assert_int_equal(omp_get_device_from_uid(copy), 1);
}

static void test_uid_host_and_invalid(void **state) {
  (void)state;
  assert_string_equal(omp_get_uid_from_device(host), "HOST");
  assert_string_equal(omp_get_uid_from_device(-1), "HOST"); /* initial */
  assert_null(omp_get_uid_from_device(-2));                 /* invalid */
  assert_null(omp_get_uid_from_device(7)); /* an error, not a crash */
  assert_null(omp_get_uid_from_device(-5));
  assert_int_equal(omp_get_device_from_uid("HOST"), host);
  assert_int_equal(omp_get_device_from_uid(NULL), -2);
  assert_int_equal(omp_get_device_from_uid("simdevice-2"), -2);
  assert_int_equal(omp_get_device_from_uid(""), -2);
  assert_int_equal(omp_get_device_from_uid("simdevice-0x"), -2);
}

static void test_is_accessible(void **state) {
  (void)state;
  int x = 0;
  assert_int_equal(omp_target_is_accessible(&x, sizeof x, host), 1);
  assert_int_equal(omp_target_is_accessible(&x, sizeof x, -1), 1);
  assert_int_equal(omp_target_is_accessible(NULL, 4, host), 0);
  assert_int_equal(omp_target_is_accessible(NULL, 4, -1), 0);
  assert_int_equal(omp_target_is_accessible(&x, sizeof x, 0), 0);
  assert_int_equal(omp_target_is_accessible(&x, sizeof x, -2), 0);
  char *s = llvm_omp_target_alloc_shared(64, 1);
  assert_non_null(s);
  assert_int_equal(omp_target_is_accessible(s, 64, 1), 1);
  assert_int_equal(omp_target_is_accessible(s, 65, 1), 0);
  assert_int_equal(omp_target_is_accessible(s, 64, 0), 0);
  llvm_omp_target_free_shared(s, 1);
  assert_int_equal(omp_target_is_accessible(s, 64, 1), 0);
}

static void test_mem_resources(void **state) {
  (void)state;
  int devs[] = {1, 0, 1};
  int res[3] = {-1, -1, -1};
  /* count first (resources NULL), then the numbers: a device listed twice
   * counts once */
  assert_int_equal(__tgt_get_mem_resources(3, devs, 0, DEFAULT_MEM_SPACE,
                                           NULL),
                   2);
  assert_int_equal(__tgt_get_mem_resources(3, devs, 0, DEFAULT_MEM_SPACE,
                                           res),
                   2);
  assert_int_equal(res[0], 2); /* device 1, device memory */
  assert_int_equal(res[1], 0); /* device 0, device memory */
  assert_int_equal(res[2], -1);
  assert_int_equal(__tgt_get_mem_resources(1, devs, 1, HIGH_BW_MEM_SPACE,
                                           res),
                   1);
  assert_int_equal(res[0], 3); /* device 1, shared memory */
  /* refused: no device, the host or an unknown device, an unknown space */
  int bad_host[] = {host}, bad[] = {0, 5};
  assert_int_equal(__tgt_get_mem_resources(0, devs, 0, DEFAULT_MEM_SPACE,
                                           res),
                   0);
  assert_int_equal(__tgt_get_mem_resources(1, bad_host, 0,
                                           DEFAULT_MEM_SPACE, res),
                   0);
  assert_int_equal(__tgt_get_mem_resources(2, bad, 0, DEFAULT_MEM_SPACE,
                                           res),
                   0);
  assert_int_equal(__tgt_get_mem_resources(1, devs, 0, 1234, res), 0);
}

/* A memory space and an allocator on it, as libomp makes them. */
static void make_allocator(struct kmp_memspace *ms, struct kmp_allocator *al,
                           int *resources, int n) {
  memset(ms, 0, sizeof *ms);
  memset(al, 0, sizeof *al);
  ms->memspace = DEFAULT_MEM_SPACE;
  ms->num_resources = n;
  ms->resources = resources;
  al->memspace = (uintptr_t)ms;
}

static void test_omp_alloc_device_memory(void **state) {
  (void)state;
  int devs[] = {1}, res[1];
  assert_int_equal(__tgt_get_mem_resources(1, devs, 0, DEFAULT_MEM_SPACE,
                                           res),
                   1);
  struct kmp_memspace ms;
  struct kmp_allocator al;
  make_allocator(&ms, &al, res, 1);
  int *p = __tgt_omp_alloc(100 * sizeof(int), (uintptr_t)&al);
  assert_non_null(p);
  /* device 1's memory: copies work there, the host does not reach it */
  int src[100], back[100];
  for (int i = 0; i < 100; i++)
    src[i] = i * 3, back[i] = 0;
  assert_int_equal(omp_target_memcpy(p, src, sizeof src, 0, 0, 1, host), 0);
  assert_int_equal(omp_target_memcpy(back, p, sizeof src, 0, 0, host, 1), 0);
  assert_memory_equal(src, back, sizeof src);
  assert_int_equal(omp_target_is_accessible(p, 4, 1), 0);
  __tgt_omp_free(p, (uintptr_t)&al);
  /* freed: a copy into it is refused now */
  assert_int_not_equal(
      omp_target_memcpy(p, src, sizeof src, 0, 0, 1, host), 0);
}

static void test_omp_alloc_shared_memory(void **state) {
  (void)state;
  int devs[] = {0}, res[1];
  assert_int_equal(__tgt_get_mem_resources(1, devs, 1, DEFAULT_MEM_SPACE,
                                           res),
                   1);
  struct kmp_memspace ms;
  struct kmp_allocator al;
  make_allocator(&ms, &al, res, 1);
  char *p = __tgt_omp_alloc(256, (uintptr_t)&al);
  assert_non_null(p);
  memset(p, 7, 256); /* the host reaches it */
  assert_int_equal(omp_target_is_accessible(p, 256, 0), 1);
  __tgt_omp_free(p, (uintptr_t)&al);
  assert_int_equal(omp_target_is_accessible(p, 256, 0), 0);
}

static void test_omp_alloc_refusals(void **state) {
  (void)state;
  /* a predefined allocator (omp_default_mem_alloc = 1) is libomp's own */
  assert_null(__tgt_omp_alloc(16, 1));
  /* an allocator on a predefined space, not a device space */
  struct kmp_allocator plain = {.memspace = DEFAULT_MEM_SPACE};
  assert_null(__tgt_omp_alloc(16, (uintptr_t)&plain));
  /* two devices: no memory reachable from both */
  int devs[] = {0, 1}, res[2];
  assert_int_equal(__tgt_get_mem_resources(2, devs, 0, DEFAULT_MEM_SPACE,
                                           res),
                   2);
  struct kmp_memspace ms;
  struct kmp_allocator al;
  make_allocator(&ms, &al, res, 2);
  assert_null(__tgt_omp_alloc(16, (uintptr_t)&al));
  /* its sub-space of one resource works */
  struct kmp_memspace sub;
  struct kmp_allocator sub_al;
  make_allocator(&sub, &sub_al, &res[1], 1);
  void *p = __tgt_omp_alloc(16, (uintptr_t)&sub_al);
  assert_non_null(p);
  __tgt_omp_free(p, (uintptr_t)&sub_al);
  /* a resource that is none of ours, no resources, a NULL free */
  int foreign[] = {40};
  make_allocator(&ms, &al, foreign, 1);
  assert_null(__tgt_omp_alloc(16, (uintptr_t)&al));
  make_allocator(&ms, &al, res, 0);
  assert_null(__tgt_omp_alloc(16, (uintptr_t)&al));
  __tgt_omp_free(NULL, (uintptr_t)&al);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_uid_round_trip),
      cmocka_unit_test(test_uid_host_and_invalid),
      cmocka_unit_test(test_is_accessible),
      cmocka_unit_test(test_mem_resources),
      cmocka_unit_test(test_omp_alloc_device_memory),
      cmocka_unit_test(test_omp_alloc_shared_memory),
      cmocka_unit_test(test_omp_alloc_refusals),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
