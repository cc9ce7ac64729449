// object_array.cpp - an array of objects with a constructor, mapped.
#include "check.h"

struct Particle {
  float x = 1, v = 2;
  void step(float dt) { x += v * dt; }
};

int main() {
  Particle ps[64];
#pragma omp target teams distribute parallel for map(tofrom : ps)
  for (int i = 0; i < 64; i++) ps[i].step(0.5f);
  for (int i = 0; i < 64; i++) CHECK(ps[i].x == 2.0f);
  return check_finish();
}
