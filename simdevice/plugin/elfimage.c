/*
 * elfimage.c - is this image for simdevice? The parsing is common/
 * offload_image.c's (the ELF payload, raw or the OpenMP image of an
 * OffloadBinary container; its ELF header read with libelf); the policy is
 * simdevice's: a 64-bit little-endian shared object (ET_DYN) for the
 * plugin's device machine (the host's, or ppc64le for the ppc64le plugin:
 * DEVICE_MACHINE) and OS ABI, and on ppc64le the ELFv2 ABI.
 *
 * Locking: none; offload_image.c needs none.
 */
#include <elf.h>
#include <stdio.h>

#include "offload_image.h"
#include "plugin_internal.h"

/* DEVICE_MACHINE and its name: plugin_internal.h. */
#define HOST_MACHINE DEVICE_MACHINE
#define HOST_MACHINE_NAME DEVICE_MACHINE_NAME
#if DEVICE_MACHINE == EM_PPC64
#define HOST_PPC64_ABI 2 /* ELFv2: ppc64le has no other */
#endif

/* The policy on a well-formed ELF header. */
static int check_header(const struct offload_elf_header *h, char *why,
                        size_t why_len) {
  if (h->elf_class != ELFCLASS64) {
    snprintf(why, why_len, "image is a 32-bit ELF file; simdevice runs 64-bit "
                           "shared objects");
    return -1;
  }
  if (h->data != ELFDATA2LSB) {
    snprintf(why, why_len, "image is a big-endian ELF file%s",
             h->machine == EM_PPC64 ? " (ppc64 big-endian, not ppc64le)" : "");
    return -1;
  }
  if (h->machine != HOST_MACHINE) {
    snprintf(why, why_len,
             "image is for machine %u (%s), not %s: it belongs to another "
             "device",
             h->machine, offload_elf_machine_name(h->machine),
             HOST_MACHINE_NAME);
    return -1;
  }
  if (h->osabi != ELFOSABI_NONE && h->osabi != ELFOSABI_GNU) {
    snprintf(why, why_len,
             "image has ELF OS ABI %u (%s), not System V or GNU/Linux",
             h->osabi, offload_elf_osabi_name(h->osabi));
    return -1;
  }
#ifdef HOST_PPC64_ABI
  unsigned abi = offload_elf_ppc64_abi(h);
  if (abi != 0 && abi != HOST_PPC64_ABI) {
    snprintf(why, why_len,
             "image uses the ppc64 ELFv%u ABI (e_flags 0x%x); simdevice on "
             "%s runs ELFv%d code",
             abi, (unsigned)h->flags, HOST_MACHINE_NAME, HOST_PPC64_ABI);
    return -1;
  }
#endif
  if (h->type != ET_DYN) {
    snprintf(why, why_len,
             "image has ELF type %u, not a shared object (ET_DYN)", h->type);
    return -1;
  }
  return 0;
}

int elfimage_check(const __tgt_device_image *image, const void **elf_out,
                   size_t *size_out, char *why, size_t why_len) {
  const struct offload_image_want openmp = {OFFLOAD_KIND_OPENMP, NULL};
  struct offload_container_image found;
  struct offload_elf_header header;
  if (offload_image_unwrap(image ? image->ImageStart : NULL,
                           image ? image->ImageEnd : NULL, &openmp, &found,
                           why, why_len) != 0 ||
      offload_elf_read_header(found.bytes, found.size, &header, why,
                              why_len) != 0 ||
      check_header(&header, why, why_len) != 0)
    return -1;
  *elf_out = found.bytes;
  *size_out = found.size;
  return 0;
}
