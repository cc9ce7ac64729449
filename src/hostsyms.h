/*
 * hostsyms.h - ELF symbol tables, for `declare target indirect` on devices
 * with their own address space: naming the host function behind an address
 * (a kernel that called a host function pointer), and matching the functions
 * of a device image with the host functions of the same name (clang 14-16,
 * which accept the indirect clause but emit no table).
 *
 * Host functions are usually not in the dynamic symbol table (executables
 * export nothing), so the file's own .symtab is read.
 *
 * Thread safety: no shared state; each elf_syms is its caller's.
 */
#ifndef SIMTARGET_HOSTSYMS_H
#define SIMTARGET_HOSTSYMS_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

struct elf_syms {
  const Elf64_Sym *syms;
  size_t count;
  const char *strs;
  size_t strs_size;
  uintptr_t base;      /* load bias of a host object; 0 for an image */
  void *mapping;       /* the mapped file, for a host object */
  size_t mapping_size;
};

/* The symbol table of an ELF64 file held in memory: .dynsym when `dynamic`,
 * else .symtab. 0, or -1 when it has none or is malformed. */
HIDDEN int elf_syms_from_memory(const void *elf, size_t size, bool dynamic,
                                struct elf_syms *out);
/* The symbols (.symtab, else .dynsym) of the loaded host object (program
 * or library) that contains `addr`. 0, or -1 when none does. */
HIDDEN int elf_syms_of_host_object(const void *addr, struct elf_syms *out);
HIDDEN void elf_syms_close(struct elf_syms *s);
/* The name of a symbol, or NULL when it is out of bounds. */
HIDDEN const char *elf_syms_name(const struct elf_syms *s, const Elf64_Sym *sym);
/* The address (base + value) of the function `name`: the global one, else
 * the only static one; NULL when there is none or several static ones. */
HIDDEN void *elf_syms_find_function(const struct elf_syms *s, const char *name);
/* The host function that starts at `addr`: its name in buf and true, or
 * false when `addr` is not the start of a known host function. */
HIDDEN bool host_function_at(const void *addr, char *buf, size_t len);
/* The symbol of a loaded host object whose extent holds `addr`: a function
 * (`function`) or a data object; its name in buf, its start and size (each
 * may be NULL). false when none does. */
HIDDEN bool host_symbol_containing(const void *addr, bool function, char *buf,
                                   size_t len, uintptr_t *start, size_t *size);
/* The first `len` initial bytes of the defined symbol `name` of the ELF64
 * image held in memory (a device image: `<kernel>_exec_mode`), into out.
 * 0, or -1 when there is no such symbol or its bytes lie outside the file
 * (.bss). */
HIDDEN int elf_image_read_symbol(const void *elf, size_t size,
                                 const char *name, void *out, size_t len);

#endif
