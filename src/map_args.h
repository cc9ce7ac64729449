/*
 * map_args.h - the argument arrays of one construct as the compiler passed
 * them, and what describes them: the check of the arrays, variable names,
 * map types as text, the LIBOMPTARGET_INFO listing (src/map_args.c). No
 * device, no table: everything above describes arguments through this.
 *
 * Thread safety: no state.
 */
#ifndef SIMTARGET_MAP_ARGS_H
#define SIMTARGET_MAP_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "omptarget.h"
#include "report.h"

/* The arrays of one construct, as the compiler passed them. */
struct map_args {
  int32_t num;
  void **base;      /* args_base */
  void **begin;     /* args */
  int64_t *sizes;
  int64_t *types;
  void **names;     /* may be NULL */
  void **mappers;   /* may be NULL; mappers[i] may be NULL */
};

/* Check the arrays (NULL arrays with num > 0, negative sizes, unknown bits,
 * MEMBER_OF pointing forward or out of range): 0, or -1 with the cause
 * recorded (report_error_set) naming `construct`. */
HIDDEN int maps_check_args(const struct map_args *a, const char *construct);

/* Printable name of a map entry from the compiler's names array, or "". */
HIDDEN const char *maps_var_name(const struct map_args *a, int32_t i,
                                 char *buf, size_t len);
/* The expression of one clang map name (";x[0:8];nm.c;2;24;;" -> "x[0:8]";
 * a name without the leading ';' as it is; NULL -> ""), into buf. */
HIDDEN const char *map_name_from_raw(const void *raw, char *buf, size_t len);

/* "tofrom|target_param|member_of(1)" for LIBOMPTARGET_INFO and reports. */
HIDDEN const char *map_type_string(int64_t type, char *buf, size_t len);
/* Print a construct's arguments with decoded map types (INFO 0x01). */
HIDDEN void map_args_print(const char *what, const ident_t *loc,
                           const struct map_args *a);

#endif
