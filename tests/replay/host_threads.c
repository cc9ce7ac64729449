/* Two host threads: one launches kernels while the other keeps copying
 * new values into its own mapped array (target update to). Each recorded
 * launch must hold only its kernel's work, not the other thread's copies
 * made while it ran. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define N 4096
#define LAUNCHES 3

static double a[N], b[N];
static atomic_int b_mapped, launches_done;

static void *updater(void *arg) {
  (void)arg;
#pragma omp target enter data map(to : b[0:N])
  atomic_store(&b_mapped, 1);
  long updates = 0;
  while (!atomic_load(&launches_done)) {
    updates++;
    for (int i = 0; i < N; i++)
      b[i] = (double)(updates + i);
#pragma omp target update to(b[0:N])
  }
#pragma omp target exit data map(from : b[0:N])
  /* the last values copied are those that come back */
  return (void *)(long)(b[N - 1] == (double)(updates + N - 1) && updates > 0);
}

int main(void) {
  pthread_t t;
  for (int i = 0; i < N; i++)
    a[i] = i;
  if (pthread_create(&t, NULL, updater, NULL) != 0)
    return 2;
  while (!atomic_load(&b_mapped))
    ;
  for (int l = 0; l < LAUNCHES; l++) {
    /* long enough for many of the other thread's copies */
#pragma omp target teams distribute parallel for map(tofrom : a[0:N])
    for (int i = 0; i < N; i++) {
      double x = a[i];
      for (int k = 0; k < 20000; k++)
        x = x * 0.5 + 1.0;
      a[i] = x + i;
    }
  }
  atomic_store(&launches_done, 1);
  void *b_ok;
  pthread_join(t, &b_ok);
  printf("host_threads %.1f %.1f %s\n", a[0], a[N - 1],
         b_ok ? "b ok" : "b WRONG");
  return b_ok ? 0 : 1;
}
