/* 12-nowait-depend/program.c - nowait regions run while the host goes on,
 * and at the same time as each other; depend orders them; taskwait waits.
 * info: 0x01
 * golden: no
 * expect: ^region A saw region B's flag: yes, they overlapped$
 * expect: ^sum after both = 3 \(1 \+ 2\)$
 * Region A waits (up to 5 seconds) for a flag that region B sets: A can
 * only see it if both run at once. Region C depends on both results, so it
 * starts only when A and B have finished. */
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
int flag = 0;
#pragma omp end declare target

int main(void) {
  int a_saw = 0, b_val = 0, sum = 0;
#pragma omp target nowait map(from : a_saw) depend(out : a_saw)
  {
    double start = omp_get_wtime();
    int f = 0;
    while (!f && omp_get_wtime() - start < 5.0) {
#pragma omp atomic read
      f = flag;
    }
    a_saw = f;
  }
#pragma omp target nowait map(from : b_val) depend(out : b_val)
  {
#pragma omp atomic write
    flag = 1;
    b_val = 2;
  }
  printf("host: A and B are queued; the host goes on\n");
#pragma omp target nowait map(to : a_saw, b_val) map(from : sum) \
    depend(in : a_saw, b_val)
  sum = a_saw + b_val;
#pragma omp taskwait
  printf("region A saw region B's flag: %s\n",
         a_saw ? "yes, they overlapped" : "no, they ran one after the other");
  printf("sum after both = %d (1 + 2)\n", sum);
  int ok = a_saw == 1 && sum == 3;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return !ok;
}
