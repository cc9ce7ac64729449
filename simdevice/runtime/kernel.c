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
#include "rt_internal.h"
#include "simdev_rt.h"

/* The launch begun on this thread by simdev_rt_kernel_begin. The team's
 * lock and condition variable are created by the thread's first launch and
 * kept (free) between launches (`sync_ready`): creating and destroying them
 * was a third of the device's work for an empty kernel. */
static __thread struct {
  int active;
  int sync_ready;
  int prepared; /* team and member reset for the next launch already */
  struct rt_team team;
  struct rt_member member;
} launch;

int simdev_rt_kernel_begin(int32_t num_teams, int32_t thread_limit)
{
  if (launch.active) {
    rt_error("simdev_rt_kernel_begin: a launch is already running on this thread "
             "(kernel_begin called twice without kernel_end)");
    return -1;
  }
  if (!launch.prepared)
    simdev_rt_kernel_prepare();
  launch.prepared = 0;
  rt_launch_context_set(&launch.team, &launch.member, num_teams, thread_limit);
  launch.member.prev = rt_current_or_null();
  launch.active = 1;
  rt_set_current(&launch.member);
  return 0;
}

void simdev_rt_kernel_prepare(void)
{
  if (launch.active || launch.prepared)
    return;
  rt_gtid();
  /* The team is free: the last launch's barrier was its last use. */
  rt_launch_context_reset(&launch.team, &launch.member, launch.sync_ready);
  launch.sync_ready = 1;
  launch.prepared = 1;
}

void simdev_rt_kernel_end(void)
{
  if (!launch.active) {
    rt_error("simdev_rt_kernel_end: no launch is running on this thread");
    return;
  }
  if (rt_current_or_null() != &launch.member)
    rt_error("simdev_rt_kernel_end: the kernel left a parallel region or a serialized "
             "region open; resetting the thread's context");
  /* Tasks the kernel deferred at level 0 complete before the launch ends. */
  rt_team_barrier(&launch.team);
  /* The lock and condition variable stay for the next launch (free now:
   * the barrier was the team's last use). */
  rt_set_current(launch.member.prev);
  launch.active = 0;
}
