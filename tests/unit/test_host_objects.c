/*
 * test_host_objects.c - naming the host object behind an address a kernel
 * used (src/host_objects.c) and reading a symbol's bytes from an ELF image
 * (src/hostsyms.c, the exec-mode global of the trace).
 */
#include <elf.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_objects.h"
#include "hostsyms.h"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

/* A kernel's exec-mode global as clang emits it for GPUs (2: SPMD), and one
 * in .bss, whose bytes are not in the file. */
__attribute__((used)) const unsigned char demo_kernel_exec_mode = 2;
__attribute__((used)) unsigned char bss_kernel_exec_mode;
/* Globals for host_object_describe. */
__attribute__((used)) int lookup_table[64];
struct holder {
  long n;
  void *ptr;
};

static void test_read_symbol_of_image(void **state) {
  (void)state;
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  assert_true(map != MAP_FAILED);
  unsigned char mode = 0;
  assert_int_equal(elf_image_read_symbol(map, (size_t)st.st_size,
                                         "demo_kernel_exec_mode", &mode, 1),
                   0);
  assert_int_equal(mode, 2);
  assert_int_equal(elf_image_read_symbol(map, (size_t)st.st_size,
                                         "bss_kernel_exec_mode", &mode, 1),
                   -1);
  assert_int_equal(elf_image_read_symbol(map, (size_t)st.st_size,
                                         "no_such_exec_mode", &mode, 1),
                   -1);
  /* a truncated image: no symbols, no crash */
  assert_int_equal(elf_image_read_symbol(map, 64, "demo_kernel_exec_mode",
                                         &mode, 1),
                   -1);
  munmap(map, (size_t)st.st_size);
}

static void test_global_symbol(void **state) {
  (void)state;
  char name[64];
  uintptr_t start = 0;
  size_t size = 0;
  assert_true(host_symbol_containing(&lookup_table[3], false, name,
                                     sizeof name, &start, &size));
  assert_string_equal(name, "lookup_table");
  assert_int_equal(start, (uintptr_t)lookup_table);
  assert_int_equal(size, sizeof lookup_table);
  /* the global, and the argument whose host data held the pointer */
  struct holder h = {64, lookup_table};
  void *base[] = {&h}, *begin[] = {&h};
  int64_t sizes[] = {sizeof h}, types[] = {0x23};
  struct map_args a = {1, base, begin, sizes, types, NULL, NULL};
  char text[1024];
  assert_true(host_object_describe((uintptr_t)&lookup_table[5], &a, text,
                                   sizeof text));
  assert_non_null(strstr(text, "the global `lookup_table` (offset 20 of its "
                               "256 bytes)"));
  assert_non_null(strstr(text, "argument 0"));
  assert_non_null(strstr(text, "at offset 8"));
}

/* A local of a frame below the caller's: named by its function. */
__attribute__((noinline)) static void describe_own_local(char *text,
                                                         size_t len) {
  volatile int local[8] = {0};
  void *base[] = {(void *)&local[0]}, *begin[] = {(void *)&local[0]};
  int64_t sizes[] = {8}, types[] = {0x120}; /* passed by value */
  struct map_args a = {1, base, begin, sizes, types, NULL, NULL};
  assert_true(host_object_describe((uintptr_t)&local[2], &a, text, len));
}

static void test_stack_frame(void **state) {
  (void)state;
  char text[1024];
  describe_own_local(text, sizeof text);
  assert_non_null(strstr(text, "the stack frame of `describe_own_local`"));
  assert_non_null(strstr(text, "argument 0 `unknown`, passed by value"));
}

static void test_heap_and_nothing(void **state) {
  (void)state;
  char text[1024];
  char *block = malloc(64);
  assert_non_null(block);
  int named = host_object_describe((uintptr_t)block + 8, NULL, text,
                                   sizeof text);
  free(block);
  /* Valgrind's malloc takes its blocks from mmap'ed memory, not from the
   * [heap] line of /proc/self/maps: there is nothing to call heap. */
  if (!RUNNING_ON_VALGRIND) {
    assert_true(named);
    assert_non_null(strstr(text, "host heap memory"));
  }
  /* an address no host memory holds: nothing to say */
  assert_false(host_object_describe(16, NULL, text, sizeof text));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_read_symbol_of_image),
      cmocka_unit_test(test_global_symbol),
      cmocka_unit_test(test_stack_frame),
      cmocka_unit_test(test_heap_and_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
