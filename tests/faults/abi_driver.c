/* abi_driver.c - fault-sweep corpus: the entry points clang no longer emits
 * (__tgt_target_data_begin/end, __tgt_target_teams without a mapper, and
 * __tgt_set_info_flag), on a hand-built descriptor whose device image is
 * build/tests/abi/kernels.so (argv[1]). Prints PASS when the kernel's
 * result came back right, FAIL otherwise; a failed construct under
 * OMP_TARGET_OFFLOAD=mandatory ends it in libomptarget with status 1. */
#include <stdio.h>
#include <stdlib.h>

#include "../abi/abi_image.h"
#include "omptarget.h"

#define N 32

static const char scale_region; /* a host region id, as clang emits */
static __tgt_offload_entry host_entries[] = {
    {(void *)&scale_region, "scale_kernel", 0, 0, 0},
};

int main(int argc, char **argv) {
  struct abi_image kernels;
  if (argc < 2 || abi_image_register(&kernels, argv[1], host_entries, 1) != 0) {
    fprintf(stderr, "usage: abi_driver build/tests/abi/kernels.so\n");
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
  abi_image_unregister(&kernels);
  printf(bad ? "FAIL\n" : "PASS\n");
  return bad ? 1 : 0;
}
