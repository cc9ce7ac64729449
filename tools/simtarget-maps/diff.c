/*
 * diff.c - `simtarget-maps diff [--json] A B`: two traces of one program
 * (e.g. built by clang-19 and clang-22), constructs aligned by source
 * location and, among constructs at one location, by order; what differs is
 * printed argument by argument. Addresses are compared by their symbolic
 * references (object + offset, class), never raw.
 */
#include "tool.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A construct's key: its location and its occurrence at that location. */
static void construct_key(const struct trace *t, size_t i, char *buf,
                          size_t len) {
  char here[600], other[600];
  call_location(t->constructs[i].call, here, sizeof here);
  const char *slash = strrchr(here, '/');
  size_t n = 0;
  for (size_t j = 0; j < i; j++)
    n += !strcmp(call_location(t->constructs[j].call, other, sizeof other),
                 here);
  snprintf(buf, len, "%s#%zu", slash ? slash + 1 : here, n);
}

struct differ {
  bool json;
  json_object *out; /* --json: the array of differences */
  int count;
};

static void difference(struct differ *d, const char *key, int64_t arg,
                       const char *what, const char *a, const char *b) {
  d->count++;
  if (d->json) {
    json_object *o = json_object_new_object();
    json_object_object_add(o, "construct", json_object_new_string(key));
    if (arg >= 0)
      json_object_object_add(o, "arg", json_object_new_int64(arg));
    json_object_object_add(o, "field", json_object_new_string(what));
    json_object_object_add(o, "a", a ? json_object_new_string(a) : NULL);
    json_object_object_add(o, "b", b ? json_object_new_string(b) : NULL);
    json_object_array_add(d->out, o);
    return;
  }
  if (arg >= 0)
    printf("%s: argument %" PRId64 ": %s: %s | %s\n", key, arg, what,
           a ? a : "(none)", b ? b : "(none)");
  else
    printf("%s: %s: %s | %s\n", key, what, a ? a : "(none)", b ? b : "(none)");
}

/* A reference without its raw address: "stack obj 2 + 8". */
static const char *symbolic(json_object *ref, char *buf, size_t len) {
  if (!ref)
    return NULL;
  const char *cls = field_str(ref, "class");
  if (field(ref, "obj"))
    snprintf(buf, len, "%s obj %" PRId64 " + %" PRId64, cls,
             field_int(ref, "obj"), field_int(ref, "off"));
  else
    snprintf(buf, len, "%s", cls);
  return buf;
}

static void compare_field(struct differ *d, const char *key, int64_t arg,
                          const char *what, const char *a, const char *b) {
  if (strcmp(a ? a : "", b ? b : ""))
    difference(d, key, arg, what, a, b);
}

static void compare_args(struct differ *d, const char *key, json_object *ca,
                         json_object *cb) {
  json_object *aa = field(ca, "args"), *ab = field(cb, "args");
  size_t na = aa ? json_object_array_length(aa) : 0;
  size_t nb = ab ? json_object_array_length(ab) : 0;
  char x[64], y[64];
  if (na != nb) {
    snprintf(x, sizeof x, "%zu", na);
    snprintf(y, sizeof y, "%zu", nb);
    difference(d, key, -1, "number of arguments", x, y);
  }
  size_t n = na > nb ? na : nb;
  for (size_t i = 0; i < n; i++) {
    json_object *a = i < na ? json_object_array_get_idx(aa, i) : NULL;
    json_object *b = i < nb ? json_object_array_get_idx(ab, i) : NULL;
    if (!a || !b) {
      difference(d, key, (int64_t)i, "argument",
                 a ? field_str(a, "expr") : NULL,
                 b ? field_str(b, "expr") : NULL);
      continue;
    }
    compare_field(d, key, (int64_t)i, "type", field_str(a, "type"),
                  field_str(b, "type"));
    compare_field(d, key, (int64_t)i, "expr", field_str(a, "expr"),
                  field_str(b, "expr"));
    snprintf(x, sizeof x, "%" PRId64, field_int(a, "size"));
    snprintf(y, sizeof y, "%" PRId64, field_int(b, "size"));
    compare_field(d, key, (int64_t)i, "size", x, y);
    char sa[96], sb[96];
    compare_field(d, key, (int64_t)i, "begin",
                  symbolic(field(a, "begin"), sa, sizeof sa),
                  symbolic(field(b, "begin"), sb, sizeof sb));
    compare_field(d, key, (int64_t)i, "base",
                  symbolic(field(a, "base"), sa, sizeof sa),
                  symbolic(field(b, "base"), sb, sizeof sb));
  }
}

int cmd_diff(int argc, char **argv) {
  struct differ d = {0};
  if (argc > 0 && !strcmp(argv[0], "--json")) {
    d.json = true;
    argc--, argv++;
  }
  if (argc != 2) {
    fprintf(stderr, "simtarget-maps diff: give two trace files\n");
    return 2;
  }
  struct trace ta, tb;
  if (trace_load(argv[0], &ta) != 0)
    return 2;
  if (trace_load(argv[1], &tb) != 0) {
    trace_free(&ta);
    return 2;
  }
  if (d.json)
    d.out = json_object_new_array();
  char ka[700], kb[700];
  bool *matched = calloc(tb.num_constructs + 1, sizeof *matched);
  for (size_t i = 0; matched && i < ta.num_constructs; i++) {
    construct_key(&ta, i, ka, sizeof ka);
    size_t j = 0;
    for (; j < tb.num_constructs; j++) {
      if (matched[j])
        continue;
      construct_key(&tb, j, kb, sizeof kb);
      if (!strcmp(ka, kb))
        break;
    }
    json_object *ca = ta.constructs[i].call;
    if (j == tb.num_constructs) {
      difference(&d, ka, -1, "construct", field_str(ca, "entry"), NULL);
      continue;
    }
    matched[j] = true;
    json_object *cb = tb.constructs[j].call;
    compare_field(&d, ka, -1, "entry", field_str(ca, "entry"),
                  field_str(cb, "entry"));
    compare_field(&d, ka, -1, "construct", field_str(ca, "construct"),
                  field_str(cb, "construct"));
    compare_field(&d, ka, -1, "result",
                  field_str(ta.constructs[i].result, "status"),
                  field_str(tb.constructs[j].result, "status"));
    compare_args(&d, ka, ca, cb);
  }
  for (size_t j = 0; matched && j < tb.num_constructs; j++)
    if (!matched[j]) {
      construct_key(&tb, j, kb, sizeof kb);
      difference(&d, kb, -1, "construct", NULL,
                 field_str(tb.constructs[j].call, "entry"));
    }
  free(matched);
  if (d.json) {
    printf("%s\n", json_object_to_json_string_ext(d.out,
                                                  JSON_C_TO_STRING_PRETTY));
    json_object_put(d.out);
  } else {
    printf("%d difference%s\n", d.count, d.count == 1 ? "" : "s");
  }
  trace_free(&ta);
  trace_free(&tb);
  return d.count ? 1 : 0;
}
