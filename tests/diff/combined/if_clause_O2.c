/* if_clause_O2.c - if_clause_O0.c at -O2.
 * cflags: -O2 */
#include "if_clause_O0.c"
