// nested_mapper_ptr.cpp - issue item 6: a default mapper for a struct whose
// members have their own default mapper, each mapping a pointer's section;
// an array of such structs, C++ at -O2.
// cflags: -O2
// expect: every a.v[i] gets b.v[i] added on the device, tags incremented
#include "check.h"

struct Vec {
  int n;
  double *v;
};
#pragma omp declare mapper(Vec x) map(x.n, x.v[0 : x.n])

struct Pair {
  Vec a;
  Vec b;
  int tag;
};
#pragma omp declare mapper(Pair p) map(p.a, p.b, p.tag)

int main() {
  const int n = 16;
  Pair ps[3];
  for (int k = 0; k < 3; k++) {
    ps[k].a = {n, new double[n]};
    ps[k].b = {n, new double[n]};
    ps[k].tag = k;
    for (int i = 0; i < n; i++) {
      ps[k].a.v[i] = i;
      ps[k].b.v[i] = 100 * (k + 1);
    }
  }
#pragma omp target map(tofrom : ps)
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < ps[k].a.n; i++) ps[k].a.v[i] += ps[k].b.v[i];
    ps[k].tag += 10;
  }
  for (int k = 0; k < 3; k++) {
    CHECK_EQ(ps[k].tag, k + 10);
    for (int i = 0; i < n; i++) CHECK(ps[k].a.v[i] == i + 100 * (k + 1));
    delete[] ps[k].a.v;
    delete[] ps[k].b.v;
  }
  return check_finish();
}
