/*
 * normalize.c - `simtarget-maps normalize TRACE`: the trace without what
 * changes from run to run (raw addresses, directories of file names, the
 * file's device and inode numbers clang puts in kernel names), so that two
 * runs, two checkouts, or one program built by two compilers, compare as
 * text.
 * Objects keep their symbolic references (object n + offset, class); a
 * failed construct keeps its status, not its cause.
 */
#include "tool.h"

#include <string.h>

/* clang names a kernel __omp_offloading_<device>_<inode>_<function>_l<line>
 * (hex device and inode of the source file, clang-abi.md): the two numbers
 * change with every checkout, so they become "<file>". Other names are
 * kept. */
static void strip_kernel_name(json_object *o, const char *key) {
  json_object *name = field(o, key);
  if (!name || !json_object_is_type(name, json_type_string))
    return;
  static const char prefix[] = "__omp_offloading_";
  const char *s = json_object_get_string(name);
  if (strncmp(s, prefix, sizeof prefix - 1) != 0)
    return;
  const char *p = s + sizeof prefix - 1;
  for (int field_no = 0; field_no < 2; field_no++) {
    size_t hex = strspn(p, "0123456789abcdef");
    if (hex == 0 || p[hex] != '_')
      return;
    p += hex + 1;
  }
  char normal[512];
  snprintf(normal, sizeof normal, "%s<file>_%s", prefix, p);
  json_object_object_add(o, key, json_object_new_string(normal));
}

static void strip(json_object *o) {
  if (json_object_is_type(o, json_type_array)) {
    for (size_t i = 0; i < json_object_array_length(o); i++)
      strip(json_object_array_get_idx(o, i));
    return;
  }
  if (!json_object_is_type(o, json_type_object))
    return;
  json_object *cls = field(o, "class");
  /* a value passed by value (literal) is data, not an address: keep it
   * only when it is small enough not to be one */
  if (cls && field(o, "addr") && strcmp(json_object_get_string(cls), "null"))
    json_object_object_del(o, "addr");
  strip_kernel_name(o, "kernel");
  /* a failure's cause names addresses and process ids */
  json_object_object_del(o, "cause");
  json_object *file = field(o, "file");
  if (file && json_object_is_type(file, json_type_string)) {
    const char *s = json_object_get_string(file), *slash = strrchr(s, '/');
    if (slash)
      json_object_object_add(o, "file", json_object_new_string(slash + 1));
  }
  json_object_object_foreach(o, key, val) {
    (void)key;
    strip(val);
  }
}

int cmd_normalize(int argc, char **argv) {
  if (argc != 1) {
    fprintf(stderr, "simtarget-maps normalize: give one trace file\n");
    return 2;
  }
  struct trace t;
  if (trace_load(argv[0], &t) != 0)
    return 2;
  for (size_t i = 0; i < t.num_lines; i++) {
    strip(t.lines[i]);
    printf("%s\n", json_object_to_json_string_ext(t.lines[i],
                                                  JSON_C_TO_STRING_PLAIN));
  }
  trace_free(&t);
  return 0;
}
