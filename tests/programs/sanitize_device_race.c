/* sanitize_device_race.c - threads add into one shared scalar without a
 * reduction or atomic (a data race a GPU hides as a wrong sum), in device
 * code built with -Xarch_device -fsanitize=thread: the device process runs
 * under clang 19's TSan runtime, which reports the race with the kernel's
 * source line; the run goes on, as TSan does on the host. (Threads of a
 * parallel region always run on threads of their own; the teams of a short
 * kernel may all be run by one thread, which TSan then rightly orders.)
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 19
 * simtarget-only
 * cflags: -O2 -g -Xarch_device -fsanitize=thread -Xoffload-linker -Wl,-zundefs
 * expect-stderr: #[0-9]+ __omp_offloading_.*sanitize_device_race.c:28:[0-9]+
 * expect: the race between teams is reported with its line. */
#include <stdio.h>
#include <stdlib.h>

static double *data; /* a file-scope pointer */

int main(int argc, char **argv) {
  (void)argv;
  int n = 1000 + (argc > 100);
  data = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    data[i] = 1;
  double total = 0;
#pragma omp target parallel for num_threads(4) map(to : data[0:n]) map(tofrom : total)
  for (int i = 0; i < n; i++)
    total += data[i];
  printf("total %.0f (racy)\nPASS\n", total);
  return 0;
}
/* mpi-skip: sanitized device code: the plugin picks the sanitizer runtime when it validates the image, before the device starts, which a device rank does not see (not supported remotely) */
