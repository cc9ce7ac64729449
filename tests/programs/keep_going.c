// SIMTARGET_KEEP_GOING=1: a failed construct is reported and the program goes
// on, the region running on the host (as LLVM's host fallback), so one run
// shows every failure of a test file. Two regions fail (map(present) of data
// that is not present); the second one's report proves the program went
// on, and the host versions compute the right sums.
// simtarget-only
// versions: 15 16 19 22
// cflags: -g -fopenmp-version=51
// env: SIMTARGET_KEEP_GOING=1 OMP_TARGET_OFFLOAD=mandatory
// expect-stderr: omptarget error: target at [^ ]*keep_going.c:23:1 \(in main\) failed
#include <stdio.h>
int main(void) {
  int a[16], b[16], s1 = 0, s2 = 0;
  for (int i = 0; i < 16; i++) a[i] = i, b[i] = 2 * i;
#pragma omp target map(present, to : a) map(tofrom : s1)
  for (int i = 0; i < 16; i++) s1 += a[i];
#pragma omp target data map(to : a)
  {
#pragma omp target map(present, to : a) map(tofrom : s2)
    for (int i = 0; i < 16; i++) s2 += a[i];
  }
  int s3 = 0;
#pragma omp target map(present, to : b) map(tofrom : s3)
  for (int i = 0; i < 16; i++) s3 += b[i];
  int ok = s1 == 120 && s2 == 120 && s3 == 240;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
