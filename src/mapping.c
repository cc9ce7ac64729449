/*
 * mapping.c - the host -> device mapping table of one device: an AVL tree of
 * non-overlapping host intervals keyed by host begin address (its nodes are
 * the entries' details), and a hash of the begin addresses.
 *
 * Because the intervals never overlap, their ends are ordered like their
 * begins, so "the entry with the greatest begin below X" is the only entry
 * that can contain X, and one O(log n) descent answers every lookup.
 * Most lookups name an object by its first byte (the same variable mapped
 * again), so a hash of the begin addresses answers those first: its cost
 * does not grow with the table (one slot, holding the key, and the entry's
 * one line), while a descent through 100000 entries misses the cache at
 * every level.
 *
 * Locking: table->lock guards root, count, the hash and every entry with
 * its details (refcounts, shadows, pins); pool_lock (below) the memory
 * entries and details come from. Every public function here but
 * mapping_table_init/destroy (which create and destroy the lock) expects the
 * caller to hold it and checks so (LOCK_ASSERT_HELD); nothing here takes it.
 */
#include "mapping.h"
#include "lock_check.h"

#include <inttypes.h>
#include <sys/mman.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif
#include <stdlib.h>
#include <string.h>

void mapping_table_init(struct mapping_table *t) {
  pthread_mutex_init(&t->lock, NULL);
  t->root = NULL;
  t->count = 0;
  t->slots = NULL;
  t->nslots = 0;
  t->tgt_lo = UINTPTR_MAX; /* no device range yet */
  t->tgt_hi = 0;
  memset(t->removed, 0, sizeof t->removed);
  t->removed_next = 0;
}

/* Entries (one cache line each, mapping.h) and their details come from two
 * pools of 2 MiB blocks, so that the entries of a large table lie side by
 * side. From the second block of a pool on (more than 32767 entries, 10922
 * details) the blocks ask for transparent huge pages: a lookup in a large
 * table then misses the cache at its entry but rarely the TLB, while a
 * small program's table stays in small pages. A freed object goes on its
 * pool's free list for the next; the blocks stay for the process (a list
 * from `blocks`: a leak checker finds them reachable). Under Valgrind each
 * object is a heap block of its own instead, so that Memcheck still sees
 * every use of a freed one.
 * Locking: pool_lock guards both pools (free lists and blocks), for the
 * entries of every table; it is taken to allocate or free an entry, never
 * during a lookup. */
#define ENTRY_ALIGN 64
#define POOL_BLOCK ((size_t)2 << 20)
_Static_assert(sizeof(struct mapping_entry) == ENTRY_ALIGN,
               "a mapping entry is one cache line");
struct pool_free {
  struct pool_free *next;
};
struct pool {
  size_t size;                /* of an object: a multiple of ENTRY_ALIGN */
  struct pool_free *free_list;
  void *blocks;               /* first word of a block: the next block */
  char *next, *end;           /* the unused rest of the newest block */
};
#define POOL_OF(type)                                                          \
  {.size = (sizeof(type) + ENTRY_ALIGN - 1) & ~(size_t)(ENTRY_ALIGN - 1)}
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pool entry_pool = POOL_OF(struct mapping_entry);
static struct pool details_pool = POOL_OF(struct mapping_details);

/* A new block for pool p; false when out of memory. Caller holds
 * pool_lock. */
static bool pool_grow(struct pool *p) {
  LOCK_ASSERT_HELD(&pool_lock);
  char *block = aligned_alloc(POOL_BLOCK, POOL_BLOCK);
  if (!block)
    return false;
  if (p->blocks)
    (void)madvise(block, POOL_BLOCK, MADV_HUGEPAGE); /* only a hint */
  memcpy(block, &p->blocks, sizeof p->blocks);
  p->blocks = block;
  p->next = block + p->size; /* after the link */
  p->end = block + POOL_BLOCK;
  return true;
}

/* A zeroed object of p's size, or NULL. */
static void *pool_alloc(struct pool *p) {
  void *o;
  if (RUNNING_ON_VALGRIND) {
    o = aligned_alloc(ENTRY_ALIGN, p->size);
  } else {
    pthread_mutex_lock(&pool_lock);
    o = p->free_list;
    if (o)
      p->free_list = p->free_list->next;
    else if ((size_t)(p->end - p->next) >= p->size || pool_grow(p)) {
      o = p->next;
      p->next += p->size;
    }
    pthread_mutex_unlock(&pool_lock);
  }
  return o ? memset(o, 0, p->size) : NULL;
}

static void pool_free(struct pool *p, void *o) {
  if (RUNNING_ON_VALGRIND) {
    free(o);
    return;
  }
  struct pool_free *f = o;
  pthread_mutex_lock(&pool_lock);
  f->next = p->free_list;
  p->free_list = f;
  pthread_mutex_unlock(&pool_lock);
}

/* A zeroed entry with its zeroed details, or NULL. */
static struct mapping_entry *entry_alloc(void) {
  struct mapping_entry *e = pool_alloc(&entry_pool);
  if (!e)
    return NULL;
  e->details = pool_alloc(&details_pool);
  if (!e->details) {
    pool_free(&entry_pool, e);
    return NULL;
  }
  e->details->entry = e;
  return e;
}

static void entry_free(struct mapping_entry *e) {
  pool_free(&details_pool, e->details);
  pool_free(&entry_pool, e);
}

/* ---------------------------------------------------------------- hash */

/* The slot where the probe for `begin` starts. */
static size_t home_of(size_t nslots, uintptr_t begin) {
  uint64_t h = (uint64_t)begin * 0x9e3779b97f4a7c15ull; /* Fibonacci hash */
  return (size_t)(h >> 32) & (nslots - 1);
}

/* A zeroed array of n slots; from 2 MiB on, in transparent huge pages
 * (each lookup reads one slot at random: small pages would miss the TLB as
 * well as the cache). Freed with free(). */
static struct mapping_slot *slot_array_alloc(size_t n) {
  size_t bytes = n * sizeof(struct mapping_slot);
  if (bytes < POOL_BLOCK)
    return calloc(n, sizeof(struct mapping_slot));
  void *b = aligned_alloc(POOL_BLOCK, bytes);
  if (!b)
    return NULL;
  (void)madvise(b, bytes, MADV_HUGEPAGE); /* a hint */
  return memset(b, 0, bytes);
}

/* Put e in the first free slot of its probe sequence (there is one: the
 * array is never full). */
static void slot_put(struct mapping_slot *slots, size_t nslots,
                     struct mapping_entry *e) {
  size_t k = home_of(nslots, e->hst_begin);
  while (slots[k].entry)
    k = (k + 1) & (nslots - 1);
  slots[k] = (struct mapping_slot){e->hst_begin, e};
}

static struct mapping_entry *hash_find(const struct mapping_table *t,
                                       uintptr_t begin) {
  if (!t->slots)
    return NULL;
  size_t mask = t->nslots - 1;
  for (size_t k = home_of(t->nslots, begin);; k = (k + 1) & mask) {
    const struct mapping_slot *s = &t->slots[k];
    if (!s->entry || s->hst_begin == begin)
      return s->entry;
  }
}

static void rehash_node(struct mapping_details *d, struct mapping_slot *slots,
                        size_t nslots) {
  /* Recursion depth is the tree height (<= 1.44 log2 n). */
  if (!d)
    return;
  slot_put(slots, nslots, d->entry);
  rehash_node(d->left, slots, nslots);
  rehash_node(d->right, slots, nslots);
}

/* Make room for one more entry: keep the slots at most half full (a probe
 * then reads 1.5 slots on average, nearly always in one cache line). The
 * new array is filled from the tree, which holds every entry (also after a
 * failure dropped the hash). Returns false when there is no room and no
 * memory for more: the caller drops the hash, and lookups use the tree
 * alone (same answers, slower) until a later insert rebuilds it. */
static bool hash_make_room(struct mapping_table *t) {
  if (t->slots && 2 * (t->count + 1) <= t->nslots)
    return true;
  size_t n = t->nslots ? t->nslots : 64;
  while (2 * (t->count + 1) > n)
    n *= 2;
  struct mapping_slot *slots = slot_array_alloc(n);
  if (!slots)
    return t->slots && t->count + 1 < t->nslots; /* fuller, still answers */
  rehash_node(t->root, slots, n);
  free(t->slots);
  t->slots = slots;
  t->nslots = n;
  return true;
}

/* Called before e joins the tree (t->count does not count it yet). */
static void hash_add(struct mapping_table *t, struct mapping_entry *e) {
  if (!hash_make_room(t)) {
    free(t->slots);
    t->slots = NULL;
    t->nslots = 0;
    return;
  }
  slot_put(t->slots, t->nslots, e);
}

/* Take e's slot out; the slots after it in the same run move back where
 * their probes can still reach them (no tombstones: a lookup never walks
 * over removed entries). */
static void hash_remove(struct mapping_table *t, struct mapping_entry *e) {
  if (!t->slots)
    return;
  size_t mask = t->nslots - 1;
  size_t hole = home_of(t->nslots, e->hst_begin);
  while (t->slots[hole].entry != e) {
    if (!t->slots[hole].entry)
      return; /* not in the hash (cannot happen: every entry is) */
    hole = (hole + 1) & mask;
  }
  for (size_t k = (hole + 1) & mask; t->slots[k].entry; k = (k + 1) & mask) {
    size_t home = home_of(t->nslots, t->slots[k].hst_begin);
    /* k may move to the hole unless its home lies cyclically in
     * (hole, k]: then its probe starts after the hole. */
    bool home_after_hole = hole <= k ? (home > hole && home <= k)
                                     : (home > hole || home <= k);
    if (!home_after_hole) {
      t->slots[hole] = t->slots[k];
      hole = k;
    }
  }
  t->slots[hole] = (struct mapping_slot){0, NULL};
}

static void free_shadows(struct mapping_entry *e) {
  struct shadow_ptr *s = e->shadows;
  while (s) {
    struct shadow_ptr *next = s->next;
    free(s);
    s = next;
  }
  e->shadows = NULL;
}

static void free_subtree(struct mapping_details *d) {
  /* Recursion depth is the tree height (<= 1.44 log2 n). */
  if (!d)
    return;
  free_subtree(d->left);
  free_subtree(d->right);
  free_shadows(d->entry);
  entry_free(d->entry);
}

void mapping_table_destroy(struct mapping_table *t) {
  free_subtree(t->root);
  t->root = NULL;
  t->count = 0;
  free(t->slots);
  t->slots = NULL;
  t->nslots = 0;
  pthread_mutex_destroy(&t->lock);
}

/* ---------------------------------------------------------------- AVL */

static int height_of(const struct mapping_details *d) {
  return d ? d->height : 0;
}

static void update_height(struct mapping_details *d) {
  int l = height_of(d->left), r = height_of(d->right);
  d->height = 1 + (l > r ? l : r);
}

static struct mapping_details *rotate_right(struct mapping_details *d) {
  struct mapping_details *l = d->left;
  d->left = l->right;
  l->right = d;
  update_height(d);
  update_height(l);
  return l;
}

static struct mapping_details *rotate_left(struct mapping_details *d) {
  struct mapping_details *r = d->right;
  d->right = r->left;
  r->left = d;
  update_height(d);
  update_height(r);
  return r;
}

static struct mapping_details *rebalance(struct mapping_details *d) {
  update_height(d);
  int balance = height_of(d->left) - height_of(d->right);
  if (balance > 1) {
    if (height_of(d->left->left) < height_of(d->left->right))
      d->left = rotate_left(d->left);
    return rotate_right(d);
  }
  if (balance < -1) {
    if (height_of(d->right->right) < height_of(d->right->left))
      d->right = rotate_right(d->right);
    return rotate_left(d);
  }
  return d;
}

static struct mapping_details *insert_node(struct mapping_details *root,
                                         struct mapping_details *n) {
  if (!root)
    return n;
  if (n->hst_begin < root->hst_begin)
    root->left = insert_node(root->left, n);
  else
    root->right = insert_node(root->right, n);
  return rebalance(root);
}

/* Detach the minimum of a subtree; *min receives it. */
static struct mapping_details *detach_min(struct mapping_details *root,
                                        struct mapping_details **min) {
  if (!root->left) {
    *min = root;
    return root->right;
  }
  root->left = detach_min(root->left, min);
  return rebalance(root);
}

/* Remove node `victim` (found by its unique begin address). */
static struct mapping_details *remove_node(struct mapping_details *root,
                                         struct mapping_details *victim,
                                         bool *found) {
  if (!root)
    return NULL;
  if (root != victim) {
    if (victim->hst_begin < root->hst_begin)
      root->left = remove_node(root->left, victim, found);
    else
      root->right = remove_node(root->right, victim, found);
    return rebalance(root);
  }
  *found = true;
  if (!root->left)
    return root->right;
  if (!root->right)
    return root->left;
  struct mapping_details *successor = NULL;
  struct mapping_details *right = detach_min(root->right, &successor);
  successor->right = right;
  successor->left = root->left;
  return rebalance(successor);
}

/* The entry with the greatest begin <= addr (strict: < addr), or NULL. */
static struct mapping_entry *floor_entry(struct mapping_table *t,
                                         uintptr_t addr, bool strict) {
  struct mapping_details *cur = t->root, *best = NULL;
  while (cur) {
    bool go_right = strict ? cur->hst_begin < addr : cur->hst_begin <= addr;
    if (go_right) {
      best = cur;
      cur = cur->right;
    } else {
      cur = cur->left;
    }
  }
  return best ? best->entry : NULL;
}

/* Does entry e hold address addr? A zero-size entry holds its begin. */
static bool entry_holds(const struct mapping_entry *e, uintptr_t addr) {
  if (e->hst_begin == e->hst_end)
    return addr == e->hst_begin;
  return addr >= e->hst_begin && addr < e->hst_end;
}

/* ------------------------------------------------------------ lookups */

enum mapping_overlap mapping_lookup(struct mapping_table *t, uintptr_t begin,
                                    uint64_t size,
                                    struct mapping_entry **entry) {
  LOCK_ASSERT_HELD(&t->lock);
  *entry = NULL;
  uintptr_t end = begin + size;
  if (end < begin) /* wraps around: clamp to the top of the address space */
    end = UINTPTR_MAX;
  /* An entry starting at begin is the one the descent would find. */
  struct mapping_entry *at = hash_find(t, begin);
  if (!at)
    at = floor_entry(t, begin, false);
  if (at && entry_holds(at, begin)) {
    *entry = at;
    if (size == 0 || end <= at->hst_end)
      return MAPPING_CONTAINED;
    return MAPPING_EXTENDS;
  }
  if (size == 0)
    return MAPPING_ABSENT;
  /* No entry holds begin; one that starts inside (begin, end) overlaps. */
  struct mapping_entry *last = floor_entry(t, end, true);
  if (last && last->hst_begin > begin) {
    *entry = last;
    return MAPPING_EXTENDS;
  }
  return MAPPING_ABSENT;
}

struct mapping_entry *mapping_find(struct mapping_table *t, uintptr_t addr) {
  LOCK_ASSERT_HELD(&t->lock);
  struct mapping_entry *at = hash_find(t, addr);
  if (at)
    return at;
  at = floor_entry(t, addr, false);
  return at && entry_holds(at, addr) ? at : NULL;
}

/* The entry with the least begin > addr, or NULL. */
static struct mapping_details *ceiling_entry(struct mapping_table *t,
                                             uintptr_t addr) {
  struct mapping_details *cur = t->root, *best = NULL;
  while (cur) {
    if (cur->hst_begin > addr) {
      best = cur;
      cur = cur->left;
    } else {
      cur = cur->right;
    }
  }
  return best;
}

struct mapping_entry *mapping_find_zero_size(struct mapping_table *t,
                                             uintptr_t addr) {
  LOCK_ASSERT_HELD(&t->lock);
  struct mapping_entry *e = mapping_find(t, addr);
  if (e)
    return e;
  struct mapping_details *d = ceiling_entry(t, addr);
  return d && d->hst_base <= addr ? d->entry : NULL;
}

struct find_device_arg {
  uintptr_t addr;
  struct mapping_entry *found;
};

static int match_device_addr(struct mapping_entry *e, void *arg) {
  struct find_device_arg *fa = arg;
  uintptr_t size = e->hst_end - e->hst_begin;
  if (fa->addr >= e->tgt_begin && (fa->addr < e->tgt_begin + size ||
                                   (size == 0 && fa->addr == e->tgt_begin))) {
    fa->found = e;
    return 1;
  }
  return 0;
}

struct mapping_entry *mapping_find_device(struct mapping_table *t,
                                          uintptr_t addr) {
  LOCK_ASSERT_HELD(&t->lock);
  if (addr < t->tgt_lo || addr > t->tgt_hi)
    return NULL;
  struct find_device_arg fa = {.addr = addr, .found = NULL};
  mapping_foreach(t, match_device_addr, &fa);
  return fa.found;
}

/* ------------------------------------------------------ insert/remove */

struct mapping_entry *mapping_insert(struct mapping_table *t,
                                     uintptr_t hst_begin, uintptr_t hst_end,
                                     uintptr_t tgt_begin, const char *name) {
  LOCK_ASSERT_HELD(&t->lock);
  if (hst_end < hst_begin) {
    report_error_set("mapping table: host range 0x%" PRIxPTR "..0x%" PRIxPTR
                     " ends before it begins",
                     hst_begin, hst_end);
    return NULL;
  }
  struct mapping_entry *clash = NULL;
  if (mapping_lookup(t, hst_begin, hst_end - hst_begin, &clash) !=
      MAPPING_ABSENT) {
    report_error_set("mapping table: new entry host 0x%" PRIxPTR "..0x%" PRIxPTR
                     " overlaps mapped host 0x%" PRIxPTR "..0x%" PRIxPTR,
                     hst_begin, hst_end, clash->hst_begin, clash->hst_end);
    return NULL;
  }
  struct mapping_entry *e = entry_alloc();
  if (!e) {
    report_error_set("mapping table: out of host memory for the entry of "
                     "host 0x%" PRIxPTR "..0x%" PRIxPTR,
                     hst_begin, hst_end);
    return NULL;
  }
  e->hst_begin = hst_begin;
  e->hst_end = hst_end;
  e->tgt_begin = tgt_begin;
  struct mapping_details *d = e->details;
  d->hst_begin = hst_begin;
  d->hst_base = hst_begin;
  if (tgt_begin < t->tgt_lo)
    t->tgt_lo = tgt_begin;
  if (tgt_begin + (hst_end - hst_begin) > t->tgt_hi)
    t->tgt_hi = tgt_begin + (hst_end - hst_begin);
  d->height = 1;
  snprintf(d->name, sizeof d->name, "%s", name ? name : "");
  hash_add(t, e);
  t->root = insert_node(t->root, d);
  t->count++;
  return e;
}

bool mapping_remove(struct mapping_table *t, struct mapping_entry *e) {
  LOCK_ASSERT_HELD(&t->lock);
  struct mapping_details *d = e->details;
  bool found = false;
  t->root = remove_node(t->root, d, &found);
  if (!found)
    return false; /* not ours: leave it alone rather than free a stranger */
  hash_remove(t, e);
  t->count--;
  struct mapping_removed *r =
      &t->removed[t->removed_next++ % MAPPING_REMOVED_KEPT];
  r->hst_begin = e->hst_begin;
  r->tgt_begin = e->tgt_begin;
  r->tgt_end = e->tgt_begin + (e->hst_end - e->hst_begin);
  memcpy(r->name, d->name, sizeof r->name);
  if (d->pins > 0) {
    d->unlinked = true;
    d->left = d->right = NULL;
    return false;
  }
  free_shadows(e);
  entry_free(e);
  return true;
}

const struct mapping_removed *mapping_find_removed(struct mapping_table *t,
                                                   uintptr_t addr) {
  LOCK_ASSERT_HELD(&t->lock);
  for (unsigned k = 1; k <= MAPPING_REMOVED_KEPT; k++) {
    const struct mapping_removed *r =
        &t->removed[(t->removed_next - k) % MAPPING_REMOVED_KEPT];
    if (r->tgt_end > r->tgt_begin && addr >= r->tgt_begin && addr < r->tgt_end)
      return r;
  }
  return NULL;
}

void mapping_pin(struct mapping_table *t, struct mapping_entry *e) {
  LOCK_ASSERT_HELD(&t->lock);
  e->details->pins++;
}

bool mapping_unpin(struct mapping_table *t, struct mapping_entry *e) {
  LOCK_ASSERT_HELD(&t->lock);
  if (--e->details->pins > 0 || !e->details->unlinked)
    return false;
  free_shadows(e);
  entry_free(e);
  return true;
}

/* ------------------------------------------------------- traversal */

static int visit(struct mapping_details *d,
                 int (*fn)(struct mapping_entry *, void *), void *arg) {
  if (!d)
    return 0;
  /* fn may not remove entries; read the links before calling it anyway. */
  struct mapping_details *right = d->right;
  if (visit(d->left, fn, arg))
    return 1;
  if (fn(d->entry, arg))
    return 1;
  return visit(right, fn, arg);
}

void mapping_foreach(struct mapping_table *t,
                     int (*fn)(struct mapping_entry *, void *), void *arg) {
  LOCK_ASSERT_HELD(&t->lock);
  visit(t->root, fn, arg);
}

static void format_count(uint64_t n, char *buf, size_t len) {
  if (n == MAPPING_REFCOUNT_INFINITE)
    snprintf(buf, len, "inf");
  else
    snprintf(buf, len, "%" PRIu64, n);
}

static int dump_one(struct mapping_entry *e, void *arg) {
  FILE *out = arg;
  char dyn[24], hold[24];
  format_count(e->dyn_refcount, dyn, sizeof dyn);
  format_count(e->hold_refcount, hold, sizeof hold);
  fprintf(out,
          "  host 0x%" PRIxPTR "..0x%" PRIxPTR " (%" PRIuPTR
          " bytes) -> device 0x%" PRIxPTR ", dyn=%s hold=%s%s %s\n",
          e->hst_begin, e->hst_end, e->hst_end - e->hst_begin, e->tgt_begin,
          dyn, hold, e->details->owned ? "" : " (not owned)",
          mapping_name(e, "unknown"));
  return 0;
}

void mapping_dump(struct mapping_table *t, FILE *out, const char *title) {
  LOCK_ASSERT_HELD(&t->lock);
  fprintf(out, "%s: %zu entr%s\n", title ? title : "mapping table", t->count,
          t->count == 1 ? "y" : "ies");
  mapping_foreach(t, dump_one, out);
}

/* ------------------------------------------------------- consistency */

struct check_state {
  const struct mapping_table *t;
  size_t visited;
  uintptr_t prev_end;
  const char *problem;
};

static int check_one(struct mapping_entry *e, void *arg) {
  struct check_state *cs = arg;
  cs->visited++;
  if (e->details->entry != e || e->details->hst_begin != e->hst_begin)
    cs->problem = "an entry and its details disagree";
  else if (cs->visited > 1 && e->hst_begin < cs->prev_end)
    cs->problem = "tree entries overlap or are out of order";
  else if (cs->t->slots && hash_find(cs->t, e->hst_begin) != e)
    cs->problem = "an entry is not where a probe of the hash finds it";
  cs->prev_end = e->hst_end;
  return cs->problem != NULL;
}

int mapping_check(struct mapping_table *t) {
  LOCK_ASSERT_HELD(&t->lock);
  struct check_state cs = {.t = t};
  mapping_foreach(t, check_one, &cs);
  if (!cs.problem && cs.visited != t->count)
    cs.problem = "the tree does not hold `count` entries";
  if (!cs.problem && t->slots) {
    size_t used = 0;
    for (size_t k = 0; k < t->nslots; k++)
      used += t->slots[k].entry != NULL;
    if (used != t->count)
      cs.problem = "the hash does not hold `count` entries";
  }
  if (cs.problem) {
    report_error_set("mapping table: %s", cs.problem);
    return -1;
  }
  return 0;
}
