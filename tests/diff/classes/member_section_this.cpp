// member_section_this.cpp - a section of an array member, this->a[lo:n],
// from a member function called on a heap object.
#include "check.h"

struct Table {
  int a[100];
  void negate(int lo, int n) {
#pragma omp target map(tofrom : a[lo:n])
    for (int i = lo; i < lo + n; i++) a[i] = -a[i];
  }
};

int main() {
  Table *t = new Table;
  for (int i = 0; i < 100; i++) t->a[i] = i;
  t->negate(20, 30);
  for (int i = 0; i < 100; i++) CHECK_EQ(t->a[i], (i >= 20 && i < 50) ? -i : i);
  delete t;
  return check_finish();
}
