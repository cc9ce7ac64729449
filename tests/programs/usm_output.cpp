// usm_output.cpp - device printf from C++ code (a class's member function, a
// lambda, several host threads) of a `requires unified_shared_memory`
// program reaches a pipe and a file in program order, and a line printed by
// the last region before exit() is not lost.
// cflags: -O2
// ppc64le-skip: requires unified_shared_memory, which simdevice serves by running kernels in the (x86-64) host process
// expect: both children print every line; each host line follows the device
// lines of the regions before it.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "child_output.h"

#pragma omp requires unified_shared_memory

class Counter {
public:
  explicit Counter(int n) : n_(n), values_(new int[n]()) {}
  ~Counter() { delete[] values_; }
  void bump_and_report(const char *who) {
    int *v = values_, n = n_;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
      v[i] += i;
#pragma omp target
    printf("device %s sum %d\n", who, sum_on_device());
  }

private:
#pragma omp declare target
  int sum_on_device() const {
    int s = 0;
    for (int i = 0; i < n_; i++)
      s += values_[i];
    return s;
  }
#pragma omp end declare target
  int n_;
  int *values_;
};

template <typename F> static void on_device(F f) {
#pragma omp target
  f();
}

static void child_work() {
  Counter c(10);
  printf("host start\n");
  c.bump_and_report("first");
  printf("host between\n");
  int scale = 3;
  on_device([=]() { printf("device lambda %d\n", scale * 14); });
  printf("host after lambda\n");
#pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
#pragma omp target firstprivate(me)
    printf("device from host thread %d\n", me);
  }
  printf("host after threads\n");
  c.bump_and_report("second");
  exit(0); // the device line before must still be there
}

static const char *const ordered[] = {
    "host start\n",         "device first sum 45\n", "host between\n",
    "device lambda 42\n",   "host after lambda\n",   "host after threads\n",
    "device second sum 90\n"};

static void check_text(const char *how, const char *text) {
  CHECK(child_output_in_order(how, text, ordered,
                              sizeof ordered / sizeof ordered[0]));
  const char *from = strstr(text, "host after lambda\n");
  const char *to = strstr(text, "host after threads\n");
  for (int i = 0; i < 2 && from && to; i++) {
    char line[64];
    snprintf(line, sizeof line, "device from host thread %d\n", i);
    const char *found = strstr(from, line);
    CHECK(found != NULL && found < to);
  }
}

int main(int argc, char **argv) {
  (void)argc;
  if (child_output_mode() != NULL)
    child_work();
  static char text[1 << 16], errors[1 << 16];
  const char *hows[2] = {"pipe", "file"};
  for (int k = 0; k < 2; k++) {
    int before = check_failures;
    int status = k == 0 ? child_output_through_pipe(argv[0], "work", text, sizeof text, errors,
                                                    sizeof errors)
                        : child_output_through_file(argv[0], "work", text, sizeof text, errors,
                                                    sizeof errors);
    CHECK_EQ(status, 0);
    check_text(hows[k], text);
    if (check_failures > before)
      printf("--- %s child's stdout:\n%s--- its stderr:\n%s---\n", hows[k], text, errors);
  }
  return check_finish();
}
/* mpi-skip: requires unified_shared_memory, which a remote device cannot give (init_device refuses it by name) */
