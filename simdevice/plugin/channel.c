/*
 * channel.c - one command round trip with the device process through the
 * shared slot (protocol.h), built for latency: the host spins briefly, then
 * sleeps on the futex with a 100 ms timeout and checks after each timeout
 * that the process is alive, so a dead device fails the call within a
 * fraction of a second and never hangs the host.
 *
 * Locking: the main-slot functions (channel_begin, channel_send,
 * channel_flush_protections, channel_log_protections) run under the
 * device's channel_lock, which makes the calling thread the slot's only
 * host-side user; they assert it. A queue slot belongs to the queue that
 * claimed it (queues.c): channel_queue_post runs under channel_lock only to
 * pin the process it posts to (asserted); channel_queue_state, _sleep and
 * _take_reply touch only that slot and take no lock; channel_queue_check_alive
 * takes channel_lock itself (with block = 0 only when it is free), because
 * it may reap the process and record its death.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_load.h"
#include "cpu_place.h"
#include "cpu_relax.h"
#include "valgrind_hints.h"
#include "plugin_faults.h"
#include "lock_check.h"
#include "plugin_internal.h"

#define HOST_SPINS 4000
/* Spins between two sched_yield()s while waiting for a reply (a power of
 * two). A reply from a server that has a core of its own comes within a few
 * dozen spins, so this costs nothing then; when the server shares this core
 * (more runnable threads than cores), every spin before the yield is time
 * it cannot run: 256 spins made an empty launch take 5-20 us on a loaded
 * 2-core machine. Fewer (16) made kernels of a few microseconds slower on
 * an idle one: each yield is a system call that delays seeing the reply. */
#define YIELD_EVERY 64

static void futex_wake(_Atomic uint32_t *word) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static const char *fault_verb(int kind) {
  switch (kind) {
  case SIMDEV_FAULT_WRITE: return "wrote";
  case SIMDEV_FAULT_EXEC: return "jumped to";
  default: return "read";
  }
}

/* The death cause of a process that left a fault record: which kernel
 * touched which address, and what that address is. */
static void describe_fault(struct sim_device *dev, const char *kernel) {
  const struct simdev_fault_record *f = &dev->ctl->fault;
  char where[256];
  uint64_t addr = f->address;
  if (addr >= dev->dev_base && addr - dev->dev_base < dev->capacity)
    allocator_describe(&dev->alloc, addr - dev->dev_base, where, sizeof where);
  else if (addr < PAGE_BYTES)
    snprintf(where, sizeof where, "null pointer: not device memory");
  else
    snprintf(where, sizeof where, "not device memory");
  const char *name = f->kernel_name[0] ? f->kernel_name : kernel;
  char what[700];
  if (f->sent && f->sender_pid == dev->pid)
    snprintf(what, sizeof what,
             "%s%.256s%s raised SIG%s itself (raise, kill or abort in device "
             "code; no memory access faulted)",
             name ? "kernel `" : "device code", name ? name : "",
             name ? "`" : "",
             sigabbrev_np(f->signal) ? sigabbrev_np(f->signal) : "?");
  else if (f->sent)
    snprintf(what, sizeof what,
             "device %d got SIG%s sent by process %d (kill)%s%.256s%s", dev->id,
             sigabbrev_np(f->signal) ? sigabbrev_np(f->signal) : "?",
             (int)f->sender_pid, name ? " while kernel `" : "",
             name ? name : "", name ? "` ran" : "");
  else if (f->sanitizer)
    snprintf(what, sizeof what,
             "AddressSanitizer in the device process: %.200s: %s%.160s%s %s "
             "address 0x%llx (%s)",
             f->sanitizer_summary[0] ? f->sanitizer_summary : "a bad access",
             name ? "kernel `" : "device code", name ? name : "",
             name ? "`" : "", fault_verb(f->kind), (unsigned long long)addr,
             where);
  else if (f->signal == SIGFPE)
    snprintf(what, sizeof what,
             "kernel `%.256s` raised an arithmetic exception (SIGFPE) at "
             "instruction 0x%llx",
             name ? name : "?", (unsigned long long)addr);
  else if (f->in_kernel || name != NULL)
    snprintf(what, sizeof what, "kernel `%.256s` %s address 0x%llx (%s)",
             name ? name : "?", fault_verb(f->kind), (unsigned long long)addr,
             where);
  else
    snprintf(what, sizeof what,
             "device %d's server %s address 0x%llx outside any kernel (%s)",
             dev->id, fault_verb(f->kind), (unsigned long long)addr, where);
  snprintf(dev->death_cause, sizeof dev->death_cause,
           "%.400s; device %d (pid %d) stopped with %s and restarts on its "
           "next use",
           what, dev->id, (int)dev->pid,
           f->sanitizer ? "the sanitizer's report" : strsignal(f->signal));
}

/* Turns the fault record of a dead process into the recorded error. */
static void report_fault(struct sim_device *dev, const char *kernel) {
  describe_fault(dev, kernel);
  plugin_error_fault(dev->ctl->fault.address, dev->ctl->fault.kind, 1, "%s",
                     dev->death_cause);
}

static int64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* Caller: channel_send, which asserts that it holds dev->channel_lock (a
 * second check here cost a thread-local lookup per command). */
static int round_trip(struct sim_device *dev, uint32_t command,
                      const char *kernel) {
  struct simdev_control *ctl = dev->ctl;
  struct simdev_slot *s = &ctl->slot;
  if (SIM_FAULT(CHANNEL_WRITE)) {
    plugin_error("simdevice: device %d: sending command %u failed (injected "
                 "channel_write fault)",
                 dev->id, command);
    return -1;
  }
  s->command = command;
  s->status = SIMDEV_STATUS_OK;
  const uint32_t here = cpu_place_here();
  cpu_place_publish(&s->host_cpu, here);
  atomic_store(&s->state, SIMDEV_SLOT_REQUEST);
  if (atomic_load(&ctl->server_sleeping))
    futex_wake(&s->state);

  uint32_t st = SIMDEV_SLOT_REQUEST;
  /* On a machine with more runnable threads than CPUs, spinning takes CPU
   * time from the server thread we wait for: sleep at once (cpu_load.h). */
  const int spins = cpu_load_oversubscribed() ? 0 : HOST_SPINS;
  for (int i = 0; i < spins; i++) {
    st = atomic_load_explicit(&s->state, memory_order_acquire);
    if (st != SIMDEV_SLOT_REQUEST)
      break;
    /* On few cores, let the server have the CPU: on this CPU by sleeping
     * (sched_yield() gives it the CPU only while the scheduler finds it
     * owed time), elsewhere by yielding to whatever runs here. */
    if ((i & (YIELD_EVERY - 1)) == 0 && cpu_place_shared(&s->server_cpu, here))
      break;
    cpu_relax();
    if ((i & (YIELD_EVERY - 1)) == YIELD_EVERY - 1)
      sched_yield();
  }
  int died = 0;
  /* The clock is read only when the reply is late (most arrive while
   * spinning): the watchdog measures from here. */
  int64_t sent_ns = st == SIMDEV_SLOT_REQUEST ? monotonic_ns() : 0;
  int slept = st == SIMDEV_SLOT_REQUEST;
  dev->stop_reported = 0; /* a stop is said once per command */
  while (st == SIMDEV_SLOT_REQUEST) {
    atomic_store(&s->host_sleeping, 1);
    st = atomic_load(&s->state);
    if (st != SIMDEV_SLOT_REQUEST)
      break;
    struct timespec timeout = {.tv_sec = 0, .tv_nsec = 100 * 1000000L};
    syscall(SYS_futex, (uint32_t *)&s->state, FUTEX_WAIT, SIMDEV_SLOT_REQUEST,
            &timeout, NULL, 0);
    st = atomic_load(&s->state);
    if (st != SIMDEV_SLOT_REQUEST)
      break;
    if (process_gone(dev)) {
      died = 1;
      break;
    }
    if (process_watch(dev, command == SIMDEV_CMD_RUN ? kernel : NULL,
                      monotonic_ns() - sent_ns) < 0) {
      atomic_store(&s->host_sleeping, 0);
      plugin_error_fault(0, 0, 1, "%s", dev->death_cause);
      return -1; /* timed out: ended and reaped */
    }
  }
  /* A sequentially consistent store is a locked instruction that waits for
   * the line: paid only by a host that announced its sleep. */
  if (slept)
    atomic_store(&s->host_sleeping, 0);
  if (!died && st == SIMDEV_SLOT_DONE) {
    int failed = s->status != SIMDEV_STATUS_OK;
    if (!failed && SIM_FAULT(CHANNEL_READ)) {
      failed = 1; /* the command ran, but its reply is lost */
      snprintf(s->message, sizeof s->message,
               "reading the reply to command %u failed (injected "
               "channel_read fault)",
               command);
    }
    if (failed)
      plugin_error("simdevice: device %d: %.450s", dev->id, s->message);
    /* Release suffices: nothing waits for IDLE (the server waits for
     * REQUEST), and a locked store would stall on the line the server is
     * polling. */
    atomic_store_explicit(&s->state, SIMDEV_SLOT_IDLE, memory_order_release);
    return failed ? -1 : 0;
  }
  /* FAULT, or the process vanished. */
  process_reap(dev, kernel);
  if (ctl->fault.valid)
    report_fault(dev, kernel);
  else
    plugin_error_fault(0, 0, 1, "%s", dev->death_cause);
  return -1;
}

int channel_send(struct sim_device *dev, uint32_t command, const char *kernel) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  struct simdev_slot *s = &dev->ctl->slot;
  if (atomic_load(&dev->ctl->guards_disabled)) {
    /* The server stopped guarding (protocol.h): drop what it would ignore. */
    while (allocator_take_protections(&dev->alloc, s->prot,
                                      SIMDEV_PROTO_MAX_PROT) > 0)
      ;
  }
  /* Most commands carry no protection change: a peek without the
   * allocator's lock says so. A change this command depends on was queued
   * before it, by this thread or one synchronised with it, so the peek sees
   * it; one queued concurrently goes with a later command, as it would if
   * it came a moment later. (Helgrind does not model the atomic peek.) */
  VALGRIND_HINT(VALGRIND_HG_DISABLE_CHECKING(&dev->alloc.pending.count,
                                             sizeof dev->alloc.pending.count));
  if (__atomic_load_n(&dev->alloc.pending.count, __ATOMIC_RELAXED) == 0) {
    s->prot_count = 0;
    return round_trip(dev, command, kernel);
  }
  for (;;) {
    s->prot_count = (uint32_t)allocator_take_protections(
        &dev->alloc, s->prot, SIMDEV_PROTO_MAX_PROT);
    if (s->prot_count < SIMDEV_PROTO_MAX_PROT)
      break;
    /* More changes than one command carries: send the rest with NOPs. */
    if (round_trip(dev, SIMDEV_CMD_NOP, NULL) != 0)
      return -1;
  }
  return round_trip(dev, command, kernel);
}

int channel_flush_protections(struct sim_device *dev) {
  return channel_send(dev, SIMDEV_CMD_NOP, NULL);
}

int channel_log_protections(struct sim_device *dev, uint64_t *upto) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  struct simdev_prot_log *log = &dev->ctl->prot_log;
  uint64_t head = atomic_load_explicit(&log->head, memory_order_relaxed);
  /* Unguarded, nothing is logged: the flush below drops the changes. */
  while (!atomic_load(&dev->ctl->guards_disabled)) {
    uint64_t used =
        head - atomic_load_explicit(&log->applied, memory_order_acquire);
    size_t at = (size_t)(head % SIMDEV_PROT_LOG_SIZE);
    size_t room = SIMDEV_PROT_LOG_SIZE - (size_t)used;
    if (room > SIMDEV_PROT_LOG_SIZE - at)
      room = SIMDEV_PROT_LOG_SIZE - at; /* up to the ring's end */
    size_t n = room ? allocator_take_protections(&dev->alloc, &log->ring[at],
                                                 room)
                    : 0;
    if (n == 0)
      break;
    head += n;
  }
  atomic_store_explicit(&log->head, head, memory_order_release);
  *upto = head;
  /* What did not fit goes through the main slot, which applies the log
   * first, so the order holds. */
  pthread_mutex_lock(&dev->alloc.lock);
  int pending = dev->alloc.pending.count > 0;
  pthread_mutex_unlock(&dev->alloc.lock);
  return pending ? channel_flush_protections(dev) : 0;
}

int channel_begin(struct sim_device *dev, uint64_t epoch_at_entry) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  if (!dev->dead && dev->pid > 0) {
    /* Only the supervisor's record here, no system call: this runs before
     * every command. A device whose supervisor died with it is found by
     * the wait for the reply (within its 100 ms timeout). */
    if (!atomic_load(&dev->ctl->server_exited))
      return 0;
    /* It died while idle: no command of this call is to blame, so restart
     * it as after any death and say when and how it died. */
    process_reap(dev, NULL);
    if (dev->ctl->fault.valid) {
      /* A kernel of a queue slot faulted: its record names it, and the
       * queue's own wait reads this cause (the restart clears the record). */
      describe_fault(dev, NULL);
    } else {
      char idle[SIMDEV_MESSAGE_SIZE];
      snprintf(idle, sizeof idle, "%.400s while idle (found before sending a "
               "command)", dev->death_cause);
      snprintf(dev->death_cause, sizeof dev->death_cause, "%s", idle);
    }
    epoch_at_entry = atomic_load(&dev->death_epoch);
  }
  if (dev->dead && atomic_load(&dev->death_epoch) != epoch_at_entry) {
    /* The device died while this call waited: it fails with the cause. */
    plugin_error_fault(dev->ctl->fault.valid ? dev->ctl->fault.address : 0,
                       dev->ctl->fault.valid ? dev->ctl->fault.kind : 0, 1,
                       "%s", dev->death_cause);
    return -1;
  }
  int was_dead = dev->dead;
  char cause[SIMDEV_MESSAGE_SIZE];
  snprintf(cause, sizeof cause, "%s", dev->death_cause);
  if (process_start(dev) != 0)
    return -1;
  if (allocator_requeue_live(&dev->alloc) != 0 || images_replay(dev) != 0) {
    process_stop(dev);
    dev->dead = 1;
    return -1;
  }
  if (was_dead) {
    dev->restarts++;
    fprintf(stderr,
            "simdevice: device %d restarted (pid %d, restart %u) after: %s; "
            "device memory kept, images reloaded, their globals reset\n",
            dev->id, (int)dev->pid, dev->restarts, cause);
  }
  return 0;
}

/* ---- queue slots (asynchronous kernels) -------------------------------- */

void channel_queue_post(struct sim_device *dev, int index) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  struct simdev_control *ctl = dev->ctl;
  struct simdev_slot *s = &ctl->queues[index];
  s->prot_count = 0; /* flushed through the main slot by the caller */
  dev->stop_reported = 0; /* a stop is said once per kernel */
  s->command = SIMDEV_CMD_RUN;
  s->status = SIMDEV_STATUS_OK;
  atomic_store(&s->state, SIMDEV_SLOT_REQUEST);
  if (atomic_load(&s->server_sleeping))
    futex_wake(&s->state);
}

uint32_t channel_queue_state(struct sim_device *dev, int index) {
  return atomic_load_explicit(&dev->ctl->queues[index].state,
                              memory_order_acquire);
}

void channel_queue_sleep(struct sim_device *dev, int index, long timeout_us) {
  struct simdev_slot *s = &dev->ctl->queues[index];
  const int spins = cpu_load_oversubscribed() ? 0 : HOST_SPINS;
  for (int i = 0; i < spins; i++) {
    if (atomic_load_explicit(&s->state, memory_order_acquire) !=
        SIMDEV_SLOT_REQUEST)
      return;
    cpu_relax();
  }
  atomic_store(&s->host_sleeping, 1);
  if (atomic_load(&s->state) == SIMDEV_SLOT_REQUEST) {
    struct timespec timeout = {.tv_sec = timeout_us / 1000000,
                               .tv_nsec = (timeout_us % 1000000) * 1000L};
    syscall(SYS_futex, (uint32_t *)&s->state, FUTEX_WAIT, SIMDEV_SLOT_REQUEST,
            &timeout, NULL, 0);
  }
  atomic_store(&s->host_sleeping, 0);
}

int channel_queue_take_reply(struct sim_device *dev, int index) {
  struct simdev_slot *s = &dev->ctl->queues[index];
  int failed = s->status != SIMDEV_STATUS_OK;
  if (failed)
    plugin_error("simdevice: device %d: %.450s", dev->id, s->message);
  atomic_store(&s->state, SIMDEV_SLOT_IDLE);
  return failed ? -1 : 0;
}

int channel_queue_check_alive(struct sim_device *dev, uint64_t epoch,
                              const char *kernel, int64_t waited_ns,
                              int block) {
  if (block)
    pthread_mutex_lock(&dev->channel_lock);
  else if (pthread_mutex_trylock(&dev->channel_lock) != 0)
    return 0; /* its holder is talking to the process: it notices a death */
  int rc = 0;
  if (atomic_load(&dev->death_epoch) == epoch && !dev->dead) {
    if (process_gone(dev)) {
      process_reap(dev, kernel);
      if (dev->ctl->fault.valid)
        report_fault(dev, kernel);
    } else if (process_watch(dev, kernel, waited_ns) > 0) {
      rc = 1;
    }
  }
  if (atomic_load(&dev->death_epoch) != epoch || dev->dead) {
    plugin_error_fault(dev->ctl->fault.valid ? dev->ctl->fault.address : 0,
                       dev->ctl->fault.valid ? dev->ctl->fault.kind : 0, 1,
                       "%s", dev->death_cause);
    rc = -1;
  }
  pthread_mutex_unlock(&dev->channel_lock);
  return rc;
}
