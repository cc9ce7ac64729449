// vg_short_short.cpp - a section of shorts one element short, in a C++
// class whose member function offloads through a lambda: map(to:
// v[0:n-1]) while the kernel reads v[n-1]. The 2 missing bytes lie in the
// padding before the guard page; memcheck's exact bounds catch them.
// simtarget-only
// versions: 14 19
// cflags: -O2 -g
// env: SIMDEVICE_VALGRIND=memcheck
// vg-expect: Invalid read of size 2
// vg-expect: at 0x[0-9A-F]+: .* \(.*vg_short_short.cpp:2[45]\)
// vg-expect: inside a device allocation of `(this->)?v\[0:(this->)?n - 1\]` \(map\(to\)
// expect: memcheck reports the 2-byte read past the section, with the line and the variable
#include <cstdio>
#include <cstdlib>

class Signal {
public:
  short *v;
  int n;
  long total() {
    long t = 0;
    auto body = [&]() {
#pragma omp target map(to : v[0:n - 1]) map(tofrom : t)
      for (int i = 0; i < n; i++)
        t += v[i];
    };
    body();
    return t;
  }
};

int main() {
  Signal s;
  s.n = 7;
  s.v = static_cast<short *>(malloc(s.n * sizeof(short)));
  for (int i = 0; i < s.n; i++)
    s.v[i] = static_cast<short>(i);
  printf("total %ld\nPASS\n", s.total());
  free(s.v);
  return 0;
}
