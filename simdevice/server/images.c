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
 * Locking: none; only the server thread calls these, and never while a
 * kernel runs. images_entry_name is read by the fault handler.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "server.h"

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

static uint64_t resolve_entry(void *handle, const char *name) {
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
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", img->fd);
  img->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (img->handle == NULL) {
    const char *why = dlerror();
    snprintf(msg, msg_len, "dlopen of the image failed: %s",
             why ? why : "unknown reason");
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
    img->addrs[i] = *p ? resolve_entry(img->handle, p) : 0;
    addrs_out[i] = img->addrs[i];
    p = nul + 1;
  }
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
  release_image(&images[image_id]);
  return 0;
}

void images_unload_all(void) {
  for (int i = MAX_IMAGES - 1; i >= 0; i--)
    if (images[i].handle != NULL)
      release_image(&images[i]);
}

const char *images_entry_name(uint64_t addr) {
  for (int i = 0; i < MAX_IMAGES; i++) {
    const struct loaded_image *img = &images[i];
    if (img->handle == NULL || img->addrs == NULL || img->names == NULL)
      continue;
    for (uint64_t e = 0; e < img->count; e++)
      if (img->addrs[e] == addr)
        return img->names[e];
  }
  return NULL;
}
