/* eventq.h - the timing model's event queue, ordered by (cycle, insertion
 * sequence): per-cycle FIFOs for the near future, a binary min-heap beyond.
 *
 * Design: idle time is skipped, not ticked: a component that knows when it
 * next has work (a DRAM bank's precharge ends, a fill returns) posts one event
 * for that cycle, and the engine jumps straight to the earliest one. Ties are
 * broken by insertion order, so the same inputs always produce the same
 * sequence of events (determinism). Events are small values, no allocation
 * per event beyond the heap's amortised growth. */
#ifndef WS_EVENTQ_H
#define WS_EVENTQ_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ws_event {
  uint64_t cycle;
  uint64_t seq;     /* insertion order, for deterministic ties */
  uint16_t kind;    /* which component handles it (the engine's enum) */
  uint16_t unit;    /* instance within the kind (SM index, slice, channel) */
  uint32_t arg;     /* kind-specific */
  uint64_t payload; /* kind-specific (a request index, a cookie) */
} ws_event;

/* Cycles after the last popped event that go to the per-cycle FIFOs
 * rather than the heap (eventq.c); a power of two. */
#define WS_EVENTQ_WINDOW 2048u

typedef struct ws_eventq_node {
  ws_event ev;
  uint32_t next; /* the FIFO's next node, or the free list's */
} ws_eventq_node;

typedef struct ws_eventq {
  ws_event *heap; /* events beyond the window */
  uint32_t count;
  uint32_t cap;
  uint64_t next_seq;
  uint64_t base;                        /* the window: [base, base + WS_EVENTQ_WINDOW) */
  uint32_t *head;                       /* per cycle of the window (cycle % window): first node, ... */
  uint32_t *tail;                       /* ... last node */
  uint64_t bits[WS_EVENTQ_WINDOW / 64]; /* non-empty FIFOs */
  ws_eventq_node *nodes;
  uint32_t nnodes, cap_nodes, free_node;
  uint32_t near;       /* events in the FIFOs */
  uint64_t near_cycle; /* cycle of the first non-empty FIFO; UINT64_MAX: none */
} ws_eventq;

void ws_eventq_init(ws_eventq *q);
void ws_eventq_free(ws_eventq *q);
/* false when out of memory. */
bool ws_eventq_push(ws_eventq *q, uint64_t cycle, uint16_t kind, uint16_t unit, uint32_t arg,
                    uint64_t payload);
/* false when empty. */
bool ws_eventq_pop(ws_eventq *q, ws_event *out);
static inline bool ws_eventq_empty(const ws_eventq *q) { return q->count == 0 && q->near == 0; }
/* Cycle of the earliest event; UINT64_MAX when empty. */
static inline uint64_t ws_eventq_next_cycle(const ws_eventq *q) {
  uint64_t far = q->count ? q->heap[0].cycle : UINT64_MAX;
  return q->near_cycle < far ? q->near_cycle : far;
}

#endif
