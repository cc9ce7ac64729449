/*
 * sanitizer.c - device code built with -fsanitize=address, =thread or
 * =undefined runs in a device process that has that sanitizer's runtime.
 *
 * An image instrumented by a sanitizer imports the runtime's entry points
 * (__asan_*, __tsan_*, __ubsan_handle_*); clang 16+ with
 * -Xoffload-linker <runtime.so> also NEEDs it. sanitizer_note_image (at
 * is_valid_binary, before any device is set up for use) reads that from the
 * image and finds the runtime of the clang that built it:
 *   1. SIMDEVICE_SANITIZER_RUNTIME, a path (settings.c; ignored in a setuid
 *      or setcap program, as every variable naming code);
 *   2. the same runtime loaded in this process (a host built with
 *      -shared-libsan or linked to the runtime's .so);
 *   3. the image's compiler, from its .comment ("clang version N..."):
 *      /usr/lib/llvm-N/lib/clang/<ver>/lib/{linux,x86_64-pc-linux-gnu}/ (the
 *      Debian and apt.llvm.org layout), /usr/lib{64,}/clang/N/lib/... .
 * The program's LD_PRELOAD is read here, not in settings.c: it is the
 * process's own, passed on unchanged behind the runtime.
 * The device process is then started with that runtime first in LD_PRELOAD
 * (sanitizer_environment; the server restores the program's LD_PRELOAD at
 * once), and its memory is placed outside the regions the runtime owns in
 * that process (sanitizer_reserved_ranges, used by address_range.c). ASan
 * also learns the exact bytes of each allocation (allocator.c).
 *
 * Locking: the wanted sanitizer is written under `lock` by is_valid_binary
 * (libomptarget registers images before it sets devices up) and read under
 * it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <gelf.h>
#include <glob.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int wanted;                 /* enum device_sanitizer */
static char runtime_path[PATH_MAX]; /* its runtime, with `wanted` */

const char *sanitizer_name(int kind) {
  switch (kind) {
  case DEVICE_SAN_ADDRESS: return "address";
  case DEVICE_SAN_THREAD: return "thread";
  case DEVICE_SAN_UNDEFINED: return "undefined";
  default: return "none";
  }
}

/* The runtime's file name stem: libclang_rt.<stem>-x86_64.so. */
static const char *runtime_stem(int kind) {
  switch (kind) {
  case DEVICE_SAN_ADDRESS: return "asan";
  case DEVICE_SAN_THREAD: return "tsan";
  default: return "ubsan_standalone";
  }
}

/* What an undefined dynamic symbol asks for: ASan and TSan carry UBSan's
 * handlers too, so they win over it. */
static int kind_of_import(const char *name) {
  if (strncmp(name, "__asan_", 7) == 0)
    return DEVICE_SAN_ADDRESS;
  if (strncmp(name, "__tsan_", 7) == 0)
    return DEVICE_SAN_THREAD;
  if (strncmp(name, "__ubsan_handle_", 15) == 0)
    return DEVICE_SAN_UNDEFINED;
  return DEVICE_SAN_NONE;
}

static int stronger(int a, int b) {
  if (a == DEVICE_SAN_ADDRESS || b == DEVICE_SAN_ADDRESS)
    return DEVICE_SAN_ADDRESS;
  if (a == DEVICE_SAN_THREAD || b == DEVICE_SAN_THREAD)
    return DEVICE_SAN_THREAD;
  return a | b;
}

/* The clang major version in a .comment section ("clang version 14.0.6"),
 * or 0. */
static int comment_major(Elf *e, Elf_Scn *scn) {
  Elf_Data *d = elf_getdata(scn, NULL);
  if (d == NULL || d->d_buf == NULL)
    return 0;
  const char *p = d->d_buf, *end = p + d->d_size;
  for (; p < end; p += strnlen(p, (size_t)(end - p)) + 1) {
    const char *v = memmem(p, (size_t)(end - p), "clang version ", 14);
    if (v != NULL && v < end - 15)
      return atoi(v + 14);
  }
  (void)e;
  return 0;
}

static int imports_in(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh) {
  Elf_Data *d = elf_getdata(scn, NULL);
  int kind = DEVICE_SAN_NONE;
  if (d == NULL || sh->sh_entsize == 0)
    return kind;
  size_t n = sh->sh_size / sh->sh_entsize;
  for (size_t i = 1; i < n; i++) {
    GElf_Sym sym;
    if (gelf_getsym(d, (int)i, &sym) == NULL || sym.st_shndx != SHN_UNDEF)
      continue;
    const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
    if (name != NULL)
      kind = stronger(kind, kind_of_import(name));
  }
  return kind;
}

int sanitizer_scan_image(const void *elf, size_t size, int *major) {
  *major = 0;
  if (elf_version(EV_CURRENT) == EV_NONE)
    return DEVICE_SAN_NONE;
  Elf *e = elf_memory((char *)elf, size);
  if (e == NULL)
    return DEVICE_SAN_NONE;
  int kind = DEVICE_SAN_NONE;
  size_t shstrndx;
  if (elf_getshdrstrndx(e, &shstrndx) == 0)
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == NULL)
        continue;
      const char *name = elf_strptr(e, shstrndx, sh.sh_name);
      if (sh.sh_type == SHT_DYNSYM)
        kind = stronger(kind, imports_in(e, scn, &sh));
      else if (name != NULL && strcmp(name, ".comment") == 0 && *major == 0)
        *major = comment_major(e, scn);
    }
  elf_end(e);
  return kind;
}

struct loaded_search {
  const char *stem;
  char *out;
  size_t len;
};

static int match_loaded(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct loaded_search *s = arg;
  const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
  char want[64];
  snprintf(want, sizeof want, "libclang_rt.%s", s->stem);
  if (base == NULL || strncmp(base + 1, want, strlen(want)) != 0 ||
      strstr(base, ".so") == NULL)
    return 0;
  snprintf(s->out, s->len, "%s", info->dlpi_name);
  return 1;
}

/* The first file matching one of the layouts of clang `major`'s runtime. */
static int runtime_of_compiler(const char *stem, int major, char *out,
                               size_t len) {
  static const char *const layouts[] = {
      "/usr/lib/llvm-%d/lib/clang/*/lib/linux/libclang_rt.%s-x86_64.so",
      "/usr/lib/llvm-%d/lib/clang/*/lib/x86_64-pc-linux-gnu/libclang_rt.%s.so",
      "/usr/lib64/clang/%d/lib/linux/libclang_rt.%s-x86_64.so",
      "/usr/lib64/clang/%d/lib/x86_64-redhat-linux-gnu/libclang_rt.%s.so",
      "/usr/lib/clang/%d/lib/linux/libclang_rt.%s-x86_64.so",
      "/usr/lib/clang/%d/lib/x86_64-pc-linux-gnu/libclang_rt.%s.so"};
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
    char pattern[256];
    snprintf(pattern, sizeof pattern, layouts[i], major, stem);
    glob_t g;
    int found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    if (found)
      snprintf(out, len, "%s", g.gl_pathv[g.gl_pathc - 1]);
    globfree(&g);
    if (found)
      return 0;
  }
  return -1;
}

/* Finds the runtime (top of file); 0, or -1 with the error set. */
static int find_runtime(int kind, int major, char *out, size_t len) {
  const char *set = plugin_settings()->sanitizer_runtime;
  if (set != NULL && set[0] != '\0') {
    if (access(set, R_OK) != 0) {
      plugin_error("simdevice: SIMDEVICE_SANITIZER_RUNTIME=%.300s, the "
                   "runtime for device code built with -fsanitize=%s, "
                   "cannot be read: %s",
                   set, sanitizer_name(kind), strerror(errno));
      return -1;
    }
    snprintf(out, len, "%s", set);
    return 0;
  }
  struct loaded_search s = {runtime_stem(kind), out, len};
  if (dl_iterate_phdr(match_loaded, &s) != 0)
    return 0;
  if (major > 0 && runtime_of_compiler(s.stem, major, out, len) == 0)
    return 0;
  char compiler[40] = "an unknown clang (no .comment)";
  if (major > 0)
    snprintf(compiler, sizeof compiler, "clang %d", major);
  plugin_error("simdevice: device code built with -fsanitize=%s by %s needs "
               "that clang's libclang_rt.%s runtime, which is neither loaded "
               "in the program nor found under /usr/lib/llvm-%d: set "
               "SIMDEVICE_SANITIZER_RUNTIME to its path (clang -print-file-"
               "name=libclang_rt.%s-x86_64.so)",
               sanitizer_name(kind), compiler, s.stem, major, s.stem);
  return -1;
}

int sanitizer_note_image(const void *elf, size_t size) {
  int major;
  int kind = sanitizer_scan_image(elf, size, &major);
  if (kind == DEVICE_SAN_NONE || DEVICE_FOREIGN)
    return 0;
  pthread_mutex_lock(&lock);
  int rc = 0;
  if (wanted == DEVICE_SAN_NONE ||
      (wanted == DEVICE_SAN_UNDEFINED && kind != DEVICE_SAN_UNDEFINED)) {
    char path[PATH_MAX];
    rc = find_runtime(kind, major, path, sizeof path);
    if (rc == 0) {
      wanted = kind;
      snprintf(runtime_path, sizeof runtime_path, "%s", path);
    }
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

int sanitizer_wanted(char *path, size_t len) {
  pthread_mutex_lock(&lock);
  int kind = wanted;
  if (path != NULL)
    snprintf(path, len, "%s", kind ? runtime_path : "");
  pthread_mutex_unlock(&lock);
  return kind;
}

/* Regions the runtime owns in the device process (x86-64 Linux):
 * ASan's shadow and its gap up to 0x10007fff8000 and its allocator, 4 TiB
 * and its region table right after (at 0x600000000000 for clang 13-16,
 * 0x500000000000 for 19 and 22: measured); TSan allows application memory only where every
 * runtime of clang 13-22 does (the old and the new layout both):
 * below 0x008000000000, 0x550000000000-0x568000000000 and above
 * 0x7e8000000000. */
size_t sanitizer_reserved_ranges(int kind, uint64_t (*out)[2], size_t max) {
  static const uint64_t asan[][2] = {{0x7fff8000ull, 0x10007fff8000ull},
                                     {0x500000000000ull, 0x550000000000ull},
                                     {0x600000000000ull, 0x650000000000ull}};
  static const uint64_t tsan[][2] = {{0x008000000000ull, 0x550000000000ull},
                                     {0x568000000000ull, 0x7e8000000000ull}};
  const uint64_t(*r)[2] = kind == DEVICE_SAN_ADDRESS  ? asan
                          : kind == DEVICE_SAN_THREAD ? tsan
                                                      : NULL;
  size_t n = r == asan ? 3 : r == tsan ? 2 : 0;
  for (size_t i = 0; i < n && i < max; i++) {
    out[i][0] = r[i][0];
    out[i][1] = r[i][1];
  }
  return n < max ? n : max;
}

/* environ with LD_PRELOAD=<runtime>[:<the program's>] and
 * SIMDEVICE_LD_PRELOAD_WAS=<the program's> (SIMDEVICE_LD_PRELOAD_UNSET=1
 * when it had none), for the server to restore. NULL-terminated, malloc'd (free the array and
 * its first two strings), or NULL without host memory. */
char **sanitizer_environment(const char *runtime) {
  extern char **environ;
  const char *old = getenv("LD_PRELOAD");
  size_t n = 0;
  while (environ[n] != NULL)
    n++;
  char **env = malloc((n + 3) * sizeof *env);
  size_t len = strlen(runtime) + (old ? strlen(old) : 0) + 32;
  char *preload = malloc(len), *was = malloc(len);
  if (env == NULL || preload == NULL || was == NULL) {
    free(env);
    free(preload);
    free(was);
    return NULL;
  }
  snprintf(preload, len, "LD_PRELOAD=%s%s%s", runtime,
           old && *old ? ":" : "", old ? old : "");
  if (old != NULL)
    snprintf(was, len, "SIMDEVICE_LD_PRELOAD_WAS=%s", old);
  else
    snprintf(was, len, "SIMDEVICE_LD_PRELOAD_UNSET=1");
  size_t k = 0;
  env[k++] = preload;
  env[k++] = was;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
        strncmp(environ[i], "SIMDEVICE_LD_PRELOAD_", 21) != 0)
      env[k++] = environ[i];
  env[k] = NULL;
  return env;
}
