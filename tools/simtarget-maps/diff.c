/*
 * diff.c - `simtarget-maps diff [--json] [--summary] [--ignore-entry] A B`:
 * two traces of one program (e.g. built by clang-14 and clang-22).
 *
 *   constructs  aligned by source location (file name without directory,
 *               line, column) and their occurrence at that location, found
 *               by sorting: n log n in the number of constructs;
 *   entries     aligned by map expression, ATTACH or not, and occurrence of
 *               that pair; a mapper's components by their argument's key and
 *               their own expression. An entry of one side only is reported
 *               as added or removed, never compared with an unrelated one;
 *   map types   compared as decoded bits (+attach -ptr_and_obj), MEMBER_OF
 *               as the parent's expression, not its index;
 *   objects     matched across the traces: the first aligned reference of
 *               object n in A to object m in B pairs them, so that traces
 *               numbering their objects differently compare equal.
 *
 * One line per entry that differs; --summary one line per construct;
 * --ignore-entry leaves out the entry point (__tgt_target_mapper against
 * __tgt_target_kernel) and the KernelArgs version.
 */
#include "tool.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ object map */

#define MAX_OBJ (1 << 22) /* beyond: compared by number */

static const char *const classes[] = {"stack", "global", "heap", "device",
                                      "null", "unknown", "value"};
#define NUM_CLASSES (sizeof classes / sizeof classes[0])

struct obj_map {
  int64_t *to[2][NUM_CLASSES]; /* [side][class][obj] = the other's obj */
  size_t cap[2][NUM_CLASSES];
};

static int class_index(const char *cls) {
  for (size_t i = 0; i < NUM_CLASSES; i++)
    if (!strcmp(cls, classes[i]))
      return (int)i;
  return -1;
}

static int64_t *obj_slot(struct obj_map *m, int side, int cls, int64_t obj) {
  if (obj < 1 || obj >= MAX_OBJ)
    return NULL;
  size_t need = (size_t)obj + 1, *cap = &m->cap[side][cls];
  if (need > *cap) {
    size_t n = *cap ? *cap : 64;
    while (n < need)
      n *= 2;
    int64_t *p = realloc(m->to[side][cls], n * sizeof *p);
    if (!p)
      return NULL;
    memset(p + *cap, 0, (n - *cap) * sizeof *p);
    m->to[side][cls] = p;
    *cap = n;
  }
  return &m->to[side][cls][obj];
}

/* Two references the same, up to the objects' numbering? */
static bool same_ref(struct obj_map *m, json_object *a, json_object *b) {
  if (!a || !b)
    return !a && !b;
  const char *ca = field_str(a, "class");
  if (strcmp(ca, field_str(b, "class")) ||
      field_int(a, "off") != field_int(b, "off") ||
      !field(a, "obj") != !field(b, "obj"))
    return false;
  if (!field(a, "obj"))
    return true;
  int64_t oa = field_int(a, "obj"), ob = field_int(b, "obj");
  int cls = class_index(ca);
  int64_t *ab = cls < 0 ? NULL : obj_slot(m, 0, cls, oa);
  int64_t *ba = cls < 0 ? NULL : obj_slot(m, 1, cls, ob);
  if (!ab || !ba)
    return oa == ob;
  if (!*ab && !*ba) { /* first meeting: pair them */
    *ab = ob;
    *ba = oa;
  }
  return *ab == ob && *ba == oa;
}

static void obj_map_free(struct obj_map *m) {
  for (int s = 0; s < 2; s++)
    for (size_t c = 0; c < NUM_CLASSES; c++)
      free(m->to[s][c]);
}

/* ------------------------------------------------------------- output */

struct differ {
  bool json, summary, ignore_entry;
  json_object *out; /* --json: the array of differences */
  struct obj_map objs;
  int count;          /* differences */
  size_t constructs;  /* constructs that differ */
  /* the construct being compared, for --summary */
  size_t changed, only_a, only_b;
  char what[200], changed_list[600], a_list[600], b_list[600];
};

static void add_to(char *list, size_t len, const char *what) {
  size_t n = strlen(list);
  if (n + strlen(what) + 8 >= len) {
    if (n + 5 < len && strcmp(list + n - 3, "..."))
      snprintf(list + n, len - n, ", ...");
    return;
  }
  snprintf(list + n, len - n, "%s%s", n ? ", " : "", what);
}

static void add_what(struct differ *d, const char *what) {
  if (!strstr(d->what, what))
    add_to(d->what, sizeof d->what, what);
}

static void emit(struct differ *d, const char *key, const char *entry,
                 const char *kind, const char *text) {
  d->count++;
  if (d->json) {
    json_object *o = json_object_new_object();
    json_object_object_add(o, "construct", json_object_new_string(key));
    if (entry)
      json_object_object_add(o, "entry", json_object_new_string(entry));
    json_object_object_add(o, "kind", json_object_new_string(kind));
    json_object_object_add(o, "what", json_object_new_string(text));
    json_object_array_add(d->out, o);
  } else if (!d->summary) {
    printf("%s: %s%s%s\n", key, entry ? entry : "", entry ? ": " : "", text);
  }
}

/* ------------------------------------------------------------ entries */

/* An argument or mapper component and its alignment key. */
struct entry {
  json_object *arg;
  char key[320];    /* role, expression, occurrence: aligns */
  char label[300];  /* what the user reads */
  int parent;       /* MEMBER_OF: index into the same list, or -1 */
  int matched;      /* index of the other side's entry, or -1 */
};

struct entries {
  struct entry *e;
  size_t n, cap;
};

static int push_entry(struct entries *l, json_object *arg, const char *prefix,
                      size_t first) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    struct entry *p = realloc(l->e, cap * sizeof *p);
    if (!p)
      return -1;
    l->e = p;
    l->cap = cap;
  }
  struct entry *e = &l->e[l->n];
  const char *expr = field_str(arg, "expr");
  bool attach = (arg_type(arg) & map_bit_value("attach")) != 0;
  char base[280];
  snprintf(base, sizeof base, "%s%s`%s`%s", prefix, prefix[0] ? " component " : "",
           expr[0] ? expr : "(no name)", attach ? " attach" : "");
  size_t occ = 0; /* earlier entries of this list with that key */
  for (size_t i = first; i < l->n; i++)
    occ += !strcmp(l->e[i].label, base) ||
           (!strncmp(l->e[i].label, base, strlen(base)) &&
            !strncmp(l->e[i].label + strlen(base), " #", 2));
  snprintf(e->label, sizeof e->label, occ ? "%s #%zu" : "%s", base, occ + 1);
  snprintf(e->key, sizeof e->key, "%s", e->label);
  e->arg = arg;
  e->matched = -1;
  json_object *m = field(arg, "member_of");
  e->parent = m ? (int)(first + (size_t)json_object_get_int64(m)) : -1;
  if (e->parent >= (int)l->n || e->parent < (int)first)
    e->parent = -1;
  l->n++;
  return 0;
}

/* A construct's arguments, then its mappers' components. */
static int collect(const struct construct *c, struct entries *l) {
  json_object *args = field(c->call, "args");
  size_t n = json_object_array_length(args);
  for (size_t i = 0; i < n; i++)
    if (push_entry(l, json_object_array_get_idx(args, i), "", 0) != 0)
      return -1;
  for (size_t k = 0; k < c->num_events; k++) {
    json_object *ev = c->events[k];
    if (strcmp(field_str(ev, "ev"), "mapper"))
      continue;
    size_t arg = (size_t)field_int(ev, "arg"), first = l->n;
    if (arg >= n)
      continue;
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s", l->e[arg].label);
    json_object *comps = field(ev, "components");
    for (size_t i = 0; i < json_object_array_length(comps); i++)
      if (push_entry(l, json_object_array_get_idx(comps, i), prefix, first))
        return -1;
  }
  return 0;
}

static void bits_text(uint64_t type, char *buf, size_t len) {
  buf[0] = 0;
  uint64_t known = 0xffffULL << MAP_MEMBER_OF_SHIFT;
  for (size_t i = 0; i < num_map_bits; i++) {
    known |= (uint64_t)map_bits[i].bit;
    if (type & (uint64_t)map_bits[i].bit)
      snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
               buf[0] ? ", " : "", map_bits[i].name);
  }
  if (type & ~known)
    snprintf(buf + strlen(buf), len - strlen(buf), "%s0x%" PRIx64,
             buf[0] ? ", " : "", type & ~known);
  if (!buf[0])
    snprintf(buf, len, "alloc");
}

/* "+attach -ptr_and_obj": the bits one side has and the other lacks. */
static void bits_change(uint64_t a, uint64_t b, char *buf, size_t len) {
  buf[0] = 0;
  a &= ~(0xffffULL << MAP_MEMBER_OF_SHIFT);
  b &= ~(0xffffULL << MAP_MEMBER_OF_SHIFT);
  for (int pass = 0; pass < 2; pass++) {
    uint64_t only = pass ? a & ~b : b & ~a;
    char names[200];
    if (!only)
      continue;
    bits_text(only, names, sizeof names);
    for (char *tok = strtok(names, ", "); tok; tok = strtok(NULL, ", "))
      snprintf(buf + strlen(buf), len - strlen(buf), "%s%c%s",
               buf[0] ? " " : "", pass ? '-' : '+', tok);
  }
}

static const char *ref_text(json_object *ref, char *buf, size_t len) {
  if (!ref)
    return "none";
  if (field(ref, "obj"))
    snprintf(buf, len, "%s obj %" PRId64 " + %" PRId64, field_str(ref, "class"),
             field_int(ref, "obj"), field_int(ref, "off"));
  else
    snprintf(buf, len, "%s", field_str(ref, "class"));
  return buf;
}

static const char *parent_text(const struct entries *l, const struct entry *e) {
  return e->parent >= 0 ? l->e[e->parent].label : "none";
}

/* One aligned pair: "bits +attach; size 8 | 16; ..." or nothing. */
static void compare_entry(struct differ *d, const char *key,
                          const struct entries *la, const struct entry *a,
                          const struct entries *lb, const struct entry *b) {
  char text[1200] = "", x[300], y[300];
  uint64_t ta = (uint64_t)arg_type(a->arg), tb = (uint64_t)arg_type(b->arg);
#define APPEND(...)                                                            \
  snprintf(text + strlen(text), sizeof text - strlen(text), __VA_ARGS__)
  if ((ta ^ tb) & ~(0xffffULL << MAP_MEMBER_OF_SHIFT)) {
    bits_change(ta, tb, x, sizeof x);
    APPEND("%sbits %s", text[0] ? "; " : "", x);
  }
  if (strcmp(parent_text(la, a), parent_text(lb, b)))
    APPEND("%smember of %s | %s", text[0] ? "; " : "", parent_text(la, a),
           parent_text(lb, b));
  if (field_int(a->arg, "size") != field_int(b->arg, "size"))
    APPEND("%ssize %" PRId64 " | %" PRId64, text[0] ? "; " : "",
           field_int(a->arg, "size"), field_int(b->arg, "size"));
  static const char *const refs[] = {"begin", "base", "pointer_value"};
  for (size_t k = 0; k < 3; k++) {
    json_object *ra = field(a->arg, refs[k]), *rb = field(b->arg, refs[k]);
    if (!same_ref(&d->objs, ra, rb))
      APPEND("%s%s %s | %s", text[0] ? "; " : "", refs[k],
             ref_text(ra, x, sizeof x), ref_text(rb, y, sizeof y));
  }
#undef APPEND
  if (text[0]) {
    d->changed++;
    add_to(d->changed_list, sizeof d->changed_list, a->label);
    emit(d, key, a->label, "changed", text);
  }
}

static void only_one(struct differ *d, const char *key, const struct entry *e,
                     bool in_a) {
  char bits[200], text[300];
  bits_text((uint64_t)arg_type(e->arg), bits, sizeof bits);
  snprintf(text, sizeof text, "only in %c (%s)", in_a ? 'A' : 'B', bits);
  emit(d, key, e->label, in_a ? "only_a" : "only_b", text);
  if (in_a)
    d->only_a++;
  else
    d->only_b++;
  if (in_a)
    add_to(d->a_list, sizeof d->a_list, e->label);
  else
    add_to(d->b_list, sizeof d->b_list, e->label);
}

static int entry_cmp(const void *x, const void *y) {
  const struct entry *const *a = x, *const *b = y;
  return strcmp((*a)->key, (*b)->key);
}

/* Align the entries of two constructs by key (sorted B, binary search). */
static int compare_entries(struct differ *d, const char *key,
                           const struct construct *ca,
                           const struct construct *cb) {
  struct entries la = {0}, lb = {0};
  struct entry **sorted = NULL;
  int rc = -1;
  if (collect(ca, &la) != 0 || collect(cb, &lb) != 0)
    goto out;
  sorted = malloc((lb.n + 1) * sizeof *sorted);
  if (!sorted)
    goto out;
  for (size_t j = 0; j < lb.n; j++)
    sorted[j] = &lb.e[j];
  qsort(sorted, lb.n, sizeof *sorted, entry_cmp);
  for (size_t i = 0; i < la.n; i++) {
    struct entry *ea = &la.e[i], **hit =
        bsearch(&ea, sorted, lb.n, sizeof *sorted, entry_cmp);
    if (!hit) {
      only_one(d, key, ea, true);
      continue;
    }
    (*hit)->matched = (int)i;
    compare_entry(d, key, &la, ea, &lb, *hit);
  }
  for (size_t j = 0; j < lb.n; j++)
    if (lb.e[j].matched < 0)
      only_one(d, key, &lb.e[j], false);
  rc = 0;
out:
  free(sorted);
  free(la.e);
  free(lb.e);
  return rc;
}

/* --------------------------------------------------------- constructs */

struct ckey {
  char loc[300]; /* file:line:col */
  size_t occ;    /* 1-based occurrence at that location */
  size_t index;  /* in the trace */
  char key[320]; /* "loc#occ" */
};

static int ckey_cmp(const void *x, const void *y) {
  const struct ckey *a = x, *b = y;
  int c = strcmp(a->loc, b->loc);
  return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* Every construct's key, sorted by location, then order: so by (loc, occ). */
static struct ckey *construct_keys(const struct trace *t) {
  struct ckey *k = calloc(t->num_constructs + 1, sizeof *k);
  if (!k)
    return NULL;
  for (size_t i = 0; i < t->num_constructs; i++) {
    char here[600];
    call_location(t->constructs[i].call, here, sizeof here);
    const char *slash = strrchr(here, '/');
    snprintf(k[i].loc, sizeof k[i].loc, "%.299s", slash ? slash + 1 : here);
    k[i].index = i;
  }
  qsort(k, t->num_constructs, sizeof *k, ckey_cmp);
  for (size_t i = 0; i < t->num_constructs; i++) {
    k[i].occ = i && !strcmp(k[i - 1].loc, k[i].loc) ? k[i - 1].occ + 1 : 1;
    snprintf(k[i].key, sizeof k[i].key, "%s#%zu", k[i].loc, k[i].occ);
  }
  return k;
}

/* The B construct of A's (loc, occ), or -1. */
static ptrdiff_t find_key(const struct ckey *kb, size_t n,
                          const struct ckey *a) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(kb[mid].loc, a->loc);
    if (c < 0 || (c == 0 && kb[mid].occ < a->occ))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && !strcmp(kb[lo].loc, a->loc) && kb[lo].occ == a->occ
             ? (ptrdiff_t)lo
             : -1;
}

static void compare_field(struct differ *d, const char *key, const char *what,
                          const char *a, const char *b) {
  if (strcmp(a, b)) {
    char text[400];
    snprintf(text, sizeof text, "%s %s | %s", what, a[0] ? a : "none",
             b[0] ? b : "none");
    emit(d, key, NULL, what, text);
    add_what(d, what);
  }
}

/* "f.c:8:1#1 (target): entry; changed `x`; only in B `x` attach" */
static void print_summary(const struct differ *d, const char *key,
                          const char *construct) {
  printf("%s (%s):", key, construct);
  const char *sep = " ";
  if (d->what[0])
    printf("%s%s", sep, d->what), sep = "; ";
  if (d->changed)
    printf("%s%zu changed: %s", sep, d->changed, d->changed_list), sep = "; ";
  if (d->only_a)
    printf("%s%zu only in A: %s", sep, d->only_a, d->a_list), sep = "; ";
  if (d->only_b)
    printf("%s%zu only in B: %s", sep, d->only_b, d->b_list);
  putchar('\n');
}

static int compare_construct(struct differ *d, const char *key,
                             const struct construct *ca,
                             const struct construct *cb) {
  d->changed = d->only_a = d->only_b = 0;
  d->what[0] = d->changed_list[0] = d->a_list[0] = d->b_list[0] = 0;
  int before = d->count;
  if (!d->ignore_entry)
    compare_field(d, key, "entry", field_str(ca->call, "entry"),
                  field_str(cb->call, "entry"));
  compare_field(d, key, "construct", field_str(ca->call, "construct"),
                field_str(cb->call, "construct"));
  compare_field(d, key, "result", field_str(ca->result, "status"),
                field_str(cb->result, "status"));
  if (compare_entries(d, key, ca, cb) != 0)
    return -1;
  if (d->count == before)
    return 0;
  d->constructs++;
  if (d->summary && !d->json)
    print_summary(d, key, field_str(ca->call, "construct"));
  return 0;
}

static void only_construct(struct differ *d, const char *key,
                           const struct construct *c, bool in_a) {
  char text[200];
  snprintf(text, sizeof text, "construct only in %c (%s, %s)", in_a ? 'A' : 'B',
           field_str(c->call, "construct"), field_str(c->call, "entry"));
  d->constructs++;
  if (d->summary && !d->json)
    printf("%s: %s\n", key, text);
  emit(d, key, NULL, in_a ? "only_a" : "only_b", text);
}

static int diff_traces(struct differ *d, const struct trace *ta,
                       const struct trace *tb) {
  struct ckey *ka = construct_keys(ta), *kb = construct_keys(tb);
  size_t *order_a = calloc(ta->num_constructs + 1, sizeof *order_a);
  size_t *unmatched_b = calloc(tb->num_constructs + 1, sizeof *unmatched_b);
  int rc = -1;
  if (!ka || !kb || !order_a || !unmatched_b)
    goto out;
  for (size_t i = 0; i < ta->num_constructs; i++)
    order_a[ka[i].index] = i + 1;
  for (size_t s = 0; s < tb->num_constructs; s++)
    unmatched_b[kb[s].index] = s + 1;
  for (size_t n = 0; n < ta->num_constructs; n++) { /* A's trace order */
    const struct ckey *a = &ka[order_a[n] - 1];
    const struct construct *ca = &ta->constructs[a->index];
    ptrdiff_t s = find_key(kb, tb->num_constructs, a);
    if (s < 0) {
      only_construct(d, a->key, ca, true);
      continue;
    }
    unmatched_b[kb[s].index] = 0;
    if (compare_construct(d, a->key, ca, &tb->constructs[kb[s].index]) != 0)
      goto out;
  }
  for (size_t j = 0; j < tb->num_constructs; j++) /* B's extra, in order */
    if (unmatched_b[j])
      only_construct(d, kb[unmatched_b[j] - 1].key, &tb->constructs[j], false);
  rc = 0;
out:
  free(ka);
  free(kb);
  free(order_a);
  free(unmatched_b);
  return rc;
}

int diff_count(const struct trace *a, const struct trace *b,
               size_t *constructs) {
  struct differ d = {.json = true, .ignore_entry = true};
  d.out = json_object_new_array();
  int rc = diff_traces(&d, a, b);
  json_object_put(d.out);
  obj_map_free(&d.objs);
  *constructs = d.constructs;
  return rc ? -1 : d.count;
}

int cmd_diff(int argc, char **argv) {
  struct differ d = {0};
  for (; argc > 0 && argv[0][0] == '-' && argv[0][1] == '-'; argc--, argv++) {
    if (!strcmp(argv[0], "--json"))
      d.json = true;
    else if (!strcmp(argv[0], "--summary"))
      d.summary = true;
    else if (!strcmp(argv[0], "--ignore-entry"))
      d.ignore_entry = true;
    else {
      fprintf(stderr, "simtarget-maps diff: unknown option %s\n", argv[0]);
      return 2;
    }
  }
  if (argc != 2) {
    fprintf(stderr, "simtarget-maps diff: give two trace files\n");
    return 2;
  }
  /* what the diff compares: the other events are skipped unread */
  static const char *const kinds[] = {"call", "mapper", "result", NULL};
  /* static: the command ends the process, which releases the traces; not
   * freeing their JSON objects one by one saves a fifth of the time of a
   * large diff (and they stay reachable for LeakSanitizer) */
  static struct trace ta, tb;
  if (trace_load_only(argv[0], &ta, kinds) != 0)
    return 2;
  if (trace_load_only(argv[1], &tb, kinds) != 0) {
    trace_free(&ta);
    return 2;
  }
  if (d.json)
    d.out = json_object_new_array();
  int rc = diff_traces(&d, &ta, &tb);
  if (rc != 0)
    fprintf(stderr, "simtarget-maps diff: out of memory\n");
  else if (d.json)
    printf("%s\n", json_object_to_json_string_ext(d.out,
                                                  JSON_C_TO_STRING_PRETTY));
  else
    printf("%d difference%s in %zu of %zu constructs\n", d.count,
           d.count == 1 ? "" : "s", d.constructs, ta.num_constructs);
  json_object_put(d.out);
  obj_map_free(&d.objs);
  return rc ? 2 : d.count ? 1 : 0;
}
