/* device_output.c - printf in target regions reaches the program's stdout
 * when stdout is a pipe and when it is a file, in program order at each
 * construct boundary, from several host threads, from nowait regions and
 * from device threads.
 * The program runs itself twice as a child (no stdbuf, as in CI): once with
 * stdout into a pipe it reads, once into a file, and compares the text.
 * expect: both children print exactly the expected lines in order. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "child_output.h"

static int counter; /* global, as users write it */
#pragma omp declare target(counter)

static void child_work(void) {
  printf("host 1\n");
#pragma omp target map(tofrom : counter)
  {
    counter++;
    printf("device 1 counter %d\n", counter);
  }
  printf("host 2\n");
  /* A partial line from the device, finished by the host afterwards. */
#pragma omp target
  printf("device partial");
  printf(" host completes\n");
  /* Several device threads: each line arrives whole. */
#pragma omp target teams distribute parallel for num_teams(2)
  for (int i = 0; i < 8; i++)
    printf("device iteration %d\n", i);
  printf("host 3\n");
#pragma omp target nowait map(tofrom : counter)
  printf("device nowait\n");
#pragma omp taskwait
  printf("host 4\n");
  /* Two host threads, each with its own construct. */
#pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
#pragma omp target firstprivate(me)
    printf("device from host thread %d\n", me);
  }
  printf("host 5\n");
  printf("host last\n");
}

/* Lines that must appear in this order (device iterations are checked
 * apart: their order among themselves is the device's). */
static const char *const ordered[] = {
    "host 1\n", "device 1 counter 1\n", "host 2\n",
    "device partial host completes\n", "host 3\n", "device nowait\n",
    "host 4\n", "host 5\n", "host last\n"};

static void check_text(const char *how, const char *text) {
  int in_order = child_output_in_order(how, text, ordered, sizeof ordered / sizeof ordered[0]);
  CHECK(in_order);
  /* The iterations lie between "host completes" and "host 3". */
  const char *from = strstr(text, "host completes\n");
  const char *to = strstr(text, "host 3\n");
  CHECK(from != NULL && to != NULL);
  for (int i = 0; i < 8 && from && to; i++) {
    char line[64];
    snprintf(line, sizeof line, "device iteration %d\n", i);
    const char *found = strstr(from, line);
    CHECK(found != NULL && found < to);
  }
  /* Host thread lines lie between "host 4" and "host 5". */
  from = strstr(text, "host 4\n");
  to = strstr(text, "host 5\n");
  for (int i = 0; i < 2 && from && to; i++) {
    char line[64];
    snprintf(line, sizeof line, "device from host thread %d\n", i);
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
  CHECK_EQ(child_output_through_pipe(argv[0], "work", text, sizeof text, errors,
                                     sizeof errors), 0);
  check_text("pipe", text);
  CHECK(strstr(errors, "fatal") == NULL);
  CHECK_EQ(child_output_through_file(argv[0], "work", text, sizeof text, errors,
                                     sizeof errors), 0);
  check_text("file", text);
  CHECK(strstr(errors, "fatal") == NULL);
  if (check_failures)
    printf("--- last child's stdout:\n%s--- its stderr:\n%s---\n", text,
           errors);
  return check_finish();
}
/* mpi-skip: a child it starts (fork, or itself run again) is not an MPI rank and gets no remote device */
