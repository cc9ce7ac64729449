/*
 * test_registry.c - descriptors, images and entry tables as clang 13-22 lay
 * them out, built by hand; and malformed ones, each with its error message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixtures/image_builder.h"
#include "offload_image.h"
#include "registry.h"

/* Host objects the entries point at, as a compiled program's would. */
static char region_a, region_b, ctor_region, dtor_region;
static int gvar[4];
static double gsum;
static void indirect_fn(void) {}

#define assert_contains(haystack, needle)                                      \
  do {                                                                         \
    if (!strstr((haystack), (needle)))                                         \
      fail_msg("expected \"%s\" in \"%s\"", (needle), (haystack));             \
  } while (0)

/* ---- images ------------------------------------------------------------ */

static void test_raw_elf_is_used_as_is(void **state) {
  (void)state;
  unsigned char elf[TEST_ELF_SIZE];
  build_elf(elf, sizeof elf, EM_X86_64);
  struct image_info info;
  char err[256] = "";
  assert_int_equal(registry_unwrap_image(elf, elf + sizeof elf, &info, err,
                                         sizeof err), 0);
  assert_ptr_equal(info.payload, elf);
  assert_int_equal(info.payload_size, sizeof elf);
  assert_string_equal(info.triple, "");
}

static void test_container_is_unwrapped(void **state) {
  (void)state;
  static unsigned char c[TEST_CONTAINER_SIZE];
  build_container(c, "x86_64-pc-linux-gnu", "generic", EM_X86_64);
  struct image_info info;
  char err[256] = "";
  assert_int_equal(registry_unwrap_image(c, c + sizeof c, &info, err,
                                         sizeof err), 0);
  assert_ptr_equal(info.payload, c + TEST_CONTAINER_IMAGE_OFFSET);
  assert_int_equal(info.payload_size, TEST_ELF_SIZE);
  assert_string_equal(info.triple, "x86_64-pc-linux-gnu");
  assert_string_equal(info.arch, "generic");
}

static void test_elf_inside_container_as_clang19_points(void **state) {
  (void)state;
  static unsigned char c[TEST_CONTAINER_SIZE];
  build_container(c, "x86_64-pc-linux-gnu", "", EM_X86_64);
  struct image_info info;
  char err[256] = "";
  unsigned char *elf = c + TEST_CONTAINER_IMAGE_OFFSET;
  assert_int_equal(registry_unwrap_image(elf, c + sizeof c, &info, err,
                                         sizeof err), 0);
  assert_ptr_equal(info.payload, elf);
  assert_int_equal(info.payload_size, TEST_ELF_SIZE);
}

/* One malformed image, and the words its error must contain. */
static void expect_image_error(const void *start, const void *end,
                               const char *words) {
  struct image_info info;
  char err[512] = "";
  assert_int_equal(registry_unwrap_image(start, end, &info, err, sizeof err),
                   -1);
  assert_contains(err, words);
}

static void test_malformed_images_are_rejected_with_reasons(void **state) {
  (void)state;
  unsigned char elf[TEST_ELF_SIZE];
  build_elf(elf, sizeof elf, EM_X86_64);
  /* cut inside the ELF header */
  expect_image_error(elf, elf + 40, "truncated ELF image: 40 bytes");
  /* section header table beyond the end */
  Elf64_Ehdr eh;
  memcpy(&eh, elf, sizeof eh);
  eh.e_shoff = 0x1000;
  eh.e_shnum = 5;
  memcpy(elf, &eh, sizeof eh);
  expect_image_error(elf, elf + sizeof elf, "section headers at 0x1000");
  /* neither ELF nor container: the first bytes are named */
  unsigned char junk[16] = {0xde, 0xad, 0xbe, 0xef};
  expect_image_error(junk, junk + sizeof junk, "starts with de ad be ef");
  /* bounds */
  expect_image_error(junk + 8, junk, "do not describe any bytes");
  expect_image_error(NULL, junk, "do not describe any bytes");
  expect_image_error(junk, (void *)((uintptr_t)junk + ((uintptr_t)1 << 40)),
                     "absurd size");

  static unsigned char c[TEST_CONTAINER_SIZE];
  build_container(c, "x86_64-pc-linux-gnu", "", EM_X86_64);
  expect_image_error(c, c + 16, "OffloadBinary container truncated");
  put32(c + 4, 7);
  expect_image_error(c, c + sizeof c, "container version 7");
  build_container(c, "x86_64-pc-linux-gnu", "", EM_X86_64);
  put64(c + 8, TEST_CONTAINER_SIZE + 1);
  expect_image_error(c, c + sizeof c, "does not fit");
  build_container(c, "x86_64-pc-linux-gnu", "", EM_X86_64);
  put64(c + 16, TEST_CONTAINER_SIZE - 8); /* entry offset past the end */
  expect_image_error(c, c + sizeof c, "entry at");
  build_container(c, "x86_64-pc-linux-gnu", "", EM_X86_64);
  put64(c + 0x20 + 32, TEST_ELF_SIZE + 1); /* image size past the end */
  expect_image_error(c, c + sizeof c, "image at 0x90+0x101");
  build_container(c, "x86_64-pc-linux-gnu", "", EM_X86_64);
  put64(c + 0x20 + 24, UINT64_MAX - 4); /* offset that wraps around */
  expect_image_error(c, c + sizeof c, "outside the container");
  build_container(c, "x86_64-pc-linux-gnu", "", EM_X86_64);
  put64(c + 0x20 + 16, UINT64_MAX / 8); /* absurd string count */
  expect_image_error(c, c + sizeof c, "string table");
  build_container(c, "x86_64-pc-linux-gnu", "", EM_X86_64);
  put64(c + 0x48 + 8, 0x7777); /* the triple's value offset past the end */
  expect_image_error(c, c + sizeof c, "string offset 0x7777");
  build_container(c, "x86_64-pc-linux-gnu", "", EM_X86_64);
  put16(c + 0x20 + 2, 3); /* offload kind HIP */
  expect_image_error(c, c + sizeof c, "offload kind 3");
  build_container(c, "x86_64-pc-linux-gnu", "", EM_X86_64);
  put64(c + 0x20 + 32, 20); /* image cut inside the ELF header */
  expect_image_error(c, c + sizeof c, "truncated ELF image: 20 bytes");
}

/* ---- the shared parser (common/offload_image) --------------------------- */

/* Two containers end to end, as in an .llvm.offloading section: x86-64,
 * then nvptx64 (the second starts at an 8-byte aligned offset). */
#define TWO_CONTAINERS_SIZE (2 * TEST_CONTAINER_SIZE)
static void build_two_containers(unsigned char *buf) {
  build_container(buf, "x86_64-pc-linux-gnu", "", EM_X86_64);
  build_container(buf + TEST_CONTAINER_SIZE, "nvptx64-nvidia-cuda", "sm_80",
                  EM_CUDA);
}

static void test_container_found_by_kind_and_triple(void **state) {
  (void)state;
  static unsigned char c[TWO_CONTAINERS_SIZE + 8];
  build_two_containers(c);
  struct offload_container_image found;
  char why[512] = "";
  const struct offload_image_want nvptx = {OFFLOAD_KIND_OPENMP, "nvptx64"};
  assert_int_equal(offload_container_find(c, TWO_CONTAINERS_SIZE, &nvptx,
                                          &found, why, sizeof why), 0);
  assert_int_equal(found.container_offset, TEST_CONTAINER_SIZE);
  assert_ptr_equal(found.bytes,
                   c + TEST_CONTAINER_SIZE + TEST_CONTAINER_IMAGE_OFFSET);
  assert_int_equal(found.size, TEST_ELF_SIZE);
  assert_int_equal(found.image_kind, OFFLOAD_IMAGE_OBJECT);
  assert_string_equal(found.arch, "sm_80");
  /* no filter: the first; trailing padding is not a container */
  assert_int_equal(offload_container_find(c, sizeof c, NULL, &found, why,
                                          sizeof why), 0);
  assert_int_equal(found.container_offset, 0);
  assert_string_equal(found.triple, "x86_64-pc-linux-gnu");

  const struct offload_image_want amdgcn = {0, "amdgcn"};
  assert_int_equal(offload_container_find(c, sizeof c, &amdgcn, &found, why,
                                          sizeof why), -1);
  assert_contains(why, "none of the 2 images");
  assert_contains(why, "x86_64-pc-linux-gnu (OpenMP), nvptx64-nvidia-cuda");
  assert_int_equal(offload_container_find(c, TEST_CONTAINER_SIZE, &nvptx,
                                          &found, why, sizeof why), -1);
  assert_contains(why, "holds an image for triple x86_64-pc-linux-gnu, not"
                       " nvptx64");
  /* the second container is checked whole before it is used */
  put32(c + TEST_CONTAINER_SIZE + 4, 9);
  assert_int_equal(offload_container_find(c, TWO_CONTAINERS_SIZE, &nvptx,
                                          &found, why, sizeof why), -1);
  assert_contains(why, "container version 9 at offset 0x190");
  build_two_containers(c);
  assert_int_equal(offload_container_find(c, TWO_CONTAINERS_SIZE - 1, &nvptx,
                                          &found, why, sizeof why), -1);
  assert_contains(why, "at offset 0x190 does not fit the 0x18f bytes given");
  build_two_containers(c);
  put64(c + 0x48, 0x9999); /* the first key's offset past the end */
  assert_int_equal(offload_container_find(c, TEST_CONTAINER_SIZE, NULL,
                                          &found, why, sizeof why), -1);
  assert_contains(why, "key string offset 0x9999 is past the container");
}

/* An ELF64 header written big-endian, field by field. */
static void put_be(unsigned char *p, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--, v >>= 8)
    p[i] = (unsigned char)v;
}

static void test_elf_header_facts(void **state) {
  (void)state;
  unsigned char elf[TEST_ELF_SIZE];
  struct offload_elf_header h;
  char why[512] = "";
  build_elf(elf, sizeof elf, EM_X86_64);
  assert_int_equal(offload_elf_read_header(elf, sizeof elf, &h, why,
                                           sizeof why), 0);
  assert_int_equal(h.elf_class, ELFCLASS64);
  assert_int_equal(h.data, ELFDATA2LSB);
  assert_int_equal(h.type, ET_DYN);
  assert_int_equal(h.machine, EM_X86_64);
  assert_int_equal(offload_elf_ppc64_abi(&h), 0);
  assert_string_equal(offload_elf_machine_name(h.machine), "x86-64");

  /* big-endian ppc64 ELFv1: libelf translates the fields */
  elf[EI_DATA] = ELFDATA2MSB;
  put_be(elf + offsetof(Elf64_Ehdr, e_type), ET_DYN, 2);
  put_be(elf + offsetof(Elf64_Ehdr, e_machine), EM_PPC64, 2);
  put_be(elf + offsetof(Elf64_Ehdr, e_version), EV_CURRENT, 4);
  put_be(elf + offsetof(Elf64_Ehdr, e_flags), 1, 4);
  put_be(elf + offsetof(Elf64_Ehdr, e_ehsize), sizeof(Elf64_Ehdr), 2);
  put_be(elf + offsetof(Elf64_Ehdr, e_phentsize), sizeof(Elf64_Phdr), 2);
  put_be(elf + offsetof(Elf64_Ehdr, e_shentsize), sizeof(Elf64_Shdr), 2);
  assert_int_equal(offload_elf_read_header(elf, sizeof elf, &h, why,
                                           sizeof why), 0);
  assert_int_equal(h.data, ELFDATA2MSB);
  assert_int_equal(h.machine, EM_PPC64);
  assert_int_equal(offload_elf_ppc64_abi(&h), 1);

  build_elf(elf, sizeof elf, EM_X86_64);
  put16(elf + offsetof(Elf64_Ehdr, e_phnum), 1);
  put16(elf + offsetof(Elf64_Ehdr, e_phentsize), 10);
  assert_int_equal(offload_elf_read_header(elf, sizeof elf, &h, why,
                                           sizeof why), -1);
  assert_contains(why, "program headers entries of 10 bytes, expected 56");
  build_elf(elf, sizeof elf, EM_X86_64);
  elf[EI_CLASS] = 3;
  assert_int_equal(offload_elf_read_header(elf, sizeof elf, &h, why,
                                           sizeof why), -1);
  assert_contains(why, "unknown class 3");
  build_elf(elf, sizeof elf, EM_X86_64);
  elf[EI_VERSION] = 0;
  assert_int_equal(offload_elf_read_header(elf, sizeof elf, &h, why,
                                           sizeof why), -1);
  assert_contains(why, "identification version 0");
  /* ELF32: its own header size and table layout */
  build_elf(elf, sizeof elf, EM_386);
  elf[EI_CLASS] = ELFCLASS32;
  memset(elf + EI_NIDENT, 0, sizeof(Elf64_Ehdr) - EI_NIDENT);
  put16(elf + offsetof(Elf32_Ehdr, e_machine), EM_386);
  put32(elf + offsetof(Elf32_Ehdr, e_shoff), 0x80);
  put16(elf + offsetof(Elf32_Ehdr, e_shentsize), sizeof(Elf32_Shdr));
  put16(elf + offsetof(Elf32_Ehdr, e_shnum), 5);
  assert_int_equal(offload_elf_read_header(elf, 40, &h, why, sizeof why), -1);
  assert_contains(why, "truncated ELF image: 40 bytes, the ELF32 header");
  assert_int_equal(offload_elf_read_header(elf, sizeof elf, &h, why,
                                           sizeof why), -1);
  assert_contains(why, "section headers at 0x80+0xc8 end past the image");
  put32(elf + offsetof(Elf32_Ehdr, e_shoff), 0x60); /* 4 x 40 bytes: fits */
  put16(elf + offsetof(Elf32_Ehdr, e_shnum), 4);
  assert_int_equal(offload_elf_read_header(elf, sizeof elf, &h, why,
                                           sizeof why), 0);
  assert_int_equal(h.elf_class, ELFCLASS32);
  assert_int_equal(h.machine, EM_386);
}

/* ---- entries ----------------------------------------------------------- */

/* The legacy entries of a clang 13-16 library with a C++ global, at an odd
 * address as the linker may place them. */
static void test_legacy_entries_unaligned(void **state) {
  (void)state;
  static unsigned char buf[1 + 5 * 32];
  unsigned char *p = buf + 1;
  put_legacy_entry(p + 0, &gvar, "gvar", sizeof gvar, 0, 0);
  put_legacy_entry(p + 32, &region_a, "__omp_offloading_fe00_1_main_l5", 0, 0,
                   0);
  put_legacy_entry(p + 64, &ctor_region, "__omp_offloading__fe00_1_g_l3_ctor",
                   0, OMP_DECLARE_TARGET_CTOR, 0);
  put_legacy_entry(p + 96, &dtor_region, "__omp_offloading__fe00_1_g_l3_dtor",
                   0, OMP_DECLARE_TARGET_DTOR, 0);
  put_legacy_entry(p + 128, NULL, "", 0, OMP_REGISTER_REQUIRES, 8);
  struct entry_info *e;
  size_t n;
  char err[256] = "";
  assert_int_equal(registry_parse_entries(p, p + 160, &e, &n, err, sizeof err),
                   0);
  assert_int_equal(n, 5);
  assert_ptr_equal(e[0].host_addr, &gvar);
  assert_string_equal(e[0].name, "gvar");
  assert_int_equal(e[0].size, sizeof gvar);
  assert_ptr_equal(e[1].host_addr, &region_a);
  assert_int_equal(e[1].size, 0);
  assert_int_equal(e[2].flags, OMP_DECLARE_TARGET_CTOR);
  assert_int_equal(e[3].flags, OMP_DECLARE_TARGET_DTOR);
  assert_int_equal(e[4].flags, OMP_REGISTER_REQUIRES);
  assert_int_equal(e[4].data, 8);
  assert_int_equal(e[0].data, 0);
  free(e);
}

/* clang 19: 7 legacy entries are 224 bytes, also a multiple of 56, and the
 * requires entry (address NULL) comes first: must still read as legacy. */
static void test_legacy_requires_first_is_not_taken_for_new(void **state) {
  (void)state;
  static unsigned char p[7 * 32];
  put_legacy_entry(p, NULL, "", 0, OMP_REGISTER_REQUIRES, 8);
  for (int i = 1; i < 7; i++)
    put_legacy_entry(p + 32 * i, &gvar[0], "gvar", 4, 0, 0);
  put_legacy_entry(p + 32 * 6, (void *)indirect_fn, "__omp_offloading_add1",
                   8, OMP_DECLARE_TARGET_INDIRECT, 0);
  struct entry_info *e;
  size_t n;
  char err[256] = "";
  assert_int_equal(registry_parse_entries(p, p + sizeof p, &e, &n, err,
                                          sizeof err), 0);
  assert_int_equal(n, 7);
  assert_int_equal(e[0].flags, OMP_REGISTER_REQUIRES);
  assert_int_equal(e[0].data, 8);
  assert_ptr_equal(e[6].host_addr, (void *)indirect_fn);
  assert_int_equal(e[6].flags, OMP_DECLARE_TARGET_INDIRECT);
  assert_int_equal(e[6].size, 8);
  free(e);
}

static void test_new_entries(void **state) {
  (void)state;
  __tgt_offload_entry_v1 v[4] = {
      new_entry(&region_b, "__omp_offloading_fe00_2_f_l9", 0, 0, 0),
      new_entry(&gsum, "gsum", sizeof gsum, 0x2, 0), /* enter (19+) */
      new_entry((void *)indirect_fn, "__omp_offloading_add1", 8, 0x8, 0),
      new_entry(NULL, ".requires", 0, OMP_REGISTER_REQUIRES, 0x8),
  };
  struct entry_info *e;
  size_t n;
  char err[256] = "";
  assert_int_equal(registry_parse_entries(v, v + 4, &e, &n, err, sizeof err),
                   0);
  assert_int_equal(n, 4);
  assert_ptr_equal(e[0].host_addr, &region_b);
  assert_string_equal(e[1].name, "gsum");
  assert_int_equal(e[1].size, sizeof gsum);
  assert_int_equal(e[1].flags, 0x2);
  assert_int_equal(e[2].flags, 0x8);
  assert_int_equal(e[3].data, 0x8);
  free(e);
}

static void expect_entries_error(const void *b, const void *end,
                                 const char *words) {
  struct entry_info *e = (void *)1;
  size_t n = 99;
  char err[512] = "";
  assert_int_equal(registry_parse_entries(b, end, &e, &n, err, sizeof err), -1);
  assert_null(e);
  assert_int_equal(n, 0);
  assert_contains(err, words);
}

static void test_malformed_entries_are_rejected_with_reasons(void **state) {
  (void)state;
  static unsigned char p[4 * 32];
  put_legacy_entry(p, &region_a, "k", 0, 0, 0);
  expect_entries_error(p, p + 40, "neither a whole number of legacy 32-byte");
  expect_entries_error(p + 32, p, "are invalid");
  expect_entries_error(p, (void *)((uintptr_t)p + ((uintptr_t)1 << 31)),
                       "absurd size");
  put_legacy_entry(p + 32, &region_b, NULL, 0, 0, 0);
  expect_entries_error(p, p + 64, "offload entry 1");
  expect_entries_error(p, p + 64, "NULL name");
  put_legacy_entry(p + 32, &gvar, "gvar", (uint64_t)1 << 50, 0, 0);
  expect_entries_error(p, p + 64, "absurd size 1125899906842624");
  put_legacy_entry(p + 32, &gvar, "gvar", 4, 0x100, 0);
  expect_entries_error(p, p + 64, "unknown flags 0x100");
  put_legacy_entry(p + 32, NULL, "gvar", 4, 0, 0);
  expect_entries_error(p, p + 64, "NULL host address");

  __tgt_offload_entry_v1 v[2] = {new_entry(&region_a, "k", 0, 0, 0),
                                 new_entry(&region_b, "k2", 0, 0, 0)};
  v[1].version = 2;
  expect_entries_error(v, v + 2, "offload entry 1");
  expect_entries_error(v, v + 2, "Version=2");
  v[1].version = 1;
  v[1].kind = 2; /* a CUDA entry */
  expect_entries_error(v, v + 2, "Kind=2");

  /* an empty array is legal */
  struct entry_info *e = (void *)1;
  size_t n = 5;
  char err[64];
  assert_int_equal(registry_parse_entries(NULL, NULL, &e, &n, err, sizeof err),
                   0);
  assert_int_equal(n, 0);
  assert_null(e);
}

/* ---- descriptors --------------------------------------------------------- */

/* Two images in one descriptor (an x86 ELF and a container), legacy entries
 * at an odd address, one of them a requires entry. */
struct test_desc {
  unsigned char elf[TEST_ELF_SIZE];
  unsigned char container[TEST_CONTAINER_SIZE];
  unsigned char entries[1 + 3 * 32];
  __tgt_device_image images[2];
  __tgt_bin_desc desc;
};

static void build_test_desc(struct test_desc *t) {
  build_elf(t->elf, sizeof t->elf, EM_CUDA);
  build_container(t->container, "x86_64-pc-linux-gnu", "", EM_X86_64);
  unsigned char *p = t->entries + 1;
  put_legacy_entry(p, &region_a, "__omp_offloading_fe00_1_main_l5", 0, 0, 0);
  put_legacy_entry(p + 32, &gvar, "gvar", sizeof gvar, 0, 0);
  put_legacy_entry(p + 64, NULL, "", 0, OMP_REGISTER_REQUIRES, 0x8);
  for (int i = 0; i < 2; i++) {
    t->images[i].EntriesBegin = p;
    t->images[i].EntriesEnd = p + 96;
  }
  t->images[0].ImageStart = t->elf;
  t->images[0].ImageEnd = t->elf + sizeof t->elf;
  t->images[1].ImageStart = t->container;
  t->images[1].ImageEnd = t->container + sizeof t->container;
  t->desc.NumDeviceImages = 2;
  t->desc.DeviceImages = t->images;
  t->desc.HostEntriesBegin = p;
  t->desc.HostEntriesEnd = p + 96;
}

static void test_descriptor_with_two_images(void **state) {
  (void)state;
  static struct test_desc t;
  build_test_desc(&t);
  char err[512] = "";
  struct registered_lib *lib = registry_parse_descriptor(&t.desc, err,
                                                         sizeof err);
  assert_non_null(lib);
  assert_int_equal(lib->num_images, 2);
  assert_int_equal(lib->num_entries, 3);
  assert_int_equal(lib->requires_flags, 0x8);
  /* legacy copies are aligned and carry the requires flags in reserved */
  assert_int_equal((uintptr_t)lib->legacy % _Alignof(__tgt_offload_entry), 0);
  assert_ptr_equal(lib->legacy[1].addr, &gvar);
  assert_string_equal(lib->legacy[1].name, "gvar");
  assert_int_equal(lib->legacy[1].size, sizeof gvar);
  assert_int_equal(lib->legacy[2].flags, OMP_REGISTER_REQUIRES);
  assert_int_equal(lib->legacy[2].reserved, 0x8);
  /* what plugins get: the payload and the aligned entries */
  assert_ptr_equal(lib->images[0].plugin_image.ImageStart, t.elf);
  assert_ptr_equal(lib->images[1].plugin_image.ImageStart,
                   t.container + TEST_CONTAINER_IMAGE_OFFSET);
  assert_ptr_equal(lib->images[1].plugin_image.ImageEnd,
                   t.container + TEST_CONTAINER_SIZE);
  assert_ptr_equal(lib->images[1].plugin_image.EntriesBegin, lib->legacy);
  assert_ptr_equal(lib->images[1].plugin_image.EntriesEnd, lib->legacy + 3);
  assert_ptr_equal(lib->images[0].original, &t.images[0]);
  assert_string_equal(lib->images[1].triple, "x86_64-pc-linux-gnu");
  registry_free(lib);
}

static void expect_desc_error(const __tgt_bin_desc *d, const char *words) {
  char err[512] = "";
  assert_null(registry_parse_descriptor(d, err, sizeof err));
  assert_contains(err, words);
}

static void test_malformed_descriptors(void **state) {
  (void)state;
  static struct test_desc t;
  build_test_desc(&t);
  expect_desc_error(NULL, "NULL binary descriptor");
  t.desc.NumDeviceImages = -1;
  expect_desc_error(&t.desc, "NumDeviceImages=-1 is out of range");
  t.desc.NumDeviceImages = 100000;
  expect_desc_error(&t.desc, "NumDeviceImages=100000");
  t.desc.NumDeviceImages = 2;
  t.desc.DeviceImages = NULL;
  expect_desc_error(&t.desc, "DeviceImages is NULL");
  t.desc.DeviceImages = t.images;
  t.images[1].ImageEnd = t.container + 100; /* container cut short */
  expect_desc_error(&t.desc, "image 1: OffloadBinary container size");
  t.images[1].ImageEnd = t.container + sizeof t.container;
  t.desc.HostEntriesEnd = (char *)t.desc.HostEntriesEnd - 8;
  expect_desc_error(&t.desc, "host entries: entry array");
  t.desc.HostEntriesEnd = (char *)t.desc.HostEntriesEnd + 8;
  t.images[0].EntriesEnd = (char *)t.images[0].EntriesEnd - 32;
  expect_desc_error(&t.desc, "image 0 has 2 offload entries but the host has 3");
}

/* Two host entries with one address but different names: launching by that
 * address would run whichever the lookup finds first. */
static void test_entries_sharing_a_host_address(void **state) {
  (void)state;
  static struct test_desc t;
  build_test_desc(&t);
  unsigned char *p = t.entries + 1;
  put_legacy_entry(p + 32, &region_a, "__omp_offloading_fe00_1_other_l9", 0,
                   0, 0);
  expect_desc_error(&t.desc, "offload entries `__omp_offloading_fe00_1_main_l5` "
                             "(entry 0) and `__omp_offloading_fe00_1_other_l9` "
                             "(entry 1) have the same host address");
  /* the same entry twice (same name) stays accepted */
  put_legacy_entry(p + 32, &region_a, "__omp_offloading_fe00_1_main_l5", 0, 0,
                   0);
  char err[512] = "";
  struct registered_lib *lib = registry_parse_descriptor(&t.desc, err,
                                                         sizeof err);
  assert_non_null(lib);
  registry_free(lib);
}

/* ---- the list and the requires flags ------------------------------------ */

static void test_list_of_two_descriptors(void **state) {
  (void)state;
  static struct test_desc t1, t2;
  build_test_desc(&t1);
  build_test_desc(&t2);
  registry_reset_requires_for_test();
  assert_int_equal(registry_add(&t1.desc), 0);
  assert_int_equal(registry_add(&t2.desc), 0);
  report_error_clear();
  assert_int_equal(registry_add(&t1.desc), -1);
  assert_contains(report_error_get(), "already registered");
  report_error_clear();
  registry_lock();
  struct registered_lib *a = registry_first();
  assert_non_null(a);
  assert_ptr_equal(a->desc, &t1.desc);
  assert_non_null(a->next);
  assert_ptr_equal(a->next->desc, &t2.desc);
  assert_true(a->next->generation > a->generation);
  registry_unlock();
  /* the requires entries of both reached the global flags */
  assert_int_equal(registry_requires(), 0x8);
  assert_string_equal(registry_requires_conflict(), "");

  struct registered_lib *removed = registry_remove(&t1.desc);
  assert_non_null(removed);
  assert_ptr_equal(removed->desc, &t1.desc);
  assert_null(registry_remove(&t1.desc));
  registry_free(removed);
  registry_lock();
  assert_ptr_equal(registry_first()->desc, &t2.desc);
  registry_unlock();
  registry_free(registry_remove(&t2.desc));
  registry_lock();
  assert_null(registry_first());
  registry_unlock();

  /* a bad descriptor is refused with the reason as the current error */
  t1.desc.NumDeviceImages = -3;
  assert_int_equal(registry_add(&t1.desc), -1);
  assert_contains(report_error_get(), "NumDeviceImages=-3");
  report_error_clear();
}

static void test_requires_flags_and_conflicts(void **state) {
  (void)state;
  registry_reset_requires_for_test();
  assert_int_equal(registry_requires(), OMP_REQ_UNDEFINED);
  registry_add_requires(OMP_REQ_NONE); /* clang 13-16, no requires */
  registry_add_requires(OMP_REQ_NONE);
  assert_int_equal(registry_requires(), OMP_REQ_NONE);
  assert_string_equal(registry_requires_conflict(), "");
  /* dynamic_allocators alone need not agree */
  registry_add_requires(OMP_REQ_DYNAMIC_ALLOCATORS);
  assert_string_equal(registry_requires_conflict(), "");
  assert_int_equal(registry_requires(), OMP_REQ_DYNAMIC_ALLOCATORS);
  registry_add_requires(OMP_REQ_UNIFIED_SHARED_MEMORY);
  assert_contains(registry_requires_conflict(), "conflicting 'requires'");
  assert_contains(registry_requires_conflict(), "0x8");
  assert_true(registry_requires() & OMP_REQ_UNIFIED_SHARED_MEMORY);
  assert_false(registry_requires() & OMP_REQ_NONE);
  registry_reset_requires_for_test();
  registry_add_requires(OMP_REQ_UNIFIED_SHARED_MEMORY);
  registry_add_requires(OMP_REQ_UNIFIED_SHARED_MEMORY);
  assert_int_equal(registry_requires(), OMP_REQ_UNIFIED_SHARED_MEMORY);
  assert_string_equal(registry_requires_conflict(), "");
  registry_reset_requires_for_test();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_raw_elf_is_used_as_is),
      cmocka_unit_test(test_entries_sharing_a_host_address),
      cmocka_unit_test(test_container_is_unwrapped),
      cmocka_unit_test(test_elf_inside_container_as_clang19_points),
      cmocka_unit_test(test_malformed_images_are_rejected_with_reasons),
      cmocka_unit_test(test_container_found_by_kind_and_triple),
      cmocka_unit_test(test_elf_header_facts),
      cmocka_unit_test(test_legacy_entries_unaligned),
      cmocka_unit_test(test_legacy_requires_first_is_not_taken_for_new),
      cmocka_unit_test(test_new_entries),
      cmocka_unit_test(test_malformed_entries_are_rejected_with_reasons),
      cmocka_unit_test(test_descriptor_with_two_images),
      cmocka_unit_test(test_malformed_descriptors),
      cmocka_unit_test(test_list_of_two_descriptors),
      cmocka_unit_test(test_requires_flags_and_conflicts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
