/*
 * test_runtime_tls.c - the device runtime's thread-local data lands in
 * glibc's static TLS when the device process dlopens it (server/main.c), so
 * that every read of the current team member is an offset and not a call
 * to _dl_tlsdesc_dynamic (issue 29; runtime.c keeps its thread-local data
 * to pointers for this). glibc places a dlopened module there only while
 * its TLS fits the optional static TLS left (512 bytes by default).
 *
 * The sign: dl_iterate_phdr's dlpi_tls_data is the calling thread's block
 * of the module, and NULL in a thread that has not touched a dynamic one
 * yet; a static block exists in every thread from its start. x86-64 only:
 * the runtime uses TLS descriptors there (Makefile), and a descriptor is
 * what lets glibc give a dlopened module static TLS.
 */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

struct found {
  int seen;
  void *tls_data;
};

static int find_runtime(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  struct found *f = arg;
  const char *slash = strrchr(info->dlpi_name, '/');
  if (slash == NULL || strcmp(slash + 1, "libomp.so.5") != 0)
    return 0;
  f->seen = 1;
  f->tls_data = info->dlpi_tls_data;
  return 1;
}

static void *look_from_new_thread(void *arg)
{
  dl_iterate_phdr(find_runtime, arg);
  return NULL;
}

static void test_runtime_tls_is_static_after_dlopen(void **state)
{
  (void)state;
#ifndef __x86_64__
  skip();
#endif
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 64);
  assert_true(n > 0);
  path[n] = '\0';
  *strrchr(path, '/') = '\0';
  strcat(path, "/../../lib/simdevice/libomp.so.5");
  void *rt = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (rt == NULL)
    fail_msg("dlopen %s: %s", path, dlerror());
  struct found f = {0, NULL};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, look_from_new_thread, &f), 0);
  assert_int_equal(pthread_join(t, NULL), 0);
  assert_true(f.seen);
  if (f.tls_data == NULL)
    fail_msg("the device runtime's TLS is dynamic after dlopen: keep its thread-local "
             "data small (readelf -lW %s, PT_TLS)",
             path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runtime_tls_is_static_after_dlopen),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
