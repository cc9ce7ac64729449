/* vg_race_drd.c - vg_race.c under DRD instead of Helgrind: the same race
 * of teams' threads on one shared scalar, reported at its line.
 * simtarget-only
 * versions: 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=drd
 * vg-expect: Conflicting (load|store) by thread [0-9]+ at 0x[0-9a-f]+ size 8
 * vg-expect: at 0x[0-9A-F]+: .*omp_outlined.* \(.*vg_race.c:36\)
 * vg-expect: simdevice: Valgrind's drd reported errors
 * vg-finding: "check":"drd","rule":"valgrind-errors"
 * vg-expect: simdevice: Valgrind's drd reported errors in kernel `__omp_offloading_[0-9a-f]+_[0-9a-f]+_main_l33` \(above\): threads or teams of the kernel race on `sum` \(device address 0x[0-9a-f]+, 0 bytes into it; map\(tofrom\) at .*vg_race.c:33:1
 * vg-finding: "check":"drd","rule":"data-race","variable":"sum","kernel":"__omp_offloading_[0-9a-f]+_[0-9a-f]+_main_l33"
 * vg-stderr-not: race on memory
 * vg-expect-not: at 0x[0-9A-F]+: .*\((wait|pool|lock|reduce|barrier|sync|parallel|task)\.c:[0-9]+\)
 * vg-expect-not: at 0x[0-9A-F]+: .*\(.*vg_race.c:(2[2-9]|3[0-2])\)
 * expect: DRD's report at the line of `sum += x[i]` */
#include "vg_race.c"
