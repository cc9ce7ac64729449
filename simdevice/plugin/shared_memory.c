/*
 * shared_memory.c - host and shared memory (llvm_omp_target_alloc_host /
 * _shared, data_alloc kinds TARGET_ALLOC_HOST and TARGET_ALLOC_SHARED):
 * device memory that the host process also maps, at the same address, so
 * one pointer works in host code and in kernels. The block comes from the
 * device allocator (the device process maps all device memory at dev_base
 * already); its whole pages are then mapped in the host over the PROT_NONE
 * reservation that otherwise keeps the host off device addresses, and put
 * back under the reservation when freed. Other device memory stays
 * unreachable from the host.
 *
 * Locking: `shared_lock` guards each device's list of such blocks; the
 * allocator has its own lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "plugin_internal.h"

struct shared_block {
  struct shared_block *next;
  uint64_t addr, len;   /* the host-mapped pages, = the user's pointer */
  uint64_t block;       /* the allocator's offset of the whole block */
};

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

void *shared_alloc(struct sim_device *dev, int64_t size, const char *kind) {
  uint64_t len = ((uint64_t)(size ? size : 1) + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
  uint64_t block;
  /* One page more, so that whole pages inside the block can be mapped. */
  if (allocator_alloc(&dev->alloc, len + PAGE_BYTES, 0, &block) != 0)
    return NULL;
  /* memcheck: the host writes it without copies: every byte is defined. */
  if (allocator_mark(&dev->alloc, block, len + PAGE_BYTES,
                     SIMDEV_MARK_DEFINED) != 0) {
    allocator_free(&dev->alloc, block);
    return NULL;
  }
  uint64_t start = (block + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
  struct shared_block *s = malloc(sizeof *s);
  void *at = s ? mmap((void *)(dev->dev_base + start), len, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_FIXED, dev->mem_fd, (off_t)start)
               : MAP_FAILED;
  if (at == MAP_FAILED) {
    plugin_error("simdevice: device %d: cannot map %s memory of %lld bytes "
                 "into the host at 0x%llx: %s",
                 dev->id, kind, (long long)size,
                 (unsigned long long)(dev->dev_base + start),
                 s ? strerror(errno) : "no host memory for its record");
    free(s);
    allocator_free(&dev->alloc, block);
    return NULL;
  }
  s->addr = dev->dev_base + start;
  s->len = len;
  s->block = block;
  pthread_mutex_lock(&shared_lock);
  s->next = dev->shared_blocks;
  dev->shared_blocks = s;
  pthread_mutex_unlock(&shared_lock);
  return at;
}

/* Puts [addr, addr+len) back under the host's PROT_NONE reservation. */
static int unmap_from_host(uint64_t addr, uint64_t len) {
  void *hole = mmap((void *)addr, len, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  return hole == MAP_FAILED ? -1 : 0;
}

int shared_free(struct sim_device *dev, uint64_t addr) {
  pthread_mutex_lock(&shared_lock);
  struct shared_block **link = &dev->shared_blocks;
  while (*link != NULL && (*link)->addr != addr)
    link = &(*link)->next;
  struct shared_block *s = *link;
  if (s != NULL)
    *link = s->next;
  pthread_mutex_unlock(&shared_lock);
  if (s == NULL)
    return 0;
  int rc = unmap_from_host(s->addr, s->len);
  if (rc != 0)
    plugin_error("simdevice: device %d: cannot unmap the host or shared "
                 "memory at 0x%llx from the host: %s",
                 dev->id, (unsigned long long)s->addr, strerror(errno));
  if (allocator_free(&dev->alloc, s->block) != 0)
    rc = -1;
  free(s);
  return rc == 0 ? 1 : -1;
}

int shared_contains(struct sim_device *dev, uint64_t addr, uint64_t size) {
  int found = 0;
  pthread_mutex_lock(&shared_lock);
  for (struct shared_block *s = dev->shared_blocks; s != NULL && !found;
       s = s->next)
    found = addr >= s->addr && addr - s->addr <= s->len &&
            size <= s->len - (addr - s->addr);
  pthread_mutex_unlock(&shared_lock);
  return found;
}

void shared_forget(struct sim_device *dev) {
  pthread_mutex_lock(&shared_lock);
  struct shared_block *s = dev->shared_blocks;
  dev->shared_blocks = NULL;
  pthread_mutex_unlock(&shared_lock);
  while (s != NULL) { /* their mappings go with the reservation */
    struct shared_block *next = s->next;
    free(s);
    s = next;
  }
}
