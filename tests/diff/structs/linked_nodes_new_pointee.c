/* linked_nodes_new_pointee.c - three heap nodes mapped one after the other
 * through the previous node's next pointer: each pointee is newly mapped by
 * its construct, so its pointer is attached (OpenMP 5.0, every clang); the
 * device walks the chain.
 * expect: sum 6 on the device, then 60 after the device scales each value */
#include <stdlib.h>
#include "check.h"

struct node { int val; struct node *next; };

int main(void) {
  struct node *c = malloc(sizeof *c), *b = malloc(sizeof *b), *a = malloc(sizeof *a);
  a->val = 1; a->next = b;
  b->val = 2; b->next = c;
  c->val = 3; c->next = NULL;
#pragma omp target enter data map(to : a[0:1])
#pragma omp target enter data map(to : a->next[0:1])
#pragma omp target enter data map(to : b->next[0:1])
  int sum = 0;
#pragma omp target map(tofrom : sum)
  for (struct node *q = a; q; q = q->next) {
    sum += q->val;
    q->val *= 10;
  }
  /* clang 13-19 count a->next's storage as a reference to *a: update, then
   * delete, rather than rely on the counts reaching 0 */
#pragma omp target update from(a[0:1], b[0:1], c[0:1])
#pragma omp target exit data map(delete : a[0:1], b[0:1], c[0:1])
  CHECK_EQ(sum, 6);
  CHECK_EQ(a->val + b->val + c->val, 60);
  CHECK(a->next == b && b->next == c && c->next == NULL);
  free(a); free(b); free(c);
  return check_finish();
}
