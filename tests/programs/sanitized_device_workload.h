/*
 * sanitized_device_workload.h - correct offload work for device code built
 * with a sanitizer (sanitize_device_*.cpp): sections whose ends are not
 * 8-byte aligned (13 chars, 7 shorts, 5 ints: AddressSanitizer on the device
 * checks them to the byte, and every access here stays inside), a file-scope
 * pointer, a class whose method offloads a lambda, a teams reduction,
 * and target data with update.
 */
#include <omp.h>
#include <cstdio>
#include <cstdlib>
#include "check.h"

static char *label; /* a file-scope pointer: 13 chars */

/* 1 in code built with AddressSanitizer (each side compiles this apart). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BUILT_WITH_ASAN 1
#endif
#endif
#ifndef BUILT_WITH_ASAN
#define BUILT_WITH_ASAN 0
#endif

class Histogram {
public:
  explicit Histogram(int bins) : bins_(bins), counts_(new short[bins]()) {}
  ~Histogram() { delete[] counts_; }
  /* Counts each value v of data[0:n] into bin v % bins on the device. */
  template <typename F> void fill(const int *data, int n, F bin_of) {
    short *counts = counts_;
    int bins = bins_;
#pragma omp target map(to : data[0:n]) map(tofrom : counts[0:bins])
    for (int i = 0; i < n; i++)
      counts[bin_of(data[i], bins)] += 1;
  }
  short at(int i) const { return counts_[i]; }

private:
  int bins_;
  short *counts_;
};

static int run_sanitized_device_workload(void) {
  int device_asan = -1;
#pragma omp target map(from : device_asan)
  device_asan = BUILT_WITH_ASAN;
  /* The test is void if the device code is not built with its sanitizer
   * (a program for another sanitizer defines WANT_DEVICE_ASAN 0). */
#ifndef WANT_DEVICE_ASAN
#define WANT_DEVICE_ASAN 1
#endif
  CHECK_EQ(device_asan, WANT_DEVICE_ASAN);

  const int n = 13;
  label = static_cast<char *>(malloc(n));
  for (int i = 0; i < n; i++) label[i] = 'a' + i;
#pragma omp target teams distribute parallel for map(tofrom : label[0:n])
  for (int i = 0; i < n; i++) label[i] = label[i] - 'a' + 'A';
  CHECK(label[0] == 'A' && label[n - 1] == 'M');

  int odd[5] = {1, 2, 3, 4, 5};
  long sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum) map(to : odd[0:5])
  for (int i = 0; i < 5; i++) sum += odd[i];
  CHECK_EQ(sum, 15);

  Histogram h(7);
  h.fill(odd, 5, [](int v, int bins) { return v % bins; });
  CHECK_EQ(h.at(1) + h.at(2) + h.at(5), 3);

  double *v = static_cast<double *>(malloc(1000 * sizeof(double)));
  for (int i = 0; i < 1000; i++) v[i] = i;
#pragma omp target data map(tofrom : v[0:1000])
  {
    v[999] = -1;
#pragma omp target update to(v[999:1])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < 500; i++) v[i] *= 2;
#pragma omp target teams distribute parallel for
    for (int i = 500; i < 1000; i++) v[i] += 1;
  }
  CHECK(v[10] == 20 && v[600] == 601 && v[999] == 0);
  free(v);
  free(label);
  return check_finish();
}
