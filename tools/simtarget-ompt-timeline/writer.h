/*
 * writer.h - the timeline file of simtarget-ompt-timeline: a Chrome Trace
 * Event Format JSON array with the processes and tracks of
 * LIBOMPTARGET_PROFILE (src/profile.c): pid 1 the host, one track per host
 * thread (its Linux tid); pid 2+d device d, with its memory, copies and
 * kernels tracks and one track per nowait lane.
 *
 * The file is a whole JSON array after every event (each is written over
 * the closing bracket), so it stays readable whatever ends the program.
 * Thread safe: one lock around the file.
 */
#ifndef SIMTARGET_OMPT_TIMELINE_WRITER_H
#define SIMTARGET_OMPT_TIMELINE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TL_HOST_PID 1
#define TL_DEVICE_PID(d) (2 + (d))
enum { TL_MEMORY = 1, TL_COPIES = 2, TL_KERNELS = 3 };
#define TL_LANE_TID(lane) (100 + (lane))
#define TL_MAX_DEVICES 64
#define TL_MAX_LANES 64

/* Opens (truncates) `path` and writes the empty array; false, with a
 * message naming the file, when it cannot. */
bool tl_open(const char *path);

/* Nanoseconds of CLOCK_MONOTONIC: LIBOMPTARGET_PROFILE's clock. */
uint64_t tl_now(void);

/* The calling thread's Linux tid. */
long tl_tid(void);

/* One complete ("X") event from t0 to t1 on track (pid, tid); `args` is the
 * inside of a JSON object (maybe empty). `name` is escaped here, `cat` and
 * `args` must be JSON already. */
void tl_complete(int pid, long tid, const char *name, const char *cat,
                 uint64_t t0, uint64_t t1, const char *args);

/* One instant ("i") event at t on track (pid, tid). */
void tl_instant(int pid, long tid, const char *name, const char *cat,
                uint64_t t, const char *args);

/* `s` as the inside of a JSON string, cut to fit `len`. */
void tl_json_string(char *buf, size_t len, const char *s);

/* The lowest free nowait lane of `device` (the last one is shared), and
 * its release. */
int tl_lane_take(int device);
void tl_lane_give(int device, int lane);

#endif
