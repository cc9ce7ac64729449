/*
 * modules.c - device images as CUDA modules: load (cubin, PTX, fatbinary),
 * resolve every host entry by name (kernels with cuModuleGetFunction,
 * globals with cuModuleGetGlobal), set up the device runtime's globals, and
 * build the table libomptarget reads. A kernel's table entry points to its
 * cuda_kernel record, which libomptarget hands back at launch.
 *
 * Locking: everything here runs under the device's lock with its context
 * current (plugin.c takes both).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

#define LEGACY_ENTRY_BYTES 32
#define JIT_LOG_BYTES 4096

struct cuda_image {
  struct cuda_image *next;
  const __tgt_device_image *key; /* what libomptarget passed */
  CUmodule module;
  __tgt_offload_entry *entries; /* copy of the host entries; addr = device */
  size_t count;
  struct cuda_kernel *kernels; /* one per kernel entry found */
  size_t kernel_count;
  char **names; /* owned copies of the kernel names */
  __tgt_target_table table;
};

static void free_image(struct cuda_image *img) {
  if (img == NULL)
    return;
  for (size_t i = 0; i < img->kernel_count; i++)
    free(img->names[i]);
  free(img->names);
  free(img->kernels);
  free(img->entries);
  free(img);
}

static int is_kernel_entry(const __tgt_offload_entry *e) {
  return e->size == 0;
}

/* The driver wants PTX NUL-terminated; other kinds are passed as they are. */
static int load_module(struct cuda_device *dev,
                       const struct cuda_image_payload *payload,
                       CUmodule *module) {
  const struct cuda_driver *drv = driver_get();
  const void *data = payload->bytes;
  char *ptx = NULL;
  if (payload->kind == CUDA_IMAGE_PTX) {
    ptx = malloc(payload->size + 1);
    if (ptx == NULL) {
      cuda_error("cuda: device %d: no host memory for a copy of the %zu-byte "
                 "PTX image",
                 dev->id, payload->size);
      return -1;
    }
    memcpy(ptx, payload->bytes, payload->size);
    ptx[payload->size] = '\0';
    data = ptx;
  }
  char log[JIT_LOG_BYTES] = "";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, (void *)(uintptr_t)sizeof log};
  CUresult rc = drv->cuModuleLoadDataEx(module, data, 2, options, values);
  free(ptx);
  if (rc == CUDA_SUCCESS)
    return 0;
  log[sizeof log - 1] = '\0';
  size_t n = strlen(log);
  while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == ' '))
    log[--n] = '\0';
  return cuda_driver_error(drv, rc,
                           "device %d (%s, sm_%d%d): loading the %zu-byte %s "
                           "image%s%.200s%s",
                           dev->id, dev->name, dev->cc_major, dev->cc_minor,
                           payload->size, image_kind_name(payload->kind),
                           n ? " (JIT log: " : "", log, n ? ")" : "");
}

/* Appends `name` to the comma-separated list of missing symbols. */
static void note_missing(char *missing, size_t len, const char *name) {
  size_t used = strlen(missing);
  if (used + 4 >= len)
    return;
  snprintf(missing + used, len - used, "%s%s", used ? ", " : "", name);
}

/* Fills entry i's device address. Returns 0 (also when the module lacks the
 * symbol: the entry stays NULL and is named in `missing`) or -1. */
static int resolve_entry(struct cuda_device *dev, struct cuda_image *img,
                         size_t i, char *missing, size_t missing_len) {
  const struct cuda_driver *drv = driver_get();
  __tgt_offload_entry *e = &img->entries[i];
  e->addr = NULL;
  if (e->name == NULL || (e->flags & OMP_REGISTER_REQUIRES))
    return 0;
  if (is_kernel_entry(e)) {
    CUfunction function;
    CUresult rc = drv->cuModuleGetFunction(&function, img->module, e->name);
    if (rc == CUDA_ERROR_NOT_FOUND) {
      note_missing(missing, missing_len, e->name);
      return 0;
    }
    if (rc != CUDA_SUCCESS)
      return cuda_driver_error(drv, rc, "device %d: looking up kernel `%s`",
                               dev->id, e->name);
    struct cuda_kernel *k = &img->kernels[img->kernel_count];
    memset(k, 0, sizeof *k);
    img->names[img->kernel_count] = strdup(e->name);
    if (img->names[img->kernel_count] == NULL) {
      cuda_error("cuda: device %d: no host memory for the name of kernel `%s`",
                 dev->id, e->name);
      return -1;
    }
    k->name = img->names[img->kernel_count++];
    k->function = function;
    k->device_id = dev->id;
    if (devenv_read_kernel_environment(dev, img->module, k) != 0)
      return -1;
    e->addr = k;
    return 0;
  }
  CUdeviceptr ptr;
  size_t bytes;
  CUresult rc = drv->cuModuleGetGlobal(&ptr, &bytes, img->module, e->name);
  if (rc == CUDA_ERROR_NOT_FOUND) {
    note_missing(missing, missing_len, e->name);
    return 0;
  }
  if (rc != CUDA_SUCCESS)
    return cuda_driver_error(drv, rc, "device %d: looking up global `%s`",
                             dev->id, e->name);
  /* A link variable's device symbol is a pointer, not the object. */
  if (!(e->flags & OMP_DECLARE_TARGET_LINK) && bytes != e->size) {
    cuda_error("cuda: device %d: declare target variable `%s` is %zu bytes "
               "on the host but %zu bytes in the device image",
               dev->id, e->name, e->size, bytes);
    return -1;
  }
  e->addr = (void *)(uintptr_t)ptr;
  return 0;
}

__tgt_target_table *modules_load(struct cuda_device *dev,
                                 const __tgt_device_image *image) {
  LOCK_ASSERT_HELD(&dev->lock);
  const struct cuda_driver *drv = driver_get();
  struct cuda_image_payload payload;
  char why[300];
  if (image_classify(image, &payload, why, sizeof why) != 0) {
    cuda_error("cuda: device %d rejects the image: %s", dev->id, why);
    return NULL;
  }
  size_t span =
      (size_t)((char *)image->EntriesEnd - (char *)image->EntriesBegin);
  if (image->EntriesEnd < image->EntriesBegin ||
      (span > 0 && image->EntriesBegin == NULL) || span % LEGACY_ENTRY_BYTES) {
    cuda_error("cuda: device %d: the image's entry table [%p, %p) is not a "
               "whole number of 32-byte entries",
               dev->id, image->EntriesBegin, image->EntriesEnd);
    return NULL;
  }
  struct cuda_image *img = calloc(1, sizeof *img);
  if (img == NULL)
    goto out_no_memory;
  img->key = image;
  img->count = span / LEGACY_ENTRY_BYTES;
  size_t slots = img->count ? img->count : 1;
  img->entries = calloc(slots, sizeof *img->entries);
  img->kernels = calloc(slots, sizeof *img->kernels);
  img->names = calloc(slots, sizeof *img->names);
  if (img->entries == NULL || img->kernels == NULL || img->names == NULL)
    goto out_no_memory;
  if (span > 0)
    memcpy(img->entries, image->EntriesBegin, span);
  if (load_module(dev, &payload, &img->module) != 0)
    goto out_free;
  char missing[300] = "";
  for (size_t i = 0; i < img->count; i++)
    if (resolve_entry(dev, img, i, missing, sizeof missing) != 0)
      goto out_unload;
  if (devenv_write_device_environment(dev, img->module) != 0)
    goto out_unload;
  img->table.EntriesBegin = img->entries;
  img->table.EntriesEnd = img->entries + img->count;
  img->next = dev->images;
  dev->images = img;
  cuda_info(INFO_PLUGIN_KERNEL,
            "device %d: loaded a %zu-byte %s image with %zu entries (%zu "
            "kernels)",
            dev->id, payload.size, image_kind_name(payload.kind), img->count,
            img->kernel_count);
  if (missing[0]) /* kept for get_last_error; the load itself succeeds */
    cuda_error("cuda: device %d: the image has no device symbol for %s "
               "(their table entries are NULL)",
               dev->id, missing);
  return &img->table;

out_no_memory:
  cuda_error("cuda: device %d: no host memory to load an image", dev->id);
  goto out_free;
out_unload:
  drv->cuModuleUnload(img->module);
out_free:
  free_image(img);
  return NULL;
}

int modules_unload(struct cuda_device *dev, const __tgt_device_image *image) {
  LOCK_ASSERT_HELD(&dev->lock);
  struct cuda_image **link = &dev->images;
  while (*link != NULL && (*link)->key != image)
    link = &(*link)->next;
  if (*link == NULL) {
    cuda_error("cuda: device %d: image %p is not loaded", dev->id,
               (const void *)image);
    return -1;
  }
  struct cuda_image *img = *link;
  *link = img->next;
  const struct cuda_driver *drv = driver_get();
  CUresult rc = drv->cuModuleUnload(img->module);
  free_image(img);
  if (rc != CUDA_SUCCESS)
    return cuda_driver_error(drv, rc, "device %d: unloading a module",
                             dev->id);
  return 0;
}

void modules_unload_all(struct cuda_device *dev) {
  LOCK_ASSERT_HELD(&dev->lock);
  const struct cuda_driver *drv = driver_get();
  while (dev->images != NULL) {
    struct cuda_image *img = dev->images;
    dev->images = img->next;
    drv->cuModuleUnload(img->module); /* the context goes away next anyway */
    free_image(img);
  }
}

const struct cuda_kernel *modules_find_kernel(struct cuda_device *dev,
                                              const void *entry) {
  for (const struct cuda_image *img = dev->images; img; img = img->next)
    for (size_t i = 0; i < img->kernel_count; i++)
      if (&img->kernels[i] == entry)
        return &img->kernels[i];
  return NULL;
}
