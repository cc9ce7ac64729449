// Two members of a struct: a combined entry and MEMBER_OF entries.
#include <stdio.h>
struct S { int a; double pad[4]; int b; };
int main(void) {
  struct S s = {1, {0}, 2};
#pragma omp target map(tofrom : s.a, s.b)
  { s.a += 10; s.b += 20; }
  int ok = s.a == 11 && s.b == 22;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
