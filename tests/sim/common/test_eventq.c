/* test_event.c - the timing event queue alone: pops in cycle order, ties in
 * insertion order, next_cycle, field round trip and growth past the first
 * allocation.
 *
 * Why: the engine's determinism rests on this heap; an ordering slip would
 * not crash anything, it would just make two identical runs differ. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "sim/common/eventq.h"

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

/* 1000 events with cycles from a fixed LCG (many ties: cycles mod 4999,
 * some in the near window's FIFOs, the rest in the heap) outgrow the first
 * allocations; they must still pop as a stable sort by cycle. */
Test(event, growth_keeps_a_stable_order) {
  ws_eventq q;
  ws_eventq_init(&q);
  uint32_t x = 12345;
  for (uint64_t i = 0; i < 1000; i++) {
    x = x * 1103515245u + 12345u;
    cr_assert(ws_eventq_push(&q, (x >> 8) % 4999, 0, 0, 0, i));
  }
  cr_expect_eq(q.count + q.near, 1000);
  cr_expect(q.count > 0 && q.near > 0, "both levels hold events");
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

/* Pushes and pops interleaved as the engine does them (each push at or
 * after the last popped cycle, near and far, plus a few before it), checked
 * against a plain scan for the smallest (cycle, seq). */
Test(event, interleaved_matches_a_reference_order) {
  enum { N = 20000 };
  static uint64_t ref_cycle[N], ref_id[N];
  static bool ref_live[N];
  uint32_t nref = 0, live = 0;
  ws_eventq q;
  ws_eventq_init(&q);
  uint32_t x = 777;
  uint64_t now = 0;
  for (uint32_t step = 0; step < 3 * N; step++) {
    x = x * 1103515245u + 12345u;
    bool push = nref < N && ((x >> 16) % 3 != 0 || live == 0);
    if (push) {
      uint32_t r = (x >> 4) % 100;
      uint64_t c = r < 60 ? now + (x >> 9) % 64 : r < 95 ? now + (x >> 9) % 6000 : now - (now > 5 ? 5 : now);
      cr_assert(ws_eventq_push(&q, c, 0, 0, 0, nref));
      ref_cycle[nref] = c, ref_id[nref] = nref, ref_live[nref] = true;
      nref++, live++;
      continue;
    }
    if (!live) break;
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < nref; i++)
      if (ref_live[i] && (best == UINT32_MAX || ref_cycle[i] < ref_cycle[best])) best = i;
    cr_assert_eq(ws_eventq_next_cycle(&q), ref_cycle[best]);
    ws_event ev;
    cr_assert(ws_eventq_pop(&q, &ev));
    cr_assert_eq(ev.payload, ref_id[best], "step %u", step);
    ref_live[best] = false, live--;
    now = ev.cycle;
  }
  ws_eventq_free(&q);
}

/* Marks make cycles visited without events: the next visit is the earlier
 * of the next event and the next mark, a visit spends its cycle's mark,
 * and a mark not after the cycle last visited, or a window beyond it, is
 * refused. */
Test(event, marks_are_visited_in_order_and_spent) {
  ws_eventq q;
  ws_eventq_init(&q);
  cr_expect_eq(ws_eventq_next_visit(&q), UINT64_MAX);
  ws_eventq_visit(&q, 10);
  cr_expect_not(ws_eventq_mark(&q, 10), "not after the cycle visited");
  cr_expect_not(ws_eventq_mark(&q, 10 + WS_EVENTQ_WINDOW), "a window beyond it");
  cr_assert(ws_eventq_mark(&q, 9 + WS_EVENTQ_WINDOW));
  cr_assert(ws_eventq_mark(&q, 40));
  cr_assert(ws_eventq_mark(&q, 25));
  cr_assert(ws_eventq_mark(&q, 40));
  cr_assert(ws_eventq_push(&q, 30, 5, 0, 0, 0));
  cr_expect_eq(ws_eventq_next_cycle(&q), 30, "marks are not events");
  const uint64_t want[] = {25, 30, 40, 9 + WS_EVENTQ_WINDOW};
  for (uint32_t i = 0; i < 4; i++) {
    uint64_t t = ws_eventq_next_visit(&q);
    cr_assert_eq(t, want[i], "visit %u", i);
    ws_eventq_visit(&q, t);
    ws_event ev;
    if (ws_eventq_next_cycle(&q) == t) cr_assert(ws_eventq_pop(&q, &ev));
  }
  cr_expect_eq(ws_eventq_next_visit(&q), UINT64_MAX, "every mark spent");
  cr_expect(ws_eventq_empty(&q));
  ws_eventq_free(&q);
}
