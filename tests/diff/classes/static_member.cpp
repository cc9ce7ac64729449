// static_member.cpp - a kernel in a static member function reading a
// buffer passed in, writing a result member of a local object.
#include "check.h"

struct Summer {
  static long sum(const int *v, int n) {
    long s = 0;
#pragma omp target map(to : v[0:n]) map(tofrom : s)
    for (int i = 0; i < n; i++) s += v[i];
    return s;
  }
};

int main() {
  int v[300];
  for (int i = 0; i < 300; i++) v[i] = i;
  CHECK_EQ(Summer::sum(v, 300), 299 * 300 / 2);
  CHECK_EQ(Summer::sum(v + 100, 10), 1045);
  return check_finish();
}
