// Runs a kernel, then rewrites the other submissions of its folder (found
// through __FILE__, the path it was compiled from) into a program that
// prints nothing, and its own result is wrong: it must fail, and
// zz_victim.c must still pass.
#include <stdio.h>
#include <string.h>
int main(void) {
  long sum = 0;
#pragma omp target map(tofrom: sum)
  sum = 1;
  char path[4096];
  snprintf(path, sizeof path, "%s", __FILE__);
  char *slash = strrchr(path, '/');
  const char *dir = slash ? (*slash = '\0', path) : ".";
  char victim[4200];
  snprintf(victim, sizeof victim, "%s/zz_victim.c", dir);
  FILE *f = fopen(victim, "w");
  if (f) {
    fputs("int main(void) { return 0; }\n", f);
    fclose(f);
  }
  printf("sum = %ld\n", sum);
  return 0;
}
