/* usm_objects.cpp - requires unified_shared_memory with C++ objects: virtual
 * functions, a lambda capturing by reference, a member function's `this`,
 * objects built on the host and used on the device without any map.
 * ppc64le-skip: requires unified_shared_memory or unified_address, which simdevice serves by running kernels in the (x86-64) host process
 * cflags: -O2
 * expect-stderr-not: not device memory|stopped with|faulted
 * expect: objects with virtual functions made on the host (new, on the
 * stack, in a global) are called through their base class in a target
 * region and their results land in host memory; a lambda captured by
 * reference updates the host's variables; a member function offloads
 * through `this`; output goes through a pipe in order. */
#include <omp.h>
#include <cstdio>
#include <cstdlib>
#include "check.h"

#pragma omp requires unified_shared_memory

#pragma omp declare target
struct Shape {
  virtual ~Shape() {}
  virtual long area() const = 0;
};
struct Square : Shape {
  long side;
  explicit Square(long s) : side(s) {}
  long area() const override { return side * side; }
};
struct Rect : Shape {
  long w, h;
  Rect(long a, long b) : w(a), h(b) {}
  long area() const override { return w * h; }
};
#pragma omp end declare target

static Square global_square(3);

struct Accumulator {
  long *values;
  int count;
  /* Offloads through `this`: members are the host's. */
  long sum() {
    long total = 0;
#pragma omp target teams distribute parallel for reduction(+ : total)
    for (int i = 0; i < count; i++)
      total += values[i];
    return total;
  }
};

int main() {
  const int n = 64;
  Shape **shapes = new Shape *[n];
  for (int i = 0; i < n; i++)
    shapes[i] = (i % 2) ? static_cast<Shape *>(new Square(i))
                        : static_cast<Shape *>(new Rect(i, 2));
  Rect on_stack(5, 7);
  long *areas = new long[n + 2]();

#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++)
    areas[i] = shapes[i]->area();
#pragma omp target
  {
    const Shape *a = &on_stack, *b = &global_square;
    areas[n] = a->area();
    areas[n + 1] = b->area();
  }
  for (int i = 0; i < n; i++)
    CHECK_EQ(areas[i], (i % 2) ? (long)i * i : 2L * i);
  CHECK_EQ(areas[n], 35);
  CHECK_EQ(areas[n + 1], 9);

  /* A lambda capturing host variables by reference. */
  long count = 0, biggest = 0;
  auto tally = [&](long v) {
    count++;
    if (v > biggest)
      biggest = v;
  };
#pragma omp target
  for (int i = 0; i < n; i++)
    tally(areas[i]);
  CHECK_EQ(count, n);
  CHECK_EQ(biggest, 63L * 63);

  Accumulator acc{areas, n};
  long want = 0;
  for (int i = 0; i < n; i++)
    want += areas[i];
  CHECK_EQ(acc.sum(), want);

  printf("shapes: %d, total area %ld\n", n, want);
  for (int i = 0; i < n; i++)
    delete shapes[i];
  delete[] shapes;
  delete[] areas;
  return check_finish();
}
/* mpi-skip: requires unified_shared_memory, which a remote device cannot give (init_device refuses it by name) */
