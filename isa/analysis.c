/* analysis.c - register count and reconvergence points (immediate
 * post-dominators) of a kernel.
 *
 * Design: the control-flow graph is per instruction (no basic blocks: the
 * kernels are small and per-instruction nodes keep the code obvious), plus
 * one virtual exit node numbered ninsns. Successors: an unguarded BRA jumps
 * to its target only; any other BRA (guarded, even @!PT) may jump or fall
 * through; an unguarded EXIT goes to the exit node only; a guarded EXIT
 * falls through to pc+1 only: the lanes that leave are removed from every
 * SIMT stack entry, so they need no reconvergence point, and counting their
 * edge to the exit would push the reconvergence of an enclosing branch to
 * the kernel's end and serialise both sides for the rest of the kernel. The
 * last instruction falls into the exit node.
 * Post-dominators come from the Cooper-Harvey-Kennedy iterative algorithm
 * ("A Simple, Fast Dominance Algorithm", 2001) run on the reversed graph
 * from the exit node. Nodes that cannot reach the exit (an infinite loop)
 * are outside that graph: they get the exit node as their immediate
 * post-dominator, and a branch that can also reach the exit post-dominates
 * along its exiting paths only (lanes stuck in the loop never arrive at
 * any reconvergence point, so no choice would be better). Unreachable code
 * is analysed like any other; nothing here depends on the entry. */
#include "isa/analysis.h"

#include <stdlib.h>

#define UNDEF UINT32_MAX

uint32_t ws_analysis_regs(const ws_kernel *k) {
  uint32_t top = 1;
  for (uint32_t pc = 0; pc < k->ninsns; pc++) {
    const ws_insn *in = &k->insns[pc];
    unsigned n = ws_isa_nopnds((ws_op)in->op);
    for (unsigned i = 0; i < n; i++) {
      const ws_operand *o = &in->opnd[i];
      uint32_t count = ws_isa_opnd_reg_span(in, i);
      if (count && o->reg != WS_REG_RZ && o->reg + count > top) top = o->reg + count;
    }
  }
  return top;
}

/* Successors of `pc` (at most two); returns how many. */
static unsigned successors(const ws_kernel *k, uint32_t pc, uint32_t succ[2]) {
  const ws_insn *in = &k->insns[pc];
  uint32_t exit_node = k->ninsns;
  bool always = in->guard == WS_PRED_PT && !in->guard_neg;
  if (in->op == WS_OP_BRA) {
    uint32_t t = (uint32_t)in->opnd[0].imm;
    succ[0] = t > exit_node ? exit_node : t; /* a corrupt target leaves */
    succ[1] = pc + 1;
    return always ? 1 : 2;
  }
  succ[0] = (in->op == WS_OP_EXIT && always) ? exit_node : pc + 1;
  return 1;
}

typedef struct graph {
  uint32_t n;         /* nodes, including the exit node */
  uint32_t *succ;     /* 2 per node; UNDEF when absent */
  uint32_t *pred_off; /* CSR predecessor lists */
  uint32_t *preds;
} graph;

static void graph_free(graph *g) {
  free(g->succ);
  free(g->pred_off);
  free(g->preds);
}

static bool graph_build(const ws_kernel *k, graph *g) {
  g->n = k->ninsns + 1;
  g->succ = malloc(2 * (size_t)g->n * sizeof *g->succ);
  g->pred_off = calloc((size_t)g->n + 1, sizeof *g->pred_off);
  g->preds = malloc(2 * (size_t)g->n * sizeof *g->preds);
  if (!g->succ || !g->pred_off || !g->preds) return false;
  for (uint32_t v = 0; v < g->n; v++) {
    uint32_t *s = &g->succ[2 * v];
    unsigned ns = v < k->ninsns ? successors(k, v, s) : 0;
    if (ns < 2) s[1] = UNDEF;
    if (ns < 1) s[0] = UNDEF;
    if (ns == 2 && s[0] == s[1]) s[1] = UNDEF; /* a branch to the next insn */
    for (unsigned i = 0; i < 2; i++)
      if (s[i] != UNDEF) g->pred_off[s[i] + 1]++;
  }
  for (uint32_t v = 0; v < g->n; v++) g->pred_off[v + 1] += g->pred_off[v];
  uint32_t *fill = malloc((size_t)g->n * sizeof *fill);
  if (!fill) return false;
  for (uint32_t v = 0; v < g->n; v++) fill[v] = g->pred_off[v];
  for (uint32_t v = 0; v < g->n; v++)
    for (unsigned i = 0; i < 2; i++)
      if (g->succ[2 * v + i] != UNDEF) g->preds[fill[g->succ[2 * v + i]]++] = v;
  free(fill);
  return true;
}

/* Post-order of the reversed graph from the exit node, iteratively (a
 * million-instruction kernel would overflow a recursive walk). po[v] is v's
 * number or UNDEF when v cannot reach the exit; order[i] is the i-th node. */
static bool reverse_postorder(const graph *g, uint32_t *po, uint32_t *order, uint32_t *count) {
  uint32_t *stack = malloc((size_t)g->n * sizeof *stack);
  uint32_t *next = malloc((size_t)g->n * sizeof *next);
  if (!stack || !next) {
    free(stack);
    free(next);
    return false;
  }
  for (uint32_t v = 0; v < g->n; v++) {
    po[v] = UNDEF;
    next[v] = g->pred_off[v];
  }
  uint32_t sp = 0, n = 0, root = g->n - 1;
  stack[sp++] = root;
  po[root] = UNDEF - 1; /* on the stack */
  while (sp) {
    uint32_t v = stack[sp - 1];
    if (next[v] < g->pred_off[v + 1]) {
      uint32_t w = g->preds[next[v]++];
      if (po[w] == UNDEF) {
        po[w] = UNDEF - 1;
        stack[sp++] = w;
      }
      continue;
    }
    sp--;
    po[v] = n;
    order[n++] = v;
  }
  *count = n;
  free(stack);
  free(next);
  return true;
}

static uint32_t intersect(const uint32_t *ipdom, const uint32_t *po, uint32_t a, uint32_t b) {
  while (a != b) {
    while (po[a] < po[b]) a = ipdom[a];
    while (po[b] < po[a]) b = ipdom[b];
  }
  return a;
}

/* Cooper-Harvey-Kennedy on the reversed graph: a node's "predecessors"
 * there are its CFG successors. */
static void solve(const graph *g, const uint32_t *po, const uint32_t *order, uint32_t count,
                  uint32_t *ipdom) {
  uint32_t root = g->n - 1;
  for (uint32_t v = 0; v < g->n; v++) ipdom[v] = UNDEF;
  ipdom[root] = root;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = count - 1; i-- > 0;) { /* reverse post-order, root (last) skipped */
      uint32_t v = order[i], best = UNDEF;
      for (unsigned s = 0; s < 2; s++) {
        uint32_t w = g->succ[2 * v + s];
        if (w == UNDEF || po[w] == UNDEF || ipdom[w] == UNDEF) continue;
        best = best == UNDEF ? w : intersect(ipdom, po, w, best);
      }
      if (best != ipdom[v]) {
        ipdom[v] = best;
        changed = true;
      }
    }
  }
}

ws_status ws_analysis_reconvergence(ws_ctx *ctx, ws_kernel *k) {
  graph g = {0, NULL, NULL, NULL};
  uint32_t n = k->ninsns + 1, count = 0;
  uint32_t *po = malloc((size_t)n * sizeof *po);
  uint32_t *order = malloc((size_t)n * sizeof *order);
  uint32_t *ipdom = malloc((size_t)n * sizeof *ipdom);
  bool ok = po && order && ipdom && graph_build(k, &g) && reverse_postorder(&g, po, order, &count);
  if (ok) {
    solve(&g, po, order, count, ipdom);
    for (uint32_t pc = 0; pc < k->ninsns; pc++) {
      ws_insn *in = &k->insns[pc];
      in->rpc = 0;
      if (in->op == WS_OP_BRA) in->rpc = ipdom[pc] == UNDEF ? k->ninsns : ipdom[pc];
    }
  }
  graph_free(&g);
  free(po);
  free(order);
  free(ipdom);
  return ok ? WS_OK : ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory in the reconvergence analysis");
}
