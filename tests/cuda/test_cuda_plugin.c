/*
 * test_cuda_plugin.c - the CUDA plugin's own logic, against the driver TEST
 * DOUBLE (libcuda_testdouble.so, found through SIMTARGET_CUDA_DRIVER): device
 * discovery, image validation, module load and entry lookup, memory,
 * transfers, launch shape and arguments, the device runtime's environment,
 * and driver errors carried through with the driver's own words.
 * No GPU is involved; tests/cuda/testdouble.h says what the double does.
 */
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "omptarget_plugin.h"
#include "testdouble.h"

static char test_dir[PATH_MAX];
static char double_path[PATH_MAX + 64];
static char kernels_path[PATH_MAX + 64];

/* ---------------------------------------------------------------- helpers */

static void find_paths(void) {
  ssize_t n = readlink("/proc/self/exe", test_dir, sizeof test_dir - 1);
  assert_true(n > 0);
  test_dir[n] = '\0';
  *strrchr(test_dir, '/') = '\0';
  snprintf(double_path, sizeof double_path, "%s/libcuda_testdouble.so",
           test_dir);
  snprintf(kernels_path, sizeof kernels_path, "%s/libtestdouble_kernels.so",
           test_dir);
}

static void last_error(char *buf, size_t len) {
  __tgt_rtl_error err;
  memset(&err, 0, sizeof err);
  assert_int_equal(__tgt_rtl_get_last_error(0, &err), 0);
  snprintf(buf, len, "%s", err.message);
}

#define assert_error_contains(...)                                             \
  do {                                                                         \
    char msg_[600];                                                            \
    last_error(msg_, sizeof msg_);                                             \
    const char *want_[] = {__VA_ARGS__};                                       \
    for (size_t i_ = 0; i_ < sizeof want_ / sizeof want_[0]; i_++)             \
      if (!strstr(msg_, want_[i_]))                                            \
        fail_msg("error \"%s\" lacks \"%s\"", msg_, want_[i_]);                \
  } while (0)

static int start_plugin(void) {
  setenv("SIMTARGET_CUDA_DRIVER", double_path, 1);
  unsetenv("CUDA_TESTDOUBLE_DEVICES");
  unsetenv("CUDA_TESTDOUBLE_FAIL");
  return __tgt_rtl_init_plugin() == 0 ? 0 : -1;
}

static int setup(void **state) {
  (void)state;
  return start_plugin();
}

static int teardown(void **state) {
  (void)state;
  unsetenv("CUDA_TESTDOUBLE_FAIL");
  return __tgt_rtl_deinit_plugin() == 0 ? 0 : -1;
}

static void restart_plugin(void) {
  assert_int_equal(__tgt_rtl_deinit_plugin(), 0);
  assert_int_equal(__tgt_rtl_init_plugin(), 0);
}

/* The double's own test functions, from the copy the plugin loaded. */
static void *double_symbol(const char *name) {
  void *h = dlopen(double_path, RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(h);
  void *sym = dlsym(h, name);
  dlclose(h);
  assert_non_null(sym);
  return sym;
}

static struct testdouble_launch last_launch(void) {
  struct testdouble_launch l;
  testdouble_last_launch_fn fn =
      (testdouble_last_launch_fn)double_symbol("testdouble_last_launch");
  fn(&l);
  return l;
}

static long live_allocations(void) {
  return ((testdouble_live_allocations_fn)double_symbol(
      "testdouble_live_allocations"))();
}

/* A fake cubin: an ELF64 header with e_machine EM_CUDA, then the marker
 * naming the host module. */
struct fake_image {
  unsigned char bytes[1024];
  size_t size;
  __tgt_device_image image;
};

static void make_cubin(struct fake_image *f, unsigned machine, int elf_class) {
  memset(f, 0, sizeof *f);
  Elf64_Ehdr eh;
  memset(&eh, 0, sizeof eh);
  memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = (unsigned char)elf_class;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;
  eh.e_machine = (Elf64_Half)machine;
  eh.e_version = EV_CURRENT;
  memcpy(f->bytes, &eh, sizeof eh);
  int n = snprintf((char *)f->bytes + sizeof eh, sizeof f->bytes - sizeof eh,
                   TESTDOUBLE_MODULE_MARKER "%s", kernels_path);
  f->size = sizeof eh + (size_t)n + 1;
  f->image.ImageStart = f->bytes;
  f->image.ImageEnd = f->bytes + f->size;
}

static void make_ptx(struct fake_image *f, const char *extra) {
  memset(f, 'X', sizeof f->bytes);
  int n = snprintf((char *)f->bytes, sizeof f->bytes,
                   "//\n// Generated for the test double\n//\n\n"
                   ".version 8.0\n.target sm_80\n.address_size 64\n"
                   "%s// " TESTDOUBLE_MODULE_MARKER "%s",
                   extra, kernels_path);
  /* No NUL at the end, and garbage after it: the plugin must pass the
   * driver a NUL-terminated copy, or the module path reads "...soXXX". */
  f->bytes[n] = 'X';
  f->bytes[sizeof f->bytes - 1] = '\0';
  f->size = (size_t)n;
  f->image.ImageStart = f->bytes;
  f->image.ImageEnd = f->bytes + f->size;
}

static void put_u64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof v); }

/* An OffloadBinary container around `payload`, with the given triple. */
static void make_container(struct fake_image *f, const struct fake_image *in,
                           const char *triple) {
  memset(f, 0, sizeof *f);
  unsigned char *b = f->bytes;
  const size_t entry = 0x20, strings = 0x60, text = 0x80, payload = 0x100;
  memcpy(b, "\x10\xff\x10\xad", 4);
  b[0x04] = 1; /* version */
  put_u64(b + 0x08, payload + in->size);
  put_u64(b + 0x10, entry);
  put_u64(b + 0x18, 0x40);
  b[entry] = in->bytes[0] == 0x7f ? 3 : 5; /* IMG_Cubin or IMG_PTX */
  b[entry + 0x02] = 1;                     /* OFK_OpenMP */
  put_u64(b + entry + 0x08, strings);
  put_u64(b + entry + 0x10, 2);
  put_u64(b + entry + 0x18, payload);
  put_u64(b + entry + 0x20, in->size);
  put_u64(b + strings, text);
  put_u64(b + strings + 8, text + 7);
  put_u64(b + strings + 16, text + 7 + 32);
  put_u64(b + strings + 24, text + 7 + 32 + 5);
  memcpy(b + text, "triple", 7);
  snprintf((char *)b + text + 7, 32, "%s", triple);
  memcpy(b + text + 7 + 32, "arch", 5);
  memcpy(b + text + 7 + 32 + 5, "sm_80", 6);
  memcpy(b + payload, in->bytes, in->size);
  f->size = payload + in->size;
  f->image.ImageStart = f->bytes;
  f->image.ImageEnd = f->bytes + f->size;
}

static char host_fn_dummy[8]; /* host addresses of entries (never called) */

static void set_entries(struct fake_image *f, __tgt_offload_entry *e,
                        size_t n) {
  f->image.EntriesBegin = e;
  f->image.EntriesEnd = e + n;
}

static void *kernels_symbol(const char *name) {
  void *h = dlopen(kernels_path, RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(h);
  void *sym = dlsym(h, name);
  dlclose(h);
  assert_non_null(sym);
  return sym;
}

/* Loads a cubin with the usual entries; returns the table. */
enum { E_ADD, E_RECORD, E_MISSING_KERNEL, E_GVAR, E_MISSING_GLOBAL,
       E_REQUIRES, E_FAULT, E_OLD, E_ENV, E_COUNT };
static __tgt_offload_entry entries[E_COUNT] = {
    [E_ADD] = {host_fn_dummy, "k_add", 0, 0, 0},
    [E_RECORD] = {host_fn_dummy + 1, "k_record", 0, 0, 0},
    [E_MISSING_KERNEL] = {host_fn_dummy + 2, "k_missing", 0, 0, 0},
    [E_GVAR] = {host_fn_dummy + 3, "gvar", 16, 0, 0},
    [E_MISSING_GLOBAL] = {host_fn_dummy + 4, "g_missing", 8, 0, 0},
    [E_REQUIRES] = {NULL, "__requires", 0, 0x10, 8},
    [E_FAULT] = {host_fn_dummy + 5, "k_fault", 0, 0, 0},
    [E_OLD] = {host_fn_dummy + 6, "k_old", 0, 0, 0},
    [E_ENV] = {host_fn_dummy + 7, "k_env", 0, 0, 0},
};

static __tgt_target_table *load_standard(int32_t dev, struct fake_image *f) {
  make_cubin(f, 190, ELFCLASS64);
  set_entries(f, entries, E_COUNT);
  assert_int_equal(__tgt_rtl_init_device(dev), 0);
  __tgt_target_table *t = __tgt_rtl_load_binary(dev, &f->image);
  assert_non_null(t);
  assert_int_equal(t->EntriesEnd - t->EntriesBegin, E_COUNT);
  return t;
}

static int32_t launch(__tgt_target_table *t, int entry, void **args,
                      ptrdiff_t *offsets, int32_t n, int32_t teams,
                      int32_t threads) {
  return __tgt_rtl_run_target_team_region(0, t->EntriesBegin[entry].addr,
                                          args, offsets, n, teams, threads, 0);
}

/* ---------------------------------------------------------------- devices */

static void test_abi_version_and_device_count(void **state) {
  (void)state;
  assert_int_equal(__tgt_rtl_abi_version(), SIMTARGET_PLUGIN_ABI_VERSION);
  assert_int_equal(__tgt_rtl_number_of_devices(), 1);
  setenv("CUDA_TESTDOUBLE_DEVICES", "3", 1);
  restart_plugin();
  assert_int_equal(__tgt_rtl_number_of_devices(), 3);
  assert_int_equal(__tgt_rtl_init_device(2), 0);
  assert_int_not_equal(__tgt_rtl_init_device(3), 0);
  assert_error_contains("device 3 does not exist", "3 devices");
}

static void test_no_driver_means_zero_devices(void **state) {
  (void)state;
  setenv("SIMTARGET_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  restart_plugin();
  assert_int_equal(__tgt_rtl_number_of_devices(), 0);
  assert_error_contains("no CUDA devices", "/nonexistent/libcuda.so.1",
                        "cannot be loaded");
  assert_int_not_equal(__tgt_rtl_init_device(0), 0);
  assert_error_contains("device 0 does not exist", "cannot be loaded");
}

static void test_cuinit_failure_is_the_reason(void **state) {
  (void)state;
  setenv("CUDA_TESTDOUBLE_FAIL", "cuInit=100", 1);
  restart_plugin();
  assert_int_equal(__tgt_rtl_number_of_devices(), 0);
  assert_error_contains("cuInit failed", "CUDA_ERROR_NO_DEVICE",
                        "test double: no CUDA-capable device here");
}

static void test_driver_without_gpus(void **state) {
  (void)state;
  setenv("CUDA_TESTDOUBLE_DEVICES", "0", 1);
  restart_plugin();
  assert_int_equal(__tgt_rtl_number_of_devices(), 0);
  assert_error_contains("sees no GPU");
}

static void test_context_failure_fails_init_device(void **state) {
  (void)state;
  setenv("CUDA_TESTDOUBLE_FAIL", "cuDevicePrimaryCtxRetain=101", 1);
  assert_int_not_equal(__tgt_rtl_init_device(0), 0);
  assert_error_contains("primary context", "CUDA_ERROR_INVALID_DEVICE",
                        "test double: invalid device ordinal");
  unsetenv("CUDA_TESTDOUBLE_FAIL");
  assert_int_equal(__tgt_rtl_init_device(0), 0);
}

/* ---------------------------------------------------------------- images */

static void test_image_validation(void **state) {
  (void)state;
  struct fake_image cubin, ptx, box, other;
  make_cubin(&cubin, 190, ELFCLASS64);
  assert_int_equal(__tgt_rtl_is_valid_binary(&cubin.image), 1);
  make_ptx(&ptx, "");
  assert_int_equal(__tgt_rtl_is_valid_binary(&ptx.image), 1);
  make_container(&box, &cubin, "nvptx64-nvidia-cuda");
  assert_int_equal(__tgt_rtl_is_valid_binary(&box.image), 1);
  make_container(&box, &ptx, "nvptx64-nvidia-cuda");
  assert_int_equal(__tgt_rtl_is_valid_binary(&box.image), 1);

  make_container(&box, &cubin, "x86_64-pc-linux-gnu");
  assert_int_equal(__tgt_rtl_is_valid_binary(&box.image), 0);
  assert_error_contains("triple x86_64-pc-linux-gnu", "not nvptx64");
  make_container(&box, &cubin, "nvptx64-nvidia-cuda");
  box.bytes[0x22] = 3; /* a HIP image, not OpenMP */
  assert_int_equal(__tgt_rtl_is_valid_binary(&box.image), 0);
  assert_error_contains("offload kind 3 (HIP), not OpenMP (1)");
  make_cubin(&other, 62, ELFCLASS64);
  assert_int_equal(__tgt_rtl_is_valid_binary(&other.image), 0);
  assert_error_contains("machine 62 (x86-64)", "EM_CUDA (190)");
  make_cubin(&other, 190, ELFCLASS32);
  assert_int_equal(__tgt_rtl_is_valid_binary(&other.image), 0);
  assert_error_contains("32-bit");

  unsigned char fatbin[16] = {0x50, 0xED, 0x55, 0xBA, 1, 0, 0x10, 0};
  __tgt_device_image fb = {fatbin, fatbin + sizeof fatbin, NULL, NULL};
  assert_int_equal(__tgt_rtl_is_valid_binary(&fb), 1);

  unsigned char junk[64];
  for (size_t i = 0; i < sizeof junk; i++)
    junk[i] = (unsigned char)(i * 37 + 1);
  __tgt_device_image j = {junk, junk + sizeof junk, NULL, NULL};
  assert_int_equal(__tgt_rtl_is_valid_binary(&j), 0);
  assert_error_contains("neither a cubin, PTX nor a fatbinary");
  /* text that merely starts like a comment is not PTX */
  const char *comment = "// just a comment\nint main() {}\n";
  __tgt_device_image c = {(void *)comment, (void *)(comment + strlen(comment)),
                          NULL, NULL};
  assert_int_equal(__tgt_rtl_is_valid_binary(&c), 0);

  __tgt_device_image empty = {junk, junk, NULL, NULL};
  assert_int_equal(__tgt_rtl_is_valid_binary(&empty), 0);
  assert_int_equal(__tgt_rtl_is_valid_binary(NULL), 0);
  assert_error_contains("no bytes");
  /* a container whose payload lies outside it */
  make_container(&box, &cubin, "nvptx64-nvidia-cuda");
  put_u64(box.bytes + 0x20 + 0x20, 1u << 20);
  assert_int_equal(__tgt_rtl_is_valid_binary(&box.image), 0);
  assert_error_contains("outside the");
  /* truncated container */
  box.image.ImageEnd = box.bytes + 0x10;
  assert_int_equal(__tgt_rtl_is_valid_binary(&box.image), 0);
  assert_error_contains("truncated");
}

static void test_load_resolves_entries(void **state) {
  (void)state;
  struct fake_image f;
  __tgt_target_table *t = load_standard(0, &f);
  const __tgt_offload_entry *e = t->EntriesBegin;
  assert_non_null(e[E_ADD].addr);
  assert_non_null(e[E_RECORD].addr);
  assert_ptr_not_equal(e[E_ADD].addr, e[E_RECORD].addr);
  assert_null(e[E_MISSING_KERNEL].addr);
  assert_ptr_equal(e[E_GVAR].addr, kernels_symbol("gvar"));
  assert_null(e[E_MISSING_GLOBAL].addr);
  assert_null(e[E_REQUIRES].addr);
  assert_string_equal(e[E_ADD].name, "k_add");
  /* the load succeeds, and the missing symbols are explained */
  assert_error_contains("no device symbol for k_missing, g_missing");
  /* the global is device memory: reachable through data_retrieve */
  int g[4] = {0};
  assert_int_equal(__tgt_rtl_data_retrieve(0, g, e[E_GVAR].addr, sizeof g), 0);
  assert_int_equal(g[0] + g[1] + g[2] + g[3], 10);
}

static void test_load_ptx_and_container(void **state) {
  (void)state;
  struct fake_image ptx, box;
  __tgt_offload_entry one[1] = {{host_fn_dummy, "k_record", 0, 0, 0}};
  assert_int_equal(__tgt_rtl_init_device(0), 0);
  make_ptx(&ptx, "");
  set_entries(&ptx, one, 1);
  __tgt_target_table *t = __tgt_rtl_load_binary(0, &ptx.image);
  assert_non_null(t);
  assert_non_null(t->EntriesBegin[0].addr);
  make_container(&box, &ptx, "nvptx64-nvidia-cuda");
  set_entries(&box, one, 1);
  t = __tgt_rtl_load_binary(0, &box.image);
  assert_non_null(t);
  assert_non_null(t->EntriesBegin[0].addr);
}

static void test_load_rejects_and_reports(void **state) {
  (void)state;
  struct fake_image f;
  assert_int_equal(__tgt_rtl_init_device(0), 0);
  make_cubin(&f, 62, ELFCLASS64);
  set_entries(&f, entries, 1);
  assert_null(__tgt_rtl_load_binary(0, &f.image));
  assert_error_contains("rejects the image", "machine 62");

  /* the driver's JIT log reaches the message */
  make_ptx(&f, "// " TESTDOUBLE_JIT_ERROR_MARKER "\n");
  set_entries(&f, entries, 1);
  assert_null(__tgt_rtl_load_binary(0, &f.image));
  assert_error_contains("PTX image", "CUDA_ERROR_INVALID_PTX",
                        "test double: PTX JIT compilation failed",
                        TESTDOUBLE_JIT_LOG);

  /* any driver failure, in its own words */
  make_cubin(&f, 190, ELFCLASS64);
  set_entries(&f, entries, E_COUNT);
  setenv("CUDA_TESTDOUBLE_FAIL", "cuModuleGetFunction=3", 1);
  assert_null(__tgt_rtl_load_binary(0, &f.image));
  assert_error_contains("looking up kernel `k_add`",
                        "CUDA_ERROR_NOT_INITIALIZED");
  unsetenv("CUDA_TESTDOUBLE_FAIL");

  /* a global whose size disagrees with the host's */
  __tgt_offload_entry bad[1] = {{host_fn_dummy, "gsmall", 12, 0, 0}};
  set_entries(&f, bad, 1);
  assert_null(__tgt_rtl_load_binary(0, &f.image));
  assert_error_contains("`gsmall` is 12 bytes on the host but 8 bytes");

  /* an entry table that is not whole entries */
  f.image.EntriesBegin = entries;
  f.image.EntriesEnd = (char *)entries + 40;
  assert_null(__tgt_rtl_load_binary(0, &f.image));
  assert_error_contains("not a whole number of 32-byte entries");
}

static void test_unload(void **state) {
  (void)state;
  struct fake_image f;
  __tgt_target_table *t = load_standard(0, &f);
  void *kernel = t->EntriesBegin[E_RECORD].addr;
  assert_int_equal(__tgt_rtl_unload_binary(0, &f.image), 0);
  uint64_t v = 0;
  void *args[4] = {&v, &v, &v, &v};
  assert_int_not_equal(
      __tgt_rtl_run_target_team_region(0, kernel, args, NULL, 4, 1, 1, 0), 0);
  assert_error_contains("is not a kernel loaded on this device");
  assert_int_not_equal(__tgt_rtl_unload_binary(0, &f.image), 0);
  assert_error_contains("is not loaded");
}

/* ---------------------------------------------------------------- memory */

static void test_alloc_transfer_free(void **state) {
  (void)state;
  assert_int_equal(__tgt_rtl_init_device(0), 0);
  long before = live_allocations();
  int host[16], back[16];
  for (int i = 0; i < 16; i++)
    host[i] = i * i;
  void *d = __tgt_rtl_data_alloc(0, sizeof host, host, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  assert_int_equal(live_allocations(), before + 1);
  assert_int_equal(__tgt_rtl_data_submit(0, d, host, sizeof host), 0);
  memset(back, 0, sizeof back);
  assert_int_equal(__tgt_rtl_data_retrieve(0, back, d, sizeof back), 0);
  assert_memory_equal(host, back, sizeof host);
  /* device to device on one device */
  void *d2 = __tgt_rtl_data_alloc(0, sizeof host, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(d2);
  assert_int_equal(__tgt_rtl_is_data_exchangable(0, 0), 1);
  assert_int_equal(__tgt_rtl_data_exchange(0, d, 0, d2, sizeof host), 0);
  memset(back, 0, sizeof back);
  assert_int_equal(__tgt_rtl_data_retrieve(0, back, d2, sizeof back), 0);
  assert_memory_equal(host, back, sizeof host);
  /* a copy past the end is the driver's error, not a crash */
  assert_int_not_equal(__tgt_rtl_data_submit(0, d, host, sizeof host + 4), 0);
  assert_error_contains("copying 68 bytes from host", "CUDA_ERROR_INVALID_VALUE",
                        "test double: invalid argument");
  assert_int_equal(__tgt_rtl_data_delete(0, d), 0);
  assert_int_equal(__tgt_rtl_data_delete(0, d2), 0);
  assert_int_equal(live_allocations(), before);
  assert_int_not_equal(__tgt_rtl_data_delete(0, d), 0);
  assert_error_contains("freeing", "CUDA_ERROR_INVALID_VALUE");
  /* pinned host and managed memory use their own driver calls */
  void *h = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_HOST);
  void *m = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_SHARED);
  assert_non_null(h);
  assert_non_null(m);
  assert_int_equal(__tgt_rtl_data_delete(0, h), 0);
  assert_int_equal(__tgt_rtl_data_delete(0, m), 0);
  assert_int_equal(live_allocations(), before);
  /* bad sizes and kinds */
  assert_null(__tgt_rtl_data_alloc(0, 0, NULL, TARGET_ALLOC_DEFAULT));
  assert_null(__tgt_rtl_data_alloc(0, 8, NULL, 42));
  assert_error_contains("unknown allocation kind 42");
  assert_int_not_equal(__tgt_rtl_data_submit(0, d, host, -1), 0);
}

static void test_allocation_failure_carries_driver_text(void **state) {
  (void)state;
  assert_int_equal(__tgt_rtl_init_device(0), 0);
  setenv("CUDA_TESTDOUBLE_FAIL", "cuMemAlloc_v2=2", 1);
  assert_null(__tgt_rtl_data_alloc(0, 4096, NULL, TARGET_ALLOC_DEFAULT));
  assert_error_contains("cuMemAlloc of 4096 bytes", "CUDA_ERROR_OUT_OF_MEMORY",
                        "test double: out of device memory");
  unsetenv("CUDA_TESTDOUBLE_FAIL");
  void *d = __tgt_rtl_data_alloc(0, 16, NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  int x[4] = {0};
  setenv("CUDA_TESTDOUBLE_FAIL", "cuMemcpyDtoH_v2=700", 1);
  assert_int_not_equal(__tgt_rtl_data_retrieve(0, x, d, sizeof x), 0);
  assert_error_contains("copying 16 bytes from device",
                        "CUDA_ERROR_ILLEGAL_ADDRESS");
  unsetenv("CUDA_TESTDOUBLE_FAIL");
  assert_int_equal(__tgt_rtl_data_delete(0, d), 0);
}

static void test_two_devices_exchange(void **state) {
  (void)state;
  setenv("CUDA_TESTDOUBLE_DEVICES", "2", 1);
  restart_plugin();
  int v[4] = {5, 6, 7, 8}, back[4] = {0};
  void *a = __tgt_rtl_data_alloc(0, sizeof v, NULL, TARGET_ALLOC_DEFAULT);
  void *b = __tgt_rtl_data_alloc(1, sizeof v, NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(__tgt_rtl_data_submit(0, a, v, sizeof v), 0);
  assert_int_equal(__tgt_rtl_is_data_exchangable(0, 1), 1);
  assert_int_equal(__tgt_rtl_is_data_exchangable(0, 2), 0);
  assert_int_equal(__tgt_rtl_data_exchange(0, a, 1, b, sizeof v), 0);
  assert_int_equal(__tgt_rtl_data_retrieve(1, back, b, sizeof back), 0);
  assert_memory_equal(v, back, sizeof v);
  assert_int_equal(__tgt_rtl_data_delete(0, a), 0);
  assert_int_equal(__tgt_rtl_data_delete(1, b), 0);
}

/* ---------------------------------------------------------------- launch */

static void test_launch_arguments_and_shape(void **state) {
  (void)state;
  struct fake_image f;
  __tgt_target_table *t = load_standard(0, &f);
  int a[5] = {1, 2, 3, 4, 5};
  void *d = __tgt_rtl_data_alloc(0, sizeof a, a, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  assert_int_equal(__tgt_rtl_data_submit(0, d, a, sizeof a), 0);
  /* argument 0 as base + offset (how libomptarget passes sections) */
  void *args[2] = {(char *)d - 8, (void *)(uintptr_t)5};
  ptrdiff_t offsets[2] = {8, 0};
  assert_int_equal(launch(t, E_ADD, args, offsets, 2, 3, 64), 0);
  struct testdouble_launch l = last_launch();
  assert_string_equal(l.kernel, "k_add");
  assert_int_equal(l.grid[0], 3);
  assert_int_equal(l.block[0], 64);
  assert_int_equal(l.grid[1] * l.grid[2] * l.block[1] * l.block[2], 1);
  int back[5];
  assert_int_equal(__tgt_rtl_data_retrieve(0, back, d, sizeof back), 0);
  for (int i = 0; i < 5; i++)
    assert_int_equal(back[i], a[i] + 1);
  assert_int_equal(__tgt_rtl_data_delete(0, d), 0);

  /* every argument is one 64-bit value, in order */
  void *rec[4] = {(void *)0x1111, (void *)0x2222, (void *)-1,
                  (void *)0x4444000000000000ull};
  assert_int_equal(launch(t, E_RECORD, rec, NULL, 4, 0, 0), 0);
  uint64_t *seen = kernels_symbol("recorded_params");
  assert_int_equal(seen[0], 0x1111);
  assert_int_equal(seen[1], 0x2222);
  assert_int_equal(seen[2], UINT64_MAX);
  assert_int_equal(seen[3], 0x4444000000000000ull);
  /* defaults: one team per SM, 128 threads */
  l = last_launch();
  assert_int_equal(l.grid[0], TESTDOUBLE_SMS);
  assert_int_equal(l.block[0], 128);
  /* clamped to the device's limits */
  assert_int_equal(launch(t, E_RECORD, rec, NULL, 4, 1000000, 5000), 0);
  l = last_launch();
  assert_int_equal(l.grid[0], TESTDOUBLE_MAX_GRID);
  assert_int_equal(l.block[0], TESTDOUBLE_MAX_THREADS_PER_BLOCK);
  /* run_target_region: one team */
  assert_int_equal(__tgt_rtl_run_target_region(0, t->EntriesBegin[E_RECORD].addr,
                                               rec, NULL, 4),
                   0);
  assert_int_equal(last_launch().grid[0], 1);
}

static void test_launch_execution_modes(void **state) {
  (void)state;
  struct fake_image f;
  __tgt_target_table *t = load_standard(0, &f);
  /* clang 14-16 generic kernel: one more warp for the main thread */
  assert_int_equal(launch(t, E_OLD, NULL, NULL, 0, 2, 64), 0);
  assert_int_equal(last_launch().block[0], 64 + TESTDOUBLE_WARP);
  /* LLVM 18/19 kernel environment: MaxThreads 256 bounds the block, and a
   * NULL parameter 0 becomes a launch environment with a zeroed reduction
   * buffer, freed after the kernel */
  long before = live_allocations();
  void *args[2] = {NULL, (void *)(uintptr_t)77};
  assert_int_equal(launch(t, E_ENV, args, NULL, 2, 2, 1000), 0);
  assert_int_equal(last_launch().block[0], 256);
  const struct testdouble_env_seen *seen = kernels_symbol("env_seen");
  assert_true(seen->launch_environment != 0);
  assert_true(seen->reduction_buffer != 0);
  assert_int_equal(seen->buffer_zeroed, 1);
  assert_int_equal(seen->second_param, 77);
  assert_int_equal(live_allocations(), before);
}

static void test_launch_failures(void **state) {
  (void)state;
  struct fake_image f;
  __tgt_target_table *t = load_standard(0, &f);
  assert_int_not_equal(launch(t, E_FAULT, NULL, NULL, 0, 1, 1), 0);
  assert_error_contains("kernel `k_fault`", "CUDA_ERROR_ILLEGAL_ADDRESS",
                        "test double: the kernel accessed an illegal address");
  setenv("CUDA_TESTDOUBLE_FAIL", "cuLaunchKernel=719", 1);
  uint64_t v = 0;
  void *rec[4] = {&v, &v, &v, &v};
  assert_int_not_equal(launch(t, E_RECORD, rec, NULL, 4, 2, 32), 0);
  assert_error_contains("launching kernel `k_record` with 2 teams x 32",
                        "CUDA_ERROR_LAUNCH_FAILED");
  unsetenv("CUDA_TESTDOUBLE_FAIL");
  /* a pointer that is no kernel record of ours */
  assert_int_not_equal(
      __tgt_rtl_run_target_team_region(0, host_fn_dummy, rec, NULL, 4, 1, 1, 0),
      0);
  assert_error_contains("is not a kernel loaded on this device");
  assert_int_not_equal(launch(t, E_RECORD, NULL, NULL, 3, 1, 1), 0);
  assert_int_not_equal(launch(t, E_RECORD, rec, NULL, -1, 1, 1), 0);
}

static void *launch_from_thread(void *arg) {
  __tgt_target_table *t = arg;
  uint64_t v = 0;
  void *rec[4] = {&v, &v, &v, &v};
  return (void *)(intptr_t)launch(t, E_RECORD, rec, NULL, 4, 1, 1);
}

static void test_other_threads_get_the_context(void **state) {
  (void)state;
  struct fake_image f;
  __tgt_target_table *t = load_standard(0, &f);
  pthread_t th;
  void *rc = (void *)1;
  assert_int_equal(pthread_create(&th, NULL, launch_from_thread, t), 0);
  assert_int_equal(pthread_join(th, &rc), 0);
  assert_int_equal((intptr_t)rc, 0);
}

/* ---------------------------------------------------------------- runtime */

static void test_device_environment_written(void **state) {
  (void)state;
  setenv("CUDA_TESTDOUBLE_DEVICES", "2", 1);
  restart_plugin();
  struct fake_image f;
  make_cubin(&f, 190, ELFCLASS64);
  set_entries(&f, entries, E_COUNT);
  assert_non_null(__tgt_rtl_load_binary(1, &f.image));
  const struct testdouble_device_environment *env =
      kernels_symbol("__omp_rtl_device_environment");
  assert_int_equal(env->num_devices, 2);
  assert_int_equal(env->device_num, 1);
  assert_int_equal(env->clock_frequency, TESTDOUBLE_CLOCK_KHZ * 1000ull);
  assert_int_equal(env->hardware_parallelism,
                   (uint64_t)TESTDOUBLE_SMS * TESTDOUBLE_THREADS_PER_SM);
}

static void test_requires_and_reports(void **state) {
  (void)state;
  assert_int_equal(__tgt_rtl_init_requires(0x8 | 0x1), 0x1);
  assert_error_contains("unified_shared_memory");
  assert_int_equal(__tgt_rtl_init_requires(0x1), 0x1);
  assert_int_equal(__tgt_rtl_set_info_flag(0), 0);
  assert_int_equal(__tgt_rtl_print_device_info(0), 0);
  assert_int_not_equal(__tgt_rtl_print_device_info(9), 0);
  assert_int_not_equal(__tgt_rtl_get_last_error(0, NULL), 0);
  assert_int_equal(__tgt_rtl_deinit_device(0), 0);
  assert_int_equal(__tgt_rtl_init_device(0), 0); /* again after release */
}

int main(void) {
  find_paths();
  const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
      T(test_abi_version_and_device_count),
      T(test_no_driver_means_zero_devices),
      T(test_cuinit_failure_is_the_reason),
      T(test_driver_without_gpus),
      T(test_context_failure_fails_init_device),
      T(test_image_validation),
      T(test_load_resolves_entries),
      T(test_load_ptx_and_container),
      T(test_load_rejects_and_reports),
      T(test_unload),
      T(test_alloc_transfer_free),
      T(test_allocation_failure_carries_driver_text),
      T(test_two_devices_exchange),
      T(test_launch_arguments_and_shape),
      T(test_launch_execution_modes),
      T(test_launch_failures),
      T(test_other_threads_get_the_context),
      T(test_device_environment_written),
      T(test_requires_and_reports),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
