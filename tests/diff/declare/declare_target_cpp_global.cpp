// declare_target_cpp_global.cpp - a declare target C++ global object with a
// constant initializer, read and written on the device.
#include "check.h"

struct Limits { int lo, hi; };
#pragma omp declare target
Limits lim = {2, 9};
#pragma omp end declare target

int main() {
  int span = 0;
#pragma omp target map(from : span)
  {
    span = lim.hi - lim.lo;
    lim.hi = 100;
  }
#pragma omp target update from(lim)
  CHECK_EQ(span, 7);
  CHECK_EQ(lim.hi, 100);
  return check_finish();
}
