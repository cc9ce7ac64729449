/*
 * decode.c - `simtarget-maps decode TYPE`: the bits of a map type and what
 * each one means (the table the checker uses too).
 */
#include "tool.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const struct map_bit map_bits[] = {
    {0x1, "to", "copy host to device at entry (when created, or always)"},
    {0x2, "from", "copy device to host at exit (when released, or always)"},
    {0x4, "always", "copy even when the object was already present"},
    {0x8, "delete", "exit only: force the dynamic reference count to 0"},
    {0x10, "ptr_and_obj",
     "base is a pointer (8 bytes) to attach to the mapped object at begin"},
    {0x20, "target_param", "becomes the next kernel parameter"},
    {0x40, "return_param",
     "use_device_ptr/addr: the device address is returned in args_base"},
    {0x80, "private", "a (first)private copy for this launch, not mapped"},
    {0x100, "literal", "passed by value (args_base is the value)"},
    {0x200, "implicit", "mapped implicitly (not named in a map clause)"},
    {0x400, "close", "map-type modifier close (a hint)"},
    {0x800, "xlc_reserved", "reserved"},
    {0x1000, "present", "the object must already be present"},
    {0x2000, "ompx_hold", "counted in the hold reference count"},
    {0x4000, "attach", "clang 22: attach the pointer at base to begin"},
    {0x8000, "fb_nullify",
     "clang 23, use_device_ptr(fb_nullify): NULL when not mapped"},
    {0x100000000000LL, "non_contig",
     "target update of a strided section: begin is a descriptor of size "
     "dimensions"},
};
const size_t num_map_bits = sizeof map_bits / sizeof map_bits[0];

int64_t map_bit_value(const char *name) {
  for (size_t i = 0; i < num_map_bits; i++)
    if (!strcmp(map_bits[i].name, name))
      return map_bits[i].bit;
  return 0;
}

int cmd_decode(int argc, char **argv) {
  if (argc < 1) {
    fprintf(stderr, "simtarget-maps decode: give a map type, e.g. "
                    "0x2000000000013\n");
    return 2;
  }
  int status = 0;
  for (int a = 0; a < argc; a++) {
    char *end = NULL;
    errno = 0;
    uint64_t type = strtoull(argv[a], &end, 0);
    if (errno || end == argv[a] || *end) {
      fprintf(stderr, "simtarget-maps decode: `%s` is not a number (decimal "
                      "or 0x hex)\n",
              argv[a]);
      status = 2;
      continue;
    }
    printf("0x%" PRIx64 ":\n", type);
    uint64_t known = 0;
    for (size_t i = 0; i < num_map_bits; i++) {
      known |= (uint64_t)map_bits[i].bit;
      if (type & (uint64_t)map_bits[i].bit)
        printf("  0x%-14" PRIx64 " %-13s %s\n", (uint64_t)map_bits[i].bit,
               map_bits[i].name, map_bits[i].meaning);
    }
    uint64_t member = type >> MAP_MEMBER_OF_SHIFT;
    known |= 0xffffULL << MAP_MEMBER_OF_SHIFT;
    if (member)
      printf("  0x%-14" PRIx64 " %-13s member of argument %" PRIu64
             " (0-based; the field holds %" PRIu64 ")\n",
             member << MAP_MEMBER_OF_SHIFT, "member_of", member - 1, member);
    if (!(type & 0x3))
      printf("  %-16s %-13s no copy (alloc/release)\n", "", "");
    if (type & ~known) {
      printf("  0x%-14" PRIx64 " %-13s bits no OpenMP runtime defines\n",
             type & ~known, "unknown");
      status = 1;
    }
  }
  return status;
}
