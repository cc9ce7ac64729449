/* sanitize_device_before.cpp - a lambda offloaded by a class reads one
 * short before its section (samples[lo:len] mapped, samples[lo-1] read: a
 * moving-average window that starts one too early), in device code built
 * with ASan (-Xarch_device -fsanitize=address). The bytes before a
 * section's start lie in the same page as it: no guard page catches them,
 * ASan in the device process does, and the failure names the line and
 * the section.
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 16 22
 * simtarget-only
 * cflags: -O2 -g -Xarch_device -fsanitize=address -Xoffload-linker -zundefs
 * expect-exit: 1
 * expect-stderr: AddressSanitizer in the device process: [a-z-]+ at sanitize_device_before.cpp:26:[0-9]+: .* read address .*2 bytes before the start of `samples\[lo:len\]`
 * expect: the read before the section's start is reported with its line
 * and variable. */
#include <cstdio>
#include <cstdlib>

static short *samples; /* a file-scope pointer */

class Smoother {
public:
  template <typename F> long window(int lo, int len, F weight) {
    long sum = 0;
#pragma omp target map(to : samples[lo:len]) map(tofrom : sum)
    for (int i = lo - 1; i < lo + len - 1; i++) sum += weight(samples[i]);
    return sum;
  }
};

int main(int argc, char **) {
  samples = static_cast<short *>(calloc(64, sizeof(short)));
  int lo = 8 + (argc > 100), len = 7;
  Smoother sm;
  long sum = sm.window(lo, len, [](short v) { return 2L * v; });
  std::printf("%ld\nPASS\n", sum);
  return 0;
}
