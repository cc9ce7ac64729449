/*
 * tool.h - simtarget-maps, the compiler teams' tool over SIMTARGET_TRACE
 * files (src/trace.h, schema in trace.schema.json): decode a map type,
 * check a trace against the map rules, diff two traces, run a program with
 * the trace on. One concern per file: trace_load.c (reading traces into
 * constructs), decode.c, check.c, diff.c, main.c (commands, run).
 *
 * Single-threaded: no locks.
 */
#ifndef SIMTARGET_MAPS_TOOL_H
#define SIMTARGET_MAPS_TOOL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One construct of a trace: its call event, the events it caused, its
 * result (NULL when the program ended inside it). */
struct construct {
  json_object *call;
  json_object **events;
  size_t num_events, cap_events;
  json_object *result;
  size_t call_line; /* the call's line in the file, 1-based */
};

struct trace {
  const char *path;
  json_object **lines; /* every event, owned */
  size_t num_lines;
  struct construct *constructs; /* in call order */
  size_t num_constructs;
  size_t num_skipped; /* lines of kinds the reader did not ask for */
};

/* Read a trace; 0, or -1 after saying why on stderr (file, line): each
 * line that breaks the schema is named, and an empty trace fails. */
int trace_load(const char *path, struct trace *t);
/* The same, reading only the event kinds in `only` (NULL-terminated; NULL:
 * all): a line whose "ev" plainly names another kind is skipped unread. */
int trace_load_only(const char *path, struct trace *t,
                    const char *const *only);
/* One event against trace.schema.json: 0, or -1 with the reason in why. */
int validate_event(json_object *ev, char *why, size_t len);
void trace_free(struct trace *t);

/* Field helpers: a missing field reads as 0 / "" / false. */
int64_t field_int(json_object *o, const char *key);
const char *field_str(json_object *o, const char *key);
json_object *field(json_object *o, const char *key);
/* The raw address of a reference object {"addr": "0x..", ...}. */
uint64_t ref_addr(json_object *o, const char *key);
/* An argument's map type. */
int64_t arg_type(json_object *arg);
/* "file:line:col" of a construct's call, or "unknown location". */
const char *call_location(json_object *call, char *buf, size_t len);

/* The map-type bits, with their meaning. */
struct map_bit {
  int64_t bit;
  const char *name;
  const char *meaning;
};
extern const struct map_bit map_bits[];
extern const size_t num_map_bits;
#define MAP_MEMBER_OF_SHIFT 48
int64_t map_bit_value(const char *name);

int cmd_decode(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_normalize(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
/* Differences of two traces (entry points ignored), and in how many
 * constructs; -1 when out of memory. */
int diff_count(const struct trace *a, const struct trace *b,
               size_t *constructs);
/* Check a loaded trace; prints violations to `out`, returns their number. */
int check_trace(const struct trace *t, bool codegen_only, FILE *out);

#endif
