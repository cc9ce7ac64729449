/*
 * registry.h - what __tgt_register_lib hands us: descriptors, images and
 * offload entries, parsed into one normalised form.
 *
 * Images are raw ELF (clang 13, 14, 19, 22) or OffloadBinary containers
 * (magic 10 FF 10 AD; clang 15, 16). Entries are the legacy 32-byte layout
 * (13-19, possibly unaligned) or the 56-byte layout (22). Both are normalised
 * to `struct entry_info`; plugins are given a __tgt_device_image whose
 * ImageStart/End is the ELF payload and whose entries are an aligned legacy
 * array (`plugin_image`).
 *
 * Thread safety: registry_lock guards the list of registered libraries and
 * the requires flags. Parsed libraries are immutable after registration.
 */
#ifndef SIMTARGET_REGISTRY_H
#define SIMTARGET_REGISTRY_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "offload_image.h"
#include "omptarget.h"
#include "report.h"

struct entry_info {
  void *host_addr;  /* kernel: the region id (== host_ptr); global: its address */
  const char *name; /* points into the host binary */
  uint64_t size;    /* 0 for kernels, ctors, dtors, requires */
  int32_t flags;    /* enum tgt_entry_flags */
  int64_t data;     /* requires flags for a requires entry */
};

struct image_info {
  const __tgt_device_image *original;
  const void *payload; /* the ELF (or other) bytes inside */
  size_t payload_size;
  char triple[OFFLOAD_TEXT_MAX]; /* from the container; "" for raw images */
  char arch[OFFLOAD_TEXT_MAX];
  __tgt_device_image plugin_image; /* payload + normalised legacy entries */
};

struct registered_lib {
  const __tgt_bin_desc *desc;
  int32_t num_images;
  struct image_info *images;
  size_t num_entries;
  struct entry_info *entries;       /* normalised host entries            */
  __tgt_offload_entry *legacy;      /* the same, as aligned legacy entries */
  int64_t requires_flags;           /* from requires entries (19, 22)     */
  uint64_t generation;              /* order of registration, from 1      */
  struct registered_lib *next;
};

/* Parse one entry array (either layout). On success *out (malloc'ed) and *n
 * are set and 0 is returned; on error -1 and a reason in err. */
HIDDEN int registry_parse_entries(const void *begin, const void *end,
                                  struct entry_info **out, size_t *n,
                                  char *err, size_t err_len);
/* Find the payload of an image (raw ELF, or the OpenMP image of an
 * OffloadBinary container: common/offload_image.h) and check its ELF header
 * bounds. */
HIDDEN int registry_unwrap_image(const void *start, const void *end,
                                 struct image_info *info, char *err,
                                 size_t err_len);
/* Parse a whole descriptor. Returns NULL with a reason in err on error. */
HIDDEN struct registered_lib *registry_parse_descriptor(
    const __tgt_bin_desc *desc, char *err, size_t err_len);
HIDDEN void registry_free(struct registered_lib *lib);

/* The global list (newest last). */
HIDDEN int registry_add(const __tgt_bin_desc *desc);    /* 0 or -1 */
HIDDEN struct registered_lib *registry_remove(const __tgt_bin_desc *desc);
HIDDEN void registry_lock(void);
HIDDEN void registry_unlock(void);
HIDDEN struct registered_lib *registry_first(void); /* under registry_lock */
/* The generation of the newest library registered so far (0: none), read
 * without the lock: a device that loaded up to it has every library. */
HIDDEN uint64_t registry_last_generation(void);
HIDDEN void registry_add_requires(int64_t flags);
HIDDEN int64_t registry_requires(void);
/* "" or, after two libraries registered disagreeing requires flags, a
 * sentence saying which (the lead reports it). */
HIDDEN const char *registry_requires_conflict(void);
/* For unit tests: forget the requires flags recorded so far. */
#ifdef SIMTARGET_TEST_HOOKS
HIDDEN void registry_reset_requires_for_test(void);
#endif

#endif
