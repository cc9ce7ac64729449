/*
 * test_maps.c - what every map-type bit does (src/maps.c, src/mappers.c,
 * src/device_ops.c), against a test plugin whose "device memory" is a
 * separate malloc'ed block per allocation (so device and host addresses
 * differ, and a missing copy or a wrong pointer shows) and which counts
 * every call.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "async.h"
#include "device.h"
#include "launch.h"
#include "maps.h"

#define TO OMP_TGT_MAPTYPE_TO
#define FROM OMP_TGT_MAPTYPE_FROM
#define ALWAYS OMP_TGT_MAPTYPE_ALWAYS
#define DELETE OMP_TGT_MAPTYPE_DELETE
#define PTR_AND_OBJ OMP_TGT_MAPTYPE_PTR_AND_OBJ
#define PARAM OMP_TGT_MAPTYPE_TARGET_PARAM
#define RETURN_PARAM OMP_TGT_MAPTYPE_RETURN_PARAM
#define PRIVATE OMP_TGT_MAPTYPE_PRIVATE
#define LITERAL OMP_TGT_MAPTYPE_LITERAL
#define IMPLICIT OMP_TGT_MAPTYPE_IMPLICIT
#define PRESENT OMP_TGT_MAPTYPE_PRESENT
#define HOLD OMP_TGT_MAPTYPE_OMPX_HOLD
#define ATTACH OMP_TGT_MAPTYPE_ATTACH
#define NON_CONTIG OMP_TGT_MAPTYPE_NON_CONTIG
#define MEMBER_OF(k) ((int64_t)((uint64_t)(k) << 48))
#define POISON 0xAB

/* ------------------------------------------------------- test plugin */

static struct {
  int attempts;                            /* data_alloc calls */
  int allocs, deletes, submits, retrieves; /* successful calls */
  int live;                                /* allocations not yet deleted */
  int fail_alloc_at;       /* fail the N-th allocation (1-based); 0: never */
  int fail_submit;         /* fail every submit */
  uintptr_t retrieved[64]; /* host addresses of the retrieves, in order */
} plug_stats;

static void *tp_alloc(int32_t id, int64_t size, void *hst, int32_t kind) {
  (void)id, (void)hst, (void)kind;
  plug_stats.attempts++;
  if (plug_stats.fail_alloc_at &&
      plug_stats.attempts == plug_stats.fail_alloc_at)
    return NULL;
  void *p = malloc(size > 0 ? (size_t)size : 1);
  if (p) {
    memset(p, POISON, size > 0 ? (size_t)size : 1);
    plug_stats.allocs++;
    plug_stats.live++;
  }
  return p;
}

static int32_t tp_delete(int32_t id, void *tgt) {
  (void)id;
  plug_stats.deletes++;
  plug_stats.live--;
  free(tgt);
  return OFFLOAD_SUCCESS;
}

static int32_t tp_submit(int32_t id, void *tgt, void *hst, int64_t size) {
  (void)id;
  if (plug_stats.fail_submit)
    return OFFLOAD_FAIL;
  plug_stats.submits++;
  memcpy(tgt, hst, (size_t)size);
  return OFFLOAD_SUCCESS;
}

static int32_t tp_retrieve(int32_t id, void *hst, void *tgt, int64_t size) {
  (void)id;
  if (plug_stats.retrieves < 64)
    plug_stats.retrieved[plug_stats.retrieves] = (uintptr_t)hst;
  plug_stats.retrieves++;
  memcpy(hst, tgt, (size_t)size);
  return OFFLOAD_SUCCESS;
}

static int32_t tp_last_error(int32_t id, __tgt_rtl_error *err) {
  (void)id;
  snprintf(err->message, sizeof err->message, "the test plugin refused");
  return OFFLOAD_SUCCESS;
}

static struct plugin plug;
static struct device dev;

static int setup(void **state) {
  (void)state;
  memset(&plug_stats, 0, sizeof plug_stats);
  memset(&plug, 0, sizeof plug);
  plug.name = "testplugin";
  plug.ops.data_alloc = tp_alloc;
  plug.ops.data_delete = tp_delete;
  plug.ops.data_submit = tp_submit;
  plug.ops.data_retrieve = tp_retrieve;
  plug.ops.get_last_error = tp_last_error;
  device_init_for_test(&dev, &plug, 0);
  report_error_clear();
  report_set_info_flags(0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  mapping_table_destroy(&dev.map);
  pthread_mutex_destroy(&dev.lock);
  return 0;
}

/* ----------------------------------------------------------- helpers */

typedef int (*map_fn)(struct device *, const struct map_args *);

static int call1(map_fn fn, void *base, void *begin, int64_t size,
                 int64_t type) {
  void *b[1] = {base}, *p[1] = {begin};
  int64_t s[1] = {size}, t[1] = {type};
  struct map_args a = {.num = 1, .base = b, .begin = p, .sizes = s, .types = t};
  return fn(&dev, &a);
}

/* The same object's base and begin. */
static int map1(map_fn fn, void *obj, int64_t size, int64_t type) {
  return call1(fn, obj, obj, size, type);
}

static struct mapping_entry *entry_of(const void *host) {
  pthread_mutex_lock(&dev.map.lock);
  struct mapping_entry *e = mapping_find(&dev.map, (uintptr_t)host);
  pthread_mutex_unlock(&dev.map.lock);
  return e;
}

static void *tgt_of(const void *host) {
  struct mapping_entry *e = entry_of(host);
  assert_non_null(e);
  return (void *)(e->tgt_begin + ((uintptr_t)host - e->hst_begin));
}

static uint64_t dyn_of(const void *host) {
  struct mapping_entry *e = entry_of(host);
  assert_non_null(e);
  return e->dyn_refcount;
}

static void assert_table_empty_and_freed(void) {
  assert_int_equal(dev.map.count, 0);
  assert_int_equal(plug_stats.live, 0);
  assert_int_equal(plug_stats.allocs, plug_stats.deletes);
}

static void assert_error_contains(const char *needle) {
  const char *err = report_error_get();
  if (!strstr(err, needle))
    fail_msg("error \"%s\" lacks \"%s\"", err, needle);
}

/* ------------------------------------------------ refcounts and copies */

static void test_tofrom_nested_target_data(void **state) {
  (void)state;
  int x[4] = {1, 2, 3, 4};
  assert_int_equal(map1(maps_data_begin, x, sizeof x, TO | FROM), 0);
  int *dx = tgt_of(x);
  assert_ptr_not_equal(dx, x);
  assert_memory_equal(dx, x, sizeof x);
  assert_int_equal(dyn_of(x), 1);
  int submits = plug_stats.submits;

  /* nested target data: count 2, no copy (the entry is not new) */
  assert_int_equal(map1(maps_data_begin, x, sizeof x, TO | FROM), 0);
  assert_int_equal(dyn_of(x), 2);
  assert_int_equal(plug_stats.submits, submits);
  assert_int_equal(plug_stats.allocs, 1);

  dx[0] = 100; /* the "kernel" */
  assert_int_equal(map1(maps_data_end, x, sizeof x, TO | FROM), 0);
  assert_int_equal(dyn_of(x), 1);
  assert_int_equal(plug_stats.retrieves, 0); /* FROM only at count 0 */
  assert_int_equal(x[0], 1);

  assert_int_equal(map1(maps_data_end, x, sizeof x, TO | FROM), 0);
  assert_int_equal(x[0], 100);
  assert_int_equal(plug_stats.retrieves, 1);
  assert_null(entry_of(x));
  assert_table_empty_and_freed();
}

static void test_always_copies_regardless_of_count(void **state) {
  (void)state;
  int x[4] = {1, 2, 3, 4};
  assert_int_equal(map1(maps_data_begin, x, sizeof x, TO | FROM), 0);
  int *dx = tgt_of(x);
  x[1] = 20;
  assert_int_equal(map1(maps_data_begin, x, sizeof x, TO | ALWAYS), 0);
  assert_int_equal(dx[1], 20);
  dx[2] = 30;
  assert_int_equal(map1(maps_data_end, x, sizeof x, FROM | ALWAYS), 0);
  assert_int_equal(x[2], 30); /* copied although the count is still 1 */
  assert_int_equal(dyn_of(x), 1);
  assert_int_equal(map1(maps_data_end, x, sizeof x, 0), 0); /* release */
  assert_table_empty_and_freed();
}

static void test_alloc_release_and_delete(void **state) {
  (void)state;
  int x[4] = {1, 2, 3, 4};
  assert_int_equal(map1(maps_data_begin, x, sizeof x, 0), 0); /* alloc */
  assert_int_equal(plug_stats.submits, 0);
  unsigned char *dx = tgt_of(x);
  assert_int_equal(dx[0], POISON); /* alloc copies nothing */
  assert_int_equal(map1(maps_data_begin, x, sizeof x, 0), 0);
  assert_int_equal(map1(maps_data_begin, x, sizeof x, 0), 0);
  assert_int_equal(dyn_of(x), 3);
  assert_int_equal(map1(maps_data_end, x, sizeof x, 0), 0); /* release */
  assert_int_equal(dyn_of(x), 2);
  ((int *)dx)[3] = 44;
  /* delete forces the count to 0; with FROM it copies first */
  assert_int_equal(map1(maps_data_end, x, sizeof x, DELETE | FROM), 0);
  assert_int_equal(x[3], 44);
  assert_table_empty_and_freed();
  /* delete without from copies nothing */
  assert_int_equal(map1(maps_data_begin, x, sizeof x, TO), 0);
  assert_int_equal(map1(maps_data_begin, x, sizeof x, TO), 0);
  int retrieves = plug_stats.retrieves;
  assert_int_equal(map1(maps_data_end, x, sizeof x, DELETE), 0);
  assert_int_equal(plug_stats.retrieves, retrieves);
  assert_table_empty_and_freed();
}

static void test_ompx_hold_keeps_entry(void **state) {
  (void)state;
  double y[8] = {0};
  assert_int_equal(map1(maps_data_begin, y, sizeof y, TO | FROM | HOLD), 0);
  struct mapping_entry *e = entry_of(y);
  assert_int_equal(e->hold_refcount, 1);
  assert_int_equal(e->dyn_refcount, 0);
  assert_int_equal(map1(maps_data_begin, y, sizeof y, TO), 0); /* enter */
  assert_int_equal(e->dyn_refcount, 1);
  /* exit data delete: dynamic count 0, but the hold keeps the entry */
  assert_int_equal(map1(maps_data_end, y, sizeof y, DELETE), 0);
  assert_ptr_equal(entry_of(y), e);
  assert_int_equal(e->dyn_refcount, 0);
  assert_int_equal(e->hold_refcount, 1);
  ((double *)tgt_of(y))[7] = 7.5;
  assert_int_equal(map1(maps_data_end, y, sizeof y, TO | FROM | HOLD), 0);
  assert_true(y[7] == 7.5);
  assert_table_empty_and_freed();
}

static void test_count_changes_once_per_construct(void **state) {
  (void)state;
  int x[16];
  for (int i = 0; i < 16; i++)
    x[i] = i;
  void *base[3] = {x, x, &x[4]};
  void *begin[3] = {x, x, &x[4]};
  int64_t sizes[3] = {sizeof x, sizeof x, 16};
  int64_t types[3] = {TO | FROM, TO | FROM | IMPLICIT, FROM};
  struct map_args a = {3, base, begin, sizes, types, NULL, NULL};
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_int_equal(dyn_of(x), 1);
  assert_int_equal(dev.map.count, 1);
  ((int *)tgt_of(x))[5] = 55;
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_int_equal(x[5], 55);
  assert_table_empty_and_freed();
}

static void test_infinite_count_is_never_removed(void **state) {
  (void)state;
  static int global_g[4];
  int dev_copy[4] = {0};
  pthread_mutex_lock(&dev.map.lock);
  struct mapping_entry *e = mapping_insert(
      &dev.map, (uintptr_t)global_g, (uintptr_t)global_g + sizeof global_g,
      (uintptr_t)dev_copy, "global_g");
  e->dyn_refcount = MAPPING_REFCOUNT_INFINITE;
  pthread_mutex_unlock(&dev.map.lock);
  global_g[1] = 9;
  assert_int_equal(map1(maps_data_begin, global_g, sizeof global_g, TO), 0);
  assert_int_equal(dev_copy[1], 0); /* present since load: no copy */
  assert_int_equal(
      map1(maps_data_end, global_g, sizeof global_g, FROM | DELETE), 0);
  assert_ptr_equal(entry_of(global_g), e);
  assert_int_equal(e->dyn_refcount, MAPPING_REFCOUNT_INFINITE);
  assert_int_equal(plug_stats.deletes, 0);
  pthread_mutex_lock(&dev.map.lock);
  mapping_remove(&dev.map, e);
  pthread_mutex_unlock(&dev.map.lock);
}

/* -------------------------------------------------- extension, present */

static void test_explicit_extension_is_an_error(void **state) {
  (void)state;
  double y[20];
  assert_int_equal(map1(maps_data_begin, y, 80, TO), 0);
  char want[96];
  /* extends past the end of the entry */
  assert_int_equal(map1(maps_data_begin, y, 160, TO), -1);
  assert_error_contains("explicit extension of a mapped object");
  snprintf(want, sizeof want, "new map of unknown host %p [0:160]", (void *)y);
  assert_error_contains(want);
  snprintf(want, sizeof want, "extends mapped unknown host %p [0:80]",
           (void *)y);
  assert_error_contains(want);
  assert_int_equal(dyn_of(y), 1); /* unchanged */
  assert_int_equal(dev.map.count, 1);
  assert_int_equal(plug_stats.allocs, 1);
  assert_int_equal(map1(maps_data_end, y, 80, 0), 0);
  /* starts before the entry and reaches into it */
  assert_int_equal(map1(maps_data_begin, &y[4], 32, TO), 0);
  report_error_clear();
  assert_int_equal(map1(maps_data_begin, &y[0], 40, TO | FROM), -1);
  snprintf(want, sizeof want,
           "host %p [0:40] extends mapped unknown host %p [0:32]", (void *)y,
           (void *)&y[4]);
  assert_error_contains(want);
  assert_int_equal(dyn_of(&y[4]), 1);
  assert_int_equal(map1(maps_data_end, &y[4], 32, 0), 0);
  assert_table_empty_and_freed();
}

static void test_implicit_extension_uses_existing(void **state) {
  (void)state;
  double y[20];
  for (int i = 0; i < 20; i++)
    y[i] = i;
  assert_int_equal(map1(maps_data_begin, &y[2], 80, TO | FROM), 0);
  double *dy = tgt_of(&y[2]);
  /* implicit map of the whole of y from inside the entry: extends it */
  assert_int_equal(map1(maps_data_begin, &y[4], 160, TO | FROM | IMPLICIT), 0);
  assert_int_equal(dyn_of(&y[2]), 2);
  assert_int_equal(dev.map.count, 1);
  void *arg = NULL;
  assert_int_equal(maps_kernel_arg(&dev, &y[4], &y[4], 160,
                                   TO | FROM | IMPLICIT | PARAM, &arg),
                   0);
  assert_ptr_equal(arg, dy + 2);
  dy[3] = 33;
  assert_int_equal(map1(maps_data_end, &y[4], 160, TO | FROM | IMPLICIT), 0);
  assert_int_equal(dyn_of(&y[2]), 1);
  /* an implicit map starting before the entry uses it too (LLVM 19: the
   * whole array used while a section of it is mapped); the kernel gets the
   * device address of y[0] by the entry's offset */
  assert_int_equal(map1(maps_data_begin, &y[0], 160, TO | IMPLICIT), 0);
  assert_int_equal(dev.map.count, 1);
  assert_int_equal(dyn_of(&y[2]), 2);
  assert_int_equal(maps_kernel_arg(&dev, &y[0], &y[0], 160,
                                   TO | IMPLICIT | PARAM, &arg),
                   0);
  assert_ptr_equal(arg, dy - 2);
  assert_int_equal(map1(maps_data_end, &y[0], 160, TO | IMPLICIT), 0);
  /* an explicit exit naming more than is mapped is skipped (LLVM 19) */
  assert_int_equal(map1(maps_data_end, &y[0], 160, FROM), 0);
  assert_int_equal(dyn_of(&y[2]), 1);
  /* and an explicit entry naming more than is mapped is an error */
  assert_int_equal(map1(maps_data_begin, &y[0], 160, TO), -1);
  assert_error_contains("explicit extension of a mapped object");
  assert_int_equal(map1(maps_data_end, &y[2], 80, TO | FROM), 0);
  assert_true(y[5] == 33);
  assert_table_empty_and_freed();
}

static void test_present_on_absent_object(void **state) {
  (void)state;
  int z[3];
  char want[96];
  void *b[1] = {z}, *p[1] = {z};
  int64_t s[1] = {12}, t[1] = {TO | PRESENT};
  void *names[1] = {";z[0:3];file.c;12;3;;"};
  struct map_args a = {1, b, p, s, t, names, NULL};
  assert_int_equal(maps_data_begin(&dev, &a), -1);
  snprintf(want, sizeof want,
           "map(present) of an absent object: z[0:3] host %p[0:12]", (void *)z);
  assert_error_contains(want);
  assert_int_equal(dev.map.count, 0);
  assert_int_equal(plug_stats.allocs, 0);
  /* present and mapped: fine */
  assert_int_equal(map1(maps_data_begin, z, 12, TO), 0);
  report_error_clear();
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_int_equal(dyn_of(z), 2);
  assert_int_equal(map1(maps_data_end, z, 12, DELETE), 0);
  /* present at exit of an absent object fails too */
  t[0] = FROM | PRESENT;
  assert_int_equal(maps_data_end(&dev, &a), -1);
  assert_error_contains("map(present) of an absent object");
  assert_table_empty_and_freed();
}

/* ----------------------------------------------------- structs, pointers */

struct rec {
  int a;
  int *p;
  int b[4];
};

static void test_member_of_children_land_in_parent(void **state) {
  (void)state;
  struct rec s = {.a = 1, .p = NULL, .b = {10, 11, 12, 13}};
  /* clang 13-19: parent span (TARGET_PARAM only) + a member child */
  void *base[2] = {&s, &s};
  void *begin[2] = {&s, &s.b[0]};
  int64_t sizes[2] = {sizeof s, sizeof s.b};
  int64_t types[2] = {PARAM, TO | FROM | MEMBER_OF(1)};
  struct map_args a = {2, base, begin, sizes, types, NULL, NULL};
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_int_equal(dev.map.count, 1);
  assert_int_equal(plug_stats.allocs, 1);
  struct mapping_entry *e = entry_of(&s);
  assert_int_equal(e->hst_begin, (uintptr_t)&s);
  assert_int_equal(e->hst_end - e->hst_begin, sizeof s);
  assert_int_equal(e->dyn_refcount, 1); /* once for parent and child */
  struct rec *ds = tgt_of(&s);
  assert_memory_equal(ds->b, s.b, sizeof s.b);
  assert_int_equal(((unsigned char *)&ds->a)[0], POISON); /* a not copied */
  void *arg = NULL;
  assert_int_equal(maps_kernel_arg(&dev, &s, &s, sizeof s, PARAM, &arg), 0);
  assert_ptr_equal(arg, ds);
  ds->a = 99;
  ds->b[2] = 120;
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_int_equal(s.b[2], 120); /* the child's range came back */
  assert_int_equal(s.a, 1);      /* the parent has no FROM */
  assert_table_empty_and_freed();
}

static void test_ptr_and_obj_shadow_both_ways(void **state) {
  (void)state;
  int pointee[8];
  for (int i = 0; i < 8; i++)
    pointee[i] = i;
  struct rec s = {.a = 5, .p = pointee, .b = {0}};
  /* clang 13-19 `map(tofrom: s, s.p[0:8])` */
  void *base[3] = {&s, &s, &s.p};
  void *begin[3] = {&s, &s, pointee};
  int64_t sizes[3] = {sizeof s, sizeof s, sizeof pointee};
  int64_t types[3] = {PARAM, TO | FROM | MEMBER_OF(1),
                      TO | FROM | PTR_AND_OBJ | MEMBER_OF(1)};
  struct map_args a = {3, base, begin, sizes, types, NULL, NULL};
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_int_equal(dev.map.count, 2);
  assert_int_equal(dyn_of(&s), 1);
  assert_int_equal(dyn_of(pointee), 1);
  struct rec *ds = tgt_of(&s);
  int *dp = tgt_of(pointee);
  /* device copy of s.p points at the device pointee */
  assert_ptr_equal(ds->p, dp);
  assert_memory_equal(dp, pointee, sizeof pointee);
  assert_int_equal(ds->a, 5);
  struct mapping_entry *se = entry_of(&s);
  assert_non_null(se->shadows);
  assert_int_equal(se->shadows->hst_ptr_addr, (uintptr_t)&s.p);
  assert_int_equal(se->shadows->hst_ptr_value, (uintptr_t)pointee);

  /* update to(s) rewrites all of s on the device: s.p is re-pointed */
  s.a = 6;
  assert_int_equal(map1(maps_data_update, &s, sizeof s, TO), 0);
  assert_int_equal(ds->a, 6);
  assert_ptr_equal(ds->p, dp);
  /* update from(s): the host keeps its own pointer */
  ds->a = 7;
  assert_int_equal(map1(maps_data_update, &s, sizeof s, FROM), 0);
  assert_int_equal(s.a, 7);
  assert_ptr_equal(s.p, pointee);

  dp[3] = 300; /* the "kernel" writes through the device pointer */
  ds->p[4] = 400;
  int retrieves = plug_stats.retrieves;
  assert_int_equal(maps_data_end(&dev, &a), 0);
  /* reverse order: the pointee comes back before the struct holding it */
  assert_int_equal(plug_stats.retrieves - retrieves, 2);
  assert_int_equal(plug_stats.retrieved[retrieves], (uintptr_t)pointee);
  assert_int_equal(plug_stats.retrieved[retrieves + 1], (uintptr_t)&s);
  assert_ptr_equal(s.p, pointee); /* host pointer restored after FROM */
  assert_int_equal(pointee[3], 300);
  assert_int_equal(pointee[4], 400);
  assert_table_empty_and_freed();
}

static void test_ptr_and_obj_maps_unmapped_pointer(void **state) {
  (void)state;
  int data[4] = {1, 2, 3, 4};
  int *p = data;
  assert_int_equal(
      call1(maps_data_begin, &p, data, sizeof data, TO | PTR_AND_OBJ), 0);
  assert_int_equal(dev.map.count, 2);
  struct mapping_entry *pe = entry_of(&p);
  assert_int_equal(pe->hst_end - pe->hst_begin, sizeof(void *));
  int **dpp = tgt_of(&p);
  assert_ptr_equal(*dpp, tgt_of(data));
  assert_int_equal((*dpp)[2], 3);
  /* a pointer into the middle keeps its offset */
  p = &data[1];
  assert_int_equal(call1(maps_data_begin, &p, &data[1], 4, TO | PTR_AND_OBJ),
                   0);
  assert_ptr_equal(*dpp, (int *)tgt_of(data) + 1);
  assert_int_equal(call1(maps_data_end, &p, &data[1], 4, PTR_AND_OBJ), 0);
  p = data;
  assert_int_equal(
      call1(maps_data_end, &p, data, sizeof data, FROM | PTR_AND_OBJ), 0);
  assert_table_empty_and_freed();
}

static void test_attach_clang22(void **state) {
  (void)state;
  int pointee[32];
  for (int i = 0; i < 32; i++)
    pointee[i] = i;
  struct rec s = {.a = 1, .p = pointee};
  /* clang 22 `map(tofrom: s, s.p[0:32])` */
  void *base[3] = {&s, pointee, &s.p};
  void *begin[3] = {&s, pointee, pointee};
  int64_t sizes[3] = {sizeof s, sizeof pointee, sizeof(void *)};
  int64_t types[3] = {TO | FROM | PARAM, TO | FROM, ATTACH};
  struct map_args a = {3, base, begin, sizes, types, NULL, NULL};
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_int_equal(dev.map.count, 2); /* ATTACH maps nothing itself */
  assert_int_equal(dyn_of(&s), 1);
  assert_int_equal(dyn_of(pointee), 1);
  struct rec *ds = tgt_of(&s);
  assert_ptr_equal(ds->p, tgt_of(pointee));

  /* again, both present and not new: the pointer is not written again */
  ds->p = NULL;
  int submits = plug_stats.submits;
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_int_equal(plug_stats.submits, submits);
  assert_null(ds->p);
  assert_int_equal(dyn_of(&s), 2);
  /* attach(always) writes it although nothing is new */
  types[2] = ATTACH | ALWAYS;
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_ptr_equal(ds->p, tgt_of(pointee));
  types[2] = ATTACH;
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_int_equal(dyn_of(&s), 1);

  ((int *)tgt_of(pointee))[31] = -31;
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_ptr_equal(s.p, pointee); /* restored after the FROM of s */
  assert_int_equal(pointee[31], -31);
  assert_table_empty_and_freed();

  /* both mapped earlier by other constructs: nothing new, no attach */
  assert_int_equal(map1(maps_data_begin, &s, sizeof s, TO), 0);
  assert_int_equal(map1(maps_data_begin, pointee, sizeof pointee, TO), 0);
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_ptr_equal(((struct rec *)tgt_of(&s))->p, pointee); /* host value */
  assert_null(entry_of(&s)->shadows);
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_int_equal(map1(maps_data_end, pointee, sizeof pointee, 0), 0);
  assert_int_equal(map1(maps_data_end, &s, sizeof s, 0), 0);
  assert_table_empty_and_freed();

  /* ATTACH with an unmapped pointee attaches nothing and is no error */
  void *b2[2] = {&s, &s.p};
  void *p2[2] = {&s, pointee};
  int64_t s2[2] = {sizeof s, sizeof(void *)};
  int64_t t2[2] = {TO | FROM, ATTACH};
  struct map_args a2 = {2, b2, p2, s2, t2, NULL, NULL};
  assert_int_equal(maps_data_begin(&dev, &a2), 0);
  assert_ptr_equal(((struct rec *)tgt_of(&s))->p, pointee); /* host value */
  /* PRIVATE|ATTACH is left to the launch */
  t2[1] = PRIVATE | ATTACH;
  assert_int_equal(maps_data_begin(&dev, &a2), 0);
  t2[1] = ATTACH;
  assert_int_equal(maps_data_end(&dev, &a2), 0);
  assert_int_equal(maps_data_end(&dev, &a2), 0);
  assert_table_empty_and_freed();
}

/* ------------------------------------------------ update, return param */

static void test_non_contig_update(void **state) {
  (void)state;
  int m[4][5];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++)
      m[i][j] = 10 * i + j;
  assert_int_equal(map1(maps_data_begin, m, sizeof m, TO), 0);
  int(*dm)[5] = tgt_of(m);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++)
      dm[i][j] = -(10 * i + j);
  /* update from(m[1:2][1:3]), as clang 22 describes it: one descriptor
   * per dimension plus the element's (offset 0, count 1, its size) */
  struct {
    int64_t offset, count, stride;
  } dims[3] = {{1, 2, 5 * sizeof(int)}, {1, 3, sizeof(int)},
               {0, 1, sizeof(int)}};
  void *base[1] = {m}, *begin[1] = {dims};
  int64_t sizes[1] = {3}, types[1] = {FROM | NON_CONTIG};
  struct map_args a = {1, base, begin, sizes, types, NULL, NULL};
  int retrieves = plug_stats.retrieves;
  assert_int_equal(maps_data_update(&dev, &a), 0);
  assert_int_equal(plug_stats.retrieves - retrieves, 2); /* one per row */
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++) {
      int in = i >= 1 && i <= 2 && j >= 1 && j <= 3;
      assert_int_equal(m[i][j], in ? -(10 * i + j) : 10 * i + j);
    }
  /* update to(m[0:4:2][4:1]) style: rows 0 and 2 via stride, column 4 */
  m[0][4] = 1000;
  m[2][4] = 1002;
  m[1][4] = 1001;
  dims[0].offset = 0;
  dims[0].count = 2;
  dims[0].stride = 2 * 5 * sizeof(int);
  dims[1].offset = 4;
  dims[1].count = 1;
  types[0] = TO | NON_CONTIG;
  assert_int_equal(maps_data_update(&dev, &a), 0);
  assert_int_equal(dm[0][4], 1000);
  assert_int_equal(dm[2][4], 1002);
  assert_int_equal(dm[1][4], -14);
  /* update from(m[1:1][1:2:2]): OpenMP's m[1][1] and m[1][3] (LLVM's
   * runtime scales the lower bound by the byte stride and copies m[1][2]
   * and m[1][4]; issue 13, item 12) */
  dims[0] = (typeof(dims[0])){1, 1, 5 * sizeof(int)};
  dims[1] = (typeof(dims[1])){1, 2, 2 * sizeof(int)};
  types[0] = FROM | NON_CONTIG;
  m[1][0] = m[1][1] = m[1][2] = m[1][3] = m[1][4] = 7;
  assert_int_equal(maps_data_update(&dev, &a), 0);
  assert_int_equal(m[1][0], 7);
  assert_int_equal(m[1][1], -11);
  assert_int_equal(m[1][2], 7);
  assert_int_equal(m[1][3], -13);
  assert_int_equal(m[1][4], 7);
  /* bad descriptors are refused */
  sizes[0] = 0;
  assert_int_equal(maps_data_update(&dev, &a), -1);
  assert_error_contains("non-contiguous update with 0 dimensions");
  assert_int_equal(map1(maps_data_end, m, sizeof m, 0), 0);
  assert_table_empty_and_freed();
}

static void test_update_of_unmapped_is_noop_unless_present(void **state) {
  (void)state;
  int x[2] = {1, 2};
  assert_int_equal(map1(maps_data_update, x, sizeof x, TO), 0);
  assert_int_equal(plug_stats.submits, 0);
  assert_int_equal(map1(maps_data_update, x, sizeof x, TO | PRESENT), -1);
  assert_error_contains("the object is not mapped");
}

static void test_return_param(void **state) {
  (void)state;
  int c[16];
  void *base[2] = {c, c};
  void *begin[2] = {c, c};
  int64_t sizes[2] = {sizeof c, 0};
  int64_t types[2] = {TO | FROM, RETURN_PARAM};
  struct map_args a = {2, base, begin, sizes, types, NULL, NULL};
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_ptr_equal(base[1], tgt_of(c)); /* use_device_ptr got the address */
  assert_ptr_equal(base[0], c);
  assert_int_equal(dyn_of(c), 1); /* the query does not count */
  /* map(tofrom: c) use_device_ptr(c) in one entry */
  int d[4];
  void *b2[1] = {d}, *p2[1] = {d};
  int64_t s2[1] = {sizeof d}, t2[1] = {TO | FROM | RETURN_PARAM};
  struct map_args a2 = {1, b2, p2, s2, t2, NULL, NULL};
  assert_int_equal(maps_data_begin(&dev, &a2), 0);
  assert_ptr_equal(b2[0], tgt_of(d));
  /* not mapped: the host pointer is kept */
  int e[2];
  void *b3[1] = {e}, *p3[1] = {e};
  int64_t s3[1] = {0}, t3[1] = {RETURN_PARAM};
  struct map_args a3 = {1, b3, p3, s3, t3, NULL, NULL};
  assert_int_equal(maps_data_begin(&dev, &a3), 0);
  assert_ptr_equal(b3[0], e);
  assert_int_equal(maps_data_end(&dev, &a3), 0);
  b2[0] = d;
  assert_int_equal(maps_data_end(&dev, &a2), 0);
  base[1] = c;
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_table_empty_and_freed();
}

static void test_zero_size_pointers(void **state) {
  (void)state;
  int arr[10];
  int *mid = &arr[3];
  int *unmapped = (int *)0x1234;
  assert_int_equal(map1(maps_data_begin, arr, sizeof arr, TO), 0);
  /* a kernel's implicit zero-size pointer (0x220) into the array */
  assert_int_equal(map1(maps_data_begin, mid, 0, PARAM | IMPLICIT), 0);
  assert_int_equal(dyn_of(arr), 2);
  void *arg = NULL;
  assert_int_equal(maps_kernel_arg(&dev, mid, mid, 0, PARAM | IMPLICIT, &arg),
                   0);
  assert_ptr_equal(arg, (int *)tgt_of(arr) + 3);
  assert_int_equal(map1(maps_data_end, mid, 0, PARAM | IMPLICIT), 0);
  assert_int_equal(dyn_of(arr), 1);
  /* an unmapped one maps nothing and keeps its host value */
  assert_int_equal(map1(maps_data_begin, unmapped, 0, PARAM | IMPLICIT), 0);
  assert_int_equal(dev.map.count, 1);
  assert_int_equal(plug_stats.allocs, 1);
  assert_int_equal(
      maps_kernel_arg(&dev, unmapped, unmapped, 0, PARAM | IMPLICIT, &arg), 0);
  assert_ptr_equal(arg, unmapped);
  assert_int_equal(map1(maps_data_end, unmapped, 0, PARAM | IMPLICIT), 0);
  /* an unmapped non-empty argument is an error */
  int other[2];
  assert_int_equal(maps_kernel_arg(&dev, other, other, 8, PARAM, &arg), -1);
  assert_error_contains("is not mapped");
  /* release of x[0:0] drops a reference */
  assert_int_equal(map1(maps_data_end, &arr[0], 0, 0), 0);
  assert_table_empty_and_freed();
}

/* -------------------------------------------------------------- mappers */

struct vec {
  int64_t len;
  double *data;
};

static int mapper_calls;

/* What clang emits for `declare mapper(struct vec v) map(v, v.data[0:v.len])`:
 * the struct span, the struct itself as member, the pointee as
 * PTR_AND_OBJ member; TO/FROM follow the incoming type; MEMBER_OF indices
 * are made relative to the components already pushed. */
static void vec_mapper(void *handle, void *base, void *begin, int64_t size,
                       int64_t type, void *name) {
  (void)size;
  mapper_calls++;
  struct vec *v = begin;
  int64_t n = __tgt_mapper_num_components(handle);
  int64_t member = (int64_t)((uint64_t)(n + 1) << 48);
  int64_t tofrom = type & (TO | FROM);
  __tgt_push_mapper_component(handle, base, begin, sizeof *v, 0, name);
  __tgt_push_mapper_component(handle, v, v, sizeof *v, tofrom | member, name);
  __tgt_push_mapper_component(handle, &v->data, v->data,
                              v->len * (int64_t)sizeof(double),
                              tofrom | PTR_AND_OBJ | member, name);
}

static void test_mapper_components(void **state) {
  (void)state;
  double buf[10];
  for (int i = 0; i < 10; i++)
    buf[i] = i;
  struct vec v = {10, buf};
  void *base[1] = {&v}, *begin[1] = {&v};
  int64_t sizes[1] = {sizeof v}, types[1] = {TO | FROM | PARAM};
  void *mappers[1] = {(void *)vec_mapper};
  struct map_args a = {1, base, begin, sizes, types, NULL, mappers};
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_int_equal(mapper_calls, 1);
  assert_int_equal(dev.map.count, 2);
  assert_int_equal(dyn_of(&v), 1);
  assert_int_equal(dyn_of(buf), 1);
  struct vec *dv = tgt_of(&v);
  assert_int_equal(dv->len, 10);
  assert_ptr_equal(dv->data, tgt_of(buf));
  assert_true(dv->data[9] == 9.0);
  void *arg = NULL;
  assert_int_equal(maps_kernel_arg(&dev, &v, &v, sizeof v, types[0], &arg), 0);
  assert_ptr_equal(arg, dv);

  /* target update from(v) goes through the mapper too */
  dv->data[2] = 22.0;
  types[0] = FROM;
  assert_int_equal(maps_data_update(&dev, &a), 0);
  assert_int_equal(mapper_calls, 2);
  assert_true(buf[2] == 22.0);
  assert_ptr_equal(v.data, buf);

  dv->data[3] = 33.0;
  types[0] = TO | FROM | PARAM;
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_int_equal(mapper_calls, 3); /* called again for the end */
  assert_true(buf[3] == 33.0);
  assert_ptr_equal(v.data, buf);
  assert_table_empty_and_freed();

  /* enter data map(to: v) / exit data map(release: v) with the mapper */
  types[0] = TO;
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_ptr_equal(((struct vec *)tgt_of(&v))->data, tgt_of(buf));
  assert_true(((double *)tgt_of(buf))[3] == 33.0);
  types[0] = 0;
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_table_empty_and_freed();
}

/* A nested default mapper's expansion as clang may push it: the member
 * first, MEMBER_OF pointing at the struct pushed after it (issue 13, item 6;
 * LLVM accepts it). */
static void members_first_mapper(void *handle, void *base, void *begin,
                                 int64_t size, int64_t type, void *name) {
  (void)size;
  struct vec *v = begin;
  int64_t n = __tgt_mapper_num_components(handle);
  int64_t tofrom = type & (TO | FROM);
  int64_t member_of_next = (int64_t)((uint64_t)(n + 2) << 48);
  __tgt_push_mapper_component(handle, &v->data, v->data,
                              v->len * (int64_t)sizeof(double),
                              tofrom | PTR_AND_OBJ | member_of_next, name);
  __tgt_push_mapper_component(handle, base, begin, sizeof *v, tofrom, name);
}

static void test_mapper_member_before_parent(void **state) {
  (void)state;
  double buf[4] = {1, 2, 3, 4};
  struct vec v = {4, buf};
  void *base[1] = {&v}, *begin[1] = {&v};
  int64_t sizes[1] = {sizeof v}, types[1] = {TO | FROM | PARAM};
  void *mappers[1] = {(void *)members_first_mapper};
  struct map_args a = {1, base, begin, sizes, types, NULL, mappers};
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_int_equal(dev.map.count, 2);
  struct vec *dv = tgt_of(&v);
  assert_ptr_equal(dv->data, tgt_of(buf));
  assert_true(dv->data[3] == 4.0);
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_ptr_equal(v.data, buf);
  assert_table_empty_and_freed();
}

/* clang's mapper for a section of a type with a mapper (`h.items[0:2]`):
 * first one component for the whole section with the map type the mapper
 * was given less TO/FROM, then per element its components, MEMBER_OF made
 * relative to the components pushed so far (the section's). */
static void vec_section_mapper(void *handle, void *base, void *begin,
                               int64_t size, int64_t type, void *name) {
  __tgt_push_mapper_component(handle, base, begin, size,
                              (type & ~(TO | FROM)) | IMPLICIT, name);
  int64_t tofrom = type & (TO | FROM);
  struct vec *v = begin;
  for (int64_t i = 0; i < size / (int64_t)sizeof *v; i++) {
    int64_t n = __tgt_mapper_num_components(handle);
    __tgt_push_mapper_component(handle, &v[i], &v[i], sizeof *v,
                                tofrom | MEMBER_OF(1), name);
    __tgt_push_mapper_component(handle, &v[i].data, v[i].data,
                                v[i].len * (int64_t)sizeof(double),
                                tofrom | PTR_AND_OBJ | MEMBER_OF(n + 1), name);
  }
}

/* The section is a member of the construct's entry 0 (the struct holding
 * the pointer): its MEMBER_OF names the construct's list, not the mapper's
 * components, where it would name the section's own component (issue 31,
 * item 4: refused as "refers to entry 0, which is itself"). */
static void test_mapper_of_member_section(void **state) {
  (void)state;
  double b0[3] = {1, 2, 3}, b1[2] = {4, 5};
  struct vec items[2] = {{3, b0}, {2, b1}};
  struct {
    int64_t count;
    struct vec *items;
  } h = {2, items};
  void *base[2] = {&h, &h.items}, *begin[2] = {&h.items, items};
  int64_t sizes[2] = {sizeof h.items, sizeof items};
  int64_t types[2] = {PARAM, TO | FROM | PTR_AND_OBJ | MEMBER_OF(1)};
  void *mappers[2] = {NULL, (void *)vec_section_mapper};
  struct map_args a = {2, base, begin, sizes, types, NULL, mappers};
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  struct vec *dv = tgt_of(items);
  assert_ptr_equal(*(struct vec **)tgt_of(&h.items), dv);
  assert_ptr_equal(dv[0].data, tgt_of(b0));
  assert_ptr_equal(dv[1].data, tgt_of(b1));
  assert_true(dv[1].data[1] == 5.0);
  dv[0].data[2] = 30.0;
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_true(b0[2] == 30.0);
  assert_ptr_equal(items[0].data, b0);
  assert_table_empty_and_freed();
}

static void bad_mapper(void *handle, void *base, void *begin, int64_t size,
                       int64_t type, void *name) {
  (void)type;
  /* a member of a later component */
  __tgt_push_mapper_component(handle, base, begin, size, MEMBER_OF(2), name);
}

static void test_mapper_bad_components_and_handles(void **state) {
  (void)state;
  int x[2];
  void *base[1] = {x}, *begin[1] = {x};
  int64_t sizes[1] = {sizeof x}, types[1] = {TO};
  void *mappers[1] = {(void *)bad_mapper};
  struct map_args a = {1, base, begin, sizes, types, NULL, mappers};
  assert_int_equal(maps_data_begin(&dev, &a), -1);
  assert_error_contains("mapper component list: map entry 0: MEMBER_OF(2)");
  assert_int_equal(dev.map.count, 0);
  /* a bogus handle neither crashes nor counts */
  int not_a_handle = 0;
  assert_int_equal(__tgt_mapper_num_components(NULL), 0);
  assert_int_equal(__tgt_mapper_num_components(&not_a_handle), 0);
  __tgt_push_mapper_component(&not_a_handle, x, x, 8, TO, NULL);
  assert_int_equal(not_a_handle, 0);
}

/* ------------------------------------------------------- bad arguments */

static void test_check_args(void **state) {
  (void)state;
  int x[4];
  void *base[3] = {x, x, x}, *begin[3] = {x, x, x};
  int64_t sizes[3] = {16, 16, 16};
  int64_t types[3] = {TO, TO, TO};
  struct map_args a = {3, base, begin, sizes, types, NULL, NULL};
  assert_int_equal(maps_check_args(&a, "target"), 0);

  a.num = -1;
  assert_int_equal(maps_check_args(&a, "target"), -1);
  assert_error_contains("number of map entries -1 is negative");
  a.num = 3;

  report_error_clear();
  a.sizes = NULL;
  assert_int_equal(maps_check_args(&a, "target"), -1);
  assert_error_contains("3 map entries but the arg_sizes array is NULL");
  a.sizes = sizes;

  report_error_clear();
  sizes[2] = -8;
  assert_int_equal(maps_data_begin(&dev, &a), -1);
  assert_error_contains("map entry 2: size -8 is negative");
  sizes[2] = 16;

  report_error_clear();
  types[1] = TO | 0x800000;
  assert_int_equal(maps_check_args(&a, "target"), -1);
  assert_error_contains(
      "map entry 1: map type 0x800001 has unknown bits 0x800000");

  report_error_clear();
  types[1] = TO | MEMBER_OF(2); /* itself */
  assert_int_equal(maps_check_args(&a, "target"), -1);
  assert_error_contains(
      "map entry 1: MEMBER_OF(2) refers to entry 1, which is itself");

  report_error_clear();
  types[1] = TO | MEMBER_OF(3); /* later */
  assert_int_equal(maps_check_args(&a, "target"), -1);
  assert_error_contains("which is a later entry");

  report_error_clear();
  types[1] = TO | MEMBER_OF(9);
  assert_int_equal(maps_check_args(&a, "target"), -1);
  assert_error_contains("MEMBER_OF(9) refers to entry 8 of only 3");
  types[1] = TO | MEMBER_OF(1);
  assert_int_equal(maps_check_args(&a, "target"), 0);
  assert_int_equal(dev.map.count, 0);

  struct map_args none = {0, NULL, NULL, NULL, NULL, NULL, NULL};
  assert_int_equal(maps_data_begin(&dev, &none), 0);
  assert_int_equal(maps_data_end(&dev, &none), 0);
}

static void test_var_name(void **state) {
  (void)state;
  void *names[2] = {";s.p[0:n];t.c;12;5;;", "plain"};
  struct map_args a = {2, NULL, NULL, NULL, NULL, names, NULL};
  char buf[32];
  assert_string_equal(maps_var_name(&a, 0, buf, sizeof buf), "s.p[0:n]");
  assert_string_equal(maps_var_name(&a, 1, buf, sizeof buf), "plain");
  assert_string_equal(maps_var_name(&a, 2, buf, sizeof buf), "");
  a.names = NULL;
  assert_string_equal(maps_var_name(&a, 0, buf, sizeof buf), "");
}

/* ------------------------------------------- failures leave nothing */

static void test_failed_begin_rolls_back(void **state) {
  (void)state;
  int x[4], y[4], z[4];
  assert_int_equal(map1(maps_data_begin, x, sizeof x, TO), 0);
  void *base[3] = {x, y, z}, *begin[3] = {x, y, z};
  int64_t sizes[3] = {16, 16, 16}, types[3] = {TO, TO, TO};
  struct map_args a = {3, base, begin, sizes, types, NULL, NULL};
  plug_stats.fail_alloc_at = 3; /* x: 1, y: 2, z: 3 fails */
  assert_int_equal(maps_data_begin(&dev, &a), -1);
  assert_error_contains("allocating 16 bytes of device memory for host");
  assert_error_contains("plugin testplugin says: the test plugin refused");
  assert_int_equal(dev.map.count, 1);
  assert_int_equal(dyn_of(x), 1); /* its increment was undone */
  assert_null(entry_of(y));
  assert_int_equal(plug_stats.live, 1);
  assert_int_equal(map1(maps_data_end, x, sizeof x, 0), 0);
  assert_table_empty_and_freed();
}

/* A construct of more entries than its inline lists hold (maps.c keeps 4
 * items and 8 touched entries in the construct): every object is mapped,
 * copied and unmapped, and a failure late in the list undoes all of it. */
static void test_long_map_lists(void **state) {
  (void)state;
  enum { N = 13 };
  int obj[N][2];
  void *base[N], *begin[N];
  int64_t sizes[N], types[N];
  for (int i = 0; i < N; i++) {
    obj[i][0] = i;
    obj[i][1] = -i;
    base[i] = begin[i] = obj[i];
    sizes[i] = sizeof obj[i];
    types[i] = TO | FROM;
  }
  struct map_args a = {N, base, begin, sizes, types, NULL, NULL};
  plug_stats.fail_alloc_at = N; /* the last one */
  assert_int_equal(maps_data_begin(&dev, &a), -1);
  assert_int_equal(dev.map.count, 0);
  assert_int_equal(plug_stats.live, 0);
  plug_stats.fail_alloc_at = 0;
  assert_int_equal(maps_data_begin(&dev, &a), 0);
  assert_int_equal(dev.map.count, N);
  for (int i = 0; i < N; i++) {
    int *d = tgt_of(obj[i]);
    assert_int_equal(d[0], i);
    assert_int_equal(d[1], -i);
    d[0] = 100 + i; /* the "kernel" */
  }
  assert_int_equal(maps_data_end(&dev, &a), 0);
  for (int i = 0; i < N; i++)
    assert_int_equal(obj[i][0], 100 + i);
  assert_table_empty_and_freed();
}

static void test_failed_copy_names_the_transfer(void **state) {
  (void)state;
  int x[4];
  plug_stats.fail_submit = 1;
  assert_int_equal(map1(maps_data_begin, x, sizeof x, TO), -1);
  char want[128];
  snprintf(want, sizeof want, "copying 16 bytes from host %p to device",
           (void *)x);
  assert_error_contains(want);
  assert_table_empty_and_freed();
}

/* The INFO lines (flags) printed while a test runs: stderr to a file. */
struct info_capture {
  int saved;
  FILE *tmp;
  char out[8192];
};

static void info_capture_begin(struct info_capture *cap, uint32_t flags) {
  fflush(stderr);
  cap->saved = dup(2);
  cap->tmp = tmpfile();
  assert_non_null(cap->tmp);
  dup2(fileno(cap->tmp), 2);
  report_set_info_flags(flags);
}

static const char *info_capture_end(struct info_capture *cap) {
  report_set_info_flags(0);
  fflush(stderr);
  dup2(cap->saved, 2);
  close(cap->saved);
  rewind(cap->tmp);
  size_t n = fread(cap->out, 1, sizeof cap->out - 1, cap->tmp);
  fclose(cap->tmp);
  cap->out[n] = '\0';
  return cap->out;
}

/* INFO_REFCOUNT: each count change says which copy it skipped or caused
 * (lesson 03 of tutorials/ reads these lines). */
static void test_info_refcount_copy_notes(void **state) {
  (void)state;
  int x[4] = {0};
  struct info_capture cap;
  info_capture_begin(&cap, INFO_REFCOUNT);
  void *b[1] = {x}, *p[1] = {x};
  int64_t s[1] = {16}, t[1] = {TO | FROM};
  void *names[1] = {";x;f.c;3;1;;"};
  struct map_args a = {1, b, p, s, t, names, NULL};
  int rc = maps_data_begin(&dev, &a) | maps_data_begin(&dev, &a) |
           maps_data_end(&dev, &a) | maps_data_end(&dev, &a);
  const char *out = info_capture_end(&cap);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "incremented: 0 -> 1\n"));
  assert_non_null(
      strstr(out, "incremented: 1 -> 2; was present: `to` copies nothing"));
  assert_non_null(strstr(
      out, "decremented: 2 -> 1; not zero: `from` copies nothing back"));
  assert_non_null(strstr(out, "decremented: 1 -> 0; reached zero: `from` "
                              "copies back, then the entry goes"));
  assert_table_empty_and_freed();
}

static void test_info_traces_transfers(void **state) {
  (void)state;
  int x[4] = {0};
  struct info_capture cap;
  info_capture_begin(&cap, INFO_DATA_TRANSFER | INFO_MAPPING_CHANGED |
                               INFO_MAPPING_EXISTS);
  void *b[1] = {x}, *p[1] = {x};
  int64_t s[1] = {16}, t[1] = {TO | FROM};
  void *names[1] = {";x[0:4];f.c;3;1;;"};
  struct map_args a = {1, b, p, s, t, names, NULL};
  int rc1 = maps_data_begin(&dev, &a);
  int rc2 = maps_data_begin(&dev, &a);
  int rc3 = maps_data_end(&dev, &a);
  int rc4 = maps_data_end(&dev, &a);
  const char *out = info_capture_end(&cap);
  assert_int_equal(rc1 | rc2 | rc3 | rc4, 0);
  char want[160];
  snprintf(want, sizeof want,
           "Copying data from host to device, HstPtr=%p, TgtPtr=", (void *)x);
  assert_non_null(strstr(out, want));
  assert_non_null(strstr(out, "Size=16, Name=x[0:4]"));
  assert_non_null(strstr(out, "Creating new map entry"));
  assert_non_null(strstr(out, "Mapping exists with HstPtrBegin="));
  assert_non_null(strstr(out, "DynRefCount=2"));
  assert_non_null(strstr(out, "Copying data from device to host"));
  assert_non_null(strstr(out, "Removing map entry"));
  assert_table_empty_and_freed();
}

/* ------------------------------------------------------ two threads */

static int shared_arr[64];

static void *map_unmap_loop(void *arg) {
  int *own = arg;
  for (int i = 0; i < 2000; i++) {
    void *base[2] = {shared_arr, own}, *begin[2] = {shared_arr, own};
    int64_t sizes[2] = {sizeof shared_arr, 16 * sizeof(int)};
    int64_t types[2] = {TO | FROM, TO | FROM};
    struct map_args a = {2, base, begin, sizes, types, NULL, NULL};
    if (maps_data_begin(&dev, &a) != 0 || maps_data_end(&dev, &a) != 0)
      return (void *)1;
  }
  return NULL;
}

/* clang 13-19 `int *gp; target map(to: gp[0:8])`: one PTR_AND_OBJ |
 * TARGET_PARAM entry whose base is &gp. The kernel gets the device pointee
 * (LLVM dereferences the base), and the trace shows the pointer write as a
 * copy from &gp, not from a runtime buffer (issue 13, items 1 and 13). */
static int *global_ptr;
static void test_global_ptr_section_and_attach_trace(void **state) {
  (void)state;
  int pointee[8] = {0};
  global_ptr = pointee;
  void *b[1] = {&global_ptr}, *p[1] = {pointee};
  int64_t s[1] = {sizeof pointee}, t[1] = {TO | PTR_AND_OBJ | PARAM};
  struct map_args a = {1, b, p, s, t, NULL, NULL};
  struct info_capture cap;
  info_capture_begin(&cap, INFO_DATA_TRANSFER);
  int rc = maps_data_begin(&dev, &a);
  const char *out = info_capture_end(&cap);
  assert_int_equal(rc, 0);
  char want[160];
  snprintf(want, sizeof want, "HstPtr=%p, TgtPtr=%p, Size=8",
           (void *)&global_ptr, tgt_of(&global_ptr));
  assert_non_null(strstr(out, want));
  void *arg = NULL;
  assert_int_equal(maps_kernel_arg(&dev, b[0], p[0], s[0], t[0], &arg), 0);
  assert_ptr_equal(arg, tgt_of(pointee));
  assert_int_equal(maps_data_end(&dev, &a), 0);
  assert_table_empty_and_freed();

  /* clang 22: the pointer is not mapped, so ATTACH attaches nothing; the
   * trace says so, and not that the pointee (just created) is absent */
  void *b2[2] = {pointee, &global_ptr}, *p2[2] = {pointee, pointee};
  int64_t s2[2] = {sizeof pointee, 8}, t2[2] = {TO | PARAM, ATTACH};
  struct map_args a2 = {2, b2, p2, s2, t2, NULL, NULL};
  info_capture_begin(&cap, INFO_EMPTY_MAPPING);
  rc = maps_data_begin(&dev, &a2);
  out = info_capture_end(&cap);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "the pointer itself is not mapped"));
  assert_null(strstr(out, "pointee is not mapped"));
  assert_int_equal(maps_data_end(&dev, &a2), 0);
  assert_table_empty_and_freed();
}

static void test_concurrent_constructs(void **state) {
  (void)state;
  int own1[16] = {0}, own2[16] = {0};
  pthread_t t1, t2;
  assert_int_equal(pthread_create(&t1, NULL, map_unmap_loop, own1), 0);
  assert_int_equal(pthread_create(&t2, NULL, map_unmap_loop, own2), 0);
  void *r1 = NULL, *r2 = NULL;
  pthread_join(t1, &r1);
  pthread_join(t2, &r2);
  assert_null(r1);
  assert_null(r2);
  assert_table_empty_and_freed();
}

/* ------------------------------------------------ seed 000's example */

enum { N = 16, M = 10, S = 2 };
struct S1 {
  int x, y, B[M], *pB, u, v;
};

/*
 * The worked pointer-mapping example of seed 000, replayed with the table's
 * args_base / args / args_size / args_maptype (FIRST_REF is today's
 * TARGET_PARAM, MAP_PTR is PTR_AND_OBJ, PRIVATE_PTR is PRIVATE, PRIVATE_VAL
 * is LITERAL). The kernel body runs on the device copies through the
 * translated arguments, as the device would.
 */
static void test_seed000_pointer_mapping_example(void **state) {
  (void)state;
  int A[N], D[N], C[N];
  int *pA = malloc(N * sizeof(int));
  struct S1 s1;
  s1.pB = malloc(M * sizeof(int));
  int *host_pB = s1.pB;
  for (int i = 0; i < N; i++) {
    A[i] = i;
    D[i] = 2;
    C[i] = 3;
    pA[i] = 100 + i;
  }
  for (int i = 0; i < M; i++) {
    s1.B[i] = 1000 + i;
    s1.pB[i] = -1;
  }
  s1.x = s1.y = s1.u = s1.v = 0;

  /* #pragma omp target data map(pA[0:M], s1, C) use_device_ptr(C) */
  void *db_base[3] = {pA, &s1, C};
  void *db_begin[3] = {&pA[0], &s1, C};
  int64_t db_sizes[3] = {M * sizeof(int), sizeof(struct S1), N * sizeof(int)};
  int64_t db_types[3] = {TO | FROM | PARAM, TO | FROM | PARAM,
                         TO | FROM | PARAM | RETURN_PARAM};
  struct map_args data = {3, db_base, db_begin, db_sizes, db_types, NULL, NULL};
  assert_int_equal(maps_data_begin(&dev, &data), 0);
  int *dC = db_base[2]; /* C "now corresponds to the device pointer" */
  assert_ptr_equal(dC, tgt_of(C));
  assert_ptr_not_equal(dC, C);

  /* #pragma omp target map(to: A[S:M], s1.B[0:M]) map(from: s1.pB[0:M])
   *   is_device_ptr(C) firstprivate(D[0:M]), and the captured i and pA.
   * pA's args value is "undefined" in the seed; clang passes pA itself. */
  int i_value = 0;
  void *k_base[8] = {pA, A, &s1, &s1, &s1.pB, dC, (void *)(intptr_t)i_value, D};
  void *k_begin[8] = {
      pA,   &A[S], &s1.B[0], &s1.B[0], s1.pB, dC, (void *)(intptr_t)i_value,
      &D[0]};
  int64_t k_sizes[8] = {0,
                        M * sizeof(int),
                        M * sizeof(int) + sizeof(void *),
                        M * sizeof(int),
                        M * sizeof(int),
                        0,
                        sizeof(int),
                        M * sizeof(int)};
  int64_t k_types[8] = {TO | FROM | PARAM,
                        TO | PARAM,
                        PARAM,
                        TO,
                        FROM | PTR_AND_OBJ,
                        LITERAL | PARAM,
                        LITERAL | PARAM,
                        PRIVATE | TO | PARAM};
  struct map_args kernel = {8, k_base, k_begin, k_sizes, k_types, NULL, NULL};
  assert_int_equal(maps_data_begin(&dev, &kernel), 0);
  /* s1 was mapped before: no new mapping, its count went up once */
  assert_int_equal(dyn_of(&s1), 2);
  assert_int_equal(dyn_of(pA), 2);
  assert_int_equal(dyn_of(&A[S]), 1);
  assert_int_equal(dev.map.count, 5); /* pA, s1, C, A[S:M], s1.pB[0:M] */

  /* the kernel arguments: &dpA, &dA[0], &ds1 (+ is_device_ptr C as is) */
  void *dpA = NULL, *dA = NULL, *ds1 = NULL;
  assert_int_equal(maps_kernel_arg(&dev, k_base[0], k_begin[0], k_sizes[0],
                                   k_types[0], &dpA),
                   0);
  assert_int_equal(
      maps_kernel_arg(&dev, k_base[1], k_begin[1], k_sizes[1], k_types[1], &dA),
      0);
  assert_int_equal(maps_kernel_arg(&dev, k_base[2], k_begin[2], k_sizes[2],
                                   k_types[2], &ds1),
                   0);
  assert_ptr_equal(dpA, tgt_of(pA));
  assert_ptr_equal((int *)dA + S, tgt_of(&A[S]));
  assert_ptr_equal(ds1, tgt_of(&s1));
  /* the device s1.pB points at the device copy of the pointee */
  assert_ptr_equal(((struct S1 *)ds1)->pB, tgt_of(host_pB));

  /* the kernel body, on device data only (D is a private copy) */
  int *kA = dA, *kpA = dpA;
  struct S1 *ks1 = ds1;
  int Dpriv[M];
  memcpy(Dpriv, D, sizeof Dpriv);
  for (int i = S; i < M; ++i) {
    ++kA[i];
    --kpA[i];
    ks1->pB[i - S] = ks1->B[i - S] + kA[i] * kpA[i] - dC[i] * Dpriv[i];
  }

  assert_int_equal(maps_data_end(&dev, &kernel), 0);
  /* from: s1.pB[0:M] came back when the target ended; A did not (to only) */
  for (int i = S; i < M; ++i) {
    int expect = (1000 + i - S) + (i + 1) * (100 + i - 1) - 3 * 2;
    assert_int_equal(host_pB[i - S], expect);
    assert_int_equal(A[i], i);
  }
  assert_int_equal(pA[S], 100 + S); /* pA comes back only at data end */
  assert_int_equal(dev.map.count, 3);

  assert_int_equal(maps_data_end(&dev, &data), 0);
  for (int i = 0; i < M; ++i)
    assert_int_equal(pA[i], i >= S ? 100 + i - 1 : 100 + i);
  assert_ptr_equal(s1.pB, host_pB); /* s1 came back with its host pointer */
  assert_int_equal(s1.B[0], 1000);
  assert_table_empty_and_freed();
  free(pA);
  free(host_pB);
}

/* --------------------------------- the undo of a failed target region */

/* Host memory running out: while `host_alloc_fails` is set, malloc, calloc
 * and realloc fail in the whole process (these definitions replace glibc's
 * for the test binary and libcore.a; the real ones are glibc's __libc_*).
 * Set only while libomptarget code runs, never around cmocka's. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
static _Atomic int host_alloc_fails;
void *malloc(size_t size) {
  return host_alloc_fails ? NULL : __libc_malloc(size);
}
void *calloc(size_t n, size_t size) {
  return host_alloc_fails ? NULL : __libc_calloc(n, size);
}
void *realloc(void *p, size_t size) {
  return host_alloc_fails ? NULL : __libc_realloc(p, size);
}

/* A kernel launch that fails, after which no host memory is left: the undo
 * of the region's mappings runs out of memory if it needs any. */
static int32_t tp_launch_fails_out_of_memory(int32_t id, void *entry,
                                             void **args, ptrdiff_t *offsets,
                                             int32_t num_args, int32_t teams,
                                             int32_t threads, uint64_t trip) {
  (void)id, (void)entry, (void)args, (void)offsets, (void)num_args;
  (void)teams, (void)threads, (void)trip;
  host_alloc_fails = 1;
  return OFFLOAD_FAIL;
}

/* A region maps x (new) and y (mapped before); its launch fails and host
 * memory runs out. The undo must still drop both references, and copy
 * nothing back, synchronous or on an asynchronous record. */
static void failed_launch_without_memory(bool async) {
  static char region_id; /* the region's host entry */
  static int kernel_code;
  struct device_entry kernel = {
      .host_addr = &region_id, .tgt_addr = &kernel_code, .name = "region"};
  dev.entries = &kernel;
  dev.num_entries = 1;
  plug.ops.run_target_team_region = tp_launch_fails_out_of_memory;
  int x[4] = {1, 2, 3, 4}, y[4] = {5, 6, 7, 8};
  assert_int_equal(map1(maps_data_begin, y, sizeof y, TO), 0);
  void *base[2] = {x, y}, *begin[2] = {x, y};
  int64_t sizes[2] = {sizeof x, sizeof y};
  int64_t types[2] = {TO | FROM | PARAM, TO | FROM | PARAM};
  struct launch_request req = {.host_ptr = &region_id,
                               .args = {2, base, begin, sizes, types, NULL,
                                        NULL},
                               .num_teams = 1,
                               .thread_limit = 1};
  struct async_record *rec =
      async ? async_record_new(&dev, "target", NULL) : NULL;
  int rc = launch_region_async(&dev, &req, rec);
  host_alloc_fails = 0;
  async_record_put(rec);
  assert_int_equal(rc, -1);
  assert_error_contains("running kernel region");
  assert_null(entry_of(x)); /* created by the region: removed */
  assert_int_equal(dyn_of(y), 1); /* back to the count before the region */
  assert_int_equal(plug_stats.retrieves, 0);
  assert_int_equal(plug_stats.live, 1);
  dev.entries = NULL;
  dev.num_entries = 0;
  assert_int_equal(map1(maps_data_end, y, sizeof y, 0), 0);
  assert_table_empty_and_freed();
}

static void test_failed_launch_undo_needs_no_memory(void **state) {
  (void)state;
  failed_launch_without_memory(false);
}

static void test_failed_async_launch_undo_needs_no_memory(void **state) {
  (void)state;
  failed_launch_without_memory(true);
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(test_tofrom_nested_target_data),
      T(test_always_copies_regardless_of_count),
      T(test_alloc_release_and_delete),
      T(test_ompx_hold_keeps_entry),
      T(test_count_changes_once_per_construct),
      T(test_infinite_count_is_never_removed),
      T(test_explicit_extension_is_an_error),
      T(test_implicit_extension_uses_existing),
      T(test_present_on_absent_object),
      T(test_member_of_children_land_in_parent),
      T(test_ptr_and_obj_shadow_both_ways),
      T(test_ptr_and_obj_maps_unmapped_pointer),
      T(test_attach_clang22),
      T(test_non_contig_update),
      T(test_update_of_unmapped_is_noop_unless_present),
      T(test_return_param),
      T(test_zero_size_pointers),
      T(test_mapper_components),
      T(test_mapper_bad_components_and_handles),
      T(test_check_args),
      T(test_var_name),
      T(test_failed_begin_rolls_back),
      T(test_long_map_lists),
      T(test_failed_copy_names_the_transfer),
      T(test_failed_launch_undo_needs_no_memory),
      T(test_failed_async_launch_undo_needs_no_memory),
      T(test_info_traces_transfers),
      T(test_info_refcount_copy_notes),
      T(test_mapper_member_before_parent),
      T(test_mapper_of_member_section),
      T(test_global_ptr_section_and_attach_trace),
      T(test_concurrent_constructs),
      T(test_seed000_pointer_mapping_example),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
