// Under SIMTARGET_KEEP_GOING=1 (and `simtarget-maps run --keep-going`): two
// regions map more of `a` than the enclosing data region (an explicit
// extension, an error). Each failure is reported, the region runs on the host
// and the program goes on (LLVM's runtime ends it at the first failure).
// simtarget-only
// env: SIMTARGET_KEEP_GOING=1
// check: explicit-extension
// keep-going-violations: 2
// expect-stderr: omptarget error: target at [^ ]*keep_going_extension.c:22:1 \(in main\) failed
#include <stdio.h>
int main(void) {
  int a[16], s1 = 0, s2 = 0, s3 = 0;
  for (int i = 0; i < 16; i++) a[i] = i;
#pragma omp target data map(to : a[0:4])
  {
#pragma omp target map(to : a[0:16]) map(tofrom : s1)
    for (int i = 0; i < 16; i++) s1 += a[i];
#pragma omp target map(to : a[0:4]) map(tofrom : s2)
    for (int i = 0; i < 4; i++) s2 += a[i];
  }
#pragma omp target data map(to : a[0:8])
#pragma omp target map(to : a[0:16]) map(tofrom : s3)
  for (int i = 0; i < 16; i++) s3 += 2 * a[i];
  int ok = s1 == 120 && s2 == 6 && s3 == 240;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
