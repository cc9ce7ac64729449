// mapper_nested_member.cpp - nested default mappers (a mapper for a struct
// whose members' types have their own default mappers) reached through a
// member of another object: a pointer member's section `h.items[0:n]` and
// `h.one[0:1]`, mapped in a region, in enter/exit data and from a member
// function through `this`.
// cflags: -O2
// expect: every element's arrays (mapped by the inner mappers) reach the
// device and come back; the components clang's mappers push for a member
// entry are accepted.
#include <stdlib.h>
#include "check.h"

struct Vec {
  int n;
  int *d;
};
#pragma omp declare mapper(Vec v) map(v, v.d[0 : v.n])

struct Cell {
  int id;
  Vec a;
  int *extra;
  int m;
};
// (Listing `c` itself with its members crashes clang 13-16.)
#pragma omp declare mapper(Cell c) map(c.id, c.a, c.extra[0 : c.m], c.m)

static Vec make_vec(int n) {
  Vec v{n, (int *)calloc(n, sizeof(int))};
  return v;
}

struct Holder {
  int count;
  Cell *items; // a pointer member: h.items[0:count]
  Cell *one;
  void fill_on_device(int add) {
    // (Mapping one[0:1] too in this function crashes clang 13-19.)
#pragma omp target map(to : count) map(tofrom : items[0:count])
    for (int i = 0; i < count; i++)
      items[i].a.d[items[i].a.n - 1] = items[i].id + add;
  }
};

static Cell make_cell(int id, int n) {
  Cell c{id, make_vec(n), (int *)calloc(n, sizeof(int)), n};
  return c;
}

static Holder *make_holder(int count, int n, Cell *one) {
  Holder *h = new Holder;
  h->count = count;
  h->items = new Cell[count];
  for (int i = 0; i < count; i++)
    h->items[i] = make_cell(10 * i, n);
  h->one = one;
  return h;
}

static void free_holder(Holder *h) {
  for (int i = 0; i < h->count; i++) {
    free(h->items[i].a.d);
    free(h->items[i].extra);
  }
  delete[] h->items;
  delete h;
}

Holder *global_holder; // a global pointer, as users write it

// Each construct gets objects of its own: LLVM 13-19 keep the array of a
// member section mapped after the construct (their MEMBER_OF handling of the
// mapper's components), which would hide later copies there.
int main() {
  const int count = 5, n = 33;
  Cell single = make_cell(99, n);
  global_holder = make_holder(count, n, &single);
  Holder &h = *global_holder;

  // A region: the sections are members of h (MEMBER_OF h's entry).
#pragma omp target map(tofrom : h.items[0:count]) map(to : h.count)
  for (int i = 0; i < h.count; i++) {
    h.items[i].a.d[0] = h.items[i].id + 1;
    h.items[i].extra[i] = 7;
  }
  int bad = 0;
  for (int i = 0; i < count; i++)
    bad += h.items[i].a.d[0] != 10 * i + 1 || h.items[i].extra[i] != 7;
  CHECK_EQ(bad, 0);

  // enter / exit data of a member section, then a region on it.
#pragma omp target enter data map(to : h.one[0:1])
#pragma omp target map(alloc : single)
  single.a.d[1] = 55;
#pragma omp target exit data map(from : h.one[0:1])
  CHECK_EQ(single.a.d[1], 55);

  // A member function: the sections are members of *this.
  Holder *other = make_holder(count, n, &single);
  other->fill_on_device(1000);
  bad = 0;
  for (int i = 0; i < count; i++)
    bad += other->items[i].a.d[n - 1] != 10 * i + 1000;
  CHECK_EQ(bad, 0);

  free_holder(other);
  free_holder(global_holder);
  free(single.a.d);
  free(single.extra);
  return check_finish();
}
