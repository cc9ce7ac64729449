/* histogram_race.c - threads of a target region count values into a
 * mapped histogram without an atomic (a race a GPU hides as a wrong
 * count), device code built with -fsanitize=thread: simtarget-check's
 * finding names the mapped section the race is on and the kernel's line
 * (tests/check.sh). */
#include <stdio.h>
#include <stdlib.h>

#define BINS 8

struct histogram {
  int *count; /* BINS counters */
  long samples;
};

static struct histogram hist;

int main(void) {
  int n = 4000;
  int *values = malloc(n * sizeof *values);
  hist.count = calloc(BINS, sizeof *hist.count);
  for (int i = 0; i < n; i++)
    values[i] = (i * 7) % BINS;
  int *count = hist.count;
#pragma omp target parallel for num_threads(4) map(to : values[0:n]) map(tofrom : count[0:BINS])
  for (int i = 0; i < n; i++)
    count[values[i]]++; /* the race: no atomic */
  long total = 0;
  for (int b = 0; b < BINS; b++)
    total += count[b];
  printf("counted %ld of %d\n", total, n);
  free(values);
  free(hist.count);
  return 0;
}
