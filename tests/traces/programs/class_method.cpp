// A C++ class whose method offloads its own array through `this`, and a
// lambda (capturing by reference) called inside the region.
#include <cstdio>
#include <cstdlib>
class Grid {
public:
  explicit Grid(int n) : n_(n), v_(static_cast<double *>(std::malloc(n * sizeof(double)))) {
    for (int i = 0; i < n_; i++) v_[i] = i;
  }
  ~Grid() { std::free(v_); }
  void scale(double f) {
#pragma omp target map(tofrom : this->v_[0:n_]) map(to : f)
    {
      auto mul = [&](int i) { v_[i] *= f; };
      for (int i = 0; i < n_; i++) mul(i);
    }
  }
  double at(int i) const { return v_[i]; }
private:
  int n_;
  double *v_;
};
int main() {
  Grid g(16);
  g.scale(2.0);
  bool ok = g.at(15) == 30.0 && g.at(1) == 2.0;
  std::puts(ok ? "PASS" : "FAIL");
  return !ok;
}
