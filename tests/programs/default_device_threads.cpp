// default_device_threads.cpp - the default device is an ICV of each host
// thread: two OpenMP threads that each call omp_set_default_device map and
// run on their own device, and one that chooses the initial device runs its
// regions on the host.
// env: SIMDEVICE_NUM_DEVICES=2
// cflags: -O2
// expect: a Buffer object per thread, entered with `target enter data` and
// filled by a region (both without a device clause), is present on the
// thread's chosen device only and holds that thread's values; the thread that
// chose the initial device fills the host buffer in place.
#include <omp.h>
#include <vector>
#include "check.h"

class Buffer {
public:
  explicit Buffer(int n) : n_(n), data_(new int[n]()) {}
  ~Buffer() { delete[] data_; }
  void enter() {
    int *d = data_;
#pragma omp target enter data map(alloc : d[0:n_])
  }
  void exit_back() {
    int *d = data_;
#pragma omp target exit data map(from : d[0:n_])
  }
  // Fills on the default device; returns omp_is_initial_device() there.
  int fill(int value) {
    int *d = data_, on_host = -1, n = n_;
#pragma omp target map(from : on_host) map(alloc : d[0:n])
    {
      on_host = omp_is_initial_device();
      for (int i = 0; i < n; i++)
        d[i] = value + i;
    }
    return on_host;
  }
  bool present_on(int dev) const { return omp_target_is_present(data_, dev) != 0; }
  bool holds(int value) const {
    for (int i = 0; i < n_; i++)
      if (data_[i] != value + i)
        return false;
    return true;
  }

private:
  int n_;
  int *data_;
};

int main() {
  const int ndev = omp_get_num_devices();
  CHECK(ndev >= 2);
  const int host = omp_get_initial_device();
  // thread t chooses: 0 -> device 1, 1 -> device 0, 2 -> the host
  const int chosen[3] = {ndev >= 2 ? 1 : 0, 0, host};
  int ok_default[3] = {0, 0, 0}, on_host[3] = {-1, -1, -1};
  int present_chosen[3] = {0, 0, 0}, present_other[3] = {1, 1, 1}, holds[3] = {0, 0, 0};
  std::vector<Buffer *> buffers;
  for (int t = 0; t < 3; t++)
    buffers.push_back(new Buffer(256));
#pragma omp parallel num_threads(3)
  {
    int t = omp_get_thread_num();
    if (t < 3) {
      omp_set_default_device(chosen[t]);
      ok_default[t] = omp_get_default_device() == chosen[t];
#pragma omp barrier
      Buffer &b = *buffers[t];
      b.enter();
      on_host[t] = b.fill(1000 * (t + 1));
      present_chosen[t] = chosen[t] == host || b.present_on(chosen[t]);
      present_other[t] = 0;
      for (int d = 0; d < ndev; d++)
        if (d != chosen[t] && b.present_on(d))
          present_other[t] = 1;
      b.exit_back();
      holds[t] = b.holds(1000 * (t + 1));
    }
  }
  for (int t = 0; t < 3; t++) {
    CHECK(ok_default[t]);
    CHECK_EQ(on_host[t], chosen[t] == host);
    CHECK(present_chosen[t]);
    CHECK_EQ(present_other[t], 0);
    CHECK(holds[t]);
    delete buffers[t];
  }
  return check_finish();
}
