// mapper_cpp_class.cpp - a default mapper for a C++ class with a heap buffer.
#include <cstdlib>
#include "check.h"

struct Buffer {
  int n;
  long *data;
};
#pragma omp declare mapper(Buffer b) map(b, b.data[0:b.n])

int main() {
  Buffer b{48, static_cast<long *>(std::malloc(48 * sizeof(long)))};
  for (int i = 0; i < b.n; i++) b.data[i] = i;
#pragma omp target teams distribute parallel for map(tofrom : b)
  for (int i = 0; i < 48; i++) b.data[i] = -b.data[i];
  for (int i = 0; i < 48; i++) CHECK_EQ(b.data[i], -i);
  std::free(b.data);
  return check_finish();
}
