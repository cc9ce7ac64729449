// vg_race_histogram.cpp - a histogram in a C++ class: a member function
// offloads through a lambda, threads of several teams count into
// bins[0:8] (a global pointer) with a plain `++`, no atomic. DRD reports
// the racing accesses at their line; simdevice names the section and the
// byte offset of the racing bin, whichever bin that is.
// simtarget-only
// versions: 14 19
// cflags: -O2 -g
// env: SIMDEVICE_VALGRIND=drd
// vg-expect: Conflicting (load|store) by thread [0-9]+ at 0x[0-9a-f]+ size 4
// vg-expect: at 0x[0-9A-F]+: .* \(.*vg_race_histogram.cpp:3[01]\)
// vg-expect: simdevice: Valgrind's drd reported errors in kernel `__omp_offloading_[0-9a-f]+_[0-9a-f]+_.*l2[789]` \(above\): threads or teams of the kernel race on `bins\[0:8\]` \(device address 0x[0-9a-f]+, (0|4|8|12|16|20|24|28) bytes into it; map\(tofrom\) at .*vg_race_histogram.cpp:2[6-9]:[0-9]+
// vg-finding: "check":"drd","rule":"data-race","variable":"bins\[0:8\]"
// vg-stderr-not: race on memory
// expect: DRD's report at the `++` line, and `bins[0:8]` named
#include <cstdio>
#include <cstdlib>

int *bins; // the histogram's device copy is this global pointer's section

class Histogram {
public:
  const int *data;
  int n;
  void count() {
    auto body = [&]() {
#pragma omp target teams distribute parallel for num_teams(2) num_threads(2) \
    map(to : data[0:n]) map(tofrom : bins[0:8])
      for (int i = 0; i < n; i++)
        bins[data[i] & 7]++;
    };
    body();
  }
};

int main() {
  const int n = 256;
  int *data = static_cast<int *>(malloc(n * sizeof(int)));
  bins = static_cast<int *>(calloc(8, sizeof(int)));
  for (int i = 0; i < n; i++)
    data[i] = i;
  Histogram h{data, n};
  h.count();
  long total = 0;
  for (int b = 0; b < 8; b++)
    total += bins[b];
  std::printf("total %ld (a GPU loses some)\nPASS\n", total);
  free(data);
  free(bins);
  return 0;
}
