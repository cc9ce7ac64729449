/*
 * output.c - the program's stdout goes first at each construct boundary.
 * The device process writes to the same stdout (it inherits the file
 * descriptor, and flushes what device code printed before it reports a
 * command done: simdevice/server/output.c). What the host printed before a
 * construct may still sit in its stdio buffer (a pipe or a file is fully
 * buffered), so it is flushed before device code starts; output then reads
 * in program order, as with the host fallback.
 *
 * Locking: stdio's FILE lock only; called before the device's locks are
 * taken where the caller can, so a slow reader of the pipe blocks no other
 * device.
 */
#include <stdio.h>
#include <stdio_ext.h>

#include "plugin_internal.h"

void output_host_flush(void) {
  /* Before every kernel: an fflush of an empty buffer makes no system call
   * but still locks the stream, so look first. */
  if (__fpending(stdout) > 0)
    fflush(stdout);
}
