/*
 * device.c - the lifecycle of offload devices: the devices array, lazy
 * initialisation, loading every registered library's image, the sorted
 * host-entry -> device-entry table, declare-target globals in the mapping
 * table, C++ ctor/dtor kernels (clang 13-16), unloading and release.
 *
 * Also the default device (OMP_DEFAULT_DEVICE, omp_set_default_device).
 *
 * Locking: `devices_mutex` guards building and releasing the devices array
 * (`devices`, `num_devices`, `devices_built`); afterwards the array is
 * read-only. `default_device_lock` guards writing `own_default_device`
 * (read without it once set: devices_own_default_id). Each
 * dev->lock guards that device's state, failure text, loaded generation,
 * image list and entry table (entries_epoch counts the changes of all
 * tables, atomically); dev->map.lock (taken after dev->lock, never
 * before) guards its mapping table. The registry lock is only held to copy
 * the list of libraries, never while a plugin runs.
 */
#include "device.h"
#include "mapping_ops.h"
#include "ompt.h"
#include "profile.h"
#include "array.h"
#include "hostsyms.h"
#include "faults.h"
#include "lock_check.h"
#include "offload_image.h"

#include <dlfcn.h>
#include <errno.h>
#include <elf.h>
#include <inttypes.h>
#include "valgrind_hints.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t devices_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct device *devices;
static int num_devices;
static bool devices_built; /* read with acquire outside the mutex */

/* Bumped (under the changed device's lock) by every change to any
 * device's entry table, so that device_lookup_entry's per-thread cache
 * knows when its copy may be stale. Starts at 1: an empty cache never
 * matches. */
static uint64_t entries_epoch = 1;

static void entries_changed(void) {
  __atomic_add_fetch(&entries_epoch, 1, __ATOMIC_RELEASE);
}

int device_setup(struct device *dev, int32_t id, struct plugin *plugin,
                 int32_t rtl_id) {
  memset(dev, 0, sizeof *dev);
  dev->id = id;
  dev->plugin = plugin;
  dev->rtl_id = rtl_id;
  dev->state = DEVICE_NEW;
  if (pthread_mutex_init(&dev->lock, NULL) != 0) {
    report_error_set("device %d: cannot create its lock", id);
    return -1;
  }
  mapping_table_init(&dev->map);
  /* `used` is a relaxed atomic flag (set by any construct, read for device
   * id -3); Helgrind does not model atomics. */
  VALGRIND_HG_DISABLE_CHECKING(&dev->used, sizeof dev->used);
  /* atomics read without a lock (device_lookup_entry's cache) */
  VALGRIND_HG_DISABLE_CHECKING(&entries_epoch, sizeof entries_epoch);
  /* read without the lock by device_ready's fast path (acquire/release) */
  VALGRIND_HG_DISABLE_CHECKING(&dev->ready_generation,
                               sizeof dev->ready_generation);
  return 0;
}

static void free_images(struct device *dev) {
  struct device_image *img = dev->images;
  while (img) {
    struct device_image *next = img->next;
    free(img);
    img = next;
  }
  dev->images = NULL;
}

void device_teardown(struct device *dev) {
  entries_changed();
  free_images(dev);
  free(dev->entries);
  dev->entries = NULL;
  dev->num_entries = dev->cap_entries = 0;
  mapping_table_destroy(&dev->map); /* destroys its lock too */
  pthread_mutex_destroy(&dev->lock);
}

/* ---- the devices array ------------------------------------------------ */

/* Caller holds devices_mutex. */
static void devices_build_locked(void) {
  LOCK_ASSERT_HELD(&devices_mutex);
  int total = plugins_load_all();
  if (total <= 0)
    return;
  struct device *array = calloc((size_t)total, sizeof *array);
  if (!array) {
    report_error("cannot allocate the state of %d devices", total);
    return;
  }
  int built = 0;
  for (int k = 0; k < plugins_count(); k++) {
    struct plugin *p = plugins_get(k);
    for (int32_t j = 0; j < p->num_devices; j++) {
      int32_t id = p->first_device + j;
      if (id >= total || device_setup(&array[id], id, p, j) < 0)
        goto out_teardown;
      built++;
    }
  }
  devices = array;
  num_devices = total;
  return;

out_teardown:
  report_error("cannot set up device %d: %s", built, report_error_get());
  for (int i = 0; i < built; i++)
    device_teardown(&array[i]);
  free(array);
}

int devices_count(void) {
  /* Double-checked: the acquire load pairs with the release store. Helgrind
   * does not model atomics, so it is told the same thing (no-ops natively). */
  VALGRIND_HINT(VALGRIND_HG_DISABLE_CHECKING(&devices_built,
                                             sizeof devices_built));
  if (!__atomic_load_n(&devices_built, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&devices_mutex);
    if (!devices_built) {
      devices_build_locked();
      ANNOTATE_HAPPENS_BEFORE(&devices_built);
      __atomic_store_n(&devices_built, true, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&devices_mutex);
  }
  VALGRIND_HINT(ANNOTATE_HAPPENS_AFTER(&devices_built));
  return num_devices;
}

int devices_visible_count(void) {
  if (settings_get()->offload == POLICY_DISABLED)
    return 0;
  return devices_count();
}

struct device *device_get(int64_t id) {
  int count = devices_count();
  if (id < 0 || id >= count)
    return NULL;
  return &devices[id];
}

/* ---- the default device ------------------------------------------------ */

static pthread_mutex_t default_device_lock = PTHREAD_MUTEX_INITIALIZER;
static int own_default_device = -1; /* -1: not taken from the settings yet */

/* libomp keeps the default-device ICV when the program links it; ask it, so
 * omp_set_default_device() in the program is honoured. The lookup goes
 * through the handle of the program itself, which searches the global scope
 * in load order, as the program's own call to omp_set_default_device was
 * bound: dlsym(RTLD_DEFAULT) would search this library first, since it is
 * linked -Bsymbolic, and find our own copy even when the program's call
 * went to libomp. */
static int (*libomp_get_default_device)(void);
/* libomp registers a thread it does not know as a new initial thread when it
 * answers it, which a program's own threads (pthreads offloading) must not
 * get from us: libomp then aborts at exit() while they run. Its
 * __kmpc_get_taskid answers 0 for such a thread without registering it; the
 * default device there is the initial value, OMP_DEFAULT_DEVICE, ours. */
static uint64_t (*libomp_task_id)(void);
static pthread_once_t libomp_lookup_once = PTHREAD_ONCE_INIT;

static void libomp_lookup(void) {
  void *program = dlopen(NULL, RTLD_LAZY);
  if (program == NULL)
    return;
  void *fn = dlsym(program, "omp_get_default_device");
  void *task_id = dlsym(program, "__kmpc_get_taskid");
  dlclose(program);
  Dl_info found, ours;
  /* Our own omp_get_default_device (api.c) answers when no libomp is
   * loaded; it must not be taken for libomp's. */
  if (!fn || !dladdr(fn, &found) ||
      !dladdr((void *)devices_default_id, &ours) ||
      found.dli_fbase == ours.dli_fbase)
    return;
  libomp_get_default_device = (int (*)(void))fn;
  libomp_task_id = (uint64_t(*)(void))task_id;
}

int devices_own_default_id(void) {
  /* Every construct on the default device asks: once set, the value is
   * read without the lock (written under it with release stores). */
  VALGRIND_HINT(VALGRIND_HG_DISABLE_CHECKING(&own_default_device,
                                             sizeof own_default_device));
  int d = __atomic_load_n(&own_default_device, __ATOMIC_ACQUIRE);
  if (d >= 0)
    return d;
  pthread_mutex_lock(&default_device_lock);
  if (own_default_device < 0)
    __atomic_store_n(&own_default_device, settings_get()->default_device,
                     __ATOMIC_RELEASE);
  d = own_default_device;
  pthread_mutex_unlock(&default_device_lock);
  return d;
}

void devices_set_own_default_id(int id) {
  pthread_mutex_lock(&default_device_lock);
  __atomic_store_n(&own_default_device, id < 0 ? 0 : id, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&default_device_lock);
}

int devices_default_id(void) {
  pthread_once(&libomp_lookup_once, libomp_lookup);
  if (libomp_get_default_device && (!libomp_task_id || libomp_task_id() != 0))
    return libomp_get_default_device();
  return devices_own_default_id();
}

/* ---- failures ------------------------------------------------------------ */

/* Mark the device unusable for good; the reason is repeated on every later
 * device_ready(). Called with dev->lock held. */
static void device_fail(struct device *dev, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void device_fail(struct device *dev, const char *fmt, ...) {
  LOCK_ASSERT_HELD(&dev->lock);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dev->failure, sizeof dev->failure, fmt, ap);
  va_end(ap);
  dev->state = DEVICE_FAILED;
  __atomic_store_n(&dev->ready_generation, 0, __ATOMIC_RELEASE);
  report_error_set("%s", dev->failure);
  report_debug("%s", dev->failure);
}

/* ---- initialisation ----------------------------------------------------- */

static int device_initialise(struct device *dev) {
  const struct plugin_ops *ops = &dev->plugin->ops;
  char cause[600];
  int64_t req = registry_requires();
  if (req != OMP_REQ_UNDEFINED && ops->init_requires) {
    int64_t rc = RTL_CALL(DEVICE_INIT_REQUIRES, ops, init_requires)(req);
    if (rc == (int64_t)OFFLOAD_FAIL) {
      device_plugin_cause(dev, cause, sizeof cause);
      device_fail(dev,
                  "device %d (plugin %s): the plugin cannot honour the"
                  " 'requires' flags 0x%" PRIx64 "%s",
                  dev->id, dev->plugin->name, req, cause);
      return -1;
    }
    /* The plugin answers with the flags it honours; a requirement it
     * dropped cannot be met on this device (e.g. unified_shared_memory on
     * a device with its own address space). */
    static const struct {
      int64_t bit;
      const char *name;
    } needs[] = {
        {OMP_REQ_UNIFIED_SHARED_MEMORY, "unified_shared_memory"},
        {OMP_REQ_UNIFIED_ADDRESS, "unified_address"},
        {OMP_REQ_REVERSE_OFFLOAD, "reverse_offload"},
    };
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
      if ((req & needs[i].bit) && !(rc & needs[i].bit)) {
        device_plugin_cause(dev, cause, sizeof cause);
        device_fail(dev,
                    "device %d (plugin %s): the program requires %s "
                    "(`#pragma omp requires %s`), which this device cannot "
                    "provide%s",
                    dev->id, dev->plugin->name, needs[i].name, needs[i].name,
                    cause);
        return -1;
      }
    dev->unified_memory = (req & rc & OMP_REQ_UNIFIED_SHARED_MEMORY) != 0;
  }
  int32_t rc = RTL_CALL(DEVICE_INIT_DEVICE, ops, init_device)(dev->rtl_id);
  if (rc != OFFLOAD_SUCCESS) {
    device_plugin_cause(dev, cause, sizeof cause);
    device_fail(dev,
                "device %d (plugin %s, its device %d): initialisation failed"
                " (__tgt_rtl_init_device returned %d)%s",
                dev->id, dev->plugin->name, dev->rtl_id, rc, cause);
    return -1;
  }
  dev->state = DEVICE_READY;
  if (ompt_active)
    ompt_device_initialize(dev->id, dev->plugin->name);
  report_debug("device %d (plugin %s) initialised", dev->id,
               dev->plugin->name);
  return 0;
}

/* ---- the entry table ---------------------------------------------------- */

static int compare_entries(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const struct device_entry *)a)->host_addr;
  uintptr_t y = (uintptr_t)((const struct device_entry *)b)->host_addr;
  return x < y ? -1 : x > y;
}

/* Drop every entry `lib` added (the table stays sorted). Entries are told
 * apart by owner, not by host address: several libraries may hold the same
 * host function as an indirect entry. Returns how many indirect functions
 * went away (the device's table must then be published again). */
static size_t remove_lib_entries(struct device *dev,
                                 const struct registered_lib *lib) {
  size_t kept = 0, indirect = 0;
  for (size_t i = 0; i < dev->num_entries; i++) {
    if (dev->entries[i].lib != lib)
      dev->entries[kept++] = dev->entries[i];
    else if (dev->entries[i].flags & OMP_DECLARE_TARGET_INDIRECT)
      indirect++;
  }
  dev->num_entries = kept;
  entries_changed();
  return indirect;
}

/* to (0) or enter (0x2, clang 19+) with a size (0x2 with size 0 is a ctor);
 * and link (0x1): there the entry is the host `<var>_decl_tgt_ref_ptr`
 * pointer and its device twin, so mapping one onto the other lets the
 * PTR_AND_OBJ map clang emits for the variable store its device address in
 * the device pointer (LLVM does the same). */
static bool is_mapped_global(const struct entry_info *e) {
  return e->size > 0 &&
         (e->flags == OMP_ENTRY_KERNEL_OR_TO ||
          e->flags == OMP_DECLARE_TARGET_CTOR ||
          e->flags == OMP_DECLARE_TARGET_LINK);
}

static bool is_ctor(const struct entry_info *e) {
  return e->size == 0 && e->flags == OMP_DECLARE_TARGET_CTOR;
}

static bool is_dtor(const struct entry_info *e) {
  return e->size == 0 && e->flags == OMP_DECLARE_TARGET_DTOR;
}

/* Declare-target globals live on the device for the whole program: their
 * mapping never goes away and its memory is the image's, not ours. */
static int map_globals(struct device *dev, const struct registered_lib *lib,
                       const __tgt_target_table *table) {
  for (size_t i = 0; i < lib->num_entries; i++) {
    const struct entry_info *e = &lib->entries[i];
    void *tgt = table->EntriesBegin[i].addr;
    if (!is_mapped_global(e) || !tgt)
      continue;
    struct mapping_range other;
    int rc = mapping_add_global(&dev->map, (uintptr_t)e->host_addr, e->size,
                                (uintptr_t)tgt, e->name, &other);
    if (rc == EEXIST)
      report_error_set("declare target variable '%s' (host %p, %" PRIu64
                       " bytes) overlaps host 0x%" PRIxPTR "..0x%" PRIxPTR
                       " already mapped on device %d",
                       e->name, e->host_addr, e->size, other.hst_begin,
                       other.hst_end, dev->id);
    if (rc != 0)
      return -1;
    if (REPORT_INFO_ON(INFO_MAPPING_CHANGED))
      report_info(INFO_MAPPING_CHANGED,
                  "declare target variable '%s': host %p -> device %p, %" PRIu64
                  " bytes, device %d",
                  e->name, e->host_addr, tgt, e->size, dev->id);
  }
  return 0;
}

static void unmap_globals(struct device *dev, const struct registered_lib *lib) {
  for (size_t i = 0; i < lib->num_entries; i++) {
    const struct entry_info *e = &lib->entries[i];
    if (is_mapped_global(e))
      mapping_remove_global(&dev->map, (uintptr_t)e->host_addr, e->size);
  }
}

/* clang 19/22 give a `declare target indirect` function a device entry that
 * is a pointer-sized object holding the device function's address: read it,
 * so that the row maps host function -> device function (seed 003). NULL
 * when it cannot be read (the row is then left out, and a call through the
 * host pointer fails with the function named). */
static void *read_indirect_target(struct device *dev,
                                  const struct entry_info *e, void *tgt) {
  void *fn = NULL;
  if (e->size != sizeof fn) {
    report_debug("device %d: indirect function '%s' has a %" PRIu64
                 "-byte entry, not a pointer", dev->id, e->name, e->size);
    return NULL;
  }
  bool had_error = report_error_get()[0] != '\0';
  if (device_retrieve(dev, &fn, tgt, sizeof fn) != 0 || !fn) {
    report_debug("device %d: cannot read the device address of indirect"
                  " function '%s' at %p", dev->id, e->name, tgt);
    fn = NULL;
  }
  if (!had_error)
    report_error_clear(); /* a failed read is not the construct's cause */
  return fn;
}

/* Record every entry the device provides, sorted by host address. Returns
 * the number of indirect functions added, or -1. */
static long add_lib_entries(struct device *dev, const struct registered_lib *lib,
                            const __tgt_target_table *table) {
  if (ARRAY_RESERVE(dev->entries, dev->cap_entries,
                    dev->num_entries + lib->num_entries) != 0) {
    report_error_set("device %d: out of memory for %zu entries", dev->id,
                     lib->num_entries);
    return -1;
  }
  long indirect = 0;
  for (size_t i = 0; i < lib->num_entries; i++) {
    const struct entry_info *e = &lib->entries[i];
    void *tgt = table->EntriesBegin[i].addr;
    if (e->flags & OMP_REGISTER_REQUIRES)
      continue;
    if (!tgt) {
      /* The seed allows it: "not supported by the target device". A kernel
       * is still recorded, so that launching it names what is missing. */
      report_debug("device %d: entry '%s' (host %p) has no device address",
                   dev->id, e->name, e->host_addr);
      if (e->size != 0 || (e->flags & OMP_DECLARE_TARGET_INDIRECT))
        continue;
    }
    if ((e->flags & OMP_DECLARE_TARGET_INDIRECT) &&
        !(tgt = read_indirect_target(dev, e, tgt)))
      continue;
    indirect += (e->flags & OMP_DECLARE_TARGET_INDIRECT) != 0;
    dev->entries[dev->num_entries++] = (struct device_entry){
        .host_addr = e->host_addr,
        .tgt_addr = tgt,
        .name = e->name,
        .size = e->size,
        .flags = e->flags,
        .lib = lib,
    };
  }
  qsort(dev->entries, dev->num_entries, sizeof *dev->entries, compare_entries);
  entries_changed();
  return indirect;
}

/* Names that are the image's plumbing, not user functions. */
static bool is_plumbing(const char *name) {
  return name[0] == '.' || !strncmp(name, "__omp_offloading_", 17) ||
         !strcmp(name, "_init") || !strcmp(name, "_fini");
}

/* Where the device loaded `syms`' image: a kernel of `lib` whose device
 * address the plugin gave us, minus its symbol value. 0 when unknown. */
static uintptr_t image_load_bias(const struct device *dev,
                                 const struct registered_lib *lib,
                                 const struct elf_syms *syms) {
  for (size_t i = 0; i < dev->num_entries; i++) {
    const struct device_entry *d = &dev->entries[i];
    if (d->lib != lib || d->size != 0 || d->flags != OMP_ENTRY_KERNEL_OR_TO)
      continue;
    for (size_t k = 0; k < syms->count; k++) {
      const char *n = elf_syms_name(syms, &syms->syms[k]);
      if (n && ELF64_ST_TYPE(syms->syms[k].st_info) == STT_FUNC &&
          syms->syms[k].st_value && !strcmp(n, d->name))
        return (uintptr_t)d->tgt_addr - syms->syms[k].st_value;
    }
  }
  return 0;
}

/* clang 14-16 accept `declare target ... indirect` but emit no entry for it
 * (their images name entries `.omp_offloading.entry.*`). Without a table a
 * host function pointer is useless in another address space, so pair each
 * function of such an image with the host function of the same name in the
 * host object that registered it: the device has a version of a function
 * only if it was declare target. A name that is static in several
 * translation units (of the image or the host) is left out: which one is
 * meant cannot be told. Returns the rows added. */
static long add_named_functions(struct device *dev,
                                const struct registered_lib *lib,
                                const struct image_info *img) {
  struct elf_syms dyn, fns, host;
  if (elf_syms_from_memory(img->payload, img->payload_size, true, &dyn) != 0)
    return 0;
  bool legacy = false;
  for (size_t k = 0; k < dyn.count && !legacy; k++) {
    const char *n = elf_syms_name(&dyn, &dyn.syms[k]);
    legacy = n && !strncmp(n, ".omp_offloading.entry.", 22);
  }
  uintptr_t bias = legacy ? image_load_bias(dev, lib, &dyn) : 0;
  if (!bias)
    return 0;
  /* clang 15/16 link the image with the declare-target functions local:
   * they are only in .symtab. */
  if (elf_syms_from_memory(img->payload, img->payload_size, false, &fns) != 0)
    fns = dyn;
  if (elf_syms_of_host_object(lib->desc, &host) != 0)
    return 0;
  long added = 0;
  for (size_t k = 0; k < fns.count; k++) {
    const Elf64_Sym *sym = &fns.syms[k];
    const char *n = elf_syms_name(&fns, sym);
    if (!n || !n[0] || is_plumbing(n) ||
        ELF64_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_shndx == SHN_UNDEF ||
        !sym->st_value ||
        elf_syms_find_function(&fns, n) != (void *)(uintptr_t)sym->st_value)
      continue; /* not a function, or a name the image has twice */
    void *host_fn = elf_syms_find_function(&host, n);
    if (!host_fn || ARRAY_RESERVE(dev->entries, dev->cap_entries,
                                  dev->num_entries + 1) != 0)
      continue;
    dev->entries[dev->num_entries++] = (struct device_entry){
        .host_addr = host_fn,
        .tgt_addr = (void *)(bias + sym->st_value),
        .name = n, /* inside the image, which lives as long as `lib` */
        .size = 0,
        .flags = OMP_DECLARE_TARGET_INDIRECT,
        .lib = lib,
    };
    added++;
  }
  elf_syms_close(&host);
  if (added) {
    qsort(dev->entries, dev->num_entries, sizeof *dev->entries,
          compare_entries);
    entries_changed();
  }
  report_debug("device %d: %ld host functions paired by name with the image"
               " of library %p (no indirect entries before clang 19)",
               dev->id, added, (const void *)lib->desc);
  return added;
}

/* Run the ctor (forward) or dtor (reverse, like C++ destruction) kernels of
 * `lib`, one team of one thread each. Returns 0 or -1 after the first
 * failure (the remaining ones are still run for dtors). */
static int run_structors(struct device *dev, const struct registered_lib *lib,
                         const __tgt_target_table *table, bool ctors) {
  int rc = 0;
  for (size_t k = 0; k < lib->num_entries; k++) {
    size_t i = ctors ? k : lib->num_entries - 1 - k;
    const struct entry_info *e = &lib->entries[i];
    if (ctors ? !is_ctor(e) : !is_dtor(e))
      continue;
    struct device_entry kernel = {
        .host_addr = e->host_addr,
        .tgt_addr = table->EntriesBegin[i].addr,
        .name = e->name,
        .flags = e->flags,
    };
    if (!kernel.tgt_addr)
      continue;
    if (device_run_kernel(dev, &kernel, NULL, NULL, 0, 1, 1, 0, 0) != 0) {
      report_error_set("%s kernel '%s' of the library registered at %p"
                       " failed on device %d",
                       ctors ? "constructor" : "destructor", e->name,
                       (const void *)lib->desc, dev->id);
      rc = -1;
      if (ctors)
        break;
    }
  }
  return rc;
}

void *device_translate_fptr(struct device *dev, void *host_fn) {
  void *result = host_fn;
  pthread_mutex_lock(&dev->lock);
  struct device_entry key = {.host_addr = host_fn};
  const struct device_entry *d =
      dev->num_entries ? bsearch(&key, dev->entries, dev->num_entries,
                                 sizeof *dev->entries, compare_entries)
                       : NULL;
  if (d && (d->flags & OMP_DECLARE_TARGET_INDIRECT))
    result = d->tgt_addr;
  pthread_mutex_unlock(&dev->lock);
  return result;
}

static const char *triple_of(const struct image_info *img) {
  return img->triple[0] ? img->triple : "unknown (raw image)";
}

/* Add a rejection once, even when several devices of a plugin refuse. */
static void reject_image_once(const char *line) {
  if (!strstr(plugins_rejections(), line))
    plugins_add_rejection("%s", line);
}

static void explain_unaccepted(struct device *dev,
                               const struct registered_lib *lib) {
  for (int32_t i = 0; i < lib->num_images; i++) {
    const struct image_info *img = &lib->images[i];
    char machine[64] = "", why[160];
    struct offload_elf_header elf;
    if (offload_elf_read_header(img->payload, img->payload_size, &elf, why,
                                sizeof why) == 0)
      snprintf(machine, sizeof machine, "ELF machine %u (%s), ", elf.machine,
               offload_elf_machine_name(elf.machine));
    char cause[600];
    device_plugin_cause(dev, cause, sizeof cause);
    char line[1024];
    snprintf(line, sizeof line,
             "image %d of library registered at %p: triple %s, not accepted"
             " by plugin %s (%s__tgt_rtl_is_valid_binary said no%s)",
             i, (const void *)lib->desc, triple_of(img), dev->plugin->name,
             machine, cause);
    reject_image_once(line);
  }
}

/* Load the first image of `lib` this plugin accepts. Called with dev->lock
 * held. Returns 0 (also when no image is accepted: that is not a failure of
 * the device) or -1 after device_fail(). *indirect counts the indirect
 * functions it added. */
static int device_load_lib(struct device *dev, struct registered_lib *lib,
                           long *indirect) {
  LOCK_ASSERT_HELD(&dev->lock);
  const struct plugin_ops *ops = &dev->plugin->ops;
  int32_t chosen = -1;
  for (int32_t i = 0; i < lib->num_images && chosen < 0; i++)
    if (RTL_CALL(DEVICE_IS_VALID_BINARY, ops, is_valid_binary)(&lib->images[i].plugin_image))
      chosen = i;
  if (chosen < 0) {
    explain_unaccepted(dev, lib);
    return 0;
  }
  struct image_info *img = &lib->images[chosen];
  char cause[600];
  __tgt_target_table *table = RTL_CALL(DEVICE_LOAD_BINARY, ops, load_binary)(
      dev->rtl_id, &img->plugin_image);
  if (!table) {
    device_plugin_cause(dev, cause, sizeof cause);
    device_fail(dev,
                "device %d (plugin %s): loading image %d (%zu bytes, triple %s)"
                " of the library registered at %p failed%s",
                dev->id, dev->plugin->name, chosen, img->payload_size,
                triple_of(img), (const void *)lib->desc, cause);
    return -1;
  }
  if (!table->EntriesBegin != !table->EntriesEnd ||
      table->EntriesEnd < table->EntriesBegin ||
      (size_t)(table->EntriesEnd - table->EntriesBegin) != lib->num_entries) {
    long got = table->EntriesBegin && table->EntriesEnd >= table->EntriesBegin
                   ? (long)(table->EntriesEnd - table->EntriesBegin)
                   : -1;
    if (ops->unload_binary)
      RTL_CALL(DEVICE_UNLOAD_BAD_TABLE, ops, unload_binary)(
          dev->rtl_id, &img->plugin_image);
    device_fail(dev,
                "device %d (plugin %s): the table of image %d of the library"
                " registered at %p has %ld entries, the library has %zu",
                dev->id, dev->plugin->name, chosen, (const void *)lib->desc,
                got, lib->num_entries);
    return -1;
  }
  struct device_image *loaded = calloc(1, sizeof *loaded);
  if (!loaded) {
    if (ops->unload_binary)
      RTL_CALL(DEVICE_UNLOAD_NO_MEMORY, ops, unload_binary)(
          dev->rtl_id, &img->plugin_image);
    device_fail(dev, "device %d: out of memory recording a loaded image",
                dev->id);
    return -1;
  }
  loaded->lib = lib;
  loaded->image_index = chosen;
  loaded->table = table;
  if (ompt_active)
    loaded->ompt_module_id =
        ompt_device_load(dev->id, img->payload, img->payload_size);
  loaded->next = dev->images;
  dev->images = loaded;
  /* From here the image is recorded, so unload and release undo it even if
   * a later step fails. */
  long added = add_lib_entries(dev, lib, table);
  if (added < 0 || map_globals(dev, lib, table) < 0) {
    device_fail(dev,
                "device %d (plugin %s): registering the entries of the library"
                " registered at %p failed: %s",
                dev->id, dev->plugin->name, (const void *)lib->desc,
                report_error_get());
    return -1;
  }
  *indirect += added + add_named_functions(dev, lib, img);
  if (run_structors(dev, lib, table, true) < 0) {
    device_fail(dev,
                "device %d (plugin %s): a C++ constructor of the library"
                " registered at %p failed: %s",
                dev->id, dev->plugin->name, (const void *)lib->desc,
                report_error_get());
    return -1;
  }
  report_debug("device %d: loaded image %d of library %p (%zu entries)",
               dev->id, chosen, (const void *)lib->desc, lib->num_entries);
  return 0;
}

static int compare_fptr(const void *a, const void *b) {
  uint64_t x = ((const __tgt_fptr_map *)a)->host_ptr;
  uint64_t y = ((const __tgt_fptr_map *)b)->host_ptr;
  return x < y ? -1 : x > y;
}

/* Seed 003: hand the plugin every `declare target indirect` function of the
 * device, host -> device, sorted by host address. Every call passes the
 * WHOLE table of the device (all its libraries), replacing the previous one
 * (the simdevice plugin relies on it); after an unload it may be empty. A
 * host function that several libraries (or translation units) declare
 * indirect appears once: every device copy is the same function. dev->lock
 * held. */
static int publish_indirect_table(struct device *dev) {
  LOCK_ASSERT_HELD(&dev->lock);
  if (!dev->plugin->ops.set_function_ptr_map)
    return 0; /* absent: indirect calls keep host addresses */
  size_t n = 0;
  for (size_t i = 0; i < dev->num_entries; i++)
    n += (dev->entries[i].flags & OMP_DECLARE_TARGET_INDIRECT) != 0;
  __tgt_fptr_map *table = malloc((n ? n : 1) * sizeof *table);
  if (!table) {
    device_fail(dev, "device %d: out of memory for %zu indirect functions",
                dev->id, n);
    return -1;
  }
  size_t k = 0;
  for (size_t i = 0; i < dev->num_entries; i++)
    if (dev->entries[i].flags & OMP_DECLARE_TARGET_INDIRECT)
      table[k++] = (__tgt_fptr_map){
          .host_ptr = (uint64_t)(uintptr_t)dev->entries[i].host_addr,
          .device_ptr = (uint64_t)(uintptr_t)dev->entries[i].tgt_addr,
      };
  qsort(table, n, sizeof *table, compare_fptr); /* already sorted; cheap */
  size_t unique = 0;
  for (size_t i = 0; i < n; i++)
    if (unique == 0 || table[unique - 1].host_ptr != table[i].host_ptr)
      table[unique++] = table[i];
  int32_t rc = RTL_CALL(DEVICE_SET_FPTR_MAP, &dev->plugin->ops,
                        set_function_ptr_map)(dev->rtl_id, unique, table);
  free(table);
  if (rc != OFFLOAD_SUCCESS) {
    char cause[600];
    device_plugin_cause(dev, cause, sizeof cause);
    device_fail(dev,
                "device %d (plugin %s): registering %zu 'declare target"
                " indirect' functions failed (__tgt_rtl_set_function_ptr_map"
                " returned %d)%s",
                dev->id, dev->plugin->name, unique, rc, cause);
    return -1;
  }
  return 0;
}

/* Load every library registered since the last call. dev->lock held. */
static int load_pending_libs(struct device *dev) {
  LOCK_ASSERT_HELD(&dev->lock);
  registry_lock();
  size_t pending = 0;
  uint64_t newest = dev->loaded_generation;
  for (struct registered_lib *l = registry_first(); l; l = l->next)
    if (l->generation > dev->loaded_generation)
      pending++;
  struct registered_lib **todo = NULL;
  if (pending) {
    todo = malloc(pending * sizeof *todo);
    if (!todo) {
      registry_unlock();
      report_error_set("device %d: out of memory loading %zu libraries",
                       dev->id, pending);
      return -1;
    }
    size_t n = 0;
    for (struct registered_lib *l = registry_first(); l; l = l->next)
      if (l->generation > dev->loaded_generation) {
        todo[n++] = l;
        if (l->generation > newest)
          newest = l->generation;
      }
  }
  registry_unlock();
  /* Unregistration removes a library from the list before it takes
   * dev->lock, which we hold: the libraries in `todo` stay alive. */
  int rc = 0;
  long indirect = 0;
  for (size_t i = 0; i < pending && rc == 0; i++)
    rc = device_load_lib(dev, todo[i], &indirect);
  if (rc == 0 && indirect > 0)
    rc = publish_indirect_table(dev);
  if (rc == 0)
    dev->loaded_generation = newest;
  free(todo);
  return rc;
}

int device_ready(struct device *dev) {
  if (!dev) {
    report_error_set("no such device");
    return -1;
  }
  /* Every construct comes here: a ready device that has loaded every
   * registered library needs no lock (the locked path costs two mutexes
   * and a walk of the registry). */
  uint64_t ready = __atomic_load_n(&dev->ready_generation, __ATOMIC_ACQUIRE);
  if (ready != 0 && ready >= registry_last_generation())
    return 0;
  pthread_mutex_lock(&dev->lock);
  int rc = -1;
  if (dev->state == DEVICE_FAILED) {
    report_error_set("%s", dev->failure);
    goto out_unlock;
  }
  uint64_t t0 = PROFILE_ON() && dev->state == DEVICE_NEW ? profile_now() : 0;
  if (dev->state == DEVICE_NEW && device_initialise(dev) < 0)
    goto out_unlock;
  rc = load_pending_libs(dev);
  if (rc == 0 && dev->state == DEVICE_READY)
    __atomic_store_n(&dev->ready_generation, dev->loaded_generation,
                     __ATOMIC_RELEASE);
  if (t0)
    profile_startup(dev->id, t0);
out_unlock:
  pthread_mutex_unlock(&dev->lock);
  return rc;
}

/* The entry this thread found last: a loop of launches looks up the same
 * region again and again, and the tables change rarely (entries_epoch), so
 * a repeated lookup takes no lock. */
static __thread struct {
  const struct device *dev;
  const void *host_addr;
  uint64_t epoch;
  struct device_entry entry;
} last_lookup;

int device_lookup_entry(struct device *dev, const void *host_addr,
                        struct device_entry *out) {
  if (last_lookup.dev == dev && last_lookup.host_addr == host_addr &&
      last_lookup.epoch == __atomic_load_n(&entries_epoch, __ATOMIC_ACQUIRE)) {
    if (out)
      *out = last_lookup.entry;
    return 0;
  }
  pthread_mutex_lock(&dev->lock);
  struct device_entry key = {.host_addr = (void *)host_addr};
  const struct device_entry *found =
      dev->num_entries ? bsearch(&key, dev->entries, dev->num_entries,
                                 sizeof *dev->entries, compare_entries)
                       : NULL;
  if (found) {
    /* the epoch of this table as read: changes bump it under this lock */
    last_lookup.dev = dev;
    last_lookup.host_addr = host_addr;
    last_lookup.epoch = __atomic_load_n(&entries_epoch, __ATOMIC_RELAXED);
    last_lookup.entry = *found;
    if (out)
      *out = *found;
  }
  pthread_mutex_unlock(&dev->lock);
  if (!found) {
    const char *plugin =
        dev->plugin && dev->plugin->name ? dev->plugin->name : "?";
    /* Registered but not loaded here means no image of its library was
     * accepted by this device; say which region, and where to look. */
    char name[256] = "";
    registry_lock();
    for (struct registered_lib *lib = registry_first(); lib && !name[0];
         lib = lib->next)
      for (size_t i = 0; i < lib->num_entries; i++)
        if (lib->entries[i].host_addr == host_addr) {
          snprintf(name, sizeof name, "%s",
                   lib->entries[i].name ? lib->entries[i].name : "?");
          break;
        }
    registry_unlock();
    if (name[0])
      report_error_set("no device code for target region `%s` on device %d "
                       "(plugin %s): no image of its library was accepted by "
                       "this device (see the rejected images)",
                       name, dev->id, plugin);
    else
      report_error_set("no device code for target region %p on device %d "
                       "(plugin %s): no registered library has this host "
                       "entry",
                       host_addr, dev->id, plugin);
    return -1;
  }
  return 0;
}

/* ---- unloading and release -------------------------------------------- */

void device_unload_lib(struct device *dev, struct registered_lib *lib) {
  pthread_mutex_lock(&dev->lock);
  struct device_image **link = &dev->images;
  while (*link && (*link)->lib != lib)
    link = &(*link)->next;
  struct device_image *loaded = *link;
  if (!loaded)
    goto out_unlock;
  /* Dtors first, while the image is still there (LLVM 13-15 crashed at exit
   * by unloading before running them). */
  if (dev->state == DEVICE_READY &&
      run_structors(dev, lib, loaded->table, false) < 0)
    report_error("%s", report_error_get());
  unmap_globals(dev, lib);
  /* The device must stop using this image's functions before it goes. */
  if (remove_lib_entries(dev, lib) > 0 && dev->state == DEVICE_READY &&
      publish_indirect_table(dev) != 0)
    report_error("%s", report_error_get());
  if (dev->plugin->ops.unload_binary &&
      RTL_CALL(DEVICE_UNLOAD_LIB, &dev->plugin->ops, unload_binary)(
          dev->rtl_id, &lib->images[loaded->image_index].plugin_image) != 0)
    report_error("device %d: unloading the image of the library registered "
                 "at %p failed (__tgt_rtl_unload_binary)",
                 dev->id, (const void *)lib->desc);
  if (ompt_active)
    ompt_device_unload(dev->id, loaded->ompt_module_id);
  *link = loaded->next;
  free(loaded);
out_unlock:
  pthread_mutex_unlock(&dev->lock);
}

void devices_unload_lib(struct registered_lib *lib) {
  if (!lib || !__atomic_load_n(&devices_built, __ATOMIC_ACQUIRE))
    return; /* no device was ever created: nothing was loaded */
  for (int i = 0; i < num_devices; i++)
    device_unload_lib(&devices[i], lib);
}

/* The plugin's deinit_device for a ready device. Under dev->lock. */
static void device_deinit(struct device *dev) {
  LOCK_ASSERT_HELD(&dev->lock);
  if (dev->state == DEVICE_READY && ompt_active)
    ompt_device_finalize(dev->id);
  if (dev->state == DEVICE_READY && dev->plugin->ops.deinit_device &&
      RTL_CALL(DEVICE_DEINIT_DEVICE, &dev->plugin->ops, deinit_device)(
          dev->rtl_id) != 0)
    report_error("device %d: releasing the device failed "
                 "(__tgt_rtl_deinit_device)",
                 dev->id);
}

void device_release(struct device *dev) {
  pthread_mutex_lock(&dev->lock);
  device_deinit(dev);
  dev->state = DEVICE_NEW;
  __atomic_store_n(&dev->ready_generation, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&dev->lock);
  device_teardown(dev);
}

void devices_release_at_exit(void) {
  pthread_mutex_lock(&devices_mutex);
  for (int i = 0; i < num_devices; i++) {
    struct device *dev = &devices[i];
    pthread_mutex_lock(&dev->lock);
    device_deinit(dev);
    if (dev->state != DEVICE_NEW) /* NEW: nothing to release, nothing to say */
      device_fail(dev, "device %d was released: the program is exiting",
                  dev->id);
    pthread_mutex_unlock(&dev->lock);
  }
  pthread_mutex_unlock(&devices_mutex);
}

void devices_release_all(void) {
  pthread_mutex_lock(&devices_mutex);
  for (int i = 0; i < num_devices; i++)
    device_release(&devices[i]);
  free(devices);
  devices = NULL;
  num_devices = 0;
  __atomic_store_n(&devices_built, false, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&devices_mutex);
}
