/*
 * test_seed_interface.c - drives libomptarget through the seed's synchronous
 * interface and clang's entry points with a __tgt_bin_desc built by hand, as
 * a compiler would, on the real simdevice plugin (a separate device process).
 *
 * The device image is build/tests/abi/kernels.so (tests/abi/kernels.c).
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

#define M 8
#define S 2
#define N 16
struct S1 {
  int x, y, B[M], *pB, u, v;
};

/* host region ids: one byte each, as clang emits */
static const char seed_region, scale_region, dyn_region, bump_region;
static long host_counter = 1; /* the host twin of device_counter */

static __tgt_offload_entry host_entries[] = {
    {(void *)&seed_region, "seed_kernel", 0, 0, 0},
    {(void *)&scale_region, "scale_kernel", 0, 0, 0},
    {(void *)&dyn_region, "dyn_kernel", 0, 0, 0},
    {(void *)&host_counter, "device_counter", sizeof(long), 0, 0},
    {(void *)&bump_region, "bump_counter", 0, 0, 0},
};

static struct abi_image kernels;

static int setup(void **state) {
  (void)state;
  return abi_kernels_register(&kernels, NULL, host_entries, 5);
}

static int teardown(void **state) {
  (void)state;
  abi_image_unregister(&kernels);
  return 0;
}

static void test_num_devices(void **state) {
  (void)state;
  assert_true(omp_get_num_devices() >= 1);
  assert_int_equal(omp_get_initial_device(), omp_get_num_devices());
}

/*
 * Seed 000's pointer-mapping example (its table of args_base/args/args_size/
 * args_maptype), in today's encoding: FIRST_REF is TARGET_PARAM, PRIVATE_VAL
 * is LITERAL, PRIVATE_PTR is PRIVATE, MAP_PTR is PTR_AND_OBJ, RETURN_PTR is
 * RETURN_PARAM; every kernel argument carries TARGET_PARAM and the struct
 * members carry MEMBER_OF, as clang 13+ emit them.
 */
static void test_seed_pointer_example(void **state) {
  (void)state;
  int A[N], D[N], *pA, i = 0;
  struct S1 s1;
  int C[N];
  pA = malloc(N * sizeof(int));
  s1.pB = malloc(M * sizeof(int));
  int *host_pB = s1.pB;
  for (int k = 0; k < N; k++) {
    A[k] = k;
    D[k] = 2;
    pA[k] = 100 + k;
    C[k] = 3;
  }
  for (int k = 0; k < M; k++) {
    s1.B[k] = 10 * k;
    s1.pB[k] = -1;
  }

  /* target data map(pA[0:M], s1, C) use_device_ptr(C) */
  void *db_base[] = {pA, &s1, C};
  void *db_args[] = {&pA[0], &s1, C};
  int64_t db_sizes[] = {M * sizeof(int), sizeof s1, N * sizeof(int)};
  int64_t db_types[] = {0x23, 0x23, 0x23 | OMP_TGT_MAPTYPE_RETURN_PARAM};
  __tgt_target_data_begin(-1, 3, db_base, db_args, db_sizes, db_types);
  int *dC = db_base[2]; /* RETURN_PARAM: the device address of C */
  assert_ptr_not_equal(dC, C);
  assert_true(omp_target_is_present(C, 0));
  assert_ptr_equal(omp_get_mapped_ptr(C, 0), dC);

  /* target map(to: A[S:M], s1.B[0:M]) map(from: s1.pB[0:M])
   *        is_device_ptr(C) firstprivate(D[0:M]) (and i) */
  void *t_base[] = {pA, A, &s1, &s1, &s1.pB, dC, (void *)(intptr_t)i, D};
  void *t_args[] = {pA, &A[S], &s1.B[0], &s1.B[0], &s1.pB[0], dC,
                    (void *)(intptr_t)i, &D[0]};
  int64_t t_sizes[] = {0, M * sizeof(int), M * sizeof(int) + sizeof(void *),
                       M * sizeof(int), M * sizeof(int), 0, 0, M * sizeof(int)};
  int64_t member_of_3 = (int64_t)3 << OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT;
  int64_t t_types[] = {0x23,
                       0x21,
                       0x20,
                       0x01 | member_of_3,
                       0x02 | 0x10 | member_of_3,
                       0x120,
                       0x120,
                       0xa1};
  assert_int_equal(
      __tgt_target(-1, (void *)&seed_region, 8, t_base, t_args, t_sizes,
                   t_types),
      0);
  /* s1.pB's pointee came back (FROM), and the host pointer is unchanged */
  assert_ptr_equal(s1.pB, host_pB);
  for (int k = S; k < M; k++) {
    int dev_A = k + 1, dev_pA = 100 + k - 1;
    assert_int_equal(s1.pB[k - S], 10 * (k - S) + dev_A * dev_pA - 3 * 2);
  }
  assert_int_equal(A[S], S); /* map(to: A): host A unchanged */
  assert_int_equal(pA[S], 100 + S); /* pA only comes back at data end */

  __tgt_target_data_end(-1, 3, db_base, db_args, db_sizes, db_types);
  for (int k = S; k < M; k++)
    assert_int_equal(pA[k], 100 + k - 1);
  assert_false(omp_target_is_present(C, 0));
  /* s1 came back whole (tofrom): its pointer member holds the host value
   * again, not the device pointee address the device copy held */
  assert_ptr_equal(s1.pB, host_pB);
  free(pA);
  free(host_pB);
}

static void test_teams_and_literals(void **state) {
  (void)state;
  long x[N], y[N];
  for (int k = 0; k < N; k++)
    x[k] = k, y[k] = 0;
  long n = N, f = 3;
  void *base[] = {y, x, (void *)n, (void *)f};
  int64_t sizes[] = {sizeof y, sizeof x, 0, 0};
  int64_t types[] = {0x22, 0x21, 0x120, 0x120};
  assert_int_equal(__tgt_target_teams(0, (void *)&scale_region, 4, base, base,
                                      sizes, types, 4, 16),
                   0);
  for (int k = 0; k < N; k++)
    assert_int_equal(y[k], 3 * k);
}

static void test_kernel_args_versions(void **state) {
  (void)state;
  long out = 0;
  void *base[] = {&out, (void *)41L};
  int64_t sizes[] = {sizeof out, 0};
  int64_t types[] = {0x22, 0x120};
  __tgt_kernel_arguments ka = {.Version = 3,
                               .NumArgs = 2,
                               .ArgBasePtrs = base,
                               .ArgPtrs = base,
                               .ArgSizes = sizes,
                               .ArgTypes = types};
  assert_int_equal(__tgt_target_kernel(NULL, -1, 0, 0, (void *)&dyn_region,
                                       &ka),
                   0);
  assert_int_equal(out, 42); /* dyn_ptr came first and was NULL */

  long x[4] = {1, 2, 3, 4}, y[4] = {0};
  void *b2[] = {y, x, (void *)4L, (void *)5L};
  int64_t s2[] = {sizeof y, sizeof x, 0, 0};
  int64_t t2[] = {0x22, 0x21, 0x120, 0x120};
  __tgt_kernel_arguments v2 = {.Version = 2, .NumArgs = 4, .ArgBasePtrs = b2,
                               .ArgPtrs = b2, .ArgSizes = s2, .ArgTypes = t2};
  assert_int_equal(__tgt_target_kernel(NULL, -1, 0, 0, (void *)&scale_region,
                                       &v2),
                   0);
  assert_int_equal(y[3], 20);
}

static void test_declare_target_global(void **state) {
  (void)state;
  void *base[] = {&host_counter};
  int64_t sizes[] = {sizeof host_counter};
  int64_t from[] = {OMP_TGT_MAPTYPE_FROM};
  int64_t to[] = {OMP_TGT_MAPTYPE_TO};
  assert_true(omp_target_is_present(&host_counter, 0));
  host_counter = 7;
  __tgt_target_data_update(-1, 1, base, base, sizes, to);
  assert_int_equal(__tgt_target(-1, (void *)&bump_region, 0, NULL, NULL, NULL,
                                NULL),
                   0);
  host_counter = 0;
  __tgt_target_data_update(-1, 1, base, base, sizes, from);
  assert_int_equal(host_counter, 17);
}

static void test_reserved_device_ids(void **state) {
  (void)state;
  /* -3: every device used so far (device 0 was) */
  assert_int_equal(__tgt_target(OFFLOAD_DEVICE_ALL_USED, (void *)&bump_region,
                                0, NULL, NULL, NULL, NULL),
                   0);
  void *base[] = {&host_counter};
  int64_t sizes[] = {sizeof host_counter};
  int64_t from[] = {OMP_TGT_MAPTYPE_FROM};
  __tgt_target_data_update(OFFLOAD_DEVICE_ALL_PENDING, 1, base, base, sizes,
                           from);
  assert_int_equal(host_counter, 27);
  /* the initial device means "run the host version", without an error */
  assert_int_not_equal(__tgt_target(omp_get_initial_device(),
                                    (void *)&bump_region, 0, NULL, NULL, NULL,
                                    NULL),
                       0);
}

/* This program's own path (abi_self_path). */
static char self_path[4096];

struct child_env {
  const char *policy, *plugins;
};

static void set_child_env(const void *ctx) {
  const struct child_env *e = ctx;
  if (e->policy)
    setenv("OMP_TARGET_OFFLOAD", e->policy, 1);
  else
    unsetenv("OMP_TARGET_OFFLOAD");
  if (e->plugins)
    setenv("LIBOMPTARGET_PLUGINS", e->plugins, 1);
}

/* Run this program again as a child in `mode`, stderr captured. */
static int run_child(const char *mode, const char *policy, const char *plugins,
                     char *out, size_t len) {
  struct child_env e = {policy, plugins};
  return abi_run_child(self_path, mode, set_child_env, &e, out, len);
}

/* Bad arguments are refused with a message naming them, never a crash.
 * A device exists, so (as in LLVM) the default policy is mandatory: the
 * program ends with status 1 and the cause. */
static void test_bad_arguments(void **state) {
  (void)state;
  static const struct {
    const char *mode, *expect;
  } cases[] = {
      {"null-arrays", "args_base array is NULL"},
      {"negative-size", "size -8 is negative"},
      {"unknown-bits", "unknown bits 0x800000"},
      {"device-99", "device id 99 is out of range"},
      {"unknown-region", "no registered library has this host entry"},
      {"null-kargs", "kernel-arguments pointer is NULL"},
      {"kargs-version-9", "kernel-arguments version 9 is not supported"},
      {"missing-entry", "kernel_not_in_image"},
      {"truncated-image", "truncated ELF image"},
      {"wrong-machine", "machine 190 (NVIDIA CUDA), not "}, /* this build's */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[8192];
    int status = run_child(cases[i].mode, NULL, NULL, out, sizeof out);
    if (status != 1 || !strstr(out, cases[i].expect) ||
        !strstr(out, "OMP_TARGET_OFFLOAD is not set and a device exists"))
      fail_msg("case %s: status %d, stderr:\n%s", cases[i].mode, status, out);
  }
}

/* Without any device, a failed construct quietly runs the host version. */
static void test_no_device_falls_back(void **state) {
  (void)state;
  char out[8192];
  int status = run_child("expect-fallback", NULL, "no-such-plugin", out,
                         sizeof out);
  if (status != 0)
    fail_msg("status %d, stderr:\n%s", status, out);
}

/* Under OMP_TARGET_OFFLOAD=mandatory a failed construct ends the program
 * with status 1 and says what failed and where. */
static void test_mandatory_failure_exits(void **state) {
  (void)state;
  char out[8192];
  int status = run_child("absent-present", "mandatory", NULL, out, sizeof out);
  assert_int_equal(status, 1);
  assert_non_null(strstr(out, "OMP_TARGET_OFFLOAD=mandatory"));
  assert_non_null(strstr(out, "tests/abi/test_seed_interface.c:42:7"));
  assert_non_null(strstr(out, "map(present)"));
}

/* The child side: one bad call; returning means the runtime fell back. */
static int child(const char *mode) {
  setup(NULL);
  long v = 0;
  void *base[] = {&v};
  int64_t neg_size[] = {-8}, size8[] = {8};
  int64_t to_param[] = {0x21}, bad_bits[] = {0x800000};
  static const char unknown_region;
  int32_t rc = 0;
  if (!strcmp(mode, "null-arrays"))
    rc = __tgt_target(-1, (void *)&scale_region, 2, NULL, NULL, NULL, NULL);
  else if (!strcmp(mode, "negative-size"))
    rc = __tgt_target(-1, (void *)&scale_region, 1, base, base, neg_size,
                      to_param);
  else if (!strcmp(mode, "unknown-bits"))
    rc = __tgt_target(-1, (void *)&scale_region, 1, base, base, size8,
                      bad_bits);
  else if (!strcmp(mode, "device-99"))
    rc = __tgt_target(99, (void *)&scale_region, 0, NULL, NULL, NULL, NULL);
  else if (!strcmp(mode, "unknown-region"))
    rc = __tgt_target(-1, (void *)&unknown_region, 0, NULL, NULL, NULL, NULL);
  else if (!strcmp(mode, "null-kargs"))
    rc = __tgt_target_kernel(NULL, -1, 0, 0, (void *)&scale_region, NULL);
  else if (!strcmp(mode, "kargs-version-9")) {
    __tgt_kernel_arguments ka = {.Version = 9};
    rc = __tgt_target_kernel(NULL, -1, 0, 0, (void *)&scale_region, &ka);
  } else if (!strcmp(mode, "expect-fallback")) {
    if (omp_get_num_devices() != 0)
      return 3;
    rc = __tgt_target(-1, (void *)&scale_region, 0, NULL, NULL, NULL, NULL);
    return rc != 0 ? 0 : 4; /* non-zero: the host version must run */
  } else if (!strcmp(mode, "missing-entry") ||
             !strcmp(mode, "truncated-image") ||
             !strcmp(mode, "wrong-machine")) {
    /* a second library whose image is broken or lacks the entry */
    static const char broken_region;
    static __tgt_offload_entry entries[] = {
        {(void *)&broken_region, "kernel_not_in_image", 0, 0, 0}};
    char *copy = malloc(kernels.size);
    memcpy(copy, kernels.bytes, kernels.size);
    size_t size = kernels.size;
    if (!strcmp(mode, "truncated-image"))
      size = 100;
    if (!strcmp(mode, "wrong-machine"))
      copy[18] = (char)190, copy[19] = 0; /* e_machine = EM_CUDA */
    static __tgt_device_image img;
    static __tgt_bin_desc d;
    img = (__tgt_device_image){copy, copy + size, entries, entries + 1};
    d = (__tgt_bin_desc){1, &img, entries, entries + 1};
    __tgt_register_lib(&d);
    rc = __tgt_target(-1, (void *)&broken_region, 0, NULL, NULL, NULL, NULL);
  } else if (!strcmp(mode, "absent-present")) {
    int64_t types[] = {OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_PRESENT};
    ident_t loc = {0, 0, 0, 0,
                   ";tests/abi/test_seed_interface.c;child;42;7;;"};
    __tgt_target_data_begin_mapper(&loc, -1, 1, base, base, size8, types,
                                   NULL, NULL);
  }
  (void)rc;
  return 0; /* not reached when the failure policy ends the program */
}

int main(int argc, char **argv) {
  if (abi_self_path(self_path, sizeof self_path) != 0)
    return 1;
  if (argc > 2 && !strcmp(argv[1], "--child"))
    return child(argv[2]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_num_devices),
      cmocka_unit_test(test_seed_pointer_example),
      cmocka_unit_test(test_teams_and_literals),
      cmocka_unit_test(test_kernel_args_versions),
      cmocka_unit_test(test_declare_target_global),
      cmocka_unit_test(test_reserved_device_ids),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_no_device_falls_back),
      cmocka_unit_test(test_mandatory_failure_exits),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
