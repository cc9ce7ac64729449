// A C++ class whose method runs a kernel inside `target data`: the kernel's
// `map(from:)` copies nothing (the enclosing construct holds the count), so
// the lambda that reads the result inside the data region sees the host's
// old values; only the end of `target data` brings them back.
// check-finding: from-skipped-read out[0:4] class_read_inside_data.cpp:23
// check-args: --only plain,stale,stale-memcheck
// check-versions: 14 22
// check-stdout: ^after 64.0$
#include <cstdio>
#include <vector>

class Totals {
public:
  explicit Totals(int n) : v(n, 1.0) {}
  double run() {
    double *in = v.data();
    int n = (int)v.size();
    double *out = total;
    auto first = [&] { return out[0]; };
    double seen = 0;
#pragma omp target data map(tofrom : out[0:4]) map(to : in[0:n])
    {
#pragma omp target map(from : out[0:4])
      {
        for (int k = 0; k < 4; k++)
          for (int i = 0; i < n / 4; i++)
            out[k] += in[k * (n / 4) + i];
      }
      seen = first(); // inside target data: the host's 0.0
    }
    if (seen != out[0])
      std::printf("inside %.1f\n", seen);
    return out[0] + out[1] + out[2] + out[3];
  }

private:
  std::vector<double> v;
  double total[4] = {0, 0, 0, 0};
};

int main() {
  Totals t(64);
  double sum = t.run();
  std::printf("after %.1f\n", sum);
  return sum != 64.0;
}
