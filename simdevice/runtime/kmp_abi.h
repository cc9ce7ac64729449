/*
 * kmp_abi.h - every libomp entry point this device runtime defines, as
 * device code calls it (the names exports.map exports). Declared once here
 * so that each definition is checked against its declaration
 * (-Wmissing-prototypes), and so that the list of what device code can call
 * is one file to read. Grouped by the file that defines them.
 */
#ifndef SIMDEVICE_KMP_ABI_H
#define SIMDEVICE_KMP_ABI_H

#include <stddef.h>
#include <stdint.h>

/* The types of the ABI (libomp's names). */
typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);
typedef int32_t (*kmp_routine_entry_t)(int32_t gtid, void *task);
typedef struct {
  void *impl;
} omp_lock_t;
typedef struct {
  void *impl;
} omp_nest_lock_t;
typedef long double float10;
typedef float _Complex cmplx4;
typedef double _Complex cmplx8;
typedef long double _Complex cmplx10;

/* lock.c */
void __kmpc_critical(ident_t *loc, int32_t gtid, kmp_critical_name *crit);
void __kmpc_critical_with_hint(ident_t *loc, int32_t gtid,
                               kmp_critical_name *crit, uint32_t hint);
void __kmpc_end_critical(ident_t *loc, int32_t gtid, kmp_critical_name *crit);
void omp_init_lock(omp_lock_t *l);
void omp_init_lock_with_hint(omp_lock_t *l, int hint);
void omp_destroy_lock(omp_lock_t *l);
void omp_set_lock(omp_lock_t *l);
void omp_unset_lock(omp_lock_t *l);
int omp_test_lock(omp_lock_t *l);
void omp_init_nest_lock(omp_nest_lock_t *l);
void omp_init_nest_lock_with_hint(omp_nest_lock_t *l, int hint);
void omp_destroy_nest_lock(omp_nest_lock_t *l);
void omp_set_nest_lock(omp_nest_lock_t *l);
int omp_test_nest_lock(omp_nest_lock_t *l);
void omp_unset_nest_lock(omp_nest_lock_t *l);
void __kmpc_init_lock(ident_t *loc, int32_t gtid, void **lock);
void __kmpc_init_lock_with_hint(ident_t *loc, int32_t gtid, void **lock,
                                uintptr_t hint);
void __kmpc_destroy_lock(ident_t *loc, int32_t gtid, void **lock);
void __kmpc_set_lock(ident_t *loc, int32_t gtid, void **lock);
void __kmpc_unset_lock(ident_t *loc, int32_t gtid, void **lock);
int __kmpc_test_lock(ident_t *loc, int32_t gtid, void **lock);
void __kmpc_init_nest_lock(ident_t *loc, int32_t gtid, void **lock);
void __kmpc_init_nest_lock_with_hint(ident_t *loc, int32_t gtid, void **lock,
                                     uintptr_t hint);
void __kmpc_destroy_nest_lock(ident_t *loc, int32_t gtid, void **lock);
void __kmpc_set_nest_lock(ident_t *loc, int32_t gtid, void **lock);
void __kmpc_unset_nest_lock(ident_t *loc, int32_t gtid, void **lock);
int __kmpc_test_nest_lock(ident_t *loc, int32_t gtid, void **lock);

/* loop.c */
void __kmpc_ordered(ident_t *loc, int32_t gtid);
void __kmpc_end_ordered(ident_t *loc, int32_t gtid);
void __kmpc_dispatch_deinit(ident_t *loc, int32_t gtid);
void __kmpc_for_static_fini(ident_t *loc, int32_t gtid);

/* omp_api.c */
int omp_get_num_teams(void);
int omp_get_team_num(void);
int omp_get_num_threads(void);
int omp_get_thread_num(void);
int omp_get_level(void);
int omp_get_active_level(void);
int omp_in_parallel(void);
int omp_get_thread_limit(void);
int omp_get_teams_thread_limit(void);
int omp_get_max_teams(void);
int omp_get_max_threads(void);
void omp_set_num_threads(int n);
int omp_get_num_procs(void);
int omp_get_dynamic(void);
void omp_set_dynamic(int on);
int omp_get_nested(void);
void omp_set_nested(int on);
int omp_get_max_active_levels(void);
void omp_set_max_active_levels(int n);
int omp_get_cancellation(void);
int omp_get_team_size(int level);
int omp_get_ancestor_thread_num(int level);
double omp_get_wtime(void);
double omp_get_wtick(void);
int omp_is_initial_device(void);
int omp_get_num_devices(void);
int omp_get_initial_device(void);
int omp_get_default_device(void);
void omp_set_default_device(int dev);
int omp_get_device_num(void);
void omp_set_num_teams(int n);
void omp_set_teams_thread_limit(int n);
int omp_get_supported_active_levels(void);
int omp_get_max_task_priority(void);
void omp_set_schedule(int kind, int chunk);
void omp_get_schedule(int *kind, int *chunk);
int omp_get_proc_bind(void);
int omp_get_num_places(void);
int omp_get_place_num_procs(int place);
void omp_get_place_proc_ids(int place, int *ids);
int omp_get_place_num(void);
int omp_get_partition_num_places(void);
void omp_get_partition_place_nums(int *place_nums);
int omp_pause_resource(int kind, int device_num);
int omp_pause_resource_all(int kind);
int omp_control_tool(int command, int modifier, void *arg);

/* display.c */
void omp_set_affinity_format(const char *format);
size_t omp_get_affinity_format(char *buffer, size_t size);
size_t omp_capture_affinity(char *buffer, size_t size, const char *format);
void omp_display_affinity(const char *format);
void omp_display_env(int verbose);

/* parallel.c */
int32_t __kmpc_global_thread_num(ident_t *loc);
int32_t __kmpc_global_num_threads(ident_t *loc);
int32_t __kmpc_bound_thread_num(ident_t *loc);
int32_t __kmpc_bound_num_threads(ident_t *loc);
int32_t __kmpc_in_parallel(ident_t *loc);
int32_t __kmpc_ok_to_fork(ident_t *loc);
void __kmpc_begin(ident_t *loc, int32_t flags);
void __kmpc_end(ident_t *loc);
void __kmpc_push_num_threads(ident_t *loc, int32_t gtid, int32_t n);
void __kmpc_push_proc_bind(ident_t *loc, int32_t gtid, int proc_bind);
void __kmpc_push_num_teams(ident_t *loc, int32_t gtid, int32_t num_teams,
                           int32_t thread_limit);
void __kmpc_push_num_teams_51(ident_t *loc, int32_t gtid, int32_t lb,
                              int32_t ub, int32_t thread_limit);
void __kmpc_set_thread_limit(ident_t *loc, int32_t gtid, int32_t limit);
void __kmpc_fork_call(ident_t *loc, int32_t argc, kmpc_micro microtask, ...);
void __kmpc_fork_call_if(ident_t *loc, int32_t argc, kmpc_micro microtask,
                         int32_t cond, void *args);
void __kmpc_serialized_parallel(ident_t *loc, int32_t gtid);
void __kmpc_end_serialized_parallel(ident_t *loc, int32_t gtid);
void __kmpc_fork_teams(ident_t *loc, int32_t argc, kmpc_micro microtask, ...);
void __kmpc_push_num_threads_strict(ident_t *loc, int32_t gtid, int32_t n,
                                    int32_t severity, const char *message);
void __kmpc_push_num_threads_list(ident_t *loc, int32_t gtid, uint32_t length,
                                  const uint32_t *list);
void __kmpc_push_num_threads_list_strict(ident_t *loc, int32_t gtid,
                                         uint32_t length, const uint32_t *list,
                                         int32_t severity,
                                         const char *message);
void __kmpc_pop_num_threads(ident_t *loc, int32_t gtid);

/* reduce.c */
int32_t __kmpc_reduce_nowait(ident_t *loc, int32_t gtid, int32_t num_vars,
                             size_t reduce_size, void *reduce_data,
                             void (*reduce_func)(void *, void *),
                             kmp_critical_name *lck);
void __kmpc_end_reduce_nowait(ident_t *loc, int32_t gtid,
                              kmp_critical_name *lck);
int32_t __kmpc_reduce(ident_t *loc, int32_t gtid, int32_t num_vars,
                      size_t reduce_size, void *reduce_data,
                      void (*reduce_func)(void *, void *),
                      kmp_critical_name *lck);
void __kmpc_end_reduce(ident_t *loc, int32_t gtid, kmp_critical_name *lck);
void __kmpc_atomic_start(void);
void __kmpc_atomic_end(void);

/* sync.c */
void __kmpc_barrier(ident_t *loc, int32_t gtid);
int32_t __kmpc_cancel_barrier(ident_t *loc, int32_t gtid);
int32_t __kmpc_cancel(ident_t *loc, int32_t gtid, int32_t kind);
int32_t __kmpc_cancellationpoint(ident_t *loc, int32_t gtid, int32_t kind);
int32_t __kmpc_single(ident_t *loc, int32_t gtid);
void __kmpc_end_single(ident_t *loc, int32_t gtid);
int32_t __kmpc_master(ident_t *loc, int32_t gtid);
void __kmpc_end_master(ident_t *loc, int32_t gtid);
int32_t __kmpc_masked(ident_t *loc, int32_t gtid, int32_t filter);
void __kmpc_end_masked(ident_t *loc, int32_t gtid);
void __kmpc_flush(ident_t *loc);
void __kmpc_copyprivate(ident_t *loc, int32_t gtid, size_t cpy_size,
                        void *cpy_data, void (*cpy_func)(void *, void *),
                        int32_t didit);
void __kmpc_scope(ident_t *loc, int32_t gtid, void *reserved);
void __kmpc_end_scope(ident_t *loc, int32_t gtid, void *reserved);
void __kmpc_error(ident_t *loc, int severity, const char *message);

/* task.c */
void *__kmpc_omp_task_alloc(ident_t *loc, int32_t gtid, int32_t flags,
                            size_t sizeof_kmp_task_t, size_t sizeof_shareds,
                            kmp_routine_entry_t task_entry);
int32_t __kmpc_omp_task(ident_t *loc, int32_t gtid, void *new_task);
int32_t __kmpc_omp_task_with_deps(ident_t *loc, int32_t gtid, void *new_task,
                                  int32_t ndeps, void *dep_list,
                                  int32_t ndeps_noalias,
                                  void *noalias_dep_list);
void __kmpc_omp_wait_deps(ident_t *loc, int32_t gtid, int32_t ndeps,
                          void *dep_list, int32_t ndeps_noalias,
                          void *noalias_dep_list);
void __kmpc_omp_task_begin_if0(ident_t *loc, int32_t gtid, void *task);
void __kmpc_omp_task_complete_if0(ident_t *loc, int32_t gtid, void *task);
int32_t __kmpc_omp_taskwait(ident_t *loc, int32_t gtid);
int32_t __kmpc_omp_taskyield(ident_t *loc, int32_t gtid, int end_part);
void __kmpc_taskgroup(ident_t *loc, int32_t gtid);
void __kmpc_end_taskgroup(ident_t *loc, int32_t gtid);
int omp_in_final(void);
int32_t __kmpc_omp_reg_task_with_affinity(ident_t *loc, int32_t gtid,
                                          void *new_task, int32_t naffins,
                                          void *affin_list);
void __kmpc_omp_taskwait_deps_51(ident_t *loc, int32_t gtid, int32_t ndeps,
                                 void *dep_list, int32_t ndeps_noalias,
                                 void *noalias_dep_list, int32_t has_no_wait);
int omp_in_explicit_task(void);

/* taskloop.c */
void __kmpc_taskloop(ident_t *loc, int32_t gtid, void *task, int32_t if_val,
                     uint64_t *lb, uint64_t *ub, int64_t st, int32_t nogroup,
                     int32_t sched, uint64_t grainsize, void *task_dup);
void __kmpc_taskloop_5(ident_t *loc, int32_t gtid, void *task, int32_t if_val,
                       uint64_t *lb, uint64_t *ub, int64_t st, int32_t nogroup,
                       int32_t sched, uint64_t grainsize, int32_t modifier,
                       void *task_dup);

/* taskred.c */
void *__kmpc_taskred_init(int32_t gtid, int32_t num, void *data);
void *__kmpc_task_reduction_init(int32_t gtid, int32_t num, void *data);
void *__kmpc_task_reduction_get_th_data(int32_t gtid, void *tskgrp,
                                        void *data);
void *__kmpc_taskred_modifier_init(ident_t *loc, int32_t gtid, int32_t is_ws,
                                   int32_t num, void *data);
void *__kmpc_task_reduction_modifier_init(ident_t *loc, int32_t gtid,
                                          int32_t is_ws, int32_t num,
                                          void *data);
void __kmpc_task_reduction_modifier_fini(ident_t *loc, int32_t gtid,
                                         int32_t is_ws);

/* alloc.c: allocator handles and memory spaces are uintptr_t (libomp's
 * omp_allocator_handle_t / omp_memspace_handle_t); the predefined ones are
 * also exported as constants, as libomp does for Fortran. */
extern const uintptr_t omp_null_allocator, omp_default_mem_alloc,
    omp_large_cap_mem_alloc, omp_const_mem_alloc, omp_high_bw_mem_alloc,
    omp_low_lat_mem_alloc, omp_cgroup_mem_alloc, omp_pteam_mem_alloc,
    omp_thread_mem_alloc, omp_default_mem_space, omp_large_cap_mem_space,
    omp_const_mem_space, omp_high_bw_mem_space, omp_low_lat_mem_space;
void *omp_alloc(size_t size, uintptr_t allocator);
void *omp_aligned_alloc(size_t align, size_t size, uintptr_t allocator);
void *omp_calloc(size_t n, size_t size, uintptr_t allocator);
void *omp_aligned_calloc(size_t align, size_t n, size_t size,
                         uintptr_t allocator);
void *omp_realloc(void *ptr, size_t size, uintptr_t allocator,
                  uintptr_t free_allocator);
void omp_free(void *ptr, uintptr_t allocator);
uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits,
                             const void *traits);
void omp_destroy_allocator(uintptr_t allocator);
void omp_set_default_allocator(uintptr_t allocator);
uintptr_t omp_get_default_allocator(void);
void *__kmpc_alloc(int32_t gtid, size_t size, uintptr_t allocator);
void *__kmpc_aligned_alloc(int32_t gtid, size_t align, size_t size,
                           uintptr_t allocator);
void *__kmpc_calloc(int32_t gtid, size_t n, size_t size, uintptr_t allocator);
void *__kmpc_realloc(int32_t gtid, void *ptr, size_t size,
                     uintptr_t allocator, uintptr_t free_allocator);
void __kmpc_free(int32_t gtid, void *ptr, uintptr_t allocator);
uintptr_t __kmpc_init_allocator(int32_t gtid, uintptr_t memspace, int ntraits,
                                const void *traits);
void __kmpc_destroy_allocator(int32_t gtid, uintptr_t allocator);
void __kmpc_set_default_allocator(int32_t gtid, uintptr_t allocator);
uintptr_t __kmpc_get_default_allocator(int32_t gtid);

/* loop.c: the typed loop entry points, one set per induction variable type
 * (T) and its signed stride type (ST). */
#define KMP_LOOP_ENTRY_DECLS(SUF, T, ST)                                       \
  void __kmpc_for_static_init_##SUF(ident_t *loc, int32_t gtid, int32_t sched, \
                                    int32_t *plast, T *plb, T *pub,            \
                                    ST *pstride, ST incr, ST chunk);           \
  void __kmpc_dist_for_static_init_##SUF(                                      \
      ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast, T *plb,       \
      T *pub, T *pupper_dist, ST *pstride, ST incr, ST chunk);                 \
  void __kmpc_team_static_init_##SUF(ident_t *loc, int32_t gtid,               \
                                     int32_t *plast, T *plb, T *pub,           \
                                     ST *pstride, ST incr, ST chunk);          \
  void __kmpc_dispatch_init_##SUF(ident_t *loc, int32_t gtid, int32_t sched,   \
                                  T lb, T ub, ST st, ST chunk);                \
  int __kmpc_dispatch_next_##SUF(ident_t *loc, int32_t gtid, int32_t *plast,   \
                                 T *plb, T *pub, ST *pst);                     \
  void __kmpc_dispatch_fini_##SUF(ident_t *loc, int32_t gtid);
KMP_LOOP_ENTRY_DECLS(4, int32_t, int32_t)
KMP_LOOP_ENTRY_DECLS(4u, uint32_t, int32_t)
KMP_LOOP_ENTRY_DECLS(8, int64_t, int64_t)
KMP_LOOP_ENTRY_DECLS(8u, uint64_t, int64_t)

/* reduce.c: lock-based atomics for types with no native atomics. */
#define KMP_ATOMIC_OP_DECLS(NAME, T)                                           \
  void __kmpc_atomic_##NAME(ident_t *loc, int32_t gtid, T *lhs, T rhs);        \
  T __kmpc_atomic_##NAME##_cpt(ident_t *loc, int32_t gtid, T *lhs, T rhs,      \
                               int flag);
#define KMP_ATOMIC_DECLS(PFX, T)                                               \
  KMP_ATOMIC_OP_DECLS(PFX##_add, T)                                            \
  KMP_ATOMIC_OP_DECLS(PFX##_sub, T)                                            \
  KMP_ATOMIC_OP_DECLS(PFX##_mul, T)                                            \
  KMP_ATOMIC_OP_DECLS(PFX##_div, T)                                            \
  T __kmpc_atomic_##PFX##_rd(ident_t *loc, int32_t gtid, T *src);              \
  void __kmpc_atomic_##PFX##_wr(ident_t *loc, int32_t gtid, T *lhs, T rhs);
KMP_ATOMIC_DECLS(float10, float10)
KMP_ATOMIC_DECLS(cmplx4, cmplx4)
KMP_ATOMIC_DECLS(cmplx8, cmplx8)
KMP_ATOMIC_DECLS(cmplx10, cmplx10)

#endif
