/*
 * omptarget.h - the public ABI of simtarget's libomptarget.so: what compilers
 * emit calls to (clang 13 to 22) and what programs may call directly.
 *
 * Layouts follow what real clang binaries contain (../shared/reference/
 * clang-abi.md sections 2-5). Where the design document (seed 000) and real
 * compilers disagree, real compilers win:
 *   - the seed's synchronous calls (__tgt_target, __tgt_target_data_begin...)
 *     take `int32_t device_id` and `int32_t *args_maptype` in the seed; every
 *     LLVM runtime exports them with `int64_t device_id` and
 *     `int64_t *arg_types`, and map types need 64 bits (MEMBER_OF is bits
 *     48-63). simtarget follows LLVM.
 * Every symbol here is exported under the version node VERS1.0.
 */
#ifndef SIMTARGET_OMPTARGET_H
#define SIMTARGET_OMPTARGET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Map-type bits (seed 000, clang-abi.md section 7). */
enum tgt_map_type {
  OMP_TGT_MAPTYPE_NONE = 0x000,
  OMP_TGT_MAPTYPE_TO = 0x001,
  OMP_TGT_MAPTYPE_FROM = 0x002,
  OMP_TGT_MAPTYPE_ALWAYS = 0x004,
  OMP_TGT_MAPTYPE_DELETE = 0x008,
  OMP_TGT_MAPTYPE_PTR_AND_OBJ = 0x010,
  OMP_TGT_MAPTYPE_TARGET_PARAM = 0x020,
  OMP_TGT_MAPTYPE_RETURN_PARAM = 0x040,
  OMP_TGT_MAPTYPE_PRIVATE = 0x080,
  OMP_TGT_MAPTYPE_LITERAL = 0x100,
  OMP_TGT_MAPTYPE_IMPLICIT = 0x200,
  OMP_TGT_MAPTYPE_CLOSE = 0x400,
  OMP_TGT_MAPTYPE_XLC_RESERVED = 0x800,
  OMP_TGT_MAPTYPE_PRESENT = 0x1000,
  OMP_TGT_MAPTYPE_OMPX_HOLD = 0x2000,
  OMP_TGT_MAPTYPE_ATTACH = 0x4000, /* LLVM 22 */
  /* LLVM 23, OpenMP 6.1 use_device_ptr(fb_nullify): a pointer that is not
   * mapped becomes NULL instead of keeping its host address */
  OMP_TGT_MAPTYPE_FB_NULLIFY = 0x8000,
  OMP_TGT_MAPTYPE_NON_CONTIG = 0x100000000000LL,
  OMP_TGT_MAPTYPE_MEMBER_OF = (int64_t)0xffff000000000000ULL,
};
#define OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT 48
/* Every bit a compiler may legitimately set; anything else is rejected. */
#define OMP_TGT_MAPTYPE_KNOWN_BITS                                             \
  ((int64_t)(0xffffULL | 0x100000000000ULL | 0xffff000000000000ULL))

/* Offload entry flags (clang-abi.md section 4). */
enum tgt_entry_flags {
  OMP_ENTRY_KERNEL_OR_TO = 0x0,
  OMP_DECLARE_TARGET_LINK = 0x1,
  OMP_DECLARE_TARGET_CTOR = 0x2,
  OMP_DECLARE_TARGET_DTOR = 0x4,
  OMP_DECLARE_TARGET_INDIRECT = 0x8,
  OMP_REGISTER_REQUIRES = 0x10,
  OMP_DECLARE_TARGET_INDIRECT_VTABLE = 0x20,
};

/* `requires` flags passed to __tgt_register_requires or in a requires entry. */
enum tgt_requires_flags {
  OMP_REQ_UNDEFINED = 0x000,
  OMP_REQ_NONE = 0x001,
  OMP_REQ_REVERSE_OFFLOAD = 0x002,
  OMP_REQ_UNIFIED_ADDRESS = 0x004,
  OMP_REQ_UNIFIED_SHARED_MEMORY = 0x008,
  OMP_REQ_DYNAMIC_ALLOCATORS = 0x010,
};

/* Legacy offload entry (clang 13-19), 32 bytes; unaligned in 13-19 images. */
typedef struct __tgt_offload_entry {
  void *addr;
  char *name;
  size_t size;
  int32_t flags;
  int32_t reserved; /* clang 19: requires flags for a requires entry */
} __tgt_offload_entry;

/* New offload entry (clang 22), 56 bytes. */
typedef struct __tgt_offload_entry_v1 {
  uint64_t reserved; /* always 0 */
  uint16_t version;  /* 1 */
  uint16_t kind;     /* 1 = OpenMP */
  uint32_t flags;
  void *address;
  char *symbol_name;
  uint64_t size;
  uint64_t data; /* requires flags for a requires entry */
  void *aux_addr;
} __tgt_offload_entry_v1;

typedef struct __tgt_device_image {
  void *ImageStart; /* raw ELF, or an OffloadBinary container (10 FF 10 AD) */
  void *ImageEnd;
  void *EntriesBegin; /* legacy or new entries; see above */
  void *EntriesEnd;
} __tgt_device_image;

typedef struct __tgt_bin_desc {
  int32_t NumDeviceImages;
  __tgt_device_image *DeviceImages;
  void *HostEntriesBegin;
  void *HostEntriesEnd;
} __tgt_bin_desc;

/* What a plugin's load_binary returns: one legacy entry per host entry, in
 * host order, with `addr` the device address (NULL when the image lacks it). */
typedef struct __tgt_target_table {
  __tgt_offload_entry *EntriesBegin;
  __tgt_offload_entry *EntriesEnd;
} __tgt_target_table;

/* libomp's source-location struct; psource is ";file;function;line;col;;". */
typedef struct ident_t {
  int32_t reserved_1;
  int32_t flags;
  int32_t reserved_2;
  int32_t reserved_3;
  const char *psource;
} ident_t;

/* Kernel launch arguments of __tgt_target_kernel (clang 15: version 1,
 * 16: version 2, 19 and 22: version 3, 23: version 4). Version 1 ends after
 * Tripcount; versions 2-4 have the same layout. */
typedef struct __tgt_kernel_arguments {
  uint32_t Version;
  uint32_t NumArgs;
  void **ArgBasePtrs;
  void **ArgPtrs;
  int64_t *ArgSizes;
  int64_t *ArgTypes;
  void **ArgNames;
  void **ArgMappers;
  uint64_t Tripcount;
  /* version 2 and later */
  uint64_t Flags; /* bit 0: nowait */
  uint32_t NumTeams[3];
  uint32_t ThreadLimit[3];
  uint32_t DynCGroupMem;
} __tgt_kernel_arguments;
#define TGT_KERNEL_ARGS_V1_SIZE 64
/* Version 3 kernels take a leading `dyn_ptr` parameter. */
#define TGT_KERNEL_ARGS_MIN_VERSION_WITH_DYN_PTR 3
/* From version 4 on (clang 23, LLVM #185989) the dyn_ptr is the last
 * parameter, and the compiler emits it as the arrays' last entry, of type
 * TARGET_PARAM|LITERAL; and a host-CPU kernel (x86-64, ppc64le) takes all
 * its parameters through one `void **`, element i pointing at parameter i
 * (LLVM #205355). GPU kernels keep one parameter per entry. */
#define TGT_KERNEL_ARGS_VERSION_DYN_PTR_LAST 4
#define TGT_KERNEL_ARGS_MAX_VERSION 4

/* Reserved device ids (seed 000). */
#define OFFLOAD_DEVICE_DEFAULT (-1)
#define OFFLOAD_DEVICE_ALL_PENDING (-2) /* all devices, lazily (C++ ctors) */
#define OFFLOAD_DEVICE_ALL_USED (-3)    /* all devices ever used (dtors)  */

/* Return codes of the __tgt_target* launch calls. */
#define OFFLOAD_SUCCESS 0
#define OFFLOAD_FAIL (~0)

/* ---- registration -------------------------------------------------- */
void __tgt_register_lib(__tgt_bin_desc *desc);
void __tgt_unregister_lib(__tgt_bin_desc *desc);
void __tgt_register_requires(int64_t flags);
void __tgt_init_all_rtls(void);

/* ---- the seed's synchronous interface (no ident_t, no mappers) ------ */
void __tgt_target_data_begin(int64_t device_id, int32_t arg_num,
                             void **args_base, void **args, int64_t *arg_sizes,
                             int64_t *arg_types);
void __tgt_target_data_end(int64_t device_id, int32_t arg_num,
                           void **args_base, void **args, int64_t *arg_sizes,
                           int64_t *arg_types);
void __tgt_target_data_update(int64_t device_id, int32_t arg_num,
                              void **args_base, void **args,
                              int64_t *arg_sizes, int64_t *arg_types);
int32_t __tgt_target(int64_t device_id, void *host_ptr, int32_t arg_num,
                     void **args_base, void **args, int64_t *arg_sizes,
                     int64_t *arg_types);
int32_t __tgt_target_teams(int64_t device_id, void *host_ptr, int32_t arg_num,
                           void **args_base, void **args, int64_t *arg_sizes,
                           int64_t *arg_types, int32_t num_teams,
                           int32_t thread_limit);

/* ---- what clang 13-22 emit ----------------------------------------- */
void __tgt_target_data_begin_mapper(ident_t *loc, int64_t device_id,
                                    int32_t arg_num, void **args_base,
                                    void **args, int64_t *arg_sizes,
                                    int64_t *arg_types, void **arg_names,
                                    void **arg_mappers);
void __tgt_target_data_end_mapper(ident_t *loc, int64_t device_id,
                                  int32_t arg_num, void **args_base,
                                  void **args, int64_t *arg_sizes,
                                  int64_t *arg_types, void **arg_names,
                                  void **arg_mappers);
void __tgt_target_data_update_mapper(ident_t *loc, int64_t device_id,
                                     int32_t arg_num, void **args_base,
                                     void **args, int64_t *arg_sizes,
                                     int64_t *arg_types, void **arg_names,
                                     void **arg_mappers);
/* clang 13-16 pass only the first nine arguments: the dependence parameters
 * are never read. */
void __tgt_target_data_begin_nowait_mapper(
    ident_t *loc, int64_t device_id, int32_t arg_num, void **args_base,
    void **args, int64_t *arg_sizes, int64_t *arg_types, void **arg_names,
    void **arg_mappers, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list);
void __tgt_target_data_end_nowait_mapper(
    ident_t *loc, int64_t device_id, int32_t arg_num, void **args_base,
    void **args, int64_t *arg_sizes, int64_t *arg_types, void **arg_names,
    void **arg_mappers, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list);
void __tgt_target_data_update_nowait_mapper(
    ident_t *loc, int64_t device_id, int32_t arg_num, void **args_base,
    void **args, int64_t *arg_sizes, int64_t *arg_types, void **arg_names,
    void **arg_mappers, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list);

int32_t __tgt_target_mapper(ident_t *loc, int64_t device_id, void *host_ptr,
                            int32_t arg_num, void **args_base, void **args,
                            int64_t *arg_sizes, int64_t *arg_types,
                            void **arg_names, void **arg_mappers);
int32_t __tgt_target_nowait_mapper(ident_t *loc, int64_t device_id,
                                   void *host_ptr, int32_t arg_num,
                                   void **args_base, void **args,
                                   int64_t *arg_sizes, int64_t *arg_types,
                                   void **arg_names, void **arg_mappers,
                                   int32_t dep_num, void *dep_list,
                                   int32_t noalias_dep_num,
                                   void *noalias_dep_list);
int32_t __tgt_target_teams_mapper(ident_t *loc, int64_t device_id,
                                  void *host_ptr, int32_t arg_num,
                                  void **args_base, void **args,
                                  int64_t *arg_sizes, int64_t *arg_types,
                                  void **arg_names, void **arg_mappers,
                                  int32_t num_teams, int32_t thread_limit);
int32_t __tgt_target_teams_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    void **arg_names, void **arg_mappers, int32_t num_teams,
    int32_t thread_limit, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list);
void __kmpc_push_target_tripcount_mapper(ident_t *loc, int64_t device_id,
                                         uint64_t loop_tripcount);
void __kmpc_push_target_tripcount(int64_t device_id, uint64_t loop_tripcount);
int32_t __tgt_target_kernel(ident_t *loc, int64_t device_id, int32_t num_teams,
                            int32_t thread_limit, void *host_ptr,
                            __tgt_kernel_arguments *args);
int32_t __tgt_target_kernel_nowait(ident_t *loc, int64_t device_id,
                                   int32_t num_teams, int32_t thread_limit,
                                   void *host_ptr,
                                   __tgt_kernel_arguments *args,
                                   int32_t dep_num, void *dep_list,
                                   int32_t noalias_dep_num,
                                   void *noalias_dep_list);

/* libomp 16+ (seed 004): finish a target nowait region whose dispatch
 * stored an asynchronous handle in its task; called by libomp each time the
 * task runs again. It never waits: while the region's queue is busy it
 * returns with *async_handle unchanged, and once the queue has completed it
 * runs the end-of-construct work (copies back landed, shadow pointers
 * restored, mappings removed) and sets *async_handle to NULL. */
void __tgt_target_nowait_query(void **async_handle);

/* ---- the seed's asynchronous interface (seed 000, "The libomptarget.so
 * asynchronous interface") ---------------------------------------------
 *
 * An event is one asynchronous operation (a data construct or a region).
 * Choices where the seed leaves room:
 *  - Map types are `int32_t *` as the seed writes them (bits 0-15; a
 *    MEMBER_OF field does not fit: use the synchronous 64-bit calls).
 *  - __tgt_target_async and __tgt_target_async_teams list `args_maptype`
 *    twice. The first is the map types; the second (`args_maptype_again`
 *    here) must be NULL or the same pointer, anything else is refused with
 *    a message and the call returns OFFLOAD_FAIL.
 *  - `*completion_event` receives the operation's event when
 *    completion_event is not NULL; the caller then owns one reference and
 *    gives it back with __tgt_release_dep. With NULL, the runtime drops the
 *    event itself once the operation completes.
 *  - `dep_events` are events of earlier operations (on any device); the
 *    operation starts only after each of them has completed. simtarget
 *    enforces this itself, so __tgt_enforce_dep returns 1 for any two valid
 *    device ids (0 when either id is not a device, or the event is NULL).
 *    The caller keeps owning the events it passes.
 *  - The completion callback (__tgt_init_dep) is called exactly once per
 *    operation, with that operation's `param`, after its copies back have
 *    landed; from whichever thread observes the completion
 *    (__tgt_process_dep, or a later operation that waits for it). Without
 *    __tgt_init_dep no callback is called.
 *  - __tgt_process_dep() returns the number of operations still in flight
 *    (0: nothing pending), polling each without waiting.
 *  - An operation that cannot start (bad arguments, no device) is reported
 *    like its synchronous form; its callback is still called once, and
 *    *completion_event is set to NULL (NULL events are ignored by
 *    __tgt_release_dep and in dep_events). __tgt_target_async(_teams) return 0 when the
 *    region was started on a device, non-zero when the caller must run the
 *    host version (as __tgt_target). */
typedef void *tgt_event_t;
typedef void *tgt_callback_param_t;
typedef void (*tgt_callback_fct)(tgt_callback_param_t param);
/* The seed calls the release argument a tgt_sync_event_t: the same type. */
typedef tgt_event_t tgt_sync_event_t;

void __tgt_init_dep(tgt_callback_fct completion_callback);
int32_t __tgt_enforce_dep(int32_t from_device_id, int32_t to_device_id,
                          tgt_event_t completion_event);
void __tgt_release_dep(tgt_sync_event_t completion_event);
int32_t __tgt_process_dep(void);
void __tgt_target_async_data_begin(int32_t device_id, int32_t num_args,
                                   void **args_base, void **args,
                                   int64_t *args_size, int32_t *args_maptype,
                                   int32_t num_dep_events,
                                   tgt_event_t *dep_events,
                                   tgt_event_t *completion_event,
                                   tgt_callback_param_t param);
void __tgt_target_async_data_end(int32_t device_id, int32_t num_args,
                                 void **args_base, void **args,
                                 int64_t *args_size, int32_t *args_maptype,
                                 int32_t num_dep_events,
                                 tgt_event_t *dep_events,
                                 tgt_event_t *completion_event,
                                 tgt_callback_param_t param);
void __tgt_target_async_data_update(int32_t device_id, int32_t num_args,
                                    void **args_base, void **args,
                                    int64_t *args_size, int32_t *args_maptype,
                                    int32_t num_dep_events,
                                    tgt_event_t *dep_events,
                                    tgt_event_t *completion_event,
                                    tgt_callback_param_t param);
int32_t __tgt_target_async(int32_t device_id, void *host_addr,
                           int32_t num_args, void **args_base, void **args,
                           int64_t *args_size, int32_t *args_maptype,
                           int32_t *args_maptype_again, int32_t num_dep_events,
                           tgt_event_t *dep_events,
                           tgt_event_t *completion_event,
                           tgt_callback_param_t param);
int32_t __tgt_target_async_teams(int32_t device_id, void *host_addr,
                                 int32_t num_args, void **args_base,
                                 void **args, int64_t *args_size,
                                 int32_t *args_maptype, int32_t num_teams,
                                 int32_t thread_limit,
                                 int32_t *args_maptype_again,
                                 int32_t num_dep_events,
                                 tgt_event_t *dep_events,
                                 tgt_event_t *completion_event,
                                 tgt_callback_param_t param);

/* User-defined mappers: a mapper function is
 *   void mapper(void *handle, void *base, void *begin, int64_t size,
 *               int64_t type, void *name);
 * and reports its components through these two calls. */
int64_t __tgt_mapper_num_components(void *rt_mapper_handle);
void __tgt_push_mapper_component(void *rt_mapper_handle, void *base,
                                 void *begin, int64_t size, int64_t type,
                                 void *name);

/* libomp finds us through this (dlsym(RTLD_DEFAULT)). */
int __tgt_get_num_devices(void);
/* Info flags at run time (LIBOMPTARGET_INFO bits). */
void __tgt_set_info_flag(uint32_t flags);
/* libomp 21+ (OpenMP 6.0 device memory spaces) finds these by name. The
 * handles are libomp's omp_memspace_handle_t and omp_allocator_handle_t
 * (pointer-sized); an allocator's first field is its memory space, a
 * kmp_memspace_t * { handle; int num_resources; int *resources; ... }.
 * simtarget's resource r is device r / 2's memory: device memory when r is
 * even, its shared memory (the host maps it too) when odd. */
int __tgt_get_mem_resources(int num_devices, const int *devices,
                            int host_access, uintptr_t memspace,
                            int *resources);
void *__tgt_omp_alloc(size_t size, uintptr_t allocator);
void __tgt_omp_free(void *ptr, uintptr_t allocator);

/* ---- OpenMP user routines (also provided by libomp) ---------------- */
int omp_get_num_devices(void);
int omp_get_initial_device(void);
int omp_is_initial_device(void);
int omp_get_device_num(void);
void omp_set_default_device(int device_num);
int omp_get_default_device(void);
/* OpenMP 6.0: "HOST" for the initial device, "<plugin>-<n>" for a device
 * ("simdevice-0"); NULL for omp_invalid_device (-2); a UID nobody has gives
 * omp_invalid_device. */
const char *omp_get_uid_from_device(int device_num);
int omp_get_device_from_uid(const char *device_uid);

/* ---- device memory routines ----------------------------------------- */
void *omp_target_alloc(size_t size, int device_num);
void omp_target_free(void *device_ptr, int device_num);
/* LLVM's extensions: memory of one kind (the plugin says whether it has
 * that kind; simdevice's host and shared memory is mapped in both processes
 * at the same address). */
void *llvm_omp_target_alloc_device(size_t size, int device_num);
void *llvm_omp_target_alloc_host(size_t size, int device_num);
void *llvm_omp_target_alloc_shared(size_t size, int device_num);
void llvm_omp_target_free_device(void *device_ptr, int device_num);
void llvm_omp_target_free_host(void *device_ptr, int device_num);
void llvm_omp_target_free_shared(void *device_ptr, int device_num);
int omp_target_is_present(const void *ptr, int device_num);
int omp_target_memcpy(void *dst, const void *src, size_t length,
                      size_t dst_offset, size_t src_offset, int dst_device,
                      int src_device);
int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size,
                           int num_dims, const size_t *volume,
                           const size_t *dst_offsets, const size_t *src_offsets,
                           const size_t *dst_dimensions,
                           const size_t *src_dimensions, int dst_device,
                           int src_device);
int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr,
                             size_t size, size_t device_offset,
                             int device_num);
int omp_target_disassociate_ptr(const void *host_ptr, int device_num);
void *omp_get_mapped_ptr(const void *ptr, int device_num);
void *omp_target_memset(void *ptr, int value, size_t count, int device_num);
/* OpenMP 5.1/6.0. depobj_list holds omp_depend_t values (void *). */
int omp_target_is_accessible(const void *ptr, size_t size, int device_num);
int omp_target_memcpy_async(void *dst, const void *src, size_t length,
                            size_t dst_offset, size_t src_offset,
                            int dst_device, int src_device, int depobj_count,
                            void **depobj_list);
int omp_target_memcpy_rect_async(void *dst, const void *src,
                                 size_t element_size, int num_dims,
                                 const size_t *volume,
                                 const size_t *dst_offsets,
                                 const size_t *src_offsets,
                                 const size_t *dst_dimensions,
                                 const size_t *src_dimensions, int dst_device,
                                 int src_device, int depobj_count,
                                 void **depobj_list);
void *omp_target_memset_async(void *ptr, int value, size_t count,
                              int device_num, int depobj_count,
                              void **depobj_list);

#ifdef __cplusplus
}
#endif
#endif /* SIMTARGET_OMPTARGET_H */
