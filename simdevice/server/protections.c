/*
 * protections.c - which device memory device code may touch in this
 * process. The host decides (an allocation is accessible, the page after it
 * and freed memory are not: plugin/allocator.c) and sends the changes in the
 * shared log and in a slot's prot[] (protocol.h); this file applies them,
 * in one of two ways chosen once at start (protections_init), written to
 * ctl->guard_mode for the host:
 *
 *   guard regions (SIMDEV_GUARD_REGIONS; Linux 6.15 and later on shared
 *     memory): the low part of device memory, [0, watermark), is one
 *     PROT_READ|PROT_WRITE mapping whose inaccessible pages carry guard
 *     markers (madvise MADV_GUARD_INSTALL / _REMOVE: page-table entries that
 *     fault, no mapping of their own); the rest is PROT_NONE. The watermark
 *     only rises, in GROW_CHUNK steps, so the process has two mappings of
 *     device memory however many objects are live, and a change costs one
 *     range of a process_madvise that takes the changes of a command
 *     together (no mapping split, no vm.max_map_count limit).
 *   mprotect (SIMDEV_GUARD_MPROTECT; older kernels, qemu-user): each change
 *     is an mprotect, so each live guarded object splits the mapping twice;
 *     past vm.max_map_count mprotect fails.
 *
 * Either way, a change that fails makes all device memory accessible and
 * stops guarding for the life of the process, loudly (guards_disabled), so
 * every allocation stays usable.
 *
 * Locking: prot_lock guards prot_log.applied, the order in which changes
 * are applied (the main slot's thread and any queue slot's thread apply
 * them), `watermark` and the switch to guards_disabled. A reader of
 * `applied` or guards_disabled without it only skips work (atomics).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "server.h"
#include "valgrind_hints.h"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

/* Linux 6.13 (anonymous memory), 6.15 (shared memory); the values are the
 * same on every architecture. */
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif
#ifndef MADV_GUARD_REMOVE
#define MADV_GUARD_REMOVE 103
#endif

/* How far the read-write part grows past a change that needs it: markers
 * for 2 MiB are one page-table page and ~10 us, and the growth is one
 * mprotect that merges with the mapping below. */
#define GROW_CHUNK (2ull << 20)

static struct simdev_control *ctl;
static unsigned char *base; /* device memory, at ctl->dev_base */
static uint64_t page_bytes;
static uint32_t mode; /* enum simdev_guard_mode, set once before serving */

static pthread_mutex_t prot_lock = PTHREAD_MUTEX_INITIALIZER;
/* Guard regions: [0, watermark) is read-write with markers on every page
 * device code may not touch; [watermark, capacity) is PROT_NONE. */
static uint64_t watermark;

/* Guard regions: markers to install or remove, all of one kind, not yet
 * asked for. One process_madvise takes them all (half the cost of a
 * madvise each: 0.29 against 0.58 us per page-sized range on Linux 6.18),
 * in order, before a marker of the other kind, a growth of the watermark,
 * or the end of protections_apply: device code never sees the queue. */
#define BATCH_MAX 256
static struct iovec batch[BATCH_MAX];
static int batch_len, batch_advice;
static int self_pidfd = -1; /* for process_madvise; -1: a madvise each */

/* madvise on [off, end) of device memory; 0 or the errno. */
static int advise(uint64_t off, uint64_t end, int advice) {
  /* EINTR/EAGAIN: the kernel raced with a fault on the range; again. */
  for (int tries = 0;; tries++) {
    if (madvise(base + off, end - off, advice) == 0)
      return 0;
    if ((errno != EINTR && errno != EAGAIN) || tries == 8)
      return errno;
  }
}

static const char *advice_failed(int advice) {
  return advice == MADV_GUARD_INSTALL ? "installing guard regions"
                                      : "removing guard regions";
}

/* One process_madvise of `n` ranges through `pidfd`: 1 when the kernel
 * took all of them, 0 otherwise (or without the system call). */
static int advise_ranges(int pidfd, const struct iovec *ranges, int n,
                         int advice) {
#ifdef SYS_process_madvise
  size_t total = 0;
  for (int i = 0; i < n; i++)
    total += ranges[i].iov_len;
  return syscall(SYS_process_madvise, pidfd, ranges, (size_t)n, advice,
                 0u) == (long)total;
#else
  (void)pidfd, (void)ranges, (void)n, (void)advice;
  return 0;
#endif
}

/* Asks for the queued markers; 0, or the errno with *what set. */
static int flush_batch(const char **what) {
  int n = batch_len;
  batch_len = 0;
  if (n == 0)
    return 0;
  if (self_pidfd >= 0 && advise_ranges(self_pidfd, batch, n, batch_advice))
    return 0;
  /* Without it, or after a short or failed one: a madvise each, which
   * names the range that fails (installing or removing again is no
   * change). */
  for (int i = 0; i < n; i++) {
    uint64_t off = (uint64_t)((unsigned char *)batch[i].iov_base - base);
    int err = advise(off, off + batch[i].iov_len, batch_advice);
    if (err != 0) {
      *what = advice_failed(batch_advice);
      return err;
    }
  }
  return 0;
}

/* Queues markers on [off, end) to install or remove (`advice`). */
static int queue_markers(uint64_t off, uint64_t end, int advice,
                         const char **what) {
  if (batch_len > 0 && (batch_advice != advice || batch_len == BATCH_MAX)) {
    int err = flush_batch(what);
    if (err != 0)
      return err;
  }
  struct iovec *prev = batch_len > 0 ? &batch[batch_len - 1] : NULL;
  if (prev != NULL &&
      (unsigned char *)prev->iov_base + prev->iov_len == base + off) {
    prev->iov_len += end - off; /* adjoins the last range */
    return 0;
  }
  batch[batch_len].iov_base = base + off;
  batch[batch_len].iov_len = end - off;
  batch_len++;
  batch_advice = advice;
  return 0;
}

/* Makes all device memory accessible and stops guarding (under prot_lock,
 * or before any thread serves): `err` and `what` say what failed. */
static void disable_guards(int err, const char *what) {
  batch_len = 0; /* what was queued no longer matters */
  if (atomic_load(&ctl->guards_disabled))
    return;
  /* First accessible, then without markers: no page that should be
   * accessible is ever less so. */
  int rc = mprotect(base, ctl->capacity, PROT_READ | PROT_WRITE);
  int rc_errno = errno;
  if (rc == 0 && mode == SIMDEV_GUARD_REGIONS) {
    rc = advise(0, ctl->capacity, MADV_GUARD_REMOVE);
    rc_errno = rc;
  }
  atomic_store(&ctl->guards_disabled, 1);
  fprintf(stderr,
          "simdevice-server: device %d: guard pages turned off: %s failed "
          "(%s%s)\n",
          ctl->device_id, what, strerror(err),
          mode == SIMDEV_GUARD_MPROTECT
              ? "; too many live allocations for vm.max_map_count?"
              : "");
  if (rc != 0)
    fprintf(stderr,
            "simdevice-server: device %d: and making all device memory "
            "accessible failed too (%s): kernels that touch it fault\n",
            ctl->device_id, strerror(rc_errno));
}

/* Guard regions: makes [off, end) accessible. Whatever lies above the
 * watermark is PROT_NONE, so the new part gets its markers first, then
 * becomes read-write, and only then loses the markers of this change:
 * no page is ever accessible that should not be. */
static int open_with_guard_regions(uint64_t off, uint64_t end,
                                   const char **what) {
  uint64_t below = watermark;
  if (end > watermark) {
    /* In order: what is queued first (it all lies below the watermark). */
    int err = flush_batch(what);
    if (err != 0)
      return err;
    uint64_t grown = (end + GROW_CHUNK - 1) & ~(GROW_CHUNK - 1);
    if (grown > ctl->capacity || grown < end)
      grown = ctl->capacity;
    /* The change's own part above the watermark needs no markers: it is
     * meant to become accessible with the mprotect. */
    uint64_t from = off > watermark ? off : watermark;
    if (from > watermark)
      err = advise(watermark, from, MADV_GUARD_INSTALL);
    if (err == 0 && grown > end)
      err = advise(end, grown, MADV_GUARD_INSTALL);
    if (err != 0) {
      *what = "installing guard regions";
      return err;
    }
    if (mprotect(base + watermark, grown - watermark,
                 PROT_READ | PROT_WRITE) != 0) {
      *what = "making the guarded part of device memory read-write";
      return errno;
    }
    watermark = grown;
  }
  if (off < below)
    return queue_markers(off, end < below ? end : below, MADV_GUARD_REMOVE,
                         what);
  return 0;
}

/* Guard regions: makes [off, end) inaccessible; above the watermark it is
 * already. */
static int close_with_guard_regions(uint64_t off, uint64_t end,
                                    const char **what) {
  if (off >= watermark)
    return 0;
  return queue_markers(off, end < watermark ? end : watermark,
                       MADV_GUARD_INSTALL, what);
}

/* ASan's entry points, when its runtime runs this process (device code
 * built with -fsanitize=address: server/sanitizer.c). */
extern void __asan_poison_memory_region(const volatile void *, size_t)
    __attribute__((weak));
extern void __asan_unpoison_memory_region(const volatile void *, size_t)
    __attribute__((weak));

/* Which bytes of an allocation ASan lets device code use (protocol.h). */
static void apply_asan_change(const struct simdev_prot_change *c) {
  if (__asan_poison_memory_region == NULL || c->offset >= ctl->capacity ||
      c->length > ctl->capacity - c->offset || c->length == 0)
    return;
  if (c->access == SIMDEV_ACCESS_ASAN_POISON)
    __asan_poison_memory_region(base + c->offset, c->length);
  else
    __asan_unpoison_memory_region(base + c->offset, c->length);
}

/* Applies one change (under prot_lock). */
static void apply_change(const struct simdev_prot_change *c) {
  if (c->access == SIMDEV_ACCESS_NONE ||
      c->access == SIMDEV_ACCESS_ASAN_POISON ||
      c->access == SIMDEV_MARK_NOACCESS)
    names_drop(c->offset, c->length); /* freed, or not yet handed out */
  if (memcheck_apply(c)) /* a memcheck mark, not a protection */
    return;
  if (c->access == SIMDEV_ACCESS_ASAN_POISON ||
      c->access == SIMDEV_ACCESS_ASAN_UNPOISON) {
    apply_asan_change(c);
    return;
  }
  if (atomic_load(&ctl->guards_disabled) || c->offset >= ctl->capacity ||
      c->length > ctl->capacity - c->offset || c->length == 0)
    return;
  uint64_t off = c->offset, end = c->offset + c->length;
  const char *what = "changing protections";
  int err;
  if (mode == SIMDEV_GUARD_REGIONS)
    err = c->access ? open_with_guard_regions(off, end, &what)
                    : close_with_guard_regions(off, end, &what);
  else
    err = mprotect(base + off, end - off,
                   c->access ? PROT_READ | PROT_WRITE : PROT_NONE) == 0
              ? 0
              : errno;
  if (err != 0)
    disable_guards(err, what);
  else if (c->access)
    /* Helgrind and DRD (SIMDEVICE_VALGRIND) do not watch memory that was
     * PROT_NONE when mapped and became accessible later: from here on,
     * kernels' races on it are reported (and an earlier kernel's accesses
     * to reused memory forgotten). */
    VALGRIND_HINT(VALGRIND_HG_ENABLE_CHECKING(base + off, end - off));
}

/* Asks for the queued markers (under prot_lock); a failure turns the
 * guards off. */
static void flush_or_disable(void) {
  const char *what = "changing protections";
  int err = flush_batch(&what);
  if (err != 0)
    disable_guards(err, what);
}

void protections_apply(struct simdev_slot *s, int queue_slot) {
  struct simdev_prot_log *log = &ctl->prot_log;
  uint64_t head = atomic_load_explicit(&log->head, memory_order_acquire);
  uint64_t upto = queue_slot ? s->prot_upto : head;
  if (upto > head)
    upto = head;
  uint32_t count = s->prot_count;
  if (count > SIMDEV_PROTO_MAX_PROT)
    count = SIMDEV_PROTO_MAX_PROT;
  /* The common launch: nothing to apply, no lock. */
  if (count == 0 &&
      atomic_load_explicit(&log->applied, memory_order_acquire) >= upto)
    return;
  pthread_mutex_lock(&prot_lock);
  /* The log first: its changes are older than prot[]'s (protocol.h). */
  uint64_t n = atomic_load_explicit(&log->applied, memory_order_relaxed);
  for (; n < upto; n++)
    apply_change(&log->ring[n % SIMDEV_PROT_LOG_SIZE]);
  /* Queued markers asked for before `applied` says so: a queue slot's
   * thread that reads it without the lock runs its kernel at once. */
  flush_or_disable();
  atomic_store_explicit(&log->applied, n, memory_order_release);
  for (uint32_t i = 0; i < count; i++)
    apply_change(&s->prot[i]);
  flush_or_disable();
  pthread_mutex_unlock(&prot_lock);
  /* Cleared only when set: `prot_count` shares its cache line with `state`,
   * which the host is polling, and every store takes the line from it. */
  if (count != 0)
    s->prot_count = 0;
}

/* 1 when this process can read the byte at `p`, 0 when the kernel says
 * EFAULT, -1 when it cannot tell. process_vm_readv walks the page tables as
 * the kernel would for a fault, but fails instead of faulting. */
static int readable(const void *p) {
  char byte;
  struct iovec local = {.iov_base = &byte, .iov_len = 1};
  struct iovec remote = {.iov_base = (void *)p, .iov_len = 1};
  ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (n == 1)
    return 1;
  return n < 0 && errno == EFAULT ? 0 : -1;
}

/* Whether guard markers work on a shared mapping of device memory's memfd,
 * asked for with madvise (`pidfd` < 0) or process_madvise through `pidfd`:
 * tried on a scratch mapping of its first page in the order that
 * open_with_guard_regions uses them (markers on PROT_NONE, then
 * read-write), so the device memory mapping keeps no trace of the probe.
 * Not only the return values: qemu-user returns 0 for advice it does not
 * know, and Linux before 6.15 fails with EINVAL on shared memory. */
static int markers_work(int memory_fd, int pidfd) {
  void *p = mmap(NULL, page_bytes, PROT_NONE, MAP_SHARED, memory_fd, 0);
  if (p == MAP_FAILED)
    return 0;
  struct iovec one = {.iov_base = p, .iov_len = page_bytes};
  int works =
      (pidfd < 0 ? madvise(p, page_bytes, MADV_GUARD_INSTALL) == 0
                 : advise_ranges(pidfd, &one, 1, MADV_GUARD_INSTALL)) &&
      mprotect(p, page_bytes, PROT_READ | PROT_WRITE) == 0 &&
      readable(p) == 0 &&
      (pidfd < 0 ? madvise(p, page_bytes, MADV_GUARD_REMOVE) == 0
                 : advise_ranges(pidfd, &one, 1, MADV_GUARD_REMOVE)) &&
      readable(p) == 1;
  munmap(p, page_bytes);
  return works;
}

/* Guard regions: a pidfd of this process when process_madvise takes the
 * guard advice for it (Linux 6.13 lets a process give itself any advice);
 * else -1. */
static int open_self_for_batches(int memory_fd) {
#if defined(SYS_process_madvise) && defined(SYS_pidfd_open)
  /* Valgrind 3.19 (SIMDEVICE_WRAPPER) knows neither system call and
   * warns about each: a madvise each there. */
  if (RUNNING_ON_VALGRIND)
    return -1;
  int fd = (int)syscall(SYS_pidfd_open, getpid(), 0u);
  if (fd >= 0 && !markers_work(memory_fd, fd)) {
    close(fd);
    fd = -1;
  }
  return fd;
#else
  (void)memory_fd;
  return -1;
#endif
}

void protections_init(struct simdev_control *control, int memory_fd) {
  ctl = control;
  base = (unsigned char *)(uintptr_t)ctl->dev_base;
  long page = sysconf(_SC_PAGESIZE);
  page_bytes = page > 0 ? (uint64_t)page : 4096;
  /* Test hook (environment.c): the mprotect scheme where guard regions
   * work, so that it stays covered there too. */
  int force = 0;
#ifdef SIMTARGET_TEST_HOOKS
  force = environment_get()->test_guard_mprotect;
#endif
  if (!ctl->guard)
    mode = SIMDEV_GUARD_OFF;
  else if (!force && markers_work(memory_fd, -1))
    mode = SIMDEV_GUARD_REGIONS;
  else
    mode = SIMDEV_GUARD_MPROTECT;
  if (mode == SIMDEV_GUARD_REGIONS)
    self_pidfd = open_self_for_batches(memory_fd);
  ctl->guard_mode = mode;
  memcheck_init(ctl);
  names_init(ctl->dev_base, ctl->capacity);
}
