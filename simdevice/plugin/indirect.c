/*
 * indirect.c - `declare target indirect` on the host side of simdevice:
 * __tgt_rtl_set_function_ptr_map's table (host function -> device function)
 * is kept per device and sent to the device process, which redirects calls
 * through host function pointers and answers __kmpc_target_translate_fptr
 * (simdevice/server/indirect.c).
 *
 * Contract with libomptarget (src/device.c): every call passes the WHOLE
 * current table of the device (all loaded libraries), replacing the previous
 * one; size 0 clears it. Rows need not be sorted; rows repeating a host
 * address (the same function declared indirect in several libraries or
 * translation units, each image holding its own copy) are kept once: any
 * copy is the same function. The table survives a restart of the device
 * process: it is sent again before the first command to the new process.
 *
 * Locking: everything here runs under the device's channel_lock.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lock_check.h"
#include "plugin_internal.h"

struct device_fptr_table {
  struct simdev_fptr_row *rows;
  uint64_t count;
  pid_t sent_to; /* process that has it; 0 when none has */
};

static struct device_fptr_table tables[PLUGIN_MAX_DEVICES];

static int row_order(const void *a, const void *b) {
  const struct simdev_fptr_row *x = a, *y = b;
  if (x->host != y->host)
    return x->host < y->host ? -1 : 1;
  return x->device < y->device ? -1 : x->device > y->device;
}

/* Sends the device's table in bounce-sized chunks; the last one installs. */
static int send_table(struct sim_device *dev, struct device_fptr_table *t) {
  struct simdev_slot *s = &dev->ctl->slot;
  const uint64_t per_chunk = SIMDEV_BOUNCE_SIZE / sizeof(struct simdev_fptr_row);
  uint64_t at = 0;
  do {
    uint64_t n = t->count - at < per_chunk ? t->count - at : per_chunk;
    if (n > 0)
      memcpy(dev->bounce, t->rows + at, n * sizeof *t->rows);
    s->a[0] = n;
    s->a[1] = at;
    s->a[2] = t->count;
    if (channel_send(dev, SIMDEV_CMD_FPTR_MAP, NULL) != 0)
      return -1;
    at += n;
  } while (at < t->count);
  t->sent_to = dev->pid;
  return 0;
}

int indirect_set(struct sim_device *dev, uint64_t size,
                 const __tgt_fptr_map *table) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  if (size > 0 && table == NULL) {
    plugin_error("simdevice: set_function_ptr_map on device %d: %" PRIu64
                 " rows but no table",
                 dev->id, size);
    return -1;
  }
  if (size > SIZE_MAX / sizeof(struct simdev_fptr_row)) {
    plugin_error("simdevice: set_function_ptr_map on device %d: %" PRIu64
                 " rows is too many",
                 dev->id, size);
    return -1;
  }
  struct simdev_fptr_row *rows = NULL;
  if (size > 0 && (rows = malloc(size * sizeof *rows)) == NULL) {
    plugin_error("simdevice: no host memory for %" PRIu64
                 " indirect functions of device %d",
                 size, dev->id);
    return -1;
  }
  for (uint64_t i = 0; i < size; i++) {
    if (table[i].host_ptr == 0 || table[i].device_ptr == 0) {
      plugin_error("simdevice: set_function_ptr_map on device %d: row %" PRIu64
                   " maps host 0x%" PRIx64 " to device 0x%" PRIx64
                   "; neither may be NULL",
                   dev->id, i, table[i].host_ptr, table[i].device_ptr);
      free(rows);
      return -1;
    }
    rows[i] = (struct simdev_fptr_row){table[i].host_ptr, table[i].device_ptr};
  }
  if (size > 1)
    qsort(rows, size, sizeof *rows, row_order);
  uint64_t kept = 0;
  for (uint64_t i = 0; i < size; i++)
    if (kept == 0 || rows[kept - 1].host != rows[i].host)
      rows[kept++] = rows[i];
  struct device_fptr_table *t = &tables[dev->id];
  struct device_fptr_table previous = *t;
  *t = (struct device_fptr_table){.rows = rows, .count = kept, .sent_to = 0};
  if (send_table(dev, t) != 0) {
    /* Keep what the device process (or its restart) already agrees with. */
    free(t->rows);
    *t = previous;
    return -1;
  }
  free(previous.rows);
  return 0;
}

int indirect_resync(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  struct device_fptr_table *t = &tables[dev->id];
  if (t->count == 0 || t->sent_to == dev->pid)
    return 0;
  return send_table(dev, t);
}

void indirect_forget(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  struct device_fptr_table *t = &tables[dev->id];
  free(t->rows);
  memset(t, 0, sizeof *t);
}
