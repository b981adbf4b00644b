/* grow.h - room for one more element in a growable array.
 *
 * Design: the arrays that grow element by element (a PTX file's
 * statements, a kernel's registers and instructions) double their capacity
 * from a small start, so n appends cost O(n) copies in all. */
#ifndef WS_GROW_H
#define WS_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Makes *arr (of *cap elements of elem bytes, n of them in use) hold at
 * least n + 1, doubling *cap (from `first` when 0); false, *arr untouched,
 * when memory runs out or the size would overflow. */
bool ws_grow(void **arr, size_t *cap, size_t n, size_t elem, size_t first);

#endif
