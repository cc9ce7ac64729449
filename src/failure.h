/*
 * failure.h - the failure policy: what a construct that failed does, in one
 * place. It sits above devices, plugins and the mapping table (its report
 * prints their state) and is called only by the entry points (interface.c);
 * the layers below record a cause (report_error_set) and keep the table as
 * it was at the failure (mapping_keep_for_report), and return.
 *
 * Thread safety: no state of its own; see failure.c for the locks it tries.
 */
#ifndef SIMTARGET_FAILURE_H
#define SIMTARGET_FAILURE_H

#include "omptarget.h"
#include "settings.h"

struct device;
struct map_args;
/*
 * Called by an entry point whose construct failed, with the construct's
 * name ("target", "target data begin"...) and the cause recorded with
 * report_error_set. Under OMP_TARGET_OFFLOAD=mandatory, and under `default`
 * when a device exists (LLVM's rule), it prints the construct, the source
 * location, the cause, the rejected plugins and images, and the device's
 * mapping table (`dev` may be NULL), then exits with status 1. Otherwise
 * (`disabled`, or no device) it says under LIBOMPTARGET_INFO that the host
 * version runs instead, clears the cause and returns. `a` (may be NULL) is
 * the construct's argument list, printed with the report. Under
 * SIMTARGET_KEEP_GOING=1 the mandatory report is printed as an error and
 * the call returns: the entry point then fails the construct (a region's
 * host version runs).
 */
HIDDEN void failure_apply_policy(const ident_t *loc, const char *construct,
                                 struct device *dev, const struct map_args *a);

#endif
