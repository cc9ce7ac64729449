/*
 * offload_image.c - OffloadBinary containers and ELF headers of untrusted
 * offload images (offload_image.h). Every offset read from the input is
 * checked against the bytes given before it is followed; arithmetic on
 * them is done so that it cannot wrap.
 */
#include "offload_image.h"

#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* OffloadBinary layout (clang-abi.md section 3). Offsets inside a container
 * count from its first byte; all fields are little-endian. */
#define OB_MAGIC "\x10\xff\x10\xad"
#define OB_MAGIC_SIZE 4
#define OB_HEADER_SIZE 0x20u  /* magic, version u32, size, entry offset, entry size */
#define OB_ENTRY_SIZE 0x28u   /* kinds u16 u16, flags u32, strings, count, image, size */
#define OB_STRING_PAIR_SIZE 16u /* key offset, value offset */
#define OB_VERSION 1u
#define OB_ALIGN 8u /* containers follow one another at this alignment */

#ifndef EF_PPC64_ABI
#define EF_PPC64_ABI 3
#endif
#define ELFOSABI_CUDA_VALUE 51
#define ELFOSABI_AMDGPU_HSA_VALUE 64

static uint64_t read_le(const unsigned char *p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = bytes; i-- > 0;)
    v = v << 8 | p[i];
  return v;
}

/* [off, off+len) lies inside [0, total) without overflowing. */
static bool range_inside(uint64_t off, uint64_t len, uint64_t total) {
  return off <= total && len <= total - off;
}

bool offload_container_magic(const void *bytes, size_t size) {
  return bytes && size >= OB_MAGIC_SIZE &&
         memcmp(bytes, OB_MAGIC, OB_MAGIC_SIZE) == 0;
}

bool offload_elf_magic(const void *bytes, size_t size) {
  return bytes && size >= SELFMAG && memcmp(bytes, ELFMAG, SELFMAG) == 0;
}

void offload_image_first_bytes(const void *bytes, size_t size, char *out,
                               size_t out_len) {
  unsigned char first[4] = {0};
  if (bytes)
    memcpy(first, bytes, size < sizeof first ? size : sizeof first);
  snprintf(out, out_len, "%02x %02x %02x %02x", first[0], first[1], first[2],
           first[3]);
}

static const char *offload_kind_name(unsigned kind) {
  switch (kind) {
  case OFFLOAD_KIND_OPENMP: return "OpenMP";
  case OFFLOAD_KIND_CUDA: return "CUDA";
  case OFFLOAD_KIND_HIP: return "HIP";
  default: return "unknown";
  }
}

/* ------------------------------------------------------- OffloadBinary */

/* One container's bytes: [base, base+size), at `offset` of the input. */
struct container {
  const unsigned char *base;
  uint64_t size;
  size_t offset;
};

/* Checks the NUL-terminated string at `off` and copies it to out (when out
 * is not NULL). */
static int container_string(const struct container *c, uint64_t off,
                            char *out, size_t out_len, const char *what,
                            char *why, size_t why_len) {
  if (off >= c->size) {
    snprintf(why, why_len,
             "OffloadBinary container at offset 0x%zx: %s string offset"
             " 0x%llx is past the container size 0x%llx",
             c->offset, what, (unsigned long long)off,
             (unsigned long long)c->size);
    return -1;
  }
  const unsigned char *nul = memchr(c->base + off, '\0', c->size - off);
  if (!nul) {
    snprintf(why, why_len,
             "OffloadBinary container at offset 0x%zx: %s string at 0x%llx"
             " is not terminated inside the container",
             c->offset, what, (unsigned long long)off);
    return -1;
  }
  size_t len = (size_t)(nul - (c->base + off));
  if (out) {
    if (len >= out_len) {
      snprintf(why, why_len,
               "OffloadBinary container at offset 0x%zx: %s string of %zu"
               " bytes is too long (at most %zu)",
               c->offset, what, len, out_len - 1);
      return -1;
    }
    memcpy(out, c->base + off, len + 1);
  }
  return 0;
}

/* The string table: every key and value must be inside; "triple" and
 * "arch" are kept. */
static int read_strings(const struct container *c, uint64_t table,
                        uint64_t count, struct offload_container_image *out,
                        char *why, size_t why_len) {
  if (count > c->size / OB_STRING_PAIR_SIZE ||
      !range_inside(table, count * OB_STRING_PAIR_SIZE, c->size)) {
    snprintf(why, why_len,
             "OffloadBinary container at offset 0x%zx: string table at"
             " 0x%llx with %llu strings is outside the container of 0x%llx"
             " bytes",
             c->offset, (unsigned long long)table, (unsigned long long)count,
             (unsigned long long)c->size);
    return -1;
  }
  for (uint64_t i = 0; i < count; i++) {
    const unsigned char *pair = c->base + table + i * OB_STRING_PAIR_SIZE;
    uint64_t key_off = read_le(pair, 8), value_off = read_le(pair + 8, 8);
    if (container_string(c, key_off, NULL, 0, "key", why, why_len) < 0)
      return -1;
    const char *key = (const char *)c->base + key_off; /* terminated */
    char *dest = NULL;
    if (!strcmp(key, "triple"))
      dest = out->triple;
    else if (!strcmp(key, "arch"))
      dest = out->arch;
    if (container_string(c, value_off, dest, OFFLOAD_TEXT_MAX,
                         dest ? key : "value", why, why_len) < 0)
      return -1;
  }
  return 0;
}

/* Checks the container at `offset` of the input whole and describes its
 * image. */
static int read_container(const unsigned char *input, size_t input_size,
                          size_t offset, struct container *c,
                          struct offload_container_image *out, char *why,
                          size_t why_len) {
  memset(out, 0, sizeof *out);
  out->container_offset = offset;
  const unsigned char *h = input + offset;
  size_t avail = input_size - offset;
  if (avail < OB_HEADER_SIZE) {
    snprintf(why, why_len,
             "OffloadBinary container truncated at offset 0x%zx: %zu bytes,"
             " the header needs %u",
             offset, avail, OB_HEADER_SIZE);
    return -1;
  }
  if (memcmp(h, OB_MAGIC, OB_MAGIC_SIZE) != 0) {
    char first[16];
    offload_image_first_bytes(h, avail, first, sizeof first);
    snprintf(why, why_len,
             "no OffloadBinary container at offset 0x%zx: wrong magic %s"
             " (expected 10 ff 10 ad)",
             offset, first);
    return -1;
  }
  uint32_t version = (uint32_t)read_le(h + 4, 4);
  uint64_t size = read_le(h + 8, 8);
  uint64_t entry_off = read_le(h + 16, 8), entry_size = read_le(h + 24, 8);
  if (version != OB_VERSION) {
    snprintf(why, why_len,
             "OffloadBinary container version %u at offset 0x%zx is not"
             " supported (expected %u)",
             version, offset, OB_VERSION);
    return -1;
  }
  if (size < OB_HEADER_SIZE) {
    snprintf(why, why_len,
             "OffloadBinary container size 0x%llx at offset 0x%zx is smaller"
             " than its %u-byte header",
             (unsigned long long)size, offset, OB_HEADER_SIZE);
    return -1;
  }
  if (size > avail) {
    snprintf(why, why_len,
             "OffloadBinary container size 0x%llx at offset 0x%zx does not"
             " fit the 0x%zx bytes given",
             (unsigned long long)size, offset, avail);
    return -1;
  }
  *c = (struct container){h, size, offset};
  if (entry_size < OB_ENTRY_SIZE) {
    snprintf(why, why_len,
             "OffloadBinary container at offset 0x%zx: entry size 0x%llx is"
             " smaller than an entry (0x%x)",
             offset, (unsigned long long)entry_size, OB_ENTRY_SIZE);
    return -1;
  }
  if (!range_inside(entry_off, entry_size, size)) {
    snprintf(why, why_len,
             "OffloadBinary container at offset 0x%zx: entry at 0x%llx+0x%llx"
             " is outside the container of 0x%llx bytes",
             offset, (unsigned long long)entry_off,
             (unsigned long long)entry_size, (unsigned long long)size);
    return -1;
  }
  const unsigned char *e = h + entry_off;
  out->image_kind = (uint16_t)read_le(e, 2);
  out->offload_kind = (uint16_t)read_le(e + 2, 2);
  out->flags = (uint32_t)read_le(e + 4, 4);
  uint64_t image_off = read_le(e + 24, 8), image_size = read_le(e + 32, 8);
  if (read_strings(c, read_le(e + 8, 8), read_le(e + 16, 8), out, why,
                   why_len) < 0)
    return -1;
  if (image_size == 0) {
    snprintf(why, why_len,
             "OffloadBinary container at offset 0x%zx: its image is empty",
             offset);
    return -1;
  }
  if (!range_inside(image_off, image_size, size)) {
    snprintf(why, why_len,
             "OffloadBinary container at offset 0x%zx: image at 0x%llx+0x%llx"
             " is outside the container of 0x%llx bytes",
             offset, (unsigned long long)image_off,
             (unsigned long long)image_size, (unsigned long long)size);
    return -1;
  }
  out->bytes = h + image_off;
  out->size = (size_t)image_size;
  return 0;
}

static bool kind_wanted(const struct offload_image_want *want,
                        const struct offload_container_image *img) {
  return !want || !want->offload_kind ||
         want->offload_kind == img->offload_kind;
}

static bool triple_wanted(const struct offload_image_want *want,
                          const struct offload_container_image *img) {
  return !want || !want->triple_prefix || !want->triple_prefix[0] ||
         strncmp(img->triple, want->triple_prefix,
                 strlen(want->triple_prefix)) == 0;
}

static const char *triple_text(const char *triple) {
  return triple[0] ? triple : "(none)";
}

/* Why the images seen (the first one, and `count` in all, listed in
 * `seen`) are not the one wanted. */
static void explain_unwanted(const struct offload_image_want *want,
                             const struct offload_container_image *first,
                             size_t count, const char *seen, char *why,
                             size_t why_len) {
  if (count == 1 && !kind_wanted(want, first)) {
    snprintf(why, why_len,
             "OffloadBinary container holds an image for offload kind %u"
             " (%s), not %s (%u)",
             first->offload_kind, offload_kind_name(first->offload_kind),
             offload_kind_name(want->offload_kind), want->offload_kind);
  } else if (count == 1) {
    snprintf(why, why_len,
             "OffloadBinary container holds an image for triple %s, not %s",
             triple_text(first->triple), want->triple_prefix);
  } else {
    snprintf(why, why_len,
             "none of the %zu images in the OffloadBinary containers is for"
             " %s%s%s%s: they are for %s",
             count, want->offload_kind ? "offload kind " : "",
             want->offload_kind ? offload_kind_name(want->offload_kind) : "",
             want->offload_kind && want->triple_prefix ? " and " : "",
             want->triple_prefix ? want->triple_prefix : "", seen);
  }
}

int offload_container_find(const void *bytes, size_t size,
                           const struct offload_image_want *want,
                           struct offload_container_image *out, char *why,
                           size_t why_len) {
  if (!offload_container_magic(bytes, size)) {
    char first[16];
    offload_image_first_bytes(bytes, size, first, sizeof first);
    snprintf(why, why_len,
             "not an OffloadBinary container: it starts with %s (expected"
             " 10 ff 10 ad)",
             first);
    return -1;
  }
  struct offload_container_image first_seen;
  memset(&first_seen, 0, sizeof first_seen);
  char seen[256] = "";
  size_t count = 0, offset = 0;
  for (;;) {
    struct container c;
    if (read_container(bytes, size, offset, &c, out, why, why_len) < 0)
      return -1;
    if (kind_wanted(want, out) && triple_wanted(want, out))
      return 0;
    if (count++ == 0)
      first_seen = *out;
    size_t used = strlen(seen);
    snprintf(seen + used, sizeof seen - used, "%s%s (%s)", used ? ", " : "",
             triple_text(out->triple), offload_kind_name(out->offload_kind));
    /* The next container starts at the next aligned offset; anything that
     * is not one there is padding. */
    uint64_t next = (uint64_t)offset + c.size;
    next += (OB_ALIGN - next % OB_ALIGN) % OB_ALIGN;
    if (next >= size || !offload_container_magic((const char *)bytes + next,
                                                 size - (size_t)next))
      break;
    offset = (size_t)next;
  }
  explain_unwanted(want, &first_seen, count, seen, why, why_len);
  memset(out, 0, sizeof *out);
  return -1;
}

int offload_image_unwrap(const void *start, const void *end,
                         const struct offload_image_want *want,
                         struct offload_container_image *out, char *why,
                         size_t why_len) {
  memset(out, 0, sizeof *out);
  if (start == NULL || (uintptr_t)end <= (uintptr_t)start) {
    snprintf(why, why_len, "image has no bytes (ImageStart %p, ImageEnd %p)",
             start, end);
    return -1;
  }
  size_t size = (size_t)((uintptr_t)end - (uintptr_t)start);
  if (offload_container_magic(start, size))
    return offload_container_find(start, size, want, out, why, why_len);
  out->bytes = start;
  out->size = size;
  return 0;
}

/* ----------------------------------------------------------------- ELF */

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;
static bool libelf_ready;

static void libelf_start(void) {
  libelf_ready = elf_version(EV_CURRENT) != EV_NONE;
}

/* The ELF header in host byte order, translated by libelf. */
static int translate_header(const unsigned char *p, GElf_Ehdr *eh, char *why,
                            size_t why_len) {
  /* Aligned copies: the image may lie at any address. */
  union {
    Elf32_Ehdr h32;
    Elf64_Ehdr h64;
  } raw, host;
  bool is64 = p[EI_CLASS] == ELFCLASS64;
  size_t header_size = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
  memcpy(&raw, p, header_size);
  Elf_Data src = {.d_buf = &raw, .d_type = ELF_T_EHDR, .d_size = header_size,
                  .d_version = EV_CURRENT};
  Elf_Data dst = {.d_buf = &host, .d_type = ELF_T_EHDR, .d_size = sizeof host,
                  .d_version = EV_CURRENT};
  if ((is64 ? elf64_xlatetom(&dst, &src, p[EI_DATA])
            : elf32_xlatetom(&dst, &src, p[EI_DATA])) == NULL) {
    snprintf(why, why_len, "libelf cannot read the ELF header: %s",
             elf_errmsg(-1));
    return -1;
  }
  memset(eh, 0, sizeof *eh);
  if (is64) {
    *eh = host.h64; /* GElf_Ehdr is Elf64_Ehdr */
    return 0;
  }
  memcpy(eh->e_ident, host.h32.e_ident, EI_NIDENT);
  eh->e_type = host.h32.e_type;
  eh->e_machine = host.h32.e_machine;
  eh->e_version = host.h32.e_version;
  eh->e_entry = host.h32.e_entry;
  eh->e_phoff = host.h32.e_phoff;
  eh->e_shoff = host.h32.e_shoff;
  eh->e_flags = host.h32.e_flags;
  eh->e_ehsize = host.h32.e_ehsize;
  eh->e_phentsize = host.h32.e_phentsize;
  eh->e_phnum = host.h32.e_phnum;
  eh->e_shentsize = host.h32.e_shentsize;
  eh->e_shnum = host.h32.e_shnum;
  eh->e_shstrndx = host.h32.e_shstrndx;
  return 0;
}

/* A header table (program or section headers) must lie inside the image,
 * with entries of the size the class defines. */
static int check_table(const char *what, uint64_t off, unsigned count,
                       unsigned entry_size, size_t expected_entry_size,
                       size_t size, char *why, size_t why_len) {
  if (count == 0)
    return 0;
  if (entry_size != expected_entry_size) {
    snprintf(why, why_len,
             "ELF image: %s entries of %u bytes, expected %zu", what,
             entry_size, expected_entry_size);
    return -1;
  }
  uint64_t bytes = (uint64_t)count * entry_size;
  if (!range_inside(off, bytes, size)) {
    snprintf(why, why_len,
             "truncated ELF image: %s at 0x%llx+0x%llx end past the image"
             " size 0x%zx",
             what, (unsigned long long)off, (unsigned long long)bytes, size);
    return -1;
  }
  return 0;
}

int offload_elf_read_header(const void *bytes, size_t size,
                            struct offload_elf_header *out, char *why,
                            size_t why_len) {
  memset(out, 0, sizeof *out);
  const unsigned char *p = bytes;
  if (!offload_elf_magic(bytes, size)) {
    char first[16];
    offload_image_first_bytes(bytes, size, first, sizeof first);
    snprintf(why, why_len,
             "not an ELF file: it starts with %s (expected 7f 45 4c 46)",
             first);
    return -1;
  }
  if (size < EI_NIDENT) {
    snprintf(why, why_len,
             "truncated ELF image: %zu bytes, the identification alone needs"
             " %d",
             size, EI_NIDENT);
    return -1;
  }
  if (p[EI_CLASS] != ELFCLASS32 && p[EI_CLASS] != ELFCLASS64) {
    snprintf(why, why_len, "ELF image with unknown class %u", p[EI_CLASS]);
    return -1;
  }
  if (p[EI_DATA] != ELFDATA2LSB && p[EI_DATA] != ELFDATA2MSB) {
    snprintf(why, why_len, "ELF image with unknown data encoding %u",
             p[EI_DATA]);
    return -1;
  }
  if (p[EI_VERSION] != EV_CURRENT) {
    snprintf(why, why_len, "ELF image with identification version %u, not %d",
             p[EI_VERSION], EV_CURRENT);
    return -1;
  }
  bool is64 = p[EI_CLASS] == ELFCLASS64;
  size_t header_size = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
  if (size < header_size) {
    snprintf(why, why_len,
             "truncated ELF image: %zu bytes, the ELF%d header alone needs %zu",
             size, is64 ? 64 : 32, header_size);
    return -1;
  }
  pthread_once(&libelf_once, libelf_start);
  if (!libelf_ready) {
    snprintf(why, why_len, "libelf refused version EV_CURRENT");
    return -1;
  }
  GElf_Ehdr eh;
  if (translate_header(p, &eh, why, why_len) < 0)
    return -1;
  /* Section 0 holds the real count when e_shnum is 0 (extended numbering):
   * then at least that one entry must be there. */
  unsigned shnum = eh.e_shnum == 0 && eh.e_shoff != 0 ? 1 : eh.e_shnum;
  if (check_table("program headers", eh.e_phoff, eh.e_phnum, eh.e_phentsize,
                  is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr), size, why,
                  why_len) < 0 ||
      check_table("section headers", eh.e_shoff, shnum, eh.e_shentsize,
                  is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr), size, why,
                  why_len) < 0)
    return -1;
  /* What callers do next with the image (dlopen, symbol lookups) goes
   * through libelf or the loader: libelf must be able to open it. */
  Elf *elf = elf_memory((char *)bytes, size);
  if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
    snprintf(why, why_len, "libelf cannot read the ELF image: %s",
             elf_errmsg(-1));
    if (elf)
      elf_end(elf);
    return -1;
  }
  elf_end(elf);
  out->elf_class = p[EI_CLASS];
  out->data = p[EI_DATA];
  out->osabi = p[EI_OSABI];
  out->abi_version = p[EI_ABIVERSION];
  out->type = eh.e_type;
  out->machine = eh.e_machine;
  out->flags = eh.e_flags;
  return 0;
}

const char *offload_elf_machine_name(unsigned machine) {
  switch (machine) {
  case EM_X86_64: return "x86-64";
  case EM_386: return "i386";
  case EM_PPC64: return "PowerPC64";
  case EM_PPC: return "PowerPC";
  case EM_AARCH64: return "AArch64";
  case EM_ARM: return "ARM";
  case EM_CUDA: return "NVIDIA CUDA";
  case EM_AMDGPU: return "AMDGPU";
  default: return "unknown";
  }
}

const char *offload_elf_osabi_name(unsigned osabi) {
  switch (osabi) {
  case ELFOSABI_NONE: return "System V";
  case ELFOSABI_GNU: return "GNU/Linux";
  case ELFOSABI_FREEBSD: return "FreeBSD";
  case ELFOSABI_CUDA_VALUE: return "NVIDIA CUDA";
  case ELFOSABI_AMDGPU_HSA_VALUE: return "AMDGPU HSA";
  default: return "unknown";
  }
}

unsigned offload_elf_ppc64_abi(const struct offload_elf_header *header) {
  return header->machine == EM_PPC64 ? header->flags & EF_PPC64_ABI : 0;
}

/* The section header of `scn` in host byte order, checked to lie inside
 * the image. */
static int section_inside(Elf_Scn *scn, size_t size, GElf_Shdr *sh) {
  return gelf_getshdr(scn, sh) != NULL &&
                 range_inside(sh->sh_offset, sh->sh_size, size)
             ? 0
             : -1;
}

/* libelf's handle on an ELF64 image of this host's byte order (the only
 * images whose `what`, symbols or sections, are read), or NULL with the
 * cause. The caller ends it (elf_end). */
static Elf *open_host_elf64(const void *bytes, size_t size, const char *what,
                            char *why, size_t why_len) {
  struct offload_elf_header header;
  if (offload_elf_read_header(bytes, size, &header, why, why_len) < 0)
    return NULL;
  const unsigned host_data =
      __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
  if (header.elf_class != ELFCLASS64 || header.data != host_data) {
    snprintf(why, why_len,
             "ELF image: %s are read from ELF64 images of this host's byte"
             " order only", what);
    return NULL;
  }
  Elf *elf = elf_memory((char *)bytes, size);
  if (!elf)
    snprintf(why, why_len, "libelf cannot read the ELF image: %s",
             elf_errmsg(-1));
  return elf;
}

int offload_elf_section_bytes(const void *bytes, size_t size, size_t index,
                              struct offload_elf_section *out, char *why,
                              size_t why_len) {
  memset(out, 0, sizeof *out);
  Elf *elf = open_host_elf64(bytes, size, "sections", why, why_len);
  if (!elf)
    return -1;
  Elf_Scn *scn = elf_getscn(elf, index);
  GElf_Shdr sh;
  int rc = -1;
  if (!scn || section_inside(scn, size, &sh) < 0 || sh.sh_type == SHT_NOBITS) {
    snprintf(why, why_len, "ELF image: section %zu is missing, has no bytes"
                           " in the file or lies outside the image", index);
  } else {
    *out = (struct offload_elf_section){
        .addr = sh.sh_addr, .offset = sh.sh_offset, .size = sh.sh_size};
    rc = 0;
  }
  elf_end(elf);
  return rc;
}

/* The highest N of "clang version N" in a .comment section's bytes. */
static unsigned comment_clang_major(const char *s, size_t n) {
  static const char key[] = "clang version ";
  const size_t klen = sizeof key - 1;
  unsigned best = 0;
  for (size_t i = 0; i + klen < n; i++) {
    if (memcmp(s + i, key, klen) != 0)
      continue;
    unsigned v = 0;
    size_t j = i + klen;
    while (j < n && s[j] >= '0' && s[j] <= '9' && v < 100000)
      v = v * 10 + (unsigned)(s[j++] - '0');
    if (v > best)
      best = v;
  }
  return best;
}

unsigned offload_elf_clang_major(const void *bytes, size_t size) {
  char why[128];
  Elf *elf = open_host_elf64(bytes, size, "comment", why, sizeof why);
  if (!elf)
    return 0;
  size_t shstrndx;
  unsigned major = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn;
         scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_PROGBITS)
        continue;
      const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
      if (!name || strcmp(name, ".comment") != 0 ||
          section_inside(scn, size, &sh) < 0)
        continue;
      unsigned v = comment_clang_major((const char *)bytes + sh.sh_offset,
                                       sh.sh_size);
      if (v > major)
        major = v;
    }
  }
  elf_end(elf);
  return major;
}

int offload_elf_find_symtab(const void *bytes, size_t size, bool dynamic,
                            struct offload_elf_symtab *out, char *why,
                            size_t why_len) {
  memset(out, 0, sizeof *out);
  Elf *elf = open_host_elf64(bytes, size, "symbols", why, why_len);
  if (!elf)
    return -1;
  const GElf_Word wanted = dynamic ? SHT_DYNSYM : SHT_SYMTAB;
  int rc = -1;
  snprintf(why, why_len, "ELF image has no %s section",
           dynamic ? ".dynsym" : ".symtab");
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn;
       scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh, str;
    if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != wanted)
      continue;
    Elf_Scn *strscn = elf_getscn(elf, sh.sh_link);
    if (sh.sh_entsize != sizeof(Elf64_Sym) ||
        sh.sh_offset % _Alignof(Elf64_Sym) != 0 ||
        section_inside(scn, size, &sh) < 0 || !strscn ||
        section_inside(strscn, size, &str) < 0) {
      snprintf(why, why_len,
               "ELF image: its %s section or its strings lie outside the"
               " image or are malformed",
               dynamic ? ".dynsym" : ".symtab");
      break;
    }
    *out = (struct offload_elf_symtab){.syms_offset = sh.sh_offset,
                                       .syms_size = sh.sh_size,
                                       .strs_offset = str.sh_offset,
                                       .strs_size = str.sh_size};
    rc = 0;
    break;
  }
  elf_end(elf);
  return rc;
}
