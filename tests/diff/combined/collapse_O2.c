/* collapse_O2.c - collapse_O0.c at -O2.
 * cflags: -O2 */
#include "collapse_O0.c"
