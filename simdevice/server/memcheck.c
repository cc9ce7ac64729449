/*
 * memcheck.c - what memcheck knows of device memory in this process
 * (SIMDEVICE_VALGRIND=memcheck; simdev_control.valgrind_tool), and for
 * every SIMDEVICE_VALGRIND tool the verdict after a kernel it reported
 * errors in (memcheck_after_kernel; Helgrind's and DRD's in races.c).
 *
 * The host writes device memory through its own mapping of the memfd, so
 * memcheck, which watches only this process, would take every device byte
 * for written. Instead the host sends byte-exact marks in the queue of
 * protection changes (protocol.h, enum simdev_mark), and this file turns
 * them into client requests: device memory starts NOACCESS; an allocation
 * makes exactly its bytes UNDEFINED (the bytes of its pages before its
 * start and after its end stay NOACCESS, so a read one char past a section
 * or one element before it is reported to the byte); a copy from the host
 * makes what it wrote DEFINED; a free makes the bytes NOACCESS again. What
 * a kernel writes memcheck sees by itself. Each allocation is a memcheck
 * block (VALGRIND_CREATE_BLOCK), so memcheck's reports say "N bytes after a
 * block of size M" and, once libomptarget named it (memcheck_name), name
 * the variable.
 *
 * Off (not under Valgrind, or marks not asked for), every function here
 * returns at once.
 *
 * Locking: memcheck_apply runs under protections.c's prot_lock; the block
 * table is also read and written by memcheck_name and memcheck_describe,
 * which the main slot's thread calls: `lock` guards the table.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_findings.h"
#include "server.h"

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define HAVE_MEMCHECK_H 1
#else
#define HAVE_MEMCHECK_H 0
#endif

#if !HAVE_MEMCHECK_H
/* Built without Valgrind's headers: nothing to tell a tool. */
int memcheck_on(void) { return 0; }
void memcheck_init(const struct simdev_control *ctl) { (void)ctl; }
void memcheck_name(uint64_t offset, uint64_t size, const char *text) {
  (void)offset, (void)size, (void)text;
}
int memcheck_apply(const struct simdev_prot_change *c) {
  return c->access >= SIMDEV_MARK_UNDEFINED;
}
unsigned memcheck_errors(void) { return 0; }
void memcheck_after_kernel(const char *kernel, unsigned errors_before) {
  (void)kernel, (void)errors_before;
}
void memcheck_copy_back(uint64_t offset, uint64_t size) {
  (void)offset, (void)size;
}
void memcheck_before_exit(void) {}
#else

static int on;
static uint32_t tool; /* simdev_control.valgrind_tool, under Valgrind */
static unsigned char *base;
static uint64_t capacity;

/* Live allocations by offset (open addressing, grown at half full): the
 * memcheck block handle and the description, for the host's names. */
struct mc_block {
  uint64_t offset, size; /* size 0: empty slot */
  uint64_t head;         /* bytes before it that are its block's padding */
  unsigned handle, head_handle; /* memcheck's blocks (0: none) */
  char *name; /* the variable (memcheck_name), or NULL */
  char *how;  /* how and where it was mapped, with `name` */
};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct mc_block *table;
static size_t table_cap, table_used;

int memcheck_on(void) { return on; }

void memcheck_init(const struct simdev_control *ctl) {
  if (!RUNNING_ON_VALGRIND)
    return;
  base = (unsigned char *)(uintptr_t)ctl->dev_base;
  capacity = ctl->capacity;
  tool = ctl->valgrind_tool;
  if (tool != 1)
    return;
  /* Nothing is allocated yet: no byte may be touched. */
  VALGRIND_MAKE_MEM_NOACCESS(base, capacity);
  on = 1;
}

static size_t slot_of(uint64_t offset) {
  return (size_t)((offset * 0x9E3779B97F4A7C15ull) >> 20) & (table_cap - 1);
}

/* The entry of the block at `offset`, or NULL (under lock). */
static struct mc_block *find(uint64_t offset) {
  if (table_cap == 0)
    return NULL;
  for (size_t i = slot_of(offset);; i = (i + 1) & (table_cap - 1)) {
    if (table[i].size == 0)
      return NULL;
    if (table[i].offset == offset)
      return &table[i];
  }
}

static int grow(void) {
  size_t cap = table_cap ? table_cap * 2 : 256;
  struct mc_block *t = calloc(cap, sizeof *t), *old = table;
  if (t == NULL)
    return -1;
  size_t old_cap = table_cap;
  table = t;
  table_cap = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].size != 0) {
      size_t s = slot_of(old[i].offset);
      while (table[s].size != 0)
        s = (s + 1) & (cap - 1);
      table[s] = old[i];
    }
  free(old);
  return 0;
}

/* Tells memcheck the block's description (replacing the one it had).
 * Memcheck names a client block only for addresses inside it, so the
 * block covers the allocation's padding up to the next 8 bytes too (the
 * host ends allocations there, plugin/allocator.c), and the padding before
 * it is a block of its own: a read one char past a section or one element
 * before it then names the allocation. Handles start at 0, so each is
 * kept plus one. */
static void describe(struct mc_block *b) {
  char what[300], desc[400];
  uint64_t padded = (b->size + 7) & ~7ull;
  if (b->handle != 0)
    VALGRIND_DISCARD(b->handle - 1);
  if (b->head_handle != 0)
    VALGRIND_DISCARD(b->head_handle - 1);
  char named[260] = "";
  if (b->name != NULL)
    snprintf(named, sizeof named, " of `%.100s` (%.140s)", b->name, b->how);
  snprintf(what, sizeof what, "device allocation%s (%llu bytes at 0x%llx",
           named,
           (unsigned long long)b->size,
           (unsigned long long)(uintptr_t)(base + b->offset));
  if (padded > b->size)
    snprintf(desc, sizeof desc, "%s, then %llu bytes of padding no section "
             "covers)", what, (unsigned long long)(padded - b->size));
  else
    snprintf(desc, sizeof desc, "%s)", what);
  b->handle = VALGRIND_CREATE_BLOCK(base + b->offset, padded, desc) + 1;
  b->head_handle = 0;
  if (b->head > 0) {
    snprintf(desc, sizeof desc, "padding before the %s)", what);
    b->head_handle =
        VALGRIND_CREATE_BLOCK(base + b->offset - b->head, b->head, desc) + 1;
  }
}

/* A new allocation at [offset, offset + size) (under lock). */
static void block_add(uint64_t offset, uint64_t size) {
  struct mc_block *b = find(offset);
  if (b == NULL) {
    if ((table_used + 1) * 2 > table_cap && grow() != 0)
      return; /* no block: memcheck's reports just name no allocation */
    size_t s = slot_of(offset);
    while (table[s].size != 0)
      s = (s + 1) & (table_cap - 1);
    b = &table[s];
    *b = (struct mc_block){.offset = offset};
    table_used++;
  }
  free(b->name);
  b->name = b->how = NULL;
  b->size = size;
  b->head = 0;
  describe(b);
}

/* The allocation at `offset` is freed (under lock). */
static void block_remove(uint64_t offset) {
  struct mc_block *b = find(offset);
  if (b == NULL)
    return;
  if (b->handle != 0)
    VALGRIND_DISCARD(b->handle - 1);
  if (b->head_handle != 0)
    VALGRIND_DISCARD(b->head_handle - 1);
  free(b->name);
  size_t mask = table_cap - 1, i = (size_t)(b - table);
  table[i].size = 0;
  table_used--;
  /* Backward-shift deletion keeps every probe chain unbroken. */
  for (size_t j = (i + 1) & mask; table[j].size != 0; j = (j + 1) & mask) {
    size_t home = slot_of(table[j].offset);
    if (((j - home) & mask) >= ((j - i) & mask)) {
      table[i] = table[j];
      table[j].size = 0;
      i = j;
    }
  }
}

void memcheck_name(uint64_t offset, uint64_t size, const char *text) {
  if (!on)
    return;
  pthread_mutex_lock(&lock);
  struct mc_block *b = find(offset);
  const char *nl = strchr(text, '\n');
  if (b != NULL && b->size == size && nl != NULL) {
    free(b->name);
    b->name = strdup(text); /* one allocation: the name, then `how` */
    if (b->name != NULL) {
      b->name[nl - text] = '\0';
      b->how = b->name + (nl - text) + 1;
    }
    describe(b);
  }
  pthread_mutex_unlock(&lock);
}

int memcheck_apply(const struct simdev_prot_change *c) {
  if (c->access < SIMDEV_MARK_UNDEFINED)
    return 0;
  if (!on || c->offset >= capacity || c->length > capacity - c->offset ||
      c->length == 0)
    return 1;
  unsigned char *p = base + c->offset;
  pthread_mutex_lock(&lock);
  switch (c->access) {
  case SIMDEV_MARK_UNDEFINED:
    VALGRIND_MAKE_MEM_UNDEFINED(p, c->length);
    block_add(c->offset, c->length);
    break;
  case SIMDEV_MARK_DEFINED:
    VALGRIND_MAKE_MEM_DEFINED(p, c->length);
    break;
  case SIMDEV_MARK_NOACCESS:
    VALGRIND_MAKE_MEM_NOACCESS(p, c->length);
    if (find(c->offset) != NULL) {
      block_remove(c->offset); /* freed */
    } else {
      /* The padding before a new allocation (queued right after it). */
      struct mc_block *b = find(c->offset + c->length);
      if (b != NULL && b->head == 0) {
        b->head = c->length;
        describe(b);
      }
    }
    break;
  default:
    break;
  }
  pthread_mutex_unlock(&lock);
  return 1;
}

/* ---------------------------------------------------- what simtarget adds */
/* The most bytes of one allocation scanned for never-written bytes: the
 * scan costs a client request per 4 KiB. */
#define SCAN_MAX (16ull << 20)

/* 1 when no byte of [p, p + n) was ever written (every bit undefined). */
static int never_written(const unsigned char *p, uint64_t n) {
  unsigned char v[4096];
  if (n == 0 || n > SCAN_MAX)
    return 0;
  for (uint64_t at = 0; at < n;) {
    uint64_t k = n - at < sizeof v ? n - at : sizeof v;
    if (VALGRIND_GET_VBITS(p + at, v, k) != 1)
      return 0;
    for (uint64_t i = 0; i < k; i++)
      if (v[i] != 0xff)
        return 0;
    at += k;
  }
  return 1;
}

/* The named allocations no copy and no kernel wrote, "`a` (...), `b`
 * (...)", into buf (under lock); "" when none. */
static void list_never_written(char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < table_cap && used + 1 < len; i++) {
    const struct mc_block *b = &table[i];
    if (b->size == 0 || b->name == NULL ||
        !never_written(base + b->offset, b->size))
      continue;
    int n = snprintf(buf + used, len - used, "%s`%s` (%s)", used ? "; " : "",
                     b->name, b->how);
    used = n < 0 ? len : used + (size_t)n;
  }
}

/* The first `name` of a list, or NULL (into buf). */
static const char *first_variable(const char *list, char *buf, size_t len) {
  const char *a = strchr(list, '`'), *z = a ? strchr(a + 1, '`') : NULL;
  if (z == NULL)
    return NULL;
  snprintf(buf, len, "%.*s", (int)(z - a - 1), a + 1);
  return buf;
}

static void finding(const char *rule, const char *variable,
                    const char *kernel, const char *message) {
  struct check_finding f = {.check = "memcheck",
                            .rule = rule,
                            .variable = variable,
                            .kernel = kernel,
                            .message = message,
                            .gpu = "a GPU reads whatever the memory held "
                                   "before: the result is garbage, or right "
                                   "by chance",
                            .fix = "map the data `to` (or `tofrom`), or "
                                   "write it on the device before reading "
                                   "it"};
  if (check_finding_write(&f) < 0)
    fprintf(stderr, "simdevice: cannot write the finding to %s: %s\n",
            CHECK_REPORT_ENV, strerror(errno));
}

unsigned memcheck_errors(void) {
  return tool != 0 ? (unsigned)VALGRIND_COUNT_ERRORS : 0;
}

void memcheck_after_kernel(const char *kernel, unsigned errors_before) {
  if (tool == 0 || (unsigned)VALGRIND_COUNT_ERRORS == errors_before)
    return;
  static const char *const names[] = {"", "memcheck", "helgrind", "drd"};
  if (!on) { /* Helgrind's or DRD's: races */
    races_after_kernel(names[tool < 4 ? tool : 0], kernel);
    return;
  }
  valgrind_log_show(); /* its reports first: "(above)" */
  char never[1200], message[1600], first_name[200];
  pthread_mutex_lock(&lock);
  list_never_written(never, sizeof never);
  pthread_mutex_unlock(&lock);
  snprintf(message, sizeof message,
           "memcheck reported errors in kernel `%.200s` (above)%s%s",
           kernel, never[0] ? "; device memory no copy and no kernel gave "
                              "a value: "
                            : "",
           never);
  fprintf(stderr, "simdevice: %s\n", message);
  finding("device-memory-error", first_variable(never, first_name,
                                                sizeof first_name),
          kernel, message);
}

void memcheck_copy_back(uint64_t offset, uint64_t size) {
  if (!on || offset >= capacity || size > capacity - offset ||
      !never_written(base + offset, size))
    return;
  char name[200] = "", how[300] = "", never[1200], message[2000];
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < table_cap; i++) {
    const struct mc_block *b = &table[i];
    if (b->size != 0 && b->offset <= offset &&
        offset - b->offset < b->size && b->name != NULL) {
      snprintf(name, sizeof name, "%s", b->name);
      snprintf(how, sizeof how, "%s", b->how);
    }
  }
  list_never_written(never, sizeof never);
  pthread_mutex_unlock(&lock);
  snprintf(message, sizeof message,
           "the %llu bytes of `%s` (%s) copied back to the host hold no "
           "value: no copy and no kernel wrote them, or a kernel computed "
           "them from device memory without one (now: %s)",
           (unsigned long long)size, name[0] ? name : "device memory",
           how[0] ? how : "not mapped by a construct",
           never[0] ? never : "none");
  fprintf(stderr, "simdevice: %s\n", message);
  finding("never-written-copied-back", name[0] ? name : NULL, NULL, message);
}

/* Memcheck's leak search at the process's end reads every readable byte
 * that is not NOACCESS. Device memory is as large as SIMDEVICE_MEMORY (the
 * machine's memory by default), and each page of the memfd it reads is a
 * page allocated: a device process under SIMDEVICE_WRAPPER=valgrind (or
 * simtarget-replay --valgrind) with SIMDEVICE_GUARD=0 filled 24 GiB and
 * was killed for memory after minutes. The caller's _exit follows at once
 * (and Valgrind runs one thread at a time). A request of memcheck's: other
 * tools ignore it. */
void memcheck_before_exit(void) {
  if (capacity > 0)
    VALGRIND_MAKE_MEM_NOACCESS(base, capacity);
}
#endif /* HAVE_MEMCHECK_H */
