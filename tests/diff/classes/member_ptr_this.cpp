// member_ptr_this.cpp - a class owning a heap buffer maps this->data[0:n]
// in a member function.
#include <cstdlib>
#include "check.h"

class Vec {
 public:
  explicit Vec(int n) : n_(n), data_(static_cast<double *>(std::malloc(n * sizeof(double)))) {
    for (int i = 0; i < n_; i++) data_[i] = i;
  }
  ~Vec() { std::free(data_); }
  void scale(double f) {
#pragma omp target teams distribute parallel for map(tofrom : data_[0:n_])
    for (int i = 0; i < n_; i++) data_[i] *= f;
  }
  double at(int i) const { return data_[i]; }

 private:
  int n_;
  double *data_;
};

int main() {
  Vec v(500);
  v.scale(4.0);
  for (int i = 0; i < 500; i++) CHECK(v.at(i) == 4.0 * i);
  return check_finish();
}
