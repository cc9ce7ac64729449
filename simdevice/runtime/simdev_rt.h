/*
 * simdev_rt.h - the private launch API of the simdevice device runtime
 * (build/lib/simdevice/libomp.so.5), exported under version node SIMDEVICE_1.
 * The device server calls a kernel as
 *   simdev_rt_kernel_begin(nt, tl); simdev_call(kernel, n, args); simdev_rt_kernel_end();
 * (and, once it has replied, simdev_rt_kernel_prepare() for the next one)
 * on one of its own threads. Several launches may run at once on different
 * server threads; all per-launch state is thread-local or per team.
 */
#ifndef SIMDEVICE_RT_H
#define SIMDEVICE_RT_H

#include <stdint.h>

#define SIMDEV_MAX_ARGS 256
int simdev_call(void *fn, int nargs, const uint64_t *args);  /* -1 if nargs out of range */
/* Make the calling thread the initial thread of a new device launch. num_teams: clang's value
 * (<=0: runtime default), thread_limit likewise; both clamped to the caps. */
int simdev_rt_kernel_begin(int32_t num_teams, int32_t thread_limit);
void simdev_rt_kernel_end(void);
/* Optional: does the calling thread's part of its next kernel_begin that
 * depends on no launch value (resetting the launch's team and initial
 * thread), so that the server can run it after replying to a launch
 * instead of between the next request and its kernel. A kernel_begin
 * without it does the same itself. No effect while a launch runs. */
void simdev_rt_kernel_prepare(void);
/* The number of the device this process is (what omp_get_device_num returns
 * in device code); the server calls it once, before the first kernel. */
void simdev_rt_set_device_num(int32_t num);
/* Optional: for the launches this thread runs from now on, `sleeping`
 * (shared memory, or NULL: none) reads 0 while the thread that waits for
 * them spins on a CPU of this machine and nonzero while it sleeps. A
 * league of short teams, and a small parallel region, then leave that CPU
 * to the waiter while it spins: on 2 CPUs a second runner beside a
 * spinning waiter made a league of 256 teams slower than one runner
 * (parallel.c, adaptive_width.c). */
void simdev_rt_set_launch_waiter(const _Atomic uint32_t *sleeping);
/* Caps in force (after env and clamping), for the plugin's device info. */
void simdev_rt_limits(int32_t *max_teams, int32_t *max_threads);

/* declare target indirect (seed 003): the host -> device function table that
 * __kmpc_target_translate_fptr searches. The rows (sorted by host address)
 * are copied, so the caller keeps ownership; it may be called while kernels
 * run, from one thread at a time. count 0 clears the table. Returns 0, or -1
 * (no memory; said on stderr) with the previous table still in force. */
struct simdev_rt_fptr_row {
  uint64_t host;
  uint64_t device;
};
int simdev_rt_set_fptr_map(const struct simdev_rt_fptr_row *rows, uint64_t count);
/* What the libomp entry point `symbol`, which this runtime deliberately
 * does not define, is needed for (unsupported.def), or NULL when it is not
 * one of those. */
const char *simdev_rt_unsupported(const char *symbol);
/* The device address of host function `fn`, or fn itself (seed 003). */
void *__kmpc_target_translate_fptr(uint64_t fn);

#endif
