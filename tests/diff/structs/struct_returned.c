/* struct_returned.c - a struct filled on the device and mapped from. */
#include "check.h"

struct stats { long sum; int min, max; };

int main(void) {
  int v[100];
  for (int i = 0; i < 100; i++) v[i] = (i * 37) % 101;
  struct stats st;
#pragma omp target map(to : v) map(from : st)
  {
    st.sum = 0; st.min = 1000; st.max = -1;
    for (int i = 0; i < 100; i++) {
      st.sum += v[i];
      if (v[i] < st.min) st.min = v[i];
      if (v[i] > st.max) st.max = v[i];
    }
  }
  long sum = 0;
  for (int i = 0; i < 100; i++) sum += v[i];
  CHECK_EQ(st.sum, sum);
  CHECK_EQ(st.min, 0);
  CHECK_EQ(st.max, 100);
  return check_finish();
}
