/*
 * image.c - is this image for CUDA, and what kind? Decided from the bytes
 * alone (no driver call), so is_valid_binary is cheap and safe on any input:
 *   - a cubin: ELF64 with e_machine EM_CUDA (190), as nvlink writes it;
 *   - PTX text (the driver JIT-compiles it): printable text with a
 *     `.version` directive near its start;
 *   - a fatbinary (magic 0xBA55ED50), which the driver picks from;
 *   - any of these inside an OffloadBinary container (10 FF 10 AD, clang
 *     15/16): its OpenMP image for an nvptx64-* triple. libomptarget
 *     normally unwraps the container before calling the plugin; this copes
 *     when it did not.
 * Containers and ELF headers are parsed by common/offload_image.c; this file
 * keeps the CUDA policy and recognises PTX and fatbinaries.
 *
 * Locking: none; pure functions over the caller's bytes.
 */
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"
#include "offload_image.h"

#define PTX_SCAN_BYTES 8192 /* `.version` follows a short comment header */
static const unsigned char fatbin_magic[4] = {0x50, 0xED, 0x55, 0xBA};

const char *image_kind_name(enum cuda_image_kind kind) {
  switch (kind) {
  case CUDA_IMAGE_CUBIN: return "cubin";
  case CUDA_IMAGE_PTX: return "PTX";
  case CUDA_IMAGE_FATBIN: return "fatbinary";
  default: return "not a CUDA image";
  }
}

static int is_text_byte(unsigned char c) {
  return c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f);
}

/* PTX: everything up to `.version` is text, and `.version` is near the
 * start. A trailing NUL is allowed (the driver wants one anyway). */
static int looks_like_ptx(const unsigned char *p, size_t size) {
  size_t scan = size < PTX_SCAN_BYTES ? size : PTX_SCAN_BYTES;
  static const char directive[] = ".version";
  size_t dlen = sizeof directive - 1;
  for (size_t i = 0; i < scan; i++) {
    if (!is_text_byte(p[i]))
      return 0;
    if (i + dlen <= size && memcmp(p + i, directive, dlen) == 0)
      return 1;
  }
  return 0;
}

static int classify_raw(const unsigned char *p, size_t size,
                        struct cuda_image_payload *out, char *why,
                        size_t why_len) {
  out->bytes = p;
  out->size = size;
  if (offload_elf_magic(p, size)) {
    struct offload_elf_header header;
    if (offload_elf_read_header(p, size, &header, why, why_len) != 0)
      return -1;
    if (header.elf_class != ELFCLASS64) {
      snprintf(why, why_len, "image is a 32-bit ELF file; cubins are ELF64");
      return -1;
    }
    if (header.machine != EM_CUDA) {
      snprintf(why, why_len,
               "image is an ELF file for machine %u (%s), not EM_CUDA (190):"
               " it belongs to another device",
               header.machine, offload_elf_machine_name(header.machine));
      return -1;
    }
    out->kind = CUDA_IMAGE_CUBIN;
    return 0;
  }
  if (size >= 4 && memcmp(p, fatbin_magic, 4) == 0) {
    out->kind = CUDA_IMAGE_FATBIN;
    return 0;
  }
  if (looks_like_ptx(p, size)) {
    out->kind = CUDA_IMAGE_PTX;
    return 0;
  }
  char first[16];
  offload_image_first_bytes(p, size, first, sizeof first);
  snprintf(why, why_len,
           "image is neither a cubin, PTX nor a fatbinary (first bytes %s)",
           first);
  return -1;
}

int image_classify(const __tgt_device_image *image,
                   struct cuda_image_payload *out, char *why,
                   size_t why_len) {
  memset(out, 0, sizeof *out);
  const struct offload_image_want nvptx = {OFFLOAD_KIND_OPENMP, "nvptx64"};
  struct offload_container_image found;
  if (offload_image_unwrap(image ? image->ImageStart : NULL,
                           image ? image->ImageEnd : NULL, &nvptx, &found, why,
                           why_len) != 0)
    return -1;
  return classify_raw(found.bytes, found.size, out, why, why_len);
}
