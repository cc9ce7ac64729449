/*
 * fuzz_images.c - libFuzzer target for the descriptor and image parsers:
 * libomptarget's registry (a one-image descriptor around the input: raw ELF
 * or OffloadBinary container) and the simdevice plugin's ELF check of the
 * payload it finds. Any input must give a result or an error message, never
 * a crash, a leak or an out-of-bounds read (built with AddressSanitizer).
 * Built and run by `make fuzz`; seeds in tests/fuzz/corpus/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

/* simdevice/plugin/elfimage.c (not in any header libomptarget sees) */
int elfimage_check(const __tgt_device_image *image, const void **elf,
                   size_t *size, char *why, size_t why_len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* A private copy, so reads past the end hit ASan's redzone. */
  unsigned char *copy = malloc(size ? size : 1);
  if (!copy)
    return 0;
  memcpy(copy, data, size);
  static __tgt_offload_entry no_entries[1];
  __tgt_device_image image = {copy, copy + size, no_entries, no_entries};
  __tgt_bin_desc desc = {1, &image, no_entries, no_entries};
  char err[512];
  struct registered_lib *lib = registry_parse_descriptor(&desc, err, sizeof err);
  if (lib) {
    const void *elf;
    size_t elf_size;
    char why[400];
    for (int32_t i = 0; i < lib->num_images; i++)
      (void)elfimage_check(&lib->images[i].plugin_image, &elf, &elf_size, why,
                           sizeof why);
    registry_free(lib);
  } else if (!err[0]) {
    abort(); /* a refusal must say why */
  }
  const void *elf;
  size_t elf_size;
  char why[400] = "";
  if (elfimage_check(&image, &elf, &elf_size, why, sizeof why) != 0 && !why[0])
    abort();
  free(copy);
  return 0;
}
