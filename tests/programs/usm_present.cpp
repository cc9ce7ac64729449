// usm_present.cpp - C++ objects under `requires unified_shared_memory`: a
// class whose methods map its members with `present`, never mapped before,
// and a lambda that captures the object; all are present because host
// memory is device memory (as on LLVM's runtime).
// cflags: -O2 -fopenmp-version=51
// ppc64le-skip: requires unified_shared_memory, which simdevice serves by running kernels in the (x86-64) host process
// expect-stderr-not: present|fatal|error
// expect: scale() and sum() run on the device with map(present...) of
// members never mapped, and see the host's values; the lambda's captured
// object too.
#include <omp.h>
#include <vector>
#include "check.h"

#pragma omp requires unified_shared_memory

class Field {
public:
  explicit Field(int n) : values_(n) {
    for (int i = 0; i < n; i++)
      values_[i] = i;
  }
  void scale(int factor) {
    int *v = values_.data();
    int n = (int)values_.size();
#pragma omp target teams distribute parallel for map(present, tofrom : v[0:n])
    for (int i = 0; i < n; i++)
      v[i] *= factor;
  }
  long sum() const {
    const int *v = values_.data();
    int n = (int)values_.size();
    long s = 0;
#pragma omp target map(present, to : v[0:n]) map(present, tofrom : s)
    for (int i = 0; i < n; i++)
      s += v[i];
    return s;
  }
  int at(int i) const { return values_[i]; }

private:
  std::vector<int> values_;
};

template <typename F> static int run_on_device(F f) {
  int on_device = 0;
#pragma omp target map(present, from : on_device) map(present, to : f)
  on_device = f();
  return on_device;
}

int main() {
  Field field(1000);
  field.scale(3);
  CHECK_EQ(field.at(999), 2997);
  CHECK_EQ(field.sum(), 3L * 999 * 1000 / 2);
  Field *f = &field;
  int seen = run_on_device([f]() { return f->at(10) + !omp_is_initial_device(); });
  CHECK_EQ(seen, 31);
  return check_finish();
}
/* mpi-skip: requires unified_shared_memory, which a remote device cannot give (init_device refuses it by name) */
