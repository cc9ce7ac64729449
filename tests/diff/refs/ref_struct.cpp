// ref_struct.cpp - a struct passed by reference, one member mapped.
#include "check.h"

struct Acc { int hits; double total[8]; };

static void account(Acc &a) {
#pragma omp target map(tofrom : a.total)
  for (int i = 0; i < 8; i++) a.total[i] += i;
}

int main() {
  Acc a{3, {}};
  account(a);
  account(a);
  for (int i = 0; i < 8; i++) CHECK(a.total[i] == 2.0 * i);
  CHECK_EQ(a.hits, 3);
  return check_finish();
}
