/* nowait_threads.c - throughput of `target nowait` from several host threads
 * (issue 15, item 13): T host threads (default 8) each run 200 small
 * `target nowait` regions, each followed by a taskwait; `s` runs them
 * synchronously instead. Prints "metric value unit" lines (tests/bench.sh
 * runs it on LLVM 19's runtime and on simtarget):
 *   nowait_threads_ms   wall time of all regions (synchronous_threads_ms
 *                       with `s`)
 * Not run by make check (a timing); build it with clang 16 or newer, whose
 * libomp polls __tgt_target_nowait_query:
 *   clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu \
 *     tests/bench/nowait_threads.c -o build/bench/nowait_threads
 *   LD_LIBRARY_PATH=build/lib:<clang 19's libomp dir> \
 *     build/bench/nowait_threads n 8 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64
#define REGIONS 200
#define LEN 64

static double data[MAX_THREADS][LEN];

int main(int argc, char **argv) {
  int synchronous = argc > 1 && argv[1][0] == 's';
  int threads = argc > 2 ? atoi(argv[2]) : 8;
  if (threads < 1 || threads > MAX_THREADS) return 2;
  double start = omp_get_wtime();
#pragma omp parallel num_threads(threads)
  {
    double *d = data[omp_get_thread_num()];
    for (int r = 0; r < REGIONS; r++) {
      if (synchronous) {
#pragma omp target map(tofrom : d[0:LEN])
        for (int i = 0; i < LEN; i++) d[i] += 1;
      } else {
#pragma omp target map(tofrom : d[0:LEN]) nowait
        for (int i = 0; i < LEN; i++) d[i] += 1;
#pragma omp taskwait
      }
    }
  }
  double seconds = omp_get_wtime() - start;
  int wrong = 0;
  for (int t = 0; t < threads; t++)
    for (int i = 0; i < LEN; i++) wrong += data[t][i] != REGIONS;
  printf("%s_threads_ms %.3f ms\n", synchronous ? "synchronous" : "nowait",
         seconds * 1e3);
  if (wrong)
    fprintf(stderr, "nowait_threads: %d threads x %d regions: %d wrong\n",
            threads, REGIONS, wrong);
  return wrong != 0;
}
