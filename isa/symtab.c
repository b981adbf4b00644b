/* symtab.c - open-addressing hash over record indices.
 *
 * Design: linear probing with FNV-1a and a load factor of at most 1/2;
 * entries are never removed one by one (a kernel's tables are cleared
 * whole), so no tombstones are needed. */
#include "isa/symtab.h"

#include <stdlib.h>
#include <string.h>

static uint32_t hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

static const char *name_at(const void *base, size_t stride, uint32_t index) {
  return (const char *)base + (size_t)index * stride;
}

static bool name_is(const char *name, const char *s, size_t n) {
  return strncmp(name, s, n) == 0 && name[n] == '\0';
}

void ws_symtab_init(ws_symtab *t) {
  t->slots = NULL;
  t->cap = 0;
  t->count = 0;
}

void ws_symtab_free(ws_symtab *t) {
  free(t->slots);
  ws_symtab_init(t);
}

void ws_symtab_clear(ws_symtab *t) {
  if (t->slots) memset(t->slots, 0, t->cap * sizeof *t->slots);
  t->count = 0;
}

uint32_t ws_symtab_find(const ws_symtab *t, const void *base, size_t stride, const char *s, size_t n) {
  if (!t->cap) return WS_SYMTAB_NONE;
  uint32_t mask = t->cap - 1;
  for (uint32_t i = hash(s, n) & mask;; i = (i + 1) & mask) {
    uint32_t slot = t->slots[i];
    if (!slot) return WS_SYMTAB_NONE;
    if (name_is(name_at(base, stride, slot - 1), s, n)) return slot - 1;
  }
}

static void insert(uint32_t *slots, uint32_t cap, const char *name, uint32_t index) {
  uint32_t mask = cap - 1;
  uint32_t i = hash(name, strlen(name)) & mask;
  while (slots[i]) i = (i + 1) & mask;
  slots[i] = index + 1;
}

/* Doubles the table and re-inserts every entry. */
static bool grow(ws_symtab *t, const void *base, size_t stride) {
  uint32_t cap = t->cap ? t->cap * 2 : 16;
  if (cap < t->cap) return false;
  uint32_t *slots = calloc(cap, sizeof *slots);
  if (!slots) return false;
  for (uint32_t i = 0; i < t->cap; i++)
    if (t->slots[i]) insert(slots, cap, name_at(base, stride, t->slots[i] - 1), t->slots[i] - 1);
  free(t->slots);
  t->slots = slots;
  t->cap = cap;
  return true;
}

bool ws_symtab_add(ws_symtab *t, const void *base, size_t stride, uint32_t index) {
  if ((t->count + 1) * 2 > t->cap && !grow(t, base, stride)) return false;
  insert(t->slots, t->cap, name_at(base, stride, index), index);
  t->count++;
  return true;
}
