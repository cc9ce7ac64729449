/* nested_struct.c - a member of a member: o.in.arr[2:4]. */
#include "check.h"

struct inner { int arr[8]; };
struct outer { int tag; struct inner in; };

int main(void) {
  struct outer o = {7, {{0, 1, 2, 3, 4, 5, 6, 7}}};
#pragma omp target map(tofrom : o.in.arr[2:4])
  for (int i = 2; i < 6; i++) o.in.arr[i] *= 10;
  for (int i = 0; i < 8; i++) CHECK_EQ(o.in.arr[i], (i >= 2 && i < 6) ? 10 * i : i);
  CHECK_EQ(o.tag, 7);
  return check_finish();
}
