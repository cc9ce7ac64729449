/*
 * plugin.c - the __tgt_rtl_* entry points of the simdevice plugin and the
 * device table. Each device is a simdevice-server process (process.c) with
 * its memory in a memfd mapped at a fixed address in that process and
 * reserved (inaccessible) at the same address in the host, so a device
 * pointer dereferenced on the host faults. A program that requires
 * unified_shared_memory/unified_address runs in the host process instead:
 * the entry points then hand their work to usm.c.
 *
 * Locking: the device table is set up once under pthread_once (the
 * settings too, settings.c); the fork() child handler runs when only its
 * thread exists and takes no lock. Per device,
 * channel_lock guards setup/teardown, the process and the command slot
 * (plugin_internal.h); copies inside device memory take no lock but
 * record_gate while SIMTARGET_RECORD is set (record.c); the allocator has
 * its own lock.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "plugin_faults.h"
#include "rtl_error_repeat.h"
#include "plugin_internal.h"

static pthread_once_t devices_once = PTHREAD_ONCE_INIT;
static _Atomic uint32_t info_flags;
static struct sim_device devices[PLUGIN_MAX_DEVICES];

static void release_memory(struct sim_device *dev);

/* In the child of a fork(): the devices started so far belong to the
 * parent (their processes, memory and command slots are shared with it), so
 * they become unusable here and are only forgotten at exit; the locks are
 * new, since a parent thread may have held them at the fork. */
static void devices_after_fork_in_child(void) {
  for (int i = 0; i < PLUGIN_MAX_DEVICES; i++) {
    struct sim_device *dev = &devices[i];
    pthread_mutex_init(&dev->channel_lock, NULL);
    pthread_rwlock_init(&dev->record_gate, NULL);
    if (atomic_load(&dev->initialized)) {
      pthread_mutex_init(&dev->alloc.lock, NULL);
      process_forget_after_fork(dev);
    } else if (dev->launched) {
      /* Started early and never used: the child drops its copies (of the
       * liveness pipe too) and starts its own device on first use. */
      pthread_mutex_init(&dev->alloc.lock, NULL);
      process_forget_launch_after_fork(dev);
      release_memory(dev);
    }
  }
}

static void devices_init(void) {
  sim_faults_configure(); /* before any failure point (all behind device_get) */
  for (int i = 0; i < PLUGIN_MAX_DEVICES; i++) {
    devices[i].id = i;
    devices[i].mem_fd = devices[i].ctl_fd = devices[i].host_alive_fd = -1;
    devices[i].supervisor_fd = devices[i].pidfd = -1;
    devices[i].supervisor_pidfd = devices[i].valgrind_log_fd = -1;
    pthread_mutex_init(&devices[i].channel_lock, NULL);
    pthread_rwlock_init(&devices[i].record_gate, NULL);
  }
  pthread_atfork(NULL, NULL, devices_after_fork_in_child);
}

/* The count, once known (-1 before): every launch asks for it, and the
 * answer cannot change once the launcher's verdict and the settings are in. */
static _Atomic int devices_counted = -1;

int device_count(void) {
  int n = atomic_load_explicit(&devices_counted, memory_order_acquire);
  if (n >= 0)
    return n;
  pthread_once(&devices_once, devices_init);
  char why[8];
  n = launcher_prepare(why, sizeof why) == 0 ? plugin_settings()->num_devices
                                             : 0;
  atomic_store_explicit(&devices_counted, n, memory_order_release);
  return n;
}

/* The device `id`, also one inherited through fork() (only to forget it).
 * NULL with an error when it does not exist. */
static struct sim_device *device_slot(int32_t id) {
  int n = device_count();
  if (id < 0 || id >= n) {
    plugin_error("simdevice: device %d does not exist (%d device%s; "
                 DEVICE_COUNT_VAR ")",
                 id, n, n == 1 ? "" : "s");
    return NULL;
  }
  return &devices[id];
}

struct sim_device *device_get(int32_t id) {
  struct sim_device *dev = device_slot(id);
  if (dev != NULL && dev->inherited) {
    plugin_error("simdevice: device %d belongs to process %d, which created "
                 "this process (pid %d) with fork(): a forked child cannot "
                 "use its parent's device, whose memory and kernels live in "
                 "the parent's device process",
                 id, (int)dev->owner_pid, (int)getpid());
    return NULL;
  }
  return dev;
}

/* What makes the file device memory lives in, when not a memfd: set by
 * simdevice-mpi-server before its device is initialised, read only by
 * device_bring_up (so no lock). */
static int (*memory_file_maker)(uint64_t bytes);

/* simdevice-mpi-server's own entry (not libomptarget's): device memory in
 * the file `make` returns (a new, unnamed, close-on-exec file for `bytes`,
 * sized by the plugin; -1 with errno on failure) rather than a memfd: a
 * device rank's memory on huge pages (simdevice/mpi/huge_memory.c). */
void __tgt_rtl_simdevice_memory_file_maker(int (*make)(uint64_t bytes));
void __tgt_rtl_simdevice_memory_file_maker(int (*make)(uint64_t bytes)) {
  memory_file_maker = make;
}

/* Device memory, the control area and the launch of the first process (not
 * waited for). 0, or -1 with the error set and nothing left behind. */
static int device_bring_up(struct sim_device *dev) {
  const struct plugin_settings *set = plugin_settings();
  /* The allocator rounds the size; the range is placed after that. */
  if (allocator_init(&dev->alloc, 0, set->memory, set->guard) != 0)
    return -1;
  /* Device code built with a sanitizer runs under its runtime. */
  dev->sanitizer = sanitizer_wanted(dev->sanitizer_runtime,
                                    sizeof dev->sanitizer_runtime);
  dev->alloc.asan = dev->sanitizer == DEVICE_SAN_ADDRESS;
  dev->alloc.marks = set->valgrind == VALGRIND_MEMCHECK;
  dev->capacity = dev->alloc.capacity;
  if (address_range_reserve(dev, dev->capacity) != 0) {
    allocator_destroy(&dev->alloc);
    return -1;
  }
  dev->alloc.base = dev->dev_base; /* not shared with any thread yet */
  dev->mem_fd = memory_file_maker != NULL
                    ? memory_file_maker(dev->capacity)
                    : memfd_create("simdevice-memory", MFD_CLOEXEC);
  if (dev->mem_fd < 0 || ftruncate(dev->mem_fd, (off_t)dev->capacity) != 0) {
    plugin_error("simdevice: device %d: cannot create %llu bytes of device "
                 "memory: %s",
                 dev->id, (unsigned long long)dev->capacity, strerror(errno));
    goto out_close_mem;
  }
  fd_remember(&dev->mem_id, dev->mem_fd);
  fd_remember(&dev->alloc.backing, dev->mem_fd); /* no other thread yet */
  dev->ctl_fd = memfd_create("simdevice-control", MFD_CLOEXEC);
  if (dev->ctl_fd < 0 || ftruncate(dev->ctl_fd, (off_t)SIMDEV_CONTROL_BYTES) != 0) {
    plugin_error("simdevice: device %d: cannot create its control area: %s",
                 dev->id, strerror(errno));
    goto out_close_ctl;
  }
  fd_remember(&dev->ctl_id, dev->ctl_fd);
  void *ctl = SIM_FAULT(SHM_MAP)
                  ? (errno = ENOMEM, MAP_FAILED)
                  : mmap(NULL, SIMDEV_CONTROL_BYTES, PROT_READ | PROT_WRITE,
                         MAP_SHARED, dev->ctl_fd, 0);
  if (ctl == MAP_FAILED) {
    plugin_error("simdevice: device %d: cannot map its control area: %s",
                 dev->id, strerror(errno));
    goto out_close_ctl;
  }
  dev->ctl = ctl;
  dev->ctl_zeroed = 1;
  dev->bounce = (unsigned char *)ctl + SIMDEV_BOUNCE_OFFSET;
  void *view = mmap(NULL, dev->capacity, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_NORESERVE, dev->mem_fd, 0);
  if (view == MAP_FAILED) {
    plugin_error("simdevice: device %d: cannot map device memory in the "
                 "host: %s",
                 dev->id, strerror(errno));
    goto out_unmap_ctl;
  }
  dev->host_view = view;
  if (process_launch(dev) != 0)
    goto out_unmap_view;
  dev->launched = 1;
  return 0;
out_unmap_view:
  munmap(dev->host_view, dev->capacity);
  dev->host_view = NULL;
out_unmap_ctl:
  munmap(dev->ctl, SIMDEV_CONTROL_BYTES);
  dev->ctl = NULL;
out_close_ctl:
  if (dev->ctl_fd >= 0)
    close(dev->ctl_fd);
  dev->ctl_fd = -1;
out_close_mem:
  if (dev->mem_fd >= 0)
    close(dev->mem_fd);
  dev->mem_fd = -1;
  munmap(dev->reservation, dev->capacity);
  dev->reservation = NULL;
  allocator_destroy(&dev->alloc);
  return -1;
}

/* The process started early has what the program had when it loaded; at
 * first use, main may have changed that (dropped privileges, closed every
 * descriptor, reopened stdout, ignored SIGPIPE...): then it goes, and a new
 * one starts with the program's state now (inherit.c). */
static void drop_stale_early_start(struct sim_device *dev) {
  dev->early = 0;
  const char *what = inherit_differs(&dev->early_state);
  /* Its images came after it started: their sanitizer needs its runtime
   * loaded first in the process (sanitizer.c). */
  if (what == NULL && sanitizer_wanted(NULL, 0) != dev->sanitizer)
    what = "sanitizer (device code built with -fsanitize=)";
  if (what == NULL &&
      (!fd_still_ours(&dev->mem_id) || !fd_still_ours(&dev->ctl_id) ||
       !fd_still_ours(&dev->alive_id) || !fd_still_ours(&dev->supervisor_fd_id) ||
       (dev->supervisor_pidfd >= 0 && !fd_still_ours(&dev->supervisor_pidfd_id)) ||
       (dev->valgrind_log_fd >= 0 && !fd_still_ours(&dev->valgrind_log_id))))
    what = "the plugin's descriptors";
  if (what == NULL)
    return;
  if (atomic_load(&info_flags) & INFO_PLUGIN_KERNEL)
    fprintf(stderr, "%s: device %d started before main is started again: the "
            "program changed its %s since\n", PLUGIN_TAG, dev->id, what);
  device_teardown(dev);
}

int device_setup(struct sim_device *dev) {
  if (atomic_load(&dev->initialized))
    return 0;
  if (dev->launch_error[0] != '\0') { /* the early start failed */
    plugin_error("%s", dev->launch_error);
    dev->launch_error[0] = '\0'; /* the next use tries again */
    return -1;
  }
  if (dev->launched && dev->early)
    drop_stale_early_start(dev);
  if (!dev->launched && device_bring_up(dev) != 0)
    return -1;
  if (process_await(dev) != 0) {
    /* The process is gone (process_await); its memory goes too. */
    device_teardown(dev);
    return -1;
  }
  dev->launched = 0;
  atomic_store(&dev->initialized, 1);
  return 0;
}

/* Starts device 0 while the program starts: init_plugin runs when
 * libomptarget registers the program's images, before main(), and the
 * device process's start (exec, dynamic linking, its runtime; 1-2 ms)
 * then overlaps the rest of the program's start instead of its first
 * target region, which only waits for what is left (device_setup). Only
 * device 0 (the default device) of the host machine's plugin: a ppc64le
 * device starts under qemu, slowly, and only for programs built for it.
 * Nothing is said here: a failure is kept and said at init_device, where
 * it was said before. Off with SIMDEVICE_EARLY_START=0. */
static void device_start_early(void) {
  if (DEVICE_FOREIGN || device_count() <= 0 || usm_active() ||
      !plugin_settings()->early_start)
    return;
  struct sim_device *dev = &devices[0];
  pthread_mutex_lock(&dev->channel_lock);
  if (!atomic_load(&dev->initialized) && !dev->launched && !dev->inherited &&
      dev->launch_error[0] == '\0') {
    inherit_capture(&dev->early_state);
    dev->early = device_bring_up(dev) == 0;
    if (!dev->early) {
      __tgt_rtl_error err;
      plugin_error_take(&err);
      snprintf(dev->launch_error, sizeof dev->launch_error, "%s",
               err.message);
    }
  }
  pthread_mutex_unlock(&dev->channel_lock);
}

/* Unmaps and closes the device's memory and control area: the end of a
 * teardown, once the process is stopped or forgotten. */
static void release_memory(struct sim_device *dev) {
  munmap(dev->reservation, dev->capacity);
  munmap(dev->host_view, dev->capacity);
  munmap(dev->ctl, SIMDEV_CONTROL_BYTES);
  fd_close_if_ours(&dev->ctl_fd, &dev->ctl_id);
  fd_close_if_ours(&dev->mem_fd, &dev->mem_id);
  allocator_destroy(&dev->alloc);
  dev->reservation = dev->host_view = NULL;
  dev->ctl = NULL;
  dev->bounce = NULL;
  dev->ctl_fd = dev->mem_fd = -1;
  dev->dead = 0;
  dev->launched = 0;
  dev->early = 0;
  atomic_store(&dev->initialized, 0);
}

void device_teardown(struct sim_device *dev) {
  if (!atomic_load(&dev->initialized) && !dev->launched)
    return;
  /* An early start not waited for: process_stop only closes the liveness
   * pipe (no pid known yet), and the server exits on its EOF. */
  process_stop(dev);
  images_forget_all(dev);
  shared_forget(dev);
  release_memory(dev);
}

/* When waiting for locks at exit ends: 2 s after the first wait began, for
 * every device and every step together (0: no wait yet). */
static _Atomic int64_t exit_deadline_ns;

static int64_t realtime_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (int64_t)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* Takes the channel lock for unloading and deinit, which run at program
 * exit: another thread may hold it for the whole of a kernel that never
 * ends, and exit must not wait for that. 0, or -1 (said under debug) once
 * 2 s have passed since the first such wait: unloading every image and
 * releasing every device share those 2 s. */
static int lock_for_exit(struct sim_device *dev, const char *what) {
  if (pthread_mutex_trylock(&dev->channel_lock) == 0)
    return 0;
  int64_t none = 0, deadline = realtime_ns() + 2000000000ll;
  if (!atomic_compare_exchange_strong(&exit_deadline_ns, &none, deadline))
    deadline = none;
  struct timespec until = {.tv_sec = deadline / 1000000000ll,
                           .tv_nsec = deadline % 1000000000ll};
  if (pthread_mutex_timedlock(&dev->channel_lock, &until) == 0)
    return 0;
  plugin_error("simdevice: %s of device %d skipped: another thread is "
               "waiting on the device (a kernel still runs) and exit gives "
               "the devices 2 s in all; the device process ends with this "
               "process",
               what, dev->id);
  return -1;
}

static void not_initialized(int32_t id) {
  plugin_error("simdevice: device %d is not initialised: a call before "
               "init_device, or after deinit_device released it",
               id);
}

/* Takes the channel lock of an initialised, running device (restarting it
 * after a death); `exit_path`: only within 2 s (lock_for_exit). Returns
 * NULL, unlocked, with the error recorded. */
static struct sim_device *enter_device_for(int32_t id, const char *exit_path) {
  struct sim_device *dev = device_get(id);
  if (dev == NULL)
    return NULL;
  uint64_t epoch = atomic_load(&dev->death_epoch);
  if (exit_path == NULL)
    pthread_mutex_lock(&dev->channel_lock);
  else if (lock_for_exit(dev, exit_path) != 0)
    return NULL;
  if (!atomic_load(&dev->initialized)) {
    /* Never set up, or released by deinit_device (at program exit) while
     * this thread waited for the lock: a process started now would outlive
     * the release. */
    pthread_mutex_unlock(&dev->channel_lock);
    not_initialized(dev->id);
    return NULL;
  }
  if (channel_begin(dev, epoch) != 0 || indirect_resync(dev) != 0) {
    pthread_mutex_unlock(&dev->channel_lock);
    return NULL;
  }
  return dev;
}

int device_follow_credentials(struct sim_device *dev) {
  int rc = process_follow_credentials(dev);
  if (rc <= 0)
    return rc;
  /* ended: started again with them, memory kept, images reloaded */
  return channel_begin(dev, atomic_load(&dev->death_epoch)) != 0 ||
                 indirect_resync(dev) != 0
             ? -1
             : 0;
}

static struct sim_device *enter_device(int32_t id) {
  return enter_device_for(id, NULL);
}

static void leave_device(struct sim_device *dev) {
  pthread_mutex_unlock(&dev->channel_lock);
}

/* The device for a copy into device memory: initialised, no lock needed. */
static struct sim_device *ready_device(int32_t id, const char *what) {
  struct sim_device *dev = device_get(id);
  if (dev != NULL && !atomic_load(&dev->initialized)) {
    plugin_error("simdevice: %s on device %d before init_device", what, id);
    return NULL;
  }
  return dev;
}

static int in_device_memory(const struct sim_device *dev, uint64_t addr,
                            uint64_t size) {
  return addr >= dev->dev_base && addr - dev->dev_base <= dev->capacity &&
         size <= dev->capacity - (addr - dev->dev_base);
}

/* A host-side access to [addr, addr+size) of device memory must stay inside
 * one live allocation: the host view has no guard pages, so a copy past the
 * end would silently overwrite the neighbouring allocation. Returns 0, or -1
 * with the range and the allocation named. */
static int check_allocation(struct sim_device *dev, const char *what,
                            uint64_t addr, uint64_t size) {
  uint64_t offset = addr - dev->dev_base, begin, alloc_size;
  unsigned long long first = (unsigned long long)addr,
                     end = (unsigned long long)(addr + size);
  if (allocator_find_live(&dev->alloc, offset, &begin, &alloc_size) != 0) {
    char where[160];
    allocator_describe(&dev->alloc, offset, where, sizeof where);
    plugin_error("simdevice: %s of %llu bytes at device 0x%llx..0x%llx on "
                 "device %d: its start is not inside a live device "
                 "allocation (%s)",
                 what, (unsigned long long)size, first, end, dev->id, where);
    return -1;
  }
  if (size > alloc_size - (offset - begin)) {
    unsigned long long at = (unsigned long long)(dev->dev_base + begin);
    plugin_error("simdevice: %s of %llu bytes at device 0x%llx..0x%llx on "
                 "device %d runs %llu bytes past the end of the %llu-byte "
                 "device allocation 0x%llx..0x%llx; refused, nothing copied",
                 what, (unsigned long long)size, first, end, dev->id,
                 (unsigned long long)(size - (alloc_size - (offset - begin))),
                 (unsigned long long)alloc_size, at,
                 at + (unsigned long long)alloc_size);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ API */

int32_t __tgt_rtl_abi_version(void) { return SIMTARGET_PLUGIN_ABI_VERSION; }

int32_t __tgt_rtl_number_of_devices(void) {
  char why[SIMDEV_MESSAGE_SIZE];
  if (launcher_prepare(why, sizeof why) != 0) {
    plugin_error("%s", why); /* libomptarget asks get_last_error why */
    return 0;
  }
  return device_count();
}

int32_t __tgt_rtl_init_plugin(void) {
  device_count();
  device_start_early();
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_is_valid_binary(__tgt_device_image *image) {
  char why[400];
  const void *elf;
  size_t size;
  if (elfimage_check(image, &elf, &size, why, sizeof why) != 0) {
    plugin_error("simdevice: image not for simdevice: %s", why);
    return 0;
  }
  /* Device processes started from now on (load_binary restarts a blank
   * one) run under the image's sanitizer, if any. */
  return sanitizer_note_image(elf, size) == 0;
}

int32_t __tgt_rtl_init_device(int32_t id) {
  struct sim_device *dev = device_get(id);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  if (usm_active()) /* no device process: usm.c */
    return OFFLOAD_SUCCESS;
  pthread_mutex_lock(&dev->channel_lock);
  int rc = device_setup(dev);
  pthread_mutex_unlock(&dev->channel_lock);
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

/* libomptarget asks is_valid_binary (sanitizer.c learns the image's
 * sanitizer there) only after init_device: a device that holds nothing yet
 * (no image, no allocation) is set up again, its process under the
 * sanitizer's runtime and its memory outside that runtime's regions. A
 * device that holds something keeps its process; the image's load then
 * says why it cannot run there. 0, or -1 with the error set. */
static int restart_for_sanitizer(int32_t id) {
  struct sim_device *dev = device_get(id);
  if (dev == NULL)
    return -1;
  pthread_mutex_lock(&dev->channel_lock);
  int rc = 0;
  if (atomic_load(&dev->initialized) && dev->images == NULL &&
      dev->shared_blocks == NULL &&
      dev->sanitizer != sanitizer_wanted(NULL, 0)) {
    pthread_mutex_lock(&dev->alloc.lock);
    int blank = dev->alloc.bytes_used == 0;
    pthread_mutex_unlock(&dev->alloc.lock);
    if (blank) {
      device_teardown(dev);
      rc = device_setup(dev);
    }
  }
  pthread_mutex_unlock(&dev->channel_lock);
  return rc;
}

__tgt_target_table *__tgt_rtl_load_binary(int32_t id,
                                          __tgt_device_image *image) {
  if (usm_active())
    return usm_load_binary(id, image);
  if (restart_for_sanitizer(id) != 0)
    return NULL;
  struct sim_device *dev = enter_device(id);
  if (dev == NULL)
    return NULL;
  /* Loaded with the credentials the device has (those of the program's
   * start, for device 0 started early): the image's libraries may lie where
   * only those reach (libomptarget.so.N under /root); kernels run with the
   * program's current ones (device_follow_credentials at each launch). */
  __tgt_target_table *table = images_load(dev, image);
  leave_device(dev);
  return table;
}

int32_t __tgt_rtl_unload_binary(int32_t id, __tgt_device_image *image) {
  if (usm_active())
    return usm_unload_binary(id, image);
  struct sim_device *dev = device_slot(id);
  if (dev == NULL || lock_for_exit(dev, "unload_binary") != 0)
    return OFFLOAD_FAIL;
  int rc = images_unload(dev, image);
  pthread_mutex_unlock(&dev->channel_lock);
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

void *__tgt_rtl_data_alloc(int32_t id, int64_t size, void *hst_ptr,
                           int32_t kind) {
  struct sim_device *dev = device_get(id);
  if (dev == NULL)
    return NULL;
  if (size < 0) {
    plugin_error("simdevice: data_alloc of a negative size (%lld bytes) on "
                 "device %d",
                 (long long)size, id);
    return NULL;
  }
  if (kind != TARGET_ALLOC_DEVICE && kind != TARGET_ALLOC_DEFAULT &&
      kind != TARGET_ALLOC_HOST && kind != TARGET_ALLOC_SHARED) {
    plugin_error("simdevice: data_alloc kind %d is not supported: it is "
                 "none of device %d, default %d, host %d, shared %d",
                 kind, TARGET_ALLOC_DEVICE, TARGET_ALLOC_DEFAULT,
                 TARGET_ALLOC_HOST, TARGET_ALLOC_SHARED);
    return NULL;
  }
  if (usm_active())
    return usm_data_alloc(id, size, hst_ptr);
  if (!atomic_load(&dev->initialized)) {
    not_initialized(id);
    return NULL;
  }
  /* Host and shared memory: both processes map it at the same address. */
  if (kind == TARGET_ALLOC_HOST || kind == TARGET_ALLOC_SHARED)
    return shared_alloc(dev, size, kind == TARGET_ALLOC_HOST ? "host" : "shared");
  /* hst_ptr: the host object a mapping mirrors, NULL for memory that must
   * be distinct (omp_target_alloc, private copies, close). */
  uint64_t offset;
  if (allocator_alloc(&dev->alloc, (uint64_t)size, (uint64_t)(uintptr_t)hst_ptr,
                      &offset) != 0)
    return NULL;
  return (void *)(dev->dev_base + offset);
}

int32_t __tgt_rtl_data_delete(int32_t id, void *tgt_ptr) {
  if (usm_active())
    return usm_data_delete(id, tgt_ptr);
  struct sim_device *dev = ready_device(id, "data_delete");
  if (dev == NULL)
    return OFFLOAD_FAIL;
  uint64_t addr = (uint64_t)tgt_ptr;
  if (!in_device_memory(dev, addr, 0)) {
    plugin_error("simdevice: data_delete of %p on device %d: not device "
                 "memory (device memory is 0x%llx..0x%llx)",
                 tgt_ptr, id, (unsigned long long)dev->dev_base,
                 (unsigned long long)(dev->dev_base + dev->capacity));
    return OFFLOAD_FAIL;
  }
  int shared = shared_free(dev, addr);
  if (shared != 0)
    return shared > 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
  return allocator_free(&dev->alloc, addr - dev->dev_base) == 0
             ? OFFLOAD_SUCCESS
             : OFFLOAD_FAIL;
}

/* Copies to or from a declare-target global inside the device process, in
 * bounce-sized chunks. `to_device` picks the direction. */
static int32_t global_copy(int32_t id, uint64_t addr, void *host, int64_t size,
                           int to_device) {
  struct sim_device *dev = enter_device(id);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  int rc = 0;
  if (!images_global_contains(dev, addr, (uint64_t)size)) {
    plugin_error("simdevice: %s of %lld bytes at device address 0x%llx on "
                 "device %d: neither device memory nor inside a "
                 "declare-target global of a loaded image",
                 to_device ? "data_submit" : "data_retrieve", (long long)size,
                 (unsigned long long)addr, id);
    rc = -1;
  }
  struct simdev_slot *s = &dev->ctl->slot;
  for (int64_t done = 0; rc == 0 && done < size;) {
    uint64_t n = (uint64_t)(size - done);
    if (n > SIMDEV_BOUNCE_SIZE)
      n = SIMDEV_BOUNCE_SIZE;
    s->a[0] = addr + (uint64_t)done;
    s->a[1] = n;
    if (to_device)
      memcpy(dev->bounce, (char *)host + done, n);
    rc = channel_send(dev, to_device ? SIMDEV_CMD_WRITE : SIMDEV_CMD_READ,
                      NULL);
    if (rc == 0 && !to_device) {
      DEVICE_BYTES_DEFINED(dev->bounce, n);
      memcpy((char *)host + done, dev->bounce, n);
    }
    done += (int64_t)n;
  }
  leave_device(dev);
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

/* The device whose reserved memory range holds host [host, host+size), or
 * -1. That range is inaccessible in the host: a "host" address there is a
 * device address (has_device_addr of device memory mapped as a host object
 * by clang 16, a freed use_device_ptr result, ...), and copying it on the
 * host would kill the host process; host and shared blocks (mapped in the
 * host too) are host memory. Reads dev_base/capacity of devices
 * initialised before (set once, before `initialized`). */
static int host_range_device(const void *host, int64_t size) {
  uint64_t a = (uint64_t)(uintptr_t)host;
  for (int i = 0; i < device_count() && i < PLUGIN_MAX_DEVICES; i++) {
    struct sim_device *d = &devices[i];
    if (!atomic_load(&d->initialized) || d->capacity == 0)
      continue;
    if (a < d->dev_base + d->capacity && a + (uint64_t)size > d->dev_base &&
        !shared_contains(d, a, (uint64_t)size)) /* host memory as well */
      return i;
  }
  return -1;
}

/* SIMDEVICE_VALGRIND=memcheck: the device process checks that bytes going
 * back to the host were written (server/memcheck.c). 0, or -1. */
static int copy_back_check(struct sim_device *dev, uint64_t tgt,
                           int64_t size) {
  if (enter_device(dev->id) == NULL)
    return -1;
  struct simdev_slot *s = &dev->ctl->slot;
  s->a[0] = tgt - dev->dev_base;
  s->a[1] = (uint64_t)size;
  int rc = channel_send(dev, SIMDEV_CMD_COPY_BACK, NULL);
  leave_device(dev);
  return rc;
}

static int32_t transfer(int32_t id, uint64_t tgt, void *host, int64_t size,
                        int to_device) {
  const char *what = to_device ? "data_submit" : "data_retrieve";
  struct sim_device *dev = ready_device(id, what);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  if (size < 0 || (size > 0 && host == NULL)) {
    plugin_error("simdevice: %s of %lld bytes with host address %p",
                 what, (long long)size, host);
    return OFFLOAD_FAIL;
  }
  if (size == 0)
    return OFFLOAD_SUCCESS;
  int holder = host_range_device(host, size);
  if (holder >= 0) {
    plugin_error("simdevice: %s of %lld bytes: the host address %p is device "
                 "memory of device %d, which the host cannot %s",
                 what, (long long)size, host, holder,
                 to_device ? "read" : "write");
    return OFFLOAD_FAIL;
  }
  if (in_device_memory(dev, tgt, (uint64_t)size)) {
    if (check_allocation(dev, what, tgt, (uint64_t)size) != 0)
      return OFFLOAD_FAIL;
    unsigned char *view = dev->host_view + (tgt - dev->dev_base);
    if (to_device) {
      int held = record_write_begin(dev);
      memcpy(view, host, (size_t)size);
      record_write_end(dev, held);
      /* memcheck: the device process learns what the host wrote */
      if (allocator_mark(&dev->alloc, tgt - dev->dev_base, (uint64_t)size,
                         SIMDEV_MARK_DEFINED) != 0)
        return OFFLOAD_FAIL;
    } else {
      if (dev->alloc.marks && copy_back_check(dev, tgt, size) != 0)
        return OFFLOAD_FAIL;
      DEVICE_BYTES_DEFINED(view, (size_t)size);
      memcpy(host, view, (size_t)size);
    }
    return OFFLOAD_SUCCESS;
  }
  if (tgt >= dev->dev_base && tgt - dev->dev_base < dev->capacity) {
    plugin_error("simdevice: %s of %lld bytes at 0x%llx runs past the end of "
                 "device %d's memory",
                 what, (long long)size, (unsigned long long)tgt, id);
    return OFFLOAD_FAIL;
  }
  return global_copy(id, tgt, host, size, to_device);
}

int32_t __tgt_rtl_data_submit(int32_t id, void *tgt_ptr, void *hst_ptr,
                              int64_t size) {
  if (usm_active())
    return usm_copy(tgt_ptr, hst_ptr, size);
  return transfer(id, (uint64_t)tgt_ptr, hst_ptr, size, 1);
}

int32_t __tgt_rtl_data_retrieve(int32_t id, void *hst_ptr, void *tgt_ptr,
                                int64_t size) {
  if (usm_active())
    return usm_copy(hst_ptr, tgt_ptr, size);
  return transfer(id, (uint64_t)tgt_ptr, hst_ptr, size, 0);
}

int32_t __tgt_rtl_is_data_exchangable(int32_t src_id, int32_t dst_id) {
  int n = device_count();
  return src_id >= 0 && src_id < n && dst_id >= 0 && dst_id < n;
}

int32_t __tgt_rtl_data_exchange(int32_t src_id, void *src_ptr, int32_t dst_id,
                                void *dst_ptr, int64_t size) {
  if (usm_active())
    return usm_copy(dst_ptr, src_ptr, size);
  struct sim_device *src = ready_device(src_id, "data_exchange");
  struct sim_device *dst = ready_device(dst_id, "data_exchange");
  if (src == NULL || dst == NULL)
    return OFFLOAD_FAIL;
  if (size < 0) {
    plugin_error("simdevice: data_exchange of a negative size");
    return OFFLOAD_FAIL;
  }
  uint64_t s = (uint64_t)src_ptr, d = (uint64_t)dst_ptr, n = (uint64_t)size;
  if (in_device_memory(src, s, n) && in_device_memory(dst, d, n)) {
    if (n > 0 && (check_allocation(src, "data_exchange (source)", s, n) != 0 ||
                  check_allocation(dst, "data_exchange (destination)", d,
                                   n) != 0))
      return OFFLOAD_FAIL;
    int held = record_write_begin(dst);
    memmove(dst->host_view + (d - dst->dev_base),
            src->host_view + (s - src->dev_base), n);
    record_write_end(dst, held);
    /* memcheck: counted as written (the source's own marks stay its) */
    return allocator_mark(&dst->alloc, d - dst->dev_base, n,
                          SIMDEV_MARK_DEFINED) == 0
               ? OFFLOAD_SUCCESS
               : OFFLOAD_FAIL;
  }
  /* A global on either side: go through a host buffer. */
  void *buf = malloc(n ? n : 1);
  if (buf == NULL) {
    plugin_error("simdevice: no host memory for a %llu-byte data_exchange",
                 (unsigned long long)n);
    return OFFLOAD_FAIL;
  }
  int32_t rc = __tgt_rtl_data_retrieve(src_id, buf, src_ptr, size);
  if (rc == OFFLOAD_SUCCESS)
    rc = __tgt_rtl_data_submit(dst_id, dst_ptr, buf, size);
  free(buf);
  return rc;
}

/* libomptarget names a new device copy: with SIMDEVICE_VALGRIND=memcheck
 * the device process describes the allocation to memcheck by its variable
 * (server/memcheck.c), and under a sanitizer, Helgrind or DRD its race and
 * undefined-behaviour reports name it (server/names.c). 1 when names are
 * not used: libomptarget stops. */
int32_t __tgt_rtl_name_range(int32_t id, void *tgt_ptr, int64_t size,
                             const char *text) {
  struct sim_device *dev = device_get(id);
  if (usm_active() || dev == NULL ||
      !(dev->alloc.marks || dev->sanitizer != DEVICE_SAN_NONE ||
        plugin_settings()->valgrind != VALGRIND_NONE))
    return 1;
  uint64_t addr = (uint64_t)tgt_ptr;
  if (size < 0 || text == NULL || !in_device_memory(dev, addr, (uint64_t)size))
    return OFFLOAD_SUCCESS; /* a global or host memory: nothing to name */
  dev = enter_device(id);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  size_t n = strnlen(text, SIMDEV_MESSAGE_SIZE - 1);
  memcpy(dev->bounce, text, n);
  ((char *)dev->bounce)[n] = '\0';
  struct simdev_slot *s = &dev->ctl->slot;
  s->a[0] = addr - dev->dev_base;
  s->a[1] = (uint64_t)size;
  int rc = channel_send(dev, SIMDEV_CMD_NAME, NULL);
  leave_device(dev);
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

/* How kernel `k` takes its parameters when KernelArgs version
 * `kargs_version` (0: an older entry point) launches it: version 4 on
 * (clang 23) through one `void **`, before that one by one; and its image
 * must agree when it names its compiler (.comment): a clang 23+ image
 * called one by one, or a clang 13-22 image through a pointer array, would
 * read garbage. 0 with *call set, or -1 with the error set. */
int plugin_kernel_call(const struct kernel_ref *k, uint32_t kargs_version,
                       int32_t id, enum simdev_call *call) {
  bool pointers = kargs_version >= TGT_KERNEL_ARGS_VERSION_DYN_PTR_LAST;
  *call = pointers ? SIMDEV_CALL_ARG_POINTERS : SIMDEV_CALL_POSITIONAL;
  if (k->clang_major == 0 || (k->clang_major >= 23) == pointers)
    return 0;
  if (pointers)
    plugin_error("simdevice: device %d: kernel `%s` comes from an image "
                 "made by clang %u, whose host kernels take one parameter "
                 "per argument, but KernelArgs version %u launches it "
                 "(clang 23's convention: one void ** of argument "
                 "pointers); host code and device image are from different "
                 "compilers",
                 id, k->name ? k->name : "?", k->clang_major, kargs_version);
  else
    plugin_error("simdevice: device %d: kernel `%s` comes from an image "
                 "made by clang %u, whose host kernels take one void ** of "
                 "argument pointers, but it is launched %s (clang 13-22's "
                 "convention: one parameter per argument); host code and "
                 "device image are from different compilers",
                 id, k->name ? k->name : "?", k->clang_major,
                 kargs_version ? "with KernelArgs version below 4"
                               : "through an entry point older than "
                                 "__tgt_target_kernel");
  return -1;
}

/* OMPT device tracing (__tgt_rtl_time_next_op): where this host thread's
 * next kernel launch or queued copy on device timing_id stores the start
 * and end of its work. Thread-local: the work comes from the thread that
 * armed it, and every launch and queued copy disarms it, failing or not. */
static __thread uint64_t *timing_sink;
static __thread int32_t timing_id;
/* Set once a tool armed a launch: until then no launch touches the two
 * thread-locals (a first access allocates the thread's dynamic TLS block
 * of this library, which memcheck saw corrupt glibc's TLS of the in-process
 * device runtime's threads: the fault sweep's usm case under Valgrind). */
static atomic_bool timing_used;

int32_t __tgt_rtl_time_next_op(int32_t id, uint64_t *times) {
  if (times == NULL && !atomic_load_explicit(&timing_used, memory_order_relaxed))
    return OFFLOAD_SUCCESS; /* nothing armed */
  timing_sink = NULL;
  if (times == NULL)
    return OFFLOAD_SUCCESS; /* disarmed */
  atomic_store(&timing_used, true);
  if (id < 0 || id >= PLUGIN_MAX_DEVICES) {
    plugin_error("simdevice: time_next_op on device %d: no such device", id);
    return OFFLOAD_FAIL;
  }
  timing_sink = times;
  timing_id = id;
  return OFFLOAD_SUCCESS;
}

uint64_t *plugin_take_timing(int32_t id) {
  if (!atomic_load_explicit(&timing_used, memory_order_relaxed))
    return NULL;
  uint64_t *times = timing_sink;
  timing_sink = NULL;
  return times != NULL && timing_id == id ? times : NULL;
}

/* The reply of a RUN on slot s that was asked to time its kernel. */
void plugin_store_times(const struct simdev_slot *s, uint64_t *times) {
  if (times == NULL)
    return;
  times[0] = s->a[6];
  times[1] = s->a[7];
}

int32_t plugin_run_sync(int32_t id, void *tgt_entry_ptr, void **tgt_args,
                        ptrdiff_t *tgt_offsets, int32_t arg_num,
                        int32_t num_teams, int32_t thread_limit,
                        uint32_t kargs_version, uint64_t *times) {
  if (arg_num < 0 || arg_num > SIMDEV_PROTO_MAX_ARGS ||
      (arg_num > 0 && (tgt_args == NULL || tgt_offsets == NULL))) {
    plugin_error("simdevice: a kernel launch on device %d with %d arguments: "
                 "simdevice passes 0 to %d",
                 id, arg_num, SIMDEV_PROTO_MAX_ARGS);
    return OFFLOAD_FAIL;
  }
  if (usm_active())
    return usm_run(id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num,
                   num_teams, thread_limit,
                   atomic_load_explicit(&info_flags, memory_order_relaxed),
                   kargs_version >= TGT_KERNEL_ARGS_VERSION_DYN_PTR_LAST
                       ? SIMDEV_CALL_ARG_POINTERS
                       : SIMDEV_CALL_POSITIONAL);
  struct sim_device *dev = enter_device(id);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  int rc = -1;
  enum simdev_call call;
  if (device_follow_credentials(dev) != 0)
    goto out_leave;
  const struct kernel_ref *k = images_find_kernel(dev, (uint64_t)tgt_entry_ptr);
  if (k == NULL) {
    plugin_error("simdevice: launch on device %d of %p, which is not a "
                 "kernel of any loaded image",
                 id, tgt_entry_ptr);
    goto out_leave;
  }
  if (plugin_kernel_call(k, kargs_version, id, &call) != 0)
    goto out_leave;
  /* SIMTARGET_RECORD (record.c): simtarget-replay calls one parameter per
   * argument, so clang 23's kernels are not recorded */
  int recording = 0;
  if (call == SIMDEV_CALL_POSITIONAL)
    recording = record_wanted(k->name);
  else
    record_unable(k->name, RECORD_UNABLE_POINTERS);
  if (recording)
    record_before(dev, k->name, tgt_args, tgt_offsets, arg_num, num_teams,
                  thread_limit);
  struct simdev_slot *s = &dev->ctl->slot;
  for (int32_t i = 0; i < arg_num; i++)
    s->args[i] = (uint64_t)((char *)tgt_args[i] + tgt_offsets[i]);
  s->a[0] = k->addr;
  s->a[1] = (uint64_t)arg_num;
  s->a[2] = (uint64_t)(int64_t)num_teams;
  s->a[3] = (uint64_t)(int64_t)thread_limit;
  /* Written only when they change: they share the slot's second line with
   * the first arguments, which a kernel without arguments then leaves
   * unwritten, and the server reads the line without a transfer between
   * the cores (one fewer on each launch's path). */
  if (s->a[5] != (uint64_t)call)
    s->a[5] = (uint64_t)call;
  if (s->a[6] != (times != NULL))
    s->a[6] = times != NULL; /* stamp the kernel's start and end */
  if (atomic_load_explicit(&info_flags, memory_order_relaxed) &
      INFO_PLUGIN_KERNEL)
    fprintf(stderr,
            "%s: device %d runs kernel `%s` (%d arguments%s, num_teams "
            "%d, thread_limit %d)\n",
            PLUGIN_TAG, id, k->name, arg_num,
            call == SIMDEV_CALL_ARG_POINTERS ? " through a void **" : "",
            num_teams, thread_limit);
  output_host_flush();
  rc = channel_send(dev, SIMDEV_CMD_RUN, k->name);
  if (rc == 0)
    plugin_store_times(s, times);
  if (recording)
    record_after(dev, rc);
out_leave:
  leave_device(dev);
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

int32_t __tgt_rtl_run_target_team_region(int32_t id, void *tgt_entry_ptr,
                                         void **tgt_args,
                                         ptrdiff_t *tgt_offsets,
                                         int32_t arg_num, int32_t num_teams,
                                         int32_t thread_limit,
                                         uint64_t loop_tripcount) {
  (void)loop_tripcount;
  return plugin_run_sync(id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num,
                         num_teams, thread_limit, 0, plugin_take_timing(id));
}

/* simtarget-replay's own entry (not libomptarget's): an allocation at a
 * recorded device address. OFFLOAD_SUCCESS, or OFFLOAD_FAIL with the cause
 * in get_last_error. */
int32_t __tgt_rtl_simdevice_alloc_at(int32_t id, void *addr, int64_t size);
int32_t __tgt_rtl_simdevice_alloc_at(int32_t id, void *addr, int64_t size) {
  struct sim_device *dev = ready_device(id, "simdevice_alloc_at");
  if (dev == NULL || size < 0)
    return OFFLOAD_FAIL;
  return record_alloc_at(dev, (uint64_t)(uintptr_t)addr, (uint64_t)size) == 0
             ? OFFLOAD_SUCCESS
             : OFFLOAD_FAIL;
}

/* simtarget-replay's own entry: the simtarget version this plugin writes in
 * recordings, which a recording to replay must name. */
const char *__tgt_rtl_simdevice_record_version(void);
const char *__tgt_rtl_simdevice_record_version(void) {
  return record_version();
}

/* simtarget-replay's own entry, before init_device: the device's memory is
 * placed at `base` (the recorded one) or not at all. OFFLOAD_SUCCESS, or
 * OFFLOAD_FAIL when the device does not exist or is already set up. */
int32_t __tgt_rtl_simdevice_replay_base(int32_t id, uint64_t base);
int32_t __tgt_rtl_simdevice_replay_base(int32_t id, uint64_t base) {
  struct sim_device *dev = device_get(id);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  pthread_mutex_lock(&dev->channel_lock);
  int set = !atomic_load(&dev->initialized) && !dev->launched;
  if (set)
    dev->wanted_base = base;
  else
    plugin_error("simdevice: device %d is set up already: its memory base "
                 "cannot change", id);
  pthread_mutex_unlock(&dev->channel_lock);
  return set ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

/* simdevice-mpi-server's own entry (not libomptarget's): where the host
 * view of [tgt, tgt+size) lies, so that a device rank receives a transfer
 * straight into device memory (simdevice/mpi/server.c). The range must lie
 * inside one live allocation, as for data_submit; NULL (no error recorded)
 * when it is elsewhere (a declare-target global, in-process mode), or
 * under SIMDEVICE_VALGRIND=memcheck, where a copy also tells the device
 * process which bytes the host wrote and checks those it reads back (a
 * remote device read straight into the view, and memcheck reported the
 * bytes the host had sent as never written): the caller then copies
 * through data_submit / data_retrieve. */
void *__tgt_rtl_simdevice_host_view(int32_t id, void *tgt, int64_t size);
void *__tgt_rtl_simdevice_host_view(int32_t id, void *tgt, int64_t size) {
  struct sim_device *dev = device_get(id);
  uint64_t addr = (uint64_t)(uintptr_t)tgt;
  if (usm_active() || dev == NULL || !atomic_load(&dev->initialized) ||
      dev->alloc.marks || size <= 0 ||
      !in_device_memory(dev, addr, (uint64_t)size))
    return NULL;
  uint64_t begin, alloc_size, offset = addr - dev->dev_base;
  if (allocator_find_live(&dev->alloc, offset, &begin, &alloc_size) != 0 ||
      (uint64_t)size > alloc_size - (offset - begin))
    return NULL;
  return dev->host_view + offset;
}

/* simdevice-mpi-server's own entry: the range of device `id`'s memory,
 * [*base, *base + *size), for the host, which reserves it in its own
 * address space so that no host address equals a remote device's address
 * and a device address passed as a host one is refused by name
 * (simdevice/mpi/host.c). OFFLOAD_FAIL before the device is initialised. */
int32_t __tgt_rtl_simdevice_memory_range(int32_t id, uint64_t *base,
                                         uint64_t *size);
int32_t __tgt_rtl_simdevice_memory_range(int32_t id, uint64_t *base,
                                         uint64_t *size) {
  struct sim_device *dev = device_get(id);
  if (dev == NULL || !atomic_load(&dev->initialized) || dev->capacity == 0)
    return OFFLOAD_FAIL;
  *base = dev->dev_base;
  *size = dev->capacity;
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_run_target_region(int32_t id, void *tgt_entry_ptr,
                                    void **tgt_args, ptrdiff_t *tgt_offsets,
                                    int32_t arg_num) {
  return __tgt_rtl_run_target_team_region(id, tgt_entry_ptr, tgt_args,
                                          tgt_offsets, arg_num, 0, 0, 0);
}

int64_t __tgt_rtl_init_requires(int64_t requires_flags) {
  /* unified_shared_memory / unified_address: run in the host process. */
  int64_t rc = usm_init_requires(requires_flags, atomic_load(&info_flags));
  if (usm_active() && device_count() > 0) { /* no use for an early start */
    struct sim_device *dev = &devices[0];
    pthread_mutex_lock(&dev->channel_lock);
    if (!atomic_load(&dev->initialized)) {
      /* A start that fails after its launch returned (the device's exec,
       * its supervisor) is known only once it ends: wait for that, or
       * whether the failure is said would depend on how far the start got
       * by the program's first construct. Said at deinit. */
      if (dev->launched && dev->launch_error[0] == '\0' &&
          process_settle(dev) != 0) {
        __tgt_rtl_error err;
        plugin_error_take(&err);
        snprintf(dev->launch_error, sizeof dev->launch_error, "%s",
                 err.message);
      }
      device_teardown(dev);
    }
    pthread_mutex_unlock(&dev->channel_lock);
  }
  return rc;
}

int32_t __tgt_rtl_set_function_ptr_map(int32_t id, uint64_t size,
                                       const __tgt_fptr_map *table) {
  if (usm_active()) /* host function pointers work as they are */
    return OFFLOAD_SUCCESS;
  /* An empty table comes with unloading, at exit too: a device this
   * process never set up, or its parent's (a fork() child's exit), has no
   * table to clear. */
  struct sim_device *slot = size == 0 ? device_slot(id) : NULL;
  if (slot != NULL && (slot->inherited || !atomic_load(&slot->initialized)))
    return OFFLOAD_SUCCESS;
  struct sim_device *dev =
      enter_device_for(id, size == 0 ? "clearing the indirect table" : NULL);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  int rc = indirect_set(dev, size, table);
  leave_device(dev);
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

int32_t __tgt_rtl_deinit_device(int32_t id) {
  struct sim_device *dev = device_slot(id);
  if (dev == NULL || lock_for_exit(dev, "deinit_device") != 0)
    return OFFLOAD_FAIL;
  output_host_flush(); /* destructors of the images may print */
  if (dev->launch_error[0] != '\0') { /* no init_device said it */
    fprintf(stderr, "%s (at its early start, when the program loaded; the "
                    "program never used device %d)\n",
            dev->launch_error, dev->id);
    dev->launch_error[0] = '\0';
  }
  device_teardown(dev);
  indirect_forget(dev);
  pthread_mutex_unlock(&dev->channel_lock);
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_deinit_plugin(void) {
  for (int i = 0; i < device_count(); i++)
    __tgt_rtl_deinit_device(i);
  return OFFLOAD_SUCCESS;
}

/* The fault of the last error taken on this thread (rtl_error_repeat.h). */
static __thread __tgt_rtl_error repeat_fault;

int32_t __tgt_rtl_get_last_error(int32_t id, __tgt_rtl_error *err) {
  (void)id;
  if (err == NULL)
    return OFFLOAD_FAIL;
  plugin_error_take(err);
  rtl_error_repeat(err, &repeat_fault);
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_set_info_flag(uint32_t flags) {
  atomic_store(&info_flags, flags);
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_print_device_info(int32_t id) {
  struct sim_device *dev = device_get(id);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  if (usm_active()) {
    printf("    simdevice device %d: the host CPU, in the host process (the "
           "program requires unified_shared_memory)\n",
           id);
    return OFFLOAD_SUCCESS;
  }
  pthread_mutex_lock(&dev->channel_lock);
  printf("    simdevice device %d: the host CPU in a separate process\n", id);
  if (atomic_load(&dev->initialized)) {
    pthread_mutex_lock(&dev->alloc.lock);
    uint64_t used = dev->alloc.bytes_used;
    pthread_mutex_unlock(&dev->alloc.lock);
    printf("      process:         pid %d%s, %u restart%s\n", (int)dev->pid,
           dev->dead ? " (dead; restarts on next use)" : "", dev->restarts,
           dev->restarts == 1 ? "" : "s");
    printf("      device memory:   0x%llx..0x%llx (%llu bytes, %llu in use)\n",
           (unsigned long long)dev->dev_base,
           (unsigned long long)(dev->dev_base + dev->capacity),
           (unsigned long long)dev->capacity, (unsigned long long)used);
    /* guard_mode: how the device process guards (protocol.h). */
    int regions = dev->ctl->guard_mode == SIMDEV_GUARD_REGIONS;
    printf("      guard pages:     %s\n",
           !dev->alloc.guard ? "off (SIMDEVICE_GUARD=0)"
           : atomic_load(&dev->ctl->guards_disabled)
               ? regions ? "off (a guard-region change failed)"
                         : "off (too many live allocations for vm.max_map_count)"
           : regions ? "on (Linux guard regions)"
                     : "on (mprotect, up to vm.max_map_count)");
    printf("      kernels loaded:  %zu\n", dev->kernel_count);
    /* The device runtime's caps, as it reported them at its start. */
    if (dev->ctl->max_teams > 0)
      printf("      max teams:       %d (SIMDEVICE_MAX_TEAMS)\n"
             "      max threads:     %d per team (SIMDEVICE_MAX_THREADS)\n",
             dev->ctl->max_teams, dev->ctl->max_threads);
  } else {
    printf("      not started yet\n");
  }
  pthread_mutex_unlock(&dev->channel_lock);
  return OFFLOAD_SUCCESS;
}
