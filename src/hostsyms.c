/*
 * hostsyms.c - reading ELF64 symbol tables of host objects and device
 * images (see hostsyms.h). The tables, and the section of a symbol whose
 * bytes are read, are found by the one ELF reader, common/offload_image.c
 * (libelf, every offset bounds-checked): a truncated or odd file yields
 * "no symbols", never a crash (tests/fuzz/fuzz_images.c feeds it any
 * bytes).
 *
 * Thread safety: no shared state (dl_iterate_phdr locks the loader).
 */
#include "hostsyms.h"
#include "offload_image.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int elf_syms_from_memory(const void *elf, size_t size, bool dynamic,
                         struct elf_syms *out) {
  memset(out, 0, sizeof *out);
  struct offload_elf_symtab tab;
  char why[160];
  if (!elf || offload_elf_find_symtab(elf, size, dynamic, &tab, why,
                                      sizeof why) != 0)
    return -1;
  const unsigned char *b = elf;
  out->syms = (const Elf64_Sym *)(b + tab.syms_offset);
  out->count = tab.syms_size / sizeof(Elf64_Sym);
  out->strs = (const char *)(b + tab.strs_offset);
  out->strs_size = tab.strs_size;
  return 0;
}

struct object_search {
  uintptr_t addr;
  uintptr_t base;
  const char *name;
  bool found;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct object_search *s = data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && s->addr >= lo && s->addr - lo < ph->p_memsz) {
      s->base = info->dlpi_addr;
      s->name = info->dlpi_name;
      s->found = true;
      return 1;
    }
  }
  return 0;
}

int elf_syms_of_host_object(const void *addr, struct elf_syms *out) {
  memset(out, 0, sizeof *out);
  struct object_search s = {.addr = (uintptr_t)addr};
  dl_iterate_phdr(find_object, &s);
  if (!s.found)
    return -1;
  /* The program itself has an empty name in the loader's list. */
  const char *path = s.name && s.name[0] ? s.name : "/proc/self/exe";
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat st;
  void *map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size > 0)
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return -1;
  if (elf_syms_from_memory(map, (size_t)st.st_size, false, out) != 0 &&
      elf_syms_from_memory(map, (size_t)st.st_size, true, out) != 0) {
    munmap(map, (size_t)st.st_size);
    return -1;
  }
  out->base = s.base;
  out->mapping = map;
  out->mapping_size = (size_t)st.st_size;
  return 0;
}

void elf_syms_close(struct elf_syms *s) {
  if (s->mapping)
    munmap(s->mapping, s->mapping_size);
  memset(s, 0, sizeof *s);
}

const char *elf_syms_name(const struct elf_syms *s, const Elf64_Sym *sym) {
  if (sym->st_name >= s->strs_size ||
      !memchr(s->strs + sym->st_name, '\0', s->strs_size - sym->st_name))
    return NULL;
  return s->strs + sym->st_name;
}

static bool is_defined_function(const Elf64_Sym *sym) {
  return ELF64_ST_TYPE(sym->st_info) == STT_FUNC &&
         sym->st_shndx != SHN_UNDEF && sym->st_value != 0;
}

void *elf_syms_find_function(const struct elf_syms *s, const char *name) {
  const Elf64_Sym *local = NULL;
  size_t locals = 0;
  for (size_t i = 0; i < s->count; i++) {
    const Elf64_Sym *sym = &s->syms[i];
    if (!is_defined_function(sym))
      continue;
    const char *n = elf_syms_name(s, sym);
    if (!n || strcmp(n, name) != 0)
      continue;
    unsigned bind = ELF64_ST_BIND(sym->st_info);
    if (bind == STB_GLOBAL || bind == STB_WEAK)
      return (void *)(s->base + sym->st_value);
    local = sym;
    locals++;
  }
  /* Two static functions of that name: no way to tell which one. */
  return locals == 1 ? (void *)(s->base + local->st_value) : NULL;
}

bool host_function_at(const void *addr, char *buf, size_t len) {
  Dl_info info;
  if (dladdr(addr, &info) && info.dli_sname && info.dli_saddr == addr) {
    snprintf(buf, len, "%s", info.dli_sname);
    return true;
  }
  struct elf_syms s;
  if (elf_syms_of_host_object(addr, &s) != 0)
    return false;
  bool found = false;
  for (size_t i = 0; i < s.count && !found; i++) {
    const Elf64_Sym *sym = &s.syms[i];
    const char *n = elf_syms_name(&s, sym);
    if (is_defined_function(sym) && n && n[0] &&
        s.base + sym->st_value == (uintptr_t)addr) {
      snprintf(buf, len, "%s", n);
      found = true;
    }
  }
  elf_syms_close(&s);
  return found;
}

int elf_image_read_symbol(const void *elf, size_t size, const char *name,
                          void *out, size_t len) {
  struct elf_syms s;
  if (elf_syms_from_memory(elf, size, false, &s) != 0 &&
      elf_syms_from_memory(elf, size, true, &s) != 0)
    return -1;
  const Elf64_Sym *found = NULL;
  for (size_t i = 0; i < s.count && !found; i++) {
    const char *n = elf_syms_name(&s, &s.syms[i]);
    if (n && !strcmp(n, name) && s.syms[i].st_shndx != SHN_UNDEF)
      found = &s.syms[i];
  }
  if (!found || found->st_shndx >= SHN_LORESERVE)
    return -1;
  /* The symbol's initial bytes: its section's bytes (found by the one ELF
   * reader) at its address inside the section. */
  struct offload_elf_section sec;
  char why[160];
  if (offload_elf_section_bytes(elf, size, found->st_shndx, &sec, why,
                                sizeof why) != 0 ||
      found->st_value < sec.addr || found->st_value - sec.addr > sec.size ||
      sec.size - (found->st_value - sec.addr) < len)
    return -1;
  memcpy(out, (const char *)elf + sec.offset + (found->st_value - sec.addr),
         len);
  return 0;
}

bool host_symbol_containing(const void *addr, bool function, char *buf,
                            size_t len, uintptr_t *start, size_t *size) {
  struct elf_syms s;
  if (elf_syms_of_host_object(addr, &s) != 0)
    return false;
  uintptr_t a = (uintptr_t)addr;
  bool found = false;
  for (size_t i = 0; i < s.count && !found; i++) {
    const Elf64_Sym *sym = &s.syms[i];
    unsigned type = ELF64_ST_TYPE(sym->st_info);
    if (sym->st_shndx == SHN_UNDEF || sym->st_value == 0 ||
        type != (function ? STT_FUNC : STT_OBJECT) || sym->st_size == 0)
      continue;
    uintptr_t lo = s.base + sym->st_value;
    const char *n = elf_syms_name(&s, sym);
    if (a >= lo && a - lo < sym->st_size && n && n[0]) {
      snprintf(buf, len, "%s", n);
      if (start)
        *start = lo;
      if (size)
        *size = sym->st_size;
      found = true;
    }
  }
  elf_syms_close(&s);
  return found;
}
