// ref_member.cpp - a class holding a reference to an outside array.
#include "check.h"

struct View {
  int (&data)[16];
  explicit View(int (&d)[16]) : data(d) {}
  void twice() {
#pragma omp target map(tofrom : data)
    for (int i = 0; i < 16; i++) data[i] *= 2;
  }
};

int main() {
  int d[16];
  for (int i = 0; i < 16; i++) d[i] = i;
  View v(d);
  v.twice();
  for (int i = 0; i < 16; i++) CHECK_EQ(d[i], 2 * i);
  return check_finish();
}
