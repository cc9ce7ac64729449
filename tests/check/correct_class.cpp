// Correct: a class maps its array, a lambda indexes the device copy.
// check-finding: none
// check-stdout: ^total = 512 PASS$
#include <cstdio>

class Field {
public:
  explicit Field(int n) : n_(n), data_(new double[n]) {
    for (int i = 0; i < n; i++)
      data_[i] = 1.0;
  }
  ~Field() { delete[] data_; }
  double total() const {
    double s = 0;
    const double *data = data_;
    int n = n_;
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : data[0:n])
    for (int i = 0; i < n; i++) {
      auto at = [=](int k) { return data[k]; };
      s += at(i);
    }
    return s;
  }

private:
  int n_;
  double *data_;
};

int main() {
  Field f(512);
  double t = f.total();
  std::printf("total = %g %s\n", t, t == 512 ? "PASS" : "FAIL");
  return t != 512;
}
