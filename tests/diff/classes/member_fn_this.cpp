// member_fn_this.cpp - a member function offloads work on its own array
// member through `this` (implicitly mapped this[0:1]).
#include "check.h"

class Counter {
 public:
  int vals[32] = {};
  void bump(int k) {
#pragma omp target map(tofrom : vals)
    for (int i = 0; i < 32; i++) vals[i] += k;
  }
};

int main() {
  Counter c;
  c.bump(2);
  c.bump(3);
  for (int i = 0; i < 32; i++) CHECK_EQ(c.vals[i], 5);
  return check_finish();
}
