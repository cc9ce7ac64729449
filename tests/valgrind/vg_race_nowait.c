/* vg_race_nowait.c - a `nowait` kernel (a queue slot of the device
 * process) whose teams' threads count into one element of an array (a
 * struct's, through a local pointer) without an atomic, while the host
 * goes on with a copy on the main slot; Helgrind reports the race at its
 * line and simdevice names the section, whichever of the device
 * process's threads reads Helgrind's report back first.
 * simtarget-only
 * versions: 14 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=helgrind
 * vg-expect: Possible data race during (read|write) of size 4
 * vg-expect: at 0x[0-9A-F]+: .*omp_outlined.* \(.*vg_race_nowait.c:35\)
 * vg-expect: simdevice: Valgrind's helgrind reported errors in kernel `__omp_offloading_[0-9a-f]+_[0-9a-f]+_main_l3[0-9]` \(above\): threads or teams of the kernel race on `(s.)?counts\[0:4\]` \(device address 0x[0-9a-f]+, 8 bytes into it; map\(tofrom\)
 * vg-finding: "check":"helgrind","rule":"data-race","variable":"(s.)?counts\[0:4\]"
 * vg-stderr-not: race on memory
 * expect: the race named with its section and the element's offset */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

struct tally {
  int *counts;
  int n;
};

int main(void) {
  struct tally s = {calloc(4, sizeof(int)), 4};
  int other[16] = {0};
  int *counts = s.counts;
#pragma omp target enter data map(to : other)
#pragma omp target teams distribute parallel for num_teams(2) num_threads(2) \
    map(tofrom : counts[0:4]) nowait
  for (int i = 0; i < 64; i++)
    if (i % 3 == 0)
      counts[2]++;
  for (int i = 0; i < 16; i++)
    other[i] = i;
#pragma omp target update to(other)
#pragma omp taskwait
#pragma omp target exit data map(delete : other)
  printf("counts[2] %d (22 without the race)\nPASS\n", counts[2]);
  free(s.counts);
  return 0;
}
