/*
 * record.c - SIMTARGET_RECORD=DIR: writes chosen kernel launches to disk so
 * that simtarget-replay (tools/simtarget-replay/) can run them again in a
 * fresh device process, without the program.
 *
 * A launch is chosen by SIMTARGET_RECORD_FILTER: unset, every launch; `#N`,
 * the N-th launch of the program (1-based, on any device); `failed`, every
 * launch, kept only when it fails; otherwise a kernel whose entry name
 * contains the text. Each chosen launch becomes
 * DIR/launch-N/ (launch-N.PID when launch-N exists: a forked child's, an
 * earlier run's) with
 *   manifest.txt  what was recorded: format, simtarget version, program,
 *                 compiler (the image's .comment), the device's machine,
 *                 memory layout (base, size, guard pages, the host's page
 *                 size, which places blocks) and stack limit, the settings
 *                 and CPUs that decide a launch's geometry, the images and
 *                 their entries, the kernel, its geometry and arguments,
 *                 every live device allocation
 *                 (`block ADDR SIZE`) and declare-target global (`global
 *                 NAME ADDR SIZE`), and the outcome (`outcome ok` or
 *                 `outcome fault MESSAGE`);
 *   image-I.so    the ELF of each image loaded on the device;
 *   before.bin    the blocks then the globals, in manifest order, before;
 *   after.bin     the same after the launch (not written after a fault).
 * A recording that fails says why on stderr and leaves the launch alone.
 *
 * Locking: the launch counter is atomic; the settings are read once; the
 * state between record_before and record_after is the thread's own (both
 * run under the device's channel_lock, on the launching thread).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin_internal.h"
#include "record_settings.h"

#ifndef SIMTARGET_VERSION
#define SIMTARGET_VERSION "unknown"
#endif

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static const char *record_dir;    /* SIMTARGET_RECORD, NULL: off */
static const char *record_filter; /* SIMTARGET_RECORD_FILTER */
static _Atomic unsigned long launches;

struct span {
  uint64_t addr, size;
};

/* The launch being recorded by this thread. */
static __thread struct recording {
  int active;
  char path[PATH_MAX];
  FILE *manifest;
  struct span *spans; /* blocks, then globals */
  size_t count, cap;
  uint64_t bytes;
  unsigned long number;
  const char *kernel;
  int images; /* image-I.so written */
} cur;

static void read_env(void) {
  const char *d = secure_getenv("SIMTARGET_RECORD"); /* not setuid */
  if (d != NULL && d[0] != '\0')
    record_dir = d;
  const char *f = getenv("SIMTARGET_RECORD_FILTER");
  if (f != NULL && f[0] != '\0')
    record_filter = f;
}

int record_on(void) {
  pthread_once(&env_once, read_env);
  return record_dir != NULL;
}

int record_wanted(const char *kernel) {
  if (!record_on())
    return 0;
  unsigned long n = atomic_fetch_add(&launches, 1) + 1;
  cur.number = n;
  if (record_filter == NULL)
    return 1;
  if (strcmp(record_filter, "failed") == 0) /* decided in record_after */
    return 1;
  if (record_filter[0] == '#')
    return strtoul(record_filter + 1, NULL, 10) == n;
  return strstr(kernel, record_filter) != NULL;
}

static int add_span(uint64_t addr, uint64_t size) {
  if (cur.count == cur.cap) {
    size_t cap = cur.cap ? cur.cap * 2 : 64;
    struct span *grown = realloc(cur.spans, cap * sizeof *grown);
    if (grown == NULL)
      return -1;
    cur.spans = grown;
    cur.cap = cap;
  }
  cur.spans[cur.count++] = (struct span){addr, size};
  return 0;
}

/* The first string of the ELF's .comment section ("clang version ..."),
 * or "unknown". */
static void elf_comment(const unsigned char *elf, size_t size, char *out,
                        size_t len) {
  snprintf(out, len, "unknown");
  if (size < 64)
    return;
  uint64_t shoff;
  uint16_t shentsize, shnum, shstrndx;
  memcpy(&shoff, elf + 40, 8);
  memcpy(&shentsize, elf + 58, 2);
  memcpy(&shnum, elf + 60, 2);
  memcpy(&shstrndx, elf + 62, 2);
  if (shentsize < 64 || shstrndx >= shnum ||
      shoff + (uint64_t)shnum * shentsize > size)
    return;
  const unsigned char *strtab_sh = elf + shoff + (uint64_t)shstrndx * shentsize;
  uint64_t str_off;
  memcpy(&str_off, strtab_sh + 24, 8);
  for (uint16_t i = 0; i < shnum; i++) {
    const unsigned char *sh = elf + shoff + (uint64_t)i * shentsize;
    uint32_t name;
    uint64_t off, sz;
    memcpy(&name, sh, 4);
    memcpy(&off, sh + 24, 8);
    memcpy(&sz, sh + 32, 8);
    if (str_off + name + 9 > size || off + sz > size || sz == 0 ||
        memcmp(elf + str_off + name, ".comment", 9) != 0)
      continue;
    /* NUL-separated strings: the compiler's own, else the first. */
    const char *s = (const char *)elf + off, *end = s + sz, *pick = NULL;
    for (const char *t = s; t < end; t += strnlen(t, (size_t)(end - t)) + 1) {
      size_t n = strnlen(t, (size_t)(end - t));
      if (n > 0 && pick == NULL)
        pick = t;
      if (memmem(t, n, "clang", 5) != NULL) {
        pick = t;
        break;
      }
    }
    if (pick != NULL)
      snprintf(out, len, "%.*s", (int)strnlen(pick, (size_t)(end - pick)),
               pick);
    for (char *p = out; *p != '\0'; p++)
      if (*p == '\n')
        *p = ' ';
    return;
  }
}

struct image_walk {
  int index;
  FILE *manifest;
};

/* images_each's callback: image-I.so and its manifest lines. */
static int write_image(void *ctx, const void *elf, size_t size,
                       const __tgt_offload_entry *entries, uint64_t count) {
  struct image_walk *w = ctx;
  char file[PATH_MAX + 32], compiler[256];
  snprintf(file, sizeof file, "%s/image-%d.so", cur.path, w->index);
  FILE *f = fopen(file, "we");
  int ok = f != NULL && fwrite(elf, 1, size, f) == size;
  if (f != NULL && fclose(f) != 0)
    ok = 0;
  if (!ok)
    return -1;
  cur.bytes += size;
  elf_comment(elf, size, compiler, sizeof compiler);
  fprintf(w->manifest, "compiler %s\nimage %d image-%d.so %llu\n", compiler,
          w->index, w->index, (unsigned long long)count);
  for (uint64_t i = 0; i < count; i++)
    fprintf(w->manifest, "entry %d %llu 0x%llx %s\n", (int)entries[i].flags,
            (unsigned long long)entries[i].size,
            (unsigned long long)(uintptr_t)entries[i].addr,
            entries[i].name && entries[i].name[0] ? entries[i].name : "-");
  w->index++;
  cur.images = w->index;
  return 0;
}

/* images_each's callback: the globals as spans, named in the manifest. */
static int list_globals(void *ctx, const void *elf, size_t size,
                        const __tgt_offload_entry *entries, uint64_t count) {
  (void)elf;
  (void)size;
  FILE *m = ctx;
  for (uint64_t i = 0; i < count; i++) {
    const __tgt_offload_entry *e = &entries[i];
    if (e->size == 0 || e->addr == NULL || e->name == NULL)
      continue;
    if (add_span((uint64_t)(uintptr_t)e->addr, e->size) != 0)
      return -1;
    fprintf(m, "global %s 0x%llx %llu\n", e->name,
            (unsigned long long)(uintptr_t)e->addr,
            (unsigned long long)e->size);
  }
  return 0;
}

struct block_walk {
  struct sim_device *dev;
  FILE *manifest;
};

static int list_block(void *ctx, uint64_t offset, uint64_t size) {
  struct block_walk *w = ctx;
  fprintf(w->manifest, "block 0x%llx %llu\n",
          (unsigned long long)(w->dev->dev_base + offset),
          (unsigned long long)size);
  return add_span(w->dev->dev_base + offset, size);
}

/* Writes a global's bytes, read from the device process. */
static int write_global(struct sim_device *dev, const struct span *g,
                        FILE *out) {
  struct simdev_slot *s = &dev->ctl->slot;
  for (uint64_t done = 0; done < g->size;) {
    uint64_t n = g->size - done;
    if (n > SIMDEV_BOUNCE_SIZE)
      n = SIMDEV_BOUNCE_SIZE;
    s->a[0] = g->addr + done;
    s->a[1] = n;
    if (channel_send(dev, SIMDEV_CMD_READ, NULL) != 0)
      return -1;
    DEVICE_BYTES_DEFINED(dev->bounce, n);
    if (fwrite(dev->bounce, 1, n, out) != n)
      return -1;
    done += n;
  }
  return 0;
}

/* before.bin or after.bin: every span's bytes. */
static int write_memory(struct sim_device *dev, const char *name) {
  char file[PATH_MAX + 32];
  snprintf(file, sizeof file, "%s/%s", cur.path, name);
  FILE *f = fopen(file, "we");
  if (f == NULL)
    return -1;
  int rc = 0;
  for (size_t i = 0; i < cur.count && rc == 0; i++) {
    const struct span *sp = &cur.spans[i];
    if (sp->addr >= dev->dev_base && sp->addr < dev->dev_base + dev->capacity) {
      const unsigned char *view = dev->host_view + (sp->addr - dev->dev_base);
      DEVICE_BYTES_DEFINED(view, sp->size);
      rc = fwrite(view, 1, sp->size, f) == sp->size ? 0 : -1;
    } else {
      rc = write_global(dev, sp, f);
    }
    cur.bytes += sp->size;
  }
  if (fclose(f) != 0)
    rc = -1;
  return rc;
}

static void drop(const char *why) {
  fprintf(stderr,
          "simtarget: SIMTARGET_RECORD: launch %lu of kernel `%s` not "
          "recorded in %s: %s\n",
          cur.number, cur.kernel, cur.path, why);
  if (cur.manifest != NULL)
    fclose(cur.manifest);
  free(cur.spans);
  memset(&cur, 0, sizeof cur);
}

/* The device process's environment as it started (/proc/PID/environ:
 * NUL-separated), or NULL (then the program's own is used). */
static char *device_environment(pid_t pid, size_t *len) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
  FILE *f = pid > 0 ? fopen(path, "re") : NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0;
  while (f != NULL) {
    if (n == cap) {
      char *grown = realloc(buf, cap = cap ? 2 * cap : 16384);
      if (grown == NULL)
        break;
      buf = grown;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) {
      fclose(f);
      *len = n;
      return buf;
    }
  }
  if (f != NULL)
    fclose(f);
  free(buf);
  return NULL;
}

/* NAME's value in a NUL-separated environment, or NULL. */
static const char *env_lookup(const char *env, size_t len, const char *name) {
  size_t k = strlen(name);
  for (const char *e = env, *end = env + len; e < end;) {
    size_t n = strnlen(e, (size_t)(end - e));
    if (n > k && e + n < end && strncmp(e, name, k) == 0 && e[k] == '=')
      return e + k + 1;
    e += n + 1;
  }
  return NULL;
}

/* What decides a launch's geometry besides its clauses (the device
 * runtime's caps_init): the settings the device process started with (a
 * program's later setenv reaches it only at a restart), and its CPUs. */
static void write_geometry_settings(const struct sim_device *dev, FILE *m) {
  size_t len = 0;
  char *env = device_environment(dev->pid, &len);
  for (size_t i = 0; i < RECORD_SETTINGS_COUNT; i++) {
    const char *v = env != NULL ? env_lookup(env, len, record_settings[i])
                                : getenv(record_settings[i]);
    if (v != NULL && v[0] != '\0' && strcspn(v, " \n") == strlen(v))
      fprintf(m, "env %s %.100s\n", record_settings[i], v);
  }
  free(env);
  cpu_set_t cpus;
  if (sched_getaffinity(dev->pid, sizeof cpus, &cpus) == 0 ||
      sched_getaffinity(0, sizeof cpus, &cpus) == 0)
    fprintf(m, "cpus %d\n", CPU_COUNT(&cpus));
}

static void write_header(struct sim_device *dev, FILE *m, void **tgt_args,
                         ptrdiff_t *tgt_offsets, int32_t arg_num,
                         int32_t num_teams, int32_t thread_limit) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  fprintf(m,
          "format simtarget-record 1\nsimtarget_version %s\nprogram %s\n"
          "machine %s\nlaunch %lu\ndevice %d\ndevice_base 0x%llx\n"
          "device_memory %llu\nguard %d\npage_size %llu\n",
          SIMTARGET_VERSION, exe, DEVICE_MACHINE_NAME, cur.number, dev->id,
          (unsigned long long)dev->dev_base,
          (unsigned long long)dev->capacity, dev->alloc.guard,
          (unsigned long long)PAGE_BYTES);
  /* The device process's stack limit (it started with the program's)
   * places its mmap area, so its images: replay runs with the same. */
  struct rlimit stack;
  if ((dev->pid > 0 && prlimit(dev->pid, RLIMIT_STACK, NULL, &stack) == 0) ||
      getrlimit(RLIMIT_STACK, &stack) == 0) {
    if (stack.rlim_cur == RLIM_INFINITY)
      fprintf(m, "stack_limit unlimited\n");
    else
      fprintf(m, "stack_limit %llu\n", (unsigned long long)stack.rlim_cur);
  }
  write_geometry_settings(dev, m);
  fprintf(m, "kernel %s\nnum_teams %d\nthread_limit %d\nargs %d\n",
          cur.kernel, num_teams, thread_limit, arg_num);
  for (int32_t i = 0; i < arg_num; i++)
    fprintf(m, "arg 0x%llx\n",
            (unsigned long long)(uintptr_t)((char *)tgt_args[i] +
                                            tgt_offsets[i]));
}

static void write_before(struct sim_device *dev, const char *kernel,
                         void **tgt_args, ptrdiff_t *tgt_offsets,
                         int32_t arg_num, int32_t num_teams,
                         int32_t thread_limit) {
  unsigned long number = cur.number;
  memset(&cur, 0, sizeof cur);
  cur.number = number;
  cur.kernel = kernel;
  snprintf(cur.path, sizeof cur.path, "%s/launch-%lu", record_dir, number);
  int made = mkdir(record_dir, 0777) == 0 || errno == EEXIST;
  if (made && mkdir(cur.path, 0777) != 0 && errno == EEXIST) {
    /* another process (a fork, an earlier run) has launch-N: keep it */
    snprintf(cur.path, sizeof cur.path, "%s/launch-%lu.%d", record_dir,
             number, (int)getpid());
    made = mkdir(cur.path, 0777) == 0;
  } else if (made) {
    made = access(cur.path, W_OK) == 0;
  }
  if (!made) {
    drop(strerror(errno));
    return;
  }
  char file[PATH_MAX + 32];
  snprintf(file, sizeof file, "%s/manifest.txt", cur.path);
  cur.manifest = fopen(file, "we");
  if (cur.manifest == NULL) {
    drop(strerror(errno));
    return;
  }
  write_header(dev, cur.manifest, tgt_args, tgt_offsets, arg_num, num_teams,
               thread_limit);
  struct image_walk iw = {0, cur.manifest};
  struct block_walk bw = {dev, cur.manifest};
  if (images_each(dev, write_image, &iw) != 0 ||
      allocator_each_live(&dev->alloc, list_block, &bw) != 0 ||
      images_each(dev, list_globals, cur.manifest) != 0 ||
      write_memory(dev, "before.bin") != 0) {
    drop("writing the images or the device memory failed");
    return;
  }
  cur.active = 1;
}

/* SIMTARGET_RECORD_FILTER=failed and the launch succeeded: its files go. */
static void forget_launch(void) {
  static const char *const names[] = {"manifest.txt", "before.bin"};
  char file[PATH_MAX + 32];
  fclose(cur.manifest);
  for (int i = 0; i < 2 + cur.images; i++) {
    if (i < 2)
      snprintf(file, sizeof file, "%s/%s", cur.path, names[i]);
    else
      snprintf(file, sizeof file, "%s/image-%d.so", cur.path, i - 2);
    unlink(file);
  }
  rmdir(cur.path);
  free(cur.spans);
  memset(&cur, 0, sizeof cur);
}

static void write_after(struct sim_device *dev, int rc) {
  if (!cur.active)
    return;
  if (rc == 0 && strcmp(record_filter ? record_filter : "", "failed") == 0) {
    forget_launch();
    return;
  }
  if (rc == 0) {
    if (write_memory(dev, "after.bin") != 0) {
      drop("writing the device memory after the launch failed");
      return;
    }
    fprintf(cur.manifest, "outcome ok\n");
  } else {
    __tgt_rtl_error err;
    plugin_error_peek(&err);
    for (char *p = err.message; *p != '\0'; p++)
      if (*p == '\n')
        *p = ' ';
    fprintf(cur.manifest, "outcome fault %s\n", err.message);
  }
  if (fclose(cur.manifest) != 0) {
    cur.manifest = NULL;
    drop("writing the manifest failed");
    return;
  }
  fprintf(stderr,
          "simtarget: recorded launch %lu of kernel `%s` in %s (%llu bytes)\n",
          cur.number, cur.kernel, cur.path, (unsigned long long)cur.bytes);
  free(cur.spans);
  memset(&cur, 0, sizeof cur);
}

/* Other host threads copy into device memory without channel_lock: from
 * the snapshot before the launch to the one after it they wait, or a block
 * they filled meanwhile would differ on replay. */
void record_before(struct sim_device *dev, const char *kernel,
                   void **tgt_args, ptrdiff_t *tgt_offsets, int32_t arg_num,
                   int32_t num_teams, int32_t thread_limit) {
  pthread_rwlock_wrlock(&dev->record_gate);
  write_before(dev, kernel, tgt_args, tgt_offsets, arg_num, num_teams,
               thread_limit);
}

void record_after(struct sim_device *dev, int rc) {
  write_after(dev, rc);
  pthread_rwlock_unlock(&dev->record_gate);
}

int record_write_begin(struct sim_device *dev) {
  return record_on() && pthread_rwlock_rdlock(&dev->record_gate) == 0;
}

void record_write_end(struct sim_device *dev, int held) {
  if (held)
    pthread_rwlock_unlock(&dev->record_gate);
}

const char *record_version(void) { return SIMTARGET_VERSION; }

void record_unable(const char *kernel, enum record_unable_why why) {
  static const char *const reasons[] = {
      [RECORD_UNABLE_IN_HOST] =
          "the program requires unified_shared_memory, so its kernels run "
          "in the host process, on host memory, which is not recorded",
      [RECORD_UNABLE_POINTERS] =
          "its kernel takes its arguments through one void ** (clang 23 "
          "and later), which simtarget-replay does not call"};
  static _Atomic int said[2];
  if (!record_wanted(kernel) || atomic_exchange(&said[why], 1))
    return;
  fprintf(stderr,
          "simtarget: SIMTARGET_RECORD: launch %lu of kernel `%s` not "
          "recorded, nor any later one like it: %s\n",
          cur.number, kernel, reasons[why]);
}

int record_alloc_at(struct sim_device *dev, uint64_t addr, uint64_t size) {
  if (addr < dev->dev_base || addr - dev->dev_base >= dev->capacity) {
    plugin_error("simdevice: device %d: 0x%llx is outside its memory "
                 "[0x%llx, 0x%llx): the recording was made with another "
                 "device memory layout",
                 dev->id, (unsigned long long)addr,
                 (unsigned long long)dev->dev_base,
                 (unsigned long long)(dev->dev_base + dev->capacity));
    return -1;
  }
  return allocator_alloc_at(&dev->alloc, addr - dev->dev_base, size);
}
