/*
 * plugin_faults.h - the simdevice plugin's own failure points, for fault
 * injection (the plugin-side twin of src/faults.h): starting the device
 * process and its supervisor's exec, writing a command to the channel,
 * reading its reply, mapping the shared memory, streaming an image, and the
 * device's dlopen of it.
 *
 * SIM_FAULT(point) is one predictable branch when nothing is configured.
 * Rules come from SIMTARGET_FAULTS ("simdevice.spawn@2:repeat") or from
 * SIMDEVICE_FAULTS ("spawn@2:repeat"); "count" in SIMTARGET_FAULTS makes the
 * plugin append "simdevice POINT CALLS" lines to SIMTARGET_FAULT_COUNTS.
 *
 * Thread safety: rules are read once when the plugin loads; counters are
 * atomics.
 */
#ifndef SIMDEVICE_PLUGIN_FAULTS_H
#define SIMDEVICE_PLUGIN_FAULTS_H

#define SIM_FAULT_POINTS(X)                                                    \
  X(SPAWN, spawn)                                                              \
  X(SUPERVISOR_EXEC, supervisor_exec)                                          \
  X(CHANNEL_WRITE, channel_write)                                              \
  X(CHANNEL_READ, channel_read)                                                \
  X(SHM_MAP, shm_map)                                                          \
  X(IMAGE_WRITE, image_write)                                                  \
  X(DLOPEN, dlopen)

enum sim_fault_point {
#define SIM_FAULT_ENUM(id, name) SIM_FAULT_##id,
  SIM_FAULT_POINTS(SIM_FAULT_ENUM)
#undef SIM_FAULT_ENUM
  SIM_FAULT_COUNT
};

extern int sim_faults_armed __attribute__((visibility("hidden")));
/* Parses the rules (settings.c has the variables); called once, before the
 * first failure point can be reached. */
__attribute__((visibility("hidden"))) void sim_faults_configure(void);
/* Counts one pass through `point`; 1 when this pass must fail. */
__attribute__((visibility("hidden"))) int
sim_fault_hit(enum sim_fault_point point);
/* The point's name ("spawn"), for messages. */
__attribute__((visibility("hidden"))) const char *
sim_fault_name(enum sim_fault_point point);

#define SIM_FAULT(point)                                                       \
  (__builtin_expect(sim_faults_armed, 0) && sim_fault_hit(SIM_FAULT_##point))

#endif
