// lambda_ref_unmapped.cpp - a [&] lambda captures a heap pointer by reference
// and the kernel writes through it, the pointee never mapped.
// simtarget-only
// cflags: -g
// expect-exit: 1
// expect-stderr: `put`.*captures by reference
// clang gives the capture no name, so the message names the lambda `put`
// whose capture of `data` is unmapped.
#include <cstdlib>
#include "check.h"

int main() {
  int *data = static_cast<int *>(std::malloc((1 << 20) * sizeof(int)));
  auto put = [&](int i) { data[i] = i; };
#pragma omp target map(to : put)
  put(7);
  printf("wrote through an unmapped pointer\n");
  std::free(data);
  return 3;
}
