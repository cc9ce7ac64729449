// Three host threads offload, each its own array. They take turns (a turn
// counter under a mutex), so the trace's order is the same in every run and
// the golden trace is stable; each construct is still traced from its own
// thread.
// cflags: -pthread
#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int turn;
static int data[3][32];
static void *worker(void *arg) {
  int id = (int)(long)arg;
  pthread_mutex_lock(&lock);
  while (turn != id) pthread_cond_wait(&cond, &lock);
  int *d = data[id];
#pragma omp target map(tofrom : d[0:32])
  for (int i = 0; i < 32; i++) d[i] = i * (id + 1);
  turn++;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&lock);
  return NULL;
}
int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  int ok = data[0][31] == 31 && data[1][31] == 62 && data[2][31] == 93;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
