// use_device_ptr_cpp_member.cpp - use_device_ptr of a member pointer
// inside a member function; the device address goes to a kernel.
#include <cstdlib>
#include "check.h"

struct Field {
  int n = 40;
  int *v = static_cast<int *>(std::calloc(40, sizeof(int)));
  ~Field() { std::free(v); }
  int *device_view() {
    int *q = v, *dq = nullptr;
#pragma omp target data use_device_ptr(q)
    dq = q;
    return dq;
  }
};

int main() {
  Field f;
  int *q = f.v;
#pragma omp target data map(tofrom : q[0:40])
  {
    int *d = f.device_view();
#pragma omp target is_device_ptr(d)
    for (int i = 0; i < 40; i++) d[i] = i + 1;
  }
  for (int i = 0; i < 40; i++) CHECK_EQ(f.v[i], i + 1);
  return check_finish();
}
