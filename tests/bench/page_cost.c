/* page_cost.c - what the kernel charges for a new page of memory on this
 * machine, the floor under a guarded device allocation (each has a data page
 * of its own; tests/bench.sh prints these next to new_object_64B_us).
 * A plain C program (no offload); prints "metric value us" lines:
 *   page_shared_new_us      first write to a new page of a memfd mapping
 *   page_anonymous_new_us   first write to a new anonymous page
 *   page_shared_fallocate_us  fallocate of new memfd pages, per page
 *   page_shared_existing_us   first write through a second mapping of pages
 *                             that exist already (the page-table entry only)
 *   page_shared_populate_us   MADV_POPULATE_WRITE of such a mapping, per page
 *   page_shared_populate_new_us  MADV_POPULATE_WRITE of new memfd pages in
 *                             one call, per page: what a thread preparing
 *                             pages ahead of the allocations would pay
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define PAGES 20000

static long page;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void report(const char *name, double seconds) {
  printf("%s %.3f us\n", name, seconds / PAGES * 1e6);
}

/* Writes one byte to every page of p; returns the seconds it took. */
static double touch(char *p) {
  double t0 = now();
  for (long i = 0; i < PAGES; i++)
    p[i * page + 8] = 1;
  return now() - t0;
}

static char *map_shared(int fd) {
  char *p = mmap(NULL, (size_t)PAGES * page, PROT_READ | PROT_WRITE, MAP_SHARED,
                 fd, 0);
  if (p == MAP_FAILED) {
    perror("page_cost: mmap");
    exit(1);
  }
  return p;
}

static int new_memfd(void) {
  int fd = memfd_create("page_cost", 0);
  if (fd < 0 || ftruncate(fd, (off_t)PAGES * page) != 0) {
    perror("page_cost: memfd");
    exit(1);
  }
  return fd;
}

int main(void) {
  page = sysconf(_SC_PAGESIZE);
  size_t bytes = (size_t)PAGES * page;

  int fd = new_memfd();
  char *first = map_shared(fd);
  report("page_shared_new_us", touch(first));
  char *second = map_shared(fd);
  report("page_shared_existing_us", touch(second));
  char *third = map_shared(fd);
  double t0 = now();
  int populated = madvise(third, bytes, MADV_POPULATE_WRITE) == 0;
  if (populated)
    report("page_shared_populate_us", now() - t0);
  munmap(first, bytes);
  munmap(second, bytes);
  munmap(third, bytes);
  close(fd);

  fd = new_memfd();
  char *fresh = map_shared(fd);
  t0 = now();
  if (madvise(fresh, bytes, MADV_POPULATE_WRITE) == 0)
    report("page_shared_populate_new_us", now() - t0);
  munmap(fresh, bytes);
  close(fd);

  fd = new_memfd();
  t0 = now();
  if (fallocate(fd, 0, 0, (off_t)bytes) == 0)
    report("page_shared_fallocate_us", now() - t0);
  close(fd);

  char *anon = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (anon == MAP_FAILED) {
    perror("page_cost: mmap");
    return 1;
  }
  report("page_anonymous_new_us", touch(anon));
  munmap(anon, bytes);
  return 0;
}
