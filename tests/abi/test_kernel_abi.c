/*
 * test_kernel_abi.c - clang 23's x86 offload kernel ABI beside the older
 * one, on hand-built descriptors and images (no clang 23 is installed):
 * KernelArgs version 4 with the implicit dyn_ptr as the arrays' last entry
 * (TARGET_PARAM|LITERAL) and last kernel parameter, host kernels that take
 * one `void **` of argument pointers (kernels23.c), chosen by the image
 * (its .comment names its clang) and the KernelArgs version together:
 * a disagreement is refused, never guessed around. Also the map bits new
 * in LLVM 22/23: PRIVATE|ATTACH and FB_NULLIFY.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "abi_image.h"
#include "omptarget.h"

enum { N = 16 };
#define PARAM OMP_TGT_MAPTYPE_TARGET_PARAM
#define LIT (OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_LITERAL)

static char self_path[4096];
static const char scale23_region, sum23_region, bump23_region;
static const char anon_scale_region, k22_scale_region;
static __tgt_offload_entry e23[] = {
    {(void *)&scale23_region, "scale23", 0, 0, 0},
    {(void *)&sum23_region, "sum23", 0, 0, 0},
    {(void *)&bump23_region, "bump23", 0, 0, 0},
};
static __tgt_offload_entry eanon[] = {
    {(void *)&anon_scale_region, "scale23", 0, 0, 0}};
static __tgt_offload_entry e22[] = {
    {(void *)&k22_scale_region, "scale_kernel", 0, 0, 0}};
static struct abi_image img23, imganon, img22;

/* kernels<name>.so beside this program */
static int register_image(struct abi_image *a, const char *name,
                          __tgt_offload_entry *e, size_t n) {
  char path[4200];
  char *slash = strrchr(self_path, '/');
  snprintf(path, sizeof path, "%.*s/%s", (int)(slash - self_path), self_path,
           name);
  return abi_image_register(a, path, e, n);
}

static int setup(void **state) {
  (void)state;
  if (abi_self_path(self_path, sizeof self_path) != 0)
    return -1;
  if (register_image(&img23, "kernels23.so", e23, 3) != 0 ||
      register_image(&imganon, "kernels23_anon.so", eanon, 1) != 0 ||
      register_image(&img22, "kernels22.so", e22, 1) != 0)
    return -1;
  return omp_get_num_devices() >= 1 ? 0 : -1;
}

/* y = x * k through `region`, as clang of KernelArgs `version` emits it:
 * version 4 appends the dyn_ptr entry. Returns __tgt_target_kernel's rc. */
static int launch_scale(const void *region, uint32_t version, uint64_t flags,
                        long *y, const long *x, int64_t last_type) {
  long n = N, k = 3;
  void *base[5] = {y, (void *)x, (void *)n, (void *)k, NULL};
  int64_t sizes[5] = {N * sizeof(long), N * sizeof(long), 0, 0, 0};
  int64_t types[5] = {PARAM | OMP_TGT_MAPTYPE_FROM, PARAM | OMP_TGT_MAPTYPE_TO,
                      LIT, LIT, last_type};
  __tgt_kernel_arguments ka = {
      .Version = version,
      .NumArgs = version >= 4 ? 5 : 4,
      .ArgBasePtrs = base,
      .ArgPtrs = base,
      .ArgSizes = sizes,
      .ArgTypes = types,
      .Flags = flags,
  };
  return __tgt_target_kernel(NULL, -1, -1, 0, (void *)region, &ka);
}

static void check_scaled(const long *y, const long *x) {
  for (int i = 0; i < N; i++)
    if (y[i] != x[i] * 3)
      fail_msg("y[%d] = %ld, want %ld", i, y[i], x[i] * 3);
}

static void input(long *x, long *y) {
  for (int i = 0; i < N; i++)
    x[i] = i + 1, y[i] = -1;
}

/* clang 23 image, KernelArgs 4: one void **, dyn_ptr last and NULL */
static void test_v4_on_clang23_image(void **state) {
  (void)state;
  long x[N], y[N];
  input(x, y);
  assert_int_equal(launch_scale(&scale23_region, 4, 0, y, x, LIT), 0);
  check_scaled(y, x);
}

/* an image that does not name its compiler: the version decides */
static void test_v4_on_anonymous_image(void **state) {
  (void)state;
  long x[N], y[N];
  input(x, y);
  assert_int_equal(launch_scale(&anon_scale_region, 4, 0, y, x, LIT), 0);
  check_scaled(y, x);
}

/* nowait (Flags bit 0) goes through the asynchronous path */
static void test_v4_nowait(void **state) {
  (void)state;
  long x[N], y[N];
  input(x, y);
  assert_int_equal(launch_scale(&scale23_region, 4, 1, y, x, LIT), 0);
  check_scaled(y, x);
}

/* the older convention beside it, on an image that names clang 22:
 * KernelArgs 2, one parameter per argument (kernels.c's kernels take no
 * dyn_ptr, so version 2 rather than 3) */
static void test_v2_on_clang22_image(void **state) {
  (void)state;
  long x[N], y[N];
  input(x, y);
  assert_int_equal(launch_scale(&k22_scale_region, 2, 0, y, x, 0), 0);
  check_scaled(y, x);
}

/* 20 literals and the dyn_ptr: 22 parameters through the one pointer */
static void test_v4_many_literals(void **state) {
  (void)state;
  long out = 0, want = 0;
  void *base[22];
  int64_t sizes[22] = {sizeof out}, types[22];
  base[0] = &out;
  types[0] = PARAM | OMP_TGT_MAPTYPE_FROM;
  for (int i = 1; i <= 20; i++) {
    base[i] = (void *)(intptr_t)(i * 1000 + i);
    want += i * 1000 + i;
    sizes[i] = 0;
    types[i] = LIT;
  }
  base[21] = NULL, sizes[21] = 0, types[21] = LIT;
  __tgt_kernel_arguments ka = {.Version = 4, .NumArgs = 22,
                               .ArgBasePtrs = base, .ArgPtrs = base,
                               .ArgSizes = sizes, .ArgTypes = types};
  assert_int_equal(
      __tgt_target_kernel(NULL, -1, -1, 0, (void *)&sum23_region, &ka), 0);
  assert_int_equal(out, want);
}

/* PRIVATE|ATTACH: the kernel's private copy of p points at p's pointee on
 * the device (LLVM #160760), mapped by the construct's first entry */
static void test_private_attach(void **state) {
  (void)state;
  int data[N];
  int *p = data;
  long n = N;
  for (int i = 0; i < N; i++)
    data[i] = 10 * i;
  void *base[4] = {p, &p, (void *)n, NULL};
  void *begin[4] = {p, p, (void *)n, NULL};
  int64_t sizes[4] = {sizeof data, sizeof p, 0, 0};
  int64_t types[4] = {OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM,
                      PARAM | OMP_TGT_MAPTYPE_PRIVATE | OMP_TGT_MAPTYPE_ATTACH,
                      LIT, LIT};
  __tgt_kernel_arguments ka = {.Version = 4, .NumArgs = 4,
                               .ArgBasePtrs = base, .ArgPtrs = begin,
                               .ArgSizes = sizes, .ArgTypes = types};
  assert_int_equal(
      __tgt_target_kernel(NULL, -1, -1, 0, (void *)&bump23_region, &ka), 0);
  for (int i = 0; i < N; i++)
    assert_int_equal(data[i], 10 * i + 1);
  assert_ptr_equal(p, data); /* the host pointer is untouched */
}

/* use_device_ptr of an unmapped pointer: kept (OpenMP 5.1), or NULL with
 * FB_NULLIFY (OpenMP 6.1 fb_nullify, LLVM #169603) */
static void test_fb_nullify(void **state) {
  (void)state;
  int unmapped[4];
  for (int nullify = 0; nullify <= 1; nullify++) {
    void *base[1] = {unmapped}, *begin[1] = {unmapped};
    int64_t sizes[1] = {0};
    int64_t types[1] = {OMP_TGT_MAPTYPE_RETURN_PARAM |
                        (nullify ? OMP_TGT_MAPTYPE_FB_NULLIFY : 0)};
    __tgt_target_data_begin_mapper(NULL, -1, 1, base, begin, sizes, types,
                                   NULL, NULL);
    if (nullify)
      assert_null(base[0]);
    else
      assert_ptr_equal(base[0], unmapped);
    base[0] = unmapped;
    __tgt_target_data_end_mapper(NULL, -1, 1, base, begin, sizes, types,
                                 NULL, NULL);
  }
}

static void no_env(const void *ctx) { (void)ctx; }

/* Disagreements are refused with the construct failing (status 1, a
 * device exists, so the default policy is mandatory), naming the cause. */
static void test_refusals(void **state) {
  (void)state;
  static const struct {
    const char *mode, *expect;
  } cases[] = {
      {"v3-on-clang23", "made by clang 23, whose host kernels take one void **"},
      {"v4-on-clang22", "made by clang 22, whose host kernels take one "
                        "parameter per argument, but KernelArgs version 4"},
      {"v4-without-dyn-ptr", "the last of 4 entries has type 0x0, but from "
                             "version 4 on it is the implicit dyn_ptr"},
      {"v5", "kernel-arguments version 5 is not supported"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[8192];
    int status = abi_run_child(self_path, cases[i].mode, no_env, NULL, out,
                               sizeof out);
    if (status != 1 || !strstr(out, cases[i].expect))
      fail_msg("case %s: status %d, stderr:\n%s", cases[i].mode, status, out);
  }
}

/* requires unified_shared_memory: the kernel runs in the host process
 * (simdevice's usm.c), called through the void ** there too */
static void test_v4_unified_shared_memory(void **state) {
  (void)state;
  char out[8192];
  int status = abi_run_child(self_path, "usm-v4", no_env, NULL, out,
                             sizeof out);
  if (status != 0)
    fail_msg("status %d, stderr:\n%s", status, out);
}

static int child(const char *mode) {
  if (!strcmp(mode, "usm-v4"))
    __tgt_register_requires(OMP_REQ_UNIFIED_SHARED_MEMORY);
  if (setup(NULL) != 0)
    return 2;
  long x[N], y[N];
  input(x, y);
  int rc = 0;
  if (!strcmp(mode, "usm-v4")) {
    if (launch_scale(&scale23_region, 4, 0, y, x, LIT) != 0)
      return 3;
    for (int i = 0; i < N; i++)
      if (y[i] != x[i] * 3)
        return 4;
    return 0;
  }
  if (!strcmp(mode, "v3-on-clang23"))
    rc = launch_scale(&scale23_region, 3, 0, y, x, 0);
  else if (!strcmp(mode, "v4-on-clang22"))
    rc = launch_scale(&k22_scale_region, 4, 0, y, x, LIT);
  else if (!strcmp(mode, "v4-without-dyn-ptr")) {
    __tgt_kernel_arguments ka = {.Version = 4, .NumArgs = 4};
    void *base[4] = {y, x, (void *)(long)N, (void *)3L};
    int64_t sizes[4] = {sizeof y, sizeof x, 0, 0};
    int64_t types[4] = {PARAM | OMP_TGT_MAPTYPE_FROM,
                        PARAM | OMP_TGT_MAPTYPE_TO, LIT, 0};
    ka.ArgBasePtrs = ka.ArgPtrs = base;
    ka.ArgSizes = sizes;
    ka.ArgTypes = types;
    rc = __tgt_target_kernel(NULL, -1, -1, 0, (void *)&scale23_region, &ka);
  } else if (!strcmp(mode, "v5"))
    rc = launch_scale(&scale23_region, 5, 0, y, x, LIT);
  return rc == 0 ? 0 : 5; /* the refusal ends the program before this */
}

/* The launches alone: what --remote runs too. */
#define LAUNCH_TESTS                                                           \
  cmocka_unit_test(test_v4_on_clang23_image),                                  \
      cmocka_unit_test(test_v4_on_anonymous_image),                            \
      cmocka_unit_test(test_v4_nowait),                                        \
      cmocka_unit_test(test_v2_on_clang22_image),                              \
      cmocka_unit_test(test_v4_many_literals),                                 \
      cmocka_unit_test(test_private_attach)

/* --remote: the launches alone, for a device in another MPI rank
 * (tests/mpi.sh: run_target_kernel forwarded to it); not the refusals,
 * whose children are no ranks, nor unified shared memory */
static int remote_group(void) {
  const struct CMUnitTest tests[] = {LAUNCH_TESTS};
  return cmocka_run_group_tests(tests, setup, NULL);
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--child"))
    return child(argv[2]);
  if (argc == 2 && !strcmp(argv[1], "--remote"))
    return remote_group();
  const struct CMUnitTest tests[] = {
      LAUNCH_TESTS,
      cmocka_unit_test(test_fb_nullify),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_v4_unified_shared_memory),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
