/* fault_kinds.c - a kernel's stray access is reported by its kind: a load
 * "read", a store "wrote", a call through a bad function pointer "jumped
 * to", an atomic update "wrote" (on ppc64le the device process decodes the
 * instruction at the PC: qemu fills no DSISR and gives no address for a
 * fetch fault).
 * simtarget-only
 * expect: each of the four kernels, run in a child process of its own,
 * fails with the message naming its access kind and the address. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

static const char *const want[] = {
    "read address 0x1000", "wrote address 0x1000", "jumped to address 0x2000",
    "wrote address 0x1000"};

static void stray(int mode) {
  long *p = (long *)0x1000;
  void (*fn)(void) = (void (*)(void))0x2000;
  long out = 0;
#pragma omp target map(from : out) firstprivate(p, fn, mode)
  {
    if (mode == 0)
      out = *p;
    else if (mode == 1)
      *p = 42;
    else if (mode == 2)
      fn();
    else
      __atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);
  }
  printf("mode %d: no fault (out %ld)\n", mode, out);
}

int main(int argc, char **argv) {
  if (argc > 1) {
    stray(atoi(argv[1]));
    return 0;
  }
  for (int mode = 0; mode < 4; mode++) {
    char cmd[4200], line[1024];
    snprintf(cmd, sizeof cmd, "'%.4000s' %d 2>&1", argv[0], mode);
    FILE *child = popen(cmd, "r");
    CHECK(child != NULL);
    if (child == NULL)
      continue;
    int found = 0;
    while (fgets(line, sizeof line, child) != NULL)
      if (strstr(line, "cause:") != NULL && strstr(line, want[mode]) != NULL)
        found = 1;
    int status = pclose(child);
    if (!found)
      printf("mode %d: no cause line with \"%s\"\n", mode, want[mode]);
    CHECK(found);
    CHECK(status != 0);
  }
  return check_finish();
}
/* mpi-skip: a child it starts (fork, or itself run again) is not an MPI rank and gets no remote device */
