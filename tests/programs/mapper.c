/* mapper.c - declare mapper: a default mapper and a named one, used by
 * target, enter/exit data and target update.
 * expect: the mapper brings the pointee along; the named mapper moves only
 * the part it names. */
#include <omp.h>
#include <stdlib.h>
#include "check.h"

struct vec {
  int len;
  double *data;
};
#pragma omp declare mapper(struct vec v) map(v, v.data[0:v.len])
#pragma omp declare mapper(front : struct vec v) map(v.len, v.data[0:v.len / 2])

int main(void) {
  struct vec v = {10, malloc(10 * sizeof(double))};
  if (!v.data) return 2;
  double *const host_data = v.data;
  for (int i = 0; i < 10; i++) v.data[i] = i;
  int on_host = -1;

#pragma omp target map(tofrom : v) map(from : on_host)
  {
    on_host = omp_is_initial_device();
    for (int i = 0; i < v.len; i++) v.data[i] *= 2;
  }
  CHECK_EQ(on_host, 0);
  CHECK(v.data == host_data);
  for (int i = 0; i < 10; i++) CHECK(v.data[i] == 2.0 * i);

  /* The named mapper moves only the first half back. */
#pragma omp target map(mapper(front), tofrom : v)
  for (int i = 0; i < v.len / 2; i++) v.data[i] += 1;
  CHECK(v.data[4] == 9.0);
  CHECK(v.data[5] == 10.0);

  /* Unstructured: the mapper applies to enter data, update and exit data.
   * The device copy of v.data must point at the device array. (LLVM's own
   * runtimes 13-19 leave the host address there after a mapper-driven enter
   * data, so in a shared address space the region writes the host array;
   * this part fails against them and must pass on simdevice.) */
#pragma omp target enter data map(to : v)
  CHECK(omp_target_is_present(v.data, omp_get_default_device()));
#pragma omp target
  for (int i = 0; i < v.len; i++) v.data[i] = -i;
  CHECK(v.data[3] == 7.0);
#pragma omp target update from(v)
  CHECK(v.data[3] == -3.0);
#pragma omp target exit data map(release : v)
  CHECK(!omp_target_is_present(v.data, omp_get_default_device()));
  free(v.data);
  return check_finish();
}
