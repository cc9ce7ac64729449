/*
 * output.c - what device code prints reaches the program's stdout and
 * stderr: the device process inherits the host's file descriptors, so the
 * only thing to get right is stdio buffering in this process. On a pipe or
 * a file stdio buffers fully and this process ends with _exit (it must not
 * run the images' atexit handlers twice), so without this, device printf
 * would be lost in CI logs.
 *
 * stdout is made line-buffered, so that a line printed before a kernel
 * faults or hangs is written; every command that runs device code flushes
 * it before it reports completion, so what a target region printed has been
 * written when the construct completes on the host (the host plugin flushes
 * the program's own stdout before it starts device code: the two writers
 * share one file position and take turns at construct boundaries).
 *
 * Locking: stdio's own FILE locks; callable from any server thread.
 */
#include <stdio.h>
#include <stdio_ext.h>

#include "server.h"

void output_init(void) {
  /* A buffer of our own: device code may print from many threads. */
  setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
}

void output_flush(void) {
  /* After every kernel: most print nothing, and an fflush of an empty
   * stream still locks it (a third of the server's work per launch). */
  if (__fpending(stdout) > 0)
    fflush(stdout);
  if (__fpending(stderr) > 0)
    fflush(stderr);
}
