/*
 * stubs.c - the SONAME stand-ins (libomptarget.so.N, sanitizer runtimes;
 * server/stub.c.in) that device images list as NEEDED. They are loaded with
 * RTLD_GLOBAL just before the first image that NEEDs them, so that its
 * NEEDED entries resolve to them by SONAME, not at start-up: 7 dlopens
 * took ~0.3 ms of every first target region, and a clang-14 image needs
 * none of them. An image whose dynamic section cannot be read here, or
 * that NEEDs a library outside the few that are known not to need a
 * stand-in themselves, gets all of them first, as before.
 *
 * The image file is untrusted: its ELF and dynamic headers are read by
 * hand (the server links no libelf), every offset checked against the
 * file's size; tests/fuzz/fuzz_images.c feeds stubs_each_needed any bytes.
 *
 * Locking: the main server thread's only (LOAD).
 */
#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"

static const char *const stub_names[] = {
    "libomptarget.so",      "libomptarget.so.15",
    "libomptarget.so.16",   "libomptarget.so.19.1",
    "libomptarget.so.22.1", "libclang_rt.asan-x86_64.so",
    "libclang_rt.tsan-x86_64.so"};
#define STUB_COUNT (sizeof stub_names / sizeof stub_names[0])
static int stub_loaded[STUB_COUNT];
static char stub_dir[4096];

/* Libraries that an image may NEED without any stand-in being needed
 * behind them (the device runtime and the C runtime). */
static const char *const plain_needs[] = {
    "libomp.so.5", "libc.so.6",     "libm.so.6",      "libdl.so.2",
    "libpthread.so.0", "librt.so.1", "libgcc_s.so.1", "libstdc++.so.6",
    "ld-linux-x86-64.so.2", "ld64.so.2"};

void stubs_init(const char *dir) {
  snprintf(stub_dir, sizeof stub_dir, "%s", dir);
}

static void load_stub(size_t i) {
  if (stub_loaded[i])
    return;
  stub_loaded[i] = 1;
  /* The real runtime, preloaded for device code built with its sanitizer
   * (plugin/sanitizer.c), answers the image's need itself. */
  if ((strstr(stub_names[i], "asan") &&
       dlsym(RTLD_DEFAULT, "__asan_init") != NULL) ||
      (strstr(stub_names[i], "tsan") &&
       dlsym(RTLD_DEFAULT, "__tsan_init") != NULL))
    return;
  char path[sizeof stub_dir + 64];
  snprintf(path, sizeof path, "%s/%s", stub_dir, stub_names[i]);
  /* A missing stand-in only matters to images that NEED it; their dlopen
   * then names it. */
  (void)dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

/* 1 when `name` is a stand-in (loaded now) or a plain need, else 0. */
static int provide(const char *name) {
  for (size_t i = 0; i < STUB_COUNT; i++)
    if (strcmp(name, stub_names[i]) == 0) {
      load_stub(i);
      return 1;
    }
  for (size_t i = 0; i < sizeof plain_needs / sizeof plain_needs[0]; i++)
    if (strcmp(name, plain_needs[i]) == 0)
      return 1;
  return 0;
}

/* The file offset of virtual address `vaddr` (a PT_LOAD's file bytes), or
 * -1. */
static long long file_offset(const unsigned char *file, size_t size,
                             const Elf64_Ehdr *eh, uint64_t vaddr) {
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    const Elf64_Phdr *ph =
        (const Elf64_Phdr *)(file + eh->e_phoff + (size_t)i * eh->e_phentsize);
    if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
        vaddr - ph->p_vaddr < ph->p_filesz && ph->p_offset <= size &&
        vaddr - ph->p_vaddr < size - ph->p_offset)
      return (long long)(ph->p_offset + (vaddr - ph->p_vaddr));
  }
  return -1;
}

int stubs_each_needed(const unsigned char *file, size_t size,
                      int (*need)(const char *name)) {
  if (size < sizeof(Elf64_Ehdr))
    return -1;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > size ||
      (size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
    return -1;
  const Elf64_Dyn *dyn = NULL;
  size_t dyn_count = 0;
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    const Elf64_Phdr *ph =
        (const Elf64_Phdr *)(file + eh->e_phoff + (size_t)i * sizeof *ph);
    if (ph->p_type == PT_DYNAMIC) {
      if (ph->p_offset > size || ph->p_filesz > size - ph->p_offset ||
          ph->p_offset % 8 != 0)
        return -1;
      dyn = (const Elf64_Dyn *)(file + ph->p_offset);
      dyn_count = ph->p_filesz / sizeof *dyn;
    }
  }
  if (dyn == NULL)
    return 0; /* static: needs nothing */
  uint64_t strtab = 0, strsz = 0;
  int have_strtab = 0;
  for (size_t i = 0; i < dyn_count && dyn[i].d_tag != DT_NULL; i++) {
    if (dyn[i].d_tag == DT_STRTAB) {
      strtab = dyn[i].d_un.d_ptr;
      have_strtab = 1;
    } else if (dyn[i].d_tag == DT_STRSZ) {
      strsz = dyn[i].d_un.d_val;
    }
  }
  if (!have_strtab)
    return -1;
  long long off = file_offset(file, size, eh, strtab);
  if (off < 0 || strsz > size - (size_t)off)
    return -1;
  const char *strings = (const char *)file + off;
  int all_known = 1;
  for (size_t i = 0; i < dyn_count && dyn[i].d_tag != DT_NULL; i++) {
    if (dyn[i].d_tag != DT_NEEDED)
      continue;
    uint64_t at = dyn[i].d_un.d_val;
    if (at >= strsz || memchr(strings + at, '\0', strsz - at) == NULL)
      return -1;
    if (!need(strings + at))
      all_known = 0;
  }
  return all_known ? 0 : -1;
}

void stubs_load_for_image(int image_fd) {
  struct stat st;
  int done = 0;
  if (fstat(image_fd, &st) == 0 && st.st_size > 0) {
    void *file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
                      image_fd, 0);
    if (file != MAP_FAILED) {
      done = stubs_each_needed(file, (size_t)st.st_size, provide) == 0;
      munmap(file, (size_t)st.st_size);
    }
  }
  if (!done)
    for (size_t i = 0; i < STUB_COUNT; i++)
      load_stub(i);
}
