/*
 * reexec.h - run this program again. Normally an exec of the program
 * itself; with SIMTARGET_TEST_EMULATOR set (qemu-ppc64le: a ppc64le build
 * tested on x86-64, tests/ppc64le/check.sh) through that emulator, since
 * without binfmt_misc a program under qemu user mode cannot exec another
 * ppc64le program.
 */
#ifndef SIMTARGET_PROGRAM_REEXEC_H
#define SIMTARGET_PROGRAM_REEXEC_H

#include <stdlib.h>
#include <unistd.h>

/* execv(self, argv), or EMULATOR self argv[1]...; returns only on failure. */
static void reexec_self(const char *self, char *const argv[]) {
  const char *emulator = getenv("SIMTARGET_TEST_EMULATOR");
  if (emulator == NULL || *emulator == '\0') {
    execv(self, argv);
    return;
  }
  char path[4096];
  /* /proc/self/exe would name the emulator in the new process. */
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0)
    return;
  path[n] = '\0';
  char *args[64];
  int count = 0;
  args[count++] = (char *)emulator;
  args[count++] = path;
  for (int i = 1; argv[i] != NULL && count < 63; i++)
    args[count++] = argv[i];
  args[count] = NULL;
  execvp(emulator, args);
}

#endif
