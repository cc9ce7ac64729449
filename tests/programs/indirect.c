/* indirect.c - declare target indirect: host function pointers called
 * inside target regions, reached by value, through mapped data and by many
 * threads at once.
 * versions: 14 15 16 19 22
 * cflags: -fopenmp-version=51
 * expect: every call through a host pointer lands in the device version:
 * passed as an argument, stored in a mapped struct, picked at run time from
 * a mapped array, and in a teams distribute parallel for. clang 19/22 emit
 * the indirect table; 14-16 accept the clause but emit nothing, and the
 * runtime pairs the host and device functions by name (clang 13 rejects the
 * clause). */
#include <omp.h>
#include "check.h"

int add_one(int x) { return x + 1; }
int times_three(int x) { return x * 3; }
int negate(int x) { return -x; }
#pragma omp declare target to(add_one, times_three, negate) indirect

typedef int (*unary_fn)(int);

/* Chosen at run time so the compiler cannot fold the call. */
static unary_fn pick(int which) { return which ? add_one : times_three; }

struct op {
  int bias;
  unary_fn fn;
  int scale;
};

int main(int argc, char **argv) {
  (void)argv;
  /* a pointer passed as an argument */
  unary_fn fn = pick(argc > 5);
  int r = 0, on_host = -1;
#pragma omp target map(from : r, on_host)
  {
    r = fn(7);
    on_host = omp_is_initial_device();
  }
  CHECK_EQ(r, 21);
  CHECK_EQ(on_host, 0);
  fn = pick(argc < 5);
#pragma omp target map(from : r)
  r = fn(7);
  CHECK_EQ(r, 8);

  /* a pointer stored in a mapped struct */
  struct op o = {.bias = 100, .fn = negate, .scale = 2};
#pragma omp target map(to : o) map(from : r)
  r = o.bias + o.fn(o.scale * 5);
  CHECK_EQ(r, 90);

  /* a mapped array of pointers, the entry chosen on the device at run time */
  unary_fn table[3] = {add_one, times_three, negate};
  int which[6] = {2, 0, 1, 1, 0, 2}, out[6] = {0};
#pragma omp target map(to : table, which) map(from : out)
  for (int i = 0; i < 6; i++)
    out[i] = table[which[i]](i + 10);
  int want[6] = {-10, 12, 36, 39, 15, -15};
  for (int i = 0; i < 6; i++)
    CHECK_EQ(out[i], want[i]);

  /* many threads of many teams call through the pointers at once */
  enum { N = 4096 };
  static int v[N];
  int bad = -1;
#pragma omp target teams distribute parallel for map(to : table) map(from : v)
  for (int i = 0; i < N; i++)
    v[i] = table[i % 3](i);
  bad = -1;
  for (int i = 0; i < N && bad < 0; i++) {
    int w = i % 3 == 0 ? i + 1 : i % 3 == 1 ? i * 3 : -i;
    if (v[i] != w)
      bad = i;
  }
  CHECK_EQ(bad, -1);
  return check_finish();
}
