/*
 * machine.c - the machine and pid namespace a process runs in (machine.h).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "machine.h"

int machine_id(char *out, size_t len) {
  char boot[64] = "";
  struct stat ns;
  out[0] = '\0';
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
  if (f == NULL)
    return -1;
  int got = fgets(boot, sizeof boot, f) != NULL;
  fclose(f);
  boot[strcspn(boot, "\n")] = '\0';
  if (!got || boot[0] == '\0' || stat("/proc/self/ns/pid", &ns) != 0)
    return -1;
  snprintf(out, len, "%s pid:%llu@%llu", boot, (unsigned long long)ns.st_ino,
           (unsigned long long)ns.st_dev);
  return 0;
}

int machine_same(const char *a, const char *b) {
  return a[0] != '\0' && strcmp(a, b) == 0;
}
