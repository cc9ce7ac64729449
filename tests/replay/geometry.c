/* A kernel whose result is its geometry: how many teams ran it (no
 * num_teams clause: the launch's geometry decides). */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int teams = 0;
#pragma omp target teams map(tofrom: teams)
  {
    if (omp_get_team_num() == 0)
      teams = omp_get_num_teams();
  }
  printf("geometry %d\n", teams > 0);
  return 0;
}
