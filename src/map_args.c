/*
 * map_args.c - a construct's argument arrays as data (map_args.h): their
 * check, the variable names clang passes, map types as text, and the
 * LIBOMPTARGET_INFO listing of a construct's arguments. Below the devices
 * and the mapping semantics: the failure report, the fault explanations,
 * maps.c, mappers.c and the entry points all describe arguments through it.
 *
 * Thread safety: no state.
 */
#include "map_args.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

/* ------------------------------------------------------------- names */

/* Clang's map names are ";expression;file;line;col;;" (seen in clang 14
 * binaries: ";x[0:8];nm.c;2;24;;"); the source location of a construct is
 * ";file;function;line;col;;" instead. */
const char *map_name_from_raw(const void *raw, char *buf, size_t len) {
  buf[0] = '\0';
  if (!raw || len == 0)
    return buf;
  const char *s = raw;
  if (s[0] != ';') {
    snprintf(buf, len, "%s", s);
    return buf;
  }
  const char *expr = s + 1;
  const char *end = strchr(expr, ';');
  size_t n = end ? (size_t)(end - expr) : strlen(expr);
  if (n >= len)
    n = len - 1;
  memcpy(buf, expr, n);
  buf[n] = '\0';
  return buf;
}

const char *maps_var_name(const struct map_args *a, int32_t i, char *buf,
                          size_t len) {
  if (len == 0)
    return "";
  buf[0] = '\0';
  if (!a || !a->names || i < 0 || i >= a->num)
    return buf;
  return map_name_from_raw(a->names[i], buf, len);
}

/* ----------------------------------------------------- argument check */

int maps_check_args(const struct map_args *a, const char *construct) {
  if (!a) {
    report_error_set("%s: no map arguments", construct);
    return -1;
  }
  if (a->num < 0) {
    report_error_set("%s: number of map entries %d is negative", construct,
                     a->num);
    return -1;
  }
  if (a->num == 0)
    return 0;
  if (!a->base || !a->begin || !a->sizes || !a->types) {
    report_error_set("%s: %d map entries but the %s array is NULL", construct,
                     a->num,
                     !a->base    ? "args_base"
                     : !a->begin ? "args"
                     : !a->sizes ? "arg_sizes"
                                 : "arg_types");
    return -1;
  }
  for (int32_t i = 0; i < a->num; i++) {
    int64_t type = a->types[i];
    if (a->sizes[i] < 0) {
      report_error_set("%s: map entry %d: size %" PRId64 " is negative",
                       construct, i, a->sizes[i]);
      return -1;
    }
    if (type & ~OMP_TGT_MAPTYPE_KNOWN_BITS) {
      report_error_set("%s: map entry %d: map type 0x%" PRIx64
                       " has unknown bits 0x%" PRIx64,
                       construct, i, (uint64_t)type,
                       (uint64_t)(type & ~OMP_TGT_MAPTYPE_KNOWN_BITS));
      return -1;
    }
    uint64_t member_field = (uint64_t)type >> OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT;
    if (member_field) {
      int64_t parent = (int64_t)member_field - 1;
      if (parent >= a->num) {
        report_error_set("%s: map entry %d: MEMBER_OF(%" PRId64
                         ") refers to entry %" PRId64 " of only %d",
                         construct, i, (int64_t)member_field, parent, a->num);
        return -1;
      }
      if (parent >= i) {
        report_error_set("%s: map entry %d: MEMBER_OF(%" PRId64
                         ") refers to entry %" PRId64
                         ", which is %s; a parent must come before its members",
                         construct, i, (int64_t)member_field, parent,
                         parent == i ? "itself" : "a later entry");
        return -1;
      }
    }
  }
  return 0;
}

/* ---- map-type decoding ------------------------------------------------- */

const char *map_type_string(int64_t type, char *buf, size_t len) {
  const char *motion = "alloc";
  switch (type & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM)) {
  case OMP_TGT_MAPTYPE_TO: motion = "to"; break;
  case OMP_TGT_MAPTYPE_FROM: motion = "from"; break;
  case OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM: motion = "tofrom"; break;
  }
  size_t used = (size_t)snprintf(buf, len, "%s", motion);
  /* the bit names the JSON trace uses too (trace.c) */
  int64_t bit;
  const char *bit_name;
  for (size_t i = 0; (bit_name = map_type_bit_name(i, &bit)) && used < len;
       i++)
    if ((type & bit) && !(bit & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM)))
      used += (size_t)snprintf(buf + used, len - used, "|%s", bit_name);
  uint64_t member = (uint64_t)type >> OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT;
  if (member && used < len)
    used += (size_t)snprintf(buf + used, len - used, "|member_of(%" PRIu64 ")",
                             member);
  int64_t unknown = type & ~OMP_TGT_MAPTYPE_KNOWN_BITS;
  if (unknown && used < len)
    snprintf(buf + used, len - used, "|unknown(0x%" PRIx64 ")",
             (uint64_t)unknown);
  return buf;
}

void map_args_print(const char *what, const ident_t *loc,
                       const struct map_args *a) {
  if (!REPORT_INFO_ON(INFO_KERNEL_ARGS))
    return;
  char where[512];
  report_info(INFO_KERNEL_ARGS, "%s at %s with %d arguments:", what,
              report_location(loc, where, sizeof where), a->num);
  for (int32_t i = 0; i < a->num; i++) {
    char type[160], name[128];
    report_info(INFO_KERNEL_ARGS,
                "  [%d] %s(%s) base=%p begin=%p size=%" PRId64
                " type=0x%" PRIx64,
                i, map_type_string(a->types[i], type, sizeof type),
                maps_var_name(a, i, name, sizeof name), a->base[i],
                a->begin[i], a->sizes[i], (uint64_t)a->types[i]);
  }
}
