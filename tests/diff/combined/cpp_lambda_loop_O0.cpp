// cpp_lambda_loop_O0.cpp - a combined construct whose body calls a lambda
// capturing a heap pointer by value, from a class method (item 3 shape).
// cflags: -O0
#include <cstdlib>
#include "check.h"

class Saxpy {
 public:
  Saxpy(int n) : n_(n), y_(static_cast<float *>(std::malloc(n * sizeof(float)))) {
    for (int i = 0; i < n_; i++) y_[i] = 1;
  }
  ~Saxpy() { std::free(y_); }
  void run(float a) {
    float *y = y_;
    auto op = [=](int i) { y[i] = a * i + y[i]; };
#pragma omp target teams distribute parallel for map(tofrom : y[0:n_])
    for (int i = 0; i < n_; i++) op(i);
  }
  float at(int i) const { return y_[i]; }

 private:
  int n_;
  float *y_;
};

int main() {
  Saxpy s(1000);
  s.run(2.0f);
  for (int i = 0; i < 1000; i++) CHECK(s.at(i) == 2.0f * i + 1);
  return check_finish();
}
