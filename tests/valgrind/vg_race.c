/* vg_race.c - threads of several teams add into one shared scalar without
 * a reduction or an atomic: a data race that loses updates on a GPU.
 * Helgrind names the line; the correct reduction beside it stays clean.
 * simtarget-only
 * versions: 14 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=helgrind
 * vg-expect: Possible data race during (read|write) of size 8
 * vg-expect: at 0x[0-9A-F]+: .*omp_outlined.* \(.*vg_race.c:36\)
 * vg-expect: simdevice: Valgrind's helgrind reported errors
 * vg-finding: "check":"helgrind","rule":"valgrind-errors"
 * vg-expect: simdevice: Valgrind's helgrind reported errors in kernel `__omp_offloading_[0-9a-f]+_[0-9a-f]+_main_l33` \(above\): threads or teams of the kernel race on `sum` \(device address 0x[0-9a-f]+, 0 bytes into it; map\(tofrom\) at .*vg_race.c:33:1
 * vg-finding: "check":"helgrind","rule":"data-race","variable":"sum","kernel":"__omp_offloading_[0-9a-f]+_[0-9a-f]+_main_l33"
 * vg-stderr-not: race on memory
 * vg-expect-not: at 0x[0-9A-F]+: .*\((wait|pool|lock|reduce|barrier|sync|parallel|task)\.c:[0-9]+\)
 * vg-expect-not: at 0x[0-9A-F]+: .*\(.*vg_race.c:(2[2-9]|3[0-2])\)
 * expect: a race report at the line of `sum += x[i]` */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

int main(void) {
  const int n = 64;
  double *x = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    x[i] = 1.0;
  double good = 0;
#pragma omp target teams distribute parallel for num_teams(2) num_threads(2) \
    map(to : x[0:n]) reduction(+ : good)
  for (int i = 0; i < n; i++)
    good += x[i];
  double sum = 0;
#pragma omp target teams distribute parallel for num_teams(2) num_threads(2) \
    map(to : x[0:n]) map(tofrom : sum)
  for (int i = 0; i < n; i++)
    sum += x[i];
  printf("good %g sum %g\nPASS\n", good, sum);
  free(x);
  return 0;
}
