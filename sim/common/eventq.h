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

/* Event kinds, one numbering for every component so none collide: the
 * engine's own, and a range the memory system numbers within
 * (sim/memsys/memsys.h hands those back to ws_memsys_handle). */
enum {
  WS_EVK_NONE = 0,
  WS_EVK_SM_WAKE = 1,  /* unit = sm: re-evaluate the SM at this cycle */
  WS_EVK_MEM_RESP = 2, /* unit = sm, payload = cookie: a load/atomic/async access is back */
  WS_EVK_MEM_HITS = 3, /* unit = sm, payload = cookie, arg = lines: that many of its L1 hits are back */
  WS_EVK_MEMSYS_FIRST = 16,
  WS_EVK_MEMSYS_LAST = 63
};

typedef struct ws_event {
  uint64_t cycle;
  uint64_t seq;     /* insertion order, for deterministic ties */
  uint16_t kind;    /* which component handles it (WS_EVK_*) */
  uint16_t unit;    /* instance within the kind (SM index, slice, channel) */
  uint32_t arg;     /* kind-specific */
  uint64_t payload; /* kind-specific (a request index, a cookie) */
} ws_event;

/* Cycles after the last popped event that go to the per-cycle FIFOs
 * rather than the heap (eventq.c); a power of two. */
#define WS_EVENTQ_WINDOW 2048u

typedef struct ws_eventq {
  ws_event *heap; /* events beyond the window */
  uint32_t count;
  uint32_t cap;
  uint64_t next_seq;
  uint64_t base;                        /* the window: [base, base + WS_EVENTQ_WINDOW) */
  uint32_t *head;                       /* per cycle of the window (cycle % window): first node, ... */
  uint32_t *tail;                       /* ... last node */
  uint64_t bits[WS_EVENTQ_WINDOW / 64]; /* non-empty FIFOs */
  /* The FIFOs' nodes: events, and apart from them each node's link (the
   * FIFO's next node, or the free list's). A memory-bound launch keeps
   * hundreds of thousands of events in flight; apart, an event is half a
   * host cache line, never two, and a push's write to its FIFO's tail
   * touches a dense array of links rather than an event written long ago. */
  ws_event *nodes;
  uint32_t *links;
  uint32_t nnodes, cap_nodes, free_node;
  uint32_t near;       /* events in the FIFOs */
  uint64_t near_cycle; /* cycle of the first non-empty FIFO; UINT64_MAX: none */
  /* Marks: cycles to be visited that hold no event of their own (an L1
   * hit whose response travels in one event with its instruction's other
   * hits), one bit per cycle of [mark_base, mark_base + WS_EVENTQ_WINDOW),
   * mark_base being the cycle last visited (ws_eventq_visit). */
  uint64_t marks[WS_EVENTQ_WINDOW / 64];
  uint64_t mark_base;
  uint64_t mark_cycle; /* the earliest mark; UINT64_MAX: none */
} ws_eventq;

void ws_eventq_init(ws_eventq *q);
void ws_eventq_free(ws_eventq *q);
/* The general push, taking a sequence number already drawn: a new FIFO, a
 * first use of the ring, a node to allocate, or an event for the heap.
 * False when out of memory. */
bool ws_eventq_push_event(ws_eventq *q, const ws_event *e);

/* false when out of memory. Inline for its commonest case, an event inside
 * the window appended to a FIFO that already holds one, with a free node
 * (one per line access and response: the call alone was a third of its
 * cost); the order is the same as through ws_eventq_push_event. */
static inline bool ws_eventq_push(ws_eventq *q, uint64_t cycle, uint16_t kind, uint16_t unit, uint32_t arg,
                                  uint64_t payload) {
  ws_event e = {
      .cycle = cycle, .seq = q->next_seq++, .kind = kind, .unit = unit, .arg = arg, .payload = payload};
  uint32_t b = (uint32_t)(cycle % WS_EVENTQ_WINDOW), n = q->free_node;
  /* a free node exists only once the ring is in use (nodes are the ring's) */
  if (cycle < q->base || cycle - q->base >= WS_EVENTQ_WINDOW || n == UINT32_MAX || q->head[b] == UINT32_MAX)
    return ws_eventq_push_event(q, &e);
  q->free_node = q->links[n];
  q->nodes[n] = e;
  q->links[n] = UINT32_MAX;
  q->links[q->tail[b]] = n; /* the FIFO's bit is already set */
  q->tail[b] = n;
  q->near++;
  if (cycle < q->near_cycle) q->near_cycle = cycle;
  return true;
}
/* false when empty. */
bool ws_eventq_pop(ws_eventq *q, ws_event *out);
/* No event queued (marks aside). */
static inline bool ws_eventq_empty(const ws_eventq *q) { return q->count == 0 && q->near == 0; }
/* Cycle of the earliest event; UINT64_MAX when empty. Marks aside. */
static inline uint64_t ws_eventq_next_cycle(const ws_eventq *q) {
  uint64_t far = q->count ? q->heap[0].cycle : UINT64_MAX;
  return q->near_cycle < far ? q->near_cycle : far;
}

/* Marks `cycle` to be visited: an event whose work travels in another one
 * still makes its cycle a visited one, so that whatever counts visits
 * (the sampler's looks) sees the cycles it saw with the event. False
 * when `cycle` is not after the cycle last visited or is a window or more
 * beyond it (then the caller posts its event after all). */
static inline bool ws_eventq_mark(ws_eventq *q, uint64_t cycle) {
  if (cycle <= q->mark_base || cycle - q->mark_base >= WS_EVENTQ_WINDOW) return false;
  uint32_t b = (uint32_t)(cycle % WS_EVENTQ_WINDOW);
  q->marks[b / 64] |= 1ull << (b % 64);
  if (cycle < q->mark_cycle) q->mark_cycle = cycle;
  return true;
}
/* Cycle of the earliest event or mark; UINT64_MAX when there is neither. */
static inline uint64_t ws_eventq_next_visit(const ws_eventq *q) {
  uint64_t e = ws_eventq_next_cycle(q);
  return q->mark_cycle < e ? q->mark_cycle : e;
}
/* The cycle being visited, never earlier than the last one: its mark, if
 * any, is spent (the caller visits no cycle after the next visit's). */
void ws_eventq_visit_mark(ws_eventq *q, uint64_t cycle);
static inline void ws_eventq_visit(ws_eventq *q, uint64_t cycle) {
  if (q->mark_cycle <= cycle) ws_eventq_visit_mark(q, cycle);
  q->mark_base = cycle;
}

#endif
