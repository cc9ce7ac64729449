/*
 * call.c - simdev_call: call a function that takes `nargs` 64-bit
 * integer-class arguments (outlined OpenMP regions, kernels) without libffi.
 *
 * Every argument of an outlined region or a kernel is pointer-sized and of
 * SysV integer class, so one trampoline does: the first six go in rdi, rsi,
 * rdx, rcx, r8, r9, the rest are pushed in reverse so that args[6] is at
 * (%rsp) at the call, and %rsp is 16-byte aligned at the call. Up to
 * SIMDEV_MAX_ARGS arguments; more (or fewer than 0) return -1 without
 * calling. No shared state, so no lock.
 */
#include <stdint.h>

#include "simdev_rt.h"

_Static_assert(SIMDEV_MAX_ARGS == 256, "the assembly below checks against 256");

#if defined(__x86_64__)

/* int simdev_call(void *fn, int nargs, const uint64_t *args) */
__asm__(
    "  .text\n"
    "  .globl simdev_call\n"
    "  .type simdev_call, @function\n"
    "  .p2align 4\n"
    "simdev_call:\n"
    "  .cfi_startproc\n"
    "  cmpl $0, %esi\n"
    "  jl 9f\n"
    "  cmpl $256, %esi\n"
    "  jg 9f\n"
    "  pushq %rbp\n"
    "  .cfi_def_cfa_offset 16\n"
    "  .cfi_offset %rbp, -16\n"
    "  movq %rsp, %rbp\n"
    "  .cfi_def_cfa_register %rbp\n"
    "  pushq %rbx\n"
    "  .cfi_offset %rbx, -24\n"
    "  pushq %r12\n"
    "  .cfi_offset %r12, -32\n"
    /* %rsp is now 16-byte aligned (entry was 8 mod 16, three pushes). */
    "  movq %rdi, %r12\n"          /* fn */
    "  movl %esi, %ebx\n"          /* nargs */
    "  movq %rdx, %r10\n"          /* args */
    "  movl %ebx, %ecx\n"
    "  subl $6, %ecx\n"            /* stack args = nargs - 6 */
    "  jle 2f\n"
    "  testl $1, %ecx\n"           /* odd count: pad to keep alignment */
    "  jz 1f\n"
    "  subq $8, %rsp\n"
    "1:\n"
    "  movslq %ebx, %rax\n"        /* push args[nargs-1] .. args[6] */
    "0:\n"
    "  decq %rax\n"
    "  pushq (%r10,%rax,8)\n"
    "  cmpq $6, %rax\n"
    "  jg 0b\n"
    "2:\n"
    "  cmpl $1, %ebx\n  jl 3f\n  movq 0(%r10), %rdi\n"
    "  cmpl $2, %ebx\n  jl 3f\n  movq 8(%r10), %rsi\n"
    "  cmpl $3, %ebx\n  jl 3f\n  movq 16(%r10), %rdx\n"
    "  cmpl $4, %ebx\n  jl 3f\n  movq 24(%r10), %rcx\n"
    "  cmpl $5, %ebx\n  jl 3f\n  movq 32(%r10), %r8\n"
    "  cmpl $6, %ebx\n  jl 3f\n  movq 40(%r10), %r9\n"
    "3:\n"
    "  xorl %eax, %eax\n"          /* %al = 0 vector args, in case fn is variadic */
    "  call *%r12\n"
    "  leaq -16(%rbp), %rsp\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  .cfi_def_cfa %rsp, 8\n"
    "  xorl %eax, %eax\n"
    "  ret\n"
    "9:\n"
    "  movl $-1, %eax\n"
    "  ret\n"
    "  .cfi_endproc\n"
    "  .size simdev_call, .-simdev_call\n");

#else

/* Portable fallback (e.g. ppc64le): a switch up to 16 arguments; beyond
 * that this build returns -1, so SIMDEV_MAX_ARGS is effectively 16 there. */
typedef uint64_t u;
int simdev_call(void *fn, int nargs, const uint64_t *a)
{
  if (nargs < 0 || nargs > 16)
    return -1;
#define F(...) ((void (*)(__VA_ARGS__))fn)
  switch (nargs) {
  case 0: F(void)(); break;
  case 1: F(u)(a[0]); break;
  case 2: F(u, u)(a[0], a[1]); break;
  case 3: F(u, u, u)(a[0], a[1], a[2]); break;
  case 4: F(u, u, u, u)(a[0], a[1], a[2], a[3]); break;
  case 5: F(u, u, u, u, u)(a[0], a[1], a[2], a[3], a[4]); break;
  case 6: F(u, u, u, u, u, u)(a[0], a[1], a[2], a[3], a[4], a[5]); break;
  case 7: F(u, u, u, u, u, u, u)(a[0], a[1], a[2], a[3], a[4], a[5], a[6]); break;
  case 8: F(u, u, u, u, u, u, u, u)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]); break;
  default: {
    /* 9..16: pass 16, the callee ignores the extra trailing ones. */
    uint64_t b[16] = {0};
    for (int i = 0; i < nargs; i++)
      b[i] = a[i];
    F(u, u, u, u, u, u, u, u, u, u, u, u, u, u, u, u)
    (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
     b[14], b[15]);
  }
  }
#undef F
  return 0;
}

#endif
