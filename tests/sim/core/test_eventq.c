/* test_event.c - the timing event queue alone: pops in cycle order, ties in
 * insertion order, next_cycle, field round trip and growth past the first
 * allocation.
 *
 * Why: the engine's determinism rests on this heap; an ordering slip would
 * not crash anything, it would just make two identical runs differ. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "sim/core/eventq.h"

Test(event, empty_queue) {
  ws_eventq q;
  ws_eventq_init(&q);
  ws_event ev;
  cr_expect(ws_eventq_empty(&q));
  cr_expect_eq(ws_eventq_next_cycle(&q), UINT64_MAX);
  cr_expect_not(ws_eventq_pop(&q, &ev));
  ws_eventq_free(&q);
  ws_eventq_free(&q); /* freeing twice is harmless: free reset it */
}

Test(event, pops_in_cycle_order_with_fields_intact) {
  ws_eventq q;
  ws_eventq_init(&q);
  const uint64_t cycles[] = {50, 7, 300, 0, 42, 7000, 1};
  for (uint32_t i = 0; i < 7; i++)
    cr_assert(ws_eventq_push(&q, cycles[i], (uint16_t)(i + 1), (uint16_t)(10 + i), 100 + i, 1000 + i));
  cr_expect_eq(ws_eventq_next_cycle(&q), 0);
  /* sorted: 0(i=3) 1(i=6) 7(i=1) 42(i=4) 50(i=0) 300(i=2) 7000(i=5) */
  const uint32_t order[] = {3, 6, 1, 4, 0, 2, 5};
  for (uint32_t k = 0; k < 7; k++) {
    ws_event ev;
    cr_assert(ws_eventq_pop(&q, &ev));
    uint32_t i = order[k];
    cr_expect_eq(ev.cycle, cycles[i]);
    cr_expect_eq(ev.seq, i, "seq is the insertion index");
    cr_expect_eq(ev.kind, i + 1);
    cr_expect_eq(ev.unit, 10 + i);
    cr_expect_eq(ev.arg, 100 + i);
    cr_expect_eq(ev.payload, 1000 + i);
  }
  cr_expect(ws_eventq_empty(&q));
  ws_eventq_free(&q);
}

Test(event, ties_break_by_insertion_order) {
  ws_eventq q;
  ws_eventq_init(&q);
  /* payload = insertion index; three events at 5 interleaved with others */
  const uint64_t cycles[] = {5, 9, 5, 1, 5, 9};
  for (uint64_t i = 0; i < 6; i++) cr_assert(ws_eventq_push(&q, cycles[i], 0, 0, 0, i));
  const uint64_t want[] = {3, 0, 2, 4, 1, 5};
  for (int k = 0; k < 6; k++) {
    ws_event ev;
    cr_assert(ws_eventq_pop(&q, &ev));
    cr_expect_eq(ev.payload, want[k], "pop %d", k);
  }
  ws_eventq_free(&q);
}

Test(event, later_pushes_at_a_queued_cycle_come_after) {
  ws_eventq q;
  ws_eventq_init(&q);
  ws_event ev;
  cr_assert(ws_eventq_push(&q, 10, 0, 0, 0, 0));
  cr_assert(ws_eventq_push(&q, 10, 0, 0, 0, 1));
  cr_assert(ws_eventq_pop(&q, &ev));
  cr_expect_eq(ev.payload, 0);
  /* a handler at cycle 10 posts more work for cycle 10: it runs after 1 */
  cr_assert(ws_eventq_push(&q, 10, 0, 0, 0, 2));
  cr_assert(ws_eventq_push(&q, 3, 0, 0, 0, 3)); /* an earlier cycle still goes first */
  cr_expect_eq(ws_eventq_next_cycle(&q), 3);
  const uint64_t want[] = {3, 1, 2};
  for (int k = 0; k < 3; k++) {
    cr_assert(ws_eventq_pop(&q, &ev));
    cr_expect_eq(ev.payload, want[k]);
  }
  cr_expect_eq(ws_eventq_next_cycle(&q), UINT64_MAX);
  ws_eventq_free(&q);
}

Test(event, next_cycle_follows_the_minimum) {
  ws_eventq q;
  ws_eventq_init(&q);
  ws_event ev;
  ws_eventq_push(&q, 100, 0, 0, 0, 0);
  cr_expect_eq(ws_eventq_next_cycle(&q), 100);
  ws_eventq_push(&q, 200, 0, 0, 0, 0);
  cr_expect_eq(ws_eventq_next_cycle(&q), 100);
  ws_eventq_push(&q, 40, 0, 0, 0, 0);
  cr_expect_eq(ws_eventq_next_cycle(&q), 40);
  ws_eventq_pop(&q, &ev);
  cr_expect_eq(ws_eventq_next_cycle(&q), 100);
  ws_eventq_pop(&q, &ev);
  cr_expect_eq(ws_eventq_next_cycle(&q), 200);
  ws_eventq_pop(&q, &ev);
  cr_expect_eq(ws_eventq_next_cycle(&q), UINT64_MAX);
  ws_eventq_free(&q);
}

/* 1000 events with cycles from a fixed LCG (many ties: cycles mod 97)
 * outgrow the first 256-entry allocation twice (256 -> 512 -> 1024); they
 * must still pop as a stable sort by cycle. */
Test(event, growth_keeps_a_stable_order) {
  ws_eventq q;
  ws_eventq_init(&q);
  uint32_t x = 12345;
  for (uint64_t i = 0; i < 1000; i++) {
    x = x * 1103515245u + 12345u;
    cr_assert(ws_eventq_push(&q, (x >> 8) % 97, 0, 0, 0, i));
  }
  cr_expect_eq(q.count, 1000);
  cr_expect_eq(q.cap, 1024);
  ws_event prev, ev;
  cr_assert(ws_eventq_pop(&q, &prev));
  for (int k = 1; k < 1000; k++) {
    cr_assert(ws_eventq_pop(&q, &ev));
    cr_assert(ev.cycle > prev.cycle || (ev.cycle == prev.cycle && ev.payload > prev.payload),
              "pop %d: (%llu,%llu) after (%llu,%llu)", k, (unsigned long long)ev.cycle,
              (unsigned long long)ev.payload, (unsigned long long)prev.cycle,
              (unsigned long long)prev.payload);
    prev = ev;
  }
  cr_expect(ws_eventq_empty(&q));
  ws_eventq_free(&q);
  cr_expect_eq(q.heap, NULL);
  cr_expect_eq(q.cap, 0);
}
