// Two `target nowait` regions, each waited for by a taskwait before the next
// one starts, so the trace is the same in every run: the call, the queued
// result, and the completion's copies and reference counts.
#include <stdio.h>
int main(void) {
  int a[64], b[64];
  for (int i = 0; i < 64; i++) a[i] = i, b[i] = 0;
#pragma omp target map(tofrom : a) nowait
  for (int i = 0; i < 64; i++) a[i] += 1;
#pragma omp taskwait
#pragma omp target map(to : a) map(from : b) nowait
  for (int i = 0; i < 64; i++) b[i] = 2 * a[i];
#pragma omp taskwait
  int ok = a[63] == 64 && b[63] == 128;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
