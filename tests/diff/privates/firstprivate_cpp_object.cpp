// firstprivate_cpp_object.cpp - firstprivate of a C++ object with a
// copy constructor-free aggregate and a method called on the device.
#include "check.h"

struct Poly {
  double c[3];
  double at(double x) const { return c[0] + x * (c[1] + x * c[2]); }
};

int main() {
  Poly p{{1, 2, 3}};
  double ys[5];
#pragma omp target teams distribute parallel for firstprivate(p) map(from : ys)
  for (int i = 0; i < 5; i++) ys[i] = p.at(i);
  for (int i = 0; i < 5; i++) CHECK(ys[i] == 1 + 2.0 * i + 3.0 * i * i);
  return check_finish();
}
