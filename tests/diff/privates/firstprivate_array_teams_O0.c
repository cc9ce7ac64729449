/* firstprivate_array_teams_O0.c - the same at -O0 (issue item 5's control).
 * cflags: -O0 */
#include "firstprivate_array_teams_O2.c"
