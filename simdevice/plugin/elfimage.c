/*
 * elfimage.c - is this image for simdevice? Finds the ELF payload (raw, or
 * inside an OffloadBinary container: clang-abi.md section 3) and checks it
 * with libelf: ELF64, little-endian, ET_DYN, and the host's machine.
 *
 * Locking: libelf's version handshake runs once under pthread_once; each
 * check uses its own Elf handle, so no lock is needed.
 */
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "plugin_internal.h"

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#define HOST_MACHINE_NAME "x86-64"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_MACHINE EM_PPC64
#define HOST_MACHINE_NAME "ppc64le"
#else
#error "simdevice runs device code on the host: x86-64 or ppc64le only"
#endif

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;
static int libelf_ready;

static void libelf_start(void) { libelf_ready = elf_version(EV_CURRENT) != EV_NONE; }

static uint64_t read_u64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* OffloadBinary: header (magic, version, size, entry offset, entry size),
 * then an entry whose ImageOffset/ImageSize (+0x18/+0x20) locate the ELF. */
static int unwrap_container(const unsigned char *start, size_t size,
                            const unsigned char **elf, size_t *elf_size,
                            char *why, size_t why_len) {
  if (size < 0x20) {
    snprintf(why, why_len, "OffloadBinary container of %zu bytes is truncated",
             size);
    return -1;
  }
  uint64_t total = read_u64(start + 0x08), entry = read_u64(start + 0x10);
  if (total > size || entry > size || size - entry < 0x28) {
    snprintf(why, why_len,
             "OffloadBinary container is truncated (size field %llu, "
             "%zu bytes given)",
             (unsigned long long)total, size);
    return -1;
  }
  uint64_t off = read_u64(start + entry + 0x18);
  uint64_t len = read_u64(start + entry + 0x20);
  if (off > size || len > size - off) {
    snprintf(why, why_len,
             "OffloadBinary image [%llu, +%llu) lies outside the %zu-byte "
             "container",
             (unsigned long long)off, (unsigned long long)len, size);
    return -1;
  }
  *elf = start + off;
  *elf_size = (size_t)len;
  return 0;
}

static const char *machine_name(int machine) {
  switch (machine) {
  case EM_X86_64: return "x86-64";
  case EM_PPC64: return "PowerPC64";
  case EM_AARCH64: return "AArch64";
  case EM_AMDGPU: return "AMDGPU";
  case 190: return "NVIDIA CUDA";
  case EM_386: return "i386";
  default: return "unknown";
  }
}

int elfimage_check(const __tgt_device_image *image, const void **elf_out,
                   size_t *size_out, char *why, size_t why_len) {
  if (image == NULL || image->ImageStart == NULL ||
      image->ImageEnd <= image->ImageStart) {
    snprintf(why, why_len, "image has no bytes (ImageStart %p, ImageEnd %p)",
             image ? image->ImageStart : NULL, image ? image->ImageEnd : NULL);
    return -1;
  }
  const unsigned char *bytes = image->ImageStart;
  size_t size = (size_t)((const unsigned char *)image->ImageEnd - bytes);
  static const unsigned char offload_magic[4] = {0x10, 0xFF, 0x10, 0xAD};
  if (size >= 4 && memcmp(bytes, offload_magic, 4) == 0 &&
      unwrap_container(bytes, size, &bytes, &size, why, why_len) != 0)
    return -1;
  if (size < 4 || memcmp(bytes, ELFMAG, SELFMAG) != 0) {
    snprintf(why, why_len, "image is not an ELF file (first bytes %02x %02x "
                           "%02x %02x)",
             size > 0 ? bytes[0] : 0, size > 1 ? bytes[1] : 0,
             size > 2 ? bytes[2] : 0, size > 3 ? bytes[3] : 0);
    return -1;
  }
  pthread_once(&libelf_once, libelf_start);
  if (!libelf_ready) {
    snprintf(why, why_len, "libelf refused version EV_CURRENT");
    return -1;
  }
  int rc = -1;
  Elf *e = elf_memory((char *)bytes, size);
  if (e == NULL) {
    snprintf(why, why_len, "libelf cannot read the image: %s", elf_errmsg(-1));
    return -1;
  }
  GElf_Ehdr eh;
  if (elf_kind(e) != ELF_K_ELF || gelf_getehdr(e, &eh) == NULL) {
    snprintf(why, why_len, "image is a broken ELF file: %s", elf_errmsg(-1));
    goto out_end;
  }
  if (gelf_getclass(e) != ELFCLASS64) {
    snprintf(why, why_len, "image is a 32-bit ELF file; simdevice runs 64-bit "
                           "shared objects");
    goto out_end;
  }
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    snprintf(why, why_len, "image is a big-endian ELF file");
    goto out_end;
  }
  if (eh.e_machine != HOST_MACHINE) {
    snprintf(why, why_len,
             "image is for machine %d (%s), not %s: it belongs to another "
             "device",
             eh.e_machine, machine_name(eh.e_machine), HOST_MACHINE_NAME);
    goto out_end;
  }
  if (eh.e_type != ET_DYN) {
    snprintf(why, why_len,
             "image has ELF type %d, not a shared object (ET_DYN)",
             eh.e_type);
    goto out_end;
  }
  *elf_out = bytes;
  *size_out = size;
  rc = 0;
out_end:
  elf_end(e);
  return rc;
}
