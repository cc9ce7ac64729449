/* default_device.c - omp_set_default_device chooses where constructs without
 * a device clause run: the initial device runs them on the host, another
 * device gets their mappings.
 * (SIMTARGET_CHECK=stale reports the map(to) value the region writes on
 * purpose, to see where it ran: the dropped write)
 * stale-expect: released-unread * 1
 * env: SIMDEVICE_NUM_DEVICES=2
 * cflags: -O2
 * expect: after omp_set_default_device(omp_get_initial_device()) a target
 * region runs on the host (omp_is_initial_device() there, a map(to:) variable
 * written in place) and `target enter data` maps nothing on any device; after
 * omp_set_default_device(1) `target enter data` maps on device 1 only, and a
 * region writing a map(to:) copy leaves the host variable alone, while a
 * pthread of the program's own still maps on device 0 (its own initial
 * default); device 0 again afterwards. */
#include <omp.h>
#include <pthread.h>
#include "check.h"

#define N 64
static double table[N]; /* global, as users write it */

/* Runs a region without a device clause; returns omp_is_initial_device()
 * there. `value` is mapped `to` only: on a device, the write stays there. */
static int region_on_default(int *value) {
  int on_host = -1;
#pragma omp target map(to : value[0:1]) map(from : on_host)
  {
    on_host = omp_is_initial_device();
    value[0] = 99;
  }
  return on_host;
}

/* A thread of the program's own starts with the initial default device
 * (OMP_DEFAULT_DEVICE, unset: 0), whatever main chose: the ICV is per
 * thread. */
static double thread_data[N];
static void *enter_from_thread(void *arg) {
  (void)arg;
#pragma omp target enter data map(to : thread_data)
  return NULL;
}

int main(void) {
  int ndev = omp_get_num_devices();
  CHECK(ndev >= 2);
  int initial = omp_get_initial_device();

  /* The host as the default device. */
  omp_set_default_device(initial);
  CHECK_EQ(omp_get_default_device(), initial);
  int value = 1;
  CHECK_EQ(region_on_default(&value), 1);
  CHECK_EQ(value, 99); /* the host's own variable was written */
#pragma omp target enter data map(to : table)
  for (int d = 0; d < ndev; d++)
    CHECK_EQ(omp_target_is_present(table, d), 0);
#pragma omp target exit data map(release : table)

  /* Device 1 as the default device. */
  if (ndev >= 2) {
    omp_set_default_device(1);
    CHECK_EQ(omp_get_default_device(), 1);
#pragma omp target enter data map(to : table)
    CHECK(omp_target_is_present(table, 1) != 0);
    CHECK_EQ(omp_target_is_present(table, 0), 0);
    value = 1;
    CHECK_EQ(region_on_default(&value), 0);
    CHECK_EQ(value, 1); /* only the device copy was written */
#pragma omp target exit data map(release : table)
    CHECK_EQ(omp_target_is_present(table, 1), 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, enter_from_thread, NULL), 0);
    pthread_join(t, NULL);
    CHECK(omp_target_is_present(thread_data, 0) != 0);
    CHECK_EQ(omp_target_is_present(thread_data, 1), 0);
#pragma omp target exit data map(release : thread_data) device(0)
  }

  /* Back to device 0. */
  omp_set_default_device(0);
#pragma omp target enter data map(to : table)
  CHECK(omp_target_is_present(table, 0) != 0);
  if (ndev >= 2)
    CHECK_EQ(omp_target_is_present(table, 1), 0);
#pragma omp target exit data map(release : table)
  return check_finish();
}
