/*
 * check.c - `simtarget-maps check [--codegen-only] TRACE...`: every
 * construct of a trace against the map rules. Each violation is printed with
 * the construct's source location, its entry point, the trace line of its
 * call, the argument and the rule's name; offsets inside a parent are
 * relative to the parent. Codegen rules judge the arguments the compiler
 * emitted; program rules judge what the program asked of the runtime
 * (--codegen-only leaves those out).
 *
 * codegen:
 *   member-order        MEMBER_OF refers to an earlier argument
 *   member-inside       a member lies inside its parent (a PTR_AND_OBJ
 *                       member by its pointer, which the parent holds)
 *   member-param        a MEMBER_OF entry is no kernel parameter
 *   ptr-and-obj         the base of a PTR_AND_OBJ (or ATTACH) entry holds a
 *                       pointer to its section: non-null when the section is
 *                       not empty, a user-space address (not an int or a
 *                       double), not past the section's start, in the
 *                       section's memory class, not inside the section
 *   param-order         TARGET_PARAM entries are the kernel's parameters,
 *                       one each, in order
 *   size                sizes are not negative
 *   literal-size        a LITERAL fits the pointer-sized argument (<= 8)
 *   attach-size         an ATTACH entry writes one pointer (8 bytes)
 *   attach-pairs        an ATTACH entry's pointee is mapped by the construct
 *   attach-storage      the pointer an ATTACH writes is mapped when other
 *                       parts of its variable are (clang 22: s.in.p[0:n]
 *                       with s.in.n), or the runtime found it present
 *   overlap             top-level entries of one construct share no storage
 *                       (the same range twice is one list item twice)
 *   unknown-bits        no map-type bit that no runtime defines
 *   delete-on-exit      DELETE only on exit constructs
 *   implicit            implicit entries only on target regions, without
 *                       delete/always/present
 * program:
 *   zero-size           a to/from entry of 0 bytes copies nothing
 *   explicit-extension  no explicit map extends a present object
 *   refcount-once       each reference count changes at most once per pass
 *   present             a `present` entry is present
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
  bool codegen_only;
};

/* Rules that judge the program, not the compiler's output. */
static bool program_rule(const char *rule) {
  static const char *const rules[] = {"zero-size", "explicit-extension",
                                      "refcount-once", "present", NULL};
  for (const char *const *r = rules; *r; r++)
    if (!strcmp(*r, rule))
      return true;
  return false;
}

static void violation(struct checker *k, int64_t arg, const char *rule,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void violation(struct checker *k, int64_t arg, const char *rule,
                      const char *fmt, ...) {
  if (k->codegen_only && program_rule(rule))
    return;
  char where[600];
  json_object *call = k->c->call;
  fprintf(k->out, "%s: %s (construct %" PRId64 ", %s, trace line %zu)",
          call_location(call, where, sizeof where), field_str(call, "entry"),
          field_int(call, "seq"), field_str(call, "construct"),
          k->c->call_line);
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

static bool has_addr(json_object *a, const char *key) {
  return field(field(a, key), "addr") != NULL;
}

/* The bits and the size of one entry, alone. */
static void check_entry(struct checker *k, size_t i, json_object *a) {
  const char *construct = field_str(k->c->call, "construct");
  int64_t type = arg_type(a), size = field_int(a, "size");
  bool literal = (type & BIT("literal")) != 0;
  if (size < 0)
    violation(k, (int64_t)i, "size", "size %" PRId64 " is negative", size);
  if ((type & BIT("delete")) && strcmp(construct, "exit"))
    violation(k, (int64_t)i, "delete-on-exit",
              "DELETE on a `%s` construct (only exit constructs release "
              "with delete)", construct);
  if ((type & BIT("implicit")) && strcmp(construct, "target"))
    violation(k, (int64_t)i, "implicit",
              "an implicit entry on a `%s` construct (implicit maps belong "
              "to target regions)", construct);
  else if ((type & BIT("implicit")) &&
           (type & (BIT("delete") | BIT("always") | BIT("present"))))
    violation(k, (int64_t)i, "implicit",
              "an implicit entry with a map-type modifier (0x%" PRIx64 ")",
              (uint64_t)type);
  if (literal && !(type & BIT("ptr_and_obj")) && size > 8)
    violation(k, (int64_t)i, "literal-size",
              "a LITERAL of %" PRId64 " bytes: a value passed by value fits "
              "the pointer-sized argument (8 bytes at most)", size);
  if ((type & BIT("attach")) && size != 8)
    violation(k, (int64_t)i, "attach-size",
              "an ATTACH entry of %" PRId64 " bytes: it writes one pointer "
              "(8 bytes)", size);
  uint64_t known = 0xffffULL << MAP_MEMBER_OF_SHIFT;
  for (size_t b = 0; b < num_map_bits; b++)
    known |= (uint64_t)map_bits[b].bit;
  if ((uint64_t)type & ~known)
    violation(k, (int64_t)i, "unknown-bits",
              "map type 0x%" PRIx64 " has bits 0x%" PRIx64 " that no "
              "OpenMP runtime defines", (uint64_t)type,
              (uint64_t)type & ~known);
  if ((type >> MAP_MEMBER_OF_SHIFT) && (type & BIT("target_param")))
    violation(k, (int64_t)i, "member-param",
              "MEMBER_OF together with TARGET_PARAM: a member is passed "
              "through its parent, never as a kernel parameter itself");
  if (size == 0 && (type & (BIT("to") | BIT("from"))) &&
      !(type & (BIT("ptr_and_obj") | BIT("attach") | BIT("literal") |
                BIT("private") | BIT("non_contig") | BIT("return_param"))))
    violation(k, (int64_t)i, "zero-size",
              "a `%s` entry of 0 bytes copies nothing (a section of length "
              "0?)", (type & BIT("to")) ? "to" : "from");
}

/* PTR_AND_OBJ and ATTACH: the pointer stored at base points at the
 * section (begin = pointer + the section's offset, which is >= 0). */
static void check_pointer(struct checker *k, size_t i, json_object *a) {
  int64_t type = arg_type(a), size = field_int(a, "size");
  bool pao = (type & BIT("ptr_and_obj")) != 0;
  if (!(type & (BIT("ptr_and_obj") | BIT("attach"))) ||
      (type & (BIT("literal") | BIT("non_contig"))) || size <= 0)
    return;
  json_object *held = field(a, "pointer_value");
  uint64_t begin = ref_addr(a, "begin"), base = ref_addr(a, "base");
  uint64_t value = held ? ref_addr(a, "pointer_value") : 0;
  if (pao && (!held || (has_addr(a, "pointer_value") && value == 0))) {
    violation(k, (int64_t)i, "ptr-and-obj",
              "its base 0x%" PRIx64 " holds no pointer (null) but the "
              "section has %" PRId64 " bytes", base, size);
    return;
  }
  if (!held || !has_addr(a, "pointer_value") || !has_addr(a, "begin"))
    return;
  if (value && (value < 0x1000 || value >= 0x800000000000ULL))
    violation(k, (int64_t)i, "ptr-and-obj",
              "its base 0x%" PRIx64 " holds 0x%" PRIx64 ", which is no "
              "user-space address: the base is not a pointer (an int, a "
              "double?)", base, value);
  else if (value > begin)
    violation(k, (int64_t)i, "ptr-and-obj",
              "the pointer at its base points at 0x%" PRIx64 ", %" PRIu64
              " bytes past the section's start 0x%" PRIx64 ": it points at "
              "another object than its section", value, value - begin, begin);
  else if (field(held, "obj") && field(field(a, "begin"), "obj") &&
           strcmp(field_str(held, "class"),
                  field_str(field(a, "begin"), "class")))
    violation(k, (int64_t)i, "ptr-and-obj",
              "the pointer at its base points at a %s object, its section "
              "is %s memory: another object than its section",
              field_str(held, "class"),
              field_str(field(a, "begin"), "class"));
  else if (pao && base >= begin && base < begin + (uint64_t)size)
    violation(k, (int64_t)i, "ptr-and-obj",
              "its pointer at 0x%" PRIx64 " lies inside its own pointee "
              "[0x%" PRIx64 ", +%" PRId64 ")", base, begin, size);
}

/* MEMBER_OF: an earlier parent that holds the member; offsets are given
 * relative to the parent's begin. */
static void check_member(struct checker *k, json_object *args, size_t i) {
  size_t n = json_object_array_length(args);
  json_object *a = json_object_array_get_idx(args, i);
  int64_t type = arg_type(a), size = field_int(a, "size");
  uint64_t member = (uint64_t)type >> MAP_MEMBER_OF_SHIFT;
  if (!member)
    return;
  int64_t p = (int64_t)member - 1;
  if (p >= (int64_t)i || p >= (int64_t)n) {
    violation(k, (int64_t)i, "member-order",
              "MEMBER_OF refers to argument %" PRId64
              ", which does not come before it", p);
    return;
  }
  if (type & (BIT("literal") | BIT("non_contig")))
    return;
  json_object *pa = json_object_array_get_idx(args, (size_t)p);
  uint64_t plo = ref_addr(pa, "begin");
  int64_t psize = field_int(pa, "size");
  /* a PTR_AND_OBJ member is the pointer inside the parent */
  bool by_pointer = (type & BIT("ptr_and_obj")) != 0;
  uint64_t lo = by_pointer ? ref_addr(a, "base") : ref_addr(a, "begin");
  uint64_t hi = lo + (by_pointer ? 8 : (uint64_t)size);
  if (lo >= plo && hi <= plo + (uint64_t)psize)
    return;
  const char *pexpr = field_str(pa, "expr");
  violation(k, (int64_t)i, "member-inside",
            "%s covers [%" PRId64 ", %" PRId64 ") relative to its parent, "
            "argument %" PRId64 "%s%s%s, which holds [0, %" PRId64 ") "
            "(host 0x%" PRIx64 ")",
            by_pointer ? "its pointer" : "it", (int64_t)(lo - plo),
            (int64_t)(hi - plo), p, pexpr[0] ? " `" : "", pexpr,
            pexpr[0] ? "`" : "", psize, plo);
}

static bool covers(json_object *b, uint64_t lo, uint64_t hi) {
  int64_t tb = arg_type(b);
  if (tb & (BIT("attach") | BIT("literal") | BIT("private")))
    return false;
  uint64_t blo = ref_addr(b, "begin");
  uint64_t bhi = blo + (uint64_t)field_int(b, "size");
  return lo >= blo && (lo < bhi || (lo == blo && bhi == blo)) &&
         (hi <= bhi || hi == lo);
}

/* ATTACH: its pointee is mapped, and so is the pointer it writes when
 * other parts of the pointer's variable are. */
static void check_attach(struct checker *k, json_object *args, size_t i) {
  size_t n = json_object_array_length(args);
  json_object *a = json_object_array_get_idx(args, i);
  if (!(arg_type(a) & BIT("attach")))
    return;
  uint64_t begin = ref_addr(a, "begin"), base = ref_addr(a, "base");
  bool paired = false, stored = false;
  json_object *part = NULL;
  const char *name = field_str(a, "name"), *expr = field_str(a, "expr");
  for (size_t j = 0; j < n; j++) {
    json_object *b = json_object_array_get_idx(args, j);
    if (j == i)
      continue;
    paired = paired || covers(b, begin, begin);
    stored = stored || covers(b, base, base + 8);
    if (!part && name[0] && strcmp(name, "unknown") &&
        !strcmp(field_str(b, "name"), name) &&
        strcmp(field_str(b, "expr"), expr) &&
        !(arg_type(b) & (BIT("attach") | BIT("literal") | BIT("private"))))
      part = b;
  }
  if (!paired)
    violation(k, (int64_t)i, "attach-pairs",
              "no other argument of the construct maps its pointee at "
              "0x%" PRIx64, begin);
  for (size_t e = 0; !stored && e < k->c->num_events; e++) {
    json_object *ev = k->c->events[e];
    stored = !strcmp(field_str(ev, "ev"), "attach") &&
             ref_addr(ev, "pointer") == base;
  }
  if (part && !stored && has_addr(a, "base"))
    violation(k, (int64_t)i, "attach-storage",
              "the pointer it attaches, at offset %" PRId64 " from the base "
              "of `%s`, is mapped by no entry and was not present, while "
              "`%s` maps part of `%s`: the kernel reads that pointer from "
              "storage nobody mapped",
              (int64_t)(base - ref_addr(part, "base")),
              field_str(part, "expr"), field_str(part, "expr"), name);
}

struct range {
  uint64_t lo, hi;
  size_t arg;
};

static int range_cmp(const void *x, const void *y) {
  const struct range *a = x, *b = y;
  return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Top-level entries (no MEMBER_OF) of one construct share no storage:
 * sorted by begin, each against the furthest end before it. */
static void check_overlap(struct checker *k, json_object *args) {
  size_t n = json_object_array_length(args), m = 0;
  struct range *r = calloc(n + 1, sizeof *r);
  if (!r)
    return;
  for (size_t i = 0; i < n; i++) {
    json_object *a = json_object_array_get_idx(args, i);
    int64_t type = arg_type(a), size = field_int(a, "size");
    if ((type >> MAP_MEMBER_OF_SHIFT) || size <= 0 || !has_addr(a, "begin") ||
        (type & (BIT("attach") | BIT("literal") | BIT("private") |
                 BIT("non_contig") | BIT("return_param"))))
      continue;
    r[m].lo = ref_addr(a, "begin");
    r[m].hi = r[m].lo + (uint64_t)size;
    r[m++].arg = i;
  }
  qsort(r, m, sizeof *r, range_cmp);
  for (size_t i = 1, far = 0; i < m; i++) {
    bool same = r[i].lo == r[far].lo && r[i].hi == r[far].hi;
    if (r[i].lo < r[far].hi && !same) { /* one list item twice: not here */
      json_object *o = json_object_array_get_idx(args, r[far].arg);
      violation(k, (int64_t)r[i].arg, "overlap",
                "it shares %" PRIu64 " bytes at offset %" PRIu64 " of "
                "argument %zu `%s` [0, %" PRIu64 "): two top-level entries "
                "of one construct map the same storage",
                (r[i].hi < r[far].hi ? r[i].hi : r[far].hi) - r[i].lo,
                r[i].lo - r[far].lo, r[far].arg, field_str(o, "expr"),
                r[far].hi - r[far].lo);
    }
    if (r[i].hi > r[far].hi)
      far = i;
  }
  free(r);
}

/* The arguments alone: what the compiler emitted. */
static void check_args(struct checker *k) {
  json_object *args = field(k->c->call, "args");
  size_t n = json_object_array_length(args);
  for (size_t i = 0; i < n; i++) {
    json_object *a = json_object_array_get_idx(args, i);
    check_entry(k, i, a);
    check_pointer(k, i, a);
    check_member(k, args, i);
    check_attach(k, args, i);
  }
  check_overlap(k, args);
}

/* The kernel's parameters against the TARGET_PARAM entries. */
static void check_params(struct checker *k, json_object *kernel) {
  json_object *args = field(k->c->call, "args");
  json_object *params = field(kernel, "params");
  size_t n = args ? json_object_array_length(args) : 0;
  size_t np = params ? json_object_array_length(params) : 0, p = 0;
  while (p < np && field_int(json_object_array_get_idx(params, p), "arg") < 0)
    p++; /* the dyn_ptr first (KernelArgs version 3, clang 19-22) */
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
  while (p < np && field_int(json_object_array_get_idx(params, p), "arg") < 0)
    p++; /* the dyn_ptr last (KernelArgs version 4, clang 23) */
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

int check_trace(const struct trace *t, bool codegen_only, FILE *out) {
  struct checker k = {.out = out, .codegen_only = codegen_only};
  for (size_t i = 0; i < t->num_constructs; i++) {
    k.c = &t->constructs[i];
    check_args(&k);
    check_events(&k);
  }
  return k.violations;
}

int cmd_check(int argc, char **argv) {
  bool codegen_only = false;
  if (argc > 0 && !strcmp(argv[0], "--codegen-only"))
    codegen_only = true, argc--, argv++;
  if (argc < 1) {
    fprintf(stderr, "simtarget-maps check: give one or more trace files\n");
    return 2;
  }
  int total = 0, status = 0;
  for (int i = 0; i < argc; i++) {
    struct trace t;
    if (trace_load(argv[i], &t) != 0) {
      status = 2; /* the others are still checked */
      continue;
    }
    int v = check_trace(&t, codegen_only, stdout);
    printf("%s: %zu constructs, %d violation%s%s\n", argv[i],
           t.num_constructs, v, v == 1 ? "" : "s",
           codegen_only ? " of codegen rules" : "");
    total += v;
    trace_free(&t);
  }
  return status ? status : total ? 1 : 0;
}
