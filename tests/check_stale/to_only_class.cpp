// A C++ class whose kernel writes an array mapped `to` only: the end of
// the `target` construct frees the device copy and the results with it.
// stale-expect: released-unread v[0:n] 1
// cflags: -O2
#include <cstdio>
#include <vector>

class Scaler {
public:
  explicit Scaler(int size) : n(size), v(new float[size]) {
    for (int i = 0; i < n; i++)
      v[i] = 1.0f;
  }
  ~Scaler() { delete[] v; }
  void scale(float f) {
    float *v = this->v;
    int n = this->n;
    auto mul = [=](int i) { v[i] *= f; };
#pragma omp target teams distribute parallel for map(to: v[0:n])
    for (int i = 0; i < n; i++)
      mul(i);
  }
  float first() const { return v[0]; }

private:
  int n;
  float *v;
};

int main() {
  Scaler s(1000);
  s.scale(3.0f);
  std::printf("first %.1f\n", s.first());
  return 0;
}
