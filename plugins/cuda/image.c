/*
 * image.c - is this image for CUDA, and what kind? Decided from the bytes
 * alone (no driver call), so is_valid_binary is cheap and safe on any input:
 *   - a cubin: ELF64 with e_machine EM_CUDA (190), as nvlink writes it;
 *   - PTX text (the driver JIT-compiles it): printable text with a
 *     `.version` directive near its start;
 *   - a fatbinary (magic 0xBA55ED50), which the driver picks from;
 *   - any of these inside an OffloadBinary container (10 FF 10 AD, clang
 *     15/16) whose triple is nvptx64-*. libomptarget normally unwraps the
 *     container before calling the plugin; this copes when it did not.
 *
 * Locking: none; pure functions over the caller's bytes.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

#define PTX_SCAN_BYTES 8192 /* `.version` follows a short comment header */
static const unsigned char offload_magic[4] = {0x10, 0xFF, 0x10, 0xAD};
static const unsigned char fatbin_magic[4] = {0x50, 0xED, 0x55, 0xBA};

const char *image_kind_name(enum cuda_image_kind kind) {
  switch (kind) {
  case CUDA_IMAGE_CUBIN: return "cubin";
  case CUDA_IMAGE_PTX: return "PTX";
  case CUDA_IMAGE_FATBIN: return "fatbinary";
  default: return "not a CUDA image";
  }
}

static uint64_t read_u64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
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

static const char *machine_name(unsigned machine) {
  switch (machine) {
  case EM_X86_64: return "x86-64";
  case EM_PPC64: return "PowerPC64";
  case EM_AARCH64: return "AArch64";
  case 224: return "AMDGPU";
  case EM_386: return "i386";
  default: return "unknown";
  }
}

static int classify_raw(const unsigned char *p, size_t size,
                        struct cuda_image_payload *out, char *why,
                        size_t why_len) {
  out->bytes = p;
  out->size = size;
  if (size >= SELFMAG && memcmp(p, ELFMAG, SELFMAG) == 0) {
    if (size < sizeof(Elf64_Ehdr)) {
      snprintf(why, why_len, "image is an ELF file of only %zu bytes", size);
      return -1;
    }
    Elf64_Ehdr eh;
    memcpy(&eh, p, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
      snprintf(why, why_len, "image is a 32-bit ELF file; cubins are ELF64");
      return -1;
    }
    if (eh.e_machine != EM_CUDA) {
      snprintf(why, why_len,
               "image is an ELF file for machine %u (%s), not EM_CUDA (190):"
               " it belongs to another device",
               eh.e_machine, machine_name(eh.e_machine));
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
  snprintf(why, why_len,
           "image is neither a cubin, PTX nor a fatbinary (first bytes %02x "
           "%02x %02x %02x)",
           size > 0 ? p[0] : 0, size > 1 ? p[1] : 0, size > 2 ? p[2] : 0,
           size > 3 ? p[3] : 0);
  return -1;
}

/* The NUL-terminated string at container offset `off`, or NULL. */
static const char *container_string(const unsigned char *start, size_t size,
                                    uint64_t off) {
  if (off >= size || memchr(start + off, '\0', size - off) == NULL)
    return NULL;
  return (const char *)start + off;
}

/* OffloadBinary: header {magic, version u32, size u64, entry offset u64,
 * entry size u64}; entry {kinds u16 u16, flags u32, string offset u64,
 * string count u64, image offset u64, image size u64}; strings are
 * {key offset u64, value offset u64} pairs. Offsets count from the header. */
static int unwrap_container(const unsigned char *start, size_t size,
                            const unsigned char **payload,
                            size_t *payload_size, char *why, size_t why_len) {
  if (size < 0x20) {
    snprintf(why, why_len, "OffloadBinary container of %zu bytes is truncated",
             size);
    return -1;
  }
  uint64_t entry = read_u64(start + 0x10);
  if (entry > size || size - entry < 0x28) {
    snprintf(why, why_len,
             "OffloadBinary entry at offset %llu lies outside the %zu-byte "
             "container",
             (unsigned long long)entry, size);
    return -1;
  }
  const unsigned char *e = start + entry;
  uint64_t strings = read_u64(e + 0x08), nstrings = read_u64(e + 0x10);
  uint64_t off = read_u64(e + 0x18), len = read_u64(e + 0x20);
  if (off > size || len > size - off) {
    snprintf(why, why_len,
             "OffloadBinary image [%llu, +%llu) lies outside the %zu-byte "
             "container",
             (unsigned long long)off, (unsigned long long)len, size);
    return -1;
  }
  if (strings > size || nstrings > (size - strings) / 16) {
    snprintf(why, why_len,
             "OffloadBinary string table (%llu strings at %llu) lies outside "
             "the %zu-byte container",
             (unsigned long long)nstrings, (unsigned long long)strings, size);
    return -1;
  }
  for (uint64_t i = 0; i < nstrings; i++) {
    const unsigned char *pair = start + strings + i * 16;
    const char *key = container_string(start, size, read_u64(pair));
    const char *value = container_string(start, size, read_u64(pair + 8));
    if (key == NULL || value == NULL || strcmp(key, "triple") != 0)
      continue;
    if (strncmp(value, "nvptx64", 7) != 0) {
      snprintf(why, why_len,
               "OffloadBinary container is for triple %.80s, not nvptx64",
               value);
      return -1;
    }
  }
  *payload = start + off;
  *payload_size = (size_t)len;
  return 0;
}

int image_classify(const __tgt_device_image *image,
                   struct cuda_image_payload *out, char *why,
                   size_t why_len) {
  memset(out, 0, sizeof *out);
  if (image == NULL || image->ImageStart == NULL ||
      image->ImageEnd <= image->ImageStart) {
    snprintf(why, why_len, "image has no bytes (ImageStart %p, ImageEnd %p)",
             image ? image->ImageStart : NULL, image ? image->ImageEnd : NULL);
    return -1;
  }
  const unsigned char *p = image->ImageStart;
  size_t size = (size_t)((const unsigned char *)image->ImageEnd - p);
  if (size >= 4 && memcmp(p, offload_magic, 4) == 0 &&
      unwrap_container(p, size, &p, &size, why, why_len) != 0)
    return -1;
  return classify_raw(p, size, out, why, why_len);
}
