/* privileges_caps_dropped.c - a program started as root maps its data and
 * offloads, then gives up a capability while it stays uid 0 (capset, as
 * libcap-ng services do) and offloads again.
 * simtarget-only
 * ppc64le-skip: qemu-user's capget gives device code on the ppc64le device no capabilities (0): the restart itself happens there too
 * expect-stderr: device 0 restarted .*new credentials
 * expect: the next kernel runs with the program's capabilities (the device
 * cannot take a capability set by its ids alone, so it is started again
 * with them and says so), and the data mapped before keeps its values.
 * Not root: says so and passes. Simtarget-only: the message is simtarget's
 * (LLVM's runtime runs kernels in the program's threads and passes the
 * checks, clang 13-19). */
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

#define N 1024

/* The effective capabilities of the calling process, 64 bits. */
static uint64_t effective_caps(void) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  syscall(SYS_capget, &h, d);
  return d[0].effective | (uint64_t)d[1].effective << 32;
}

static uint64_t device_caps(void) {
  uint64_t caps = 0;
#pragma omp target map(from : caps)
  caps = effective_caps();
  return caps;
}

int main(void) {
  if (geteuid() != 0) {
    printf("not root: skipped\nPASS\n");
    return 0;
  }
  static int data[N];
  for (int i = 0; i < N; i++)
    data[i] = i;
#pragma omp target enter data map(to : data)
  CHECK_EQ(device_caps(), effective_caps());
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  CHECK_EQ(syscall(SYS_capget, &h, d), 0);
  d[0].effective &= ~(1u << CAP_DAC_OVERRIDE);
  d[0].permitted &= ~(1u << CAP_DAC_OVERRIDE);
  CHECK_EQ(syscall(SYS_capset, &h, d), 0);
  uint64_t now = effective_caps();
  CHECK(!(now & (1u << CAP_DAC_OVERRIDE)));
  CHECK_EQ(device_caps(), now);
#pragma omp target
  for (int i = 0; i < N; i++)
    data[i] += 1;
#pragma omp target exit data map(from : data)
  for (int i = 0; i < N; i++)
    CHECK_EQ(data[i], i + 1);
  return check_finish();
}
/* mpi-skip: drops the program's credentials, which the device rank (another process, maybe on another machine) does not follow */
