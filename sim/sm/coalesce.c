/* coalesce.c - global-memory coalescing and shared-memory bank conflicts.
 *
 * Design: both functions reduce the warp to a small sorted list (byte
 * intervals per line, or words per bank) and count runs in it. Sorting at
 * most 64 (or 128) small records is cheaper than hashing at this size and
 * makes the output order, and therefore the simulation, deterministic.
 * Naturally aligned global accesses take a shorter path with the same
 * output (coalesce_aligned). */
#include "sim/sm/coalesce.h"

#include <stdbool.h>

/* A lane's bytes inside one line: [lo, hi) offsets within the line. */
typedef struct span {
  uint64_t line;
  uint32_t lo, hi;
} span;

static bool span_less(const span *a, const span *b) {
  return a->line != b->line ? a->line < b->line : a->lo < b->lo;
}

static void sort_spans(span *s, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) {
    span key = s[i];
    uint32_t j = i;
    while (j > 0 && span_less(&key, &s[j - 1])) {
      s[j] = s[j - 1];
      j--;
    }
    s[j] = key;
  }
}

/* Splits each active lane's access at line boundaries. A lane is at most
 * 16 bytes wide and lines are at least that, so it touches <= 2 lines. */
static uint32_t collect_spans(const uint64_t addr[WS_WARP_LANES], uint32_t active_mask, uint32_t width_bytes,
                              uint32_t line_bytes, span *out) {
  uint32_t n = 0;
  for (uint32_t lane = 0; lane < WS_WARP_LANES; lane++) {
    if (!(active_mask >> lane & 1u)) continue;
    uint64_t a = addr[lane], end = addr[lane] + width_bytes;
    while (a < end) {
      uint64_t line = a & ~(uint64_t)(line_bytes - 1);
      uint64_t stop = end < line + line_bytes ? end : line + line_bytes;
      out[n++] = (span){line, (uint32_t)(a - line), (uint32_t)(stop - line)};
      a = stop;
    }
  }
  return n;
}

static uint8_t sectors_of(uint32_t lo, uint32_t hi, uint32_t sector_bytes) {
  uint8_t mask = 0;
  for (uint32_t s = lo / sector_bytes; s <= (hi - 1) / sector_bytes; s++) mask |= (uint8_t)(1u << s);
  return mask;
}

/* The general case: some lane's access straddles a line boundary. */
static uint32_t coalesce_spans(const uint64_t addr[WS_WARP_LANES], uint32_t active_mask, uint32_t width_bytes,
                               uint32_t line_bytes, uint32_t sector_bytes, ws_access_kind kind,
                               ws_line_access *out, uint32_t max_out) {
  span spans[2 * WS_WARP_LANES];
  uint32_t n = collect_spans(addr, active_mask, width_bytes, line_bytes, spans);
  sort_spans(spans, n);
  uint32_t lines = 0, covered_hi = 0;
  for (uint32_t i = 0; i < n; i++) {
    const span *s = &spans[i];
    bool new_line = i == 0 || s->line != spans[i - 1].line;
    if (new_line) {
      if (lines < max_out) out[lines] = (ws_line_access){.line_addr = s->line, .kind = (uint8_t)kind};
      lines++;
      covered_hi = 0;
    }
    if (lines > max_out) continue;
    ws_line_access *la = &out[lines - 1];
    la->sector_mask |= sectors_of(s->lo, s->hi, sector_bytes);
    /* spans are sorted by start, so bytes not yet counted begin at covered_hi */
    uint32_t from = s->lo > covered_hi ? s->lo : covered_hi;
    if (s->hi > from) la->bytes = (uint16_t)(la->bytes + (s->hi - from));
    if (s->hi > covered_hi) covered_hi = s->hi;
  }
  return lines;
}

static void sort_u64(uint64_t *v, uint32_t n);

/* The common case: every lane naturally aligned (as the functional
 * executor requires: it faults a misaligned access) and no wider than a
 * sector. Two lanes' spans then either coincide or are disjoint, each lies
 * inside one sector, and sorting spans is sorting addresses (usually
 * already in lane order). So a line's bytes are the width times its
 * distinct addresses, and each distinct address adds one sector bit: the
 * general case's output, at a fraction of its work. */
static uint32_t coalesce_aligned(const uint64_t *a, uint32_t n, uint32_t width_bytes, uint32_t line_bytes,
                                 uint32_t sector_bytes, ws_access_kind kind, ws_line_access *out,
                                 uint32_t max_out) {
  uint32_t shift = (uint32_t)__builtin_ctz(sector_bytes), lines = 0;
  uint64_t line_mask = ~(uint64_t)(line_bytes - 1), cur = 0, last = 0;
  ws_line_access *la = NULL;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t line = a[i] & line_mask;
    if (i == 0 || line != cur) {
      cur = line;
      la = lines < max_out ? &out[lines] : NULL;
      if (la) *la = (ws_line_access){.line_addr = line, .kind = (uint8_t)kind};
      lines++;
    } else if (a[i] == last) {
      continue; /* the same bytes as the lane before: counted once */
    }
    last = a[i];
    if (!la) continue;
    la->sector_mask |= (uint8_t)(1u << ((a[i] - line) >> shift));
    la->bytes = (uint16_t)(la->bytes + width_bytes);
  }
  return lines;
}

/* A full warp whose lanes read consecutive elements, or one element
 * together (the commonest global accesses by far), as coalesce_aligned would
 * see it: the distinct addresses fill [lo, lo + run_bytes) without a gap,
 * so each line's bytes are its overlap with that range and its sectors are
 * the ones the overlap touches. Only the lines, not the lanes, are walked. */
static uint32_t coalesce_run(uint64_t lo, uint32_t run_bytes, uint32_t line_bytes, uint32_t sector_bytes,
                             ws_access_kind kind, ws_line_access *out, uint32_t max_out) {
  const uint32_t shift = (uint32_t)__builtin_ctz(sector_bytes);
  const uint64_t line_mask = ~(uint64_t)(line_bytes - 1), last_byte = lo + run_bytes - 1;
  const uint32_t lines = (uint32_t)(((last_byte & line_mask) - (lo & line_mask)) / line_bytes) + 1;
  for (uint32_t i = 0; i < lines && i < max_out; i++) {
    uint64_t line = (lo & line_mask) + (uint64_t)i * line_bytes;
    uint32_t from = lo > line ? (uint32_t)(lo - line) : 0u;
    uint32_t to =
        last_byte - line < line_bytes ? (uint32_t)(last_byte - line) : line_bytes - 1; /* inclusive */
    out[i] = (ws_line_access){.line_addr = line,
                              .sector_mask = (uint8_t)((2u << (to >> shift)) - (1u << (from >> shift))),
                              .kind = (uint8_t)kind,
                              .bytes = (uint16_t)(to + 1 - from)};
  }
  return lines;
}

/* A full warp whose lanes step through memory by at least a line: each lane
 * has a line of its own, in lane order, with its one sector and its own
 * bytes, as coalesce_aligned would find them. */
static uint32_t coalesce_strided(const uint64_t addr[WS_WARP_LANES], uint32_t width_bytes,
                                 uint32_t line_bytes, uint32_t sector_bytes, ws_access_kind kind,
                                 ws_line_access *out, uint32_t max_out) {
  const uint32_t shift = (uint32_t)__builtin_ctz(sector_bytes);
  const uint64_t line_mask = ~(uint64_t)(line_bytes - 1);
  for (uint32_t l = 0; l < WS_WARP_LANES && l < max_out; l++) {
    uint64_t line = addr[l] & line_mask;
    out[l] = (ws_line_access){.line_addr = line,
                              .sector_mask = (uint8_t)(1u << ((addr[l] - line) >> shift)),
                              .kind = (uint8_t)kind,
                              .bytes = (uint16_t)width_bytes};
  }
  return WS_WARP_LANES;
}

/* The lanes' common step when a full warp's addresses form one (0 for a
 * broadcast), else UINT64_MAX (never a step coalesce_run takes: it needs 0
 * or the width). Accumulated without an early exit, a loop the compiler
 * vectorizes. */
static uint64_t full_warp_step(const uint64_t addr[WS_WARP_LANES]) {
  uint64_t step = addr[1] - addr[0], off = 0;
  for (uint32_t l = 2; l < WS_WARP_LANES; l++) off |= (addr[l] - addr[l - 1]) ^ step;
  return off ? UINT64_MAX : step;
}

uint32_t ws_coalesce_global(const uint64_t addr[WS_WARP_LANES], uint32_t active_mask, uint32_t width_bytes,
                            uint32_t line_bytes, uint32_t sector_bytes, ws_access_kind kind,
                            ws_line_access *out, uint32_t max_out) {
  if (!width_bytes) return 0; /* touches nothing, as in the general case */
  if (active_mask == UINT32_MAX && !(width_bytes & (width_bytes - 1)) && width_bytes <= sector_bytes &&
      !(addr[0] & (width_bytes - 1))) {
    uint64_t step = full_warp_step(addr);
    /* the last lane's bytes end above the first's start: nothing wraps past
     * the top of the address space */
    if ((step == 0 || step == width_bytes) && addr[WS_WARP_LANES - 1] + width_bytes > addr[0])
      return coalesce_run(addr[0], step ? WS_WARP_LANES * width_bytes : width_bytes, line_bytes, sector_bytes,
                          kind, out, max_out);
    /* a step of a line or more, ascending to the last lane without wrapping */
    if (step != UINT64_MAX && step >= line_bytes && !(step & (width_bytes - 1)) &&
        step <= UINT64_MAX / WS_WARP_LANES && addr[WS_WARP_LANES - 1] > addr[0])
      return coalesce_strided(addr, width_bytes, line_bytes, sector_bytes, kind, out, max_out);
  }
  uint64_t a[WS_WARP_LANES], misaligned = 0, prev = 0;
  uint32_t n = 0;
  bool unsorted = false;
  for (uint32_t m = active_mask; m; m &= m - 1) {
    uint64_t v = addr[__builtin_ctz(m)];
    misaligned |= v & (width_bytes - 1);
    unsorted |= v < prev;
    prev = v;
    a[n++] = v;
  }
  if (misaligned || (width_bytes & (width_bytes - 1)) || width_bytes > sector_bytes)
    return coalesce_spans(addr, active_mask, width_bytes, line_bytes, sector_bytes, kind, out, max_out);
  if (unsorted) sort_u64(a, n);
  return coalesce_aligned(a, n, width_bytes, line_bytes, sector_bytes, kind, out, max_out);
}

uint32_t ws_coalesce_local(const uint64_t addr[WS_WARP_LANES], uint32_t active_mask, uint32_t width_bytes,
                           uint64_t word_stride_bytes, uint32_t line_bytes, uint32_t sector_bytes,
                           ws_access_kind kind, ws_line_access *out, uint32_t max_out) {
  if (width_bytes <= 4)
    return ws_coalesce_global(addr, active_mask, width_bytes, line_bytes, sector_bytes, kind, out, max_out);
  /* every word of every lane, sorted: coalesce_aligned's input at width 4 */
  uint64_t a[4 * WS_WARP_LANES];
  uint32_t n = 0, words = width_bytes / 4u < 4u ? width_bytes / 4u : 4u;
  for (uint32_t m = active_mask; m; m &= m - 1)
    for (uint32_t k = 0; k < words; k++) a[n++] = addr[__builtin_ctz(m)] + k * word_stride_bytes;
  sort_u64(a, n);
  return coalesce_aligned(a, n, 4, line_bytes, sector_bytes, kind, out, max_out);
}

static void sort_u64(uint64_t *v, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) {
    uint64_t key = v[i];
    uint32_t j = i;
    while (j > 0 && key < v[j - 1]) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = key;
  }
}

/* Wavefronts of one phase: distinct words, keyed (bank, word) so that a
 * sort groups each bank's words; the longest group is the conflict degree. */
static uint32_t phase_wavefronts(const uint64_t *offsets, uint32_t active_mask, uint32_t first,
                                 uint32_t count, uint32_t width_bytes, uint32_t banks,
                                 uint32_t bank_width_bytes) {
  uint64_t keys[4 * WS_WARP_LANES];
  uint32_t n = 0;
  for (uint32_t lane = first; lane < first + count; lane++) {
    if (!(active_mask >> lane & 1u)) continue;
    uint64_t w0 = offsets[lane] / bank_width_bytes;
    uint64_t w1 = (offsets[lane] + width_bytes - 1) / bank_width_bytes;
    for (uint64_t w = w0; w <= w1 && n < 4 * WS_WARP_LANES; w++)
      keys[n++] = (w % banks) << 40 | (w & ((1ull << 40) - 1));
  }
  sort_u64(keys, n);
  uint32_t worst = 0, run = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (i > 0 && keys[i] == keys[i - 1]) continue; /* same word: broadcast */
    bool same_bank = i > 0 && keys[i] >> 40 == keys[i - 1] >> 40;
    run = same_bank ? run + 1 : 1;
    if (run > worst) worst = run;
  }
  return worst;
}

uint32_t ws_coalesce_smem_wavefronts(const uint64_t offsets[WS_WARP_LANES], uint32_t active_mask,
                                     uint32_t width_bytes, uint32_t banks, uint32_t bank_width_bytes) {
  if (banks == 0 || bank_width_bytes == 0 || width_bytes == 0) return 0;
  /* one phase moves at most 128 bytes: 32 lanes of <= 4 B, 16 of 8 B, 8 of 16 B */
  uint32_t lanes_per_phase = width_bytes <= 4 ? WS_WARP_LANES : 128u / width_bytes;
  if (lanes_per_phase == 0) lanes_per_phase = 1;
  uint32_t total = 0;
  for (uint32_t first = 0; first < WS_WARP_LANES; first += lanes_per_phase)
    total +=
        phase_wavefronts(offsets, active_mask, first, lanes_per_phase, width_bytes, banks, bank_width_bytes);
  return total;
}
