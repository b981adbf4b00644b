/* eventq.c - timing events keyed by (cycle, seq): a ring of per-cycle FIFOs
 * for the near future and a binary min-heap for the rest.
 *
 * Design: most events are a few tens of cycles ahead (an L1 hit's response,
 * a crossbar arrival), and a heap pop cost a sift over a dozen levels of a
 * heap holding thousands. An event less than WS_EVENTQ_WINDOW cycles after
 * `base` (the cycle of the last pop) is appended to its cycle's FIFO
 * instead, O(1); one bit per FIFO finds the next non-empty one. A FIFO holds
 * one cycle only (the window is shorter than the ring) and its events
 * arrive in seq order, so it is sorted by (cycle, seq) like the heap; a pop
 * takes the smaller of the two heads. The order is therefore exactly the
 * heap's alone, whichever level an event went to. */
#include "sim/common/eventq.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(ws_event) == 32, "an event is half a host cache line (nodes_grow aligns the array)");

#define RING WS_EVENTQ_WINDOW
#define NONE UINT32_MAX

void ws_eventq_init(ws_eventq *q) {
  memset(q, 0, sizeof *q);
  q->near_cycle = UINT64_MAX;
  q->mark_cycle = UINT64_MAX;
  q->free_node = NONE;
}

void ws_eventq_free(ws_eventq *q) {
  free(q->heap);
  free(q->nodes);
  free(q->links);
  free(q->head);
  ws_eventq_init(q);
}

static bool earlier(const ws_event *a, const ws_event *b) {
  return a->cycle < b->cycle || (a->cycle == b->cycle && a->seq < b->seq);
}

static void sift_up(ws_event *h, uint32_t i) {
  ws_event e = h[i];
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (!earlier(&e, &h[parent])) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = e;
}

static void sift_down(ws_event *h, uint32_t count, uint32_t i) {
  ws_event e = h[i];
  for (;;) {
    uint32_t child = 2 * i + 1;
    if (child >= count) break;
    if (child + 1 < count && earlier(&h[child + 1], &h[child])) child++;
    if (!earlier(&h[child], &e)) break;
    h[i] = h[child];
    i = child;
  }
  h[i] = e;
}

static bool heap_push(ws_eventq *q, const ws_event *e) {
  if (q->count == q->cap) {
    uint32_t cap = q->cap ? q->cap * 2 : 256;
    ws_event *grown = realloc(q->heap, (size_t)cap * sizeof *grown);
    if (!grown) return false;
    q->heap = grown;
    q->cap = cap;
  }
  q->heap[q->count] = *e;
  sift_up(q->heap, q->count++);
  return true;
}

/* The ring's FIFO heads and tails and its bitmap, on first use. */
static bool ring_ready(ws_eventq *q) {
  if (q->head) return true;
  q->head = malloc(2 * RING * sizeof *q->head);
  if (!q->head) return false;
  q->tail = q->head + RING;
  for (uint32_t i = 0; i < RING; i++) q->head[i] = NONE;
  memset(q->bits, 0, sizeof q->bits);
  return true;
}

/* Doubles the node arrays; false when out of memory (the queue is then
 * unchanged but for an array that may have grown alone). */
static bool nodes_grow(ws_eventq *q) {
  uint32_t cap = q->cap_nodes ? q->cap_nodes * 2 : 1024;
  /* aligned to a host cache line (realloc aligns to 16 bytes only), so
   * that no 32-byte event straddles two */
  ws_event *nodes = aligned_alloc(64, (size_t)cap * sizeof *nodes);
  if (!nodes) return false;
  if (q->nnodes) memcpy(nodes, q->nodes, (size_t)q->nnodes * sizeof *nodes);
  free(q->nodes);
  q->nodes = nodes;
  uint32_t *links = realloc(q->links, (size_t)cap * sizeof *links);
  if (!links) return false;
  q->links = links;
  q->cap_nodes = cap;
  return true;
}

static uint32_t node_alloc(ws_eventq *q) {
  if (q->free_node != NONE) {
    uint32_t n = q->free_node;
    q->free_node = q->links[n];
    return n;
  }
  if (q->nnodes == q->cap_nodes && !nodes_grow(q)) return NONE;
  return q->nnodes++;
}

static bool ring_push(ws_eventq *q, const ws_event *e) {
  if (!ring_ready(q)) return false;
  uint32_t n = node_alloc(q);
  if (n == NONE) return false;
  uint32_t b = (uint32_t)(e->cycle % RING);
  q->nodes[n] = *e;
  q->links[n] = NONE;
  if (q->head[b] == NONE)
    q->head[b] = n;
  else
    q->links[q->tail[b]] = n;
  q->tail[b] = n;
  q->bits[b / 64] |= 1ull << (b % 64);
  q->near++;
  if (e->cycle < q->near_cycle) q->near_cycle = e->cycle;
  return true;
}

bool ws_eventq_push_event(ws_eventq *q, const ws_event *e) {
  bool near = e->cycle >= q->base && e->cycle - q->base < RING;
  return near ? ring_push(q, e) : heap_push(q, e);
}

/* The first set bit of `bits` (one per cycle of the ring) at or after
 * `from`'s, as a cycle of the window; UINT64_MAX when none is set. */
static uint64_t next_set(const uint64_t *bits, uint64_t from) {
  uint32_t start = (uint32_t)(from % RING);
  for (uint32_t step = 0; step <= RING / 64; step++) {
    uint32_t w = (start / 64 + step) % (RING / 64);
    uint64_t m = bits[w];
    if (step == 0) m &= ~0ull << (start % 64);
    if (step == RING / 64) m &= (start % 64) ? ~(~0ull << (start % 64)) : 0;
    if (m) {
      uint32_t b = w * 64 + (uint32_t)__builtin_ctzll(m);
      return from + (b + RING - start) % RING;
    }
  }
  return UINT64_MAX;
}

/* Starts loading the node the next pop will read. The ring holds every
 * response and arrival in flight, often megabytes of nodes written hundreds
 * of cycles earlier: without this, each pop waited for its node to come from
 * the host's L3 or DRAM (a fifth of a memory-bound run's time). */
static inline void prefetch_head(const ws_eventq *q, uint32_t b) {
  uint32_t n = q->head[b];
  if (n == NONE) return;
  __builtin_prefetch(&q->nodes[n]);
  __builtin_prefetch(&q->links[n]);
}

static void ring_pop(ws_eventq *q, ws_event *out) {
  uint32_t b = (uint32_t)(q->near_cycle % RING), n = q->head[b];
  *out = q->nodes[n];
  q->head[b] = q->links[n];
  q->links[n] = q->free_node;
  q->free_node = n;
  q->near--;
  if (q->head[b] != NONE) {
    prefetch_head(q, b);
    return;
  }
  q->bits[b / 64] &= ~(1ull << (b % 64));
  q->near_cycle = q->near ? next_set(q->bits, q->near_cycle) : UINT64_MAX;
  if (q->near) prefetch_head(q, (uint32_t)(q->near_cycle % RING));
}

bool ws_eventq_pop(ws_eventq *q, ws_event *out) {
  bool from_ring =
      q->near && (q->count == 0 || earlier(&q->nodes[q->head[q->near_cycle % RING]], &q->heap[0]));
  if (from_ring) {
    ring_pop(q, out);
  } else {
    if (q->count == 0) return false;
    *out = q->heap[0];
    q->heap[0] = q->heap[--q->count];
    if (q->count) sift_down(q->heap, q->count, 0);
  }
  /* every event left is at or after this one: the window may move up */
  if (out->cycle > q->base) q->base = out->cycle;
  return true;
}

/* Marks lie after the cycle last visited and the caller visits every
 * cycle marked, in order: a mark at or before `cycle` is `cycle`'s. */
void ws_eventq_visit_mark(ws_eventq *q, uint64_t cycle) {
  uint32_t b = (uint32_t)(q->mark_cycle % RING);
  q->marks[b / 64] &= ~(1ull << (b % 64));
  q->mark_cycle = next_set(q->marks, cycle + 1);
}
