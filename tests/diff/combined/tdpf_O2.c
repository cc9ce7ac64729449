/* tdpf_O2.c - tdpf_O0.c at -O2.
 * cflags: -O2 */
#include "tdpf_O0.c"
