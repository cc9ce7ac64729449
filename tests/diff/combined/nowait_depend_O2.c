/* nowait_depend_O2.c - nowait_depend_O0.c at -O2.
 * cflags: -O2 */
#include "nowait_depend_O0.c"
