/* nested_mapper.c - a mapper for a struct whose member struct has its own
 * default mapper (issue item 6: clang's expansion emits a MEMBER_OF that
 * refers to a later entry). */
#include <stdlib.h>
#include "check.h"

struct inner { int n; int *d; };
#pragma omp declare mapper(struct inner i) map(i, i.d[0:i.n])
struct outer { int tag; struct inner in; };
#pragma omp declare mapper(struct outer o) map(o.tag, o.in)

int main(void) {
  struct outer o = {7, {20, malloc(20 * sizeof(int))}};
  for (int i = 0; i < 20; i++) o.in.d[i] = i;
#pragma omp target map(tofrom : o)
  for (int i = 0; i < o.in.n; i++) o.in.d[i] += o.tag;
  for (int i = 0; i < 20; i++) CHECK_EQ(o.in.d[i], i + 7);
  free(o.in.d);
  return check_finish();
}
