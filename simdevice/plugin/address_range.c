/*
 * address_range.c - chooses where each device's memory lives in the device
 * address space and reserves that range, inaccessible, in the host.
 *
 * The range must be free in the host and stay free, so that a device pointer
 * dereferenced on the host faults and no host address ever equals a device
 * address. Sanitizers own large fixed regions of the address space: ASan's
 * allocator sits at 0x600000000000 (4 TiB), MSan's shadow and origin tables
 * cover everything but 0-0x010000000000, 0x510000000000-0x600000000000 and
 * 0x700000000000-0x800000000000, and TSan's application memory is only
 * 0-0x020000000000, 0x550000000000-0x5a0000000000, 0x720000000000-
 * 0x730000000000 (its heap) and 0x7a0000000000-0x800000000000; TSan kills the
 * process when an mmap result lands anywhere else. So the range is chosen
 * inside 1 TiB slots tried in a fixed order: the lowest 1 GiB-aligned start
 * whose whole range is absent from /proc/self/maps (sanitizers map or
 * protect all of their regions when they start; TSan's mmap would place a
 * hint outside its application memory at 0), then reserved with
 * MAP_FIXED_NOREPLACE. A device process that runs a sanitizer itself
 * (device code built with one: sanitizer.c) has that runtime's regions
 * avoided too. Without a sanitizer device d keeps 0x600000000000 + d TiB.
 *
 * Locking: no state of its own; the kernel's MAP_FIXED_NOREPLACE settles two
 * devices set up at once (the loser tries the next slot).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "plugin_internal.h"

/* Slots in units of SIMDEV_DEVICE_STRIDE (1 TiB), in the order tried: the
 * historical layout first, then MSan's and ASan's high application memory
 * (0x7f holds the libraries and stacks of both processes: not used), MSan's
 * second application region, TSan's low one. */
static const unsigned char slot_order[] = {
    0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a,
    0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79,
    0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x51, 0x52, 0x53, 0x54, 0x57, 0x58,
    0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x70, 0x71, 0x72, 0x73,
    0x01};

struct mapped_ranges {
  uint64_t (*ranges)[2]; /* [begin, end) of each line of /proc/self/maps */
  size_t count;
};

/* Reads /proc/self/maps; an unreadable file gives an empty list (then
 * MAP_FIXED_NOREPLACE alone checks). Returns 0, or -1 without host memory. */
static int read_mapped_ranges(struct mapped_ranges *m) {
  m->ranges = NULL;
  m->count = 0;
  FILE *maps = fopen("/proc/self/maps", "re");
  if (maps == NULL)
    return 0;
  size_t cap = 0;
  char line[512];
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, maps) != NULL) {
    unsigned long long lo, hi;
    if (sscanf(line, "%llx-%llx", &lo, &hi) != 2)
      continue;
    if (m->count == cap) {
      cap = cap ? cap * 2 : 256;
      void *grown = realloc(m->ranges, cap * sizeof *m->ranges);
      if (grown == NULL) {
        rc = -1;
        break;
      }
      m->ranges = grown;
    }
    m->ranges[m->count][0] = lo;
    m->ranges[m->count][1] = hi;
    m->count++;
  }
  fclose(maps);
  return rc;
}

/* The lowest 1 GiB-aligned start in [slot, slot + 1 TiB) from which
 * `capacity` bytes overlap no mapping, or 0 when there is none. */
static uint64_t free_start_in_slot(const struct mapped_ranges *m,
                                   uint64_t slot, uint64_t capacity) {
  const uint64_t align = 1ull << 30;
  uint64_t start = slot;
  for (int moved = 1; moved;) {
    if (start + capacity > slot + SIMDEV_DEVICE_STRIDE)
      return 0;
    moved = 0;
    for (size_t i = 0; i < m->count; i++)
      if (m->ranges[i][0] < start + capacity && m->ranges[i][1] > start) {
        start = (m->ranges[i][1] + align - 1) & ~(align - 1);
        moved = 1;
      }
  }
  return start;
}

/* Adds the regions the device process's sanitizer will own (sanitizer.c)
 * to the list, as if mapped. 0, or -1 without host memory. */
static int add_sanitizer_ranges(struct mapped_ranges *m, int sanitizer) {
  uint64_t owned[4][2];
  size_t n = sanitizer_reserved_ranges(sanitizer, owned, 4);
  if (n == 0)
    return 0;
  void *grown = realloc(m->ranges, (m->count + n) * sizeof *m->ranges);
  if (grown == NULL)
    return -1;
  m->ranges = grown;
  for (size_t i = 0; i < n; i++) {
    m->ranges[m->count][0] = owned[i][0];
    m->ranges[m->count][1] = owned[i][1];
    m->count++;
  }
  return 0;
}

/* Reserves [base, base + capacity) as dev's device memory, exactly there:
 * 0, or the errno (EEXIST where the kernel placed it elsewhere: an old
 * kernel without MAP_FIXED_NOREPLACE, an interposed mmap). */
static int reserve_at(struct sim_device *dev, uint64_t base,
                      uint64_t capacity) {
  void *hole = mmap((void *)base, capacity, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                        MAP_FIXED_NOREPLACE,
                    -1, 0);
  if (hole == (void *)base) {
    dev->dev_base = base;
    dev->reservation = hole;
    return 0;
  }
  if (hole == MAP_FAILED)
    return errno;
  munmap(hole, capacity);
  return EEXIST;
}

/* simtarget-replay: the recorded base only (a recording's pointers hold
 * it). 0, or -1 with the error set when it is taken here. */
static int reserve_wanted(struct sim_device *dev, struct mapped_ranges *maps,
                          uint64_t capacity) {
  uint64_t base = dev->wanted_base;
  unsigned long long lo = base, hi = base + capacity;
  if (free_start_in_slot(maps, base, capacity) != base) {
    plugin_error("simdevice: device %d: the recorded device memory "
                 "0x%llx..0x%llx is taken in this process (a mapping or a "
                 "sanitizer's region): the recording cannot be replayed here",
                 dev->id, lo, hi);
    return -1;
  }
  int err = reserve_at(dev, base, capacity);
  if (err == 0)
    return 0;
  uint64_t left = address_space_left();
  plugin_error("simdevice: device %d: cannot reserve the recorded device "
               "memory 0x%llx..0x%llx (%llu bytes, twice in the host): %s%s",
               dev->id, lo, hi, (unsigned long long)capacity, strerror(err),
               left != UINT64_MAX && left < 2 * capacity
                   ? "; the address-space limit (ulimit -v, RLIMIT_AS) is "
                     "too low for it"
                   : "");
  return -1;
}

int address_range_reserve(struct sim_device *dev, uint64_t capacity) {
  struct mapped_ranges maps;
  if (read_mapped_ranges(&maps) != 0 ||
      add_sanitizer_ranges(&maps, dev->sanitizer) != 0) {
    free(maps.ranges);
    plugin_error("simdevice: device %d: no host memory to read the address "
                 "space layout",
                 dev->id);
    return -1;
  }
  if (dev->wanted_base != 0) {
    int rc = reserve_wanted(dev, &maps, capacity);
    free(maps.ranges);
    return rc;
  }
  size_t first = (size_t)(dev->id + DEVICE_SLOT_OFFSET) % sizeof slot_order;
  int reserved = 0;
  for (size_t i = 0; i < sizeof slot_order && !reserved; i++) {
    /* Device d tries its historical slot first, then every other one. */
    size_t k = i == 0 ? first : (i <= first ? i - 1 : i);
    uint64_t base = free_start_in_slot(
        &maps, (uint64_t)slot_order[k] * SIMDEV_DEVICE_STRIDE, capacity);
    if (base == 0)
      continue;
    reserved = reserve_at(dev, base, capacity) == 0;
  }
  free(maps.ranges);
  uint64_t left = address_space_left();
  if (!reserved && left != UINT64_MAX && left < 2 * capacity)
    plugin_error("simdevice: device %d: the address-space limit (ulimit -v, "
                 "RLIMIT_AS) leaves %llu bytes, and the host maps device "
                 "memory twice: %llu bytes for SIMDEVICE_MEMORY=%llu; lower "
                 "SIMDEVICE_MEMORY or raise the limit by %llu KiB",
                 dev->id, (unsigned long long)left,
                 (unsigned long long)(2 * capacity),
                 (unsigned long long)capacity,
                 (unsigned long long)((2 * capacity - left + 1023) / 1024));
  else if (!reserved)
    plugin_error("simdevice: device %d: no free range of %llu bytes for its "
                 "memory in the host: the candidate 1 TiB slots between "
                 "0x010000000000 and 0x7f0000000000 are taken (by a "
                 "sanitizer's regions, other devices or the program); lower "
                 "SIMDEVICE_MEMORY or SIMDEVICE_NUM_DEVICES",
                 dev->id, (unsigned long long)capacity);
  return reserved ? 0 : -1;
}
