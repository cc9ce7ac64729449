/* target_teams_loop_O2.c - target_teams_loop_O0.c at -O2.
 * versions: 16 19 22
 * cflags: -O2 */
#include "target_teams_loop_O0.c"
