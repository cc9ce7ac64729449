// A C++ kernel calling member functions of a class mapped by value, with a
// lambda, and a pointer member.
#include <cstdio>
#include <vector>

struct Scaler {
  double factor;
  double offset;
  double apply(double v) const { return v * factor + offset; }
};

int main() {
  std::vector<double> data(4096);
  for (size_t i = 0; i < data.size(); i++)
    data[i] = double(i);
  Scaler s{3.0, -1.0};
  double *d = data.data();
  int n = int(data.size());
#pragma omp target teams distribute parallel for map(tofrom: d[0:n]) map(to: s)
  for (int i = 0; i < n; i++) {
    auto twice = [&](double v) { return s.apply(s.apply(v)); };
    d[i] = twice(d[i]);
  }
  std::printf("cxx_class %.1f %.1f\n", d[0], d[n - 1]);
  return 0;
}
