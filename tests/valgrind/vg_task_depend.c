/* vg_task_depend.c - a correct program: tasks on the device ordered by
 * depend clauses, the producer and the consumer of each block on
 * different threads, the sums combined atomically. Helgrind must stay
 * silent: the runtime's task dependences, barriers and taskwait are
 * happens-before edges for it (zero false reports).
 * versions: 14 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=helgrind
 * vg-expect-not: .
 * vg-stderr-not: ^==[0-9]+== |simdevice: 
 * expect: no report at all, and the right sum */
#include <stdio.h>
#include "check.h"

int main(void) {
  int a[64], b[64];
  for (int i = 0; i < 64; i++)
    a[i] = i;
  long s = 0;
#pragma omp target map(to : a) map(from : b) map(tofrom : s)
#pragma omp parallel num_threads(4)
#pragma omp single
  {
    for (int c = 0; c < 4; c++) {
#pragma omp task depend(out : b[c * 16]) firstprivate(c) shared(a, b)
      for (int i = c * 16; i < c * 16 + 16; i++)
        b[i] = 2 * a[i];
#pragma omp task depend(in : b[c * 16]) firstprivate(c) shared(b, s)
      {
        long t = 0;
        for (int i = c * 16; i < c * 16 + 16; i++)
          t += b[i];
#pragma omp atomic
        s += t;
      }
    }
#pragma omp taskwait
  }
  CHECK_EQ(s, 4032);
  CHECK_EQ(b[63], 126);
  return check_finish();
}
