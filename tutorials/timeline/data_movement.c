/* Timeline demo: data movement. One array goes to the device, one comes
 * back, one goes both ways; then a second region maps only what it needs.
 * Compile with -g, run with LIBOMPTARGET_PROFILE=prof.json. */
// profile: copy to_device 8000000 in
// profile: copy from_device 8000000 out
// profile: copy to_device 8000000 acc
// profile: copy from_device 8000000 acc
// profile: copy to_device 8000 acc[0:1000]
// profile: copy from_device 8000 acc[0:1000]
// profile: copies 6
// profile: kernel main_l25
// profile: construct target @ data_movement.c:25
// profile: track main thread
#include <stdio.h>

#define N 1000000
static double in[N], out[N], acc[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    in[i] = i;
    acc[i] = 1;
  }
  /* in: 8 MB to the device; out: back; acc: both ways */
#pragma omp target teams distribute parallel for map(to: in) map(from: out) map(tofrom: acc)
  for (int i = 0; i < N; i++) {
    out[i] = 2 * in[i];
    acc[i] += in[i];
  }
  /* only a section of 1000 elements travels */
#pragma omp target map(tofrom: acc[0:1000])
  for (int i = 0; i < 1000; i++)
    acc[i] *= 2;
  printf("%s\n", out[N - 1] == 2.0 * (N - 1) && acc[1] == 4 ? "PASS" : "FAIL");
  return 0;
}
// svg: kernel main_l25
// svg: dev in 8 MB
// svg: main thread
