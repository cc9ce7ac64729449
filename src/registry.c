/*
 * registry.c - parse what __tgt_register_lib hands us (descriptor, images,
 * offload entries) into the normalised form of registry.h, and keep the list
 * of registered libraries and the `requires` flags.
 *
 * Locking: `registry_mutex` guards `registry_head`, `registry_next_gen` (also
 * read without it, atomically: registry_last_generation) and
 * the requires state (`requires_flags`, `requires_conflict`). Parsing works
 * on the caller's data only and takes no lock. A parsed library is immutable
 * once it is on the list. The lock is never held while calling a plugin.
 */
#include "registry.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload_image.h"

#include "valgrind_hints.h"

/* Sanity limits: anything beyond these is a corrupt descriptor, not a real
 * program (the largest real images are a few hundred MiB). */
#define MAX_IMAGES_PER_DESC 256
#define MAX_IMAGE_BYTES ((uint64_t)1 << 36)     /* 64 GiB */
#define MAX_ENTRY_ARRAY_BYTES ((uint64_t)1 << 30)
#define MAX_GLOBAL_SIZE ((uint64_t)1 << 48)
#define LEGACY_ENTRY_SIZE 32
#define NEW_ENTRY_SIZE 56
#define KNOWN_ENTRY_FLAGS 0x3f

static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct registered_lib *registry_head;
static uint64_t registry_next_gen = 1;
static int64_t requires_flags;        /* OMP_REQ_UNDEFINED until recorded */
static char requires_conflict[256];   /* "" or the first conflict seen */

static void set_err(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t err_len, const char *fmt, ...) {
  if (!err || !err_len)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, err_len, fmt, ap);
  va_end(ap);
}

/* Little-endian unaligned reads: the bytes may sit anywhere. */
static uint64_t rd64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}
static uint32_t rd32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}
static uint16_t rd16(const unsigned char *p) {
  uint16_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* The payload of a container: the first OpenMP image in it. Only object
 * images (kind 1) are checked as ELF; others (bitcode, PTX, cubin) are
 * passed as they are and left to the plugins to refuse. */
static int unwrap_container(const unsigned char *c, uint64_t avail,
                            struct image_info *info, char *err,
                            size_t err_len) {
  const struct offload_image_want openmp = {OFFLOAD_KIND_OPENMP, NULL};
  struct offload_container_image found;
  if (offload_container_find(c, (size_t)avail, &openmp, &found, err,
                             err_len) < 0)
    return -1;
  memcpy(info->triple, found.triple, sizeof info->triple);
  memcpy(info->arch, found.arch, sizeof info->arch);
  info->payload = found.bytes;
  info->payload_size = found.size;
  struct offload_elf_header header;
  if (found.image_kind == OFFLOAD_IMAGE_OBJECT &&
      offload_elf_magic(found.bytes, found.size))
    return offload_elf_read_header(found.bytes, found.size, &header, err,
                                   err_len);
  return 0;
}

int registry_unwrap_image(const void *start, const void *end,
                          struct image_info *info, char *err, size_t err_len) {
  if (!info) {
    set_err(err, err_len, "internal error: no image_info to fill");
    return -1;
  }
  memset(info, 0, sizeof *info);
  if (!start || !end || (uintptr_t)end <= (uintptr_t)start) {
    set_err(err, err_len,
            "image bounds ImageStart=%p ImageEnd=%p do not describe any bytes",
            start, end);
    return -1;
  }
  uint64_t avail = (uint64_t)((uintptr_t)end - (uintptr_t)start);
  if (avail > MAX_IMAGE_BYTES) {
    set_err(err, err_len,
            "image bounds ImageStart=%p ImageEnd=%p give an absurd size of"
            " %" PRIu64 " bytes",
            start, end, avail);
    return -1;
  }
  const unsigned char *p = start;
  if (offload_elf_magic(p, (size_t)avail)) {
    /* clang 13/14 and also 19/22, whose ImageStart points at the ELF inside
     * the container: either way the bytes are the image. */
    struct offload_elf_header header;
    if (offload_elf_read_header(p, (size_t)avail, &header, err, err_len) < 0)
      return -1;
    info->payload = p;
    info->payload_size = (size_t)avail;
    return 0;
  }
  if (offload_container_magic(p, (size_t)avail))
    return unwrap_container(p, avail, info, err, err_len);
  char first[16];
  offload_image_first_bytes(p, (size_t)avail, first, sizeof first);
  set_err(err, err_len,
          "image at %p is neither an ELF file (7f 45 4c 46) nor an"
          " OffloadBinary container (10 ff 10 ad): it starts with %s",
          start, first);
  return -1;
}

/* One raw entry in either layout, read without alignment assumptions. */
static void read_entry(const unsigned char *p, bool new_layout,
                       struct entry_info *out) {
  if (new_layout) {
    out->flags = (int32_t)rd32(p + 12);
    out->host_addr = (void *)(uintptr_t)rd64(p + 16);
    out->name = (const char *)(uintptr_t)rd64(p + 24);
    out->size = rd64(p + 32);
    out->data = (int64_t)rd64(p + 40);
  } else {
    out->host_addr = (void *)(uintptr_t)rd64(p + 0);
    out->name = (const char *)(uintptr_t)rd64(p + 8);
    out->size = rd64(p + 16);
    out->flags = (int32_t)rd32(p + 24);
    out->data = (int32_t)rd32(p + 28);
  }
}

static bool looks_new_layout(const unsigned char *p, uint64_t bytes) {
  return bytes % NEW_ENTRY_SIZE == 0 && rd64(p) == 0 && rd16(p + 8) == 1 &&
         rd16(p + 10) == OFFLOAD_KIND_OPENMP;
}

/* The bounds of an entry array: 0, or -1 with err set. */
static int check_entry_bounds(const void *begin, const void *end, char *err,
                              size_t err_len) {
  if (!begin || !end || (uintptr_t)end < (uintptr_t)begin) {
    set_err(err, err_len,
            "entry array bounds EntriesBegin=%p EntriesEnd=%p are invalid",
            begin, end);
    return -1;
  }
  uint64_t bytes = (uint64_t)((uintptr_t)end - (uintptr_t)begin);
  if (bytes > MAX_ENTRY_ARRAY_BYTES) {
    set_err(err, err_len,
            "entry array EntriesBegin=%p EntriesEnd=%p has an absurd size of"
            " %" PRIu64 " bytes",
            begin, end, bytes);
    return -1;
  }
  return 0;
}

/* Which layout the array of `bytes` bytes at p has: its stride (the new
 * 56-byte entries or the legacy 32-byte ones) into *stride; 0, or -1 with
 * err set when it is neither. */
static int entry_layout(const unsigned char *p, uint64_t bytes,
                        bool *new_layout, size_t *stride, char *err,
                        size_t err_len) {
  if (bytes >= NEW_ENTRY_SIZE && looks_new_layout(p, bytes)) {
    *new_layout = true;
    *stride = NEW_ENTRY_SIZE;
  } else if (bytes % LEGACY_ENTRY_SIZE == 0) {
    *new_layout = false;
    *stride = LEGACY_ENTRY_SIZE;
  } else {
    set_err(err, err_len,
            "entry array at %p of %" PRIu64 " bytes is neither a whole number"
            " of legacy 32-byte entries nor of 56-byte entries with"
            " Reserved=0, Version=1, Kind=1",
            (const void *)p, bytes);
    return -1;
  }
  return 0;
}

/* Read and check entry i at raw into *e: 0, or -1 with err set. */
static int parse_entry(const unsigned char *raw, bool new_layout, size_t i,
                       struct entry_info *e, char *err, size_t err_len) {
  if (new_layout) {
    uint64_t reserved = rd64(raw);
    uint16_t version = rd16(raw + 8), kind = rd16(raw + 10);
    if (reserved != 0 || version != 1 || kind != OFFLOAD_KIND_OPENMP) {
      set_err(err, err_len,
              "offload entry %zu at %p: Reserved=0x%" PRIx64
              " Version=%u Kind=%u, expected 0, 1 and 1 (OpenMP)",
              i, (const void *)raw, reserved, version, kind);
      return -1;
    }
  }
  read_entry(raw, new_layout, e);
  if ((uint32_t)e->flags & ~(uint32_t)KNOWN_ENTRY_FLAGS) {
    set_err(err, err_len, "offload entry %zu at %p: unknown flags 0x%x", i,
            (const void *)raw, (unsigned)e->flags);
    return -1;
  }
  if (e->flags & OMP_REGISTER_REQUIRES) {
    e->size = 0;
    return 0; /* address NULL and name "" or ".requires": nothing to check */
  }
  if (!e->name) {
    set_err(err, err_len,
            "offload entry %zu at %p (host address %p, flags 0x%x): NULL"
            " name",
            i, (const void *)raw, e->host_addr, (unsigned)e->flags);
    return -1;
  }
  if (!e->host_addr) {
    set_err(err, err_len,
            "offload entry %zu at %p (flags 0x%x): NULL host address", i,
            (const void *)raw, (unsigned)e->flags);
    return -1;
  }
  if (e->size > MAX_GLOBAL_SIZE) {
    set_err(err, err_len,
            "offload entry %zu at %p (host address %p): absurd size %" PRIu64,
            i, (const void *)raw, e->host_addr, e->size);
    return -1;
  }
  e->data = 0;
  return 0;
}

int registry_parse_entries(const void *begin, const void *end,
                           struct entry_info **out, size_t *n, char *err,
                           size_t err_len) {
  if (!out || !n) {
    set_err(err, err_len, "internal error: no output for the entries");
    return -1;
  }
  *out = NULL;
  *n = 0;
  if (begin == end)
    return 0; /* no entries at all is legal (an image of helpers only) */
  if (check_entry_bounds(begin, end, err, err_len) != 0)
    return -1;
  uint64_t bytes = (uint64_t)((uintptr_t)end - (uintptr_t)begin);
  const unsigned char *p = begin;
  bool new_layout;
  size_t stride;
  if (entry_layout(p, bytes, &new_layout, &stride, err, err_len) != 0)
    return -1;
  size_t count = (size_t)(bytes / stride);
  struct entry_info *entries = calloc(count, sizeof *entries);
  if (!entries) {
    set_err(err, err_len, "out of memory for %zu offload entries", count);
    return -1;
  }
  for (size_t i = 0; i < count; i++)
    if (parse_entry(p + i * stride, new_layout, i, &entries[i], err,
                    err_len) != 0) {
      free(entries);
      return -1;
    }
  *out = entries;
  *n = count;
  return 0;
}

void registry_free(struct registered_lib *lib) {
  if (!lib)
    return;
  free(lib->images);
  free(lib->entries);
  free(lib->legacy);
  free(lib);
}

/* The image's own entry array equals the host one in every clang version;
 * if a compiler ever gave a different one it must at least match in size. */
static int check_image_entries(const __tgt_device_image *img, int32_t index,
                               size_t host_count, char *err, size_t err_len) {
  struct entry_info *img_entries = NULL;
  size_t img_count = 0;
  char why[256];
  if (registry_parse_entries(img->EntriesBegin, img->EntriesEnd, &img_entries,
                             &img_count, why, sizeof why) < 0) {
    set_err(err, err_len, "image %d: %s", index, why);
    return -1;
  }
  free(img_entries);
  if (img_count != host_count) {
    set_err(err, err_len,
            "image %d has %zu offload entries but the host has %zu", index,
            img_count, host_count);
    return -1;
  }
  return 0;
}

static int by_host_addr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)(*(const struct entry_info *const *)a)->host_addr;
  uintptr_t y = (uintptr_t)(*(const struct entry_info *const *)b)->host_addr;
  return x < y ? -1 : x > y;
}

/* A host address is how a construct names its kernel or global: two
 * entries with one address and different names would make the wrong one
 * run. 0, or -1 naming both entries. */
static int check_unique_host_addresses(const struct entry_info *entries,
                                       size_t count, char *err,
                                       size_t err_len) {
  const struct entry_info **sorted = malloc((count ? count : 1) * sizeof *sorted);
  if (!sorted) {
    set_err(err, err_len, "out of memory checking %zu offload entries", count);
    return -1;
  }
  size_t n = 0;
  for (size_t i = 0; i < count; i++)
    if (!(entries[i].flags & OMP_REGISTER_REQUIRES))
      sorted[n++] = &entries[i];
  qsort(sorted, n, sizeof *sorted, by_host_addr);
  int rc = 0;
  for (size_t i = 1; i < n && rc == 0; i++)
    if (sorted[i]->host_addr == sorted[i - 1]->host_addr &&
        strcmp(sorted[i]->name, sorted[i - 1]->name) != 0) {
      set_err(err, err_len,
              "offload entries `%.150s` (entry %zu) and `%.150s` (entry %zu) "
              "have the same host address %p: each kernel and global needs "
              "its own",
              sorted[i - 1]->name, (size_t)(sorted[i - 1] - entries),
              sorted[i]->name, (size_t)(sorted[i] - entries),
              sorted[i]->host_addr);
      rc = -1;
    }
  free(sorted);
  return rc;
}

struct registered_lib *registry_parse_descriptor(const __tgt_bin_desc *desc,
                                                 char *err, size_t err_len) {
  if (!desc) {
    set_err(err, err_len, "NULL binary descriptor");
    return NULL;
  }
  if (desc->NumDeviceImages < 0 ||
      desc->NumDeviceImages > MAX_IMAGES_PER_DESC) {
    set_err(err, err_len,
            "descriptor %p: NumDeviceImages=%d is out of range (0..%d)",
            (const void *)desc, desc->NumDeviceImages, MAX_IMAGES_PER_DESC);
    return NULL;
  }
  if (desc->NumDeviceImages > 0 && !desc->DeviceImages) {
    set_err(err, err_len, "descriptor %p: %d device images but DeviceImages"
            " is NULL", (const void *)desc, desc->NumDeviceImages);
    return NULL;
  }
  struct registered_lib *lib = calloc(1, sizeof *lib);
  if (!lib) {
    set_err(err, err_len, "out of memory registering descriptor %p",
            (const void *)desc);
    return NULL;
  }
  lib->desc = desc;
  char why[384];
  if (registry_parse_entries(desc->HostEntriesBegin, desc->HostEntriesEnd,
                             &lib->entries, &lib->num_entries, why,
                             sizeof why) < 0) {
    set_err(err, err_len, "descriptor %p: host entries: %s",
            (const void *)desc, why);
    goto out_free_lib;
  }
  if (check_unique_host_addresses(lib->entries, lib->num_entries, why,
                                  sizeof why) < 0) {
    set_err(err, err_len, "descriptor %p: host entries: %s",
            (const void *)desc, why);
    goto out_free_lib;
  }
  if (lib->num_entries) {
    lib->legacy = calloc(lib->num_entries, sizeof *lib->legacy);
    if (!lib->legacy) {
      set_err(err, err_len, "out of memory for %zu entries of descriptor %p",
              lib->num_entries, (const void *)desc);
      goto out_free_lib;
    }
  }
  for (size_t i = 0; i < lib->num_entries; i++) {
    const struct entry_info *e = &lib->entries[i];
    __tgt_offload_entry *l = &lib->legacy[i];
    l->addr = e->host_addr;
    l->name = (char *)e->name;
    l->size = (size_t)e->size;
    l->flags = e->flags;
    l->reserved = (int32_t)e->data;
    if (e->flags & OMP_REGISTER_REQUIRES)
      lib->requires_flags |= e->data;
  }
  lib->num_images = desc->NumDeviceImages;
  if (lib->num_images) {
    lib->images = calloc((size_t)lib->num_images, sizeof *lib->images);
    if (!lib->images) {
      set_err(err, err_len, "out of memory for %d images of descriptor %p",
              lib->num_images, (const void *)desc);
      goto out_free_lib;
    }
  }
  for (int32_t i = 0; i < lib->num_images; i++) {
    const __tgt_device_image *img = &desc->DeviceImages[i];
    struct image_info *info = &lib->images[i];
    if (registry_unwrap_image(img->ImageStart, img->ImageEnd, info, why,
                              sizeof why) < 0) {
      set_err(err, err_len, "descriptor %p, image %d: %s", (const void *)desc,
              i, why);
      goto out_free_lib;
    }
    if ((img->EntriesBegin != desc->HostEntriesBegin ||
         img->EntriesEnd != desc->HostEntriesEnd) &&
        check_image_entries(img, i, lib->num_entries, why, sizeof why) < 0) {
      set_err(err, err_len, "descriptor %p: %s", (const void *)desc, why);
      goto out_free_lib;
    }
    info->original = img;
    info->plugin_image.ImageStart = (void *)info->payload;
    info->plugin_image.ImageEnd = (char *)info->payload + info->payload_size;
    info->plugin_image.EntriesBegin = lib->legacy;
    info->plugin_image.EntriesEnd = lib->legacy + lib->num_entries;
  }
  return lib;

out_free_lib:
  registry_free(lib);
  return NULL;
}

void registry_lock(void) { pthread_mutex_lock(&registry_mutex); }
void registry_unlock(void) { pthread_mutex_unlock(&registry_mutex); }
struct registered_lib *registry_first(void) { return registry_head; }

uint64_t registry_last_generation(void) {
  /* Helgrind does not model atomics: the acquire load pairs with the
   * release store in registry_add. */
  VALGRIND_HINT(VALGRIND_HG_DISABLE_CHECKING(&registry_next_gen,
                                             sizeof registry_next_gen));
  return __atomic_load_n(&registry_next_gen, __ATOMIC_ACQUIRE) - 1;
}

int registry_add(const __tgt_bin_desc *desc) {
  char why[512];
  struct registered_lib *lib = registry_parse_descriptor(desc, why, sizeof why);
  if (!lib) {
    /* The caller (__tgt_register_lib) prints it and keeps it as a
     * rejection for the mandatory-offload report. */
    report_error_set("%s", why);
    return -1;
  }
  registry_lock();
  struct registered_lib **tail = &registry_head;
  for (; *tail; tail = &(*tail)->next) {
    if ((*tail)->desc == desc) {
      registry_unlock();
      registry_free(lib);
      report_error_set("descriptor %p is already registered",
                       (const void *)desc);
      return -1;
    }
  }
  lib->generation = registry_next_gen;
  /* read without the lock by registry_last_generation */
  __atomic_store_n(&registry_next_gen, registry_next_gen + 1, __ATOMIC_RELEASE);
  *tail = lib;
  registry_unlock();
  if (lib->requires_flags)
    registry_add_requires(lib->requires_flags);
  report_debug("registered descriptor %p: %d image(s), %zu entries,"
               " generation %" PRIu64,
               (const void *)desc, lib->num_images, lib->num_entries,
               lib->generation);
  return 0;
}

struct registered_lib *registry_remove(const __tgt_bin_desc *desc) {
  registry_lock();
  struct registered_lib **link = &registry_head;
  while (*link && (*link)->desc != desc)
    link = &(*link)->next;
  struct registered_lib *lib = *link;
  if (lib) {
    *link = lib->next;
    lib->next = NULL;
  }
  registry_unlock();
  return lib;
}

/* The bits whose disagreement between libraries changes what the device must
 * do (dynamic_allocators is per-TU and harmless). */
#define REQUIRES_MUST_AGREE                                                    \
  (OMP_REQ_REVERSE_OFFLOAD | OMP_REQ_UNIFIED_ADDRESS |                         \
   OMP_REQ_UNIFIED_SHARED_MEMORY)

void registry_add_requires(int64_t flags) {
  if (flags == OMP_REQ_UNDEFINED)
    return;
  registry_lock();
  if (requires_flags == OMP_REQ_UNDEFINED) {
    requires_flags = flags;
  } else {
    if ((requires_flags & REQUIRES_MUST_AGREE) !=
            (flags & REQUIRES_MUST_AGREE) &&
        !requires_conflict[0])
      snprintf(requires_conflict, sizeof requires_conflict,
               "conflicting 'requires' directives: one translation unit"
               " registered flags 0x%" PRIx64 ", another 0x%" PRIx64
               " (reverse_offload, unified_address and"
               " unified_shared_memory must agree)",
               requires_flags, flags);
    requires_flags |= flags;
  }
  /* 0x1 means "no requires"; it loses its meaning once any other bit is set. */
  if (requires_flags & ~(int64_t)OMP_REQ_NONE)
    requires_flags &= ~(int64_t)OMP_REQ_NONE;
  registry_unlock();
}

int64_t registry_requires(void) {
  registry_lock();
  int64_t flags = requires_flags;
  registry_unlock();
  return flags;
}

const char *registry_requires_conflict(void) {
  /* Written once under the lock and never changed afterwards. */
  registry_lock();
  const char *msg = requires_conflict;
  registry_unlock();
  return msg;
}

#ifdef SIMTARGET_TEST_HOOKS
void registry_reset_requires_for_test(void) {
  registry_lock();
  requires_flags = OMP_REQ_UNDEFINED;
  requires_conflict[0] = '\0';
  registry_unlock();
}
#endif
