/* early_start_freopen.c - main sends stdout to a file with freopen before
 * its first target region, whose device code prints (device 0 was started
 * while the program loaded, with the old stdout).
 * expect: what device code prints lands in the new stdout, the file. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  char path[] = "/tmp/early_start_freopen.XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  fflush(stdout);
  int saved = dup(1);
  CHECK(freopen(path, "w", stdout) != NULL);
  printf("host line\n");
#pragma omp target
  printf("device line\n");
  fflush(stdout);
  FILE *f = fopen(path, "r");
  char buf[256] = "";
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  buf[n] = '\0';
  if (f)
    fclose(f);
  unlink(path);
  dup2(saved, 1); /* back to the harness's stdout for the verdict */
  CHECK(strcmp(buf, "host line\ndevice line\n") == 0);
  if (strcmp(buf, "host line\ndevice line\n") != 0)
    printf("the file holds: [%s]\n", buf);
  return check_finish();
}
