/*
 * faults.c - turns a crash of device code into a report the host can read.
 *
 * A process-wide handler for SIGSEGV, SIGBUS, SIGILL and SIGFPE writes the
 * signal, the faulting address, the access kind and the running kernel into
 * the shared fault record, marks the command slot FAULT, wakes the host and
 * _exits; an instruction fetch at a host function that has a device
 * version (declare target indirect) instead continues there. It runs on an
 * alternate stack for the server thread, so a kernel
 * that overflows its stack is reported too.
 *
 * Locking: none, and the handler never blocks. The running kernel is a
 * thread-local of the thread that called it (the main thread or a queue
 * slot's thread), so a fault there names that thread's kernel even while
 * other queue slots run others; a fault in a device runtime worker thread
 * (no kernel of its own) names the kernel started last (an atomic), which
 * is a guess only when several kernels run at once. The
 * entry names and the indirect table, which the main thread may replace
 * while kernels run on queue slots, are read through their snapshots
 * (images_entry_name, indirect_lookup; snapshot.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "server.h"

static struct simdev_control *fault_control;
static __thread uint64_t thread_kernel; /* the kernel this thread called */
static _Atomic uint64_t latest_kernel;  /* the kernel started last, if running */
static _Atomic int fault_taken;

void faults_set_running_kernel(uint64_t fn) {
  if (fn != 0) {
    thread_kernel = fn;
    /* Release, not a locked store (every launch): the fault handler runs
     * after it on this thread, or on a thread the kernel started since. */
    atomic_store_explicit(&latest_kernel, fn, memory_order_release);
    return;
  }
  uint64_t mine = thread_kernel;
  thread_kernel = 0;
  /* Clear the latest only if no kernel started after ours. */
  atomic_compare_exchange_strong(&latest_kernel, &mine, 0);
}

/* x86-64 page-fault error code: bit 1 write, bit 4 instruction fetch. */
static int access_kind(int sig, siginfo_t *info, void *uctx) {
  if (sig == SIGILL)
    return SIMDEV_FAULT_EXEC;
  if (sig == SIGFPE)
    return SIMDEV_FAULT_NONE;
#if defined(__x86_64__)
  ucontext_t *uc = uctx;
  if (uc != NULL && uc->uc_mcontext.gregs[REG_TRAPNO] == 14) {
    unsigned long err = (unsigned long)uc->uc_mcontext.gregs[REG_ERR];
    if (err & 0x10)
      return SIMDEV_FAULT_EXEC;
    return (err & 0x2) ? SIMDEV_FAULT_WRITE : SIMDEV_FAULT_READ;
  }
  uint64_t ip = uc ? (uint64_t)uc->uc_mcontext.gregs[REG_RIP] : 0;
  if (ip != 0 && ip == (uint64_t)info->si_addr)
    return SIMDEV_FAULT_EXEC;
#elif defined(__powerpc64__)
  return faults_ppc64le_access_kind(sig, info, uctx);
#else
  (void)uctx;
  (void)info;
#endif
  return SIMDEV_FAULT_READ;
}

/* declare target indirect: a kernel called a host function pointer. The
 * host address is never executable here (indirect.c), so the call faulted
 * fetching its first instruction; with a row for it, continue in the device
 * function: the arguments are untouched in registers and the call already
 * pushed the return address. Returns 1 when the thread may resume. */
static int redirect_host_call(int sig, siginfo_t *info, void *uctx) {
#if defined(__x86_64__)
  ucontext_t *uc = uctx;
  if (sig != SIGSEGV || uc == NULL)
    return 0;
  uint64_t ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
  if (ip == 0 || ip != (uint64_t)info->si_addr ||
      access_kind(sig, info, uctx) != SIMDEV_FAULT_EXEC)
    return 0;
  uint64_t device_fn = indirect_lookup(ip);
  if (device_fn == 0)
    return 0;
  uc->uc_mcontext.gregs[REG_RIP] = (greg_t)device_fn;
  return 1;
#elif defined(__powerpc64__)
  return faults_ppc64le_redirect(sig, info, uctx);
#else
  (void)sig;
  (void)info;
  (void)uctx;
  return 0;
#endif
}

void faults_record_sanitizer(uint64_t addr, int write, const char *summary) {
  if (atomic_exchange(&fault_taken, 1) != 0 || fault_control == NULL)
    return;
  struct simdev_fault_record *rec = &fault_control->fault;
  uint64_t kernel = thread_kernel ? thread_kernel : atomic_load(&latest_kernel);
  rec->signal = 0;
  rec->sanitizer = 1;
  size_t n = summary ? strcspn(summary, "\n") : 0;
  if (n >= sizeof rec->sanitizer_summary)
    n = sizeof rec->sanitizer_summary - 1;
  memcpy(rec->sanitizer_summary, summary ? summary : "", n);
  rec->sanitizer_summary[n] = '\0';
  rec->address = addr;
  rec->kind = write ? SIMDEV_FAULT_WRITE : SIMDEV_FAULT_READ;
  rec->kernel = kernel;
  rec->in_kernel = kernel != 0;
  images_entry_name(kernel, rec->kernel_name, sizeof rec->kernel_name);
  atomic_thread_fence(memory_order_seq_cst);
  rec->valid = 1;
  atomic_store(&fault_control->slot.state, SIMDEV_SLOT_FAULT);
  server_futex_wake(&fault_control->slot.state);
}

static void on_fault(int sig, siginfo_t *info, void *uctx) {
  /* si_code <= 0: sent by kill, raise or sigqueue, not by an instruction;
   * si_addr is then the sender's pid, no address. */
  int sent = info->si_code <= 0;
  if (!sent && redirect_host_call(sig, info, uctx))
    return;
  /* A second fault (another thread, or inside this handler) just exits. */
  if (atomic_exchange(&fault_taken, 1) != 0 || fault_control == NULL) {
    memcheck_before_exit();
    _exit(128 + sig);
  }
  struct simdev_fault_record *rec = &fault_control->fault;
  uint64_t kernel = thread_kernel ? thread_kernel : atomic_load(&latest_kernel);
  rec->signal = sig;
  rec->sent = sent;
  rec->sender_pid = sent ? (int32_t)info->si_pid : 0;
  rec->address = sent ? 0 : (uint64_t)info->si_addr;
  rec->kind = sent ? SIMDEV_FAULT_NONE : access_kind(sig, info, uctx);
#if defined(__powerpc64__) /* qemu gives no si_addr for a fetch */
  if (rec->kind == SIMDEV_FAULT_EXEC && rec->address == 0)
    rec->address = faults_ppc64le_pc(uctx);
#endif
  rec->kernel = kernel;
  rec->in_kernel = kernel != 0;
  images_entry_name(kernel, rec->kernel_name, sizeof rec->kernel_name);
  atomic_thread_fence(memory_order_seq_cst);
  rec->valid = 1;
  atomic_store(&fault_control->slot.state, SIMDEV_SLOT_FAULT);
  server_futex_wake(&fault_control->slot.state);
  memcheck_before_exit();
  _exit(128 + sig);
}

int faults_install(struct simdev_control *ctl, char *msg, size_t len) {
  static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
  /* The main thread's signal stack lives as long as the process. */
  static char alt_stack[1u << 16] __attribute__((aligned(64)));
  stack_t alt = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack,
                 .ss_flags = 0};
  if (sigaltstack(&alt, NULL) != 0) {
    snprintf(msg, len, "simdevice-server: sigaltstack failed: %s",
             strerror(errno));
    return -1;
  }
  fault_control = ctl;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigfillset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
    if (sigaction(signals[i], &sa, NULL) != 0) {
      snprintf(msg, len, "simdevice-server: sigaction(%d) failed: %s",
               signals[i], strerror(errno));
      return -1; /* the alternate stack stays installed: the process exits */
    }
  }
  return 0;
}
