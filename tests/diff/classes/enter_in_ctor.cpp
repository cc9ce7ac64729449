// enter_in_ctor.cpp - RAII: the constructor maps the buffer (enter data),
// the destructor unmaps it; kernels in between use the device copy.
#include <cstdlib>
#include "check.h"

class DeviceBuf {
 public:
  explicit DeviceBuf(int n) : n(n), p(static_cast<int *>(std::calloc(n, sizeof(int)))) {
#pragma omp target enter data map(to : p[0:n])
  }
  ~DeviceBuf() {
#pragma omp target exit data map(delete : p[0:n])
    std::free(p);
  }
  void fill(int v) {
    int *q = p;
#pragma omp target map(q[0:n])
    for (int i = 0; i < n; i++) q[i] = v + i;
  }
  void fetch() {
#pragma omp target update from(p[0:n])
  }
  int n;
  int *p;
};

int main() {
  DeviceBuf b(200);
  b.fill(9);
  CHECK_EQ(b.p[5], 0);
  b.fetch();
  for (int i = 0; i < 200; i++) CHECK_EQ(b.p[i], 9 + i);
  return check_finish();
}
