/* An offload program whose device image devimage_host.c loads and runs
 * against the simdevice runtime, as the device server does. */
#include <omp.h>

void run(int *a, int *info)
{
#pragma omp target teams distribute parallel for num_teams(3) thread_limit(2)                    \
    map(tofrom : a[0 : 1000], info[0 : 4])
  for (int i = 0; i < 1000; i++) {
    a[i] = 2 * i;
    if (i == 999) {
      info[0] = omp_get_num_teams();
      info[1] = omp_get_num_threads();
      info[2] = omp_get_thread_limit();
      info[3] = 7;
    }
  }
}

int main(void) { return 0; }
