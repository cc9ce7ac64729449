/* first_region_from_threads.cpp - several host threads reach their first
 * target region at the same moment, while the device process is still
 * starting (started at first use here, so they race into the start
 * itself): the thread that starts it waits for the start, the others for
 * that thread, and every region runs once, on the device. C++ as users
 * write it: a class whose member function offloads a lambda, a global
 * pointer, -O2.
 * cflags: -O2
 * env: SIMDEVICE_EARLY_START=0
 * expect: each of 6 threads' 20 regions adds its thread number to its own
 * slice of a global array, on the device. */
#include <omp.h>
#include <thread>
#include <vector>
#include "check.h"

#define THREADS 6
#define REGIONS 20
#define SLICE 32

double *totals; /* a global pointer, one slice per thread */

class Accumulator {
public:
  explicit Accumulator(int id) : id_(id) {}
  // Runs `step` on every element of this thread's slice, on the device.
  template <typename Step> int offload(Step step) {
    double *mine = totals + id_ * SLICE;
    int on_device = 0;
#pragma omp target map(tofrom : mine[0:SLICE], on_device)
    {
      on_device = !omp_is_initial_device();
      for (int i = 0; i < SLICE; i++)
        mine[i] = step(mine[i]);
    }
    return on_device;
  }

private:
  int id_;
};

int main() {
  totals = new double[THREADS * SLICE]();
  int on_device[THREADS] = {0};
  std::vector<std::thread> threads;
  for (int t = 0; t < THREADS; t++)
    threads.emplace_back([t, &on_device] {
      Accumulator acc(t);
      int add = t + 1;
      for (int r = 0; r < REGIONS; r++)
        on_device[t] += acc.offload([add](double x) { return x + add; });
    });
  for (auto &th : threads)
    th.join();
  for (int t = 0; t < THREADS; t++) {
    CHECK_EQ(on_device[t], REGIONS);
    for (int i = 0; i < SLICE; i++)
      CHECK_EQ((long long)totals[t * SLICE + i], (long long)(t + 1) * REGIONS);
  }
  delete[] totals;
  return check_finish();
}
