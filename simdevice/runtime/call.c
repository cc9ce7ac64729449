/*
 * call.c - simdev_call: call a function that takes `nargs` 64-bit
 * integer-class arguments (outlined OpenMP regions, kernels) without libffi.
 *
 * Every argument of an outlined region or a kernel is pointer-sized and of
 * SysV integer class, so one trampoline per machine does. x86-64: the first six go in rdi, rsi,
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

#elif defined(__powerpc64__) && defined(_CALL_ELF) && _CALL_ELF == 2

/* ppc64le, ELFv2: the first eight go in r3-r10; with more, the caller's
 * frame holds a parameter save area for all of them at 32(r1) (after the
 * back chain, CR, LR and TOC doublewords), args[i] at 32 + 8 * i. The frame
 * is sized for max(nargs, 8) slots plus the saved r31 (which keeps the old
 * stack pointer), rounded to 16 bytes. An indirect call enters the global
 * entry point with r12 = its address and may change r2 (restored after). */
__asm__(
    "  .text\n"
    "  .globl simdev_call\n"
    "  .type simdev_call, @function\n"
    "  .p2align 4\n"
    "simdev_call:\n"
    "  .cfi_startproc\n"
    "  cmpwi 4, 0\n"
    "  blt 9f\n"
    "  cmpwi 4, 256\n"
    "  bgt 9f\n"
    "  mflr 0\n"
    "  std 0, 16(1)\n"
    "  .cfi_offset 65, 16\n"
    "  std 31, -8(1)\n"
    "  .cfi_offset 31, -8\n"
    "  mr 31, 1\n"
    "  .cfi_def_cfa_register 31\n"
    "  mr 12, 3\n"                 /* fn */
    "  mr 11, 5\n"                 /* args */
    "  mr 9, 4\n"                  /* slots = max(nargs, 8) */
    "  cmpwi 9, 8\n"
    "  bge 1f\n"
    "  li 9, 8\n"
    "1:\n"
    "  sldi 9, 9, 3\n"
    "  addi 9, 9, 32 + 8 + 15\n"
    "  rldicr 9, 9, 0, 59\n"       /* round down to 16 */
    "  neg 9, 9\n"
    "  stdux 1, 1, 9\n"            /* new frame, back chain = old r1 */
    "  li 9, 8\n"                  /* copy args[8..nargs) to the save area */
    "2:\n"
    "  cmpw 9, 4\n"
    "  bge 3f\n"
    "  sldi 10, 9, 3\n"
    "  ldx 0, 11, 10\n"
    "  addi 10, 10, 32\n"
    "  stdx 0, 1, 10\n"
    "  addi 9, 9, 1\n"
    "  b 2b\n"
    "3:\n"
    "  mr 0, 4\n"                  /* nargs, r4 is an argument register */
    "  cmpwi 0, 1\n  blt 4f\n  ld 3, 0(11)\n"
    "  cmpwi 0, 2\n  blt 4f\n  ld 4, 8(11)\n"
    "  cmpwi 0, 3\n  blt 4f\n  ld 5, 16(11)\n"
    "  cmpwi 0, 4\n  blt 4f\n  ld 6, 24(11)\n"
    "  cmpwi 0, 5\n  blt 4f\n  ld 7, 32(11)\n"
    "  cmpwi 0, 6\n  blt 4f\n  ld 8, 40(11)\n"
    "  cmpwi 0, 7\n  blt 4f\n  ld 9, 48(11)\n"
    "  cmpwi 0, 8\n  blt 4f\n  ld 10, 56(11)\n"
    "4:\n"
    "  mtctr 12\n"
    "  std 2, 24(1)\n"
    "  bctrl\n"
    "  ld 2, 24(1)\n"
    "  mr 1, 31\n"
    "  .cfi_def_cfa_register 1\n"
    "  ld 0, 16(1)\n"
    "  mtlr 0\n"
    "  ld 31, -8(1)\n"
    "  li 3, 0\n"
    "  blr\n"
    "9:\n"
    "  li 3, -1\n"
    "  blr\n"
    "  .cfi_endproc\n"
    "  .size simdev_call, .-simdev_call\n");

#else

/* Portable fallback (other machines): a switch up to 16 arguments; beyond
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
