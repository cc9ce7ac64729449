/*
 * test_images.c - which ELF images the two simdevice plugins accept, and
 * the names a refusal gives (issue 18): the ppc64le plugin takes ELF64
 * little-endian ELFv2 ET_DYN EM_PPC64 and refuses big-endian and ELFv1 by
 * name; each plugin refuses the other's machine. The plugin under test is
 * the one this binary is linked with (built twice, see mk/device-ppc64le.mk):
 * PLUGIN_PPC64LE says which. Images are bare ELF headers (no sections),
 * which is all the check reads. Single-threaded: no locks.
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "omptarget.h"
#include "omptarget_plugin.h"

static unsigned char image[sizeof(Elf64_Ehdr)];

static void make_header(unsigned machine, unsigned flags, int big_endian) {
  Elf64_Ehdr h;
  memset(&h, 0, sizeof h);
  memcpy(h.e_ident, ELFMAG, SELFMAG);
  h.e_ident[EI_CLASS] = ELFCLASS64;
  h.e_ident[EI_DATA] = big_endian ? ELFDATA2MSB : ELFDATA2LSB;
  h.e_ident[EI_VERSION] = EV_CURRENT;
  h.e_type = ET_DYN;
  h.e_machine = (Elf64_Half)machine;
  h.e_version = EV_CURRENT;
  h.e_flags = flags;
  h.e_ehsize = sizeof h;
  if (big_endian) { /* the fields the check reads, byte-swapped */
    h.e_type = __builtin_bswap16(h.e_type);
    h.e_machine = __builtin_bswap16(h.e_machine);
    h.e_version = __builtin_bswap32(h.e_version);
    h.e_flags = __builtin_bswap32(h.e_flags);
    h.e_ehsize = __builtin_bswap16(h.e_ehsize);
  }
  memcpy(image, &h, sizeof h);
}

/* is_valid_binary's answer; `why` gets the refusal's message. */
static int verdict(char *why, size_t len) {
  __tgt_device_image img;
  memset(&img, 0, sizeof img);
  img.ImageStart = image;
  img.ImageEnd = image + sizeof image;
  int ok = __tgt_rtl_is_valid_binary(&img);
  __tgt_rtl_error err;
  memset(&err, 0, sizeof err);
  __tgt_rtl_get_last_error(0, &err);
  snprintf(why, len, "%s", err.message);
  return ok;
}

static void test_ppc64le_elfv2(void **state) {
  (void)state;
  char why[600];
  make_header(EM_PPC64, 2, 0);
  int ok = verdict(why, sizeof why);
#ifdef PLUGIN_PPC64LE
  assert_int_equal(ok, 1);
#else
  assert_int_equal(ok, 0);
  assert_non_null(strstr(why, "machine 21 (PowerPC64), not x86-64"));
#endif
}

static void test_ppc64_elfv1_refused(void **state) {
  (void)state;
  char why[600];
  make_header(EM_PPC64, 1, 0);
  assert_int_equal(verdict(why, sizeof why), 0);
#ifdef PLUGIN_PPC64LE
  assert_non_null(strstr(why, "ELFv1 ABI"));
#endif
}

static void test_big_endian_refused(void **state) {
  (void)state;
  char why[600];
  make_header(EM_PPC64, 1, 1);
  assert_int_equal(verdict(why, sizeof why), 0);
  assert_non_null(strstr(why, "big-endian"));
  assert_non_null(strstr(why, "not ppc64le"));
}

static void test_x86_64(void **state) {
  (void)state;
  char why[600];
  make_header(EM_X86_64, 0, 0);
  int ok = verdict(why, sizeof why);
#ifdef PLUGIN_PPC64LE
  assert_int_equal(ok, 0);
  assert_non_null(strstr(why, "machine 62 (x86-64), not ppc64le"));
  assert_non_null(strstr(why, "simdevice-ppc64le:"));
#else
  assert_int_equal(ok, 1);
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ppc64le_elfv2),
      cmocka_unit_test(test_ppc64_elfv1_refused),
      cmocka_unit_test(test_big_endian_refused),
      cmocka_unit_test(test_x86_64),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
