/*
 * host.c - the __tgt_rtl_* entry points of remote simdevice devices
 * (libsimdevice-mpi.so, loaded by the plugin stub plugin.c when there are
 * remote devices). Each call becomes one request to the device's rank
 * (wire.h), which runs it on its own simdevice device; device addresses are
 * the rank's. Data moves in MPI messages; nothing is shared with the host.
 *
 * Locking: a device's calls hold its remote.lock (link.h); a copy between
 * two devices holds both, the lower number first.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "host.h"
#include "link.h"
#include "rtl_error_repeat.h"

HIDDEN int elfimage_check(const __tgt_device_image *image, const void **elf,
                          size_t *size, char *why, size_t why_len);

/* What load_binary handed libomptarget, kept until unload. */
struct host_image {
  const __tgt_device_image *image;
  __tgt_target_table table;
  __tgt_offload_entry *entries;
  struct host_image *next;
};

static int requires_shared; /* the program requires unified memory */

/* Called once by the stub, before anything else. */
void simdevice_mpi_configure(int program_uses_mpi, uint32_t info_flags);
void simdevice_mpi_configure(int program_uses_mpi, uint32_t info_flags) {
  link_configure(program_uses_mpi, info_flags);
}

enum enter_mode { ENTER_WAIT, ENTER_AT_EXIT, ENTER_IF_FREE };

/* The device, locked and ready for a call (ENTER_AT_EXIT: a release, which
 * waits for a busy device at most 2 s, link.h); NULL with the error set.
 * ENTER_IF_FREE: NULL without an error, *busy = 1, when another call holds
 * the device now. */
static struct remote *enter_mode(int32_t id, enum enter_mode mode,
                                 int *busy) {
  struct remote *r = link_remote(id);
  if (r == NULL)
    return NULL;
  if (link_up() != 0)
    return NULL;
  if (mode == ENTER_WAIT)
    pthread_mutex_lock(&r->lock);
  else if (mode == ENTER_IF_FREE && pthread_mutex_trylock(&r->lock) != 0) {
    *busy = 1;
    return NULL;
  } else if (mode == ENTER_AT_EXIT && link_lock_for_exit(r) != 0)
    return NULL;
  if (link_hello(r) != 0) {
    pthread_mutex_unlock(&r->lock);
    return NULL;
  }
  return r;
}

static struct remote *enter_for(int32_t id, int at_exit) {
  return enter_mode(id, at_exit ? ENTER_AT_EXIT : ENTER_WAIT, NULL);
}

static struct remote *enter(int32_t id) { return enter_for(id, 0); }

static void leave(struct remote *r) { pthread_mutex_unlock(&r->lock); }

static int32_t simple_call(int32_t id, struct wire_request *q,
                           const void *payload, void *in, size_t in_len,
                           uint64_t a_out[2], const char *what) {
  struct remote *r = enter(id);
  if (r == NULL)
    return OFFLOAD_FAIL;
  int rc = link_call(r, q, payload, in, in_len, a_out, what);
  leave(r);
  return rc;
}

int32_t __tgt_rtl_number_of_devices(void) { return link_topology()->count; }

int32_t __tgt_rtl_is_valid_binary(__tgt_device_image *image) {
  char why[400];
  const void *elf;
  size_t size;
  if (elfimage_check(image, &elf, &size, why, sizeof why) != 0) {
    link_error("simdevice-mpi: image not for simdevice: %s", why);
    return 0;
  }
  return 1;
}

/* The device's memory range [base, base + size), reserved inaccessible in
 * the host as a local device's is (simdevice/plugin/address_range.c): no
 * host address then equals one of its addresses, and a device address
 * passed as a host one is refused by transfer_host_check. Where the host
 * has something there already, nothing is reserved and nothing checked. */
static void reserve_device_range(struct remote *r, uint64_t base,
                                 uint64_t size) {
  if (size == 0 || atomic_load(&r->mem_size) != 0)
    return;
  void *hole = mmap((void *)(uintptr_t)base, size, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                        MAP_FIXED_NOREPLACE,
                    -1, 0);
  if (hole == MAP_FAILED)
    return;
  if (hole != (void *)(uintptr_t)base) { /* an old kernel: not there */
    munmap(hole, size);
    return;
  }
  r->mem_base = base;
  atomic_store_explicit(&r->mem_size, size, memory_order_release);
}

/* 0 when [host, host + size) may be read or written on the host; -1 with
 * the error set when it is a remote device's memory (as the local plugin
 * says it of a local device's, plugin.c transfer). */
static int transfer_host_check(const char *what, const void *host,
                               int64_t size, int to_device) {
  uint64_t a = (uint64_t)(uintptr_t)host;
  for (int i = 0; i < link_topology()->count; i++) {
    struct remote *d = link_remote(i);
    uint64_t n = d ? atomic_load_explicit(&d->mem_size, memory_order_acquire)
                   : 0;
    if (n == 0 || a >= d->mem_base + n || a + (uint64_t)size <= d->mem_base)
      continue;
    link_error("simdevice-mpi: %s of %lld bytes: the host address %p is "
               "device memory of device %d, which the host cannot %s",
               what, (long long)size, host, i, to_device ? "read" : "write");
    return -1;
  }
  return 0;
}

int32_t __tgt_rtl_init_device(int32_t id) {
  if (requires_shared) {
    link_error("simdevice-mpi: device %d: the program requires "
               "unified_shared_memory or unified_address, and a remote "
               "device shares no memory with the host", id);
    return OFFLOAD_FAIL;
  }
  struct remote *r = enter(id);
  if (r == NULL)
    return OFFLOAD_FAIL;
  struct wire_request q = {.op = WIRE_INIT_DEVICE};
  uint64_t range[2] = {0, 0};
  int rc = link_call(r, &q, NULL, NULL, 0, range, "init_device");
  if (rc == OFFLOAD_SUCCESS)
    reserve_device_range(r, range[0], range[1]);
  leave(r);
  return rc;
}

int64_t __tgt_rtl_init_requires(int64_t flags) {
  if (flags & (OMP_REQ_UNIFIED_SHARED_MEMORY | OMP_REQ_UNIFIED_ADDRESS))
    requires_shared = 1;
  return flags;
}

/* The image bytes, then each entry and its name (wire.h). */
static char *image_payload(const __tgt_device_image *image, uint64_t *bytes,
                           uint64_t *count, uint64_t *total) {
  const __tgt_offload_entry *b = image->EntriesBegin, *e = image->EntriesEnd;
  *bytes = (uint64_t)((const char *)image->ImageEnd -
                      (const char *)image->ImageStart);
  *count = (uint64_t)(e - b);
  *total = *bytes;
  for (const __tgt_offload_entry *x = b; x < e; x++)
    *total += sizeof(struct wire_entry) + (x->name ? strlen(x->name) : 0);
  char *buf = malloc(*total ? *total : 1), *p = buf;
  if (buf == NULL)
    return NULL;
  memcpy(p, image->ImageStart, *bytes);
  p += *bytes;
  for (const __tgt_offload_entry *x = b; x < e; x++) {
    struct wire_entry w = {.addr = (uint64_t)(uintptr_t)x->addr,
                           .size = x->size, .flags = x->flags,
                           .reserved = x->reserved,
                           .name_len = x->name ? strlen(x->name) : 0};
    memcpy(p, &w, sizeof w);
    memcpy(p + sizeof w, x->name ? x->name : "", w.name_len);
    p += sizeof w + w.name_len;
  }
  return buf;
}

__tgt_target_table *__tgt_rtl_load_binary(int32_t id,
                                          __tgt_device_image *image) {
  uint64_t bytes, count, total;
  char *payload = image_payload(image, &bytes, &count, &total);
  struct host_image *h = calloc(1, sizeof *h);
  uint64_t *addrs = calloc(count ? count : 1, sizeof *addrs);
  if (h != NULL)
    h->entries = calloc(count ? count : 1, sizeof *h->entries);
  if (payload == NULL || h == NULL || addrs == NULL || h->entries == NULL) {
    link_error("simdevice-mpi: no host memory to send an image to device %d",
               id);
    goto fail;
  }
  struct remote *r = enter(id);
  if (r == NULL)
    goto fail;
  struct wire_request q = {.op = WIRE_LOAD_BINARY,
                           .a = {(uint64_t)(uintptr_t)image, bytes, count},
                           .payload = total};
  int rc = link_call(r, &q, payload, addrs, count * sizeof *addrs, NULL,
                     "load_binary");
  if (rc == OFFLOAD_SUCCESS) {
    memcpy(h->entries, image->EntriesBegin, count * sizeof *h->entries);
    for (uint64_t i = 0; i < count; i++)
      h->entries[i].addr = (void *)(uintptr_t)addrs[i];
    h->image = image;
    h->table.EntriesBegin = h->entries;
    h->table.EntriesEnd = h->entries + count;
    h->next = r->images;
    r->images = h;
  }
  leave(r);
  if (rc != OFFLOAD_SUCCESS)
    goto fail;
  free(payload);
  free(addrs);
  return &h->table;
fail:
  free(payload);
  free(addrs);
  if (h != NULL)
    free(h->entries);
  free(h);
  return NULL;
}

int32_t __tgt_rtl_unload_binary(int32_t id, __tgt_device_image *image) {
  /* released at MPI_Finalize, images and all; or a fork() child's */
  if (link_closed())
    return OFFLOAD_SUCCESS;
  struct remote *r = enter_for(id, 1);
  if (r == NULL)
    return OFFLOAD_FAIL;
  struct wire_request q = {.op = WIRE_UNLOAD_BINARY,
                           .a = {(uint64_t)(uintptr_t)image}};
  int rc = link_call(r, &q, NULL, NULL, 0, NULL, "unload_binary");
  for (struct host_image **pp = &r->images; *pp != NULL; pp = &(*pp)->next)
    if ((*pp)->image == image) {
      struct host_image *h = *pp;
      *pp = h->next;
      free(h->entries);
      free(h);
      break;
    }
  leave(r);
  return rc;
}

void *__tgt_rtl_data_alloc(int32_t id, int64_t size, void *hst_ptr,
                           int32_t kind) {
  if (kind == TARGET_ALLOC_HOST || kind == TARGET_ALLOC_SHARED) {
    link_error("simdevice-mpi: data_alloc of %s memory on device %d: a "
               "remote device's memory cannot be mapped in the host",
               kind == TARGET_ALLOC_HOST ? "host" : "shared", id);
    return NULL;
  }
  struct wire_request q = {.op = WIRE_DATA_ALLOC,
                           .a = {(uint64_t)size, (uint64_t)(uintptr_t)hst_ptr,
                                 (uint64_t)kind}};
  uint64_t a[2] = {0, 0};
  if (simple_call(id, &q, NULL, NULL, 0, a, "data_alloc") != OFFLOAD_SUCCESS)
    return NULL;
  return (void *)(uintptr_t)a[0];
}

int32_t __tgt_rtl_data_delete(int32_t id, void *tgt_ptr) {
  struct wire_request q = {.op = WIRE_DATA_DELETE,
                           .a = {(uint64_t)(uintptr_t)tgt_ptr}};
  return simple_call(id, &q, NULL, NULL, 0, NULL, "data_delete");
}

/* OMPT device tracing (__tgt_rtl_time_next_op), as the local plugin's:
 * where this host thread's next launch or queued copy on device timing_id
 * stores the rank's start and end of its work. Thread-local: the work
 * comes from the thread that armed it; every launch and queued copy takes
 * it (host_take_timing), failing or not. */
static __thread uint64_t *timing_sink;
static __thread int32_t timing_id;

int32_t __tgt_rtl_time_next_op(int32_t id, uint64_t *times) {
  timing_sink = NULL;
  if (times == NULL)
    return OFFLOAD_SUCCESS; /* disarmed */
  if (link_remote(id) == NULL)
    return OFFLOAD_FAIL; /* (its error said) */
  timing_sink = times;
  timing_id = id;
  return OFFLOAD_SUCCESS;
}

uint64_t *host_take_timing(int32_t id) {
  uint64_t *times = timing_sink;
  timing_sink = NULL;
  return times != NULL && timing_id == id ? times : NULL;
}

/* A copy between host and device `id` (checked first), under the device's
 * lock taken as `mode` says (*busy as enter_mode); timed on the rank into
 * `times` when not NULL. */
static int32_t copy(int32_t id, void *tgt, void *hst, int64_t size,
                    int to_device, enum enter_mode mode, int *busy,
                    uint64_t *times) {
  const char *what = to_device ? "data_submit" : "data_retrieve";
  if (size < 0) {
    link_error("simdevice-mpi: %s of a negative size", what);
    return OFFLOAD_FAIL;
  }
  if (size > 0 && transfer_host_check(what, hst, size, to_device) != 0)
    return OFFLOAD_FAIL;
  struct remote *r = enter_mode(id, mode, busy);
  if (r == NULL)
    return OFFLOAD_FAIL;
  struct wire_request q = {.op = to_device ? WIRE_DATA_SUBMIT
                                           : WIRE_DATA_RETRIEVE,
                           .a = {(uint64_t)(uintptr_t)tgt, (uint64_t)size, 0,
                                 0, 0, times != NULL},
                           .payload = to_device ? (uint64_t)size : 0};
  uint64_t t[2] = {0, 0};
  int rc = to_device ? link_call(r, &q, hst, NULL, 0, t, what)
                     : link_call(r, &q, NULL, hst, (size_t)size, t, what);
  leave(r);
  if (rc == OFFLOAD_SUCCESS && times != NULL)
    memcpy(times, t, sizeof t);
  return rc;
}

int32_t __tgt_rtl_data_submit(int32_t id, void *tgt_ptr, void *hst_ptr,
                              int64_t size) {
  return copy(id, tgt_ptr, hst_ptr, size, 1, ENTER_WAIT, NULL, NULL);
}

int32_t __tgt_rtl_data_retrieve(int32_t id, void *hst_ptr, void *tgt_ptr,
                                int64_t size) {
  return copy(id, tgt_ptr, hst_ptr, size, 0, ENTER_WAIT, NULL, NULL);
}

int32_t host_copy_timed(int32_t id, void *tgt, void *hst, int64_t size,
                        int to_device, uint64_t *times) {
  return copy(id, tgt, hst, size, to_device, ENTER_WAIT, NULL, times);
}

int32_t host_copy_if_free(int32_t id, void *tgt, void *hst, int64_t size,
                          int to_device, uint64_t *times, int *ran) {
  int busy = 0;
  int32_t rc = copy(id, tgt, hst, size, to_device, ENTER_IF_FREE, &busy,
                    times);
  *ran = !busy;
  return rc;
}

int32_t __tgt_rtl_is_data_exchangable(int32_t src_id, int32_t dst_id) {
  int n = link_topology()->count;
  return src_id >= 0 && src_id < n && dst_id >= 0 && dst_id < n;
}

/* Rank to rank: the source sends straight to the destination. */
int32_t __tgt_rtl_data_exchange(int32_t src_id, void *src_ptr, int32_t dst_id,
                                void *dst_ptr, int64_t size) {
  if (src_id == dst_id || size <= 0) {
    if (size < 0) {
      link_error("simdevice-mpi: data_exchange of a negative size");
      return OFFLOAD_FAIL;
    }
    void *buf = malloc(size ? (size_t)size : 1);
    int32_t rc = buf ? __tgt_rtl_data_retrieve(src_id, buf, src_ptr, size)
                     : OFFLOAD_FAIL;
    if (rc == OFFLOAD_SUCCESS)
      rc = __tgt_rtl_data_submit(dst_id, dst_ptr, buf, size);
    free(buf);
    return rc;
  }
  int lo = src_id < dst_id ? src_id : dst_id, hi = src_id ^ dst_id ^ lo;
  struct remote *a = enter(lo);
  if (a == NULL)
    return OFFLOAD_FAIL;
  struct remote *b = enter(hi);
  if (b == NULL) {
    leave(a);
    return OFFLOAD_FAIL;
  }
  struct remote *src = src_id == lo ? a : b, *dst = src == a ? b : a;
  struct wire_request qs = {.op = WIRE_SEND_TO_PEER,
                            .a = {(uint64_t)(uintptr_t)src_ptr, (uint64_t)size,
                                  (uint64_t)dst->rank}};
  struct wire_request qd = {.op = WIRE_RECV_FROM_PEER,
                            .a = {(uint64_t)(uintptr_t)dst_ptr, (uint64_t)size,
                                  (uint64_t)src->rank}};
  if (link_info_flags() & INFO_PLUGIN_KERNEL)
    fprintf(stderr, "simdevice-mpi: device %d -> device %d: %lld bytes, MPI "
            "rank %d to rank %d\n", src_id, dst_id, (long long)size,
            src->rank, dst->rank);
  int rc = OFFLOAD_FAIL;
  if (link_send(dst, &qd, NULL, "data_exchange (destination)") == 0) {
    if (link_send(src, &qs, NULL, "data_exchange (source)") == 0) {
      int rs = link_finish(src, NULL, 0, NULL, "data_exchange (source)");
      __tgt_rtl_error first;
      link_error_take(&first);
      int rd = link_finish(dst, NULL, 0, NULL, "data_exchange (destination)");
      if (rs != OFFLOAD_SUCCESS)
        link_error_set(&first); /* the source's cause comes first */
      rc = rs == OFFLOAD_SUCCESS && rd == OFFLOAD_SUCCESS ? OFFLOAD_SUCCESS
                                                          : OFFLOAD_FAIL;
    }
  }
  leave(b);
  leave(a);
  return rc;
}

int32_t host_run(int32_t id, void *tgt_entry_ptr, void **tgt_args,
                 ptrdiff_t *tgt_offsets, int32_t arg_num, int32_t num_teams,
                 int32_t thread_limit, uint32_t kargs_version,
                 uint64_t *times) {
  if (arg_num < 0 || arg_num > 256 ||
      (arg_num > 0 && (tgt_args == NULL || tgt_offsets == NULL))) {
    link_error("simdevice-mpi: a kernel launch on device %d with %d "
               "arguments: 0 to 256 pass", id, arg_num);
    return OFFLOAD_FAIL;
  }
  uint64_t args[256];
  for (int32_t i = 0; i < arg_num; i++)
    args[i] = (uint64_t)(uintptr_t)((char *)tgt_args[i] + tgt_offsets[i]);
  struct wire_request q = {.op = WIRE_RUN,
                           .a = {(uint64_t)(uintptr_t)tgt_entry_ptr,
                                 (uint64_t)arg_num,
                                 (uint64_t)(int64_t)num_teams,
                                 (uint64_t)(int64_t)thread_limit,
                                 kargs_version, times != NULL},
                           .payload = (uint64_t)arg_num * 8};
  if (link_info_flags() & INFO_PLUGIN_KERNEL)
    fprintf(stderr, "simdevice-mpi: device %d runs kernel %p (%d arguments, "
            "num_teams %d, thread_limit %d, KernelArgs version %u)\n", id,
            tgt_entry_ptr, arg_num, num_teams, thread_limit, kargs_version);
  fflush(stdout); /* the program's output before the device's */
  uint64_t t[2] = {0, 0};
  int32_t rc = simple_call(id, &q, args, NULL, 0, t, "a kernel");
  if (rc == OFFLOAD_SUCCESS && times != NULL)
    memcpy(times, t, sizeof t);
  return rc;
}

int32_t __tgt_rtl_run_target_team_region(int32_t id, void *tgt_entry_ptr,
                                         void **tgt_args,
                                         ptrdiff_t *tgt_offsets,
                                         int32_t arg_num, int32_t num_teams,
                                         int32_t thread_limit,
                                         uint64_t loop_tripcount) {
  (void)loop_tripcount;
  return host_run(id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num,
                  num_teams, thread_limit, 0, host_take_timing(id));
}

int32_t __tgt_rtl_run_target_region(int32_t id, void *tgt_entry_ptr,
                                    void **tgt_args, ptrdiff_t *tgt_offsets,
                                    int32_t arg_num) {
  return __tgt_rtl_run_target_team_region(id, tgt_entry_ptr, tgt_args,
                                          tgt_offsets, arg_num, 0, 0, 0);
}

int32_t __tgt_rtl_set_function_ptr_map(int32_t id, uint64_t size,
                                       const __tgt_fptr_map *table) {
  struct remote *r = link_remote(id);
  if (size == 0 && r != NULL && (!r->hello || link_closed()))
    return OFFLOAD_SUCCESS; /* nothing to clear on a device never used */
  struct wire_request q = {.op = WIRE_FPTR_MAP, .a = {size},
                           .payload = size * sizeof *table};
  if (size > 0)
    return simple_call(id, &q, table, NULL, 0, NULL, "set_function_ptr_map");
  /* clearing comes with unloading, at exit */
  if (enter_for(id, 1) == NULL)
    return OFFLOAD_FAIL;
  int rc = link_call(r, &q, table, NULL, 0, NULL, "set_function_ptr_map");
  leave(r);
  return rc;
}

int32_t __tgt_rtl_deinit_device(int32_t id) {
  struct remote *r = link_remote(id);
  if (r == NULL)
    return OFFLOAD_FAIL;
  if (!r->hello || r->lost || link_closed())
    return OFFLOAD_SUCCESS;
  struct wire_request q = {.op = WIRE_DEINIT_DEVICE};
  if (enter_for(id, 1) == NULL)
    return OFFLOAD_FAIL;
  int rc = link_call(r, &q, NULL, NULL, 0, NULL, "deinit_device");
  leave(r);
  return rc;
}

int32_t __tgt_rtl_deinit_plugin(void) {
  link_close();
  return OFFLOAD_SUCCESS;
}

/* The fault of the last error taken on this thread (rtl_error_repeat.h). */
static __thread __tgt_rtl_error repeat_fault;

/* As the local plugin: the fault of the last error once more, without its
 * message, for libomptarget's second read (src/launch.c). */
int32_t __tgt_rtl_get_last_error(int32_t id, __tgt_rtl_error *err) {
  (void)id;
  if (err == NULL)
    return OFFLOAD_FAIL;
  link_error_take(err);
  rtl_error_repeat(err, &repeat_fault);
  return OFFLOAD_SUCCESS;
}

/* libomptarget names a new device copy (SIMDEVICE_VALGRIND=memcheck): the
 * rank's plugin has its device process describe it to memcheck by its
 * variable. 1 (names not used: libomptarget stops asking) as the rank's
 * plugin answers. */
int32_t __tgt_rtl_name_range(int32_t id, void *tgt_ptr, int64_t size,
                             const char *text) {
  if (text == NULL)
    return OFFLOAD_SUCCESS;
  size_t n = strlen(text) + 1;
  struct wire_request q = {.op = WIRE_NAME_RANGE,
                           .a = {(uint64_t)(uintptr_t)tgt_ptr, (uint64_t)size},
                           .payload = n};
  uint64_t a[2] = {0, 0};
  if (simple_call(id, &q, text, NULL, 0, a, "name_range") != OFFLOAD_SUCCESS)
    return OFFLOAD_FAIL;
  return (int32_t)(int64_t)a[0];
}

int32_t __tgt_rtl_set_info_flag(uint32_t flags) {
  link_set_info_flags(flags);
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_print_device_info(int32_t id) {
  struct remote *r = enter(id);
  if (r == NULL)
    return OFFLOAD_FAIL;
  printf("    simdevice-mpi device %d: MPI rank %d, pid %d on %s\n", id,
         r->rank, (int)r->pid, r->host);
  struct wire_request q = {.op = WIRE_PRINT_INFO};
  int rc = link_call(r, &q, NULL, NULL, 0, NULL, "print_device_info");
  leave(r);
  return rc;
}
