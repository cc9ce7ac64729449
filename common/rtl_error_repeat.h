/*
 * rtl_error_repeat.h - how a plugin hands out its last error
 * (__tgt_rtl_get_last_error), shared by the simdevice plugins.
 *
 * libomptarget reads the error of a failed call for its message and then
 * once more for the fault address it explains in host terms (src/launch.c,
 * launch_explain_fault). So the fault of the last error taken is kept in
 * *repeat (a thread-local of the caller's) and handed out once more, with
 * no message, when nothing newer failed.
 */
#ifndef SIMTARGET_RTL_ERROR_REPEAT_H
#define SIMTARGET_RTL_ERROR_REPEAT_H

#include <string.h>

#include "omptarget_plugin.h"

/* err: what the plugin's error slot held (taken, now empty there). */
static inline void rtl_error_repeat(__tgt_rtl_error *err,
                                    __tgt_rtl_error *repeat) {
  if (err->message[0] != '\0' || err->fault_addr != 0) {
    *repeat = *err;
    repeat->message[0] = '\0';
  } else {
    *err = *repeat;
    memset(repeat, 0, sizeof *repeat);
  }
}

#endif
