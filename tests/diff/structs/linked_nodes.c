/* linked_nodes.c - three heap nodes, each mapped; the device walks the
 * chain through translated next pointers attached by enter data.
 * versions: 13 14 15 16 19
 * Not for clang 22: its ATTACH entries attach only when the pointer or the
 * pointee is newly mapped by the construct (OpenMP 5.0; LLVM's runtime does
 * the same since ATTACH support, llvm-project PR 149036), and here both are
 * present already. LLVM 13-19's PTR_AND_OBJ attaches anyway.
 * linked_nodes_new_pointee.c is the form correct for every clang. */
#include <stdlib.h>
#include "check.h"

struct node { int val; struct node *next; };

int main(void) {
  struct node *c = malloc(sizeof *c), *b = malloc(sizeof *b), *a = malloc(sizeof *a);
  a->val = 1; a->next = b;
  b->val = 2; b->next = c;
  c->val = 3; c->next = NULL;
#pragma omp target enter data map(to : a[0:1], b[0:1], c[0:1])
#pragma omp target enter data map(to : a->next[0:1], b->next[0:1])
  int sum = 0;
#pragma omp target map(tofrom : sum)
  for (struct node *q = a; q; q = q->next) sum += q->val;
#pragma omp target exit data map(delete : a[0:1], b[0:1], c[0:1])
  CHECK_EQ(sum, 6);
  free(a); free(b); free(c);
  return check_finish();
}
