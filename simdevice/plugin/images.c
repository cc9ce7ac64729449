/*
 * images.c - device images on the host side: sends an image to the device
 * process (STAGE chunks through the bounce area, then LOAD with the entry
 * names), builds the target table, keeps what a restart needs to replay the
 * load, and answers "which kernel is this address" and "is this a global".
 *
 * Locking: everything here runs under the device's channel_lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload_image.h"
#include "plugin_faults.h"
#include "lock_check.h"
#include "plugin_internal.h"

struct plugin_image {
  struct plugin_image *next;
  const __tgt_device_image *key; /* what libomptarget passed */
  unsigned char *elf;            /* own copy, for replay */
  size_t elf_size;
  uint64_t count;                /* entries */
  __tgt_offload_entry *entries;  /* copy of the host entries; addr = device */
  char *names;                   /* NUL-separated names as sent */
  size_t names_len;
  uint64_t server_id;
  unsigned clang_major;          /* its compiler (.comment), 0: unknown */
  __tgt_target_table table;
};

#define LEGACY_ENTRY_BYTES 32

static int is_kernel(const __tgt_offload_entry *e) {
  return e->size == 0 && (e->flags & OMP_REGISTER_REQUIRES) == 0 &&
         (e->flags & ~(OMP_DECLARE_TARGET_CTOR | OMP_DECLARE_TARGET_DTOR)) == 0;
}

/* Sends the ELF and the names to the server and loads it; fills `addrs`
 * (count) and the server's image id. An ELF that fits in the bounce area
 * beside the names goes with the LOAD itself: one round trip fewer in a
 * program's first target region (each costs a wake-up of the server and
 * of this thread, 0.1-0.4 ms apiece on the 2-CPU test VM); a larger one is
 * staged first, a bounce area at a time. */
static int send_image(struct sim_device *dev, const struct plugin_image *img,
                      uint64_t *addrs, uint64_t *server_id) {
  struct simdev_slot *s = &dev->ctl->slot;
  int inline_elf = img->names_len + img->elf_size <= SIMDEV_BOUNCE_SIZE;
  for (size_t done = 0; !inline_elf && done < img->elf_size;) {
    size_t n = img->elf_size - done;
    if (n > SIMDEV_BOUNCE_SIZE)
      n = SIMDEV_BOUNCE_SIZE;
    memcpy(dev->bounce, img->elf + done, n);
    s->a[0] = n;
    s->a[1] = done == 0;
    if (SIM_FAULT(IMAGE_WRITE)) {
      plugin_error("simdevice: device %d: writing %zu bytes of the image at "
                   "offset %zu failed (injected image_write fault)",
                   dev->id, n, done);
      return -1;
    }
    if (channel_send(dev, SIMDEV_CMD_STAGE, NULL) != 0)
      return -1;
    done += n;
  }
  memcpy(dev->bounce, img->names, img->names_len);
  s->a[0] = img->count;
  s->a[1] = img->names_len;
  s->a[2] = 0;
  if (inline_elf) {
    memcpy(dev->bounce + img->names_len, img->elf, img->elf_size);
    s->a[2] = img->elf_size;
    if (SIM_FAULT(IMAGE_WRITE)) {
      plugin_error("simdevice: device %d: writing the %zu bytes of the image "
                   "failed (injected image_write fault)",
                   dev->id, img->elf_size);
      return -1;
    }
  }
  if (SIM_FAULT(DLOPEN)) {
    plugin_error("simdevice: device %d: dlopen of the image failed (injected "
                 "dlopen fault)",
                 dev->id);
    return -1;
  }
  output_host_flush(); /* constructors of the image may print */
  if (channel_send(dev, SIMDEV_CMD_LOAD, NULL) != 0)
    return -1;
  memcpy(addrs, dev->bounce, img->count * sizeof *addrs);
  *server_id = s->a[0];
  return 0;
}

static int kernel_order(const void *a, const void *b) {
  uint64_t x = ((const struct kernel_ref *)a)->addr;
  uint64_t y = ((const struct kernel_ref *)b)->addr;
  return x < y ? -1 : x > y;
}

/* Rebuilds the sorted kernel table from the loaded images. */
static int rebuild_kernels(struct sim_device *dev) {
  size_t n = 0;
  for (struct plugin_image *img = dev->images; img; img = img->next)
    for (uint64_t i = 0; i < img->count; i++)
      n += is_kernel(&img->entries[i]) && img->entries[i].addr != NULL;
  struct kernel_ref *k = calloc(n ? n : 1, sizeof *k);
  if (k == NULL) {
    plugin_error("simdevice: no host memory for the kernel table");
    return -1;
  }
  size_t j = 0;
  for (struct plugin_image *img = dev->images; img; img = img->next)
    for (uint64_t i = 0; i < img->count; i++)
      if (is_kernel(&img->entries[i]) && img->entries[i].addr != NULL)
        k[j++] = (struct kernel_ref){(uint64_t)img->entries[i].addr,
                                     img->entries[i].name, img->clang_major};
  qsort(k, n, sizeof *k, kernel_order);
  free(dev->kernels);
  dev->kernels = k;
  dev->kernel_count = n;
  return 0;
}

static void free_image(struct plugin_image *img) {
  if (img == NULL)
    return;
  free(img->elf);
  free(img->names);
  free(img->entries);
  free(img);
}

__tgt_target_table *images_load(struct sim_device *dev,
                                __tgt_device_image *image) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  char why[400];
  const void *elf;
  size_t elf_size;
  if (elfimage_check(image, &elf, &elf_size, why, sizeof why) != 0) {
    plugin_error("simdevice: device %d rejects the image: %s", dev->id, why);
    return NULL;
  }
  size_t span = (size_t)((char *)image->EntriesEnd - (char *)image->EntriesBegin);
  if (image->EntriesEnd < image->EntriesBegin || span % LEGACY_ENTRY_BYTES) {
    plugin_error("simdevice: device %d: the image's entry table [%p, %p) is "
                 "not a whole number of 32-byte entries",
                 dev->id, image->EntriesBegin, image->EntriesEnd);
    return NULL;
  }
  uint64_t *addrs = NULL;
  struct plugin_image *img = calloc(1, sizeof *img);
  if (img == NULL)
    goto out_no_memory;
  img->key = image;
  img->count = span / LEGACY_ENTRY_BYTES;
  img->elf_size = elf_size;
  img->elf = malloc(elf_size);
  img->entries = calloc(img->count ? img->count : 1, sizeof *img->entries);
  addrs = calloc(img->count ? img->count : 1, sizeof *addrs);
  if (img->elf == NULL || img->entries == NULL || addrs == NULL)
    goto out_no_memory;
  memcpy(img->elf, elf, elf_size);
  img->clang_major = offload_elf_clang_major(elf, elf_size);
  memcpy(img->entries, image->EntriesBegin, span);
  for (uint64_t i = 0; i < img->count; i++) {
    const __tgt_offload_entry *e = &img->entries[i];
    int wanted = e->name != NULL && !(e->flags & OMP_REGISTER_REQUIRES);
    img->names_len += (wanted ? strlen(e->name) : 0) + 1;
  }
  if (img->names_len > SIMDEV_BOUNCE_SIZE ||
      img->count * sizeof(uint64_t) > SIMDEV_BOUNCE_SIZE) {
    plugin_error("simdevice: device %d: the image has too many entries "
                 "(%llu) for one load",
                 dev->id, (unsigned long long)img->count);
    goto out_free;
  }
  img->names = malloc(img->names_len ? img->names_len : 1);
  if (img->names == NULL)
    goto out_no_memory;
  char *p = img->names;
  for (uint64_t i = 0; i < img->count; i++) {
    const __tgt_offload_entry *e = &img->entries[i];
    int wanted = e->name != NULL && !(e->flags & OMP_REGISTER_REQUIRES);
    size_t n = wanted ? strlen(e->name) : 0;
    memcpy(p, wanted ? e->name : "", n);
    p[n] = '\0';
    p += n + 1;
  }
  if (send_image(dev, img, addrs, &img->server_id) != 0)
    goto out_free;
  char missing[300] = "";
  size_t missing_len = 0;
  for (uint64_t i = 0; i < img->count; i++) {
    __tgt_offload_entry *e = &img->entries[i];
    e->addr = (void *)addrs[i];
    if (addrs[i] == 0 && e->name != NULL && !(e->flags & OMP_REGISTER_REQUIRES) &&
        missing_len < sizeof missing - 1)
      missing_len += (size_t)snprintf(missing + missing_len,
                                      sizeof missing - missing_len, "%s%s",
                                      missing_len ? ", " : "", e->name);
  }
  img->table.EntriesBegin = img->entries;
  img->table.EntriesEnd = img->entries + img->count;
  img->next = NULL;
  struct plugin_image **tail = &dev->images;
  while (*tail != NULL)
    tail = &(*tail)->next;
  *tail = img;
  if (rebuild_kernels(dev) != 0) {
    *tail = NULL;
    dev->ctl->slot.a[0] = img->server_id;
    channel_send(dev, SIMDEV_CMD_UNLOAD, NULL);
    goto out_free;
  }
  if (missing_len > 0) /* kept for get_last_error; the load itself succeeds */
    plugin_error("simdevice: device %d: the image has no device symbol for "
                 "%s (their table entries are NULL)",
                 dev->id, missing);
  free(addrs);
  return &img->table;
out_no_memory:
  plugin_error("simdevice: device %d: no host memory to load an image",
               dev->id);
out_free:
  free(addrs);
  free_image(img);
  return NULL;
}

int images_unload(struct sim_device *dev, __tgt_device_image *image) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  struct plugin_image **link = &dev->images;
  while (*link != NULL && (*link)->key != image)
    link = &(*link)->next;
  if (*link == NULL) {
    plugin_error("simdevice: device %d: unload_binary of an image that is "
                 "not loaded (%p)",
                 dev->id, (void *)image);
    return -1;
  }
  struct plugin_image *img = *link;
  int rc = 0;
  if (!dev->dead && dev->pid > 0) {
    dev->ctl->slot.a[0] = img->server_id;
    output_host_flush(); /* destructors of the image may print */
    rc = channel_send(dev, SIMDEV_CMD_UNLOAD, NULL);
  }
  *link = img->next;
  free_image(img);
  if (rebuild_kernels(dev) != 0)
    rc = -1;
  return rc;
}

int images_replay(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  for (struct plugin_image *img = dev->images; img; img = img->next) {
    uint64_t *addrs = calloc(img->count ? img->count : 1, sizeof *addrs);
    if (addrs == NULL) {
      plugin_error("simdevice: device %d: no host memory to reload images",
                   dev->id);
      return -1;
    }
    if (send_image(dev, img, addrs, &img->server_id) != 0) {
      free(addrs);
      return -1;
    }
    for (uint64_t i = 0; i < img->count; i++)
      if (addrs[i] != (uint64_t)img->entries[i].addr) {
        plugin_error("simdevice: device %d restarted but `%s` reloaded at "
                     "0x%llx instead of %p (address randomisation is on?)",
                     dev->id, img->entries[i].name ? img->entries[i].name : "",
                     (unsigned long long)addrs[i], img->entries[i].addr);
        free(addrs);
        return -1;
      }
    free(addrs);
  }
  return 0;
}

void images_forget_all(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  while (dev->images != NULL) {
    struct plugin_image *img = dev->images;
    dev->images = img->next;
    free_image(img);
  }
  free(dev->kernels);
  dev->kernels = NULL;
  dev->kernel_count = 0;
}

const struct kernel_ref *images_find_kernel(struct sim_device *dev,
                                            uint64_t addr) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  struct kernel_ref key = {.addr = addr};
  return bsearch(&key, dev->kernels, dev->kernel_count, sizeof key,
                 kernel_order);
}

int images_global_contains(struct sim_device *dev, uint64_t addr,
                           uint64_t size) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  for (struct plugin_image *img = dev->images; img; img = img->next)
    for (uint64_t i = 0; i < img->count; i++) {
      const __tgt_offload_entry *e = &img->entries[i];
      uint64_t a = (uint64_t)e->addr;
      if (e->size > 0 && a != 0 && addr >= a && addr - a <= e->size &&
          size <= e->size - (addr - a))
        return 1;
    }
  return 0;
}

int images_each(struct sim_device *dev,
                int (*fn)(void *ctx, const void *elf, size_t size,
                          const __tgt_offload_entry *entries, uint64_t count),
                void *ctx) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  int rc = 0;
  for (struct plugin_image *img = dev->images; img && rc == 0; img = img->next)
    rc = fn(ctx, img->elf, img->elf_size, img->entries, img->count);
  return rc;
}
