/* abi_driver.c - fault-sweep corpus: the entry points clang no longer emits
 * (__tgt_target_data_begin/end, __tgt_target_teams without a mapper, and
 * __tgt_set_info_flag), on a hand-built descriptor whose device image is
 * build/tests/abi/kernels.so (argv[1]); and, with argv[2]
 * (build/tests/abi/kernels23.so), a launch in clang 23's convention
 * (KernelArgs version 4, no clang 23 being installed). Prints PASS when the
 * kernels' results came back right, FAIL otherwise; a failed construct
 * under OMP_TARGET_OFFLOAD=mandatory ends it in libomptarget with
 * status 1. */
#include <stdio.h>
#include <stdlib.h>

#include "../abi/abi_image.h"
#include "omptarget.h"

#define N 32

static const char scale_region; /* a host region id, as clang emits */
static __tgt_offload_entry host_entries[] = {
    {(void *)&scale_region, "scale_kernel", 0, 0, 0},
};
static const char scale23_region;
static __tgt_offload_entry host_entries23[] = {
    {(void *)&scale23_region, "scale23", 0, 0, 0},
};

/* y = x * 3 by KernelArgs version 4 on kernels23.so (the image at path):
 * the number of wrong elements, or -1 when it cannot be registered. */
static int scale_v4(const char *path, const long *x) {
  struct abi_image k23;
  if (abi_image_register(&k23, path, host_entries23, 1) != 0)
    return -1;
  long y[N], n = N, k = 3;
  void *base[5] = {y, (void *)x, (void *)n, (void *)k, NULL};
  int64_t sizes[5] = {sizeof y, N * sizeof(long), 0, 0, 0};
  const int64_t lit = OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_LITERAL;
  int64_t types[5] = {OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_FROM,
                      OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_TO, lit,
                      lit, lit};
  __tgt_kernel_arguments ka = {.Version = 4, .NumArgs = 5,
                               .ArgBasePtrs = base, .ArgPtrs = base,
                               .ArgSizes = sizes, .ArgTypes = types};
  if (__tgt_target_kernel(NULL, -1, -1, 0, (void *)&scale23_region, &ka))
    for (int i = 0; i < N; i++) /* the host version of the region */
      y[i] = x[i] * k;
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += y[i] != x[i] * 3;
  abi_image_unregister(&k23);
  return bad;
}

int main(int argc, char **argv) {
  struct abi_image kernels;
  if (argc < 2 || abi_image_register(&kernels, argv[1], host_entries, 1) != 0) {
    fprintf(stderr, "usage: abi_driver build/tests/abi/kernels.so [build/tests/abi/kernels23.so]\n");
    return 2;
  }
  __tgt_set_info_flag(0);

  long x[N], y[N], n = N, k = 3;
  for (int i = 0; i < N; i++) {
    x[i] = i;
    y[i] = -1;
  }
  void *base[4] = {y, x, (void *)n, (void *)k};
  int64_t sizes[4] = {sizeof y, sizeof x, 0, 0};
  int64_t data_types[2] = {OMP_TGT_MAPTYPE_FROM, OMP_TGT_MAPTYPE_TO};
  int64_t kernel_types[4] = {
      OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_FROM,
      OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_TO,
      OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_LITERAL,
      OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_LITERAL};
  __tgt_target_data_begin(-1, 2, base, base, sizes, data_types);
  int32_t rc = __tgt_target_teams(-1, (void *)&scale_region, 4, base, base,
                                  sizes, kernel_types, 1, 1);
  if (rc != 0) /* the host version of the region */
    for (int i = 0; i < N; i++)
      y[i] = x[i] * k;
  __tgt_target_data_end(-1, 2, base, base, sizes, data_types);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += y[i] != i * 3;
  if (argc > 2)
    bad += scale_v4(argv[2], x) != 0;
  abi_image_unregister(&kernels);
  printf(bad ? "FAIL\n" : "PASS\n");
  return bad ? 1 : 0;
}
