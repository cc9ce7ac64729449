/* signal_sent_to_device.c - SIGSEGV that no memory access caused: a kernel
 * calls raise(SIGSEGV), and another process sends SIGBUS to the device
 * process with kill while a kernel runs.
 * simtarget-only
 * env: SIMTARGET_KEEP_GOING=1
 * expect-stderr: raised SIGSEGV itself
 * expect-stderr: got SIGBUS sent by process
 * expect-stderr-not: (read|wrote) address
 * expect: neither is reported as the kernel reading an address (the
 * sender's pid, which si_addr holds for a sent signal): the raise is named
 * as the kernel's own, the kill by its sender's pid. */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int pid = 0;
#pragma omp target map(from : pid)
  pid = getpid();
#pragma omp target
  if (!omp_is_initial_device()) /* its host version (keep going) does not */
    raise(SIGSEGV);
  int dev = 0;
#pragma omp target map(from : dev)
  dev = getpid();
  CHECK(dev != getpid());
  pid_t killer = fork();
  if (killer == 0) {
    usleep(200 * 1000); /* the kernel below is running by now */
    kill(dev, SIGBUS);
    _exit(0);
  }
  volatile int forever = 1;
#pragma omp target map(to : forever)
  while (forever && !omp_is_initial_device())
    usleep(1000);
  int after = 0;
#pragma omp target map(from : after)
  after = 1;
  CHECK_EQ(after, 1);
  (void)pid;
  return check_finish();
}
