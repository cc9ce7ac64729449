// ctor.cpp - a C++ declare target global object with a constructor and a
// destructor: the device copy is constructed on the device before the first
// region runs.
// expect: the device object holds the constructor's value, and changes to it
// stay on the device.
#include <omp.h>
#include <cstdio>
#include "check.h"

struct Counter {
  int value;
  Counter() : value(40) { value += 2; }
  ~Counter() { value = -1; }
  int bump() { return ++value; }
};

#pragma omp declare target
Counter counter;
#pragma omp end declare target

int main() {
  int first = 0, second = 0, on_host = -1;
#pragma omp target map(from : first, on_host)
  {
    first = counter.bump();
    on_host = omp_is_initial_device();
  }
#pragma omp target map(from : second)
  second = counter.bump();
  printf("device: %d then %d, host: %d\n", first, second, counter.value);
  CHECK_EQ(first, 43);
  CHECK_EQ(second, 44);
  CHECK_EQ(on_host, 0);
  CHECK_EQ(counter.value, 42); // the host object was never bumped
  return check_finish();
}
