/* mapper_nested_member.c - nested default mappers reached through pointer
 * members of a struct: `h.items[0:h.count]` and `h.one[0:1]`, whose element
 * type has a default mapper that maps a member with its own default mapper.
 * The sections are members of h's entry in the construct (MEMBER_OF), and
 * the mapper is handed that map type.
 * cflags: -O2 -fopenmp-version=51
 * expect: the regions read and write every element's arrays through both
 * mappers, in a target region and in target data with two sections of h. */
#include <stdlib.h>
#include "check.h"

struct vec {
  int n;
  float *d;
};
#pragma omp declare mapper(struct vec v) map(v, v.d[0 : v.n])

struct cell {
  int id;
  struct vec a;
  struct vec b;
};
#pragma omp declare mapper(struct cell c) map(c.id, c.a, c.b)

struct holder {
  int count;
  int unused;
  struct cell *one;
  struct cell *items;
};

struct holder *global_holder; /* a global pointer, as users write it */

static struct vec make_vec(int n) {
  struct vec v = {n, calloc((size_t)n, sizeof(float))};
  return v;
}

static struct holder *make_holder(int count, int n) {
  struct holder *h = calloc(1, sizeof *h);
  h->count = count;
  h->items = calloc((size_t)count, sizeof *h->items);
  h->one = calloc(1, sizeof *h->one);
  for (int i = 0; i < count; i++) {
    h->items[i].id = i;
    h->items[i].a = make_vec(n);
    h->items[i].b = make_vec(n);
  }
  h->one->id = 77;
  h->one->a = make_vec(n);
  h->one->b = make_vec(n);
  return h;
}

static void free_cell(struct cell *c) {
  free(c->a.d);
  free(c->b.d);
}

static void free_holder(struct holder *h) {
  for (int i = 0; i < h->count; i++)
    free_cell(&h->items[i]);
  free_cell(h->one);
  free(h->items);
  free(h->one);
  free(h);
}

int main(void) {
  const int count = 4, n = 100;
  global_holder = make_holder(count, n);
  struct holder h = *global_holder; /* a copy on the stack: same arrays */
  for (int i = 0; i < count; i++)
    for (int k = 0; k < n; k++)
      h.items[i].a.d[k] = (float)(i + k);

  /* Two sections of h in one region, after another member of h. */
#pragma omp target map(to : h.count) map(tofrom : h.one[0:1], h.items[0:h.count])
  {
    for (int i = 0; i < h.count; i++)
      for (int k = 0; k < h.items[i].a.n; k++)
        h.items[i].b.d[k] = 2 * h.items[i].a.d[k];
    h.one->b.d[0] = (float)h.one->id;
  }
  int bad = 0;
  for (int i = 0; i < count; i++)
    for (int k = 0; k < n; k++)
      bad += h.items[i].b.d[k] != 2.0f * (float)(i + k);
  CHECK_EQ(bad, 0);
  CHECK(h.one->b.d[0] == 77.0f);

  /* A data region over a fresh holder's sections, then a region inside. */
  struct holder *g = make_holder(count, n);
  struct holder k = *g;
#pragma omp target data map(tofrom : k.items[0:k.count]) map(to : k.count)
  {
#pragma omp target map(present, alloc : k.items[0:count])
    for (int i = 0; i < count; i++)
      k.items[i].a.d[n - 1] = 5.0f + (float)i;
  }
  bad = 0;
  for (int i = 0; i < count; i++)
    bad += g->items[i].a.d[n - 1] != 5.0f + (float)i;
  CHECK_EQ(bad, 0);
  free_holder(g);
  free_holder(global_holder);
  return check_finish();
}
