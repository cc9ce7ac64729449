/*
 * images.c - device images inside the device process: the host streams the
 * ELF into a memfd (STAGE), then LOAD dlopens it through /proc/self/fd/N and
 * resolves each host entry through the image's own entry table
 * (.omp_offloading.entry.<name> for clang 13-16, .offloading.entry.<name>
 * for 19/22; clang-abi.md 11.5).
 *
 * Each loaded image keeps its memfd open until it is unloaded, so two loaded
 * images never share a /proc/self/fd path (glibc would hand back the first).
 *
 * Locking: the image table and the staged image belong to the main server
 * thread (LOAD/UNLOAD), which changes them while queue-slot threads run
 * kernels. Those threads, and the fault handler on any thread, ask only
 * images_entry_name, which reads `entry_index`: an immutable, sorted copy
 * of every loaded entry (address and name) that the main thread rebuilds
 * after each change and publishes through a snapshot (snapshot.c), so a
 * reader never blocks and never sees a half-changed or freed table.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "image_entries.h"
#include "server.h"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

struct loaded_image {
  void *handle;      /* dlopen handle; NULL when the slot is free */
  int fd;            /* memfd the image was loaded from */
  uint64_t count;    /* entries */
  uint64_t *addrs;   /* device address per entry (0 when missing) */
  char **names;      /* host entry name per entry */
};

#define MAX_IMAGES 256
static struct loaded_image images[MAX_IMAGES];
static int staged_fd = -1; /* image being streamed in */

/* Every loaded entry by address, names copied in (one allocation). */
struct entry_row {
  uint64_t addr;
  const char *name; /* inside the same allocation */
};
struct entry_index {
  size_t count;
  struct entry_row rows[]; /* sorted by addr; the names follow */
};
static struct snapshot entry_index;

static int entry_row_order(const void *a, const void *b) {
  const struct entry_row *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Rebuilds the entry index from the image table and publishes it. Returns
 * 0, or -1 with the reason (no memory; the old index stays) in `msg`. */
static int publish_entry_index(char *msg, size_t msg_len) {
  size_t count = 0, name_bytes = 0;
  for (int i = 0; i < MAX_IMAGES; i++)
    if (images[i].handle != NULL)
      for (uint64_t e = 0; e < images[i].count; e++)
        if (images[i].addrs[e] != 0) {
          count++;
          name_bytes += strlen(images[i].names[e]) + 1;
        }
  struct entry_index *next = NULL;
  if (count > 0) {
    next = malloc(sizeof *next + count * sizeof next->rows[0] + name_bytes);
    if (next == NULL) {
      snprintf(msg, msg_len, "no memory for the index of %zu entries", count);
      return -1;
    }
    char *names = (char *)&next->rows[count];
    size_t n = 0;
    for (int i = 0; i < MAX_IMAGES; i++)
      if (images[i].handle != NULL)
        for (uint64_t e = 0; e < images[i].count; e++)
          if (images[i].addrs[e] != 0) {
            size_t len = strlen(images[i].names[e]) + 1;
            memcpy(names, images[i].names[e], len);
            next->rows[n].addr = images[i].addrs[e];
            next->rows[n++].name = names;
            names += len;
          }
    next->count = n;
    qsort(next->rows, n, sizeof next->rows[0], entry_row_order);
  }
  free(snapshot_replace(&entry_index, next));
  return 0;
}

/* Under Valgrind: dlopen a copy of the image in memfd `fd` from a file,
 * removed once loaded. Valgrind reads an object's debug information (the
 * kernel's source lines in its reports) by the name of the mapped file,
 * and a memfd's name opens nothing. NULL when that cannot be done: the
 * caller loads the memfd, and reports then show no lines. */
static void *dlopen_as_file(int fd) {
  const char *dir = getenv("TMPDIR");
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/simdevice-image-XXXXXX",
           dir != NULL && *dir != '\0' ? dir : "/tmp");
  int out = mkostemp(path, O_CLOEXEC);
  if (out < 0)
    return NULL;
  char buf[65536];
  ssize_t n;
  off_t at = 0;
  int ok = 1;
  while (ok && (n = pread(fd, buf, sizeof buf, at)) > 0) {
    ok = write(out, buf, (size_t)n) == n;
    at += n;
  }
  close(out);
  void *handle = ok ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
  unlink(path);
  return handle;
}

int images_stage(const void *bytes, size_t size, int start_new, char *msg,
                 size_t msg_len) {
  if (start_new && staged_fd >= 0) {
    close(staged_fd);
    staged_fd = -1;
  }
  if (staged_fd < 0) {
    staged_fd = memfd_create("simdevice-image", MFD_CLOEXEC);
    if (staged_fd < 0) {
      snprintf(msg, msg_len, "memfd_create for the image failed: %s",
               strerror(errno));
      return -1;
    }
  }
  const char *p = bytes;
  while (size > 0) {
    ssize_t n = write(staged_fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      snprintf(msg, msg_len, "writing the image failed: %s",
               n < 0 ? strerror(errno) : "no progress");
      close(staged_fd);
      staged_fd = -1;
      return -1;
    }
    p += n;
    size -= (size_t)n;
  }
  return 0;
}

static void release_image(struct loaded_image *img) {
  if (img->names != NULL)
    for (uint64_t i = 0; i < img->count; i++)
      free(img->names[i]);
  free(img->names);
  free(img->addrs);
  if (img->handle != NULL)
    dlclose(img->handle);
  if (img->fd >= 0)
    close(img->fd);
  memset(img, 0, sizeof *img);
  img->fd = -1;
}

/* The reason an image did not load; an entry point of libomp that the
 * device runtime deliberately lacks is named with the construct needing it. */
static void describe_load_failure(const char *why, char *msg, size_t msg_len) {
  const char *undefined = strstr(why, "undefined symbol: ");
  if (undefined != NULL) {
    char symbol[128];
    const char *name = undefined + strlen("undefined symbol: ");
    size_t n = strcspn(name, ", \n");
    snprintf(symbol, sizeof symbol, "%.*s", (int)(n < 127 ? n : 127), name);
    const char *(*unsupported)(const char *) =
        (const char *(*)(const char *))dlsym(RTLD_DEFAULT, "simdev_rt_unsupported");
    const char *construct = unsupported ? unsupported(symbol) : NULL;
    if (construct != NULL) {
      snprintf(msg, msg_len,
               "the image calls `%s`, for %s: simtarget's device runtime does "
               "not support it",
               symbol, construct);
      return;
    }
    if (strncmp(symbol, "__kmpc_", 7) == 0 || strncmp(symbol, "omp_", 4) == 0) {
      snprintf(msg, msg_len,
               "the image calls the OpenMP runtime entry point `%s`, which "
               "simtarget's device runtime does not know (a newer compiler's "
               "ABI?): %s",
               symbol, why);
      return;
    }
  }
  /* Device code instrumented by a sanitizer needs its runtime, which the
   * plugin preloads into device processes started after it saw such an
   * image (plugin/sanitizer.c): this one started before, or under another
   * sanitizer's runtime. */
  const char *sanitizer = strstr(why, "__asan_")   ? "address"
                          : strstr(why, "__tsan_") ? "thread"
                          : strstr(why, "__msan_") ? "memory"
                                                   : NULL;
  if (sanitizer == NULL) {
    snprintf(msg, msg_len, "dlopen of the image failed: %s", why);
    return;
  }
  snprintf(msg, msg_len,
           "dlopen of the image failed: %s (device code built with "
           "-fsanitize=%s: this device process runs without that "
           "sanitizer's runtime; it started before the image was registered, "
           "or another image's sanitizer runs in it. Build every image with "
           "the same sanitizer, or keep it to the host: -Xarch_host on clang "
           "17+, -Xopenmp-target=<triple> -fno-sanitize=%s on clang 14-16)",
           why, sanitizer, sanitizer);
}

int images_load(const char *names, uint64_t name_count, size_t names_len,
                uint64_t *addrs_out, uint64_t *image_id_out, char *msg,
                size_t msg_len) {
  if (staged_fd < 0) {
    snprintf(msg, msg_len, "LOAD without a staged image");
    return -1;
  }
  int id = -1;
  for (int i = 0; i < MAX_IMAGES; i++)
    if (images[i].handle == NULL) {
      id = i;
      break;
    }
  if (id < 0) {
    snprintf(msg, msg_len, "more than %d images loaded at once", MAX_IMAGES);
    return -1;
  }
  struct loaded_image *img = &images[id];
  memset(img, 0, sizeof *img);
  img->fd = staged_fd;
  staged_fd = -1;
  img->count = name_count;
  img->addrs = calloc(name_count ? name_count : 1, sizeof *img->addrs);
  img->names = calloc(name_count ? name_count : 1, sizeof *img->names);
  if (img->addrs == NULL || img->names == NULL) {
    snprintf(msg, msg_len, "no memory for %llu entries",
             (unsigned long long)name_count);
    goto out_release;
  }
  stubs_load_for_image(img->fd);
  img->handle = RUNNING_ON_VALGRIND ? dlopen_as_file(img->fd) : NULL;
  if (img->handle == NULL) {
    char path[64];
    /* Under a sanitizer's runtime its symbolizer, another process, reads
     * the image by this name for the report's source lines: /proc/self is
     * its own there. */
    if (dlsym(RTLD_DEFAULT, "__sanitizer_set_report_path") != NULL)
      snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)getpid(), img->fd);
    else
      snprintf(path, sizeof path, "/proc/self/fd/%d", img->fd);
    img->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  }
  if (img->handle == NULL) {
    /* A copy: the next dl* call (dlsym in describe_load_failure) frees
     * dlerror's string. */
    char why[SIMDEV_MESSAGE_SIZE];
    const char *err = dlerror();
    snprintf(why, sizeof why, "%s", err ? err : "unknown reason");
    describe_load_failure(why, msg, msg_len);
    goto out_release;
  }
  const char *p = names, *end = names + names_len;
  for (uint64_t i = 0; i < name_count; i++) {
    const char *nul = memchr(p, '\0', (size_t)(end - p));
    if (nul == NULL) {
      snprintf(msg, msg_len, "entry name %llu is not terminated",
               (unsigned long long)i);
      goto out_release;
    }
    img->names[i] = strdup(p);
    if (img->names[i] == NULL) {
      snprintf(msg, msg_len, "no memory for entry names");
      goto out_release;
    }
    img->addrs[i] = *p ? image_entry_resolve(img->handle, p) : 0;
    addrs_out[i] = img->addrs[i];
    p = nul + 1;
  }
  if (publish_entry_index(msg, msg_len) != 0)
    goto out_release;
  *image_id_out = (uint64_t)id;
  return 0;
out_release:
  release_image(img);
  return -1;
}

int images_unload(uint64_t image_id, char *msg, size_t msg_len) {
  if (image_id >= MAX_IMAGES || images[image_id].handle == NULL) {
    snprintf(msg, msg_len, "image %llu is not loaded",
             (unsigned long long)image_id);
    return -1;
  }
  /* Unpublish its entries first: the image stays loaded if that fails. */
  struct loaded_image gone = images[image_id];
  images[image_id].handle = NULL;
  if (publish_entry_index(msg, msg_len) != 0) {
    images[image_id] = gone;
    return -1;
  }
  release_image(&gone);
  images[image_id] = gone; /* a free slot */
  return 0;
}

void images_unload_all(void) {
  free(snapshot_replace(&entry_index, NULL));
  for (int i = MAX_IMAGES - 1; i >= 0; i--)
    if (images[i].handle != NULL)
      release_image(&images[i]);
}

int images_entry_name(uint64_t addr, char *buf, size_t len) {
  unsigned ticket;
  const struct entry_index *index = snapshot_enter(&entry_index, &ticket);
  const char *name = NULL;
  size_t lo = 0, hi = index ? index->count : 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (index->rows[mid].addr == addr) {
      name = index->rows[mid].name;
      break;
    }
    if (index->rows[mid].addr < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t i = 0;
  for (; name != NULL && name[i] != '\0' && i + 1 < len; i++)
    buf[i] = name[i];
  buf[i] = '\0';
  snapshot_leave(&entry_index, ticket);
  return name != NULL;
}
