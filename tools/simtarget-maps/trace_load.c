/*
 * trace_load.c - reading a SIMTARGET_TRACE file (JSON Lines) with json-c
 * and grouping its events into constructs by their sequence number.
 */
#include "tool.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

json_object *field(json_object *o, const char *key) {
  json_object *v = NULL;
  if (!o || !json_object_object_get_ex(o, key, &v))
    return NULL;
  return v;
}

int64_t field_int(json_object *o, const char *key) {
  json_object *v = field(o, key);
  return v ? json_object_get_int64(v) : 0;
}

const char *field_str(json_object *o, const char *key) {
  json_object *v = field(o, key);
  const char *s = v ? json_object_get_string(v) : NULL;
  return s ? s : "";
}

uint64_t ref_addr(json_object *o, const char *key) {
  return strtoull(field_str(field(o, key), "addr"), NULL, 16);
}

int64_t arg_type(json_object *arg) {
  return (int64_t)strtoull(field_str(arg, "type"), NULL, 16);
}

const char *call_location(json_object *call, char *buf, size_t len) {
  json_object *loc = field(call, "loc");
  const char *file = field_str(loc, "file");
  if (!loc || !file[0] || !strcmp(file, "unknown"))
    snprintf(buf, len, "unknown location");
  else
    snprintf(buf, len, "%s:%" PRId64 ":%" PRId64, file, field_int(loc, "line"),
             field_int(loc, "col"));
  return buf;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap)
    return 0;
  size_t n = *cap ? *cap * 2 : 16;
  while (n < need)
    n *= 2;
  void *p = realloc(*arr, n * elem);
  if (!p)
    return -1;
  *arr = p;
  *cap = n;
  return 0;
}

/* The construct of sequence number `seq` (seq numbers grow with calls). */
static struct construct *construct_of(struct trace *t, int64_t seq) {
  for (size_t i = t->num_constructs; i-- > 0;)
    if (field_int(t->constructs[i].call, "seq") == seq)
      return &t->constructs[i];
  return NULL;
}

int trace_load(const char *path, struct trace *t) {
  memset(t, 0, sizeof *t);
  t->path = path;
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "simtarget-maps: cannot open %s\n", path);
    return -1;
  }
  size_t cap_lines = 0, cap_constructs = 0, lineno = 0;
  char *line = NULL;
  size_t line_cap = 0;
  int rc = 0;
  while (getline(&line, &line_cap, f) > 0) {
    lineno++;
    if (line[0] == '\n')
      continue;
    json_object *ev = json_tokener_parse(line);
    if (!ev || !json_object_is_type(ev, json_type_object)) {
      fprintf(stderr, "simtarget-maps: %s:%zu: not a JSON object\n", path,
              lineno);
      json_object_put(ev);
      rc = -1;
      break;
    }
    if (field_int(ev, "v") != 2) {
      fprintf(stderr, "simtarget-maps: %s:%zu: schema version %" PRId64
                      " (this tool reads version 2)\n",
              path, lineno, field_int(ev, "v"));
      json_object_put(ev);
      rc = -1;
      break;
    }
    if (grow((void **)&t->lines, &cap_lines, t->num_lines + 1,
             sizeof *t->lines) != 0) {
      json_object_put(ev);
      rc = -1;
      break;
    }
    t->lines[t->num_lines++] = ev;
    const char *kind = field_str(ev, "ev");
    int64_t seq = field_int(ev, "seq");
    if (!strcmp(kind, "call")) {
      if (grow((void **)&t->constructs, &cap_constructs,
               t->num_constructs + 1, sizeof *t->constructs) != 0) {
        rc = -1;
        break;
      }
      struct construct *c = &t->constructs[t->num_constructs++];
      memset(c, 0, sizeof *c);
      c->call = ev;
      continue;
    }
    struct construct *c = seq ? construct_of(t, seq) : NULL;
    if (!c)
      continue; /* outside any construct: a note */
    if (!strcmp(kind, "result")) {
      c->result = ev;
      continue;
    }
    if (grow((void **)&c->events, &c->cap_events, c->num_events + 1,
             sizeof *c->events) != 0) {
      rc = -1;
      break;
    }
    c->events[c->num_events++] = ev;
  }
  free(line);
  fclose(f);
  if (rc != 0)
    trace_free(t);
  return rc;
}

void trace_free(struct trace *t) {
  for (size_t i = 0; i < t->num_constructs; i++)
    free(t->constructs[i].events);
  free(t->constructs);
  for (size_t i = 0; i < t->num_lines; i++)
    json_object_put(t->lines[i]);
  free(t->lines);
  memset(t, 0, sizeof *t);
}
