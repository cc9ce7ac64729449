/*
 * usm.c - the in-process mode, for programs that declare `requires
 * unified_shared_memory` or `unified_address`. Such a program shares its
 * address space with the device by definition, so the separate device
 * process cannot apply: each simdevice device instead loads its images in
 * the host process, in a link namespace of its own (dlmopen LM_ID_NEWLM)
 * holding simdevice's device runtime (build/lib/simdevice/libomp.so.5, whose
 * SONAME is the host libomp's) and the libomptarget SONAME stand-ins, and
 * runs kernels on the calling thread through the runtime's launch API
 * (simdev_rt.h), so teams and threads are the same as in the device process.
 * Device memory is host memory: data_alloc for a mapping returns the host
 * address itself (a map is a no-op), other allocations are malloc'ed, and
 * copies are memmove. Every other program keeps its separate process.
 *
 * Output: the namespace has a libc of its own, with its own stdout buffer,
 * which the program's exit never flushes; device printf would be lost on a
 * pipe or a file. That stdout is made line-buffered (a line printed before a
 * kernel faults is written, as in the device process) and flushed after
 * every kernel and image unload, so output stays in program order.
 *
 * Locking: usm_flags is set once by init_requires, before any device is
 * used. Each device's namespace, images and allocations are guarded by its
 * usm_device.lock; kernels run without it (the entry addresses they use
 * stay valid until unload_binary, which libomptarget calls at exit only).
 * The fault handler reads only `running_kernel`, an atomic pointer to a
 * name that lives as long as its image.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "image_entries.h"
#include "lock_check.h"
#include "plugin_internal.h"

struct usm_image {
  struct usm_image *next;
  const __tgt_device_image *key; /* what libomptarget passed */
  void *handle;                  /* dlmopen handle in the device's namespace */
  int fd;                        /* memfd the image was loaded from */
  uint64_t count;
  __tgt_offload_entry *entries; /* copy of the host entries; addr = device */
  __tgt_target_table table;
};

struct usm_block { /* memory data_alloc malloc'ed (not a host address) */
  struct usm_block *next;
  void *ptr;
  uint64_t mappings; /* mappings that use it as their host object: their
                        data_delete must not free it */
};

struct usm_output { /* the stdio of the namespace's own libc */
  FILE **out, **err;
  int (*flush)(FILE *);
  size_t (*pending)(FILE *);
};

struct usm_device {
  pthread_mutex_t lock;
  int loaded;     /* the runtime is loaded in namespace `ns` */
  Lmid_t ns;
  void *runtime;  /* dlmopen handle of the device runtime */
  int (*call)(void *, int, const uint64_t *);
  int (*kernel_begin)(int32_t, int32_t);
  void (*kernel_end)(void);
  struct usm_output out; /* the namespace's libc stdio */
  struct usm_image *images;
  struct usm_block *blocks;
};

static _Atomic int64_t usm_flags; /* the requires flags that chose this mode */
static struct usm_device usm_devices[PLUGIN_MAX_DEVICES];
static pthread_once_t usm_devices_once = PTHREAD_ONCE_INIT;
static _Atomic(const char *) running_kernel;
static struct sigaction previous_segv, previous_bus;

int usm_active(void) { return atomic_load(&usm_flags) != 0; }

/* A kernel that faults takes the program down, as it would under LLVM's
 * host plugin: say which kernel it was first, then let the previous
 * handler (or the default action) have the signal. */
static void usm_fault_handler(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  const char *kernel = atomic_load(&running_kernel);
  if (kernel != NULL) {
    char msg[600];
    int n = snprintf(msg, sizeof msg,
                     "simdevice: kernel `%.400s` %s at address %p; it ran "
                     "in the host process (unified_shared_memory: no "
                     "isolation)\n",
                     kernel, sig == SIGBUS ? "took SIGBUS" : "faulted (SIGSEGV)",
                     si->si_addr);
    if (n > 0)
      (void)!write(STDERR_FILENO, msg, (size_t)n < sizeof msg ? (size_t)n
                                                              : sizeof msg - 1);
  }
  sigaction(sig, sig == SIGBUS ? &previous_bus : &previous_segv, NULL);
  /* Returning re-runs the faulting instruction under that handler. */
}

static void usm_devices_init(void) {
  for (int i = 0; i < PLUGIN_MAX_DEVICES; i++)
    pthread_mutex_init(&usm_devices[i].lock, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = usm_fault_handler;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &previous_segv);
  sigaction(SIGBUS, &sa, &previous_bus);
}

int64_t usm_init_requires(int64_t flags, uint32_t info) {
  int64_t usm = flags & (OMP_REQ_UNIFIED_SHARED_MEMORY | OMP_REQ_UNIFIED_ADDRESS);
  if (usm == 0)
    return flags;
  atomic_store(&usm_flags, usm);
  pthread_once(&usm_devices_once, usm_devices_init);
  if (info != 0)
    fprintf(stderr,
            "simdevice: the program requires%s%s, so it shares its address "
            "space with the device: isolation is off, kernels run in the "
            "host process (on simdevice's device runtime) and device memory "
            "is host memory\n",
            (usm & OMP_REQ_UNIFIED_SHARED_MEMORY) ? " unified_shared_memory"
                                                  : "",
            (usm & OMP_REQ_UNIFIED_ADDRESS) ? " unified_address" : "");
  return flags;
}

static struct usm_device *usm_device(int32_t id) {
  if (id < 0 || id >= device_count() || id >= PLUGIN_MAX_DEVICES) {
    plugin_error("simdevice: device %d does not exist (%d devices)", id,
                 device_count());
    return NULL;
  }
  return &usm_devices[id];
}

/* Finds the stdio of the libc the runtime `rt` was linked against in its
 * namespace, and makes its stdout line-buffered. */
static int usm_output_init(struct usm_output *o, void *rt, int32_t id) {
  int (*set_buffer)(FILE *, char *, int, size_t) =
      (int (*)(FILE *, char *, int, size_t))dlsym(rt, "setvbuf");
  o->out = (FILE **)dlsym(rt, "stdout");
  o->err = (FILE **)dlsym(rt, "stderr");
  o->flush = (int (*)(FILE *))dlsym(rt, "fflush");
  o->pending = (size_t(*)(FILE *))dlsym(rt, "__fpending");
  if (set_buffer == NULL || o->out == NULL || o->err == NULL ||
      o->flush == NULL || o->pending == NULL) {
    plugin_error("simdevice: device %d (unified_shared_memory): the libc of "
                 "the device runtime's link namespace lacks stdio "
                 "(stdout, setvbuf, fflush, __fpending): device output "
                 "could not reach the program's stdout",
                 id);
    return -1;
  }
  set_buffer(*o->out, NULL, _IOLBF, BUFSIZ);
  return 0;
}

/* Writes what device code printed, before the host goes on. */
static void usm_output_flush(const struct usm_output *o) {
  /* Most kernels print nothing; fflush would still lock the stream. */
  if (o->pending(*o->out) > 0)
    o->flush(*o->out);
  if (o->pending(*o->err) > 0)
    o->flush(*o->err);
}

/* Loads the device runtime and the stand-ins in a new namespace. */
static int usm_load_runtime(struct usm_device *d, int32_t id) {
  LOCK_ASSERT_HELD(&d->lock);
  if (d->loaded)
    return 0;
  if (DEVICE_FOREIGN) {
    plugin_error("simdevice: device %d: the program requires "
                 "unified_shared_memory or unified_address, which simdevice "
                 "serves by running kernels in the host process; " DEVICE_MACHINE_NAME
                 " device code cannot run in this process",
                 id);
    return -1;
  }
  char dir[PATH_MAX];
  if (process_runtime_dir(dir, sizeof dir) != 0)
    return -1;
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/libomp.so.5", dir);
  void *rt = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
  if (rt == NULL) {
    plugin_error("simdevice: device %d (unified_shared_memory, in the host "
                 "process): cannot load the device runtime in a link "
                 "namespace of its own: %s",
                 id, dlerror());
    return -1;
  }
  Lmid_t ns;
  if (dlinfo(rt, RTLD_DI_LMID, &ns) != 0) {
    plugin_error("simdevice: device %d: the device runtime's link namespace "
                 "is unknown: %s",
                 id, dlerror());
    dlclose(rt);
    return -1;
  }
  static const char *stubs[] = {"libomptarget.so", "libomptarget.so.15",
                                "libomptarget.so.16", "libomptarget.so.19.1",
                                "libomptarget.so.22.1"};
  for (size_t i = 0; i < sizeof stubs / sizeof stubs[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, stubs[i]);
    /* A missing stand-in matters only to an image that NEEDs it, whose
     * dlmopen then names it. */
    (void)dlmopen(ns, path, RTLD_NOW | RTLD_LOCAL);
  }
  d->call = (int (*)(void *, int, const uint64_t *))dlsym(rt, "simdev_call");
  d->kernel_begin = (int (*)(int32_t, int32_t))dlsym(rt, "simdev_rt_kernel_begin");
  d->kernel_end = (void (*)(void))dlsym(rt, "simdev_rt_kernel_end");
  void (*set_device_num)(int32_t) =
      (void (*)(int32_t))dlsym(rt, "simdev_rt_set_device_num");
  if (d->call == NULL || d->kernel_begin == NULL || d->kernel_end == NULL ||
      set_device_num == NULL) {
    plugin_error("simdevice: device %d: %s/libomp.so.5 lacks simdevice's "
                 "launch API (simdev_call, simdev_rt_kernel_begin/end)",
                 id, dir);
    dlclose(rt);
    return -1;
  }
  if (usm_output_init(&d->out, rt, id) != 0) {
    dlclose(rt);
    return -1;
  }
  set_device_num(id);
  d->runtime = rt;
  d->ns = ns;
  d->loaded = 1;
  return 0;
}

static void usm_free_image(struct usm_image *img) {
  if (img->handle != NULL)
    dlclose(img->handle);
  if (img->fd >= 0)
    close(img->fd);
  free(img->entries);
  free(img);
}

__tgt_target_table *usm_load_binary(int32_t id, __tgt_device_image *image) {
  struct usm_device *d = usm_device(id);
  if (d == NULL)
    return NULL;
  const void *elf;
  size_t elf_size;
  char why[400];
  if (elfimage_check(image, &elf, &elf_size, why, sizeof why) != 0) {
    plugin_error("simdevice: device %d: image not for simdevice: %s", id, why);
    return NULL;
  }
  size_t span = (size_t)((const char *)image->EntriesEnd -
                         (const char *)image->EntriesBegin);
  struct usm_image *img = calloc(1, sizeof *img);
  if (img == NULL) {
    plugin_error("simdevice: device %d: no host memory to load an image", id);
    return NULL;
  }
  img->fd = -1;
  img->key = image;
  img->count = span / sizeof(__tgt_offload_entry);
  img->entries = calloc(img->count ? img->count : 1, sizeof *img->entries);
  if (img->entries == NULL) {
    plugin_error("simdevice: device %d: no host memory to load an image", id);
    usm_free_image(img);
    return NULL;
  }
  memcpy(img->entries, image->EntriesBegin, img->count * sizeof *img->entries);
  pthread_mutex_lock(&d->lock);
  if (usm_load_runtime(d, id) != 0)
    goto fail;
  /* Through a memfd, one per loaded image, so that two images never share
   * a path (glibc would hand back the first). */
  img->fd = memfd_create("simdevice-usm-image", MFD_CLOEXEC);
  if (img->fd < 0 || write(img->fd, elf, elf_size) != (ssize_t)elf_size) {
    plugin_error("simdevice: device %d: writing the image to a memfd failed: "
                 "%s",
                 id, strerror(errno));
    goto fail;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", img->fd);
  img->handle = dlmopen(d->ns, path, RTLD_NOW | RTLD_LOCAL);
  if (img->handle == NULL) {
    plugin_error("simdevice: device %d: loading the image in the host process "
                 "(unified_shared_memory) failed: %s",
                 id, dlerror());
    goto fail;
  }
  for (uint64_t i = 0; i < img->count; i++) {
    __tgt_offload_entry *e = &img->entries[i];
    int wanted = e->name != NULL && !(e->flags & OMP_REGISTER_REQUIRES);
    e->addr = wanted ? (void *)image_entry_resolve(img->handle, e->name) : NULL;
  }
  img->table.EntriesBegin = img->entries;
  img->table.EntriesEnd = img->entries + img->count;
  img->next = d->images;
  d->images = img;
  pthread_mutex_unlock(&d->lock);
  usm_output_flush(&d->out); /* constructors of the image may print */
  return &img->table;
fail:
  pthread_mutex_unlock(&d->lock);
  usm_free_image(img);
  return NULL;
}

int32_t usm_unload_binary(int32_t id, __tgt_device_image *image) {
  struct usm_device *d = usm_device(id);
  if (d == NULL)
    return OFFLOAD_FAIL;
  pthread_mutex_lock(&d->lock);
  struct usm_image **link = &d->images;
  while (*link != NULL && (*link)->key != image)
    link = &(*link)->next;
  struct usm_image *img = *link;
  if (img != NULL)
    *link = img->next;
  pthread_mutex_unlock(&d->lock);
  if (img == NULL) {
    plugin_error("simdevice: device %d: unload_binary of an image that is "
                 "not loaded (%p)",
                 id, (void *)image);
    return OFFLOAD_FAIL;
  }
  output_host_flush(); /* destructors of the image may print */
  usm_free_image(img);
  usm_output_flush(&d->out);
  return OFFLOAD_SUCCESS;
}

/* The block at `ptr`, and the link that points to it. */
static struct usm_block *usm_find_block(struct usm_device *d, void *ptr,
                                        struct usm_block ***link_out) {
  LOCK_ASSERT_HELD(&d->lock);
  struct usm_block **link = &d->blocks;
  while (*link != NULL && (*link)->ptr != ptr)
    link = &(*link)->next;
  if (link_out != NULL)
    *link_out = link;
  return *link;
}

void *usm_data_alloc(int32_t id, int64_t size, void *hst_ptr) {
  struct usm_device *d = usm_device(id);
  if (d == NULL)
    return NULL;
  /* A mapping: the device uses the host's own memory, which may be a block
   * of ours (omp_target_alloc memory mapped like host memory). */
  if (hst_ptr != NULL) {
    pthread_mutex_lock(&d->lock);
    struct usm_block *b = usm_find_block(d, hst_ptr, NULL);
    if (b != NULL)
      b->mappings++;
    pthread_mutex_unlock(&d->lock);
    return hst_ptr;
  }
  struct usm_block *b = malloc(sizeof *b);
  void *p = NULL;
  if (b == NULL ||
      posix_memalign(&p, 64, size > 0 ? (size_t)size : 1) != 0) {
    free(b);
    plugin_error("simdevice: device %d: no host memory for a %lld-byte "
                 "allocation (unified_shared_memory: device memory is host "
                 "memory)",
                 id, (long long)size);
    return NULL;
  }
  b->ptr = p;
  b->mappings = 0;
  pthread_mutex_lock(&d->lock);
  b->next = d->blocks;
  d->blocks = b;
  pthread_mutex_unlock(&d->lock);
  return p;
}

int32_t usm_data_delete(int32_t id, void *tgt_ptr) {
  struct usm_device *d = usm_device(id);
  if (d == NULL)
    return OFFLOAD_FAIL;
  pthread_mutex_lock(&d->lock);
  struct usm_block **link = NULL;
  struct usm_block *b = usm_find_block(d, tgt_ptr, &link);
  if (b != NULL && b->mappings > 0) {
    b->mappings--; /* a mapping ends; the block stays */
    b = NULL;
  } else if (b != NULL) {
    *link = b->next;
  }
  pthread_mutex_unlock(&d->lock);
  /* Not ours: the host address a mapping used, which the host owns. */
  if (b != NULL) {
    free(b->ptr);
    free(b);
  }
  return OFFLOAD_SUCCESS;
}

int32_t usm_copy(void *dst, const void *src, int64_t size) {
  if (size < 0 || (size > 0 && (dst == NULL || src == NULL))) {
    plugin_error("simdevice: a copy of %lld bytes from %p to %p",
                 (long long)size, src, dst);
    return OFFLOAD_FAIL;
  }
  if (size > 0 && dst != src)
    memmove(dst, src, (size_t)size);
  return OFFLOAD_SUCCESS;
}

/* The name of the kernel at `addr`, or NULL when no loaded image has it. */
static const char *usm_kernel_name(struct usm_device *d, void *addr) {
  LOCK_ASSERT_HELD(&d->lock);
  for (struct usm_image *img = d->images; img != NULL; img = img->next)
    for (uint64_t i = 0; i < img->count; i++)
      if (img->entries[i].addr == addr && img->entries[i].size == 0)
        return img->entries[i].name;
  return NULL;
}

int32_t usm_run(int32_t id, void *entry, void **tgt_args,
                ptrdiff_t *tgt_offsets, int32_t arg_num, int32_t num_teams,
                int32_t thread_limit, uint32_t info, enum simdev_call call) {
  struct usm_device *d = usm_device(id);
  if (d == NULL)
    return OFFLOAD_FAIL;
  pthread_mutex_lock(&d->lock);
  const char *name = usm_kernel_name(d, entry);
  pthread_mutex_unlock(&d->lock);
  if (name == NULL) {
    plugin_error("simdevice: launch on device %d of %p, which is not a "
                 "kernel of any loaded image",
                 id, entry);
    return OFFLOAD_FAIL;
  }
  record_unable(name, RECORD_UNABLE_IN_HOST); /* SIMTARGET_RECORD */
  uint64_t args[SIMDEV_PROTO_MAX_ARGS];
  for (int32_t i = 0; i < arg_num; i++)
    args[i] = (uint64_t)((char *)tgt_args[i] + tgt_offsets[i]);
  if (info & INFO_PLUGIN_KERNEL)
    fprintf(stderr,
            "simdevice: device %d runs kernel `%s` in the host process "
            "(%d arguments, num_teams %d, thread_limit %d)\n",
            id, name, arg_num, num_teams, thread_limit);
  output_host_flush();
  const char *outer = atomic_exchange(&running_kernel, name);
  int rc = d->kernel_begin(num_teams, thread_limit);
  if (rc == 0) {
    /* clang 23: one void ** whose element i points at parameter i */
    void *pointers[SIMDEV_PROTO_MAX_ARGS];
    for (int32_t i = 0; i < arg_num; i++)
      pointers[i] = &args[i];
    uint64_t array = (uint64_t)(uintptr_t)pointers;
    rc = call == SIMDEV_CALL_ARG_POINTERS ? d->call(entry, 1, &array)
                                          : d->call(entry, arg_num, args);
    d->kernel_end();
  }
  atomic_store(&running_kernel, outer);
  usm_output_flush(&d->out);
  if (rc != 0) {
    plugin_error("simdevice: kernel `%s` on device %d could not start "
                 "(simdevice's device runtime refused the launch)",
                 name, id);
    return OFFLOAD_FAIL;
  }
  return OFFLOAD_SUCCESS;
}
