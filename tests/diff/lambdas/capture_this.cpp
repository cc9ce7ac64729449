// capture_this.cpp - a lambda capturing `this`, called on the device (item 3).
// OpenMP 5.0 2.19.7.1: the captured `this` refers to the mapped object.
// LLVM 13-19 leave it untranslated and fail (README.md); the standard is
// followed here.
#include "check.h"

class Grid {
 public:
  int cells[32] = {};
  int offset = 4;
  void run() {
    auto set = [this](int i) { cells[i] = i + offset; };
#pragma omp target map(tofrom : this[0:1])
    for (int i = 0; i < 32; i++) set(i);
  }
};

int main() {
  Grid g;
  g.run();
  for (int i = 0; i < 32; i++) CHECK_EQ(g.cells[i], i + 4);
  return check_finish();
}
