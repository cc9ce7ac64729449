/* Four host threads offload; one of them calls exit() while the other three
 * are inside a long target region. The profile must still be one valid
 * JSON array, with a track per host thread (whatever the runtime does with
 * the three constructs cut short: LLVM's runtime crashes here; simtarget
 * lets them end with the process, with the status exit() was given). */
// any-exit: the runtime may report the constructs exit() cut short
// profile: track host thread 3
// profile: track main thread
// profile: kernel work_l
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 4096
static double data[4][N];
static pthread_barrier_t all_started;

static void work(int t, long spins) {
  double *d = data[t];
#pragma omp target map(tofrom: d[0:N])
  for (long i = 0; i < N * spins; i++)
    d[i % N] += 1;
}

static void *thread_main(void *arg) {
  int t = (int)(long)arg;
  work(t, 1);
  pthread_barrier_wait(&all_started);
  if (t == 2) {
    usleep(50000); /* the others are in their long regions now */
    printf("PASS\n");
    fflush(stdout);
    exit(0);
  }
  work(t, 100000); /* ~0.15 s each (the compilers vectorise the loop) */
  return NULL;
}

int main(void) {
  pthread_t th[3];
  work(3, 1); /* the main thread's own track */
  pthread_barrier_init(&all_started, NULL, 4);
  for (long t = 0; t < 3; t++)
    pthread_create(&th[t], NULL, thread_main, (void *)t);
  pthread_barrier_wait(&all_started);
  work(3, 100000);
  /* Only thread 2 ends the program: main returning would exit() too, and
   * did first whenever its region ended within thread 2's 50 ms. */
  for (int t = 0; t < 3; t++)
    pthread_join(th[t], NULL);
  return 1;
}
// svg: kernel work_l21
