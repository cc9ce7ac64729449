/*
 * faults_ppc64le.c - what a fault of device code on ppc64le was: read,
 * write or instruction fetch, at which address; and the ELFv2 form of the
 * declare target indirect redirect (faults.c calls these on ppc64le).
 *
 * The kernel says read or write in DSISR, but qemu user mode does not fill
 * it, and on an instruction fetch qemu gives no si_addr. So the answer
 * comes from the program counter: when the word at the PC cannot be read,
 * the fetch itself faulted (the address is the PC); else the instruction
 * there is decoded: a store (or a load-and-reserve, which starts an atomic
 * read-modify-write: a write, as x86-64's locked instructions report) is a
 * write, anything else a read. Readability is probed with write(2) into a
 * pipe of our own, which fails with EFAULT instead of faulting (and is
 * async-signal-safe).
 *
 * Locking: the pipe is created before main (a constructor) and only
 * written and drained by fault handlers; concurrent handlers may read each
 * other's bytes, which is harmless: only write's result is used.
 */
#if defined(__powerpc64__)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>
#include <unistd.h>

#include "server.h"

#define REG_NIP 32 /* gp_regs index of the program counter (PT_NIP) */

static int probe_pipe[2] = {-1, -1};

__attribute__((constructor)) static void probe_pipe_open(void) {
  if (pipe2(probe_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    probe_pipe[0] = probe_pipe[1] = -1;
}

/* 1 when the 4 bytes at `addr` can be read, 0 when not, -1 unknown. */
static int readable(uint64_t addr) {
  if (probe_pipe[1] < 0)
    return -1;
  ssize_t n = write(probe_pipe[1], (const void *)addr, 4);
  if (n < 0)
    return errno == EFAULT ? 0 : -1;
  char drain[64];
  while (read(probe_pipe[0], drain, sizeof drain) > 0)
    ;
  return 1;
}

/* X-form (primary opcode 31) extended opcodes that store or reserve. */
static int x_form_writes(unsigned xo) {
  static const unsigned short writes[] = {
      20,  84,  116, 276, /* lwarx ldarx lharx lqarx: atomic RMW */
      52,                 /* lbarx */
      135, 149, 150, 151, 167, 181, 182, 183, 199, 214, 215, 231, 247,
      396, 397, 407, 429, 439, 487, 652, 660, 661, 662, 663, 694, 695,
      716, 725, 726, 727, 759, 140, 908, 909, 918, 940, 941, 972, 983,
      1014, /* dcbz zeroes a cache block */
      1020};
  for (unsigned i = 0; i < sizeof writes / sizeof writes[0]; i++)
    if (writes[i] == xo)
      return 1;
  return 0;
}

/* 1 when instruction `insn` writes memory. */
static int writes_memory(uint32_t insn) {
  unsigned primary = insn >> 26;
  switch (primary) {
  case 36: case 37: case 38: case 39: /* stw stwu stb stbu */
  case 44: case 45: case 47:          /* sth sthu stmw */
  case 52: case 53: case 54: case 55: /* stfs stfsu stfd stfdu */
  case 61:                            /* stfdp stxsd stxssp stxv */
  case 62:                            /* std stdu stq */
    return 1;
  case 31:
    return x_form_writes((insn >> 1) & 0x3ff);
  default:
    return 0;
  }
}

/* Prefixed (ISA 3.1) stores: the suffix word's primary opcode. */
static int prefixed_writes(uint32_t suffix) {
  switch (suffix >> 26) {
  case 36: case 38: case 44: case 46: case 47: case 52: case 54:
  case 55: case 60: case 61: case 62:
    return 1;
  default:
    return 0;
  }
}

uint64_t faults_ppc64le_pc(const void *uctx) {
  const ucontext_t *uc = uctx;
  return uc != NULL ? (uint64_t)uc->uc_mcontext.gp_regs[REG_NIP] : 0;
}

int faults_ppc64le_access_kind(int sig, const siginfo_t *info,
                               const void *uctx) {
  (void)sig;
  uint64_t pc = faults_ppc64le_pc(uctx);
  if (pc == 0 || (info != NULL && (uint64_t)info->si_addr == pc))
    return SIMDEV_FAULT_EXEC;
  if (readable(pc) == 0)
    return SIMDEV_FAULT_EXEC;
  uint32_t insn = *(const uint32_t *)pc;
  if (insn >> 26 == 1 && readable(pc + 4) == 1)
    return prefixed_writes(*(const uint32_t *)(pc + 4)) ? SIMDEV_FAULT_WRITE
                                                        : SIMDEV_FAULT_READ;
  return writes_memory(insn) ? SIMDEV_FAULT_WRITE : SIMDEV_FAULT_READ;
}

int faults_ppc64le_redirect(int sig, siginfo_t *info, void *uctx) {
  ucontext_t *uc = uctx;
  if (sig != SIGSEGV || uc == NULL ||
      faults_ppc64le_access_kind(sig, info, uctx) != SIMDEV_FAULT_EXEC)
    return 0;
  uint64_t pc = faults_ppc64le_pc(uctx);
  uint64_t device_fn = indirect_lookup(pc);
  if (device_fn == 0)
    return 0;
  /* ELFv2: an indirect call enters the global entry point with r12 = its
   * address (it derives the TOC from r12); the link register already holds
   * the return address. */
  uc->uc_mcontext.gp_regs[REG_NIP] = device_fn;
  uc->uc_mcontext.gp_regs[12] = device_fn;
  return 1;
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int faults_ppc64le_unused;
#endif
