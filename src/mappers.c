/*
 * mappers.c - user-defined mappers (`declare mapper`). The compiler emits a
 * mapper function per mapper; the runtime calls it with a handle and the
 * function reports its components through __tgt_mapper_num_components and
 * __tgt_push_mapper_component. The components form a self-contained map
 * list (MEMBER_OF indices refer to the component list) that maps.c then
 * processes exactly like the entries of a construct.
 *
 * Locking: none. A handle is owned by the one call of mappers_expand that
 * created it and is only touched by the mapper it calls, on the same thread.
 */
#include "maps.h"
#include "array.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define EXPORTED __attribute__((visibility("default")))

typedef void (*mapper_fn)(void *handle, void *base, void *begin, int64_t size,
                          int64_t type, void *name);

static struct map_components *handle_of(void *rt_mapper_handle) {
  struct map_components *c = rt_mapper_handle;
  if (!c || c->magic != MAP_COMPONENTS_MAGIC)
    return NULL;
  return c;
}

EXPORTED int64_t __tgt_mapper_num_components(void *rt_mapper_handle) {
  struct map_components *c = handle_of(rt_mapper_handle);
  if (!c) {
    report_error("__tgt_mapper_num_components: %p is not a mapper handle "
                 "given by the runtime",
                 rt_mapper_handle);
    return 0;
  }
  return c->num;
}

/* Room for one more component in every array (they share one capacity);
 * on failure the arrays stay valid, some of them grown. */
static int reserve_one_more(struct map_components *c) {
  if (c->num == INT32_MAX) /* indices are int32_t (map_args) */
    return -1;
  size_t need = (size_t)c->num + 1;
  if (need <= c->cap)
    return 0;
  size_t cap = array_capacity(c->cap, need);
  if (ARRAY_RESIZE(c->base, cap) != 0 || ARRAY_RESIZE(c->begin, cap) != 0 ||
      ARRAY_RESIZE(c->sizes, cap) != 0 || ARRAY_RESIZE(c->types, cap) != 0 ||
      ARRAY_RESIZE(c->names, cap) != 0)
    return -1;
  c->cap = cap;
  return 0;
}

EXPORTED void __tgt_push_mapper_component(void *rt_mapper_handle, void *base,
                                          void *begin, int64_t size,
                                          int64_t type, void *name) {
  struct map_components *c = handle_of(rt_mapper_handle);
  if (!c) {
    report_error("__tgt_push_mapper_component: %p is not a mapper handle "
                 "given by the runtime; component %p [size %" PRId64
                 "] ignored",
                 rt_mapper_handle, begin, size);
    return;
  }
  if (c->failed)
    return;
  if (reserve_one_more(c) != 0) {
    c->failed = 1;
    return;
  }
  c->base[c->num] = base;
  c->begin[c->num] = begin;
  c->sizes[c->num] = size;
  c->types[c->num] = type;
  c->names[c->num] = name;
  c->num++;
}

void map_components_free(struct map_components *c) {
  free(c->base);
  free(c->begin);
  free(c->sizes);
  free(c->types);
  free(c->names);
  memset(c, 0, sizeof *c); /* clears magic: a stale handle is rejected */
}

static int64_t parent_of(int64_t type) {
  return (int64_t)((uint64_t)type >> OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT) - 1;
}

/* Move component `from` of `src` to index `to` of `c`, renumbering its
 * MEMBER_OF through new_index. */
static void place_component(struct map_components *c,
                            const struct map_components *src, int32_t from,
                            int32_t to, const int32_t *new_index) {
  int64_t type = src->types[from], parent = parent_of(type);
  if (parent >= 0 && parent < src->num) {
    type &= ~(int64_t)(~UINT64_C(0) << OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT);
    type |= (int64_t)((uint64_t)(new_index[parent] + 1)
                      << OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT);
  }
  c->base[to] = src->base[from];
  c->begin[to] = src->begin[from];
  c->sizes[to] = src->sizes[from];
  c->types[to] = type;
  c->names[to] = src->names[from];
}

/* clang's expansion of nested default mappers can push a member before the
 * component it is a member of (MEMBER_OF pointing forward); LLVM accepts any
 * order. maps.c needs parents first (a struct's span is mapped before its
 * members land in it), so put each parent before its members, keeping the
 * order otherwise, and renumber MEMBER_OF. Out-of-range and cyclic
 * references are left for maps_check_args to name. */
static int parents_first(struct map_components *c) {
  int32_t n = c->num;
  bool forward = false;
  for (int32_t i = 0; i < n && !forward; i++)
    forward = parent_of(c->types[i]) > i && parent_of(c->types[i]) < n;
  if (!forward)
    return 0;
  int32_t *order = malloc((size_t)n * sizeof *order);
  int32_t *chain = malloc((size_t)n * sizeof *chain);
  int32_t *new_index = malloc((size_t)n * sizeof *new_index);
  char *state = calloc((size_t)n, 1); /* 0 new, 1 on a chain, 2 placed */
  struct map_components copy = {0};
  int rc = -1;
  if (!order || !chain || !new_index || !state)
    goto out;
  int32_t placed = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t depth = 0;
    for (int64_t k = i; k >= 0 && k < n && state[k] == 0;
         k = parent_of(c->types[k])) {
      state[k] = 1;
      chain[depth++] = (int32_t)k;
    }
    while (depth > 0) { /* the outermost parent first */
      int32_t k = chain[--depth];
      state[k] = 2;
      new_index[k] = placed;
      order[placed++] = k;
    }
  }
  copy.num = n;
  copy.base = malloc((size_t)n * sizeof *copy.base);
  copy.begin = malloc((size_t)n * sizeof *copy.begin);
  copy.sizes = malloc((size_t)n * sizeof *copy.sizes);
  copy.types = malloc((size_t)n * sizeof *copy.types);
  copy.names = malloc((size_t)n * sizeof *copy.names);
  if (!copy.base || !copy.begin || !copy.sizes || !copy.types || !copy.names)
    goto out;
  for (int32_t to = 0; to < n; to++)
    place_component(&copy, c, order[to], to, new_index);
  /* c keeps its arrays (and capacity); the reordered list goes into them */
  memcpy(c->base, copy.base, (size_t)n * sizeof *c->base);
  memcpy(c->begin, copy.begin, (size_t)n * sizeof *c->begin);
  memcpy(c->sizes, copy.sizes, (size_t)n * sizeof *c->sizes);
  memcpy(c->types, copy.types, (size_t)n * sizeof *c->types);
  memcpy(c->names, copy.names, (size_t)n * sizeof *c->names);
  rc = 0;
out:
  if (rc != 0)
    report_error_set("mapper component list: out of host memory reordering "
                     "%d components",
                     n);
  free(copy.base);
  free(copy.begin);
  free(copy.sizes);
  free(copy.types);
  free(copy.names);
  free(order);
  free(chain);
  free(new_index);
  free(state);
  return rc;
}

int mappers_expand(void *mapper, void *base, void *begin, int64_t size,
                   int64_t type, void *name, struct map_components *out) {
  memset(out, 0, sizeof *out);
  out->magic = MAP_COMPONENTS_MAGIC;
  mapper_fn fn;
  /* The compiler hands mappers over as data pointers (void *). */
  memcpy(&fn, &mapper, sizeof fn);
  /* An entry that is a member of another entry of the construct (a pointer
   * member's section, `h.p[0:n]`, of a type with a mapper) has MEMBER_OF
   * pointing into the construct's list. clang's mapper copies the type it
   * is given into the component that allocates the whole section, where the
   * index would name a component instead (itself, or a later one): the
   * component list is self-contained, so the mapper gets the type without
   * it. The parent entry is mapped by the construct already. */
  int64_t own_type =
      type & (int64_t)~(~UINT64_C(0) << OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT);
  fn(out, base, begin, size, own_type, name);
  if (out->failed) {
    report_error_set("mapper %p for host %p [size %" PRId64
                     "]: out of host memory after %d components",
                     mapper, begin, size, out->num);
    return -1;
  }
  if (parents_first(out) != 0)
    return -1;
  struct map_args list = {.num = out->num,
                          .base = out->base,
                          .begin = out->begin,
                          .sizes = out->sizes,
                          .types = out->types,
                          .names = out->names,
                          .mappers = NULL};
  if (out->num > 0 && maps_check_args(&list, "mapper component list") != 0) {
    report_error_set("in the components of mapper %p for host %p", mapper,
                     begin);
    return -1;
  }
  return 0;
}
