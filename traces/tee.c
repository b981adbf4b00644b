/* tee.c - one probe feeding two (tee.h). */
#include "traces/tee.h"

static void tee_begin(void *user, const ws_probe_launch *l) {
  const ws_tee *t = user;
  if (t->a) t->a->launch_begin(t->a->user, l);
  if (t->b) t->b->launch_begin(t->b->user, l);
}

static void tee_end(void *user, const ws_probe_launch *l) {
  const ws_tee *t = user;
  if (t->a) t->a->launch_end(t->a->user, l);
  if (t->b) t->b->launch_end(t->b->user, l);
}

static void tee_event(void *user, const ws_probe_event *ev) {
  const ws_tee *t = user;
  if (t->a) t->a->event(t->a->user, ev);
  if (t->b) t->b->event(t->b->user, ev);
}

void ws_tee_init(ws_tee *t, const ws_probe *a, const ws_probe *b) {
  t->probe = (ws_probe){t, tee_begin, tee_end, tee_event};
  t->a = a;
  t->b = b;
}
