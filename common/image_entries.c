/*
 * image_entries.c - see image_entries.h. No state, no locks.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "image_entries.h"

/* The address field of an entry object: +0 in the legacy 32-byte layout,
 * +16 in the 56-byte layout of clang 22 (Reserved == 0, Version == 1). */
static uint64_t entry_object_address(const void *obj) {
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  size_t size = 0;
  if (dladdr1(obj, &info, (void **)&sym, RTLD_DL_SYMENT) != 0 && sym != NULL)
    size = sym->st_size;
  const unsigned char *b = obj;
  uint64_t reserved, addr;
  uint16_t version;
  memcpy(&reserved, b, 8);
  memcpy(&version, b + 8, 2);
  int new_layout = size == 56 || (size != 32 && reserved == 0 && version == 1);
  memcpy(&addr, b + (new_layout ? 16 : 0), 8);
  return addr;
}

uint64_t image_entry_resolve(void *handle, const char *name) {
  static const char *prefixes[] = {".omp_offloading.entry.",
                                   ".offloading.entry."};
  char sym[1024];
  for (size_t i = 0; i < 2; i++) {
    int n = snprintf(sym, sizeof sym, "%s%s", prefixes[i], name);
    if (n < 0 || (size_t)n >= sizeof sym)
      continue;
    void *obj = dlsym(handle, sym);
    if (obj != NULL)
      return entry_object_address(obj);
  }
  return (uint64_t)dlsym(handle, name);
}
