/* access.h - one line access as the SM's LSU offers it to the memory
 * hierarchy: the vocabulary the mediator (memsys.h), the L1 and the L2
 * share.
 *
 * Design: a header of its own, so a cache sees the request it serves
 * without seeing the mediator that routes it (l1.h and l2.h include this,
 * not memsys.h). */
#ifndef WS_ACCESS_H
#define WS_ACCESS_H

#include <stdint.h>

typedef enum ws_access_kind {
  WS_ACCESS_LOAD,
  WS_ACCESS_STORE,
  WS_ACCESS_ATOMIC, /* performed at the L2 slice; never cached in L1 */
  WS_ACCESS_ASYNC,  /* LDGSTS global -> shared: a load whose data goes to shared memory */
  WS_ACCESS_KIND_COUNT
} ws_access_kind;

typedef struct ws_line_access {
  uint64_t line_addr;  /* aligned to the L1 line size */
  uint8_t sector_mask; /* bit i: sector i of the line is touched */
  uint8_t kind;        /* ws_access_kind */
  uint16_t bytes;      /* bytes the warp actually uses in this line (for efficiency stats) */
  uint16_t warp;       /* the SM warp slot that asked (for the probe) */
  uint8_t flags;       /* WS_PROBE_TAGGED when it moves a followed value */
} ws_line_access;

/* The sectors of a mask: a table, since without a host popcount
 * instruction (no -mpopcnt) __builtin_popcount is a libgcc call, and bit
 * arithmetic took a dozen instructions on each of the several counts a
 * line access makes. */
static inline uint32_t ws_access_sectors(uint8_t mask) {
#define WS_B2(n) n, n + 1, n + 1, n + 2
#define WS_B4(n) WS_B2(n), WS_B2(n + 1), WS_B2(n + 1), WS_B2(n + 2)
#define WS_B6(n) WS_B4(n), WS_B4(n + 1), WS_B4(n + 1), WS_B4(n + 2)
  static const uint8_t count[256] = {WS_B6(0), WS_B6(1), WS_B6(1), WS_B6(2)};
#undef WS_B6
#undef WS_B4
#undef WS_B2
  return count[mask];
}

#endif
