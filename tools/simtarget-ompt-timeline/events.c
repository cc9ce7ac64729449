/*
 * events.c - memory and copy entries (events.h).
 */
#include "events.h"
#include "writer.h"

#include <stdio.h>

void ev_memory(bool alloc, int device, void *dev_ptr, size_t bytes,
               uint64_t t0, uint64_t t1, long host_tid) {
  char name[100], args[300];
  if (alloc)
    snprintf(name, sizeof name, "alloc %zu B", bytes);
  else
    snprintf(name, sizeof name, "free");
  snprintf(args, sizeof args,
           "\"bytes\":%zu,\"device_ptr\":\"%p\",\"host_tid\":%ld", bytes,
           dev_ptr, host_tid);
  tl_complete(TL_DEVICE_PID(device), TL_MEMORY, name, alloc ? "alloc" : "free",
              t0, t1, args);
}

void ev_copy(bool to_device, int device, long track, bool queued,
             void *host_ptr, size_t bytes, uint64_t t0, uint64_t t1,
             long host_tid) {
  char name[200], args[400];
  snprintf(name, sizeof name, "%s%s %p %zu B", queued ? "queue " : "",
           to_device ? "to device" : "from device", host_ptr, bytes);
  snprintf(args, sizeof args,
           "\"direction\":\"%s\",\"bytes\":%zu,\"var\":\"\","
           "\"host_ptr\":\"%p\",\"queued\":%s,\"host_tid\":%ld",
           to_device ? "to_device" : "from_device", bytes, host_ptr,
           queued ? "true" : "false", host_tid);
  tl_complete(TL_DEVICE_PID(device), track, name, "copy", t0, t1, args);
}
