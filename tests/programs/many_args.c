/* many_args.c - target regions with more kernel arguments than registers:
 * 24 mapped arrays and 24 firstprivate scalars (clang passes each as its
 * own kernel argument), in a plain target and in a parallel region, so
 * both the kernel call and the outlined parallel call pass arguments on
 * the stack (x86-64: past 6; ppc64le: past 8, and the old portable call
 * stopped at 16).
 * expect: every array and scalar arrives in its own place: a[k][i] = k + i,
 * s0..s23 summed. */
#include <stdio.h>
#include "check.h"

#define N 8
#define LIST24(M, sep)                                                         \
  M(0) sep M(1) sep M(2) sep M(3) sep M(4) sep M(5) sep M(6) sep M(7) sep     \
  M(8) sep M(9) sep M(10) sep M(11) sep M(12) sep M(13) sep M(14) sep M(15)   \
  sep M(16) sep M(17) sep M(18) sep M(19) sep M(20) sep M(21) sep M(22) sep   \
  M(23)

int main(void) {
  long a0[N], a1[N], a2[N], a3[N], a4[N], a5[N], a6[N], a7[N], a8[N], a9[N],
      a10[N], a11[N], a12[N], a13[N], a14[N], a15[N], a16[N], a17[N], a18[N],
      a19[N], a20[N], a21[N], a22[N], a23[N];
  long s0 = 0, s1 = 1, s2 = 2, s3 = 3, s4 = 4, s5 = 5, s6 = 6, s7 = 7, s8 = 8,
       s9 = 9, s10 = 10, s11 = 11, s12 = 12, s13 = 13, s14 = 14, s15 = 15,
       s16 = 16, s17 = 17, s18 = 18, s19 = 19, s20 = 20, s21 = 21, s22 = 22,
       s23 = 23;
  long sum = 0;
#pragma omp target map(from : a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,   \
                           a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, \
                           a21, a22, a23) map(tofrom : sum)                  \
    firstprivate(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, \
                 s14, s15, s16, s17, s18, s19, s20, s21, s22, s23)
  {
#pragma omp parallel for num_threads(2)
    for (int i = 0; i < N; i++) {
#define SET(k) a##k[i] = s##k + i;
      LIST24(SET, )
    }
#define ADD(k) +s##k
    sum = 0 LIST24(ADD, );
  }
  CHECK_EQ(sum, 23 * 24 / 2);
  int bad = 0;
  for (int i = 0; i < N; i++) {
#define CHK(k) bad += a##k[i] != (k) + i;
    LIST24(CHK, )
  }
  CHECK_EQ(bad, 0);
  return check_finish();
}
