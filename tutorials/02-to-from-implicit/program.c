/* 02-to-from-implicit/program.c - what moves where: to, from, tofrom,
 * alloc, and what happens without a map clause.
 * info: 0x21
 * Each variable starts at 1 on the host; the device adds 10 to each copy it
 * sees. Only the map type decides what reaches the device and what comes
 * back. */
#include <stdio.h>

int main(void) {
  int to_only = 1, from_only = 1, both = 1, scratch = 1;
  int seen_to = 0, seen_from = 0, seen_both = 0;
#pragma omp target map(to : to_only) map(from : from_only) \
    map(tofrom : both) map(alloc : scratch) map(from : seen_to, seen_from, seen_both)
  {
    seen_to = to_only;     /* 1: copied in */
    seen_from = from_only; /* unspecified: never copied in */
    seen_both = both;      /* 1: copied in */
    to_only += 10;         /* lost: never copied back */
    from_only = 11;        /* copied back */
    both += 10;            /* copied back */
    scratch = 99;          /* lost: alloc copies nothing either way */
  }
  printf("device saw  to_only=%d both=%d\n", seen_to, seen_both);
  printf("host has    to_only=%d (still 1)  from_only=%d (11)  both=%d (11)  scratch=%d (still 1)\n",
         to_only, from_only, both, scratch);
  (void)seen_from;
  int ok = seen_to == 1 && seen_both == 1 && to_only == 1 && from_only == 11 &&
           both == 11 && scratch == 1;

  /* No map clause: an array is tofrom, a scalar is firstprivate (a copy
   * in, nothing back). defaultmap(tofrom : scalar) makes scalars tofrom. */
  int arr[2] = {1, 1}, scalar = 1, mapped_scalar = 1;
#pragma omp target
  {
    arr[0] = 2;
    scalar = 2;
  }
#pragma omp target defaultmap(tofrom : scalar)
  mapped_scalar = 2;
  printf("no map:     arr[0]=%d (2: tofrom)  scalar=%d (still 1: firstprivate)\n",
         arr[0], scalar);
  printf("defaultmap: mapped_scalar=%d (2)\n", mapped_scalar);
  ok = ok && arr[0] == 2 && scalar == 1 && mapped_scalar == 2;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return !ok;
}
