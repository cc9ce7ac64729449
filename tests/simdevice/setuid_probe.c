/* setuid_probe.c - for test_setuid.sh: loads the simdevice plugin by path
 * and starts device 0, as a program would (a setuid program's loader
 * ignores LD_LIBRARY_PATH, so libomptarget is left out). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    printf("dlopen: %s\n", dlerror());
    return 2;
  }
  int32_t (*init)(void) = (int32_t(*)(void))dlsym(h, "__tgt_rtl_init_plugin");
  int32_t (*num)(void) =
      (int32_t(*)(void))dlsym(h, "__tgt_rtl_number_of_devices");
  int32_t (*initdev)(int32_t) =
      (int32_t(*)(int32_t))dlsym(h, "__tgt_rtl_init_device");
  if (!init || !num || !initdev)
    return 2;
  init();
  int n = num();
  int rc = n > 0 ? initdev(0) : -1;
  printf("devices %d, init_device %d\n", n, rc);
  return 0;
}
