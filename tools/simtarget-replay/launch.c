/*
 * launch.c - one recorded launch, replayed: a fresh device through the
 * simdevice plugin's interface, its images loaded, every recorded block
 * allocated at its recorded address and filled, the globals filled, the
 * kernel run, the memory compared with the recording.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "omptarget_plugin.h"
#include "record_settings.h"
#include "replay.h"

struct plugin {
  int32_t (*is_valid_binary)(__tgt_device_image *);
  int32_t (*replay_base)(int32_t, uint64_t);
  const char *(*version)(void);
  int32_t (*init_device)(int32_t);
  __tgt_target_table *(*load_binary)(int32_t, __tgt_device_image *);
  int32_t (*alloc_at)(int32_t, void *, int64_t);
  int32_t (*submit)(int32_t, void *, void *, int64_t);
  int32_t (*retrieve)(int32_t, void *, void *, int64_t);
  int32_t (*run)(int32_t, void *, void **, ptrdiff_t *, int32_t, int32_t,
                 int32_t, uint64_t);
  int32_t (*last_error)(int32_t, __tgt_rtl_error *);
};

static const char *plugin_error(const struct plugin *p, int dev) {
  static __tgt_rtl_error err;
  memset(&err, 0, sizeof err);
  if (p->last_error == NULL || p->last_error(dev, &err) != 0)
    snprintf(err.message, sizeof err.message, "(no message)");
  return err.message;
}

/* The plugin of the recording's device machine beside this program
 * (../lib: libomptarget.rtl.simdevice.so for the host's machine,
 * libomptarget.rtl.simdevice-MACHINE.so for another), or
 * SIMTARGET_REPLAY_PLUGIN. */
static int open_plugin(struct plugin *p, const char *machine) {
  char path[PATH_MAX + 128] = "", suffix[48] = ""; /* exe, the name, suffix */
  const char *set = getenv("SIMTARGET_REPLAY_PLUGIN");
  if (strcmp(machine, replay_host_machine()) != 0)
    snprintf(suffix, sizeof suffix, "-%s", machine);
  if (set != NULL) {
    snprintf(path, sizeof path, "%s", set);
  } else {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
      *slash = '\0';
    snprintf(path, sizeof path, "%s/../lib/libomptarget.rtl.simdevice%s.so",
             exe, suffix);
  }
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    fprintf(stderr, "simtarget-replay: cannot load the plugin for %s "
                    "devices: %s\n", machine, dlerror());
    return -1;
  }
  int32_t (*init_plugin)(void) = (int32_t (*)(void))dlsym(h, "__tgt_rtl_init_plugin");
  *(void **)&p->is_valid_binary = dlsym(h, "__tgt_rtl_is_valid_binary");
  *(void **)&p->replay_base = dlsym(h, "__tgt_rtl_simdevice_replay_base");
  *(void **)&p->version = dlsym(h, "__tgt_rtl_simdevice_record_version");
  *(void **)&p->init_device = dlsym(h, "__tgt_rtl_init_device");
  *(void **)&p->load_binary = dlsym(h, "__tgt_rtl_load_binary");
  *(void **)&p->alloc_at = dlsym(h, "__tgt_rtl_simdevice_alloc_at");
  *(void **)&p->submit = dlsym(h, "__tgt_rtl_data_submit");
  *(void **)&p->retrieve = dlsym(h, "__tgt_rtl_data_retrieve");
  *(void **)&p->run = dlsym(h, "__tgt_rtl_run_target_team_region");
  *(void **)&p->last_error = dlsym(h, "__tgt_rtl_get_last_error");
  if (!p->is_valid_binary || !p->replay_base || !p->version ||
      !p->init_device || !p->load_binary || !p->alloc_at || !p->submit ||
      !p->retrieve || !p->run) {
    fprintf(stderr, "simtarget-replay: %s lacks the entry points replay "
                    "needs (an older simtarget?)\n", path);
    return -1;
  }
  return init_plugin != NULL && init_plugin() != 0 ? -1 : 0;
}

static unsigned char *read_file(const char *dir, const char *name,
                                size_t *size) {
  char path[PATH_MAX + 300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "re");
  unsigned char *buf = NULL;
  if (f != NULL && fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    rewind(f);
    buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
      free(buf);
      buf = NULL;
    }
    *size = (size_t)n;
  }
  if (f != NULL)
    fclose(f);
  if (buf == NULL)
    fprintf(stderr, "simtarget-replay: cannot read %s\n", path);
  return buf;
}

/* The geometry settings the device had (record_settings.h), and none of
 * this process's. */
static void set_recorded_settings(const struct manifest *m) {
  char v[sizeof m->env[0]];
  for (size_t i = 0; i < RECORD_SETTINGS_COUNT; i++)
    unsetenv(record_settings[i]);
  for (int i = 0; i < m->env_count; i++) {
    snprintf(v, sizeof v, "%s", m->env[i]);
    char *eq = strchr(v, '=');
    if (eq != NULL) {
      *eq = '\0';
      setenv(v, eq + 1, 1);
    }
  }
}

/* The environment the device was recorded with, and the wrapper. */
static void set_environment(const struct manifest *m,
                            const struct options *opt) {
  char v[PATH_MAX + 64];
  snprintf(v, sizeof v, "%llu", (unsigned long long)m->device_memory);
  setenv("SIMDEVICE_MEMORY", v, 1);
  setenv("SIMDEVICE_GUARD", m->guard ? "1" : "0", 1);
  snprintf(v, sizeof v, "%d", m->device + 1);
  setenv(strcmp(m->machine, "ppc64le") == 0 &&
                 strcmp(replay_host_machine(), "ppc64le") != 0
             ? "SIMDEVICE_PPC64LE_NUM_DEVICES"
             : "SIMDEVICE_NUM_DEVICES",
         v, 1);
  setenv("SIMDEVICE_EARLY_START", "0", 1);
  unsetenv("SIMTARGET_RECORD");
  set_recorded_settings(m);
  if (opt->valgrind)
    setenv("SIMDEVICE_WRAPPER", "valgrind -q --error-exitcode=99 --vgdb=no", 1);
  if (opt->gdb) /* the command file: see gdb_wrapper */
    setenv("SIMDEVICE_TIMEOUT", "0", 1);
}

/* --gdb: the device process under gdb, stopped at the kernel's entry (the
 * recorded address: the device process loads images at fixed addresses).
 * `script` gets the command file's path; the caller removes the file. */
static int gdb_wrapper(const struct manifest *m, const char *dir,
                       char script[PATH_MAX]) {
  char w[PATH_MAX + 100], path[PATH_MAX + 300];
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(script, PATH_MAX, "%s/simtarget-replay-%d.gdb", tmp,
           (int)getpid());
  uint64_t entry = 0;
  int image = 0;
  for (int i = 0; i < m->image_count; i++)
    for (uint64_t j = 0; j < m->images[i].count; j++)
      if (m->images[i].entries[j].name != NULL &&
          strcmp(m->images[i].entries[j].name, m->kernel) == 0) {
        entry = (uint64_t)(uintptr_t)m->images[i].entries[j].addr;
        image = i;
      }
  size_t size = 0;
  unsigned char *elf = read_file(dir, m->images[image].file, &size);
  if (!realpath(dir, path))
    snprintf(path, sizeof path, "%s", dir);
  int rc = elf == NULL || gdb_script(script, path, m->images[image].file, elf,
                                     size, m->kernel, entry) != 0;
  free(elf);
  if (rc) {
    fprintf(stderr, "simtarget-replay: cannot write %s\n", script);
    return -1;
  }
  snprintf(w, sizeof w, "gdb -q -x %s --args", script);
  setenv("SIMDEVICE_WRAPPER", w, 1);
  return 0;
}

/* Reads the images and asks the plugin whether each is for its device, as
 * libomptarget does (the plugin learns an image's sanitizer there). */
static int read_images(const struct plugin *p, const struct manifest *m,
                       const char *dir, __tgt_device_image *imgs) {
  for (int i = 0; i < m->image_count; i++) {
    const struct rec_image *im = &m->images[i];
    size_t size;
    unsigned char *elf = read_file(dir, im->file, &size);
    if (elf == NULL)
      return -1;
    imgs[i] = (__tgt_device_image){elf, elf + size, im->entries,
                                   im->entries + im->count};
    if (!p->is_valid_binary(&imgs[i])) {
      fprintf(stderr, "simtarget-replay: %s/%s: %s\n", dir, im->file,
              plugin_error(p, m->device));
      return -1;
    }
  }
  return 0;
}

/* Loads the images; `tables` gets each one's target table. */
static int load_images(const struct plugin *p, const struct manifest *m,
                       const char *dir, __tgt_device_image *imgs,
                       __tgt_target_table **tables) {
  for (int i = 0; i < m->image_count; i++) {
    tables[i] = p->load_binary(m->device, &imgs[i]);
    if (tables[i] == NULL) {
      fprintf(stderr, "simtarget-replay: loading %s/%s failed: %s\n", dir,
              m->images[i].file, plugin_error(p, m->device));
      return -1;
    }
  }
  return 0;
}

/* The replayed device address of recorded address `addr`: moved by the
 * distance its global moved (by name), else the same. `kernel` finds the
 * kernel entry by name instead (NULL when absent). */
static uint64_t relocate(const struct manifest *m, __tgt_target_table **t,
                         uint64_t addr, const char *kernel) {
  for (int i = 0; i < m->image_count; i++)
    for (uint64_t j = 0; j < m->images[i].count; j++) {
      const __tgt_offload_entry *rec = &m->images[i].entries[j];
      uint64_t now = (uint64_t)(uintptr_t)t[i]->EntriesBegin[j].addr;
      uint64_t was = (uint64_t)(uintptr_t)rec->addr;
      if (rec->name == NULL)
        continue;
      if (kernel != NULL && strcmp(rec->name, kernel) == 0)
        return now;
      if (kernel == NULL && rec->size > 0 && addr >= was &&
          addr - was <= rec->size)
        return now + (addr - was);
    }
  return kernel != NULL ? 0 : addr;
}

/* Allocates every block at its address (once) and copies in the recorded
 * bytes of blocks and globals. */
static int restore(const struct plugin *p, const struct manifest *m,
                   __tgt_target_table **t, int dev, unsigned char *before,
                   int allocate) {
  for (size_t i = 0; i < m->span_count; i++) {
    const struct rec_span *s = &m->spans[i];
    uint64_t at = s->name ? relocate(m, t, s->addr, NULL) : s->addr;
    if (allocate && s->name == NULL &&
        p->alloc_at(dev, (void *)(uintptr_t)at, (int64_t)s->size) != 0) {
      fprintf(stderr, "simtarget-replay: %s\n", plugin_error(p, dev));
      return -1;
    }
    if (s->size > 0 && p->submit(dev, (void *)(uintptr_t)at,
                                 before + s->file_offset, (int64_t)s->size)) {
      fprintf(stderr, "simtarget-replay: restoring %llu bytes at 0x%llx: %s\n",
              (unsigned long long)s->size, (unsigned long long)at,
              plugin_error(p, dev));
      return -1;
    }
  }
  return 0;
}

/* Reads the memory back and names what differs from after.bin: 0 or 1. */
static int compare(const struct plugin *p, const struct manifest *m,
                   __tgt_target_table **t, int dev, const unsigned char *after,
                   const char *dir, int quiet) {
  int differ = 0;
  for (size_t i = 0; i < m->span_count; i++) {
    const struct rec_span *s = &m->spans[i];
    uint64_t at = s->name ? relocate(m, t, s->addr, NULL) : s->addr;
    unsigned char *now = malloc(s->size ? s->size : 1);
    if (now == NULL || p->retrieve(dev, now, (void *)(uintptr_t)at,
                                   (int64_t)s->size) != 0) {
      fprintf(stderr, "simtarget-replay: reading 0x%llx back failed\n",
              (unsigned long long)at);
      free(now);
      return 1;
    }
    uint64_t n = 0, first = 0;
    for (uint64_t k = s->size; k-- > 0;)
      if (now[k] != after[s->file_offset + k])
        n++, first = k;
    if (n > 0)
      printf("%s: differs: %s%s at 0x%llx (%llu bytes): %llu bytes differ, "
             "the first at offset %llu\n",
             dir, s->name ? "global " : "block", s->name ? s->name : "",
             (unsigned long long)s->addr, (unsigned long long)s->size,
             (unsigned long long)n, (unsigned long long)first);
    differ |= n > 0;
    free(now);
  }
  if (!differ && !quiet)
    printf("%s: identical (%zu blocks and globals, %llu bytes)\n", dir,
           m->span_count, (unsigned long long)m->bytes);
  return differ;
}

/* A fault message without what differs between two runs of the same
 * kernel: the device process's pid. */
static void normalize(const char *in, char *out, size_t len) {
  size_t o = 0;
  while (*in != '\0' && o + 1 < len) {
    if (strncmp(in, "(pid ", 5) == 0) {
      o += (size_t)snprintf(out + o, len - o, "(pid N");
      in += 5;
      while (*in >= '0' && *in <= '9')
        in++;
      continue;
    }
    out[o++] = *in++;
  }
  out[o < len ? o : len - 1] = '\0';
}

static int same_message(const char *a, const char *b) {
  char x[1100], y[1100];
  normalize(a, x, sizeof x);
  normalize(b, y, sizeof y);
  return strcmp(x, y) == 0;
}

/* The recorded launch's outcome against the replay's: 0 same, 1 not. */
static int judge_fault(const struct manifest *m, int rc, const char *message,
                       const char *dir) {
  if (rc == 0 && !m->faulted)
    return 0;
  if (rc != 0 && m->faulted && same_message(message, m->message)) {
    printf("%s: faulted as recorded: %s\n", dir, message);
    return 0;
  }
  if (rc == 0)
    printf("%s: differs: recorded a fault (%s), the replay ran to its end\n",
           dir, m->message);
  else if (!m->faulted)
    printf("%s: differs: the replay failed (%s), the recording did not\n",
           dir, message);
  else
    printf("%s: differs: the replay failed with another message:\n  "
           "recorded: %s\n  replayed: %s\n", dir, m->message, message);
  return 1;
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs the kernel opt->times times from the recorded memory. */
static int run_kernel(const struct plugin *p, const struct manifest *m,
                      __tgt_target_table **t, unsigned char *before,
                      const struct options *opt, const char **message) {
  int dev = m->device;
  uint64_t entry = relocate(m, t, 0, m->kernel);
  if (entry == 0) {
    fprintf(stderr, "simtarget-replay: kernel %s is in no image\n", m->kernel);
    return -2;
  }
  void *args[256];
  ptrdiff_t offsets[256] = {0};
  for (int i = 0; i < m->arg_num; i++)
    args[i] = (void *)(uintptr_t)relocate(m, t, m->args[i], NULL);
  int rc = 0;
  double total = 0;
  for (int i = 0; i < opt->times && rc == 0; i++) {
    if (i > 0 && restore(p, m, t, dev, before, 0) != 0)
      return -2;
    double t0 = seconds();
    rc = p->run(dev, (void *)(uintptr_t)entry, args, offsets, m->arg_num,
                opt->teams > 0 ? opt->teams : m->num_teams,
                opt->threads > 0 ? opt->threads : m->thread_limit, 0);
    total += seconds() - t0;
  }
  *message = rc != 0 ? plugin_error(p, dev) : "";
  if (opt->times > 1 && rc == 0)
    printf("%s: %d runs, %.6f s per run\n", m->kernel, opt->times,
           total / opt->times);
  return rc;
}

/* The device process's stack limit as recorded (it inherits ours): it
 * places the process's mmap area, so where its images load. A limit that
 * cannot be had (above the hard one) is left, said on stderr. */
static void set_stack_limit(const struct manifest *m) {
  struct rlimit now;
  if (!m->has_stack_limit || getrlimit(RLIMIT_STACK, &now) != 0)
    return;
  rlim_t want = m->stack_limit == ULLONG_MAX ? RLIM_INFINITY
                                             : (rlim_t)m->stack_limit;
  if (now.rlim_cur == want)
    return;
  now.rlim_cur = want;
  if (setrlimit(RLIMIT_STACK, &now) != 0)
    fprintf(stderr, "simtarget-replay: note: the stack limit recorded (%s) "
                    "is above this one's hard limit: images may load "
                    "elsewhere\n",
            m->stack_limit == ULLONG_MAX ? "unlimited" : "a higher one");
}

/* The device process's CPUs as recorded (it inherits our affinity): the
 * default teams and threads of a launch follow them. This machine's first
 * ones when it has more; when fewer, said on stderr. */
static void set_cpus(const struct manifest *m, const char *dir) {
  cpu_set_t have, want;
  if (m->cpus <= 0 || sched_getaffinity(0, sizeof have, &have) != 0 ||
      CPU_COUNT(&have) == m->cpus)
    return;
  if (CPU_COUNT(&have) < m->cpus) {
    fprintf(stderr, "simtarget-replay: %s: note: recorded on %d CPUs, %d "
                    "here: a launch without num_teams or thread_limit gets "
                    "another geometry (SIMDEVICE_DEFAULT_TEAMS, --teams)\n",
            dir, m->cpus, CPU_COUNT(&have));
    return;
  }
  CPU_ZERO(&want);
  for (int c = 0, n = 0; c < CPU_SETSIZE && n < m->cpus; c++)
    if (CPU_ISSET(c, &have)) {
      CPU_SET(c, &want);
      n++;
    }
  if (sched_setaffinity(0, sizeof want, &want) != 0)
    fprintf(stderr, "simtarget-replay: %s: note: cannot run on %d CPUs as "
                    "recorded: %s\n", dir, m->cpus, strerror(errno));
}

/* Says when the kernel's image loaded elsewhere than recorded (another C
 * library, qemu or kernel): globals and arguments into them are moved by
 * name, pointers to them stored in memory are not. */
static void note_moved(const struct manifest *m, __tgt_target_table **t,
                       const char *dir) {
  for (int i = 0; i < m->image_count; i++)
    for (uint64_t j = 0; j < m->images[i].count; j++) {
      uint64_t was = (uint64_t)(uintptr_t)m->images[i].entries[j].addr;
      uint64_t now = (uint64_t)(uintptr_t)t[i]->EntriesBegin[j].addr;
      if (was != now) {
        fprintf(stderr, "simtarget-replay: %s: note: image %d loaded at "
                        "another address than recorded (%s at 0x%llx, "
                        "recorded 0x%llx): globals and arguments into it "
                        "are moved, pointers to it stored in device memory "
                        "are not\n", dir, i,
                m->images[i].entries[j].name ? m->images[i].entries[j].name
                                             : "an entry",
                (unsigned long long)now, (unsigned long long)was);
        return;
      }
    }
}

/* Allocates the device where the recording had it and loads its images:
 * 0, or -1 said on stderr. */
static int set_up_device(const struct plugin *p, const struct manifest *m,
                         const char *dir, __tgt_device_image *imgs,
                         __tgt_target_table **tables) {
  if (read_images(p, m, dir, imgs) != 0)
    return -1;
  if (p->replay_base(m->device, m->device_base) != 0 ||
      p->init_device(m->device) != 0) {
    fprintf(stderr, "simtarget-replay: init_device: %s\n",
            plugin_error(p, m->device));
    return -1;
  }
  if (load_images(p, m, dir, imgs, tables) != 0)
    return -1;
  note_moved(m, tables, dir);
  return 0;
}

static int launch(const char *dir, const struct options *opt,
                  char gdb_script_path[PATH_MAX]) {
  static struct manifest m;
  if (manifest_read(dir, &m) != 0 || manifest_check(dir, &m) != 0)
    return 2;
  if ((opt->gdb || opt->valgrind) &&
      strcmp(m.machine, replay_host_machine()) != 0) {
    fprintf(stderr, "simtarget-replay: %s: --gdb and --valgrind run the "
                    "device process on this machine's debugger; this "
                    "recording's device is %s (run under qemu)\n",
            dir, m.machine);
    return 2;
  }
  set_environment(&m, opt);
  set_stack_limit(&m);
  set_cpus(&m, dir);
  if (opt->gdb && gdb_wrapper(&m, dir, gdb_script_path) != 0)
    return 2;
  struct plugin p = {0};
  size_t size_before = 0, size_after = 0;
  unsigned char *before = read_file(dir, "before.bin", &size_before);
  unsigned char *after =
      m.faulted ? NULL : read_file(dir, "after.bin", &size_after);
  if (before == NULL || (!m.faulted && after == NULL) ||
      size_before != m.bytes || (!m.faulted && size_after != m.bytes)) {
    fprintf(stderr, "simtarget-replay: %s: the memory files do not match "
                    "the manifest (%llu bytes)\n", dir,
            (unsigned long long)m.bytes);
    return 2;
  }
  static __tgt_target_table *tables[16];
  static __tgt_device_image imgs[16];
  if (open_plugin(&p, m.machine) != 0 ||
      manifest_check_version(dir, &m, p.version()) != 0 ||
      set_up_device(&p, &m, dir, imgs, tables) != 0 ||
      restore(&p, &m, tables, m.device, before, 1) != 0)
    return 2;
  const char *message = "";
  int rc = run_kernel(&p, &m, tables, before, opt, &message);
  if (rc == -2)
    return 2;
  if (judge_fault(&m, rc, message, dir) != 0)
    return 1;
  return m.faulted ? 0 : compare(&p, &m, tables, m.device, after, dir,
                                 opt->quiet);
}

int replay_launch(const char *dir, const struct options *opt) {
  char gdb_script_path[PATH_MAX] = "";
  int rc = launch(dir, opt, gdb_script_path);
  if (gdb_script_path[0] != '\0') /* gdb read it when the device started */
    unlink(gdb_script_path);
  return rc;
}
