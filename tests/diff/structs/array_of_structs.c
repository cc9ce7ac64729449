/* array_of_structs.c - an array of structs, a section of it. */
#include "check.h"

struct pt { float x, y; };

int main(void) {
  struct pt pts[32];
  for (int i = 0; i < 32; i++) { pts[i].x = (float)i; pts[i].y = 0; }
#pragma omp target teams distribute parallel for map(tofrom : pts[8:16])
  for (int i = 8; i < 24; i++) pts[i].y = pts[i].x * 2;
  for (int i = 0; i < 32; i++) CHECK(pts[i].y == ((i >= 8 && i < 24) ? 2.0f * i : 0.0f));
  return check_finish();
}
