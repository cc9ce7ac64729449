/*
 * memory_blocks.c - the memory routines' blocks (memory_blocks.h) in an AVL
 * tree keyed by (device, kind, begin). Blocks of one device and kind never
 * overlap (each is a live allocation of its own), so the block holding an
 * address is the one with the greatest key at or below (device, kind,
 * address), when that block reaches past the address.
 *
 * Locking: `blocks_lock` guards the tree; every public function takes it.
 */
#include "memory_blocks.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>

struct block_node {
  struct memory_block b;
  struct block_node *left, *right;
  int height;
};

static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct block_node *blocks_root;
static size_t blocks_count;

/* The order of the tree: device, then kind, then address. */
static int key_cmp(int device_num, bool device_memory, uintptr_t begin,
                   const struct memory_block *b) {
  if (device_num != b->device_num)
    return device_num < b->device_num ? -1 : 1;
  if (device_memory != b->device_memory)
    return device_memory < b->device_memory ? -1 : 1;
  return begin < b->begin ? -1 : begin > b->begin;
}

static int height_of(const struct block_node *n) { return n ? n->height : 0; }

static void update_height(struct block_node *n) {
  int l = height_of(n->left), r = height_of(n->right);
  n->height = 1 + (l > r ? l : r);
}

static struct block_node *rotate_right(struct block_node *n) {
  struct block_node *l = n->left;
  n->left = l->right;
  l->right = n;
  update_height(n);
  update_height(l);
  return l;
}

static struct block_node *rotate_left(struct block_node *n) {
  struct block_node *r = n->right;
  n->right = r->left;
  r->left = n;
  update_height(n);
  update_height(r);
  return r;
}

static struct block_node *rebalance(struct block_node *n) {
  update_height(n);
  int balance = height_of(n->left) - height_of(n->right);
  if (balance > 1) {
    if (height_of(n->left->left) < height_of(n->left->right))
      n->left = rotate_left(n->left);
    return rotate_right(n);
  }
  if (balance < -1) {
    if (height_of(n->right->right) < height_of(n->right->left))
      n->right = rotate_right(n->right);
    return rotate_left(n);
  }
  return n;
}

/* Insert `node` (its key absent from the subtree, or replacing nothing:
 * an equal key goes right). */
static struct block_node *insert_node(struct block_node *root,
                                      struct block_node *node) {
  if (!root)
    return node;
  const struct memory_block *b = &node->b;
  if (key_cmp(b->device_num, b->device_memory, b->begin, &root->b) < 0)
    root->left = insert_node(root->left, node);
  else
    root->right = insert_node(root->right, node);
  return rebalance(root);
}

/* Take the leftmost node out of `root` into *min. */
static struct block_node *detach_min(struct block_node *root,
                                     struct block_node **min) {
  if (!root->left) {
    *min = root;
    return root->right;
  }
  root->left = detach_min(root->left, min);
  return rebalance(root);
}

/* Take the node with the key out of `root` into *gone (NULL: absent). */
static struct block_node *remove_node(struct block_node *root, int device_num,
                                      bool device_memory, uintptr_t begin,
                                      struct block_node **gone) {
  if (!root)
    return NULL;
  int c = key_cmp(device_num, device_memory, begin, &root->b);
  if (c < 0) {
    root->left = remove_node(root->left, device_num, device_memory, begin,
                             gone);
  } else if (c > 0) {
    root->right = remove_node(root->right, device_num, device_memory, begin,
                              gone);
  } else {
    *gone = root;
    if (!root->left || !root->right)
      return root->left ? root->left : root->right;
    struct block_node *successor;
    struct block_node *right = detach_min(root->right, &successor);
    successor->left = root->left;
    successor->right = right;
    root = successor;
  }
  return rebalance(root);
}

int memory_blocks_add(int device_num, uintptr_t begin, size_t size,
                      bool device_memory) {
  struct block_node *n = malloc(sizeof *n);
  if (!n) {
    report_error_set("out of host memory for the record of block 0x%" PRIxPTR
                     " of device %d",
                     begin, device_num);
    return -1;
  }
  n->b = (struct memory_block){begin, begin + size, device_num, device_memory};
  n->left = n->right = NULL;
  n->height = 1;
  pthread_mutex_lock(&blocks_lock);
  blocks_root = insert_node(blocks_root, n);
  blocks_count++;
  pthread_mutex_unlock(&blocks_lock);
  return 0;
}

bool memory_blocks_remove(int device_num, uintptr_t begin) {
  struct block_node *gone = NULL;
  pthread_mutex_lock(&blocks_lock);
  blocks_root = remove_node(blocks_root, device_num, true, begin, &gone);
  if (!gone)
    blocks_root = remove_node(blocks_root, device_num, false, begin, &gone);
  if (gone)
    blocks_count--;
  pthread_mutex_unlock(&blocks_lock);
  free(gone);
  return gone != NULL;
}

bool memory_blocks_find(int device_num, bool device_memory, uintptr_t addr,
                        struct memory_block *out) {
  const struct block_node *floor = NULL;
  pthread_mutex_lock(&blocks_lock);
  for (const struct block_node *n = blocks_root; n;) {
    if (key_cmp(device_num, device_memory, addr, &n->b) < 0) {
      n = n->left;
    } else {
      floor = n;
      n = n->right;
    }
  }
  bool found = floor && floor->b.device_num == device_num &&
               floor->b.device_memory == device_memory &&
               addr < floor->b.end;
  if (found)
    *out = floor->b;
  pthread_mutex_unlock(&blocks_lock);
  return found;
}

size_t memory_blocks_count(void) {
  pthread_mutex_lock(&blocks_lock);
  size_t n = blocks_count;
  pthread_mutex_unlock(&blocks_lock);
  return n;
}

int memory_blocks_height(void) {
  pthread_mutex_lock(&blocks_lock);
  int h = height_of(blocks_root);
  pthread_mutex_unlock(&blocks_lock);
  return h;
}
