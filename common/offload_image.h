/*
 * offload_image.h - the one parser of offload images for every library of
 * simtarget (libomptarget.so, the simdevice plugin, the CUDA plugin; each
 * links its own copy of offload_image.o, hidden behind its version script).
 *
 * It reads untrusted bytes only inside the bounds it is given and says what
 * is wrong with them; it decides nothing else. Each caller keeps its own
 * policy: which machine, class or triple it accepts, and its messages.
 *
 *   - OffloadBinary containers (clang 15/16; magic 10 FF 10 AD, layout in
 *     clang-abi.md section 3): one, or several laid end to end as in an
 *     .llvm.offloading section. offload_container_find picks the image by
 *     offload kind and triple after checking every offset it follows.
 *   - ELF headers, read with libelf: class, data encoding, type, machine,
 *     OS ABI and flags, with the program and section header tables checked
 *     to lie inside the image.
 *
 * Every function fills `why` (never longer than why_len) when it fails.
 * Locking: none needed; libelf's version handshake runs once under
 * pthread_once and every call works on the caller's bytes only.
 */
#ifndef SIMTARGET_OFFLOAD_IMAGE_H
#define SIMTARGET_OFFLOAD_IMAGE_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Machines an older elf.h may not name. */
#ifndef EM_CUDA
#define EM_CUDA 190
#endif
#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

#define OFFLOAD_IMAGE_HIDDEN __attribute__((visibility("hidden")))

/* LLVM's OffloadBinary ImageKind and OffloadKind values. */
enum offload_image_kind {
  OFFLOAD_IMAGE_NONE = 0,
  OFFLOAD_IMAGE_OBJECT = 1,
  OFFLOAD_IMAGE_BITCODE = 2,
  OFFLOAD_IMAGE_CUBIN = 3,
  OFFLOAD_IMAGE_FATBINARY = 4,
  OFFLOAD_IMAGE_PTX = 5,
};
enum offload_kind {
  OFFLOAD_KIND_NONE = 0,
  OFFLOAD_KIND_OPENMP = 1,
  OFFLOAD_KIND_CUDA = 2,
  OFFLOAD_KIND_HIP = 3,
};

#define OFFLOAD_TEXT_MAX 64 /* triple and arch, with their NUL */

/* One image found in a container; `bytes` points into the caller's input. */
struct offload_container_image {
  const unsigned char *bytes;
  size_t size;
  uint16_t image_kind;     /* enum offload_image_kind */
  uint16_t offload_kind;   /* enum offload_kind */
  uint32_t flags;
  char triple[OFFLOAD_TEXT_MAX]; /* "" when the container names none */
  char arch[OFFLOAD_TEXT_MAX];
  size_t container_offset; /* where its container starts in the input */
};

/* Which image a caller wants: 0 / NULL accept anything. */
struct offload_image_want {
  uint16_t offload_kind;
  const char *triple_prefix; /* "nvptx64" matches "nvptx64-nvidia-cuda" */
};

/* Do the bytes start with the OffloadBinary (ELF) magic? */
OFFLOAD_IMAGE_HIDDEN bool offload_container_magic(const void *bytes,
                                                  size_t size);
OFFLOAD_IMAGE_HIDDEN bool offload_elf_magic(const void *bytes, size_t size);

/* Finds the first image `want` accepts in the container(s) at `bytes`
 * (`want` NULL: the first image). Every container up to that one is checked
 * whole: header, version, size, entry, string table, strings, image bounds.
 * Returns 0 with *out filled, or -1 with the cause in `why` (truncated
 * container at offset X, wrong version, entry out of bounds, ..., or which
 * images it holds when none is wanted). */
OFFLOAD_IMAGE_HIDDEN int offload_container_find(
    const void *bytes, size_t size, const struct offload_image_want *want,
    struct offload_container_image *out, char *why, size_t why_len);

/* The bytes a plugin is handed as [start, end): the image wanted from an
 * OffloadBinary container, or the bytes themselves (then only `bytes` and
 * `size` are set). Returns 0, or -1 with the cause in `why` (also when
 * [start, end) holds no bytes). */
OFFLOAD_IMAGE_HIDDEN int offload_image_unwrap(
    const void *start, const void *end, const struct offload_image_want *want,
    struct offload_container_image *out, char *why, size_t why_len);

/* The facts of an ELF header, in host byte order. */
struct offload_elf_header {
  unsigned elf_class;   /* ELFCLASS32 or ELFCLASS64 */
  unsigned data;        /* ELFDATA2LSB or ELFDATA2MSB */
  unsigned osabi;       /* e_ident[EI_OSABI] */
  unsigned abi_version; /* e_ident[EI_ABIVERSION] */
  uint16_t type;        /* e_type */
  uint16_t machine;     /* e_machine */
  uint32_t flags;       /* e_flags */
};

/* Reads the ELF header at `bytes` with libelf and checks that libelf can
 * read the image and that its program and section header tables lie inside
 * `size` bytes. Returns 0 with *out filled, or -1 with the cause. */
OFFLOAD_IMAGE_HIDDEN int offload_elf_read_header(
    const void *bytes, size_t size, struct offload_elf_header *out, char *why,
    size_t why_len);

/* Where an ELF64 image of this host's byte order keeps its symbol table
 * (.dynsym when `dynamic`, else .symtab) and that table's strings: byte
 * offsets and sizes, each inside the image, found through libelf. */
struct offload_elf_symtab {
  size_t syms_offset, syms_size; /* Elf64_Sym entries, aligned for them */
  size_t strs_offset, strs_size;
};
/* Returns 0 with *out filled, or -1 with the cause (no such table, another
 * class or byte order, a table outside the image). */
OFFLOAD_IMAGE_HIDDEN int offload_elf_find_symtab(const void *bytes,
                                                 size_t size, bool dynamic,
                                                 struct offload_elf_symtab *out,
                                                 char *why, size_t why_len);

/* Section `index` of an ELF64 image of this host's byte order, found
 * through libelf: its address and the offset and size of its bytes in the
 * image (inside it; SHT_NOBITS sections have none and are refused).
 * Returns 0 with *out filled, or -1 with the cause. */
struct offload_elf_section {
  uint64_t addr;
  size_t offset, size;
};
OFFLOAD_IMAGE_HIDDEN int offload_elf_section_bytes(
    const void *bytes, size_t size, size_t index,
    struct offload_elf_section *out, char *why, size_t why_len);

/* The major version of the clang that compiled the image, from the
 * "clang version N" its `.comment` section holds (every clang 13-22 device
 * image measured has it, after crtbegin's "GCC: ..." string); the highest
 * when there are several. 0 when there is none (stripped, another
 * compiler, not an ELF64 image of this host's byte order). */
OFFLOAD_IMAGE_HIDDEN unsigned offload_elf_clang_major(const void *bytes,
                                                      size_t size);

/* For messages: "x86-64", "NVIDIA CUDA", ..., or "unknown". */
OFFLOAD_IMAGE_HIDDEN const char *offload_elf_machine_name(unsigned machine);
OFFLOAD_IMAGE_HIDDEN const char *offload_elf_osabi_name(unsigned osabi);
/* A ppc64 image's ABI from e_flags: 1 (ELFv1), 2 (ELFv2), 0 unspecified
 * (or not a ppc64 image). */
OFFLOAD_IMAGE_HIDDEN unsigned offload_elf_ppc64_abi(
    const struct offload_elf_header *header);

/* The first (up to 4) bytes as "de ad be ef", for "it starts with" messages. */
OFFLOAD_IMAGE_HIDDEN void offload_image_first_bytes(const void *bytes,
                                                   size_t size, char *out,
                                                   size_t out_len);

#endif
