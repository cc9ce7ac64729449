/*
 * check.c - `simtarget-maps check TRACE`: every construct of a trace
 * against the map rules. Each violation is printed with the construct's
 * source location, its entry point, the argument and the rule's name:
 *
 *   member-order        MEMBER_OF refers to an earlier argument
 *   member-inside       a member lies inside its parent (a PTR_AND_OBJ
 *                       member by its pointer, which the parent holds)
 *   ptr-and-obj         the base of a PTR_AND_OBJ entry holds a pointer
 *                       (non-null when the section is not empty)
 *   param-order         TARGET_PARAM entries are the kernel's parameters,
 *                       one each, in order
 *   size                sizes are not negative
 *   explicit-extension  no explicit map extends a present object
 *   refcount-once       each reference count changes at most once per pass
 *   present             a `present` entry is present
 *   delete-on-exit      DELETE only on exit constructs
 *   attach-pairs        an ATTACH entry's pointee is mapped by the construct
 *   implicit            implicit entries only on target regions, without
 *                       delete/always/present
 */
#include "tool.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define BIT(name) map_bit_value(name)

struct checker {
  FILE *out;
  const struct construct *c;
  int violations;
};

static void violation(struct checker *k, int64_t arg, const char *rule,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void violation(struct checker *k, int64_t arg, const char *rule,
                      const char *fmt, ...) {
  char where[600];
  json_object *call = k->c->call;
  fprintf(k->out, "%s: %s (construct %" PRId64 ", %s)",
          call_location(call, where, sizeof where), field_str(call, "entry"),
          field_int(call, "seq"), field_str(call, "construct"));
  if (arg >= 0) {
    json_object *a = json_object_array_get_idx(field(call, "args"), arg);
    const char *expr = field_str(a, "expr");
    fprintf(k->out, ": argument %" PRId64, arg);
    if (expr[0])
      fprintf(k->out, " `%s`", expr);
  }
  fprintf(k->out, ": [%s] ", rule);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(k->out, fmt, ap);
  va_end(ap);
  fputc('\n', k->out);
  k->violations++;
}

/* The arguments alone: what the compiler emitted. */
static void check_args(struct checker *k) {
  json_object *args = field(k->c->call, "args");
  size_t n = args ? json_object_array_length(args) : 0;
  const char *construct = field_str(k->c->call, "construct");
  bool region = !strcmp(construct, "target");
  for (size_t i = 0; i < n; i++) {
    json_object *a = json_object_array_get_idx(args, i);
    int64_t type = arg_type(a), size = field_int(a, "size");
    uint64_t begin = ref_addr(a, "begin"), base = ref_addr(a, "base");
    if (size < 0)
      violation(k, (int64_t)i, "size", "size %" PRId64 " is negative", size);
    if ((type & BIT("delete")) && strcmp(construct, "exit"))
      violation(k, (int64_t)i, "delete-on-exit",
                "DELETE on a `%s` construct (only exit constructs release "
                "with delete)",
                construct);
    if (type & BIT("implicit")) {
      if (!region)
        violation(k, (int64_t)i, "implicit",
                  "an implicit entry on a `%s` construct (implicit maps "
                  "belong to target regions)",
                  construct);
      else if (type & (BIT("delete") | BIT("always") | BIT("present")))
        violation(k, (int64_t)i, "implicit",
                  "an implicit entry with a map-type modifier (0x%" PRIx64
                  ")",
                  (uint64_t)type);
    }
    bool literal = (type & BIT("literal")) != 0;
    if ((type & BIT("ptr_and_obj")) && !literal && size > 0 &&
        !(type & BIT("non_contig"))) {
      json_object *held = field(a, "pointer_value");
      if (!held || strtoull(field_str(held, "addr"), NULL, 16) == 0)
        violation(k, (int64_t)i, "ptr-and-obj",
                  "its base 0x%" PRIx64 " holds no pointer (null) but the "
                  "section has %" PRId64 " bytes",
                  base, size);
      else if (base >= begin && base < begin + (uint64_t)size)
        violation(k, (int64_t)i, "ptr-and-obj",
                  "its pointer at 0x%" PRIx64 " lies inside its own pointee "
                  "[0x%" PRIx64 ", +%" PRId64 ")",
                  base, begin, size);
    }
    uint64_t member = (uint64_t)type >> MAP_MEMBER_OF_SHIFT;
    if (member) {
      int64_t p = (int64_t)member - 1;
      if (p >= (int64_t)i || p >= (int64_t)n) {
        violation(k, (int64_t)i, "member-order",
                  "MEMBER_OF refers to argument %" PRId64
                  ", which does not come before it",
                  p);
      } else if (!literal) {
        json_object *pa = json_object_array_get_idx(args, (size_t)p);
        uint64_t plo = ref_addr(pa, "begin");
        uint64_t phi = plo + (uint64_t)field_int(pa, "size");
        /* a PTR_AND_OBJ member is the pointer inside the parent */
        bool by_pointer = (type & BIT("ptr_and_obj")) != 0;
        uint64_t lo = by_pointer ? base : begin;
        uint64_t hi = by_pointer ? base + 8 : begin + (uint64_t)size;
        if (!(type & BIT("non_contig")) && (lo < plo || hi > phi))
          violation(k, (int64_t)i, "member-inside",
                    "%s [0x%" PRIx64 ", 0x%" PRIx64 ") is not inside its "
                    "parent, argument %" PRId64 " [0x%" PRIx64 ", 0x%" PRIx64
                    ")",
                    by_pointer ? "its pointer" : "it", lo, hi, p, plo, phi);
      }
    }
    if (type & BIT("attach")) {
      bool paired = false;
      for (size_t j = 0; j < n && !paired; j++) {
        json_object *b = json_object_array_get_idx(args, j);
        int64_t tb = arg_type(b);
        uint64_t lo = ref_addr(b, "begin");
        uint64_t hi = lo + (uint64_t)field_int(b, "size");
        paired = j != i && !(tb & BIT("attach")) && begin >= lo &&
                 (begin < hi || (begin == lo && hi == lo));
      }
      if (!paired)
        violation(k, (int64_t)i, "attach-pairs",
                  "no other argument of the construct maps its pointee at "
                  "0x%" PRIx64,
                  begin);
    }
  }
}

/* The kernel's parameters against the TARGET_PARAM entries. */
static void check_params(struct checker *k, json_object *kernel) {
  json_object *args = field(k->c->call, "args");
  json_object *params = field(kernel, "params");
  size_t n = args ? json_object_array_length(args) : 0;
  size_t np = params ? json_object_array_length(params) : 0, p = 0;
  while (p < np && field_int(json_object_array_get_idx(params, p), "arg") < 0)
    p++; /* the dyn_ptr */
  for (size_t i = 0; i < n; i++) {
    if (!(arg_type(json_object_array_get_idx(args, i)) & BIT("target_param")))
      continue;
    int64_t got = p < np ? field_int(json_object_array_get_idx(params, p), "arg")
                         : -1;
    if (got != (int64_t)i)
      violation(k, (int64_t)i, "param-order",
                "TARGET_PARAM entry is not kernel parameter %zu (%s)", p,
                p < np ? "that one comes from another argument"
                       : "the kernel has fewer parameters");
    p++;
  }
  if (p < np)
    violation(k, -1, "param-order",
              "the kernel has %zu parameters, the TARGET_PARAM entries "
              "account for %zu",
              np, p);
}

/* What the runtime did. */
static void check_events(struct checker *k) {
  const struct construct *c = k->c;
  /* pass 0: begin (incremented), pass 1: end (decremented/reset) */
  for (size_t i = 0; i < c->num_events; i++) {
    json_object *ev = c->events[i];
    const char *kind = field_str(ev, "ev");
    int64_t arg = field(ev, "arg") ? field_int(ev, "arg") : -1;
    if (!strcmp(kind, "kernel")) {
      check_params(k, ev);
    } else if (!strcmp(kind, "lookup")) {
      const char *result = field_str(ev, "result");
      if (!strcmp(result, "extends"))
        violation(k, arg, "explicit-extension",
                  "an explicit map extends a present object");
      else if (!strcmp(result, "absent_present"))
        violation(k, arg, "present", "map(present) of an object that is not "
                                     "present");
    } else if (!strcmp(kind, "refcount")) {
      const char *change = field_str(ev, "change");
      bool up = !strcmp(change, "incremented");
      bool down = !strcmp(change, "decremented") || !strcmp(change, "reset");
      if (!up && !down)
        continue;
      uint64_t addr = ref_addr(ev, "host");
      const char *count = field_str(ev, "count");
      for (size_t j = 0; j < i; j++) {
        json_object *prev = c->events[j];
        const char *pc = field_str(prev, "change");
        bool same_way = up ? !strcmp(pc, "incremented")
                           : (!strcmp(pc, "decremented") || !strcmp(pc, "reset"));
        if (!strcmp(field_str(prev, "ev"), "refcount") && same_way &&
            ref_addr(prev, "host") == addr &&
            !strcmp(field_str(prev, "count"), count)) {
          violation(k, arg, "refcount-once",
                    "the %s reference count of `%s` was %s twice in one "
                    "construct",
                    count, field_str(ev, "name"), change);
          break;
        }
      }
    }
  }
}

int check_trace(const struct trace *t, FILE *out) {
  struct checker k = {.out = out};
  for (size_t i = 0; i < t->num_constructs; i++) {
    k.c = &t->constructs[i];
    check_args(&k);
    check_events(&k);
  }
  return k.violations;
}

int cmd_check(int argc, char **argv) {
  if (argc < 1) {
    fprintf(stderr, "simtarget-maps check: give one or more trace files\n");
    return 2;
  }
  int total = 0;
  for (int i = 0; i < argc; i++) {
    struct trace t;
    if (trace_load(argv[i], &t) != 0)
      return 2;
    int v = check_trace(&t, stdout);
    printf("%s: %zu constructs, %d violation%s\n", argv[i], t.num_constructs,
           v, v == 1 ? "" : "s");
    total += v;
    trace_free(&t);
  }
  return total ? 1 : 0;
}
