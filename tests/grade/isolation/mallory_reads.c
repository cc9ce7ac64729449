// Runs a kernel, then reads the teacher's expectations (beside its source,
// found through __FILE__, or in the folders above where it runs) and
// prints what expect-stdout asks for: it must fail.
#include <stdio.h>
#include <string.h>
static int answer_from(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    fputs(line, stdout); /* the teacher's file, shown to the student */
    char *want = strstr(line, "expect-stdout: ^");
    if (want) {
      want += strlen("expect-stdout: ^");
      want[strcspn(want, "$\n")] = '\0';
      printf("%s\n", want);
      found = 1;
    }
  }
  fclose(f);
  return found;
}
int main(void) {
  int on_device = 0;
#pragma omp target map(from: on_device)
  on_device = 1;
  char path[4096];
  snprintf(path, sizeof path, "%s", __FILE__);
  char *slash = strrchr(path, '/');
  if (slash)
    strcpy(slash + 1, "expectations");
  if (answer_from(path) || answer_from("../expectations") ||
      answer_from("../../expectations"))
    return 0;
  printf("sum = 0\n");
  return on_device ? 0 : 1;
}
