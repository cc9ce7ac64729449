/*
 * fuzz_images.c - libFuzzer target for every parser of untrusted images:
 * common/offload_image.c itself (containers found by several offload kinds
 * and triples, ELF headers of the input and of every image found), and its
 * three callers: libomptarget's registry (a one-image descriptor around the
 * input), the simdevice plugin's ELF check and the CUDA plugin's image
 * classification; and the two readers of ELF beside it: libomptarget's
 * symbol tables (src/hostsyms.c: symbol names, a function's address, a
 * symbol's initial bytes) and the device process's DT_NEEDED reader
 * (simdevice/server/stubs.c, by hand: the server links no libelf). Any input must give a result or an error message, never
 * a crash, a leak or an out-of-bounds read (built with AddressSanitizer);
 * an image found must lie inside the input.
 * Built and run by `make fuzz`; seeds in tests/fuzz/corpus/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "hostsyms.h"
#include "offload_image.h"
#include "registry.h"

/* simdevice/server/stubs.c (its header is the server's own) */
int stubs_each_needed(const unsigned char *file, size_t size,
                      int (*need)(const char *name));

/* simdevice/plugin/elfimage.c (its header is the plugin's own) */
int elfimage_check(const __tgt_device_image *image, const void **elf,
                   size_t *size, char *why, size_t why_len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failure must say why; a success must point inside the input. */
static void check_outcome(int rc, const char *why, const void *found,
                          size_t found_size, const unsigned char *input,
                          size_t input_size) {
  if (rc != 0) {
    if (!why[0])
      abort();
    return;
  }
  const unsigned char *p = found;
  if (found && (p < input || found_size > input_size ||
                (size_t)(p - input) > input_size - found_size))
    abort();
}

static void fuzz_elf_header(const unsigned char *bytes, size_t size,
                            const unsigned char *input, size_t input_size) {
  struct offload_elf_header header;
  char why[400] = "";
  int rc = offload_elf_read_header(bytes, size, &header, why, sizeof why);
  check_outcome(rc, why, bytes, size, input, input_size);
  if (rc == 0) {
    (void)offload_elf_machine_name(header.machine);
    (void)offload_elf_osabi_name(header.osabi);
    (void)offload_elf_ppc64_abi(&header);
  }
}

static void fuzz_container(const unsigned char *input, size_t size) {
  static const struct offload_image_want wants[] = {
      {0, NULL},
      {OFFLOAD_KIND_OPENMP, NULL},
      {OFFLOAD_KIND_OPENMP, "nvptx64"},
      {OFFLOAD_KIND_HIP, "amdgcn"},
      {0, "x86_64"},
  };
  (void)offload_container_find(input, size, NULL, &(struct offload_container_image){0},
                               (char[400]){0}, 400);
  for (size_t i = 0; i < sizeof wants / sizeof wants[0]; i++) {
    struct offload_container_image found;
    char why[400] = "";
    int rc = offload_container_find(input, size, &wants[i], &found, why,
                                    sizeof why);
    check_outcome(rc, why, rc == 0 ? found.bytes : NULL, found.size, input,
                  size);
    if (rc == 0)
      fuzz_elf_header(found.bytes, found.size, input, size);
  }
}

/* A DT_NEEDED name handed out must be a string inside the input. */
static const unsigned char *needed_input;
static size_t needed_size;
static int need_inside(const char *name) {
  const unsigned char *p = (const unsigned char *)name;
  if (p < needed_input || (size_t)(p - needed_input) >= needed_size ||
      !memchr(p, '\0', needed_size - (size_t)(p - needed_input)))
    abort();
  return name[0] == 'l'; /* some known, some not: both paths run */
}

static void fuzz_other_elf_readers(const unsigned char *input, size_t size) {
  needed_input = input;
  needed_size = size;
  (void)stubs_each_needed(input, size, need_inside);
  for (int dynamic = 0; dynamic < 2; dynamic++) {
    struct elf_syms syms;
    if (elf_syms_from_memory(input, size, dynamic, &syms) != 0)
      continue;
    size_t named = 0;
    for (size_t i = 0; i < syms.count; i++)
      named += elf_syms_name(&syms, &syms.syms[i]) != NULL;
    (void)named;
    (void)elf_syms_find_function(&syms, "main");
  }
  unsigned char value[16];
  (void)elf_image_read_symbol(input, size, "__omp_rtl_debug_kind", value, 4);
  (void)elf_image_read_symbol(input, size, "main", value, sizeof value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* A private copy, so reads past the end hit ASan's redzone. */
  unsigned char *copy = malloc(size ? size : 1);
  if (!copy)
    return 0;
  memcpy(copy, data, size);

  fuzz_container(copy, size);
  fuzz_elf_header(copy, size, copy, size);
  fuzz_other_elf_readers(copy, size);

  static __tgt_offload_entry no_entries[1];
  __tgt_device_image image = {copy, copy + size, no_entries, no_entries};
  __tgt_bin_desc desc = {1, &image, no_entries, no_entries};
  char err[512] = "";
  struct registered_lib *lib = registry_parse_descriptor(&desc, err, sizeof err);
  if (lib) {
    for (int32_t i = 0; i < lib->num_images; i++) {
      const void *elf;
      size_t elf_size;
      char why[400] = "";
      int rc = elfimage_check(&lib->images[i].plugin_image, &elf, &elf_size,
                              why, sizeof why);
      check_outcome(rc, why, rc == 0 ? elf : NULL, elf_size, copy, size);
    }
    registry_free(lib);
  } else if (!err[0]) {
    abort(); /* a refusal must say why */
  }

  const void *elf = NULL;
  size_t elf_size = 0;
  char why[400] = "";
  int rc = elfimage_check(&image, &elf, &elf_size, why, sizeof why);
  check_outcome(rc, why, elf, elf_size, copy, size);

  struct cuda_image_payload payload;
  char cuda_why[400] = "";
  rc = image_classify(&image, &payload, cuda_why, sizeof cuda_why);
  check_outcome(rc, cuda_why, rc == 0 ? payload.bytes : NULL, payload.size,
                copy, size);
  free(copy);
  return 0;
}
