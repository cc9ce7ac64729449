// A global array section mapped tofrom.
#include <stdio.h>
int g[100];
int main(void) {
  for (int i = 0; i < 100; i++) g[i] = i;
#pragma omp target map(tofrom : g[10:20])
  for (int i = 10; i < 30; i++) g[i] += 1000;
  int ok = g[29] == 1029 && g[30] == 30;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
