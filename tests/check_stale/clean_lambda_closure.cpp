// A correct program: a closure mapped `to` and called in a target loop,
// its captured pointer the device copy of an array mapped by `enter data`.
// The runtime points that capture at the device copy inside the closure's
// device copy: no result of the kernel, so nothing is reported.
// cflags: -O2
#include <cstdio>
#include <cstdlib>

template <typename Body>
static void parallel_index(int n, Body body) {
#pragma omp target teams distribute parallel for map(to: body)
  for (int i = 0; i < n; i++)
    body(i);
}

int main() {
  const int n = 512;
  float *y = static_cast<float *>(std::malloc(n * sizeof(float)));
  for (int i = 0; i < n; i++)
    y[i] = 1.0f;
#pragma omp target enter data map(to: y[0:n])
  parallel_index(n, [=](int i) { y[i] += 2.0f * i; });
#pragma omp target exit data map(from: y[0:n])
  std::printf("y[10] = %.1f\n", y[10]);
  std::free(y);
  return 0;
}
