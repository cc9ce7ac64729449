// The host changes an input after mapping it and launches again without
// `target update to`: the second kernel reads the old values. A lambda
// does the work on the device.
// stale-expect: stale-launch in[0:n] 1
// cflags: -O2
#include <cstdio>

int main() {
  const int n = 256;
  double in[n], out[n];
  for (int i = 0; i < n; i++)
    in[i] = 1.0;
  auto twice = [](double x) { return 2 * x; };
#pragma omp target data map(to: in[0:n]) map(from: out[0:n])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
      out[i] = twice(in[i]);
    for (int i = 0; i < n; i++)
      in[i] = 5.0; /* a new input, never sent */
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
      out[i] = twice(in[i]);
  }
  std::printf("out[0] = %.1f\n", out[0]);
  return 0;
}
