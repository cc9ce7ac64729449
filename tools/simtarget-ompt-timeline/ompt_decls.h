/*
 * ompt_decls.h - the part of OMPT (OpenMP 5.1 section 4, omp-tools.h) this
 * tool uses, declared with the values the specification gives them, so the
 * tool builds with any C compiler, without clang's omp-tools.h.
 */
#ifndef SIMTARGET_OMPT_TIMELINE_DECLS_H
#define SIMTARGET_OMPT_TIMELINE_DECLS_H

#include <stddef.h>
#include <stdint.h>

typedef union {
  uint64_t value;
  void *ptr;
} ompt_data_t;
typedef uint64_t ompt_id_t;
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef void (*ompt_callback_t)(void);
typedef int (*ompt_set_callback_t)(int event, ompt_callback_t callback);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup,
                                 int initial_device_num,
                                 ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);
typedef struct {
  ompt_initialize_t initialize;
  ompt_finalize_t finalize;
  ompt_data_t tool_data;
} ompt_start_tool_result_t;

/* ompt_callbacks_t */
enum {
  OMPT_CB_DEVICE_INITIALIZE = 12,
  OMPT_CB_TARGET_EMI = 33,
  OMPT_CB_TARGET_DATA_OP_EMI = 34,
  OMPT_CB_TARGET_SUBMIT_EMI = 35,
};
/* ompt_set_result_t: what ompt_set_callback answers */
enum { OMPT_SET_NEVER = 1, OMPT_SET_ALWAYS = 5 };
/* ompt_scope_endpoint_t */
enum { OMPT_BEGIN = 1, OMPT_END = 2 };
/* ompt_target_t: 1-4, +8 for the nowait forms */
enum {
  OMPT_TARGET = 1,
  OMPT_TARGET_ENTER_DATA = 2,
  OMPT_TARGET_EXIT_DATA = 3,
  OMPT_TARGET_UPDATE = 4,
  OMPT_TARGET_NOWAIT_BIT = 8,
};
/* ompt_target_data_op_t (the _async forms: the same + 16) */
enum {
  OMPT_OP_ALLOC = 1,
  OMPT_OP_TO_DEVICE = 2,
  OMPT_OP_FROM_DEVICE = 3,
  OMPT_OP_DELETE = 4,
  OMPT_OP_ASSOCIATE = 5,
  OMPT_OP_DISASSOCIATE = 6,
  OMPT_OP_ASYNC = 16,
};

/* Device tracing (section 4.6): the record of a data operation or kernel,
 * as omp-tools.h lays ompt_record_ompt_t out (only the members read). */
typedef void ompt_device_t;
typedef void ompt_buffer_t;
typedef uint64_t ompt_buffer_cursor_t;
enum { OMPT_CB_TARGET_DATA_OP = 9, OMPT_CB_TARGET_SUBMIT = 10 };
typedef struct {
  int type; /* ompt_callbacks_t */
  uint64_t time;
  uint64_t thread_id;
  uint64_t target_id;
  union {
    struct {
      ompt_id_t host_op_id;
      int optype;
      void *src_addr;
      int src_device_num;
      void *dest_addr;
      int dest_device_num;
      size_t bytes;
      uint64_t end_time;
      const void *codeptr_ra;
    } target_data_op;
    struct {
      ompt_id_t host_op_id;
      unsigned int requested_num_teams;
      unsigned int granted_num_teams;
      uint64_t end_time;
    } target_kernel;
  } record;
} ompt_record_ompt_t;
typedef void (*ompt_callback_buffer_request_t)(int device_num,
                                               ompt_buffer_t **buffer,
                                               size_t *bytes);
typedef void (*ompt_callback_buffer_complete_t)(int device_num,
                                                ompt_buffer_t *buffer,
                                                size_t bytes,
                                                ompt_buffer_cursor_t begin,
                                                int buffer_owned);
typedef int (*ompt_set_trace_ompt_t)(ompt_device_t *device,
                                     unsigned int enable, unsigned int etype);
typedef int (*ompt_start_trace_t)(ompt_device_t *device,
                                  ompt_callback_buffer_request_t request,
                                  ompt_callback_buffer_complete_t complete);
typedef int (*ompt_advance_buffer_cursor_t)(ompt_device_t *device,
                                            ompt_buffer_t *buffer,
                                            size_t size,
                                            ompt_buffer_cursor_t current,
                                            ompt_buffer_cursor_t *next);
typedef ompt_record_ompt_t *(*ompt_get_record_ompt_t)(
    ompt_buffer_t *buffer, ompt_buffer_cursor_t current);

#endif
