/* 12-nowait-depend/broken_no_taskwait.c - reading a nowait result before
 * waiting for it.
 * info: 0x00
 * golden: no
 * expect-exit: 1
 * expect: ^result before taskwait = 0 \(want 42\)$
 * The region is still running when the host prints `result`: its map(from)
 * copies back only when the region completes. The host must wait first
 * (taskwait, or a depend on a later construct). No runtime reports it;
 * the region takes a second here, so the wrong value is
 * certain. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int result = 0;
#pragma omp target nowait map(from : result)
  {
    double start = omp_get_wtime();
    while (omp_get_wtime() - start < 1.0)
      ;
    result = 42;
  }
  int early = result;
  printf("result before taskwait = %d (want 42)\n", early);
#pragma omp taskwait
  printf("result after taskwait = %d\n", result);
  printf("%s\n", early == 42 ? "PASS" : "FAIL");
  return early != 42;
}
