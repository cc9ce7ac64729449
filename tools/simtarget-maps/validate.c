/*
 * validate.c - one trace line against trace.schema.json (version 2): the
 * fields each event kind requires, with their JSON types, enumerations and
 * ranges. The commands read only lines that passed, so a field of the wrong
 * type (an "args" that is not an array) is an error with its line number,
 * never a json-c assertion.
 */
#include "tool.h"

#include <stdarg.h>
#include <string.h>

struct why {
  char *buf;
  size_t len;
};

static int bad(struct why *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int bad(struct why *w, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->buf, w->len, fmt, ap);
  va_end(ap);
  return -1;
}

static bool is_type(json_object *o, json_type t) {
  return o && json_object_is_type(o, t);
}

/* An integer, not a string or a double that json-c would convert. */
static bool is_int(json_object *o, int64_t min) {
  return is_type(o, json_type_int) && json_object_get_int64(o) >= min;
}

static bool is_hex(json_object *o) {
  if (!is_type(o, json_type_string))
    return false;
  const char *s = json_object_get_string(o);
  size_t n = strlen(s);
  return n > 2 && n <= 18 && s[0] == '0' && s[1] == 'x' &&
         strspn(s + 2, "0123456789abcdef") == n - 2;
}

static bool in_enum(json_object *o, const char *const *names) {
  if (!is_type(o, json_type_string))
    return false;
  for (; *names; names++)
    if (!strcmp(json_object_get_string(o), *names))
      return true;
  return false;
}

static const char *const ref_classes[] = {"stack",   "global", "heap",
                                          "device",  "null",   "unknown",
                                          "value",   NULL};

/* A reference {"addr": "0x..", "class": .., "obj": n, "off": n}. */
static int check_ref(json_object *o, const char *what, bool required,
                     struct why *w) {
  if (!o)
    return required ? bad(w, "%s is missing", what) : 0;
  if (!is_type(o, json_type_object))
    return bad(w, "%s is not an object", what);
  /* normalize drops addr: a normalised trace is read too */
  if (field(o, "addr") && !is_hex(field(o, "addr")))
    return bad(w, "%s.addr is not a hex string (0x...)", what);
  if (!in_enum(field(o, "class"), ref_classes))
    return bad(w, "%s.class is not one of stack, global, heap, device, "
                  "null, unknown, value", what);
  if (field(o, "obj") && !is_int(field(o, "obj"), 1))
    return bad(w, "%s.obj is not an integer >= 1", what);
  if (field(o, "off") && !is_int(field(o, "off"), INT64_MIN))
    return bad(w, "%s.off is not an integer", what);
  return 0;
}

static const char *const bit_names[] = {
    "to",      "from",     "always",       "delete",  "ptr_and_obj",
    "target_param", "return_param", "private", "literal", "implicit",
    "close",   "present",  "ompx_hold",    "attach",  "fb_nullify",
    "non_contig", NULL};

static int check_arg(json_object *a, const char *list, size_t i,
                     struct why *w) {
  if (!is_type(a, json_type_object))
    return bad(w, "%s[%zu] is not an object", list, i);
  if (!is_int(field(a, "index"), 0) ||
      json_object_get_int64(field(a, "index")) != (int64_t)i)
    return bad(w, "%s[%zu].index is not %zu", list, i, i);
  if (!is_hex(field(a, "type")))
    return bad(w, "%s[%zu].type is not a map type in hex (0x...)", list, i);
  json_object *bits = field(a, "bits");
  if (!is_type(bits, json_type_array))
    return bad(w, "%s[%zu].bits is not an array", list, i);
  for (size_t k = 0; k < json_object_array_length(bits); k++)
    if (!in_enum(json_object_array_get_idx(bits, k), bit_names))
      return bad(w, "%s[%zu].bits[%zu] is not a map-type bit name", list, i,
                 k);
  if (!is_int(field(a, "size"), INT64_MIN))
    return bad(w, "%s[%zu].size is not an integer", list, i);
  if (field(a, "member_of") && !is_int(field(a, "member_of"), 0))
    return bad(w, "%s[%zu].member_of is not an integer >= 0", list, i);
  static const char *const strings[] = {"name", "expr"};
  for (size_t k = 0; k < 2; k++)
    if (field(a, strings[k]) && !is_type(field(a, strings[k]), json_type_string))
      return bad(w, "%s[%zu].%s is not a string", list, i, strings[k]);
  char what[64];
  static const char *const refs[] = {"base", "begin", "pointer_value"};
  for (size_t k = 0; k < 3; k++) {
    snprintf(what, sizeof what, "%s[%zu].%s", list, i, refs[k]);
    if (check_ref(field(a, refs[k]), what, k == 0, w) != 0)
      return -1;
  }
  json_object *nc = field(a, "non_contig");
  if (nc && !is_type(nc, json_type_array))
    return bad(w, "%s[%zu].non_contig is not an array", list, i);
  return 0;
}

static int check_args(json_object *ev, const char *key, struct why *w) {
  json_object *args = field(ev, key);
  if (!is_type(args, json_type_array))
    return bad(w, "\"%s\" is not an array", key);
  for (size_t i = 0; i < json_object_array_length(args); i++)
    if (check_arg(json_object_array_get_idx(args, i), key, i, w) != 0)
      return -1;
  return 0;
}

static int check_loc(json_object *loc, struct why *w) {
  if (!loc)
    return 0; /* null (json-c reads null as NULL) */
  if (!is_type(loc, json_type_object))
    return bad(w, "\"loc\" is neither null nor an object");
  if (!is_type(field(loc, "file"), json_type_string) ||
      !is_type(field(loc, "func"), json_type_string) ||
      !is_int(field(loc, "line"), INT64_MIN) ||
      !is_int(field(loc, "col"), INT64_MIN))
    return bad(w, "\"loc\" needs file and func (strings), line and col "
                  "(integers)");
  return 0;
}

static int check_call(json_object *ev, struct why *w) {
  static const char *const constructs[] = {"target", "enter", "exit",
                                           "update", NULL};
  json_object *entry = field(ev, "entry");
  if (!is_type(entry, json_type_string) ||
      strncmp(json_object_get_string(entry), "__tgt_", 6))
    return bad(w, "\"entry\" is not an entry point name (__tgt_...)");
  if (!in_enum(field(ev, "construct"), constructs))
    return bad(w, "\"construct\" is not one of target, enter, exit, update");
  if (!json_object_object_get_ex(ev, "loc", NULL))
    return bad(w, "\"loc\" is missing");
  if (check_loc(field(ev, "loc"), w) != 0)
    return -1;
  if (!is_type(field(ev, "nowait"), json_type_boolean))
    return bad(w, "\"nowait\" is not true or false");
  static const char *const ints[] = {"device", "num_args"};
  for (size_t k = 0; k < 2; k++)
    if (!is_int(field(ev, ints[k]), INT64_MIN))
      return bad(w, "\"%s\" is not an integer", ints[k]);
  static const char *const opt[] = {"kargs_version", "num_teams",
                                    "thread_limit", "tripcount"};
  for (size_t k = 0; k < 4; k++)
    if (field(ev, opt[k]) && !is_int(field(ev, opt[k]), INT64_MIN))
      return bad(w, "\"%s\" is not an integer", opt[k]);
  return check_args(ev, "args", w);
}

static int check_count(json_object *o, const char *what, struct why *w) {
  if (is_int(o, 0) ||
      (is_type(o, json_type_string) && !strcmp(json_object_get_string(o), "inf")))
    return 0;
  return bad(w, "\"%s\" is not a count (integer >= 0 or \"inf\")", what);
}

static int check_kernel(json_object *ev, struct why *w) {
  static const char *const modes[] = {"generic", "spmd", "generic-spmd",
                                      "unknown", NULL};
  if (!is_type(field(ev, "kernel"), json_type_string))
    return bad(w, "\"kernel\" is not a string");
  json_object *mode = field(ev, "exec_mode");
  if (!json_object_object_get_ex(ev, "exec_mode", NULL) ||
      (mode && !in_enum(mode, modes)))
    return bad(w, "\"exec_mode\" is not null, generic, spmd, generic-spmd or "
                  "unknown");
  json_object *l = field(ev, "launched");
  if (!is_type(l, json_type_object) || !is_int(field(l, "num_teams"), INT64_MIN) ||
      !is_int(field(l, "thread_limit"), INT64_MIN) ||
      !is_int(field(l, "tripcount"), 0))
    return bad(w, "\"launched\" needs num_teams, thread_limit and tripcount "
                  "(integers)");
  json_object *params = field(ev, "params");
  if (!is_type(params, json_type_array))
    return bad(w, "\"params\" is not an array");
  for (size_t i = 0; i < json_object_array_length(params); i++) {
    json_object *p = json_object_array_get_idx(params, i);
    char what[48];
    snprintf(what, sizeof what, "params[%zu].value", i);
    if (!is_type(p, json_type_object))
      return bad(w, "params[%zu] is not an object", i);
    if (!is_int(field(p, "param"), INT64_MIN) || !is_int(field(p, "arg"), -1))
      return bad(w, "params[%zu] needs param and arg (integers, arg >= -1)",
                 i);
    if (field(p, "arg_offset") && !is_int(field(p, "arg_offset"), INT64_MIN))
      return bad(w, "params[%zu].arg_offset is not an integer", i);
    if (check_ref(field(p, "value"), what, true, w) != 0)
      return -1;
  }
  return 0;
}

/* The fields of one kind: enumerations, references, counts, integers. */
struct field_rule {
  const char *key;
  enum { F_ENUM, F_REF, F_COUNT, F_UINT, F_INT, F_STR, F_BOOL, F_OPTSTR } kind;
  const char *const *values;
};

static int check_fields(json_object *ev, const struct field_rule *r,
                        struct why *w) {
  for (; r->key; r++) {
    json_object *v = field(ev, r->key);
    int ok = 1;
    switch (r->kind) {
    case F_ENUM: ok = in_enum(v, r->values); break;
    case F_REF: if (check_ref(v, r->key, true, w) != 0) return -1; break;
    case F_COUNT: if (check_count(v, r->key, w) != 0) return -1; break;
    case F_UINT: ok = is_int(v, 0); break;
    case F_INT: ok = is_int(v, INT64_MIN); break;
    case F_STR: ok = is_type(v, json_type_string); break;
    case F_BOOL: ok = is_type(v, json_type_boolean); break;
    case F_OPTSTR: ok = !v || is_type(v, json_type_string); break;
    }
    if (!ok && !v && r->kind != F_OPTSTR)
      return bad(w, "\"%s\" is missing", r->key);
    if (!ok && r->kind == F_ENUM) {
      char list[160] = "";
      for (const char *const *e = r->values; *e; e++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 e == r->values ? "" : ", ", *e);
      return bad(w, "\"%s\" is not one of %s", r->key, list);
    }
    if (!ok)
      return bad(w, "\"%s\" is not %s", r->key,
                 r->kind == F_UINT  ? "an integer >= 0"
                 : r->kind == F_INT ? "an integer"
                 : r->kind == F_BOOL ? "true or false"
                                     : "a string");
  }
  return 0;
}

static const char *const actions[] = {"created", "reused", "removed", NULL};
static const char *const counts[] = {"dynamic", "hold", NULL};
static const char *const changes[] = {"incremented", "decremented",
                                      "suppressed",  "reset",
                                      "deferred_delete", NULL};
static const char *const directions[] = {"to_device", "from_device", NULL};
static const char *const lookups[] = {"extends", "implicit_extends",
                                      "partial_skipped", "absent_present",
                                      NULL};
static const char *const statuses[] = {"ok", "queued", "host", "failed",
                                       NULL};

static const struct field_rule entry_rules[] = {
    {"action", F_ENUM, actions}, {"host", F_REF, NULL},
    {"size", F_UINT, NULL},      {"device", F_REF, NULL},
    {"dyn", F_COUNT, NULL},      {"hold", F_COUNT, NULL},
    {"name", F_STR, NULL},       {NULL, 0, NULL}};
static const struct field_rule refcount_rules[] = {
    {"count", F_ENUM, counts},   {"change", F_ENUM, changes},
    {"host", F_REF, NULL},       {"before", F_COUNT, NULL},
    {"after", F_COUNT, NULL},    {"name", F_STR, NULL},
    {NULL, 0, NULL}};
static const struct field_rule copy_rules[] = {
    {"direction", F_ENUM, directions}, {"queued", F_BOOL, NULL},
    {"bytes", F_UINT, NULL},           {"host", F_REF, NULL},
    {"device", F_REF, NULL},           {"name", F_OPTSTR, NULL},
    {NULL, 0, NULL}};
static const struct field_rule attach_rules[] = {
    {"pointer", F_REF, NULL}, {"host_value", F_REF, NULL},
    {"device_value", F_REF, NULL}, {NULL, 0, NULL}};
static const struct field_rule lookup_rules[] = {
    {"result", F_ENUM, lookups}, {"size", F_INT, NULL},
    {"host", F_REF, NULL}, {NULL, 0, NULL}};
static const struct field_rule result_rules[] = {
    {"status", F_ENUM, statuses}, {"cause", F_OPTSTR, NULL}, {NULL, 0, NULL}};
static const struct field_rule note_rules[] = {
    {"kind", F_STR, NULL}, {"text", F_STR, NULL}, {NULL, 0, NULL}};

static int check_kind(json_object *ev, const char *kind, struct why *w) {
  if (!strcmp(kind, "call"))
    return check_call(ev, w);
  if (!strcmp(kind, "kernel"))
    return check_kernel(ev, w);
  if (!strcmp(kind, "mapper"))
    return is_int(field(ev, "arg"), 0) ? check_args(ev, "components", w)
                                      : bad(w, "\"arg\" is missing");
  static const struct {
    const char *kind;
    const struct field_rule *rules;
  } kinds[] = {{"entry", entry_rules},   {"refcount", refcount_rules},
               {"copy", copy_rules},     {"attach", attach_rules},
               {"lookup", lookup_rules}, {"result", result_rules},
               {"note", note_rules}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (!strcmp(kind, kinds[i].kind))
      return check_fields(ev, kinds[i].rules, w);
  return bad(w, "\"ev\" is not an event kind of the schema");
}

int validate_event(json_object *ev, char *why, size_t len) {
  struct why w = {why, len};
  if (!is_type(ev, json_type_object))
    return bad(&w, "not a JSON object");
  json_object *v = field(ev, "v");
  if (!is_int(v, INT64_MIN) || json_object_get_int64(v) != 2)
    return bad(&w, "\"v\" is not 2 (this tool reads schema version 2)");
  if (!is_type(field(ev, "ev"), json_type_string))
    return bad(&w, "\"ev\" is not a string");
  if (!is_int(field(ev, "seq"), 0))
    return bad(&w, "\"seq\" is not an integer >= 0");
  if (field(ev, "arg") && !is_int(field(ev, "arg"), 0))
    return bad(&w, "\"arg\" is not an integer >= 0");
  if (field(ev, "component") && !is_int(field(ev, "component"), 0))
    return bad(&w, "\"component\" is not an integer >= 0");
  return check_kind(ev, json_object_get_string(field(ev, "ev")), &w);
}
