// target teams distribute parallel for: tripcount, num_teams, thread_limit.
#include <stdio.h>
int main(void) {
  int n = 1000, a[1000];
#pragma omp target teams distribute parallel for map(from : a) num_teams(4) thread_limit(8)
  for (int i = 0; i < n; i++) a[i] = 2 * i;
  puts(a[999] == 1998 ? "PASS" : "FAIL");
  return a[999] != 1998;
}
