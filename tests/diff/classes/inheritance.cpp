// inheritance.cpp - a derived object mapped whole; members of the base
// and of the derived class are used on the device.
#include "check.h"

struct Base { int base_vals[4] = {1, 2, 3, 4}; };
struct Derived : Base { int scale = 10; int out[4] = {}; };

int main() {
  Derived d;
#pragma omp target map(tofrom : d)
  for (int i = 0; i < 4; i++) d.out[i] = d.base_vals[i] * d.scale;
  for (int i = 0; i < 4; i++) CHECK_EQ(d.out[i], 10 * (i + 1));
  return check_finish();
}
