/* record_settings.h - the settings that decide a kernel launch's geometry
 * on simdevice besides its clauses (the device runtime's caps_init reads
 * them) and the kernel time limit: SIMTARGET_RECORD writes the program's
 * (simdevice/plugin/record.c, `env NAME VALUE` lines) and simtarget-replay
 * runs with those and no others (tools/simtarget-replay/launch.c). */
#ifndef SIMTARGET_RECORD_SETTINGS_H
#define SIMTARGET_RECORD_SETTINGS_H

static const char *const record_settings[] = {
    "SIMDEVICE_MAX_TEAMS",     "SIMDEVICE_MAX_THREADS",
    "SIMDEVICE_DEFAULT_TEAMS", "SIMDEVICE_DEFAULT_THREADS",
    "OMP_THREAD_LIMIT",        "SIMDEVICE_TIMEOUT"};
#define RECORD_SETTINGS_COUNT                                                  \
  (sizeof record_settings / sizeof *record_settings)

#endif
