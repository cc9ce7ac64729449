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

int mappers_expand(void *mapper, void *base, void *begin, int64_t size,
                   int64_t type, void *name, struct map_components *out) {
  memset(out, 0, sizeof *out);
  out->magic = MAP_COMPONENTS_MAGIC;
  mapper_fn fn;
  /* The compiler hands mappers over as data pointers (void *). */
  memcpy(&fn, &mapper, sizeof fn);
  fn(out, base, begin, size, type, name);
  if (out->failed) {
    report_error_set("mapper %p for host %p [size %" PRId64
                     "]: out of host memory after %d components",
                     mapper, begin, size, out->num);
    return -1;
  }
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
