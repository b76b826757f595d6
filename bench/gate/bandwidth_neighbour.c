// A neighbour that takes memory bandwidth, for bench/gate/calibrate.sh:
// copies one 256 MiB buffer into another, forever, so that a compile beside
// it waits on memory as it would beside a memory-bound job on a shared CI
// machine. Stop it with a signal.
#include <stdlib.h>
#include <string.h>

int main(void) {
  const size_t size = (size_t)256 << 20;
  char *a = malloc(size), *b = malloc(size);
  if (!a || !b) return 1;
  memset(a, 1, size);
  memset(b, 2, size);
  for (;;) {
    memcpy(b, a, size);
    memcpy(a, b, size);
  }
}
