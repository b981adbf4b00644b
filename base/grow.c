/* grow.c - doubling growth of an array (grow.h). */
#include "base/grow.h"

#include <stdint.h>
#include <stdlib.h>

bool ws_grow(void **arr, size_t *cap, size_t n, size_t elem, size_t first) {
  if (n < *cap) return true;
  size_t c = *cap ? *cap * 2 : first;
  if (c <= n || elem == 0 || c > SIZE_MAX / elem) return false;
  void *p = realloc(*arr, c * elem);
  if (!p) return false;
  *arr = p;
  *cap = c;
  return true;
}
