/* 08-declare-target/program.c - declare target: a global and a function
 * that exist on the device too.
 * info: 0x29
 * The device global is a separate variable; it
 * starts with the initial value and changes only through target update. */
#include <stdio.h>

#pragma omp declare target
int threshold = 10;
int above(int x) { return x > threshold; }
#pragma omp end declare target

static int count_above(const int *v, int n) {
  int count = 0;
#pragma omp target map(to : v[0:n]) map(tofrom : count)
  for (int i = 0; i < n; i++) count += above(v[i]);
  return count;
}

int main(void) {
  int v[8] = {1, 5, 9, 12, 15, 20, 3, 11};
  int first = count_above(v, 8);      /* device threshold 10: 4 */
  threshold = 14;                     /* changes the host copy only */
  int second = count_above(v, 8);     /* device still 10: 4 */
#pragma omp target update to(threshold)
  int third = count_above(v, 8);      /* device now 14: 2 */
  printf("above 10: %d; after host-only change: %d; after update: %d\n",
         first, second, third);
  int ok = first == 4 && second == 4 && third == 2;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return !ok;
}
