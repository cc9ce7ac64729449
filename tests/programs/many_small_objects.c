/* many_small_objects.c - a list of thousands of small heap nodes, each
 * mapped on its own with `target enter data` (global pointer to the head),
 * some unmapped and replaced, then read and updated by kernels: every node
 * keeps its own values through the queued protection changes of thousands
 * of new and freed device blocks, sent in many batches.
 * expect: each kernel sees its node's values, the host sees the updates. */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

#define NODES 3000

struct node {
  long key;
  double value[3];
};

static struct node **nodes; /* global pointer, as users write it */

static void map_node(int i) {
  nodes[i] = malloc(sizeof *nodes[i]);
  nodes[i]->key = i;
  for (int k = 0; k < 3; k++)
    nodes[i]->value[k] = i + k * 0.5;
  struct node *n = nodes[i];
#pragma omp target enter data map(to : n[0:1])
}

int main(void) {
  nodes = malloc(sizeof *nodes * NODES);
  for (int i = 0; i < NODES; i++)
    map_node(i);
  /* Every third node goes away and comes back as a new object. */
  for (int i = 0; i < NODES; i += 3) {
    struct node *n = nodes[i];
#pragma omp target exit data map(delete : n[0:1])
    free(n);
    map_node(i);
  }
  long bad = 0;
  for (int i = 0; i < NODES; i++) {
    struct node *n = nodes[i];
    long wrong = 0;
#pragma omp target map(alloc : n[0:1]) map(tofrom : wrong)
    {
      wrong = n->key != i || n->value[2] != i + 1.0;
      n->value[0] *= 2;
    }
    bad += wrong;
  }
  CHECK_EQ(bad, 0);
  int stale = 0;
  for (int i = 0; i < NODES; i++) {
    struct node *n = nodes[i];
#pragma omp target exit data map(from : n[0:1])
    stale += n->value[0] != 2.0 * i;
    free(n);
  }
  CHECK_EQ(stale, 0);
  free(nodes);
  return check_finish();
}
