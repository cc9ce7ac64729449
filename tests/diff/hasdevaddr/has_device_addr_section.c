/* has_device_addr_section.c - has_device_addr of an array section inside
 * use_device_addr of the same section.
 * versions: 16 19 22
 * cflags: -fopenmp-version=51
 * clang 16 maps the item as TO|TARGET_PARAM, 8 bytes, at its device address
 * (LLVM 16 copies those 8 bytes and fails): simtarget uses the address as is. */
#include "check.h"

int main(void) {
  double a[30];
  for (int i = 0; i < 30; i++) a[i] = i;
#pragma omp target enter data map(to : a)
#pragma omp target data use_device_addr(a)
  {
#pragma omp target has_device_addr(a[10:5])
    for (int i = 10; i < 15; i++) a[i] = -a[i];
  }
#pragma omp target exit data map(from : a)
  for (int i = 0; i < 30; i++) CHECK(a[i] == ((i >= 10 && i < 15) ? -i : i));
  return check_finish();
}
