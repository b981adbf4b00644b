/* journey.c - the ledger of a followed value's hops (journey.h). */
#include "traces/journey.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

struct ws_journey {
  ws_probe probe;
  ws_journey_hop *hops;
  size_t n, cap;
  /* the current launch: which levels it has reached, and where in hops */
  uint32_t launch, launches;
  char kernel[48];
  size_t launch_first_hop;
  size_t first_of[WS_JOURNEY_LEVEL_COUNT];
  uint32_t last_copy; /* timeline record of the last copy that carried it (UINT32_MAX: none) */
  bool nomem;
  size_t pending_load; /* the register hop of a global load whose data is not back yet (SIZE_MAX: none) */
  ws_journey_reach *reach;
  size_t nreach, reach_cap;
};

static const char *const level_names[WS_JOURNEY_LEVEL_COUNT] = {
    "host RAM",  "PCIe",     "HBM",       "L2",  "L1",      "shared memory",
    "registers", "INT unit", "FP32 unit", "SFU", "shuffle", "tensor core"};

const char *ws_journey_level_name(ws_journey_level level) {
  return level < WS_JOURNEY_LEVEL_COUNT ? level_names[level] : "?";
}

static ws_journey_hop *add_hop(ws_journey *j) {
  if (j->nomem) return NULL;
  if (j->n == j->cap) {
    size_t cap = j->cap ? 2 * j->cap : 64;
    ws_journey_hop *h = realloc(j->hops, cap * sizeof *h);
    if (!h) {
      j->nomem = true;
      return NULL;
    }
    j->hops = h;
    j->cap = cap;
  }
  ws_journey_hop *h = &j->hops[j->n++];
  memset(h, 0, sizeof *h);
  return h;
}

static bool unit_level(uint32_t op, ws_journey_level *level) {
  const ws_opinfo *info = ws_isa_opinfo((ws_op)op);
  if (!info) return false;
  static const int8_t of_unit[WS_UNIT_COUNT] = {[WS_UNIT_INT] = WS_JOURNEY_INT,
                                                [WS_UNIT_FP32] = WS_JOURNEY_FP32,
                                                [WS_UNIT_SFU] = WS_JOURNEY_SFU,
                                                [WS_UNIT_SHFL] = WS_JOURNEY_SHFL,
                                                [WS_UNIT_TENSOR] = WS_JOURNEY_TENSOR,
                                                [WS_UNIT_LSU] = WS_JOURNEY_REGISTERS,
                                                [WS_UNIT_CTRL] = -1};
  if (info->unit >= WS_UNIT_COUNT || of_unit[info->unit] < 0) return false;
  *level = (ws_journey_level)of_unit[info->unit];
  return true;
}

/* The level a tagged record is a hop to, if any. */
static bool level_of(const ws_probe_event *ev, ws_journey_level *level) {
  switch (ev->kind) {
  case WS_PEV_PCIE: *level = WS_JOURNEY_PCIE; return true;
  case WS_PEV_DRAM: *level = WS_JOURNEY_DRAM; return true;
  case WS_PEV_L2: *level = WS_JOURNEY_L2; return true;
  case WS_PEV_L1: *level = WS_JOURNEY_L1; return ev->outcome != WS_PROBE_L1_RESFAIL;
  case WS_PEV_SMEM: *level = WS_JOURNEY_SHARED; return true;
  /* a load's destination: registers; any other instruction with tagged results: its unit */
  case WS_PEV_ISSUE: return ws_probe_issue_tagged(ev) && unit_level(ws_probe_issue_opcode(ev), level);
  default: return false;
  }
}

static void describe(const ws_probe_event *ev, char *buf, size_t n) {
  const ws_opinfo *info = ev->kind == WS_PEV_ISSUE ? ws_isa_opinfo((ws_op)ws_probe_issue_opcode(ev)) : NULL;
  switch (ev->kind) {
  case WS_PEV_PCIE:
    snprintf(buf, n, "%s burst of %" PRIu32 " B at +%" PRIu64,
             ev->outcome == WS_PROBE_PCIE_H2D ? "H2D" : "D2H", ws_probe_pcie_bytes(ev), ev->addr);
    break;
  case WS_PEV_DRAM:
    snprintf(buf, n, "ch %u bank %" PRIu32 " row %" PRIu32 " (row %s)", ev->unit, ws_probe_dram_bank(ev),
             ws_probe_dram_row(ev),
             ev->outcome == WS_PROBE_ROW_HIT    ? "hit"
             : ev->outcome == WS_PROBE_ROW_MISS ? "miss"
                                                : "conflict");
    break;
  case WS_PEV_L2:
    snprintf(buf, n, "slice %u set %" PRIu32 "%s (%s)", ev->unit, ws_probe_l2_set(ev),
             ev->flags & WS_PROBE_FAR ? " far" : "",
             ev->outcome == WS_PROBE_L2_HIT    ? "hit"
             : ev->outcome == WS_PROBE_L2_MISS ? "miss"
                                               : "write");
    break;
  case WS_PEV_L1:
    snprintf(buf, n, "set %" PRIu32 " sectors 0x%" PRIx32 " (%s)", ws_probe_l1_set(ev),
             ws_probe_l1_sectors(ev),
             ev->outcome == WS_PROBE_L1_HIT     ? "hit"
             : ev->outcome == WS_PROBE_L1_MISS  ? "miss"
             : ev->outcome == WS_PROBE_L1_MERGE ? "merged"
                                                : "write");
    break;
  case WS_PEV_SMEM:
    snprintf(buf, n, "%s, %" PRIu32 " wavefront%s", ev->outcome == WS_PROBE_SMEM_STORE ? "store" : "load",
             ws_probe_smem_wavefronts(ev), ws_probe_smem_wavefronts(ev) == 1 ? "" : "s");
    break;
  default: snprintf(buf, n, "%s", info ? info->mnemonic : "?"); break;
  }
}

/* Which channel, slice or set: the numbers the where text names, kept as
 * fields so a reader (the visualizer's walk) need not parse the text. */
static void place(ws_journey_hop *h, const ws_probe_event *ev) {
  h->unit = WS_PROBE_NONE;
  h->index = WS_JOURNEY_NO_INDEX;
  switch (ev->kind) {
  case WS_PEV_PCIE: h->unit = ev->outcome == WS_PROBE_PCIE_H2D ? 0 : 1; break;
  case WS_PEV_DRAM:
    h->unit = ev->unit;
    h->index = ws_probe_dram_bank(ev);
    break;
  case WS_PEV_L2:
    h->unit = ev->unit;
    h->index = ws_probe_l2_set(ev);
    break;
  case WS_PEV_L1: h->index = ws_probe_l1_set(ev); break;
  default: break;
  }
}

static bool is_global_load(const ws_probe_event *ev) {
  if (ev->kind != WS_PEV_ISSUE) return false;
  uint32_t op = ws_probe_issue_opcode(ev);
  return op == WS_OP_LDG || (ws_isa_is_atomic((ws_op)op) && ws_isa_sig((ws_op)op, 1).kind == 'g');
}

static void fill(ws_journey_hop *h, const ws_journey *j, ws_journey_level level, const ws_probe_event *ev) {
  *h = (ws_journey_hop){.launch = ev->kind == WS_PEV_PCIE ? WS_JOURNEY_HOST_LAUNCH : j->launch,
                        .level = (uint8_t)level,
                        .sm = ev->sm,
                        .warp = ev->warp,
                        .lanes = ev->kind == WS_PEV_ISSUE ? ws_probe_issue_tagged(ev) : 0,
                        .pc = ev->pc,
                        .first = ev->begin,
                        .spent = ev->end > ev->begin ? ev->end - ev->begin : 0};
  if (ev->kind != WS_PEV_PCIE) snprintf(h->kernel, sizeof h->kernel, "%s", j->kernel);
  describe(ev, h->component, sizeof h->component);
  place(h, ev);
  if (level == WS_JOURNEY_REGISTERS && !is_global_load(ev) &&
      ev->end > ev->begin) { /* shared, constant: data in */
    h->first = ev->end;
    h->spent = ev->end - ev->begin;
  }
}

/* The first burst of a copy that carries the value: host RAM, the link and
 * device memory (H2D), or the reverse (D2H), at the burst's times. */
static void on_copy(ws_journey *j, const ws_probe_event *ev) {
  bool h2d = ev->outcome == WS_PROBE_PCIE_H2D;
  if (j->last_copy == ws_probe_pcie_record(ev)) return;
  j->last_copy = ws_probe_pcie_record(ev);
  static const ws_journey_level order[2][3] = {{WS_JOURNEY_DRAM, WS_JOURNEY_PCIE, WS_JOURNEY_HOST},
                                               {WS_JOURNEY_HOST, WS_JOURNEY_PCIE, WS_JOURNEY_DRAM}};
  for (int i = 0; i < 3; i++) {
    ws_journey_hop *h = add_hop(j);
    if (!h) return;
    fill(h, j, order[h2d][i], ev);
    ws_journey_level l = order[h2d][i];
    if (l == WS_JOURNEY_PCIE) continue;
    /* the ends of the burst: where the bytes were read and where they landed */
    bool at_end = (l == WS_JOURNEY_DRAM) == h2d;
    h->first = at_end ? ev->end : ev->begin;
    h->spent = 0;
    h->unit = WS_PROBE_NONE; /* a copy's ends: a byte of a buffer, no unit */
    h->index = WS_JOURNEY_NO_INDEX;
    snprintf(h->component, sizeof h->component, "%s, byte %" PRIu32 " of the copy",
             l == WS_JOURNEY_HOST ? "host buffer" : "device memory", ws_probe_pcie_first_tagged(ev));
  }
}

/* A global load's value is in its registers when its last line is back. */
static void on_mem_done(ws_journey *j, const ws_probe_event *ev) {
  ws_journey_hop *h = &j->hops[j->pending_load];
  if (ev->sm != h->sm || ev->warp != h->warp || ev->pc != h->pc) return;
  h->spent = ev->begin - h->first; /* issue to data */
  h->first = ev->begin;
  j->pending_load = SIZE_MAX;
}

static void on_event(void *user, const ws_probe_event *ev) {
  ws_journey *j = user;
  ws_journey_level level;
  if (ev->kind == WS_PEV_MEM_DONE && j->pending_load != SIZE_MAX) on_mem_done(j, ev);
  if (!(ev->flags & WS_PROBE_TAGGED) || !level_of(ev, &level)) return;
  if (ev->kind == WS_PEV_PCIE) {
    on_copy(j, ev);
    return;
  }
  size_t at = j->first_of[level];
  if (at != SIZE_MAX) { /* records come in processing order: keep the earliest */
    if (level != WS_JOURNEY_REGISTERS && ev->begin < j->hops[at].first) fill(&j->hops[at], j, level, ev);
    return;
  }
  ws_journey_hop *h = add_hop(j);
  if (!h) return;
  j->first_of[level] = j->n - 1;
  fill(h, j, level, ev);
  if (level == WS_JOURNEY_REGISTERS && is_global_load(ev)) j->pending_load = j->n - 1;
}

static void on_launch_begin(void *user, const ws_probe_launch *l) {
  ws_journey *j = user;
  j->launch = j->launches++;
  snprintf(j->kernel, sizeof j->kernel, "%s", l->kernel_name);
  j->launch_first_hop = j->n;
  j->pending_load = SIZE_MAX;
  for (int i = 0; i < WS_JOURNEY_LEVEL_COUNT; i++) j->first_of[i] = SIZE_MAX;
}

static int by_first(const void *a, const void *b) {
  const ws_journey_hop *x = a, *y = b;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return x->level < y->level ? -1 : x->level > y->level;
}

/* The launch's hops in the order they happened. */
static void on_launch_end(void *user, const ws_probe_launch *l) {
  (void)l;
  ws_journey *j = user;
  qsort(j->hops + j->launch_first_hop, j->n - j->launch_first_hop, sizeof *j->hops, by_first);
  for (int i = 0; i < WS_JOURNEY_LEVEL_COUNT; i++) j->first_of[i] = SIZE_MAX;
}

ws_status ws_journey_create(ws_ctx *ctx, ws_journey **out) {
  *out = calloc(1, sizeof **out);
  if (!*out) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for a journey");
  ws_journey *j = *out;
  j->probe = (ws_probe){j, on_launch_begin, on_launch_end, on_event};
  j->last_copy = UINT32_MAX;
  j->pending_load = SIZE_MAX;
  for (int i = 0; i < WS_JOURNEY_LEVEL_COUNT; i++) j->first_of[i] = SIZE_MAX;
  return WS_OK;
}

void ws_journey_destroy(ws_journey *j) {
  if (!j) return;
  free(j->reach);
  free(j->hops);
  free(j);
}

const ws_probe *ws_journey_probe(ws_journey *j) { return &j->probe; }

size_t ws_journey_hops(const ws_journey *j, const ws_journey_hop **out) {
  *out = j->hops;
  return j->n;
}

uint32_t ws_journey_launches(const ws_journey *j) { return j->launches; }

ws_status ws_journey_status(const ws_journey *j, ws_ctx *ctx) {
  return j->nomem ? ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory recording the journey") : WS_OK;
}

/* ---- the ledger as a table ------------------------------------------------------ */

/* "5", "0-31", "3 lanes" */
static void lanes_text(uint32_t lanes, char *buf, size_t n) {
  if (!lanes) {
    snprintf(buf, n, "-");
    return;
  }
  int lo = __builtin_ctz(lanes), hi = 31 - __builtin_clz(lanes), count = __builtin_popcount(lanes);
  if (count == 1)
    snprintf(buf, n, "%d", lo);
  else if (count == hi - lo + 1)
    snprintf(buf, n, "%d-%d", lo, hi);
  else
    snprintf(buf, n, "%d of %d-%d", count, lo, hi);
}

/* The timeline record of launch i: the i-th kernel record. */
static const ws_runtime_record *kernel_record(const ws_runtime_record *tl, size_t ntl, uint32_t launch) {
  for (size_t i = 0; i < ntl; i++)
    if (tl[i].kind == WS_RUNTIME_OP_KERNEL && launch-- == 0) return &tl[i];
  return NULL;
}

static void print_hop(FILE *out, size_t i, const ws_journey_hop *h, const ws_runtime_record *kr,
                      uint32_t clock_mhz) {
  char sm[8] = "-", warp[8] = "-", lanes[24];
  if (h->sm != WS_PROBE_NONE) snprintf(sm, sizeof sm, "%u", h->sm);
  if (h->warp != WS_PROBE_NONE) snprintf(warp, sizeof warp, "%u", h->warp);
  lanes_text(h->lanes, lanes, sizeof lanes);
  bool host = h->launch == WS_JOURNEY_HOST_LAUNCH;
  const char *kernel = host ? "-" : kr ? kr->name : h->kernel;
  char when[32], cycle[24], took[24];
  uint64_t at_ns = host ? h->first : kr && clock_mhz ? kr->start_ns + h->first * 1000 / clock_mhz : 0;
  if (host || kr)
    snprintf(when, sizeof when, "%" PRIu64, at_ns);
  else
    snprintf(when, sizeof when, "-");
  if (host)
    snprintf(cycle, sizeof cycle, "-");
  else
    snprintf(cycle, sizeof cycle, "%" PRIu64, h->first);
  snprintf(took, sizeof took, "%" PRIu64 " %s", h->spent, host ? "ns" : "cyc");
  fprintf(out, "%4zu  %-13s %-36s %4s %4s %-9s %-14s %10s %9s %10s\n", i + 1,
          ws_journey_level_name((ws_journey_level)h->level), h->component, sm, warp, lanes, kernel, when,
          cycle, took);
}

void ws_journey_print(FILE *out, const ws_journey_hop *hops, size_t nhops, const ws_runtime_record *tl,
                      size_t ntl, uint32_t clock_mhz) {
  fprintf(out, "%4s  %-13s %-36s %4s %4s %-9s %-14s %10s %9s %10s\n", "hop", "level", "where", "SM", "warp",
          "lanes", "kernel", "at (ns)", "cycle", "took");
  for (size_t i = 0; i < nhops; i++)
    print_hop(out, i, &hops[i],
              hops[i].launch == WS_JOURNEY_HOST_LAUNCH ? NULL : kernel_record(tl, ntl, hops[i].launch),
              clock_mhz);
}

/* ---- as text, for the trace ---------------------------------------------------- */

#define TEXT_HEADER "launch\tlevel\tsm\twarp\tlanes\tpc\tfirst\tspent\tunit\tindex\tkernel\tcomponent\n"
/* the header of traces written before the unit and index columns */
#define TEXT_HEADER_V1 "launch\tlevel\tsm\twarp\tlanes\tpc\tfirst\tspent\tkernel\tcomponent\n"
#define REACH_HEADER "layer\treached\ttotal\n"

ws_status ws_journey_add_reach(ws_ctx *ctx, ws_journey *j, const char *layer, uint64_t reached,
                               uint64_t total) {
  if (strlen(layer) >= sizeof j->reach->layer || strchr(layer, '\t') || strchr(layer, '\n'))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "journey: layer name '%.20s...' is too long or has a tab", layer);
  if (j->nreach == j->reach_cap) {
    size_t cap = j->reach_cap ? 2 * j->reach_cap : 16;
    ws_journey_reach *r = realloc(j->reach, cap * sizeof *r);
    if (!r) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "journey: out of memory");
    j->reach = r;
    j->reach_cap = cap;
  }
  ws_journey_reach *r = &j->reach[j->nreach++];
  memset(r, 0, sizeof *r);
  snprintf(r->layer, sizeof r->layer, "%s", layer);
  r->reached = reached;
  r->total = total;
  return WS_OK;
}

size_t ws_journey_reaches(const ws_journey *j, const ws_journey_reach **out) {
  *out = j->reach;
  return j->nreach;
}

ws_status ws_journey_to_text(ws_ctx *ctx, const ws_journey *j, char **text, size_t *size_bytes) {
  /* a hop's line is at most ~230 bytes (ten numbers, a 47-byte kernel, a 63-byte where) */
  size_t cap = sizeof TEXT_HEADER + sizeof REACH_HEADER + j->n * 256 + j->nreach * 120;
  char *buf = malloc(cap);
  if (!buf) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory writing the journey");
  size_t n = (size_t)snprintf(buf, cap, "%s", TEXT_HEADER);
  for (size_t i = 0; i < j->n; i++) {
    const ws_journey_hop *h = &j->hops[i];
    n += (size_t)snprintf(buf + n, cap - n,
                          "%" PRIu32 "\t%u\t%u\t%u\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64
                          "\t%u\t%" PRIu32 "\t%s\t%s\n",
                          h->launch, h->level, h->sm, h->warp, h->lanes, h->pc, h->first, h->spent, h->unit,
                          h->index, h->kernel, h->component);
  }
  if (j->nreach) n += (size_t)snprintf(buf + n, cap - n, "%s", REACH_HEADER);
  for (size_t i = 0; i < j->nreach; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s\t%" PRIu64 "\t%" PRIu64 "\n", j->reach[i].layer,
                          j->reach[i].reached, j->reach[i].total);
  *text = buf;
  *size_bytes = n;
  return WS_OK;
}

static bool parse_u64(const char **p, const char *end, char stop, uint64_t max, uint64_t *out) {
  const char *c = *p;
  uint64_t v = 0;
  if (c >= end || *c < '0' || *c > '9') return false;
  for (; c < end && *c >= '0' && *c <= '9'; c++) {
    if (v > (max - (uint64_t)(*c - '0')) / 10) return false;
    v = v * 10 + (uint64_t)(*c - '0');
  }
  if (c >= end || *c != stop) return false;
  *p = c + 1;
  *out = v;
  return true;
}

static bool parse_str(const char **p, const char *end, char stop, char *dst, size_t cap) {
  const char *c = *p;
  while (c < end && *c != stop && *c != '\t' && *c != '\n') c++;
  if (c >= end || *c != stop || (size_t)(c - *p) >= cap) return false;
  memcpy(dst, *p, (size_t)(c - *p));
  dst[c - *p] = '\0';
  *p = c + 1;
  return true;
}

/* A hop line: eight numbers, the unit and index (not in `v1` text), the
 * kernel and the where text. */
static bool parse_hop(const char **p, const char *end, bool v1, ws_journey_hop *h) {
  uint64_t v[10] = {[8] = WS_PROBE_NONE, [9] = WS_JOURNEY_NO_INDEX};
  static const uint64_t max[10] = {UINT32_MAX, WS_JOURNEY_LEVEL_COUNT - 1,
                                   UINT16_MAX, UINT16_MAX,
                                   UINT32_MAX, UINT32_MAX,
                                   UINT64_MAX, UINT64_MAX,
                                   UINT16_MAX, UINT32_MAX};
  for (int i = 0; i < (v1 ? 8 : 10); i++)
    if (!parse_u64(p, end, '\t', max[i], &v[i])) return false;
  *h = (ws_journey_hop){.launch = (uint32_t)v[0],
                        .level = (uint8_t)v[1],
                        .sm = (uint16_t)v[2],
                        .warp = (uint16_t)v[3],
                        .lanes = (uint32_t)v[4],
                        .pc = (uint32_t)v[5],
                        .first = v[6],
                        .spent = v[7],
                        .unit = (uint16_t)v[8],
                        .index = (uint32_t)v[9]};
  return parse_str(p, end, '\t', h->kernel, sizeof h->kernel) &&
         parse_str(p, end, '\n', h->component, sizeof h->component);
}

static bool parse_reach(const char **p, const char *end, ws_journey_reach *r) {
  return parse_str(p, end, '\t', r->layer, sizeof r->layer) &&
         parse_u64(p, end, '\t', UINT64_MAX, &r->reached) && parse_u64(p, end, '\n', UINT64_MAX, &r->total) &&
         r->reached <= r->total;
}

/* The reach rows after their header line; `line` numbers the first. */
static ws_status reach_from_text(ws_ctx *ctx, const char *p, const char *end, size_t line,
                                 ws_journey_reach **reach, size_t *nreach) {
  size_t rows = 0;
  for (const char *c = p; c < end; c++) rows += *c == '\n';
  ws_journey_reach *r = calloc(rows ? rows : 1, sizeof *r);
  if (!r) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "journey: out of memory for %zu layers", rows);
  for (size_t i = 0; i < rows; i++) {
    if (!parse_reach(&p, end, &r[i])) {
      free(r);
      return ws_ctx_fail(
          ctx, WS_ERR_INVALID,
          "journey: line %zu: a layer, the elements reached and their total (no fewer) expected", line + i);
    }
  }
  if (p != end) {
    free(r);
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "journey: line %zu: text after the last layer", line + rows);
  }
  if (reach) {
    *reach = r;
    *nreach = rows;
  } else {
    free(r);
  }
  return WS_OK;
}

/* Where the reach section's header line starts, or end. */
static const char *reach_start(const char *p, const char *end) {
  size_t rl = sizeof REACH_HEADER - 1;
  while (p < end) {
    if ((size_t)(end - p) >= rl && memcmp(p, REACH_HEADER, rl) == 0) return p;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    p = nl ? nl + 1 : end;
  }
  return end;
}

ws_status ws_journey_from_text(ws_ctx *ctx, const char *text, size_t size_bytes, ws_journey_hop **hops,
                               size_t *nhops, ws_journey_reach **reach, size_t *nreach) {
  *hops = NULL;
  *nhops = 0;
  if (reach) *reach = NULL, *nreach = 0;
  size_t hl = sizeof TEXT_HEADER - 1, hl1 = sizeof TEXT_HEADER_V1 - 1;
  bool v1 = size_bytes >= hl1 && memcmp(text, TEXT_HEADER_V1, hl1) == 0;
  if (v1)
    hl = hl1;
  else if (size_bytes < hl || memcmp(text, TEXT_HEADER, hl) != 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "journey: line 1: the header line expected");
  const char *p = text + hl, *end = text + size_bytes, *hops_end = reach_start(p, end);
  size_t lines = 0;
  for (const char *c = p; c < hops_end; c++) lines += *c == '\n';
  ws_journey_hop *h = calloc(lines ? lines : 1, sizeof *h);
  if (!h) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "journey: out of memory for %zu hops", lines);
  for (size_t i = 0; i < lines; i++) {
    if (!parse_hop(&p, hops_end, v1, &h[i])) {
      free(h);
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "journey: line %zu: a hop (%d tab-separated fields) expected",
                         i + 2, v1 ? 10 : 12);
    }
  }
  ws_status st = p != hops_end ? ws_ctx_fail(ctx, WS_ERR_INVALID,
                                             "journey: line %zu: text after the last hop", lines + 2)
                 : hops_end < end
                     ? reach_from_text(ctx, hops_end + sizeof REACH_HEADER - 1, end, lines + 3, reach, nreach)
                     : WS_OK;
  if (st != WS_OK) {
    free(h);
    return st;
  }
  *hops = h;
  *nhops = lines;
  return WS_OK;
}
