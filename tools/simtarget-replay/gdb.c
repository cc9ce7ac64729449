/*
 * gdb.c - the gdb command file behind `simtarget-replay --gdb`: the device
 * process runs under gdb (SIMDEVICE_WRAPPER) and stops at the kernel's
 * entry with the image's symbols added at its load address (the device
 * process loads images from a memfd, which gdb cannot read by itself).
 * x86-64: the server's faults_set_running_kernel(entry) gets it in %rdi;
 * the kernel's breakpoint is set there, once the image is mapped.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* The value of dynamic symbol `name` in the ELF image `elf`, or 0. */
static uint64_t symbol_value(const unsigned char *elf, size_t size,
                             const char *name) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
  if (size < sizeof *eh || eh->e_shoff + (uint64_t)eh->e_shnum *
                                             sizeof(Elf64_Shdr) > size)
    return 0;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(elf + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
      continue;
    const Elf64_Shdr *strs = &sh[sh[i].sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > size ||
        strs->sh_offset + strs->sh_size > size)
      return 0;
    const Elf64_Sym *sym = (const Elf64_Sym *)(elf + sh[i].sh_offset);
    for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++)
      if (sym[k].st_name < strs->sh_size &&
          strncmp((const char *)elf + strs->sh_offset + sym[k].st_name, name,
                  strs->sh_size - sym[k].st_name) == 0)
        return sym[k].st_value;
  }
  return 0;
}

int gdb_script(const char *path, const char *dir, const char *image_file,
               const unsigned char *elf, size_t size, const char *kernel,
               uint64_t entry) {
  FILE *f = fopen(path, "we");
  if (f == NULL)
    return -1;
  uint64_t value = symbol_value(elf, size, kernel);
  fprintf(f,
          "set breakpoint pending on\n"
          "break faults_set_running_kernel if $rdi == 0x%llx\ncommands\n"
          "silent\n",
          (unsigned long long)entry);
  if (value != 0 && entry > value)
    fprintf(f, "add-symbol-file %s/%s -o 0x%llx\n", dir, image_file,
            (unsigned long long)(entry - value));
  fprintf(f, "tbreak *0x%llx\ncontinue\nend\nrun\n",
          (unsigned long long)entry);
  return fclose(f);
}
