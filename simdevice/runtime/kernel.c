/*
 * kernel.c - the launch API of simdevice's device runtime (simdev_rt.h):
 * the server thread that runs a kernel begins a launch (an initial team of
 * one, the launch's num_teams and thread_limit), calls the kernel, ends the
 * launch (a barrier completes the tasks the kernel deferred) and prepares
 * the next one after its reply. Above sync.c, whose barrier it waits at;
 * the context itself is runtime.c's.
 *
 * Locks: none; everything here is thread-local (the launch of this thread).
 */
#include <stdlib.h>

#include "rt_internal.h"
#include "simdev_rt.h"

/* The launch begun on this thread by simdev_rt_kernel_begin. The team's
 * lock and condition variable are created by the thread's first launch and
 * kept (free) between launches (`sync_ready`): creating and destroying them
 * was a third of the device's work for an empty kernel.
 *
 * On the heap, not in TLS: with this library's thread-local data under
 * glibc's optional static TLS (512 bytes), the dynamic linker places it in
 * the static TLS block at dlopen, and each read of the current member (at
 * nearly every entry point) is an offset instead of a call to
 * _dl_tlsdesc_dynamic (issue 29: 8% of a GPU-shaped league's work). A
 * server thread, which prepares its next launch, keeps its state for the
 * process's life; another thread (the plugin's in-process mode) frees it at
 * the end of each launch, so a host thread that exits leaks nothing. */
struct launch_state {
  int active;
  int sync_ready;
  int prepared; /* team and member reset for the next launch already */
  int kept;     /* a server thread: simdev_rt_kernel_prepare was called */
  struct rt_team team;
  struct rt_member member;
};
static __thread struct launch_state *launch;

/* This thread's launch state, made at its first use; NULL (said on stderr)
 * without memory. */
static struct launch_state *launch_state(void)
{
  if (launch == NULL) {
    launch = calloc(1, sizeof(*launch));
    if (launch == NULL)
      rt_error("cannot begin a launch on this thread: out of memory for its context");
  }
  return launch;
}

/* The part of the next launch that depends on no launch value. */
static void launch_reset(struct launch_state *l)
{
  rt_gtid();
  /* The team is free: the last launch's barrier was its last use. */
  rt_launch_context_reset(&l->team, &l->member, l->sync_ready);
  l->sync_ready = 1;
  l->prepared = 1;
}

int simdev_rt_kernel_begin(int32_t num_teams, int32_t thread_limit)
{
  if (launch != NULL && launch->active) {
    rt_error("simdev_rt_kernel_begin: a launch is already running on this thread "
             "(kernel_begin called twice without kernel_end)");
    return -1;
  }
  struct launch_state *l = launch_state();
  if (l == NULL)
    return -1;
  if (!l->prepared)
    launch_reset(l);
  l->prepared = 0;
  rt_launch_context_set(&l->team, &l->member, num_teams, thread_limit);
  l->member.prev = rt_current_or_null();
  l->active = 1;
  rt_set_current(&l->member);
  return 0;
}

void simdev_rt_set_launch_waiter(const _Atomic uint32_t *sleeping)
{
  rt_set_launch_waiter(sleeping);
}

void simdev_rt_kernel_prepare(void)
{
  struct launch_state *l = launch_state();
  if (l == NULL || l->active || l->prepared)
    return;
  l->kept = 1;
  launch_reset(l);
}

void simdev_rt_kernel_end(void)
{
  struct launch_state *l = launch;
  if (l == NULL || !l->active) {
    rt_error("simdev_rt_kernel_end: no launch is running on this thread");
    return;
  }
  if (rt_current_or_null() != &l->member)
    rt_error("simdev_rt_kernel_end: the kernel left a parallel region or a serialized "
             "region open; resetting the thread's context");
  /* Tasks the kernel deferred at level 0 complete before the launch ends. */
  rt_team_barrier(&l->team);
  /* The lock and condition variable stay for the next launch (free now:
   * the barrier was the team's last use). */
  rt_set_current(l->member.prev);
  l->active = 0;
  if (!l->kept) {
    rt_team_destroy(&l->team);
    free(l);
    launch = NULL;
  }
}
