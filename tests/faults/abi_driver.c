/* abi_driver.c - fault-sweep corpus: the entry points clang no longer emits
 * (__tgt_target_data_begin/end, __tgt_target_teams without a mapper, and
 * __tgt_set_info_flag), on a hand-built descriptor whose device image is
 * build/tests/abi/kernels.so (argv[1]). Prints PASS when the kernel's
 * result came back right, FAIL otherwise; a failed construct under
 * OMP_TARGET_OFFLOAD=mandatory ends it in libomptarget with status 1. */
#include <stdio.h>
#include <stdlib.h>

#include "omptarget.h"

#define N 32

static const char scale_region; /* a host region id, as clang emits */
static __tgt_offload_entry host_entries[] = {
    {(void *)&scale_region, "scale_kernel", 0, 0, 0},
};

static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
        fread(buf, 1, (size_t)n, f) != (size_t)n) {
      free(buf);
      buf = NULL;
    }
    *size = (size_t)n;
  }
  fclose(f);
  return buf;
}

int main(int argc, char **argv) {
  size_t size = 0;
  char *image = argc > 1 ? read_file(argv[1], &size) : NULL;
  if (!image) {
    fprintf(stderr, "usage: abi_driver build/tests/abi/kernels.so\n");
    return 2;
  }
  __tgt_device_image dev_image = {image, image + size, host_entries,
                                  host_entries + 1};
  __tgt_bin_desc desc = {1, &dev_image, host_entries, host_entries + 1};
  __tgt_register_lib(&desc);
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
  __tgt_unregister_lib(&desc);
  free(image);
  printf(bad ? "FAIL\n" : "PASS\n");
  return bad ? 1 : 0;
}
