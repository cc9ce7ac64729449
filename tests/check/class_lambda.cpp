// A C++ class whose method hands a lambda the object's host pointer: the
// lambda's copy of `data` still points into host memory on the device.
// check-finding: host-address - class_lambda.cpp:22
// check-stdout: ^field of 512$
#include <cstdio>
#include <vector>

class Field {
public:
  explicit Field(int n) : n_(n), data_(new double[n]) {
    for (int i = 0; i < n; i++)
      data_[i] = 1.0;
  }
  ~Field() { delete[] data_; }
  int size() const { return n_; }
  double total() const {
    double s = 0;
    const double *data = data_;
    int n = n_;
    auto at = [=](int i) { return data[i]; };
    // the pointer's data is never mapped: only the lambda is
#pragma omp target map(tofrom : s)
    for (int i = 0; i < n; i++)
      s += at(i);
    return s;
  }

private:
  int n_;
  double *data_;
};

int main() {
  Field f(512);
  std::printf("field of %d\n", f.size());
  std::printf("total = %g\n", f.total());
  return 0;
}
