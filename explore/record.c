/* record.c - the column table, the CSV and JSON writers and the CSV
 * reader.
 *
 * Design: each column is a row of `columns` (name, how its field is
 * typed, when it applies, where it lives); writing and reading are loops
 * over the table with one switch on the type, so a column added to the
 * point is one line here. The reader is a small RFC 4180 state machine
 * (quoted fields may hold commas, quotes and line breaks) that counts lines
 * for its messages, and it is strict: an empty field where the column
 * applies, a word out of its column's vocabulary, or a number that does not
 * read whole is an error, since resume trusts what it reads. */
#include "explore/record.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "explore/cost.h"
#include "sim/host/device.h"

typedef enum col_type {
  T_KIND,    /* ws_point_kind as gemm / attention */
  T_SETS,    /* the --set overrides joined with ';' */
  T_DEFINES, /* a kernel point's -D values, NAME=VALUE joined with ';' */
  T_PNAME,   /* a name of the point */
  T_PU32,    /* a uint32_t of the point */
  T_PU64,    /* a uint64_t of the point */
  T_PL2,     /* the point's L2 policy as keep / flush */
  T_VALID,   /* yes / no */
  T_CHECK,   /* pass / fail; unchecked for a kernel point */
  T_SAMPLED, /* sampled / full */
  T_RTEXT,   /* a text of the result */
  T_RU32,
  T_RU64,
  T_RDBL,
  T_RIPC, /* warp instructions per cycle: derived from two columns, so read back only to be checked */
  T_STALL /* the stall columns, after the table */
} col_type;

/* When a column's field applies; one that does not is printed empty when
 * it is zero (and printed anyway when it is not, so nothing is lost). */
/* S_MODEL: a result of a generated kernel, whose work is known and checked
 * (a user's kernel has neither flops nor a reference). */
/* S_TILE: a tile as ws_point_resolve_tiles gives it, 0 (empty) where the
 * point's kernel does not read it. */
typedef enum col_scope { S_ALL, S_GEMM, S_ATTN, S_KERNEL, S_RESULT, S_MODEL, S_TILE } col_scope;

typedef struct column {
  const char *name;
  col_type type;
  col_scope scope;
  size_t offset, size;
} column;

#define PF(f) offsetof(ws_point, f), sizeof(((ws_point *)0)->f)
#define RF(f) offsetof(ws_point_result, f), sizeof(((ws_point_result *)0)->f)

/* The fixed columns, in the order of docs/explore.md (the charts read them
 * by these names). */
static const column columns[WS_RECORD_FIXED_COLS] = {
    {"kind", T_KIND, S_ALL, PF(kind)},
    {"gpu", T_PNAME, S_ALL, PF(gpu)},
    {"sets", T_SETS, S_ALL, PF(sets)},
    {"m", T_PU32, S_GEMM, PF(m)},
    {"n", T_PU32, S_GEMM, PF(n)},
    {"k", T_PU32, S_GEMM, PF(k)},
    {"variant", T_PNAME, S_GEMM, PF(variant)},
    {"bm", T_PU32, S_TILE, PF(bm)},
    {"bn", T_PU32, S_TILE, PF(bn)},
    {"bk", T_PU32, S_TILE, PF(bk)},
    {"tm", T_PU32, S_TILE, PF(tm)},
    {"tn", T_PU32, S_TILE, PF(tn)},
    {"wm", T_PU32, S_TILE, PF(wm)},
    {"wn", T_PU32, S_TILE, PF(wn)},
    {"threads", T_PU32, S_TILE, PF(threads)},
    {"seq", T_PU32, S_ATTN, PF(seq)},
    {"heads", T_PU32, S_ATTN, PF(heads)},
    {"dhead", T_PU32, S_ATTN, PF(dhead)},
    {"attn", T_PNAME, S_ATTN, PF(attn)},
    {"br", T_PU32, S_TILE, PF(br)},
    {"bc", T_PU32, S_TILE, PF(bc)},
    {"seed", T_PU64, S_ALL, PF(seed)},
    {"sample_waves", T_PU32, S_ALL, PF(sample_waves)},
    {"sample_rounds", T_PU32, S_ALL, PF(sample_rounds)},
    {"valid", T_VALID, S_ALL, RF(valid)},
    {"why", T_RTEXT, S_ALL, RF(why)},
    {"check", T_CHECK, S_RESULT, RF(check_pass)},
    {"max_abs_err", T_RDBL, S_MODEL, RF(max_abs_err)},
    {"sampled", T_SAMPLED, S_RESULT, RF(sampled)},
    {"timed_ctas", T_RU64, S_RESULT, RF(timed_ctas)},
    {"timed_warp_insns", T_RU64, S_RESULT, RF(timed_warp_insns)},
    {"cycles_ci95", T_RU64, S_RESULT, RF(cycles_ci95)},
    {"regs_per_thread", T_RU32, S_RESULT, RF(regs_per_thread)},
    {"smem_per_cta_bytes", T_RU32, S_RESULT, RF(smem_per_cta_bytes)},
    {"threads_per_cta", T_RU32, S_RESULT, RF(threads_per_cta)},
    {"ctas_per_sm", T_RU32, S_RESULT, RF(ctas_per_sm)},
    {"occupancy_pct", T_RDBL, S_RESULT, RF(occupancy_pct)},
    {"limiter", T_RTEXT, S_RESULT, RF(limiter)},
    {"ctas", T_RU64, S_RESULT, RF(ctas)},
    {"launches", T_RU64, S_RESULT, RF(launches)},
    {"cycles", T_RU64, S_RESULT, RF(cycles)},
    {"time_us", T_RDBL, S_RESULT, RF(time_us)},
    {"flops", T_RDBL, S_MODEL, RF(flops)},
    {"gflops", T_RDBL, S_MODEL, RF(gflops)},
    {"warp_insns", T_RU64, S_RESULT, RF(warp_insns)},
    {"l1_hit_pct", T_RDBL, S_RESULT, RF(l1_hit_pct)},
    {"l2_hit_pct", T_RDBL, S_RESULT, RF(l2_hit_pct)},
    {"dram_read_bytes", T_RU64, S_RESULT, RF(dram_read_bytes)},
    {"dram_write_bytes", T_RU64, S_RESULT, RF(dram_write_bytes)},
    {"arith_intensity", T_RDBL, S_MODEL, RF(arith_intensity)},
    {"smem_bank_conflicts", T_RU64, S_RESULT, RF(smem_bank_conflicts)},
    {"lsu_refusals", T_RU64, S_RESULT, RF(lsu_refusals)},
    /* added with the kernel sweep: after the older columns, which keep their places */
    {"kernel", T_PNAME, S_KERNEL, PF(kernel)},
    {"defines", T_DEFINES, S_KERNEL, PF(define_values)},
    {"grid_x", T_PU32, S_KERNEL, PF(grid[0])},
    {"grid_y", T_PU32, S_KERNEL, PF(grid[1])},
    {"grid_z", T_PU32, S_KERNEL, PF(grid[2])},
    {"block_x", T_PU32, S_KERNEL, PF(block[0])},
    {"block_y", T_PU32, S_KERNEL, PF(block[1])},
    {"block_z", T_PU32, S_KERNEL, PF(block[2])},
    {"shared_bytes", T_PU32, S_KERNEL, PF(shared_bytes)},
    {"inputs_hash", T_PU64, S_KERNEL, PF(inputs_hash)},
    {"spill_bytes", T_RU32, S_RESULT, RF(spill_bytes)},
    {"ipc", T_RIPC, S_RESULT, RF(warp_insns)},
    {"l2", T_PL2, S_ALL, PF(keep_l2)},
};

static const char *const kind_names[WS_POINT_KIND_COUNT] = {"gemm", "attention", "kernel"};

/* The device's stall reasons, as many as a result can hold. */
static uint32_t stall_count(void) {
  uint32_t n = ws_device_stall_count();
  return n < WS_POINT_STALLS_MAX ? n : WS_POINT_STALLS_MAX;
}

/* The cost columns, after the stall columns when asked for: host
 * figures, so last, where a record without them simply ends. */
static const char *const cost_names[WS_RECORD_COST_COLS] = {"sim_wall_s", "sim_cpu_s",
                                                            "sim_warp_insns_per_s"};

/* The first cost column. */
static uint32_t cost_first(void) { return WS_RECORD_FIXED_COLS + stall_count(); }

uint32_t ws_record_col_count(bool cost) { return cost_first() + (cost ? WS_RECORD_COST_COLS : 0); }

bool ws_record_col_name(uint32_t c, char *buf, size_t bytes) {
  if (c < WS_RECORD_FIXED_COLS)
    snprintf(buf, bytes, "%s", columns[c].name);
  else if (c < cost_first())
    snprintf(buf, bytes, "stall_%s", ws_device_stall_name(c - WS_RECORD_FIXED_COLS));
  else if (c < ws_record_col_count(true))
    snprintf(buf, bytes, "%s", cost_names[c - cost_first()]);
  else
    return false;
  return true;
}

/* ---- fields as text ------------------------------------------------------------ */

/* The shortest %.Ng (N = 15..17) that reads back to the same double: the
 * same text on every host, and no "0.10000000000000001" where "0.1" does. */
static void format_double(double v, char *buf, size_t bytes) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, bytes, "%.*g", digits, v);
    if (!isfinite(v) || strtod(buf, NULL) == v) return;
  }
}

static bool scope_applies(col_scope sc, const ws_point *p, const ws_point_result *r) {
  switch (sc) {
  case S_GEMM: return p->kind == WS_POINT_GEMM;
  case S_ATTN: return p->kind == WS_POINT_ATTENTION;
  case S_KERNEL: return p->kind == WS_POINT_KERNEL;
  case S_RESULT: return r->valid;
  case S_MODEL: return r->valid && p->kind != WS_POINT_KERNEL;
  case S_TILE: return false;
  default: return true;
  }
}

/* The stall share of device reason s in r, found by name (0 when the
 * result does not list it). */
static double stall_of(const ws_point_result *r, uint32_t s) {
  const char *name = ws_device_stall_name(s);
  uint32_t n = r->nstalls < WS_POINT_STALLS_MAX ? r->nstalls : WS_POINT_STALLS_MAX;
  for (uint32_t i = 0; i < n; i++)
    if (strncmp(r->stall_names[i], name, sizeof r->stall_names[i]) == 0) return r->stall_pct[i];
  return 0;
}

static void join_sets(const ws_point *p, char *buf, size_t bytes) {
  size_t used = 0;
  buf[0] = '\0';
  uint32_t n = p->nsets < WS_POINT_MAX_SETS ? p->nsets : WS_POINT_MAX_SETS;
  for (uint32_t i = 0; i < n && used < bytes; i++) {
    int w = snprintf(buf + used, bytes - used, "%s%.*s", i ? ";" : "", WS_POINT_SET_MAX, p->sets[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

static void join_defines(const ws_point *p, char *buf, size_t bytes) {
  size_t used = 0;
  buf[0] = '\0';
  uint32_t n = p->ndefines < WS_POINT_MAX_DEFINES ? p->ndefines : WS_POINT_MAX_DEFINES;
  for (uint32_t i = 0; i < n && used < bytes; i++) {
    int w = snprintf(buf + used, bytes - used, "%s%.*s=%" PRId64, i ? ";" : "", WS_POINT_NAME_MAX,
                     p->define_names[i], p->define_values[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

/* Cost column k's value: 0 when not measured. */
static double cost_of(const ws_point_result *r, uint32_t k) {
  if (k == 0) return r->sim_wall_s;
  if (k == 1) return r->sim_cpu_s;
  return ws_cost_rate(r->warp_insns, r->sim_cpu_s);
}

/* The field's text, whether it is a number and whether it applies. */
static void field_text(const ws_point *p, const ws_point_result *r, uint32_t c, char *buf, size_t bytes,
                       bool *is_number, bool *applies) {
  buf[0] = '\0';
  *is_number = false;
  if (c >= cost_first()) { /* empty when not measured: a point resumed from a record without them */
    *is_number = true;
    *applies = false;
    double v = cost_of(r, c - cost_first());
    if (v != 0 || signbit(v)) format_double(v, buf, bytes);
    return;
  }
  if (c >= WS_RECORD_FIXED_COLS) {
    *is_number = true;
    *applies = r->nstalls > 0;
    double v = stall_of(r, c - WS_RECORD_FIXED_COLS);
    if (*applies || v != 0 || signbit(v)) format_double(v, buf, bytes);
    return;
  }
  const column *col = &columns[c];
  const char *base = col->type <= T_PL2 ? (const char *)p : (const char *)r;
  const void *f = base + col->offset;
  *applies = scope_applies(col->scope, p, r);
  uint64_t u = 0;
  double d = 0;
  bool b = false;
  switch (col->type) {
  case T_KIND:
    snprintf(buf, bytes, "%s", (unsigned)p->kind < WS_POINT_KIND_COUNT ? kind_names[p->kind] : "?");
    return;
  case T_SETS: join_sets(p, buf, bytes); return;
  case T_DEFINES: join_defines(p, buf, bytes); return;
  case T_PNAME:
  case T_RTEXT: snprintf(buf, bytes, "%.*s", (int)col->size, (const char *)f); return;
  case T_VALID: snprintf(buf, bytes, "%s", r->valid ? "yes" : "no"); return;
  case T_PL2: snprintf(buf, bytes, "%s", p->keep_l2 ? "keep" : "flush"); return;
  case T_CHECK: b = r->check_pass; break;
  case T_SAMPLED: b = r->sampled; break;
  case T_PU32:
  case T_RU32: u = *(const uint32_t *)f; break;
  case T_PU64:
  case T_RU64: u = *(const uint64_t *)f; break;
  case T_RDBL: d = *(const double *)f; break;
  case T_RIPC: d = r->cycles ? (double)r->warp_insns / (double)r->cycles : 0.0; break;
  default: return;
  }
  if (col->type == T_CHECK || col->type == T_SAMPLED) {
    const char *word = col->type == T_CHECK ? (b ? "pass" : "fail") : (b ? "sampled" : "full");
    if (col->type == T_CHECK && p->kind == WS_POINT_KERNEL) word = "unchecked"; /* no reference */
    if (*applies || b) snprintf(buf, bytes, "%s", word);
    return;
  }
  *is_number = true;
  if (col->type == T_RDBL || col->type == T_RIPC) {
    if (*applies || d != 0 || signbit(d)) format_double(d, buf, bytes);
  } else if (*applies || u != 0) {
    snprintf(buf, bytes, "%" PRIu64, u);
  }
}

void ws_record_field(const ws_point *p, const ws_point_result *r, uint32_t c, char *buf, size_t bytes,
                     bool *is_number) {
  bool applies;
  ws_point tiled;
  ws_point_resolve_tiles(p, &tiled);
  field_text(&tiled, r, c, buf, bytes, is_number, &applies);
}

/* ---- CSV ---------------------------------------------------------------------------- */

static void csv_put(ws_text *t, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    ws_text_puts(t, s);
    return;
  }
  ws_text_puts(t, "\"");
  for (const char *q; (q = strchr(s, '"')); s = q + 1) {
    ws_text_append(t, s, (size_t)(q - s));
    ws_text_puts(t, "\"\"");
  }
  ws_text_puts(t, s);
  ws_text_puts(t, "\"");
}

void ws_record_csv_header(ws_text *t, bool cost) {
  char name[WS_RECORD_FIELD_MAX];
  for (uint32_t c = 0, n = ws_record_col_count(cost); c < n; c++) {
    ws_record_col_name(c, name, sizeof name);
    if (c) ws_text_puts(t, ",");
    csv_put(t, name);
  }
  ws_text_puts(t, "\n");
}

void ws_record_csv_row(ws_text *t, const ws_point *p, const ws_point_result *r, bool cost) {
  char buf[WS_RECORD_FIELD_MAX];
  bool num, applies;
  ws_point tiled;
  ws_point_resolve_tiles(p, &tiled);
  for (uint32_t c = 0, n = ws_record_col_count(cost); c < n; c++) {
    field_text(&tiled, r, c, buf, sizeof buf, &num, &applies);
    if (c) ws_text_puts(t, ",");
    csv_put(t, buf);
  }
  ws_text_puts(t, "\n");
}

/* ---- JSON ------------------------------------------------------------------------------- */

/* One row as a cJSON object: numbers go in as raw text so a 64-bit count
 * keeps every digit (cJSON's numbers are doubles). */
static cJSON *json_row(const ws_point *given, const ws_point_result *r, bool cost) {
  cJSON *obj = cJSON_CreateObject();
  char name[WS_RECORD_FIELD_MAX], buf[WS_RECORD_FIELD_MAX];
  ws_point tiled, *p = &tiled;
  ws_point_resolve_tiles(given, &tiled);
  for (uint32_t c = 0, n = ws_record_col_count(cost); obj && c < n; c++) {
    bool num, applies;
    ws_record_col_name(c, name, sizeof name);
    field_text(p, r, c, buf, sizeof buf, &num, &applies);
    cJSON *item;
    if (num)
      item =
          buf[0] && strspn(buf, "0123456789+-.eE") == strlen(buf) ? cJSON_CreateRaw(buf) : cJSON_CreateNull();
    else
      item = buf[0] || applies ? cJSON_CreateString(buf) : cJSON_CreateNull();
    if (!item || !cJSON_AddItemToObject(obj, name, item)) {
      cJSON_Delete(item);
      cJSON_Delete(obj);
      return NULL;
    }
  }
  return obj;
}

/* Row by row: a tree of 100,000 records would hold millions of nodes. */
ws_status ws_record_json(ws_ctx *ctx, const ws_point *ps, const ws_point_result *rs, size_t n, bool cost,
                         char **out) {
  ws_text t;
  ws_text_init(&t);
  ws_text_puts(&t, "[");
  for (size_t i = 0; i < n; i++) {
    cJSON *row = json_row(&ps[i], &rs[i], cost);
    char *s = row ? cJSON_PrintUnformatted(row) : NULL;
    cJSON_Delete(row);
    if (!s) {
      ws_text_free(&t);
      return ws_ctx_fail(ctx, WS_ERR_NOMEM, "JSON record %zu: out of memory", i);
    }
    ws_text_printf(&t, "%s\n%s", i ? "," : "", s);
    cJSON_free(s);
  }
  ws_text_puts(&t, "\n]\n");
  *out = ws_text_take(&t);
  return *out ? WS_OK : ws_ctx_fail(ctx, WS_ERR_NOMEM, "JSON records: out of memory");
}

/* ---- reading CSV back ----------------------------------------------------------------- */

typedef struct reader {
  ws_ctx *ctx;
  const char *name; /* the file, for messages */
  const char *s;
  size_t len, pos;
  size_t line;     /* of the byte at pos */
  size_t row_line; /* where the current record starts */
  uint32_t ncols;  /* the header's: with or without the cost columns */
} reader;

static ws_status bad(reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static ws_status bad(reader *rd, const char *fmt, ...) {
  char msg[WS_ERRMSG_MAX_BYTES / 2];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return ws_ctx_fail(rd->ctx, WS_ERR_INVALID, "%s:%zu: %s", rd->name, rd->row_line, msg);
}

static bool at_record_end(const reader *rd) {
  return rd->pos >= rd->len || rd->s[rd->pos] == '\n' || rd->s[rd->pos] == '\r';
}

/* A quoted field: doubled quotes are one quote; line breaks are kept. */
static ws_status quoted_field(reader *rd, char *buf, size_t bytes, size_t *n) {
  for (rd->pos++;; rd->pos++) {
    if (rd->pos >= rd->len) return bad(rd, "a quoted field is not closed");
    char ch = rd->s[rd->pos];
    if (ch == '"') {
      if (rd->pos + 1 < rd->len && rd->s[rd->pos + 1] == '"')
        rd->pos++;
      else
        break;
    }
    if (ch == '\n') rd->line++;
    if (ch == '\0') return bad(rd, "a NUL byte in a field");
    /* a quote that is never closed runs into the length limit first: name the cause */
    if (*n + 1 >= bytes && !memchr(rd->s + rd->pos, '"', rd->len - rd->pos))
      return bad(rd, "a quoted field is not closed");
    if (*n + 1 >= bytes) return bad(rd, "a field longer than %zu characters", bytes - 1);
    buf[(*n)++] = rd->s[rd->pos];
  }
  rd->pos++; /* the closing quote */
  if (!at_record_end(rd) && rd->s[rd->pos] != ',')
    return bad(rd, "text after a quoted field's closing quote");
  return WS_OK;
}

/* The next field into buf; *last says it ended its record (the line break
 * is consumed). */
static ws_status next_field(reader *rd, char *buf, size_t bytes, bool *last) {
  size_t n = 0;
  ws_status st = WS_OK;
  if (rd->pos < rd->len && rd->s[rd->pos] == '"') {
    st = quoted_field(rd, buf, bytes, &n);
  } else {
    for (; !at_record_end(rd) && rd->s[rd->pos] != ','; rd->pos++) {
      char ch = rd->s[rd->pos];
      if (ch == '"') return bad(rd, "a quote inside an unquoted field");
      if (ch == '\0') return bad(rd, "a NUL byte in a field");
      if (n + 1 >= bytes) return bad(rd, "a field longer than %zu characters", bytes - 1);
      buf[n++] = ch;
    }
  }
  if (st != WS_OK) return st;
  buf[n] = '\0';
  *last = at_record_end(rd);
  if (!*last)
    rd->pos++; /* the comma */
  else if (rd->pos < rd->len) {
    if (rd->s[rd->pos] == '\r' && rd->pos + 1 < rd->len && rd->s[rd->pos + 1] == '\n') rd->pos++;
    rd->pos++;
    rd->line++;
  }
  return WS_OK;
}

static bool read_u64(const char *s, uint64_t max, uint64_t *out) {
  if (!*s || strlen(s) > 20) return false;
  uint64_t v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return false;
    unsigned d = (unsigned)(*s - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (v > max) return false;
  *out = v;
  return true;
}

static bool read_double(const char *s, double *out) {
  if (!*s || strchr(" \t\n\r\f\v", *s)) return false;
  char *end;
  *out = strtod(s, &end);
  return *end == '\0';
}

/* Which of `words` the field is (its index), or -1. */
static int read_word(const char *s, const char *const *words, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(s, words[i]) == 0) return i;
  return -1;
}

static ws_status bad_field(reader *rd, uint32_t c, const char *text, const char *what) {
  char name[WS_RECORD_FIELD_MAX];
  ws_record_col_name(c, name, sizeof name);
  return bad(rd, "column %s (%u): '%.80s' is not %s", name, c + 1, text, what);
}

static ws_status read_sets(reader *rd, uint32_t c, const char *text, ws_point *p) {
  p->nsets = 0;
  for (const char *s = text; *s;) {
    const char *semi = strchr(s, ';');
    size_t len = semi ? (size_t)(semi - s) : strlen(s);
    if (p->nsets >= WS_POINT_MAX_SETS || len == 0 || len >= WS_POINT_SET_MAX)
      return bad_field(rd, c, text, "a list of at most 16 overrides joined by ';'");
    memcpy(p->sets[p->nsets], s, len);
    p->sets[p->nsets++][len] = '\0';
    s = semi ? semi + 1 : s + len;
    if (semi && !*s) return bad_field(rd, c, text, "a list of overrides (it ends in ';')");
  }
  return WS_OK;
}

/* "NAME=VALUE;..." into the point's -D names and values. */
static ws_status read_defines(reader *rd, uint32_t c, const char *text, ws_point *p) {
  const char *what = "a list of at most 8 NAME=INTEGER joined by ';'";
  p->ndefines = 0;
  for (const char *s = text; *s;) {
    size_t len = strcspn(s, ";"), name = strcspn(s, "=");
    if (p->ndefines >= WS_POINT_MAX_DEFINES || name == 0 || name >= len || name >= WS_POINT_NAME_MAX)
      return bad_field(rd, c, text, what);
    char num[32], *end;
    if (len - name - 1 == 0 || len - name - 1 >= sizeof num) return bad_field(rd, c, text, what);
    memcpy(num, s + name + 1, len - name - 1);
    num[len - name - 1] = '\0';
    long long v = strtoll(num, &end, 10);
    if (*end) return bad_field(rd, c, text, what);
    memcpy(p->define_names[p->ndefines], s, name);
    p->define_values[p->ndefines++] = v;
    s += len;
    if (*s && !*++s) return bad_field(rd, c, text, what);
  }
  return WS_OK;
}

/* One of a yes/no-like pair into *b, empty only where it does not apply. */
static ws_status read_flag(reader *rd, uint32_t c, const char *text, const char *yes, const char *no,
                           bool applies, bool *b) {
  const char *words[] = {no, yes, ""};
  int w = read_word(text, words, applies ? 2 : 3);
  char what[64];
  snprintf(what, sizeof what, "%s or %s", yes, no);
  if (w < 0) return bad_field(rd, c, text, what);
  *b = w == 1;
  return WS_OK;
}

/* Field c of a row into (p, r); kind and valid come before every column
 * whose applying depends on them. */
static ws_status read_field(reader *rd, uint32_t c, const char *text, ws_point *p, ws_point_result *r) {
  const column *col = &columns[c];
  char *base = col->type <= T_PL2 ? (char *)p : (char *)r;
  void *f = base + col->offset;
  bool applies = scope_applies(col->scope, p, r), empty_ok = !applies && !*text;
  uint64_t u;
  switch (col->type) {
  case T_KIND: {
    int k = read_word(text, kind_names, WS_POINT_KIND_COUNT);
    if (k < 0) return bad_field(rd, c, text, "gemm, attention or kernel");
    p->kind = (ws_point_kind)k;
    return WS_OK;
  }
  case T_SETS: return read_sets(rd, c, text, p);
  case T_DEFINES: return read_defines(rd, c, text, p);
  case T_PNAME:
  case T_RTEXT:
    if (strlen(text) >= col->size) return bad_field(rd, c, text, "short enough for its field");
    memcpy(f, text, strlen(text) + 1);
    return WS_OK;
  case T_VALID: return read_flag(rd, c, text, "yes", "no", true, &r->valid);
  case T_PL2: {
    bool keep = false;
    ws_status st = read_flag(rd, c, text, "keep", "flush", true, &keep);
    p->keep_l2 = keep;
    return st;
  }
  case T_CHECK:
    if (p->kind == WS_POINT_KERNEL) return read_flag(rd, c, text, "unchecked", "", applies, &r->check_pass);
    return read_flag(rd, c, text, "pass", "fail", applies, &r->check_pass);
  case T_SAMPLED: return read_flag(rd, c, text, "sampled", "full", applies, &r->sampled);
  case T_PU32:
  case T_RU32:
    if (empty_ok) return WS_OK;
    if (!read_u64(text, UINT32_MAX, &u)) return bad_field(rd, c, text, "an unsigned 32-bit integer");
    *(uint32_t *)f = (uint32_t)u;
    return WS_OK;
  case T_PU64:
  case T_RU64:
    if (empty_ok) return WS_OK;
    if (!read_u64(text, UINT64_MAX, (uint64_t *)f))
      return bad_field(rd, c, text, "an unsigned 64-bit integer");
    return WS_OK;
  case T_RDBL:
    if (empty_ok) return WS_OK;
    if (!read_double(text, (double *)f)) return bad_field(rd, c, text, "a number");
    return WS_OK;
  case T_RIPC: {
    double ignored;
    if (empty_ok || read_double(text, &ignored)) return WS_OK;
    return bad_field(rd, c, text, "a number");
  }
  default: return WS_OK;
  }
}

/* A stall column: any non-empty one gives the result every device
 * reason, in the device's order (as ws_point_run fills them). */
static ws_status read_stall(reader *rd, uint32_t c, const char *text, ws_point_result *r) {
  if (!*text) return WS_OK;
  uint32_t s = c - WS_RECORD_FIXED_COLS;
  if (!read_double(text, &r->stall_pct[s])) return bad_field(rd, c, text, "a number");
  if (r->nstalls == 0) {
    r->nstalls = stall_count();
    for (uint32_t i = 0; i < r->nstalls; i++)
      snprintf(r->stall_names[i], sizeof r->stall_names[i], "%s", ws_device_stall_name(i));
  }
  return WS_OK;
}

/* A cost column: empty when it was not measured, else seconds or a rate,
 * finite and not negative; the rate is derived, so only checked. */
static ws_status read_cost(reader *rd, uint32_t c, const char *text, ws_point_result *r) {
  double v = 0;
  if (!*text) return WS_OK;
  if (!read_double(text, &v) || !(v >= 0) || isinf(v))
    return bad_field(rd, c, text, "a cost: a number of 0 or more");
  uint32_t k = c - cost_first();
  if (k == 0) r->sim_wall_s = v;
  if (k == 1) r->sim_cpu_s = v;
  return WS_OK;
}

/* A stall column left empty after a filled one is a torn row. */
static ws_status check_stalls(reader *rd, const ws_point_result *r, const bool *filled) {
  for (uint32_t s = 0; r->nstalls && s < stall_count(); s++)
    if (!filled[s]) return bad_field(rd, WS_RECORD_FIXED_COLS + s, "", "a number (other stall columns are)");
  return WS_OK;
}

static ws_status bad_count(reader *rd, uint32_t got) {
  if (rd->ncols) return bad(rd, "%u columns where the header has %u", got, rd->ncols);
  return bad(rd, "%u columns where a sweep record has %u (%u with the cost columns)", got,
             ws_record_col_count(false), ws_record_col_count(true));
}

static ws_status read_row(reader *rd, ws_point *p, ws_point_result *r) {
  char text[WS_RECORD_FIELD_MAX];
  bool last = false, filled[WS_POINT_STALLS_MAX] = {false};
  uint32_t ncols = rd->ncols, c = 0;
  memset(p, 0, sizeof *p);
  memset(r, 0, sizeof *r);
  rd->row_line = rd->line;
  for (; !last; c++) {
    ws_status st = next_field(rd, text, sizeof text, &last);
    if (st != WS_OK) return st;
    if (c >= ncols) continue; /* counted, reported below */
    if (c < WS_RECORD_FIXED_COLS)
      st = read_field(rd, c, text, p, r);
    else if (c >= cost_first())
      st = read_cost(rd, c, text, r);
    else {
      filled[c - WS_RECORD_FIXED_COLS] = *text != '\0';
      st = read_stall(rd, c, text, r);
    }
    if (st != WS_OK) return st;
  }
  if (c != ncols) return bad_count(rd, c);
  return check_stalls(rd, r, filled);
}

/* The header: this build's columns, the cost columns after them or not. */
static ws_status read_header(reader *rd) {
  char text[WS_RECORD_FIELD_MAX], want[WS_RECORD_FIELD_MAX];
  bool last = false;
  uint32_t ncols = ws_record_col_count(true), c = 0;
  rd->row_line = rd->line;
  if (rd->len == 0) return bad(rd, "empty: no header of a sweep record");
  for (; !last; c++) {
    ws_status st = next_field(rd, text, sizeof text, &last);
    if (st != WS_OK) return st;
    if (c >= ncols) continue;
    ws_record_col_name(c, want, sizeof want);
    if (strcmp(text, want) != 0)
      return bad(rd, "header column %u is '%.80s' where a sweep record has '%s'", c + 1, text, want);
  }
  if (c != ws_record_col_count(false) && c != ncols) return bad_count(rd, c);
  rd->ncols = c;
  return WS_OK;
}

/* Room for one more row, doubling; at most WS_RECORD_ROWS_MAX. */
static ws_status grow_rows(reader *rd, ws_point **ps, ws_point_result **rs, size_t n, size_t *cap) {
  if (n < *cap) return WS_OK;
  if (n >= WS_RECORD_ROWS_MAX) return bad(rd, "more than %u rows", WS_RECORD_ROWS_MAX);
  size_t cap2 = *cap ? *cap * 2 : 64;
  ws_point *p2 = realloc(*ps, cap2 * sizeof *p2);
  if (p2) *ps = p2;
  ws_point_result *r2 = p2 ? realloc(*rs, cap2 * sizeof *r2) : NULL;
  if (r2) *rs = r2;
  if (!p2 || !r2) return ws_ctx_fail(rd->ctx, WS_ERR_NOMEM, "%s: out of memory at %zu rows", rd->name, n);
  *cap = cap2;
  return WS_OK;
}

ws_status ws_record_csv_parse(ws_ctx *ctx, const char *name, const char *text, size_t len, ws_point **ps,
                              ws_point_result **rs, size_t *n, bool *cost) {
  reader rd = {ctx, name ? name : "records", text, len, 0, 1, 1, 0};
  ws_point *pts = NULL;
  ws_point_result *res = NULL;
  size_t count = 0, cap = 0;
  ws_status st = read_header(&rd);
  while (st == WS_OK && rd.pos < rd.len) {
    st = grow_rows(&rd, &pts, &res, count, &cap);
    if (st == WS_OK) st = read_row(&rd, &pts[count], &res[count]);
    if (st == WS_OK) count++;
  }
  if (st != WS_OK || count == 0) {
    free(pts);
    free(res);
    pts = NULL;
    res = NULL;
    count = 0;
  }
  *ps = pts;
  *rs = res;
  *n = count;
  if (cost) *cost = st == WS_OK && rd.ncols == ws_record_col_count(true);
  return st;
}

ws_status ws_record_csv_read(ws_ctx *ctx, const char *path, ws_point **ps, ws_point_result **rs, size_t *n,
                             bool *cost) {
  if (cost) *cost = false;
  char *text;
  size_t len;
  ws_status st = ws_file_read(ctx, path, WS_RECORD_FILE_MAX_BYTES, "sweep records", &text, &len);
  if (st != WS_OK) return st;
  st = ws_record_csv_parse(ctx, path, text, len, ps, rs, n, cost);
  free(text);
  return st;
}

bool ws_record_point_equal(const ws_point *given_a, const ws_point *given_b) {
  ws_point ta, tb, *a = &ta, *b = &tb;
  ws_point_resolve_tiles(given_a, &ta);
  ws_point_resolve_tiles(given_b, &tb);
  if (a->kind != b->kind || a->nsets != b->nsets || a->nsets > WS_POINT_MAX_SETS) return false;
  for (uint32_t i = 0; i < a->nsets; i++)
    if (strncmp(a->sets[i], b->sets[i], WS_POINT_SET_MAX) != 0) return false;
  const uint32_t *ua[] = {&a->m,  &a->n,  &a->k,       &a->bm,  &a->bn,    &a->bk,    &a->tm, &a->tn,
                          &a->wm, &a->wn, &a->threads, &a->seq, &a->heads, &a->dhead, &a->br, &a->bc};
  const uint32_t *ub[] = {&b->m,  &b->n,  &b->k,       &b->bm,  &b->bn,    &b->bk,    &b->tm, &b->tn,
                          &b->wm, &b->wn, &b->threads, &b->seq, &b->heads, &b->dhead, &b->br, &b->bc};
  for (size_t i = 0; i < sizeof ua / sizeof ua[0]; i++)
    if (*ua[i] != *ub[i]) return false;
  if (a->ndefines != b->ndefines || a->ndefines > WS_POINT_MAX_DEFINES) return false;
  for (uint32_t i = 0; i < a->ndefines; i++)
    if (a->define_values[i] != b->define_values[i] ||
        strncmp(a->define_names[i], b->define_names[i], WS_POINT_NAME_MAX) != 0)
      return false;
  for (int i = 0; i < 3; i++)
    if (a->grid[i] != b->grid[i] || a->block[i] != b->block[i]) return false;
  if (a->shared_bytes != b->shared_bytes || a->inputs_hash != b->inputs_hash ||
      strncmp(a->kernel, b->kernel, WS_POINT_KERNEL_MAX) != 0)
    return false;
  return a->seed == b->seed && strncmp(a->gpu, b->gpu, WS_POINT_NAME_MAX) == 0 &&
         strncmp(a->variant, b->variant, WS_POINT_NAME_MAX) == 0 &&
         strncmp(a->attn, b->attn, WS_POINT_NAME_MAX) == 0;
}
