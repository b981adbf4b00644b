/* evtext.c - trace records as text (evtext.h). */
#include "traces/evtext.h"

#include <inttypes.h>
#include <string.h>

#include "isa/isa.h"

static const char *const kind_names[WS_PEV_COUNT] = {
    [WS_PEV_KERNEL] = "kernel",   [WS_PEV_CTA] = "cta",
    [WS_PEV_ISSUE] = "issue",     [WS_PEV_STALL] = "stall",
    [WS_PEV_RF_BANK] = "rf_bank", [WS_PEV_COALESCE] = "coalesce",
    [WS_PEV_SMEM] = "smem",       [WS_PEV_L1] = "l1",
    [WS_PEV_XBAR] = "xbar",       [WS_PEV_L2] = "l2",
    [WS_PEV_DRAM] = "dram",       [WS_PEV_L2_FILL] = "l2_fill",
    [WS_PEV_L1_FILL] = "l1_fill", [WS_PEV_MEM_DONE] = "mem_done",
    [WS_PEV_BARRIER] = "barrier", [WS_PEV_DEPBAR] = "depbar",
    [WS_PEV_HOST] = "host",       [WS_PEV_PCIE] = "pcie",
};

const char *const ws_evtext_columns[WS_EVTEXT_COLUMNS] = {
    "launch", "kind", "begin", "end", "sm", "unit", "warp",    "pc",   "op",
    "uop",    "link", "addr",  "a",   "b",  "c",    "outcome", "flags"};

const char *ws_evtext_kind_name(uint8_t kind) { return kind < WS_PEV_COUNT ? kind_names[kind] : "?"; }

bool ws_evtext_kind_parse(const char *name, uint8_t *kind) {
  for (uint8_t k = 0; k < WS_PEV_COUNT; k++)
    if (strcmp(name, kind_names[k]) == 0) {
      *kind = k;
      return true;
    }
  return false;
}

/* The name at index i of a list of n, "?" past its end. */
static const char *pick(const char *const *names, size_t n, uint32_t i) {
  return names && i < n && names[i] ? names[i] : "?";
}

const char *ws_evtext_outcome_name(const ws_probe_event *ev, const char *const *stall_names, size_t nnames) {
  static const char *const smem[] = {"load", "store", "atomic", "async_fill"};
  static const char *const l1[] = {"hit", "miss", "merge", "forward", "resfail"};
  static const char *const dir[] = {"req", "resp"};
  static const char *const l2[] = {"hit", "miss", "written"};
  static const char *const row[] = {"row_hit", "row_miss", "row_conflict"};
  static const char *const bar[] = {"arrive", "release"};
  static const char *const host[] = {"h2d", "d2h", "kernel", "host_work", "event", "launch_overhead"};
  static const char *const pcie[] = {"h2d", "d2h"};
  uint8_t o = ev->outcome;
  switch (ev->kind) {
  case WS_PEV_STALL: return pick(stall_names, nnames, ev->a);
  case WS_PEV_SMEM: return pick(smem, 4, o);
  case WS_PEV_L1: return pick(l1, 5, o);
  case WS_PEV_XBAR: return pick(dir, 2, o);
  case WS_PEV_L2: return pick(l2, 3, o);
  case WS_PEV_DRAM: return pick(row, 3, o);
  case WS_PEV_BARRIER: return pick(bar, 2, o);
  case WS_PEV_HOST: return pick(host, 6, o);
  case WS_PEV_PCIE: return pick(pcie, 2, o);
  default: return "-";
  }
}

const char *ws_evtext_flags(uint8_t flags, char *buf) {
  static const struct {
    uint8_t bit;
    const char *name;
  } names[] = {{WS_PROBE_TAGGED, "tagged"},       {WS_PROBE_WRITE, "write"},   {WS_PROBE_FAR, "far"},
               {WS_PROBE_WRITEBACK, "writeback"}, {WS_PROBE_ATOMIC, "atomic"}, {WS_PROBE_MERGED, "merged"}};
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (!(flags & names[i].bit)) continue;
    if (buf[0]) strcat(buf, "|");
    strcat(buf, names[i].name);
  }
  if (!buf[0]) strcpy(buf, "-");
  return buf;
}

/* Column widths of the aligned style (a longer value pushes the row on). */
static const int widths[WS_EVTEXT_COLUMNS] = {6, 8, 10, 10, 4, 4, 4, 5, 8, 8, 8, 14, 10, 10, 10, 15, 0};

static void put(FILE *out, ws_evtext_style style, int col, const char *text) {
  if (style == WS_EVTEXT_CSV) {
    fprintf(out, col ? ",%s" : "%s", text);
    return;
  }
  if (col == WS_EVTEXT_COLUMNS - 1)
    fprintf(out, col ? " %s" : "%s", text);
  else
    fprintf(out, col ? " %-*s" : "%-*s", widths[col], text);
}

void ws_evtext_header(FILE *out, ws_evtext_style style) {
  for (int i = 0; i < WS_EVTEXT_COLUMNS; i++) put(out, style, i, ws_evtext_columns[i]);
  fputc('\n', out);
}

/* A number, or "-" when it holds the "does not apply" value `none`. */
static const char *num(char *buf, uint64_t v, uint64_t none) {
  if (v == none) return "-";
  snprintf(buf, 24, "%" PRIu64, v);
  return buf;
}

/* Field a, b or c (which: 0, 1, 2) of a record: masks in hex, a way that
 * does not hold the line as "-", the rest in decimal. */
static const char *field(char *buf, const ws_probe_event *ev, int which) {
  uint32_t v = which == 0 ? ev->a : which == 1 ? ev->b : ev->c;
  bool mask = (ev->kind == WS_PEV_ISSUE && which != 1) || (ev->kind == WS_PEV_SMEM && which == 0) ||
              (which == 2 && (ev->kind == WS_PEV_L1 || ev->kind == WS_PEV_L2 || ev->kind == WS_PEV_L1_FILL ||
                              ev->kind == WS_PEV_L2_FILL || ev->kind == WS_PEV_XBAR));
  bool way = which == 1 && (ev->kind == WS_PEV_L1 || ev->kind == WS_PEV_L2);
  if (way && v == UINT32_MAX) return "-";
  snprintf(buf, 24, mask ? "0x%" PRIx32 : "%" PRIu32, v);
  return buf;
}

void ws_evtext_row(FILE *out, ws_evtext_style style, const ws_probe_event *ev, uint32_t launch,
                   const char *const *stall_names, size_t nnames) {
  char b[WS_EVTEXT_COLUMNS][24], flags[WS_EVTEXT_FLAGS_BYTES];
  const ws_opinfo *op = ev->kind == WS_PEV_ISSUE ? ws_isa_opinfo((ws_op)ev->b) : NULL;
  snprintf(b[11], sizeof b[11], "0x%" PRIx64, ev->addr);
  const char *cols[WS_EVTEXT_COLUMNS] = {num(b[0], launch, UINT32_MAX),
                                         ws_evtext_kind_name(ev->kind),
                                         num(b[2], ev->begin, UINT64_MAX),
                                         num(b[3], ev->end, UINT64_MAX),
                                         num(b[4], ev->sm, WS_PROBE_NONE),
                                         num(b[5], ev->unit, WS_PROBE_NONE),
                                         num(b[6], ev->warp, WS_PROBE_NONE),
                                         num(b[7], ev->pc, UINT32_MAX),
                                         op ? op->mnemonic : "-",
                                         num(b[9], ev->uop, 0),
                                         num(b[10], ev->link, 0),
                                         b[11],
                                         field(b[12], ev, 0),
                                         field(b[13], ev, 1),
                                         field(b[14], ev, 2),
                                         ws_evtext_outcome_name(ev, stall_names, nnames),
                                         ws_evtext_flags(ev->flags, flags)};
  for (int i = 0; i < WS_EVTEXT_COLUMNS; i++) put(out, style, i, cols[i]);
  fputc('\n', out);
}
