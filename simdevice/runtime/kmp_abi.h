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
