// One host thread calls exit(0) while three others keep offloading (loops of
// short target regions): exit unloads the device code and releases the
// device under them. The status is the one given to exit(), and the
// constructs that fail because the program is ending are no fatal error of
// the program's; the host never crashes. It used to end with a fatal error
// ("not a kernel of any loaded image", status 1, often before the exiting
// thread printed) or a segfault in the device table the library's
// destructor had freed. LLVM's own runtime crashes here.
// simtarget-only
// cflags: -g
// repeat: 12
// expect-stderr-not: fatal error
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 1024
static double data[4][N];
static pthread_barrier_t all_started;

static void work(int t) {
  double *d = data[t];
#pragma omp target map(tofrom : d[0:N])
  for (int i = 0; i < N; i++)
    d[i] += 1;
}

static void *offload_forever(void *arg) {
  int t = (int)(long)arg;
  work(t);
  pthread_barrier_wait(&all_started);
  for (;;)
    work(t);
  return NULL;
}

static void *exit_soon(void *arg) {
  (void)arg;
  work(2);
  pthread_barrier_wait(&all_started);
  usleep(20000); /* the others are offloading now */
  printf("PASS\n");
  fflush(stdout);
  exit(0);
}

int main(void) {
  pthread_t th[3];
  pthread_barrier_init(&all_started, NULL, 4);
  pthread_create(&th[0], NULL, offload_forever, (void *)0L);
  pthread_create(&th[1], NULL, offload_forever, (void *)1L);
  pthread_create(&th[2], NULL, exit_soon, NULL);
  offload_forever((void *)3L);
  return 1;
}
