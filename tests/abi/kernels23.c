/*
 * kernels23.c - a device image built by hand in clang 23's host-kernel
 * convention (LLVM #185989, #205355): a kernel takes one `void **`, whose
 * element i points at parameter i's 64-bit value, the implicit dyn_ptr
 * being the last one; the entry table of image_entry.h. Built twice:
 * build/tests/abi/kernels23.so with a `.comment` "clang version 23.1.0",
 * as a clang 23 link leaves it (clang 14, 19 and 22 images measured carry
 * theirs), and kernels23_anon.so without it (an image that does not name
 * its compiler: the KernelArgs version alone decides).
 */
#include "image_entry.h"
#define ARG(args, i, type) (*(type *)(args)[i])

/* y[i] = x[i] * k for n elements; parameters y, x, n, k, dyn_ptr. A
 * dyn_ptr that is not NULL, or not last, shows in y[0]. */
__attribute__((visibility("default"))) void scale23(void **args) {
  long *y = ARG(args, 0, long *);
  const long *x = ARG(args, 1, const long *);
  long n = ARG(args, 2, long), k = ARG(args, 3, long);
  void *dyn_ptr = ARG(args, 4, void *);
  for (long i = 0; i < n; i++)
    y[i] = x[i] * k;
  if (dyn_ptr != NULL)
    y[0] = -999;
}
ENTRY(scale23, 0);

/* out[0] = the sum of 20 literal parameters (more than fit in registers
 * in the positional convention); parameters out, v0..v19, dyn_ptr. */
__attribute__((visibility("default"))) void sum23(void **args) {
  long *out = ARG(args, 0, long *), sum = 0;
  for (int i = 1; i <= 20; i++)
    sum += ARG(args, i, long);
  out[0] = sum;
}
ENTRY(sum23, 0);

/* PRIVATE|ATTACH: the parameter is the device address of a private copy
 * of the host pointer p, set to p's pointee on the device; increments
 * p[0..n). Parameters &private_p, n, dyn_ptr. */
__attribute__((visibility("default"))) void bump23(void **args) {
  int **pp = ARG(args, 0, int **);
  long n = ARG(args, 1, long);
  for (long i = 0; i < n; i++)
    (*pp)[i] += 1;
}
ENTRY(bump23, 0);
