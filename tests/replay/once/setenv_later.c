/* A program that changes SIMDEVICE_DEFAULT_TEAMS after its first target
 * region: the device process keeps the value it started with (a change
 * reaches it only when it restarts), so both launches get the same team
 * count, and a recording must name the device's value, not the program's. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int team_count(void) {
  int teams = 0;
#pragma omp target teams map(tofrom: teams)
  {
    if (omp_get_team_num() == 0)
      teams = omp_get_num_teams();
  }
  return teams;
}

int main(void) {
  int first = team_count();
  setenv("SIMDEVICE_DEFAULT_TEAMS", "3", 1);
  int second = team_count();
  printf("setenv_later %d\n", first == second);
  return 0;
}
