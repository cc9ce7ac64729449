/*
 * credentials_watch.c - counts the program's calls that change its user
 * and group ids, groups or capabilities, so that the simdevice plugin,
 * which gives every device process the program's credentials at each
 * launch, need not read them with four system calls per launch (about 1 us
 * on the CI machine, as root: 40% of an empty launch; issue 29).
 *
 * How: libomptarget.so comes before libc.so.6 in the program's symbol
 * search order (clang links -lomptarget before -lc), so it defines glibc's
 * setuid, setgid, seteuid, setegid, setreuid, setregid, setresuid,
 * setresgid, setgroups, initgroups, capset and syscall (which libcap's
 * capset and programs' raw calls go through) under glibc's own base
 * version, as a hidden version: the dynamic linker binds the program's
 * references (setuid@GLIBC_2.2.5, recorded against libc at link time) to
 * these, but the static linker never binds a new program to them, so a
 * program linked against simtarget still runs on LLVM's libomptarget. Each
 * calls glibc's function and then counts: the caller's next launch, which
 * comes after its call returned, sees the new count.
 *
 * simtarget_credentials_watched is 1 only when the program's lookups of
 * every one of them reach this file (checked once, in the constructor):
 * not when libomptarget was dlopened with RTLD_LOCAL or linked after libc.
 * The plugin then reads the credentials at every launch, as before.
 * Changes no wrapper sees (inline system calls, unshare of a user
 * namespace) are found by the plugin's full read at least every 10 ms
 * (simdevice/plugin/inherit.c).
 *
 * The plugin finds the two variables by name (dlsym): it reads them and
 * calls nothing here.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define GLIBC_BASE_VERSION "GLIBC_2.2.5"
#elif defined(__powerpc64__) || defined(__aarch64__)
#define GLIBC_BASE_VERSION "GLIBC_2.17"
#endif

/* Exported (exports.map); read by the simdevice plugin. */
_Atomic uint64_t simtarget_credentials_generation;
_Atomic int simtarget_credentials_watched;

#ifdef GLIBC_BASE_VERSION

static void count_change(void) {
  atomic_fetch_add_explicit(&simtarget_credentials_generation, 1,
                            memory_order_release);
}

/* glibc's definition of `name`, kept in *slot: looked up by the
 * constructor, or at a first call that comes before it. NULL (said on
 * stderr) only if libc lacks it. */
static void *glibc_function(void *_Atomic *slot, const char *name) {
  void *f = atomic_load_explicit(slot, memory_order_relaxed);
  if (f != NULL)
    return f;
  f = dlvsym(RTLD_NEXT, name, GLIBC_BASE_VERSION);
  if (f == NULL)
    fprintf(stderr, "libomptarget: %s@%s not found after libomptarget.so: "
            "%s fails with ENOSYS\n", name, GLIBC_BASE_VERSION, name);
  atomic_store_explicit(slot, f, memory_order_relaxed);
  return f;
}

/* One wrapper: glibc's function, then the count. errno is glibc's. */
#define WATCHED(ret, name, params, args)                                       \
  static void *_Atomic glibc_##name;                                           \
  __asm__(".symver watched_" #name "," #name "@" GLIBC_BASE_VERSION);          \
  ret watched_##name params;                                                   \
  ret watched_##name params {                                                  \
    ret(*f) params = (ret(*) params)glibc_function(&glibc_##name, #name);      \
    if (f == NULL) {                                                           \
      errno = ENOSYS;                                                          \
      return -1;                                                               \
    }                                                                          \
    ret rc = f args;                                                           \
    count_change();                                                            \
    return rc;                                                                 \
  }

/* Every wrapper but syscall's, once: the definitions below and the
 * constructor's table come from this list. */
#define WATCHED_FUNCTIONS(X)                                                   \
  X(int, setuid, (uid_t u), (u))                                               \
  X(int, setgid, (gid_t g), (g))                                               \
  X(int, seteuid, (uid_t u), (u))                                              \
  X(int, setegid, (gid_t g), (g))                                              \
  X(int, setreuid, (uid_t r, uid_t e), (r, e))                                 \
  X(int, setregid, (gid_t r, gid_t e), (r, e))                                 \
  X(int, setresuid, (uid_t r, uid_t e, uid_t s), (r, e, s))                    \
  X(int, setresgid, (gid_t r, gid_t e, gid_t s), (r, e, s))                    \
  X(int, setgroups, (size_t n, const gid_t *list), (n, list))                  \
  X(int, initgroups, (const char *user, gid_t g), (user, g))                   \
  X(int, capset, (void *header, void *data), (header, data))

WATCHED_FUNCTIONS(WATCHED)

static void *_Atomic glibc_syscall;

/* The system calls that change what the plugin compares (and unshare and
 * setns, which can enter another user namespace). */
static int changes_credentials(long number) {
  switch (number) {
  case SYS_setuid: case SYS_setgid: case SYS_setreuid: case SYS_setregid:
  case SYS_setresuid: case SYS_setresgid: case SYS_setgroups:
  case SYS_capset: case SYS_unshare: case SYS_setns:
    return 1;
  default:
    return 0;
  }
}

/* syscall(2) takes up to six long arguments: passed on as they came, as
 * glibc's own syscall reads them. */
__asm__(".symver watched_syscall,syscall@" GLIBC_BASE_VERSION);
long watched_syscall(long number, ...);
long watched_syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (int i = 0; i < 6; i++)
    a[i] = va_arg(ap, long);
  va_end(ap);
  long (*f)(long, ...) =
      (long (*)(long, ...))glibc_function(&glibc_syscall, "syscall");
  if (f == NULL) {
    errno = ENOSYS;
    return -1;
  }
  long rc = f(number, a[0], a[1], a[2], a[3], a[4], a[5]);
  if (changes_credentials(number))
    count_change();
  return rc;
}

__attribute__((constructor)) static void credentials_watch_start(void) {
#define ROW(ret, name, params, args) {#name, (void *)watched_##name, &glibc_##name},
  static const struct {
    const char *name;
    void *ours;
    void *_Atomic *glibc;
  } wrappers[] = {
      WATCHED_FUNCTIONS(ROW)
      {"syscall", (void *)watched_syscall, &glibc_syscall},
  };
#undef ROW
  int all = 1;
  for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers; i++) {
    /* now, not at a first call that may be in a signal handler */
    all &= glibc_function(wrappers[i].glibc, wrappers[i].name) != NULL;
    /* the program's lookup reaches this file, not libc */
    all &= dlvsym(RTLD_DEFAULT, wrappers[i].name, GLIBC_BASE_VERSION) ==
           wrappers[i].ours;
  }
  /* A watched count is never 0, which the plugin takes as "not watched". */
  if (all)
    count_change();
  atomic_store(&simtarget_credentials_watched, all);
}

#endif /* GLIBC_BASE_VERSION */
