/* device_output_fault.c - what device code printed before its kernel
 * faulted, and what earlier constructs printed, is in the program's stdout
 * (a pipe, then a file) when the device process dies and the program
 * fails; and what a construct printed is there when the device process is
 * killed after it.
 * simtarget-only
 * expect: the faulting child exits 1 naming the fault, and its stdout holds
 * every line printed before the fault, in order; the child whose device
 * process is killed after its construct keeps that construct's lines. */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "child_output.h"

static int *host_only; /* a global pointer never mapped: the kernel's bug */

static void fault_child(void) {
  static int value = 7;
  host_only = &value;
  printf("host before\n");
#pragma omp target
  printf("device first construct\n");
  printf("host between\n");
#pragma omp target
  {
    printf("device before fault\n");
    *host_only = 1; /* host address in device code: faults */
  }
  printf("host never\n");
}

static void kill_child(void) {
  int device_pid = 0;
  printf("host before\n");
#pragma omp target map(from : device_pid)
  {
    printf("device construct\n");
    device_pid = getpid();
  }
  /* The device process dies after the construct: nothing is lost. */
  kill(device_pid, SIGKILL);
  printf("host after kill\n");
}

static void check_text(const char *how, const char *text,
                       const char *const *ordered, size_t count) {
  int in_order = child_output_in_order(how, text, ordered, count);
  CHECK(in_order);
  CHECK(strstr(text, "host never") == NULL);
}

int main(int argc, char **argv) {
  (void)argc;
  const char *mode = child_output_mode();
  if (mode != NULL) {
    if (strcmp(mode, "fault") == 0)
      fault_child();
    else
      kill_child();
    return 0;
  }
  static const char *const fault_lines[] = {
      "host before\n", "device first construct\n", "host between\n",
      "device before fault\n"};
  static const char *const kill_lines[] = {"host before\n",
                                           "device construct\n",
                                           "host after kill\n"};
  static char text[1 << 16], errors[1 << 16];
  CHECK_EQ(child_output_through_pipe(argv[0], "fault", text, sizeof text,
                                     errors, sizeof errors), 1);
  check_text("fault, pipe", text, fault_lines, 4);
  CHECK(strstr(errors, "not device memory") != NULL);
  CHECK_EQ(child_output_through_file(argv[0], "fault", text, sizeof text,
                                     errors, sizeof errors), 1);
  check_text("fault, file", text, fault_lines, 4);
  CHECK(strstr(errors, "not device memory") != NULL);
  CHECK_EQ(child_output_through_pipe(argv[0], "kill", text, sizeof text,
                                     errors, sizeof errors), 0);
  check_text("kill, pipe", text, kill_lines, 3);
  CHECK_EQ(child_output_through_file(argv[0], "kill", text, sizeof text,
                                     errors, sizeof errors), 0);
  check_text("kill, file", text, kill_lines, 3);
  if (check_failures)
    printf("--- last child's stdout:\n%s--- its stderr:\n%s---\n", text,
           errors);
  return check_finish();
}
/* mpi-skip: a child it starts (fork, or itself run again) is not an MPI rank and gets no remote device */
