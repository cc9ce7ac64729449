/* lambda_capture.cpp - C++ lambdas inside target regions (issue 13, item 3):
 * captures by reference, a captured pointer, a lambda passed to a function
 * template, and `this` captured in a member function. clang passes the
 * captures as LITERAL|PTR_AND_OBJ|MEMBER_OF|IMPLICIT entries whose addresses
 * the runtime must point at the device copies.
 * cflags: -O2
 * expect: every lambda reads and writes the mapped data through its captures.
 */
#include <cstdlib>
#include "check.h"

#define N 64

template <typename F> static void apply_all(int n, F f) {
  for (int i = 0; i < n; i++)
    f(i);
}

struct Scaler {
  int *data;
  int factor;
  void scale(int n) {
#pragma omp target map(tofrom : data[0 : n]) map(to : factor)
    {
      auto op = [this](int i) { data[i] *= factor; };
      apply_all(n, op);
    }
  }
};

int main() {
  int *a = (int *)malloc(N * sizeof(int));
  int *b = (int *)malloc(N * sizeof(int));
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 0;
  }
  int total = 0;
  /* [&]: captures a, b and total by reference. */
#pragma omp target map(to : a[0 : N]) map(tofrom : b[0 : N]) map(tofrom : total)
  {
    auto add = [&](int i) {
      b[i] = a[i] + 1;
      total += a[i];
    };
    for (int i = 0; i < N; i++)
      add(i);
  }
  CHECK_EQ(total, N * (N - 1) / 2);
  for (int i = 0; i < N; i++)
    CHECK_EQ(b[i], i + 1);

  /* [=] capturing a pointer, passed to a function template. */
  int *p = b;
  auto twice = [=](int i) { p[i] *= 2; };
#pragma omp target map(tofrom : b[0 : N])
  apply_all(N, twice);
  for (int i = 0; i < N; i++)
    CHECK_EQ(b[i], 2 * (i + 1));

  Scaler s{a, 3};
  s.scale(N);
  for (int i = 0; i < N; i++)
    CHECK_EQ(a[i], 3 * i);
  free(a);
  free(b);
  return check_finish();
}
