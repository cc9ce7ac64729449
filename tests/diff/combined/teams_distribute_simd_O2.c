/* teams_distribute_simd_O2.c - teams_distribute_simd_O0.c at -O2.
 * cflags: -O2 */
#include "teams_distribute_simd_O0.c"
