/* eventq.c - binary min-heap of timing events keyed by (cycle, seq). */
#include "sim/core/eventq.h"

#include <stdlib.h>
#include <string.h>

void ws_eventq_init(ws_eventq *q) { memset(q, 0, sizeof *q); }

void ws_eventq_free(ws_eventq *q) {
  free(q->heap);
  memset(q, 0, sizeof *q);
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

bool ws_eventq_push(ws_eventq *q, uint64_t cycle, uint16_t kind, uint16_t unit, uint32_t arg,
                    uint64_t payload) {
  if (q->count == q->cap) {
    uint32_t cap = q->cap ? q->cap * 2 : 256;
    ws_event *grown = realloc(q->heap, (size_t)cap * sizeof *grown);
    if (!grown) return false;
    q->heap = grown;
    q->cap = cap;
  }
  ws_event *e = &q->heap[q->count];
  e->cycle = cycle;
  e->seq = q->next_seq++;
  e->kind = kind;
  e->unit = unit;
  e->arg = arg;
  e->payload = payload;
  sift_up(q->heap, q->count++);
  return true;
}

bool ws_eventq_pop(ws_eventq *q, ws_event *out) {
  if (q->count == 0) return false;
  *out = q->heap[0];
  q->heap[0] = q->heap[--q->count];
  if (q->count) sift_down(q->heap, q->count, 0);
  return true;
}
