/*
 * test_memory_blocks.c - the memory routines' blocks (src/memory_blocks.c):
 * the block holding an address is found by device and kind and only
 * there; blocks added in address order (as an allocator hands them out)
 * and removed oldest first keep the tree balanced, so a list (issue 30
 * item 12: omp_target_free linear in the live blocks) fails here by its
 * height, without timing anything; random adds and removes agree with a
 * brute-force model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "memory_blocks.h"

/* The bound of an AVL tree's height for n nodes (Knuth: < 1.4405
 * log2(n + 2) - 0.3277), with log2 rounded up. */
static int avl_height_bound(size_t n) {
  int log2_up = 0;
  while (((size_t)1 << log2_up) < n + 2)
    log2_up++;
  return (int)(1.4405 * log2_up) + 1;
}

static void test_find_by_device_and_kind(void **state) {
  (void)state;
  struct memory_block b;
  assert_int_equal(memory_blocks_add(0, 0x1000, 0x100, true), 0);
  assert_int_equal(memory_blocks_add(1, 0x1000, 0x200, true), 0);
  assert_int_equal(memory_blocks_add(0, 0x5000, 0x10, false), 0);
  assert_true(memory_blocks_find(0, true, 0x10ff, &b));
  assert_int_equal(b.begin, 0x1000);
  assert_int_equal(b.end, 0x1100);
  assert_false(memory_blocks_find(0, true, 0x1100, &b)); /* one past */
  assert_false(memory_blocks_find(0, true, 0xfff, &b));
  assert_true(memory_blocks_find(1, true, 0x11ff, &b)); /* device 1's */
  assert_int_equal(b.end, 0x1200);
  assert_false(memory_blocks_find(2, true, 0x1000, &b));
  assert_false(memory_blocks_find(0, false, 0x1000, &b)); /* other kind */
  assert_true(memory_blocks_find(0, false, 0x500f, &b));
  assert_false(memory_blocks_find(0, true, 0x5000, &b));
  assert_true(memory_blocks_remove(0, 0x1000));
  assert_false(memory_blocks_remove(0, 0x1000));
  assert_false(memory_blocks_find(0, true, 0x1000, &b));
  assert_true(memory_blocks_find(1, true, 0x1000, &b)); /* untouched */
  assert_true(memory_blocks_remove(0, 0x5000)); /* host kind too */
  assert_true(memory_blocks_remove(1, 0x1000));
  assert_int_equal(memory_blocks_count(), 0);
}

/* 50,000 blocks, as issue 30 freed: ascending addresses, removed oldest
 * first. A list (or an unbalanced tree) is 50,000 high here. */
static void test_balanced_in_allocation_order(void **state) {
  (void)state;
  enum { n = 50000 };
  struct memory_block b;
  for (uintptr_t i = 0; i < n; i++) {
    assert_int_equal(memory_blocks_add(0, 0x10000 + i * 0x100, 64, true), 0);
    if ((i & (i + 1)) == 0) /* at every power of two */
      assert_in_range(memory_blocks_height(), 1, avl_height_bound(i + 1));
  }
  assert_int_equal(memory_blocks_count(), n);
  assert_true(memory_blocks_find(0, true, 0x10000 + 777 * 0x100 + 63, &b));
  assert_int_equal(b.begin, 0x10000 + 777 * 0x100);
  assert_false(memory_blocks_find(0, true, 0x10000 + 777 * 0x100 + 64, &b));
  for (uintptr_t i = 0; i < n; i++) {
    assert_true(memory_blocks_remove(0, 0x10000 + i * 0x100));
    if (i % 4096 == 0)
      assert_in_range(memory_blocks_height(), 0, avl_height_bound(n - i));
  }
  assert_int_equal(memory_blocks_count(), 0);
  assert_int_equal(memory_blocks_height(), 0);
}

/* Random adds and removes on two devices against a model. */
static void test_random_against_model(void **state) {
  (void)state;
  enum { slots = 512, ops = 20000 };
  static bool live[2][slots];
  srand(27);
  for (int k = 0; k < ops; k++) {
    int dev = rand() % 2, s = rand() % slots;
    uintptr_t begin = 0x100000 + (uintptr_t)s * 0x40;
    if (live[dev][s])
      assert_true(memory_blocks_remove(dev, begin));
    else
      assert_int_equal(memory_blocks_add(dev, begin, 0x20, s % 3 != 0), 0);
    live[dev][s] = !live[dev][s];
    int qdev = rand() % 2, qs = rand() % slots;
    uintptr_t addr = 0x100000 + (uintptr_t)qs * 0x40 + (uintptr_t)(rand() % 0x40);
    struct memory_block b;
    bool inside = live[qdev][qs] && addr - (0x100000 + (uintptr_t)qs * 0x40) < 0x20;
    assert_int_equal(memory_blocks_find(qdev, qs % 3 != 0, addr, &b), inside);
    assert_false(memory_blocks_find(qdev, qs % 3 == 0, addr, &b));
  }
  size_t n = 0;
  for (int dev = 0; dev < 2; dev++)
    for (int s = 0; s < slots; s++)
      if (live[dev][s]) {
        n++;
        assert_true(memory_blocks_remove(dev, 0x100000 + (uintptr_t)s * 0x40));
      }
  assert_true(n > 0);
  assert_int_equal(memory_blocks_count(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_find_by_device_and_kind),
      cmocka_unit_test(test_balanced_in_allocation_order),
      cmocka_unit_test(test_random_against_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
