/* usm_output.c - printf in target regions of a `requires
 * unified_shared_memory` program (whose kernels simdevice runs in the host
 * process) reaches stdout in program order when stdout is a pipe and when it
 * is a file, as CI logs are.
 * The program runs itself as a child twice (no stdbuf): stdout into a pipe,
 * then into a file.
 * cflags: -O2
 * ppc64le-skip: requires unified_shared_memory, which simdevice serves by running kernels in the (x86-64) host process
 * expect: both children print the host and device lines in program order,
 * the device iterations between their neighbours, and the last device line
 * before the program's exit (no output lost in a stdio buffer). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "child_output.h"

#pragma omp requires unified_shared_memory

int *counter; /* a global pointer to host memory, shared with the device */

static void child_work(void) {
  counter = malloc(sizeof *counter);
  *counter = 0;
  printf("host 1\n");
#pragma omp target
  {
    (*counter)++;
    printf("device 1 counter %d\n", *counter);
  }
  printf("host 2\n");
#pragma omp target
  printf("device partial");
  printf(" host completes\n");
#pragma omp target teams distribute parallel for num_teams(2)
  for (int i = 0; i < 8; i++)
    printf("device iteration %d\n", i);
  printf("host 3\n");
#pragma omp target nowait
  printf("device nowait\n");
#pragma omp taskwait
  printf("host 4\n");
#pragma omp target
  printf("device last counter %d\n", *counter);
  free(counter);
}

static const char *const ordered[] = {
    "host 1\n", "device 1 counter 1\n", "host 2\n",
    "device partial host completes\n", "host 3\n", "device nowait\n",
    "host 4\n", "device last counter 1\n"};

static void check_text(const char *how, const char *text) {
  CHECK(child_output_in_order(how, text, ordered,
                              sizeof ordered / sizeof ordered[0]));
  const char *from = strstr(text, "host completes\n");
  const char *to = strstr(text, "host 3\n");
  CHECK(from != NULL && to != NULL);
  for (int i = 0; i < 8 && from && to; i++) {
    char line[64];
    snprintf(line, sizeof line, "device iteration %d\n", i);
    const char *found = strstr(from, line);
    CHECK(found != NULL && found < to);
  }
}

int main(int argc, char **argv) {
  (void)argc;
  if (child_output_mode() != NULL) {
    child_work();
    return 0;
  }
  static char text[1 << 16], errors[1 << 16];
  CHECK_EQ(child_output_through_pipe(argv[0], "work", text, sizeof text,
                                     errors, sizeof errors), 0);
  check_text("pipe", text);
  if (check_failures)
    printf("--- pipe child's stdout:\n%s--- its stderr:\n%s---\n", text,
           errors);
  int before = check_failures;
  CHECK_EQ(child_output_through_file(argv[0], "work", text, sizeof text,
                                     errors, sizeof errors), 0);
  check_text("file", text);
  if (check_failures > before)
    printf("--- file child's stdout:\n%s--- its stderr:\n%s---\n", text,
           errors);
  return check_finish();
}
/* mpi-skip: requires unified_shared_memory, which a remote device cannot give (init_device refuses it by name) */
