/*
 * names.c - the host variable each device allocation holds, as
 * libomptarget named it (SIMDEV_CMD_NAME, sent while this process runs a
 * sanitizer or memcheck), so that a sanitizer's report on device memory
 * in this process names the mapped variable (sanitizer.c), as the host's
 * fault messages do.
 *
 * The names are kept sorted by offset, without overlaps: a new name
 * replaces those it overlaps, and a range freed (protections.c closes its
 * pages) drops the names that start in it. At most NAMES_MAX are kept
 * (more live mappings than that: the newest go unnamed), which bounds the
 * cost of an insertion.
 *
 * Locking: `lock` guards the array; names_set and names_drop come from
 * the main slot's thread and the protection changes, names_describe from
 * kernel threads (a sanitizer's report).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

#define NAMES_MAX 16384

struct named_range {
  uint64_t offset, size;
  char *text; /* the variable, a newline, how and where it was mapped */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct named_range *ranges;
static size_t used, cap;
static uint64_t base, capacity; /* device memory in this process */

void names_init(uint64_t dev_base, uint64_t dev_capacity) {
  base = dev_base;
  capacity = dev_capacity;
}

/* The index of the first range that ends after `offset` (under lock). */
static size_t first_ending_after(uint64_t offset) {
  size_t lo = 0, hi = used;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ranges[mid].offset + ranges[mid].size <= offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Removes ranges [from, to) of the array (under lock). */
static void remove_ranges(size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    free(ranges[i].text);
  memmove(ranges + from, ranges + to, (used - to) * sizeof *ranges);
  used -= to - from;
}

void names_set(uint64_t offset, uint64_t size, const char *text) {
  if (size == 0 || strchr(text, '\n') == NULL)
    return;
  char *copy = strdup(text);
  if (copy == NULL)
    return; /* unnamed: reports give the address only */
  pthread_mutex_lock(&lock);
  size_t at = first_ending_after(offset), end = at;
  while (end < used && ranges[end].offset < offset + size)
    end++;
  remove_ranges(at, end);
  if (used == cap && cap < NAMES_MAX) {
    size_t n = cap ? cap * 2 : 64;
    struct named_range *r = realloc(ranges, n * sizeof *r);
    if (r != NULL) {
      ranges = r;
      cap = n;
    }
  }
  if (used < cap) {
    memmove(ranges + at + 1, ranges + at, (used - at) * sizeof *ranges);
    ranges[at] = (struct named_range){offset, size, copy};
    used++;
    copy = NULL;
  }
  pthread_mutex_unlock(&lock);
  free(copy);
}

void names_drop(uint64_t offset, uint64_t length) {
  pthread_mutex_lock(&lock);
  if (used > 0) {
    size_t at = first_ending_after(offset), end = at;
    while (end < used && ranges[end].offset < offset + length)
      end++;
    /* a range that starts before the freed pages is another allocation */
    if (at < end && ranges[at].offset < offset)
      at++;
    if (at < end)
      remove_ranges(at, end);
  }
  pthread_mutex_unlock(&lock);
}

int names_describe(const void *addr, char *variable, size_t variable_len,
                   char *how, size_t how_len) {
  uint64_t offset = (uint64_t)(uintptr_t)addr - base;
  if ((uint64_t)(uintptr_t)addr < base || offset >= capacity)
    return 0; /* not device memory */
  int found = 0;
  pthread_mutex_lock(&lock);
  size_t at = first_ending_after(offset);
  if (at < used && ranges[at].offset <= offset) {
    const char *text = ranges[at].text, *nl = strchr(text, '\n');
    snprintf(variable, variable_len, "%.*s", (int)(nl - text), text);
    snprintf(how, how_len, "%" PRIu64 " bytes into it; %s",
             offset - ranges[at].offset, nl + 1);
    found = 1;
  }
  pthread_mutex_unlock(&lock);
  return found;
}
