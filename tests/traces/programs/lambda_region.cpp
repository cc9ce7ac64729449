// A lambda object used inside a target region: clang maps the closure and
// its by-reference captures (LITERAL|PTR_AND_OBJ|MEMBER_OF entries), each
// pointed at the device copy of the captured variable.
#include <cstdio>
int main() {
  int a[8] = {0}, k = 3;
  auto set = [&](int i) { a[i] = k * i; };
#pragma omp target map(tofrom : a) map(to : k)
  for (int i = 0; i < 8; i++) set(i);
  bool ok = a[7] == 21 && a[1] == 3;
  std::puts(ok ? "PASS" : "FAIL");
  return !ok;
}
