/* target_parallel_for_O2.c - target_parallel_for_O0.c at -O2.
 * cflags: -O2 */
#include "target_parallel_for_O0.c"
