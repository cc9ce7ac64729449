/* optional_tools_silent.c - what a program prints does not depend on which
 * optional packages the machine has: with the ppc64le device's tools
 * missing (SIMDEVICE_QEMU names no program, as on a machine without
 * qemu-user), an x86-64 program under LIBOMPTARGET_INFO=0x10 (plugin
 * information) prints nothing about the ppc64le plugin, exactly as where
 * qemu is installed (its plugin has devices then, and no image is for them).
 * env: SIMDEVICE_QEMU=/nonexistent/qemu-ppc64le LIBOMPTARGET_INFO=0x10
 * expect-stderr-not: simdevice-ppc64le
 * expect: a correct run, and no line naming the ppc64le plugin on stderr.
 * simtarget-only
 * ppc64le-skip: it takes the ppc64le device's tools away (SIMDEVICE_QEMU), so there is no ppc64le device to run on */
#include "check.h"

#define N 64
static double v[N];

int main(void) {
  for (int i = 0; i < N; i++)
    v[i] = i;
  double sum = 0;
#pragma omp target teams distribute parallel for map(to : v) reduction(+ : sum)
  for (int i = 0; i < N; i++)
    sum += v[i];
  CHECK(sum == N * (N - 1) / 2.0);
  return check_finish();
}
