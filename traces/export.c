/* export.c - Perfetto JSON and CSV from a .wst trace (export.h).
 *
 * Time: a device record's cycle becomes picoseconds after its launch's
 * start (cycle * 10^6 / clock MHz, in integers), rounded down to the
 * nanosecond, Perfetto's resolution; two records never swap. A launch
 * starts where the runtime's timeline placed its kernel when the timeline
 * names every launch in order and without overlap; otherwise the launches
 * are laid end to end from 0.
 *
 * Tracks: every slice goes to a group (a scheduler, a warp slot, an L1, an
 * L2 slice's lookups...), and within its group to the first lane (a thread)
 * whose last slice has ended, so slices on one thread never overlap; a
 * group opens a new lane when all are busy, up to MAX_LANES. Lanes are
 * threads with ids counted from 1 as they appear.
 *
 * Order: records that begin at the simulation's current cycle (issues,
 * lookups, DRAM commands, fills) advance a watermark; a record that begins
 * after it (a crossbar transfer waits for its port) is held in a heap until
 * the watermark reaches it. Every track of memory records is then written
 * in order of start. Stall spans, CTAs and kernels are reported when they
 * end, but each warp slot, CTA slot and the kernel track get them in order.
 *
 * Args: a slice's fields a, b and c show under the names and in the forms
 * (a number, a hex mask, a way of -1 for none) their kind's rows of
 * sim/common/probe.def give them.
 *
 * Flows: a memory request keeps its micro-op id from the L1 to the L2 and
 * back; a table from id to the slice of its last hop (only requests in
 * flight) gives the start of each arrow, and the DRAM read's link joins it
 * to the request that missed. */
#include "traces/export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "traces/evtext.h"

#define MAX_LANES 256u
#define WINDOWS_DEFAULT 200u
#define WINDOWS_MAX 10000u
#define NS_PER_US ((uint64_t)1000)

/* ---- CSV ------------------------------------------------------------------------ */

static bool host_wanted(const ws_export_opts *o) {
  return o->launch == UINT32_MAX && !o->cycle_begin && !o->cycle_end;
}

/* Calls fn for every record the options select: the whole file in order
 * when nothing is filtered, else launch by launch through the seek. */
typedef ws_status (*record_fn)(void *user, uint32_t launch, const ws_probe_event *ev);

/* Records between two looks at the interrupt flag. */
#define POLL_EVERY_RECORDS 4096u

static ws_status each_in(ws_ctx *ctx, const ws_export_opts *o, ws_wst_cursor *cur, record_fn fn, void *user) {
  ws_probe_event ev;
  uint32_t launch;
  bool got = true;
  ws_status st = WS_OK;
  for (uint32_t n = 1; st == WS_OK && (st = ws_wst_cursor_next(cur, &ev, &launch, &got)) == WS_OK && got;
       n++) {
    st = fn(user, launch, &ev);
    if (st == WS_OK && n % POLL_EVERY_RECORDS == 0 && o->interrupt && *o->interrupt)
      st = ws_ctx_fail(ctx, WS_ERR_INTERRUPTED, "the export was interrupted");
  }
  ws_wst_cursor_close(cur);
  return st;
}

static ws_status each_record(ws_ctx *ctx, ws_wst_reader *r, const ws_export_opts *o, record_fn fn,
                             void *user) {
  ws_wst_cursor *cur = NULL;
  ws_status st;
  if (host_wanted(o))
    return (st = ws_wst_cursor_open(r, &cur)) == WS_OK ? each_in(ctx, o, cur, fn, user) : st;
  size_t n = ws_wst_launch_count(r);
  for (size_t i = 0; i < n; i++) {
    if (o->launch != UINT32_MAX && o->launch != i) continue;
    if ((st = ws_wst_cursor_open_launch(r, (uint32_t)i, o->cycle_begin, o->cycle_end, &cur)) != WS_OK)
      return st;
    if ((st = each_in(ctx, o, cur, fn, user)) != WS_OK) return st;
  }
  return WS_OK;
}

typedef struct csv_state {
  FILE *out;
  const char *const *names;
  size_t nnames;
  ws_export_result *res;
} csv_state;

static ws_status csv_row(void *user, uint32_t launch, const ws_probe_event *ev) {
  csv_state *c = user;
  ws_evtext_row(c->out, WS_EVTEXT_CSV, ev, launch, c->names, c->nnames);
  c->res->records++;
  c->res->events++;
  return WS_OK;
}

static ws_status finish_output(ws_ctx *ctx, FILE *out) {
  int err = errno; /* the reason an earlier write failed, if one did */
  errno = 0;
  if (fflush(out) == 0 && !ferror(out)) return WS_OK;
  if (errno) err = errno;
  return ws_ctx_fail(ctx, WS_ERR_IO, "writing the export failed: %s", strerror(err ? err : EIO));
}

ws_status ws_export_csv(ws_ctx *ctx, ws_wst_reader *r, const ws_export_opts *o, FILE *out,
                        ws_export_result *res) {
  ws_export_result local;
  csv_state c = {.out = out, .res = res ? res : &local};
  memset(c.res, 0, sizeof *c.res);
  c.names = ws_wst_names(r, &c.nnames);
  ws_evtext_header(out, WS_EVTEXT_CSV);
  ws_status st = each_record(ctx, r, o, csv_row, &c);
  return st == WS_OK ? finish_output(ctx, out) : st;
}

/* ---- Perfetto: tracks ---------------------------------------------------------------- */

typedef struct lane {
  uint64_t last_begin, last_end; /* ns */
  uint32_t tid;
} lane;

typedef struct group {
  uint32_t pid, sort; /* sort: the group's place in its process */
  char label[40];
  size_t n, cap;
  lane *lanes;
} group;

/* Where a slice went: the arrow's end points. */
typedef struct place {
  uint32_t pid, tid;
  uint64_t ts; /* ns */
} place;

typedef struct flow_ent {
  uint64_t uop; /* 0: empty */
  uint64_t requester;
  place at;
} flow_ent;

typedef struct held {
  ws_probe_event ev;
  uint64_t seq;
} held;

/* Per launch: counter windows. */
typedef struct windows {
  uint64_t window, n;
  uint64_t *warp_cycles, *l1_hits, *l1_acc; /* [sm][window] */
  uint64_t *l2_hits, *l2_acc;               /* [slice][window] */
  uint64_t *dram_bytes;                     /* [channel][window] */
} windows;

enum { PID_HOST = 1, PID_PCIE, PID_GPU, PID_SM0 = 10 };
/* groups of an SM, after its schedulers, warp slots and CTA slots */
enum { SMG_L1, SMG_XBAR, SMG_SMEM, SMG_EXTRA };

typedef struct pf {
  ws_ctx *ctx;
  FILE *out;
  const ws_export_opts *o;
  ws_export_result *res;
  ws_wst_reader *r;
  ws_gpu_cfg cfg;
  const char *const *names;
  size_t nnames;
  const ws_runtime_record *tl;
  size_t ntl;
  uint32_t nsms, nslices, nch, nsp, nwarps, nctas, per_sm;
  uint32_t pid_slice0, pid_ch0;
  group *groups;
  size_t ngroups, capgroups, host0; /* groups from host0 on: host streams, found by label */
  uint32_t next_tid;
  uint64_t *offset_ps; /* per launch */
  uint64_t next_flow;
  bool nomem;
  /* the launch being written */
  uint32_t launch;
  uint64_t watermark, seq;
  held *heap;
  size_t nheap, capheap;
  flow_ent *flows;
  size_t nflows, capflows;
  windows win;
  /* host records, sorted at the end */
  ws_probe_event *host;
  size_t nhost, caphost;
} pf;

static void *grow(pf *p, void *ptr, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return ptr;
  size_t cap2 = *cap ? *cap : 64;
  while (cap2 < need) cap2 *= 2;
  void *q = realloc(ptr, cap2 * size);
  if (!q) {
    p->nomem = true;
    return NULL;
  }
  *cap = cap2;
  return q;
}

static void json_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f)
      fprintf(out, "\\u%04x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

/* A time in ns as microseconds, half a nanosecond into its nanosecond:
 * Perfetto truncates ts * 1000 computed in floating point, which lands on
 * the nanosecond below for about one value in 200 printed exactly. */
static void ts(FILE *out, uint64_t ns) {
  fprintf(out, ",\"ts\":%" PRIu64 ".%03" PRIu64 "5", ns / NS_PER_US, ns % NS_PER_US);
}

/* A duration in ns, exact (read a nanosecond short, a slice only shrinks). */
static void dur(FILE *out, uint64_t ns) {
  fprintf(out, ",\"dur\":%" PRIu64 ".%03" PRIu64, ns / NS_PER_US, ns % NS_PER_US);
}

static void begin_event(pf *p) { fputs(p->res->events++ ? ",\n" : "\n", p->out); }

static void meta(pf *p, const char *what, uint32_t pid, uint32_t tid, const char *key, const char *sval,
                 uint64_t nval) {
  begin_event(p);
  fprintf(p->out, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"%s\",\"args\":{\"%s\":", pid, tid, what,
          key);
  if (sval)
    json_str(p->out, sval);
  else
    fprintf(p->out, "%" PRIu64, nval);
  fputs("}}", p->out);
}

static void process(pf *p, uint32_t pid, const char *name) {
  meta(p, "process_name", pid, 0, "name", name, 0);
  meta(p, "process_sort_index", pid, 0, "sort_index", NULL, pid);
}

static uint32_t add_group(pf *p, uint32_t pid, uint32_t sort, const char *label) {
  group *g = grow(p, p->groups, &p->capgroups, p->ngroups + 1, sizeof *g);
  if (!g) return 0;
  p->groups = g;
  g = &p->groups[p->ngroups];
  memset(g, 0, sizeof *g);
  g->pid = pid;
  g->sort = sort;
  snprintf(g->label, sizeof g->label, "%s", label);
  return (uint32_t)p->ngroups++;
}

static void add_numbered(pf *p, uint32_t pid, uint32_t sort, const char *what, uint32_t i) {
  char label[40];
  snprintf(label, sizeof label, "%s %u", what, i);
  add_group(p, pid, sort, label);
}

/* The groups' layout: an SM's first, then the slices', the channels', the
 * kernels' track, the two PCIe directions; host streams come as they appear. */
static void make_groups(pf *p) {
  for (uint32_t s = 0; s < p->nsms; s++) {
    uint32_t pid = PID_SM0 + s, k = 0;
    for (uint32_t i = 0; i < p->nsp; i++) add_numbered(p, pid, k++, "scheduler", i);
    for (uint32_t i = 0; i < p->nwarps; i++) add_numbered(p, pid, k++, "warp", i);
    for (uint32_t i = 0; i < p->nctas; i++) add_numbered(p, pid, k++, "CTA slot", i);
    add_group(p, pid, k++, "L1");
    add_group(p, pid, k++, "responses in");
    add_group(p, pid, k++, "shared memory");
  }
  for (uint32_t s = 0; s < p->nslices; s++) {
    add_group(p, p->pid_slice0 + s, 0, "requests in");
    add_group(p, p->pid_slice0 + s, 1, "lookups and fills");
  }
  for (uint32_t c = 0; c < p->nch; c++) add_group(p, p->pid_ch0 + c, 0, "commands");
  add_group(p, PID_GPU, 0, "kernels");
  add_group(p, PID_PCIE, 0, "H2D");
  add_group(p, PID_PCIE, 1, "D2H");
  p->host0 = p->ngroups;
}

static uint32_t g_sm(const pf *p, uint32_t sm, uint32_t local) { return sm * p->per_sm + local; }
static uint32_t g_sched(const pf *p, uint32_t sm, uint32_t sp) { return g_sm(p, sm, sp); }
static uint32_t g_warp(const pf *p, uint32_t sm, uint32_t w) { return g_sm(p, sm, p->nsp + w); }
static uint32_t g_cta(const pf *p, uint32_t sm, uint32_t c) { return g_sm(p, sm, p->nsp + p->nwarps + c); }
static uint32_t g_smx(const pf *p, uint32_t sm, uint32_t which) {
  return g_sm(p, sm, p->nsp + p->nwarps + p->nctas + which);
}
static uint32_t g_slice(const pf *p, uint32_t s, uint32_t which) {
  return p->nsms * p->per_sm + s * 2 + which;
}
static uint32_t g_chan(const pf *p, uint32_t c) { return p->nsms * p->per_sm + p->nslices * 2 + c; }
static uint32_t g_kernels(const pf *p) { return g_chan(p, p->nch); }
static uint32_t g_pcie(const pf *p, uint32_t dir) { return g_kernels(p) + 1 + (dir ? 1 : 0); }

/* The host stream's group, made when first seen. */
static uint32_t g_stream(pf *p, uint16_t stream) {
  char label[40];
  if (stream == WS_PROBE_NONE)
    snprintf(label, sizeof label, "host");
  else
    snprintf(label, sizeof label, "stream %u", stream);
  for (size_t i = p->host0; i < p->ngroups; i++)
    if (!strcmp(p->groups[i].label, label)) return (uint32_t)i;
  return add_group(p, PID_HOST, stream == WS_PROBE_NONE ? 0 : 1u + stream, label);
}

static lane *new_lane(pf *p, group *g) {
  lane *l = grow(p, g->lanes, &g->cap, g->n + 1, sizeof *l);
  if (!l) return NULL;
  g->lanes = l;
  l = &g->lanes[g->n];
  *l = (lane){0, 0, p->next_tid++};
  char name[64];
  if (g->n)
    snprintf(name, sizeof name, "%s (%zu)", g->label, g->n + 1);
  else
    snprintf(name, sizeof name, "%s", g->label);
  meta(p, "thread_name", g->pid, l->tid, "name", name, 0);
  meta(p, "thread_sort_index", g->pid, l->tid, "sort_index", NULL, (uint64_t)g->sort * MAX_LANES + g->n);
  g->n++;
  return l;
}

/* The lane a slice [b, e) goes to: the first free one, a new one, or (all
 * MAX_LANES busy) the one that frees first. */
static lane *pick_lane(pf *p, group *g, uint64_t b) {
  lane *best = NULL;
  for (uint32_t i = 0; i < g->n; i++) {
    if (g->lanes[i].last_end <= b) return &g->lanes[i];
    if (!best || g->lanes[i].last_end < best->last_end) best = &g->lanes[i];
  }
  if (g->n < MAX_LANES || !best) return new_lane(p, g);
  return best;
}

/* A complete ("X") slice on group gid; *at (may be NULL) gets where it went.
 * args: the inside of a JSON object, or "". */
static void slice(pf *p, uint32_t gid, uint64_t b, uint64_t e, const char *name, const char *args,
                  place *at) {
  group *g = &p->groups[gid];
  lane *l = pick_lane(p, g, b);
  if (!l) return;
  if (b < l->last_begin) { /* a record out of the order the simulator keeps: never reorder a track */
    p->res->reordered++;
    b = l->last_begin;
  }
  if (e < b) e = b;
  l->last_begin = b;
  if (e > l->last_end) l->last_end = e;
  begin_event(p);
  fprintf(p->out, "{\"ph\":\"X\",\"pid\":%u,\"tid\":%u", g->pid, l->tid);
  ts(p->out, b);
  dur(p->out, e - b);
  fputs(",\"name\":", p->out);
  json_str(p->out, name);
  fprintf(p->out, ",\"args\":{%s}}", args);
  if (at) *at = (place){g->pid, l->tid, b};
}

/* An instant on the group's first lane. */
static void instant(pf *p, uint32_t gid, uint64_t t, const char *name, const char *args) {
  group *g = &p->groups[gid];
  lane *l = g->n ? &g->lanes[0] : new_lane(p, g);
  if (!l) return;
  begin_event(p);
  fprintf(p->out, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,\"tid\":%u", g->pid, l->tid);
  ts(p->out, t);
  fprintf(p->out, ",\"name\":\"%s\",\"args\":{%s}}", name, args);
}

/* ---- Perfetto: flows ---------------------------------------------------------------- */

static uint64_t hash_uop(uint64_t u) { return (u * 0x9E3779B97F4A7C15ull) >> 17; }

static flow_ent *flow_find(pf *p, uint64_t uop) {
  if (!p->capflows) return NULL;
  for (size_t i = hash_uop(uop) & (p->capflows - 1);; i = (i + 1) & (p->capflows - 1)) {
    if (p->flows[i].uop == uop) return &p->flows[i];
    if (!p->flows[i].uop) return NULL;
  }
}

static void flow_rehash(pf *p) {
  size_t cap = p->capflows ? 2 * p->capflows : 1024;
  flow_ent *old = p->flows, *t = calloc(cap, sizeof *t);
  if (!t) {
    p->nomem = true;
    return;
  }
  size_t oldcap = p->capflows;
  p->flows = t;
  p->capflows = cap;
  p->nflows = 0;
  for (size_t i = 0; i < oldcap; i++)
    if (old[i].uop) {
      size_t k = hash_uop(old[i].uop) & (cap - 1);
      while (t[k].uop) k = (k + 1) & (cap - 1);
      t[k] = old[i];
      p->nflows++;
    }
  free(old);
}

static flow_ent *flow_put(pf *p, uint64_t uop) {
  flow_ent *f = flow_find(p, uop);
  if (f) return f;
  if (2 * (p->nflows + 1) > p->capflows) flow_rehash(p);
  if (p->nomem) return NULL;
  size_t k = hash_uop(uop) & (p->capflows - 1);
  while (p->flows[k].uop) k = (k + 1) & (p->capflows - 1);
  p->flows[k] = (flow_ent){.uop = uop};
  p->nflows++;
  return &p->flows[k];
}

/* Backward-shift deletion keeps every probe chain intact. */
static void flow_del(pf *p, uint64_t uop) {
  flow_ent *f = flow_find(p, uop);
  if (!f) return;
  size_t mask = p->capflows - 1, i = (size_t)(f - p->flows);
  for (size_t j = (i + 1) & mask; p->flows[j].uop; j = (j + 1) & mask) {
    size_t home = hash_uop(p->flows[j].uop) & mask;
    if (((j - home) & mask) >= ((j - i) & mask)) {
      p->flows[i] = p->flows[j];
      i = j;
    }
  }
  p->flows[i].uop = 0;
  p->nflows--;
}

static void flow_event(pf *p, const char *ph, const place *at, uint64_t id) {
  begin_event(p);
  fprintf(p->out, "{\"ph\":\"%s\",\"id\":%" PRIu64 ",\"pid\":%u,\"tid\":%u", ph, id, at->pid, at->tid);
  ts(p->out, at->ts);
  fprintf(p->out, ",\"name\":\"request\",\"cat\":\"memory\"%s}", ph[0] == 'f' ? ",\"bp\":\"e\"" : "");
}

/* The arrow from `from` to `to`. */
static void arrow(pf *p, const place *from, const place *to) {
  uint64_t id = ++p->next_flow;
  flow_event(p, "s", from, id);
  flow_event(p, "f", to, id);
  p->res->flows++;
}

/* Request `uop` reached `at`: an arrow from its previous hop; last: the
 * request ends here. */
static void hop(pf *p, uint64_t uop, const place *at, bool last) {
  if (!p->o->flows || !uop) return;
  flow_ent *f = flow_find(p, uop);
  if (f) arrow(p, &f->at, at);
  if (last) {
    flow_del(p, uop);
    return;
  }
  if (!f && !(f = flow_put(p, uop))) return;
  f->at = *at;
}

/* ---- Perfetto: one record ------------------------------------------------------------ */

/* Launch cycles as ns, rounded down after an exact sum in picoseconds. */
static uint64_t cyc_ns(const pf *p, uint64_t cycles) {
  return (p->offset_ps[p->launch] + cycles * 1000000 / p->cfg.gpu.core_clock_mhz) / 1000;
}

static void count_window(pf *p, uint64_t *arr, uint32_t unit, uint64_t cycle, uint64_t v) {
  windows *w = &p->win;
  if (!w->n) return;
  uint64_t k = cycle / w->window;
  arr[(size_t)unit * w->n + (k < w->n ? k : w->n - 1)] += v;
}

/* Warp-cycles of [b, e) into the SM's windows. */
static void count_warps(pf *p, uint32_t sm, uint64_t b, uint64_t e) {
  windows *w = &p->win;
  while (w->n && b < e) {
    uint64_t k = b / w->window, stop = (k + 1) * w->window;
    if (k >= w->n - 1) stop = e;
    uint64_t upto = e < stop ? e : stop;
    count_window(p, w->warp_cycles, sm, b, upto - b);
    b = upto;
  }
}

static const char *mnemonic(uint32_t op) {
  const ws_opinfo *i = ws_isa_opinfo((ws_op)op);
  return i ? i->mnemonic : "?";
}

/* A slice's args: the inside of a JSON object, built up in order. 256
 * bytes hold the longest (a memory record's, about 200). */
typedef struct argbuf {
  char s[256];
  size_t n;
} argbuf;

static void argf(argbuf *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(a->s + a->n, sizeof a->s - a->n, fmt, ap);
  va_end(ap);
  if (k > 0) a->n = a->n + (size_t)k < sizeof a->s ? a->n + (size_t)k : sizeof a->s - 1;
}

/* "name":value for a field, named and shown as its row of probe.def says. */
static void put(argbuf *a, const ws_probe_field_info *f, uint32_t v) {
  if (!f) return;
  argf(a, "%s\"%s\":", a->n ? "," : "", f->arg);
  switch (f->form) {
  case WS_PROBE_FORM_MASK32: argf(a, "\"0x%08x\"", v); break;
  case WS_PROBE_FORM_SECTORS: argf(a, "\"0x%x\"", v); break;
  case WS_PROBE_FORM_WAY: argf(a, "%d", v == UINT32_MAX ? -1 : (int)v); break;
  default: argf(a, "%u", v); break;
  }
}

/* Field `slot` of the record's kind. */
static void field(argbuf *a, const ws_probe_event *ev, ws_probe_slot slot) {
  put(a, ws_probe_field_lookup(ev->kind, slot), ws_probe_slot_value(ev, slot));
}

static void on_issue(pf *p, const ws_probe_event *ev) {
  argbuf a = {0};
  argf(&a, "\"warp\":%u,\"pc\":%u", ev->warp, ev->pc);
  field(&a, ev, WS_PROBE_SLOT_A);
  argf(&a, ",\"ready_cycle\":%" PRIu64, ev->end);
  uint64_t b = cyc_ns(p, ev->begin), e = cyc_ns(p, ev->begin + 1);
  const char *op = mnemonic(ws_probe_issue_opcode(ev));
  if (ev->unit < p->nsp) slice(p, g_sched(p, ev->sm, ev->unit), b, e, op, a.s, NULL);
  if (ev->warp < p->nwarps) slice(p, g_warp(p, ev->sm, ev->warp), b, e, op, a.s, NULL);
  count_warps(p, ev->sm, ev->begin, ev->begin + 1);
}

static void on_stall(pf *p, const ws_probe_event *ev) {
  argbuf a = {0};
  const char *name = ev->kind == WS_PEV_DEPBAR ? "depbar" : ws_evtext_outcome_name(ev, p->names, p->nnames);
  if (ev->kind == WS_PEV_DEPBAR) {
    argf(&a, "\"pc\":%u", ev->pc);
    field(&a, ev, WS_PROBE_SLOT_A);
  } else {
    argf(&a, "\"cycles\":%" PRIu64, ev->end - ev->begin);
  }
  count_warps(p, ev->sm, ev->begin, ev->end);
  if (ev->warp >= p->nwarps || ev->end == ev->begin) return;
  slice(p, g_warp(p, ev->sm, ev->warp), cyc_ns(p, ev->begin), cyc_ns(p, ev->end), name, a.s, NULL);
}

static void on_warp_instant(pf *p, const ws_probe_event *ev) {
  argbuf a = {0};
  char name[32];
  if (ev->warp >= p->nwarps) return;
  argf(&a, "\"pc\":%u", ev->pc);
  if (ev->kind == WS_PEV_COALESCE) {
    snprintf(name, sizeof name, "coalesce");
    for (int s = WS_PROBE_SLOT_A; s < WS_PROBE_SLOTS; s++) field(&a, ev, (ws_probe_slot)s);
  } else if (ev->kind == WS_PEV_MEM_DONE) {
    snprintf(name, sizeof name, "load complete");
  } else {
    snprintf(name, sizeof name, "barrier %s", ws_evtext_outcome_name(ev, NULL, 0));
    field(&a, ev, WS_PROBE_SLOT_A);
  }
  instant(p, g_warp(p, ev->sm, ev->warp), cyc_ns(p, ev->begin), name, a.s);
}

/* What every memory slice's args open with: the request, its line, its
 * sectors and flags. A DRAM command has no sector mask; its bytes stand in
 * that place, shown as one, as they always have been (a reader comparing
 * exports finds the same args). */
static void mem_args(argbuf *a, const ws_probe_event *ev) {
  char flags[WS_EVTEXT_FLAGS_BYTES];
  argf(a, "\"uop\":%" PRIu64 ",\"line\":\"0x%" PRIx64 "\"", ev->uop, ev->addr);
  if (ev->kind == WS_PEV_DRAM)
    put(a, ws_probe_field_lookup(WS_PEV_L2_FILL, WS_PROBE_SLOT_C), ws_probe_dram_bytes(ev));
  else
    field(a, ev, WS_PROBE_SLOT_C);
  argf(a, ",\"flags\":\"%s\"", ws_evtext_flags(ev->flags, flags));
}

static void on_l1(pf *p, const ws_probe_event *ev) {
  argbuf a = {0};
  char name[32];
  place at;
  bool fill = ev->kind == WS_PEV_L1_FILL;
  snprintf(name, sizeof name, "L1 %s", fill ? "fill" : ws_evtext_outcome_name(ev, NULL, 0));
  mem_args(&a, ev);
  if (!fill) {
    argf(&a, ",\"warp\":%u", ev->warp);
    field(&a, ev, WS_PROBE_SLOT_A);
    field(&a, ev, WS_PROBE_SLOT_B);
  }
  slice(p, g_smx(p, ev->sm, SMG_L1), cyc_ns(p, ev->begin), cyc_ns(p, ev->end), name, a.s, &at);
  bool load =
      !fill && !(ev->flags & (WS_PROBE_WRITE | WS_PROBE_ATOMIC)) && ev->outcome != WS_PROBE_L1_RESFAIL;
  if (load) {
    count_window(p, p->win.l1_hits, ev->sm, ev->begin, ev->outcome == WS_PROBE_L1_HIT);
    count_window(p, p->win.l1_acc, ev->sm, ev->begin, 1);
  }
  if (fill) hop(p, ev->uop, &at, true);
  if (!fill && (ev->outcome == WS_PROBE_L1_MISS || ev->outcome == WS_PROBE_L1_FORWARD))
    hop(p, ev->uop, &at, false);
}

static void on_xbar(pf *p, const ws_probe_event *ev) {
  argbuf a = {0};
  place at;
  bool req = ev->outcome == WS_PROBE_DIR_REQ;
  if (req ? ev->unit >= p->nslices : ev->sm >= p->nsms) {
    p->res->skipped++;
    return;
  }
  mem_args(&a, ev);
  argf(&a, ",\"sm\":%u,\"slice\":%u", ev->sm, ev->unit);
  field(&a, ev, WS_PROBE_SLOT_A);
  uint32_t gid = req ? g_slice(p, ev->unit, 0) : g_smx(p, ev->sm, SMG_XBAR);
  slice(p, gid, cyc_ns(p, ev->begin), cyc_ns(p, ev->end), req ? "request" : "response", a.s, &at);
  hop(p, ev->uop, &at, !req && (ev->flags & WS_PROBE_ATOMIC)); /* an atomic's response ends it */
}

static void on_l2(pf *p, const ws_probe_event *ev) {
  argbuf a = {0};
  char name[32];
  place at;
  bool fill = ev->kind == WS_PEV_L2_FILL;
  if (ev->unit >= p->nslices) {
    p->res->skipped++;
    return;
  }
  snprintf(name, sizeof name, "L2 %s", fill ? "fill" : ws_evtext_outcome_name(ev, NULL, 0));
  mem_args(&a, ev);
  if (!fill) {
    argf(&a, ",\"sm\":%u", ev->sm);
    field(&a, ev, WS_PROBE_SLOT_A);
    field(&a, ev, WS_PROBE_SLOT_B);
  }
  slice(p, g_slice(p, ev->unit, 1), cyc_ns(p, ev->begin), cyc_ns(p, ev->end), name, a.s, &at);
  if (!fill && ev->outcome != WS_PROBE_L2_WRITTEN) {
    count_window(p, p->win.l2_hits, ev->unit, ev->begin, ev->outcome == WS_PROBE_L2_HIT);
    count_window(p, p->win.l2_acc, ev->unit, ev->begin, 1);
  }
  if (!fill) {
    hop(p, ev->uop, &at, ev->outcome == WS_PROBE_L2_WRITTEN);
    return;
  }
  /* the fill answers the request whose miss asked for the read */
  flow_ent *f = p->o->flows ? flow_find(p, ev->uop) : NULL;
  uint64_t requester = f ? f->requester : 0;
  hop(p, ev->uop, &at, true);
  if (requester && (f = flow_find(p, requester)) != NULL) f->at = at;
}

static void on_dram(pf *p, const ws_probe_event *ev) {
  argbuf a = {0};
  char name[40];
  place at;
  if (ev->unit >= p->nch) {
    p->res->skipped++;
    return;
  }
  bool write = ev->flags & WS_PROBE_WRITE;
  snprintf(name, sizeof name, "%s %s", write ? "write" : "read", ws_evtext_outcome_name(ev, NULL, 0));
  mem_args(&a, ev);
  argf(&a, ",\"link\":%" PRIu64, ev->link);
  for (int s = WS_PROBE_SLOT_A; s < WS_PROBE_SLOTS; s++) field(&a, ev, (ws_probe_slot)s);
  slice(p, g_chan(p, ev->unit), cyc_ns(p, ev->begin), cyc_ns(p, ev->end), name, a.s, &at);
  uint64_t burst = p->cfg.hbm.burst_bytes;
  count_window(p, p->win.dram_bytes, ev->unit, ev->begin,
               (ws_probe_dram_bytes(ev) + burst - 1) / burst * burst);
  if (!p->o->flows || write || !ev->link) return;
  flow_ent *req = flow_find(p, ev->link);
  if (req) arrow(p, &req->at, &at);
  flow_ent *f = flow_put(p, ev->uop);
  if (f) {
    f->at = at;
    f->requester = ev->link;
  }
}

static void on_smem(pf *p, const ws_probe_event *ev) {
  argbuf a = {0};
  char name[40];
  snprintf(name, sizeof name, "shared %s", ws_evtext_outcome_name(ev, NULL, 0));
  argf(&a, "\"warp\":%u,\"pc\":%u", ev->warp, ev->pc);
  for (int s = WS_PROBE_SLOT_A; s < WS_PROBE_SLOTS; s++) field(&a, ev, (ws_probe_slot)s);
  slice(p, g_smx(p, ev->sm, SMG_SMEM), cyc_ns(p, ev->begin), cyc_ns(p, ev->end), name, a.s, NULL);
}

static void on_cta(pf *p, const ws_probe_event *ev) {
  argbuf a = {0};
  char name[32];
  uint32_t slot = ws_probe_cta_slot(ev);
  if (slot >= p->nctas) {
    p->res->skipped++;
    return;
  }
  snprintf(name, sizeof name, "CTA %u", ws_probe_cta_index(ev));
  field(&a, ev, WS_PROBE_SLOT_A);
  field(&a, ev, WS_PROBE_SLOT_B);
  slice(p, g_cta(p, ev->sm, slot), cyc_ns(p, ev->begin), cyc_ns(p, ev->end), name, a.s, NULL);
}

static void on_kernel(pf *p, const ws_probe_event *ev) {
  const ws_wst_launch_info *l = ws_wst_launch(p->r, p->launch);
  const ws_wst_kernel_info *k = l && l->kernel != WS_WST_NO_KERNEL ? ws_wst_kernel(p->r, l->kernel) : NULL;
  argbuf a = {0};
  argf(&a, "\"launch\":%u", p->launch);
  field(&a, ev, WS_PROBE_SLOT_A);
  field(&a, ev, WS_PROBE_SLOT_B);
  argf(&a, ",\"cycles\":%" PRIu64, ev->end);
  slice(p, g_kernels(p), cyc_ns(p, ev->begin), cyc_ns(p, ev->end), k ? k->name : "kernel", a.s, NULL);
}

/* A device record, in order of its start on its track. */
static void emit(pf *p, const ws_probe_event *ev) {
  bool sm_kind = ev->kind != WS_PEV_KERNEL && ev->kind != WS_PEV_XBAR && ev->kind != WS_PEV_L2 &&
                 ev->kind != WS_PEV_DRAM && ev->kind != WS_PEV_L2_FILL;
  if (sm_kind && ev->sm >= p->nsms) {
    p->res->skipped++;
    return;
  }
  switch (ev->kind) {
  case WS_PEV_KERNEL: on_kernel(p, ev); break;
  case WS_PEV_CTA: on_cta(p, ev); break;
  case WS_PEV_ISSUE: on_issue(p, ev); break;
  case WS_PEV_STALL:
  case WS_PEV_DEPBAR: on_stall(p, ev); break;
  case WS_PEV_COALESCE:
  case WS_PEV_MEM_DONE:
  case WS_PEV_BARRIER: on_warp_instant(p, ev); break;
  case WS_PEV_SMEM: on_smem(p, ev); break;
  case WS_PEV_L1:
  case WS_PEV_L1_FILL: on_l1(p, ev); break;
  case WS_PEV_XBAR: on_xbar(p, ev); break;
  case WS_PEV_L2:
  case WS_PEV_L2_FILL: on_l2(p, ev); break;
  case WS_PEV_DRAM: on_dram(p, ev); break;
  default: break; /* rf_bank: its cycles show as the issue's dispatch stalls */
  }
}

/* ---- Perfetto: order ------------------------------------------------------------------ */

static bool before(const held *a, const held *b) {
  return a->ev.begin < b->ev.begin || (a->ev.begin == b->ev.begin && a->seq < b->seq);
}

static void heap_push(pf *p, const ws_probe_event *ev) {
  held *h = grow(p, p->heap, &p->capheap, p->nheap + 1, sizeof *h);
  if (!h) return;
  p->heap = h;
  size_t i = p->nheap++;
  h[i] = (held){*ev, p->seq++};
  while (i && before(&h[i], &h[(i - 1) / 2])) {
    held t = h[i];
    h[i] = h[(i - 1) / 2];
    h[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}

static ws_probe_event heap_pop(pf *p) {
  held *h = p->heap, top = h[0];
  h[0] = h[--p->nheap];
  for (size_t i = 0;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < p->nheap && before(&h[l], &h[m])) m = l;
    if (r < p->nheap && before(&h[r], &h[m])) m = r;
    if (m == i) break;
    held t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
  return top.ev;
}

/* Kinds the simulator reports at the cycle they begin. */
static bool begins_now(uint8_t kind) {
  switch (kind) {
  case WS_PEV_ISSUE:
  case WS_PEV_RF_BANK:
  case WS_PEV_COALESCE:
  case WS_PEV_SMEM:
  case WS_PEV_L1:
  case WS_PEV_L2:
  case WS_PEV_DRAM:
  case WS_PEV_L2_FILL:
  case WS_PEV_L1_FILL:
  case WS_PEV_MEM_DONE:
  case WS_PEV_BARRIER: return true;
  default: return false;
  }
}

/* Kinds whose tracks take records from several sources at once. */
static bool memory_kind(uint8_t kind) {
  return kind == WS_PEV_XBAR || kind == WS_PEV_L1 || kind == WS_PEV_L1_FILL || kind == WS_PEV_L2 ||
         kind == WS_PEV_L2_FILL || kind == WS_PEV_DRAM || kind == WS_PEV_SMEM;
}

static void device_record(pf *p, const ws_probe_event *ev) {
  if (begins_now(ev->kind) && ev->begin > p->watermark) p->watermark = ev->begin;
  while (p->nheap && p->heap[0].ev.begin <= p->watermark) {
    ws_probe_event h = heap_pop(p);
    emit(p, &h);
  }
  if (memory_kind(ev->kind) && ev->begin > p->watermark)
    heap_push(p, ev);
  else
    emit(p, ev);
}

/* ---- Perfetto: counters ------------------------------------------------------------------ */

static void counter(pf *p, uint32_t pid, const char *name, uint64_t cycle, double v) {
  begin_event(p);
  fprintf(p->out, "{\"ph\":\"C\",\"pid\":%u", pid);
  ts(p->out, cyc_ns(p, cycle));
  fprintf(p->out, ",\"name\":\"%s\",\"args\":{\"value\":%.4f}}", name, v);
}

static double ratio(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

/* One counter track per unit and a GPU-wide one; pct: hits / accesses in %. */
static void counter_tracks(pf *p, uint32_t pid0, uint32_t units, const char *name, const uint64_t *num,
                           const uint64_t *den, double scale) {
  windows *w = &p->win;
  for (uint64_t k = 0; k < w->n; k++) {
    uint64_t cyc = k * w->window, tn = 0, td = 0;
    if (p->o->cycle_end && cyc >= p->o->cycle_end) break;
    if ((k + 1) * w->window <= p->o->cycle_begin) continue;
    for (uint32_t u = 0; u < units; u++) {
      uint64_t a = num[(size_t)u * w->n + k], b = den ? den[(size_t)u * w->n + k] : 0;
      tn += a;
      td += b;
      counter(p, pid0 + u, name, cyc, den ? ratio(a, b) : (double)a * scale);
    }
    counter(p, PID_GPU, name, cyc, den ? ratio(tn, td) : (double)tn * scale);
  }
}

static void write_counters(pf *p) {
  windows *w = &p->win;
  if (!w->n) return;
  double per_cycle = 1.0 / (double)w->window;
  /* bytes per window in GB/s: bytes / (window / MHz) us / 1000 */
  double gbs = (double)p->cfg.gpu.core_clock_mhz / (double)w->window / 1000.0;
  counter_tracks(p, PID_SM0, p->nsms, "active warps", w->warp_cycles, NULL, per_cycle);
  counter_tracks(p, PID_SM0, p->nsms, "L1 hit rate (%)", w->l1_hits, w->l1_acc, 0);
  counter_tracks(p, p->pid_slice0, p->nslices, "L2 hit rate (%)", w->l2_hits, w->l2_acc, 0);
  counter_tracks(p, p->pid_ch0, p->nch, "DRAM bandwidth (GB/s)", w->dram_bytes, NULL, gbs);
}

static void free_windows(windows *w) {
  free(w->warp_cycles);
  free(w->l1_hits);
  free(w->l1_acc);
  free(w->l2_hits);
  free(w->l2_acc);
  free(w->dram_bytes);
  memset(w, 0, sizeof *w);
}

static void start_windows(pf *p, uint64_t cycles) {
  windows *w = &p->win;
  free_windows(w);
  if (!cycles) return;
  uint64_t window =
      p->o->window_cycles ? p->o->window_cycles : (cycles + WINDOWS_DEFAULT - 1) / WINDOWS_DEFAULT;
  if (window < (cycles + WINDOWS_MAX - 1) / WINDOWS_MAX) window = (cycles + WINDOWS_MAX - 1) / WINDOWS_MAX;
  w->window = window ? window : 1;
  w->n = (cycles + w->window - 1) / w->window;
  w->warp_cycles = calloc(p->nsms * w->n, sizeof(uint64_t));
  w->l1_hits = calloc(p->nsms * w->n, sizeof(uint64_t));
  w->l1_acc = calloc(p->nsms * w->n, sizeof(uint64_t));
  w->l2_hits = calloc(p->nslices * w->n, sizeof(uint64_t));
  w->l2_acc = calloc(p->nslices * w->n, sizeof(uint64_t));
  w->dram_bytes = calloc(p->nch * w->n, sizeof(uint64_t));
  if (!w->warp_cycles || !w->l1_hits || !w->l1_acc || !w->l2_hits || !w->l2_acc || !w->dram_bytes) {
    free_windows(w);
    p->nomem = true;
  }
}

/* ---- Perfetto: launches and the host timeline ---------------------------------------------- */

static ws_status add_host(pf *p, const ws_probe_event *ev) {
  ws_probe_event *h = grow(p, p->host, &p->caphost, p->nhost + 1, sizeof *h);
  if (!h) return ws_ctx_fail(p->ctx, WS_ERR_NOMEM, "export: out of memory for the host timeline");
  p->host = h;
  p->host[p->nhost++] = *ev;
  return WS_OK;
}

static ws_status launch_record(void *user, uint32_t launch, const ws_probe_event *ev) {
  pf *p = user;
  p->res->records++;
  if (ev->kind == WS_PEV_HOST || ev->kind == WS_PEV_PCIE || launch == WS_WST_NO_LAUNCH)
    return host_wanted(p->o) ? add_host(p, ev) : WS_OK;
  device_record(p, ev);
  return p->nomem ? ws_ctx_fail(p->ctx, WS_ERR_NOMEM, "export: out of memory") : WS_OK;
}

static ws_status export_launch(pf *p, uint32_t launch) {
  const ws_wst_launch_info *l = ws_wst_launch(p->r, launch);
  p->launch = launch;
  p->watermark = 0;
  p->nheap = 0;
  if (p->flows) memset(p->flows, 0, p->capflows * sizeof *p->flows);
  p->nflows = 0;
  start_windows(p, l->cycles);
  ws_wst_cursor *cur = NULL;
  ws_status st = ws_wst_cursor_open_launch(p->r, launch, p->o->cycle_begin, p->o->cycle_end, &cur);
  if (st == WS_OK) st = each_in(p->ctx, p->o, cur, launch_record, p);
  while (st == WS_OK && p->nheap) {
    ws_probe_event h = heap_pop(p);
    emit(p, &h);
  }
  if (st == WS_OK) write_counters(p);
  return st == WS_OK && p->nomem ? ws_ctx_fail(p->ctx, WS_ERR_NOMEM, "export: out of memory") : st;
}

static int by_begin(const void *a, const void *b) {
  const ws_probe_event *x = a, *y = b;
  return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : 0;
}

static void host_event(pf *p, const ws_probe_event *ev) {
  bool pcie = ev->kind == WS_PEV_PCIE;
  uint32_t record = pcie ? ws_probe_pcie_record(ev) : ws_probe_host_record(ev);
  const ws_runtime_record *rec = record < p->ntl ? &p->tl[record] : NULL;
  argbuf a = {0};
  char name[96];
  uint64_t b = ev->begin, e = ev->end;
  if (pcie) {
    argf(&a, "\"offset\":%" PRIu64, ev->addr);
    field(&a, ev, WS_PROBE_SLOT_C);
    field(&a, ev, WS_PROBE_SLOT_A);
    slice(p, g_pcie(p, ev->outcome), b, e, rec && rec->name[0] ? rec->name : "DMA burst", a.s, NULL);
    return;
  }
  const char *op = ws_evtext_outcome_name(ev, NULL, 0);
  if (ev->outcome == WS_PROBE_HOST_LAUNCH_OVERHEAD || !rec || !rec->name[0])
    snprintf(name, sizeof name, "%s", op);
  else
    snprintf(name, sizeof name, "%s", rec->name);
  argf(&a, "\"op\":\"%s\",\"bytes\":%" PRIu64, op, ev->addr);
  field(&a, ev, WS_PROBE_SLOT_A);
  slice(p, g_stream(p, ev->unit), b, e, name, a.s, NULL);
}

static void write_host(pf *p) {
  if (!p->nhost) return;
  qsort(p->host, p->nhost, sizeof *p->host, by_begin);
  for (size_t i = 0; i < p->nhost; i++) host_event(p, &p->host[i]);
}

/* Where each launch starts (docs: the timeline's kernel records, or end to end). */
static ws_status place_launches(pf *p) {
  size_t n = ws_wst_launch_count(p->r), k = 0;
  p->offset_ps = calloc(n + 1, sizeof *p->offset_ps);
  if (!p->offset_ps) return ws_ctx_fail(p->ctx, WS_ERR_NOMEM, "export: out of memory");
  bool timeline = true;
  uint64_t end = 0, clock = p->cfg.gpu.core_clock_mhz;
  for (size_t i = 0; i < n; i++) {
    const ws_wst_launch_info *l = ws_wst_launch(p->r, i);
    const ws_wst_kernel_info *ki = l->kernel != WS_WST_NO_KERNEL ? ws_wst_kernel(p->r, l->kernel) : NULL;
    while (k < p->ntl && p->tl[k].kind != WS_RUNTIME_OP_KERNEL) k++;
    if (k == p->ntl || !ki || strcmp(p->tl[k].kernel, ki->name) != 0 || p->tl[k].start_ns * 1000 < end)
      timeline = false;
    if (!timeline) break;
    p->offset_ps[i] = p->tl[k].start_ns * 1000;
    end = p->offset_ps[i] + l->cycles * 1000000 / clock;
    k++;
  }
  while (k < p->ntl && p->tl[k].kind != WS_RUNTIME_OP_KERNEL) k++;
  if (timeline && k == p->ntl) return WS_OK;
  for (size_t i = 0, at = 0; i < n; i++) { /* end to end, from 0 */
    p->offset_ps[i] = at;
    at += ws_wst_launch(p->r, i)->cycles * 1000000 / clock;
  }
  return WS_OK;
}

static void write_processes(pf *p) {
  char name[64];
  process(p, PID_GPU, "GPU");
  for (uint32_t s = 0; s < p->nsms; s++) {
    snprintf(name, sizeof name, "SM %u", s);
    process(p, PID_SM0 + s, name);
  }
  for (uint32_t s = 0; s < p->nslices; s++) {
    snprintf(name, sizeof name, "L2 slice %u", s);
    process(p, p->pid_slice0 + s, name);
  }
  for (uint32_t c = 0; c < p->nch; c++) {
    snprintf(name, sizeof name, "HBM channel %u", c);
    process(p, p->pid_ch0 + c, name);
  }
  if (host_wanted(p->o)) {
    process(p, PID_HOST, "Host");
    process(p, PID_PCIE, "PCIe");
  }
}

static ws_status setup(pf *p) {
  ws_status st = ws_wst_config(p->r, &p->cfg);
  if (st != WS_OK) return st;
  p->names = ws_wst_names(p->r, &p->nnames);
  p->tl = ws_wst_timeline(p->r, &p->ntl);
  p->nsms = p->cfg.gpu.num_sms;
  p->nslices = p->cfg.l2.slices;
  p->nch = p->cfg.hbm.channels;
  p->nsp = p->cfg.sm.subpartitions;
  p->nwarps = p->cfg.sm.max_warps_per_sm;
  p->nctas = p->cfg.sm.max_ctas_per_sm;
  p->per_sm = p->nsp + p->nwarps + p->nctas + SMG_EXTRA;
  p->pid_slice0 = PID_SM0 + p->nsms;
  p->pid_ch0 = p->pid_slice0 + p->nslices;
  p->next_tid = 1;
  make_groups(p);
  if (p->nomem) return ws_ctx_fail(p->ctx, WS_ERR_NOMEM, "export: out of memory");
  return place_launches(p);
}

static void teardown(pf *p) {
  for (size_t i = 0; i < p->ngroups; i++) free(p->groups[i].lanes);
  free(p->groups);
  free(p->offset_ps);
  free(p->heap);
  free(p->flows);
  free(p->host);
  free_windows(&p->win);
}

ws_status ws_export_perfetto(ws_ctx *ctx, ws_wst_reader *r, const ws_export_opts *o, FILE *out,
                             ws_export_result *res) {
  ws_export_result local;
  pf p = {.ctx = ctx, .out = out, .o = o, .res = res ? res : &local, .r = r};
  memset(p.res, 0, sizeof *p.res);
  ws_status st = setup(&p);
  if (st == WS_OK) {
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    write_processes(&p);
    size_t n = ws_wst_launch_count(r);
    for (size_t i = 0; st == WS_OK && i < n; i++)
      if (o->launch == UINT32_MAX || o->launch == i) st = export_launch(&p, (uint32_t)i);
    if (st == WS_OK && host_wanted(o)) {
      ws_wst_cursor *cur = NULL;
      st = ws_wst_cursor_open_launch(r, WS_WST_NO_LAUNCH, 0, 0, &cur);
      if (st == WS_OK) st = each_in(ctx, o, cur, launch_record, &p);
      if (st == WS_OK) write_host(&p);
    }
    fputs("\n]}\n", out);
  }
  teardown(&p);
  return st == WS_OK ? finish_output(ctx, out) : st;
}
