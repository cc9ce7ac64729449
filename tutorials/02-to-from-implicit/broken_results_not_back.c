/* 02-to-from-implicit/broken_results_not_back.c - results mapped `to`.
 * info: 0x21
 * expect-exit: 1
 * expect: ^out\[3\] = 0 \(want 9\)$
 * The device squares in[] into out[], but out is mapped `to`: it is copied
 * in (zeros) and never copied back, so the host keeps its zeros. Legal
 * OpenMP, so no runtime reports it; the trace shows only copies "from host
 * to device" and none back. The fix: map(from : out). */
#include <stdio.h>

int main(void) {
  int in[4] = {0, 1, 2, 3}, out[4] = {0, 0, 0, 0};
#pragma omp target map(to : in) map(to : out)
  for (int i = 0; i < 4; i++) out[i] = in[i] * in[i];
  printf("out[3] = %d (want 9)\n", out[3]);
  printf("%s\n", out[3] == 9 ? "PASS" : "FAIL");
  return out[3] != 9;
}
