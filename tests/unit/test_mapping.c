/*
 * test_mapping.c - the interval tree of src/mapping.c: lookups classify
 * ranges correctly, the tree stays balanced, 100000 random operations
 * agree with a brute-force model, and a table of 20000 entries (several
 * blocks of the entry pool, reused) keeps them apart; the hash of begin
 * addresses keeps every entry in its bucket's chain through growth and
 * removals from the middle of chains.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mapping.h"

static struct mapping_table table;

/* Each test holds the table's lock throughout, as mapping.h requires of
 * every caller (checked in debug builds). */
static int setup(void **state) {
  (void)state;
  mapping_table_init(&table);
  pthread_mutex_lock(&table.lock);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  pthread_mutex_unlock(&table.lock);
  mapping_table_destroy(&table);
  return 0;
}

static void test_lookup_classifies_ranges(void **state) {
  (void)state;
  struct mapping_entry *a = mapping_insert(&table, 1000, 1100, 50000, "a");
  struct mapping_entry *b = mapping_insert(&table, 2000, 2080, 60000, "b");
  assert_non_null(a);
  assert_non_null(b);
  struct mapping_entry *e = NULL;
  assert_int_equal(mapping_lookup(&table, 1000, 100, &e), MAPPING_CONTAINED);
  assert_ptr_equal(e, a);
  assert_int_equal(mapping_lookup(&table, 1050, 10, &e), MAPPING_CONTAINED);
  assert_ptr_equal(e, a);
  /* extends after the end of a */
  assert_int_equal(mapping_lookup(&table, 1050, 100, &e), MAPPING_EXTENDS);
  assert_ptr_equal(e, a);
  /* starts before b and reaches into it */
  assert_int_equal(mapping_lookup(&table, 1900, 101, &e), MAPPING_EXTENDS);
  assert_ptr_equal(e, b);
  /* ends exactly at b's begin: no overlap */
  assert_int_equal(mapping_lookup(&table, 1900, 100, &e), MAPPING_ABSENT);
  assert_null(e);
  /* a superset of b */
  assert_int_equal(mapping_lookup(&table, 1500, 1000, &e), MAPPING_EXTENDS);
  assert_ptr_equal(e, b);
  /* size 0: containing the address; the end address is outside */
  assert_int_equal(mapping_lookup(&table, 1099, 0, &e), MAPPING_CONTAINED);
  assert_ptr_equal(e, a);
  assert_int_equal(mapping_lookup(&table, 1100, 0, &e), MAPPING_ABSENT);
  assert_ptr_equal(mapping_find(&table, 2079), b);
  assert_null(mapping_find(&table, 2080));
  assert_null(mapping_find(&table, 999));
  assert_ptr_equal(mapping_find_device(&table, 60079), b);
  assert_null(mapping_find_device(&table, 60080));
  assert_ptr_equal(mapping_find_device(&table, 50000), a);
}

static void test_insert_refuses_overlap(void **state) {
  (void)state;
  assert_non_null(mapping_insert(&table, 100, 200, 1, "x"));
  assert_null(mapping_insert(&table, 150, 250, 2, "y"));
  assert_null(mapping_insert(&table, 50, 101, 2, "y"));
  assert_null(mapping_insert(&table, 300, 200, 2, "backwards"));
  assert_int_equal(table.count, 1);
  assert_non_null(mapping_insert(&table, 200, 300, 3, "adjacent"));
  assert_int_equal(table.count, 2);
}

static void test_zero_size_entry_found_at_its_begin(void **state) {
  (void)state;
  struct mapping_entry *z = mapping_insert(&table, 500, 500, 9000, "z");
  assert_non_null(z);
  struct mapping_entry *e = NULL;
  assert_int_equal(mapping_lookup(&table, 500, 0, &e), MAPPING_CONTAINED);
  assert_ptr_equal(e, z);
  assert_int_equal(mapping_lookup(&table, 400, 200, &e), MAPPING_EXTENDS);
  assert_ptr_equal(e, z);
}

static int collect(struct mapping_entry *e, void *arg) {
  uintptr_t *prev = arg;
  assert_true(e->hst_begin >= *prev);
  *prev = e->hst_end;
  return 0;
}

static int count_until(struct mapping_entry *e, void *arg) {
  (void)e;
  int *n = arg;
  return ++*n == 3;
}

static int tree_height(const struct mapping_entry *e) {
  if (!e)
    return 0;
  int l = tree_height(e->left), r = tree_height(e->right);
  assert_true(l - r <= 1 && r - l <= 1); /* AVL invariant */
  return 1 + (l > r ? l : r);
}

static void test_sorted_insert_stays_balanced(void **state) {
  (void)state;
  for (uintptr_t i = 0; i < 4096; i++)
    assert_non_null(
        mapping_insert(&table, 4096 + i * 16, 4096 + i * 16 + 8, i, NULL));
  int h = tree_height(table.root);
  assert_true(h <= 14); /* 1.44 * log2(4096) ~ 17; a list would be 4096 */
  uintptr_t prev = 0;
  mapping_foreach(&table, collect, &prev);
  int n = 0;
  mapping_foreach(&table, count_until, &n);
  assert_int_equal(n, 3); /* stopped when fn returned non-zero */
}

static void test_dump_prints_counts_and_names(void **state) {
  (void)state;
  struct mapping_entry *e =
      mapping_insert(&table, 0x1000, 0x1010, 0x9000, "x[0:4]");
  e->dyn_refcount = 2;
  e->hold_refcount = 1;
  e->owned = true;
  struct mapping_entry *g =
      mapping_insert(&table, 0x2000, 0x2008, 0xa000, "global_g");
  g->dyn_refcount = MAPPING_REFCOUNT_INFINITE;
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  assert_non_null(out);
  mapping_dump(&table, out, "table of device 0");
  fclose(out);
  assert_non_null(strstr(buf, "table of device 0: 2 entries"));
  assert_non_null(strstr(buf, "host 0x1000..0x1010 (16 bytes) -> device "
                              "0x9000, dyn=2 hold=1 x[0:4]"));
  assert_non_null(strstr(buf, "dyn=inf hold=0 (not owned) global_g"));
  free(buf);
}

/* A large table: its entries come from several 2 MiB blocks of mapping.c's
 * pool (8000 a block), reused after removal. Each entry must be a separate,
 * cache-line aligned object (written in full here, so an overlap corrupts
 * a neighbour) that every lookup still finds. */
static void test_large_table_entries_are_distinct(void **state) {
  (void)state;
  enum { N = 20000 };
  static struct mapping_entry *e[N];
  for (uintptr_t round = 0; round < 2; round++) {
    for (uintptr_t i = 0; i < N; i += round ? 2 : 1) {
      uintptr_t b = 0x100000 + i * 64;
      e[i] = mapping_insert(&table, b, b + 8, 0x9000000 + i * 64, NULL);
      assert_non_null(e[i]);
      assert_int_equal((uintptr_t)e[i] % 64, 0);
      snprintf(e[i]->name, sizeof e[i]->name, "%095lu", (unsigned long)i);
    }
    for (uintptr_t i = 0; i < N; i++) {
      struct mapping_entry *f = NULL;
      assert_int_equal(mapping_lookup(&table, 0x100000 + i * 64, 8, &f),
                       MAPPING_CONTAINED);
      assert_ptr_equal(f, e[i]);
      assert_int_equal(strtoul(f->name, NULL, 10), i);
      assert_int_equal(f->tgt_begin, 0x9000000 + i * 64);
    }
    /* every other one goes; the next round puts them back in reused
     * memory */
    for (uintptr_t i = 0; !round && i < N; i += 2)
      assert_true(mapping_remove(&table, e[i]));
  }
  assert_int_equal(table.count, N);
}

/* The hash of begin addresses through its growth (64 buckets to 131072)
 * and through removals in random order, which take entries out of the
 * middle of chains: after each step every entry is in the chain of its
 * bucket and nothing else is (mapping_check: the tree would otherwise hide
 * an entry the hash lost), each is found by its begin and by addresses
 * inside it, and the gaps between entries and the removed entries are
 * absent. */
enum { GROW_N = 40000, GROW_STRIDE = 48, GROW_SIZE = 40 };

static uintptr_t grow_begin(size_t i) { return 0x200000 + i * GROW_STRIDE; }

static void check_present(struct mapping_entry *e, size_t i) {
  uintptr_t b = grow_begin(i);
  struct mapping_entry *f = NULL;
  assert_int_equal(mapping_lookup(&table, b, GROW_SIZE, &f), MAPPING_CONTAINED);
  assert_ptr_equal(f, e);
  assert_int_equal(mapping_lookup(&table, b + 8, 16, &f), MAPPING_CONTAINED);
  assert_ptr_equal(f, e);
  assert_int_equal(mapping_lookup(&table, b + 8, GROW_SIZE, &f),
                   MAPPING_EXTENDS);
  assert_ptr_equal(f, e);
  assert_ptr_equal(mapping_find(&table, b + GROW_SIZE - 1), e);
  assert_ptr_equal(mapping_find_zero_size(&table, b + 17), e);
  /* the gap after the entry */
  assert_null(mapping_find(&table, b + GROW_SIZE));
  assert_int_equal(mapping_lookup(&table, b + GROW_SIZE, 8, &f),
                   MAPPING_ABSENT);
}

static void check_absent(size_t i) {
  uintptr_t b = grow_begin(i);
  struct mapping_entry *f = NULL;
  assert_null(mapping_find(&table, b));
  assert_null(mapping_find(&table, b + 8));
  assert_int_equal(mapping_lookup(&table, b, GROW_SIZE, &f), MAPPING_ABSENT);
  assert_null(f);
}

static void test_hash_growth_and_removal(void **state) {
  (void)state;
  static struct mapping_entry *e[GROW_N];
  static size_t order[GROW_N];
  for (size_t i = 0; i < GROW_N; i++) {
    e[i] = mapping_insert(&table, grow_begin(i), grow_begin(i) + GROW_SIZE,
                          0x40000000 + i * GROW_STRIDE, NULL);
    assert_non_null(e[i]);
    if ((i & (i + 1)) == 0) { /* after each power of two: around a growth */
      assert_int_equal(mapping_check(&table), 0);
      for (size_t j = 0; j <= i; j++)
        check_present(e[j], j);
    }
  }
  assert_int_equal(mapping_check(&table), 0);
  assert_true(table.nbuckets >= 2 * GROW_N); /* it grew: one entry per two */
  /* remove every other entry, in random order */
  srand(777);
  size_t n = 0;
  for (size_t i = 0; i < GROW_N; i += 2)
    order[n++] = i;
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)rand() % (i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (size_t k = 0; k < n; k++) {
    assert_true(mapping_remove(&table, e[order[k]]));
    e[order[k]] = NULL;
    if (k % 997 == 0)
      assert_int_equal(mapping_check(&table), 0);
  }
  assert_int_equal(mapping_check(&table), 0);
  assert_int_equal(table.count, GROW_N - n);
  for (size_t i = 0; i < GROW_N; i++) {
    if (e[i])
      check_present(e[i], i);
    else
      check_absent(i);
  }
  /* and back, into reused entries */
  for (size_t i = 0; i < GROW_N; i += 2) {
    e[i] = mapping_insert(&table, grow_begin(i), grow_begin(i) + GROW_SIZE,
                          0x40000000 + i * GROW_STRIDE, NULL);
    assert_non_null(e[i]);
  }
  assert_int_equal(mapping_check(&table), 0);
  for (size_t i = 0; i < GROW_N; i++)
    check_present(e[i], i);
}

/* A pinned entry leaves the table (tree and hash) at once: its range is
 * free for a new entry while the old one lives on until its last unpin. */
static void test_pinned_removal_leaves_the_hash(void **state) {
  (void)state;
  struct mapping_entry *old = mapping_insert(&table, 0x5000, 0x5100, 1, "old");
  assert_non_null(old);
  mapping_pin(&table, old);
  assert_false(mapping_remove(&table, old)); /* pinned: not freed yet */
  assert_true(old->unlinked);
  assert_null(mapping_find(&table, 0x5000));
  assert_int_equal(mapping_check(&table), 0);
  struct mapping_entry *fresh =
      mapping_insert(&table, 0x5000, 0x5100, 2, "fresh");
  assert_non_null(fresh);
  assert_ptr_not_equal(fresh, old);
  assert_ptr_equal(mapping_find(&table, 0x50ff), fresh);
  assert_string_equal(old->name, "old"); /* still alive */
  assert_true(mapping_unpin(&table, old));        /* the last unpin frees */
  assert_ptr_equal(mapping_find(&table, 0x5000), fresh);
  assert_int_equal(mapping_check(&table), 0);
}

/* Brute-force model: a flat array of intervals. */
struct model_entry {
  uintptr_t begin, end;
  struct mapping_entry *node;
};

static void test_random_against_model(void **state) {
  (void)state;
  enum { SLOTS = 1500, OPS = 100000 };
  static struct model_entry model[SLOTS];
  size_t n = 0;
  srand(12345);
  for (int op = 0; op < OPS; op++) {
    /* inserts outweigh removals so the tree grows to ~SLOTS entries */
    int what = rand() % 5;
    if (what == 3)
      what = 0;
    else if (what == 4)
      what = 2;
    uintptr_t begin = 0x10000 + (uintptr_t)(rand() % 2000000);
    uintptr_t size = 1 + (uintptr_t)(rand() % 300);
    /* what the model says about [begin, begin+size) */
    struct model_entry *holder = NULL, *overlap = NULL;
    for (size_t i = 0; i < n; i++) {
      if (begin >= model[i].begin && begin < model[i].end)
        holder = &model[i];
      if (model[i].begin < begin + size && model[i].end > begin)
        overlap = &model[i];
    }
    struct mapping_entry *e = NULL;
    enum mapping_overlap ov = mapping_lookup(&table, begin, size, &e);
    if (!overlap) {
      assert_int_equal(ov, MAPPING_ABSENT);
    } else if (holder && begin + size <= holder->end) {
      assert_int_equal(ov, MAPPING_CONTAINED);
      assert_ptr_equal(e, holder->node);
    } else {
      assert_int_equal(ov, MAPPING_EXTENDS);
      if (holder)
        assert_ptr_equal(e, holder->node);
    }
    if (what == 0 && !overlap && n < SLOTS) {
      struct mapping_entry *node =
          mapping_insert(&table, begin, begin + size, begin * 2, NULL);
      assert_non_null(node);
      model[n++] = (struct model_entry){begin, begin + size, node};
    } else if (what == 1 && n > 0) {
      size_t victim = (size_t)rand() % n;
      mapping_remove(&table, model[victim].node);
      model[victim] = model[--n];
    } else if (what == 2 && n > 0) {
      size_t probe = (size_t)rand() % n;
      uintptr_t addr =
          model[probe].begin +
          (uintptr_t)rand() % (model[probe].end - model[probe].begin);
      assert_ptr_equal(mapping_find(&table, addr), model[probe].node);
      assert_ptr_equal(mapping_find_device(&table, addr + model[probe].begin),
                       model[probe].node);
    }
    assert_int_equal(table.count, n);
    if (op % 1000 == 0) /* `last` among the rest */
      assert_int_equal(mapping_check(&table), 0);
  }
  assert_true(n > 500); /* the tree really grew */
  assert_int_equal(mapping_check(&table), 0);
  tree_height(table.root);
  uintptr_t prev = 0;
  mapping_foreach(&table, collect, &prev);
}

/* Lookups at and above the entry with the greatest begin skip the tree:
 * they must still see that entry, and the one before it once it is gone. */
static void test_lookups_past_the_last_entry(void **state) {
  (void)state;
  struct mapping_entry *a = mapping_insert(&table, 0x1000, 0x1100, 0x9000, NULL);
  struct mapping_entry *b = mapping_insert(&table, 0x2000, 0x2100, 0xa000, NULL);
  struct mapping_entry *e = NULL;
  assert_int_equal(mapping_lookup(&table, 0x2050, 8, &e), MAPPING_CONTAINED);
  assert_ptr_equal(e, b);
  assert_int_equal(mapping_lookup(&table, 0x20f0, 0x20, &e), MAPPING_EXTENDS);
  assert_ptr_equal(e, b);
  assert_int_equal(mapping_lookup(&table, 0x2100, 8, &e), MAPPING_ABSENT);
  assert_true(mapping_remove(&table, b));
  assert_int_equal(mapping_check(&table), 0);
  /* where b was: absent now; a range reaching back into a is not */
  assert_int_equal(mapping_lookup(&table, 0x2050, 8, &e), MAPPING_ABSENT);
  assert_int_equal(mapping_lookup(&table, 0x10f0, 0x1000, &e), MAPPING_EXTENDS);
  assert_ptr_equal(e, a);
  assert_ptr_equal(mapping_find(&table, 0x1050), a);
  assert_true(mapping_remove(&table, a));
  assert_int_equal(mapping_check(&table), 0);
  assert_int_equal(mapping_lookup(&table, 0x1050, 8, &e), MAPPING_ABSENT);
  /* a lower begin than every entry does not become the last */
  struct mapping_entry *c = mapping_insert(&table, 0x3000, 0x3100, 0xb000, NULL);
  struct mapping_entry *d = mapping_insert(&table, 0x500, 0x600, 0xc000, NULL);
  assert_int_equal(mapping_lookup(&table, 0x3010, 8, &e), MAPPING_CONTAINED);
  assert_ptr_equal(e, c);
  assert_int_equal(mapping_lookup(&table, 0x510, 8, &e), MAPPING_CONTAINED);
  assert_ptr_equal(e, d);
  assert_int_equal(mapping_check(&table), 0);
}

/* The lock checks are real: a lookup without the table's lock, made in a
 * child process, ends it with SIGABRT and a message naming the function and
 * the lock (debug builds; with NDEBUG there is no check to test). */
static void test_lookup_without_lock_aborts(void **state) {
  (void)state;
#ifdef NDEBUG
  skip();
#else
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  fflush(NULL);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    dup2(fds[1], 2);
    struct mapping_table unlocked;
    mapping_table_init(&unlocked);
    struct mapping_entry *e;
    mapping_lookup(&unlocked, 1000, 8, &e);
    _exit(0); /* not reached when the check works */
  }
  close(fds[1]);
  char text[512] = "";
  ssize_t n = read(fds[0], text, sizeof text - 1);
  close(fds[0]);
  text[n > 0 ? n : 0] = '\0';
  int status;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(WTERMSIG(status), SIGABRT);
  assert_non_null(strstr(text, "mapping_lookup"));
  assert_non_null(strstr(text, "lock"));
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_lookup_classifies_ranges, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_insert_refuses_overlap, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_zero_size_entry_found_at_its_begin,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_sorted_insert_stays_balanced, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_dump_prints_counts_and_names, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_lookups_past_the_last_entry, setup,
                                      teardown),
      cmocka_unit_test(test_lookup_without_lock_aborts),
      cmocka_unit_test_setup_teardown(test_random_against_model, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_large_table_entries_are_distinct,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_hash_growth_and_removal, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_pinned_removal_leaves_the_hash,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
