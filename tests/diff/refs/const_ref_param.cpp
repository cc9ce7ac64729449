// const_ref_param.cpp - a const reference read on the device, implicitly.
#include "check.h"

struct Params { double a, b; };

static double eval(const Params &p, double x) {
  double y = 0;
#pragma omp target map(from : y)
  y = p.a * x + p.b;
  return y;
}

int main() {
  Params p{3.0, 1.0};
  CHECK(eval(p, 2.0) == 7.0);
  return check_finish();
}
