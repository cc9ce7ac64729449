/* packet_misaligned.c - a kernel reads the 32-bit length field of packets
 * straight out of a mapped byte buffer, at an odd offset (x86-64 forgives
 * it, a GPU faults or reads garbage), device code built with
 * -fsanitize=alignment: simtarget-check's finding names the mapped buffer
 * and the kernel's line (tests/check.sh). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PACKETS 4
#define PACKET_BYTES 9 /* a 1-byte tag, a 4-byte length, 4 bytes of data */

static unsigned char wire[PACKETS * PACKET_BYTES];

int main(void) {
  for (int p = 0; p < PACKETS; p++) {
    uint32_t len = 4 + p;
    wire[p * PACKET_BYTES] = 'D';
    memcpy(wire + p * PACKET_BYTES + 1, &len, sizeof len);
  }
  uint32_t lengths[PACKETS];
#pragma omp target map(to : wire) map(from : lengths)
  for (int p = 0; p < PACKETS; p++)
    lengths[p] = *(const uint32_t *)(wire + p * PACKET_BYTES + 1);
  printf("lengths %u %u %u %u\n", lengths[0], lengths[1], lengths[2],
         lengths[3]);
  return 0;
}
