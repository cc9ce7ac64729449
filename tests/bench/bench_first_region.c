/*
 * bench_first_region.c - how long the first target region of a process
 * takes, device start included. The program runs itself as a fresh child
 * process per sample (fork + exec, so every sample starts cold) and prints
 * medians:
 *   first_region_ms  main() entry to the end of the first (empty) target
 *                    region, timed inside the child;
 *   exec_to_region_ms  from just before exec to the end of that region
 *                    (also counts what a runtime does while the program
 *                    loads, before main, so work moved into constructors
 *                    shows here);
 *   first_region_umask_ms  first_region_ms of a child whose main changes
 *                    its umask first, as a daemon does: a device started
 *                    before main no longer has the program's state and is
 *                    started again (simdevice/plugin/inherit.c).
 * Not a test: nothing here asserts a time.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* The child: one empty target region, then its timestamps on stdout. */
static int child(int change_umask) {
  double start = mono_ms();
  if (change_umask)
    umask(027);
  int on_device = 0;
#pragma omp target map(from: on_device)
  on_device = !omp_is_initial_device();
  double end = mono_ms();
  printf("%.6f %.6f %d\n", start, end, on_device);
  return 0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--child"))
    return child(argc > 2);
  enum { samples = 15 };
  double in_main[samples], from_exec[samples], umask_changed[samples];
  for (int i = 0; i < 2 * samples; i++) {
    int change = i >= samples;
    int fd[2];
    if (pipe(fd) != 0)
      return 1;
    double before = mono_ms();
    pid_t pid = fork();
    if (pid == 0) {
      dup2(fd[1], 1);
      close(fd[0]);
      close(fd[1]);
      execl("/proc/self/exe", argv[0], "--child", change ? "umask" : NULL,
            (char *)NULL);
      _exit(127);
    }
    close(fd[1]);
    char line[128] = "";
    FILE *f = fdopen(fd[0], "r");
    int got = f != NULL && fgets(line, sizeof line, f) != NULL;
    if (f != NULL)
      fclose(f);
    int status = 0;
    waitpid(pid, &status, 0);
    double start, end;
    int on_device;
    if (!got || sscanf(line, "%lf %lf %d", &start, &end, &on_device) != 3 ||
        !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !on_device) {
      fprintf(stderr, "bench_first_region: the child failed or ran on the host\n");
      return 1;
    }
    if (change) {
      umask_changed[i - samples] = end - start;
      continue;
    }
    in_main[i] = end - start;
    from_exec[i] = end - before;
  }
  qsort(in_main, samples, sizeof *in_main, cmp);
  qsort(from_exec, samples, sizeof *from_exec, cmp);
  qsort(umask_changed, samples, sizeof *umask_changed, cmp);
  printf("first_region_ms %.4f ms\n", in_main[samples / 2]);
  printf("exec_to_region_ms %.4f ms\n", from_exec[samples / 2]);
  printf("first_region_umask_ms %.4f ms\n", umask_changed[samples / 2]);
  return 0;
}
