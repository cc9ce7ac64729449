/* Loads a real clang device image (argv[1]) in a process whose libomp.so.5
 * is the simdevice runtime, and runs its kernel argv[2] the way the device
 * server does: kernel_begin, simdev_call, kernel_end. argv[3] is 1 when the
 * kernel takes clang 19's leading dyn_ptr. Checks the kernel's results and
 * that the image's imports bound to this runtime. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../simdev_rt.h"

void omp_set_dynamic(int on); /* the runtime's (omp.h is clang's) */

int main(int argc, char **argv)
{
  if (argc != 4) {
    fprintf(stderr, "usage: %s IMAGE KERNEL HAS_DYN_PTR\n", argv[0]);
    return 2;
  }
  void *img = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!img) {
    fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
    return 1;
  }
  void *kernel = dlsym(img, argv[2]);
  if (!kernel) {
    fprintf(stderr, "kernel %s not found\n", argv[2]);
    dlclose(img);
    return 1;
  }
  int failures = 0;
  for (int rep = 0; rep < 5; rep++) {
    /* dyn-var off from rep 3: the width is then the thread_limit's */
    if (rep == 3)
      omp_set_dynamic(0);
    static int a[1000];
    int info[4] = {0};
    uint64_t args[3];
    int n = 0;
    if (atoi(argv[3]))
      args[n++] = 0; /* dyn_ptr */
    args[n++] = (uint64_t)(uintptr_t)a;
    args[n++] = (uint64_t)(uintptr_t)info;
    if (simdev_rt_kernel_begin(0, 0) != 0 || simdev_call(kernel, n, args) != 0) {
      fprintf(stderr, "launch failed\n");
      failures++;
    }
    simdev_rt_kernel_end();
    int wrong = 0;
    for (int i = 0; i < 1000; i++)
      wrong += a[i] != 2 * i;
    /* num_teams(3) thread_limit(2): 3 teams, each parallel region 2 threads
     * wide (a thread_limit within the launch's thread budget is the width),
     * or 1 where dyn-var narrowed a region too small to share. */
    int width_ok = rep >= 3 ? info[1] == 2 : info[1] == 1 || info[1] == 2;
    if (wrong || info[0] != 3 || !width_ok || info[2] != 2 || info[3] != 7) {
      fprintf(stderr, "rep %d: %d wrong elements, num_teams=%d num_threads=%d thread_limit=%d mark=%d\n",
              rep, wrong, info[0], info[1], info[2], info[3]);
      failures++;
    }
  }
  dlclose(img);
  return failures ? 1 : 0;
}
