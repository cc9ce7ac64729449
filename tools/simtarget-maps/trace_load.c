/*
 * trace_load.c - reading a SIMTARGET_TRACE file (JSON Lines) with json-c
 * and grouping its events into constructs by their sequence number.
 */
#include "tool.h"

#include <inttypes.h>
#include <stdlib.h>
#include <sys/types.h>
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

/* seq -> construct index: open addressing over a power of two (calls of
 * several host threads may reach the file out of seq order). */
struct seq_index {
  int64_t *seqs;
  size_t *idx;
  size_t cap, used;
};

static size_t *seq_slot(struct seq_index *h, int64_t seq) {
  size_t i = (size_t)((uint64_t)seq * 0x9e3779b97f4a7c15ULL) & (h->cap - 1);
  while (h->seqs[i] != -1 && h->seqs[i] != seq)
    i = (i + 1) & (h->cap - 1);
  return &h->idx[i];
}

static int seq_put(struct seq_index *h, int64_t seq, size_t idx) {
  if ((h->used + 1) * 2 > h->cap) {
    struct seq_index n = {NULL, NULL, h->cap ? h->cap * 2 : 64, 0};
    n.seqs = malloc(n.cap * sizeof *n.seqs);
    n.idx = malloc(n.cap * sizeof *n.idx);
    if (!n.seqs || !n.idx) {
      free(n.seqs);
      free(n.idx);
      return -1;
    }
    memset(n.seqs, 0xff, n.cap * sizeof *n.seqs); /* -1 */
    for (size_t i = 0; i < h->cap; i++)
      if (h->seqs[i] != -1)
        seq_put(&n, h->seqs[i], h->idx[i]);
    free(h->seqs);
    free(h->idx);
    *h = n;
  }
  size_t *slot = seq_slot(h, seq);
  h->seqs[slot - h->idx] = seq;
  *slot = idx;
  h->used++;
  return 0;
}

static struct construct *seq_get(struct trace *t, struct seq_index *h,
                                 int64_t seq) {
  if (!h->cap)
    return NULL;
  size_t *slot = seq_slot(h, seq);
  return h->seqs[slot - h->idx] == seq ? &t->constructs[*slot] : NULL;
}

struct loader {
  struct trace *t;
  struct seq_index seqs;
  size_t cap_lines, cap_constructs;
};

/* A valid event into the trace: a call opens a construct, other events
 * join theirs (an event of no construct is a note). 0, or -1 after saying
 * why. */
static int add_event(struct loader *l, json_object *ev, size_t lineno) {
  struct trace *t = l->t;
  if (grow((void **)&t->lines, &l->cap_lines, t->num_lines + 1,
           sizeof *t->lines) != 0)
    return -1;
  t->lines[t->num_lines++] = ev;
  const char *kind = field_str(ev, "ev");
  int64_t seq = field_int(ev, "seq");
  if (!strcmp(kind, "call")) {
    if (seq_get(t, &l->seqs, seq)) {
      fprintf(stderr, "simtarget-maps: %s:%zu: a second call event with seq "
                      "%" PRId64 "\n", t->path, lineno, seq);
      return 1;
    }
    if (grow((void **)&t->constructs, &l->cap_constructs,
             t->num_constructs + 1, sizeof *t->constructs) != 0 ||
        seq_put(&l->seqs, seq, t->num_constructs) != 0)
      return -1;
    struct construct *c = &t->constructs[t->num_constructs++];
    memset(c, 0, sizeof *c);
    c->call = ev;
    c->call_line = lineno;
    return 0;
  }
  struct construct *c = seq ? seq_get(t, &l->seqs, seq) : NULL;
  if (!c)
    return 0;
  if (!strcmp(kind, "result")) {
    c->result = ev;
    return 0;
  }
  if (grow((void **)&c->events, &c->cap_events, c->num_events + 1,
           sizeof *c->events) != 0)
    return -1;
  c->events[c->num_events++] = ev;
  return 0;
}

/* One line: a JSON value and nothing after it but blanks; NULL if not. */
static json_object *parse_line(json_tokener *tok, const char *line,
                               size_t len) {
  json_tokener_reset(tok);
  json_object *o = json_tokener_parse_ex(tok, line, (int)len);
  if (json_tokener_get_error(tok) != json_tokener_success) {
    json_object_put(o);
    return NULL;
  }
  size_t end = json_tokener_get_parse_end(tok);
  if (end < len && strspn(line + end, " \t\r\n") != len - end) {
    json_object_put(o);
    return NULL;
  }
  return o;
}

/* Does a line's "ev" (written by simtarget right after "v") name a kind
 * the caller skips? Only a line that plainly says so is skipped; any other
 * is parsed and validated. */
static bool skipped_kind(const char *line, const char *const *only) {
  static const char tag[] = "\"ev\":\"";
  const char *p = strstr(line, tag);
  if (!only || !p || p - line > 16)
    return false;
  p += sizeof tag - 1;
  const char *end = strchr(p, '"');
  if (!end)
    return false;
  for (; *only; only++)
    if (strlen(*only) == (size_t)(end - p) && !strncmp(p, *only, end - p))
      return false;
  return true;
}

int trace_load(const char *path, struct trace *t) {
  return trace_load_only(path, t, NULL);
}

/* Every line read is validated; each malformed one is named with its line
 * number, and any of them (or an empty trace) fails the load. */
int trace_load_only(const char *path, struct trace *t,
                    const char *const *only) {
  memset(t, 0, sizeof *t);
  t->path = path;
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "simtarget-maps: cannot open %s\n", path);
    return -1;
  }
  struct loader l = {.t = t};
  size_t lineno = 0, malformed = 0;
  char *line = NULL, why[200];
  size_t line_cap = 0;
  int rc = 0;
  ssize_t got;
  json_tokener *tok = json_tokener_new();
  if (!tok)
    rc = -1;
  while (rc >= 0 && (got = getline(&line, &line_cap, f)) > 0) {
    lineno++;
    if (strspn(line, " \t\r\n") == (size_t)got)
      continue;
    if (skipped_kind(line, only)) {
      t->num_skipped++;
      continue;
    }
    json_object *ev =
        got < INT32_MAX ? parse_line(tok, line, (size_t)got) : NULL;
    if (validate_event(ev, why, sizeof why) != 0) {
      fprintf(stderr, "simtarget-maps: %s:%zu: %s\n", path, lineno,
              ev ? why : "not one JSON value");
      json_object_put(ev);
      malformed++;
      continue;
    }
    rc = add_event(&l, ev, lineno);
    if (rc > 0)
      malformed++, rc = 0;
  }
  free(line);
  if (tok)
    json_tokener_free(tok);
  free(l.seqs.seqs);
  free(l.seqs.idx);
  bool read_error = ferror(f);
  fclose(f);
  if (rc < 0)
    fprintf(stderr, "simtarget-maps: %s: out of memory\n", path);
  else if (read_error && (rc = -1))
    fprintf(stderr, "simtarget-maps: %s: read error\n", path);
  else if (malformed && (rc = -1))
    fprintf(stderr, "simtarget-maps: %s: %zu malformed line%s (schema: "
                    "trace.schema.json)\n",
            path, malformed, malformed == 1 ? "" : "s");
  else if (t->num_lines + t->num_skipped == 0 && (rc = -1))
    fprintf(stderr, "simtarget-maps: %s: an empty trace (no event: did the "
                    "program run with SIMTARGET_TRACE and offload?)\n",
            path);
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
