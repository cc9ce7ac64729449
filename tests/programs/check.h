/*
 * check.h - the few helpers every program in tests/programs/ shares: count
 * failed checks, say which one failed, and end with PASS or FAIL.
 * Single-threaded use on the host only (no lock needed).
 */
#ifndef SIMTARGET_PROGRAM_CHECK_H
#define SIMTARGET_PROGRAM_CHECK_H

#include <stdio.h>

static int check_failures;

/* Record one expectation; print the failed condition with its line. */
#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      check_failures++;                                                    \
      printf("check failed at line %d: %s\n", __LINE__, #cond);            \
    }                                                                      \
  } while (0)

/* Like CHECK, for integers: shows both values. */
#define CHECK_EQ(got, want)                                                \
  do {                                                                     \
    long long got_ = (long long)(got), want_ = (long long)(want);          \
    if (got_ != want_) {                                                   \
      check_failures++;                                                    \
      printf("check failed at line %d: %s == %lld, expected %lld\n",       \
             __LINE__, #got, got_, want_);                                 \
    }                                                                      \
  } while (0)

/* The last line every program prints; the exit status follows it. */
static int check_finish(void) {
  printf("%s\n", check_failures ? "FAIL" : "PASS");
  fflush(stdout);
  return check_failures ? 1 : 0;
}

#endif
