/* symtab.h - name -> index hash table for the assembler's symbol tables
 * (kernels, params, shared symbols, labels).
 *
 * Design: the table holds only indices into the caller's own array of
 * records whose first member is `char name[WS_NAME_MAX]` (ws_kernel,
 * ws_param, ws_shared_sym and ws_label all are), so symbols stay in the
 * program's flat arrays while lookups stay O(1) on very large sources. The
 * caller passes the array's current base each time because it may move. */
#ifndef WS_SYMTAB_H
#define WS_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WS_SYMTAB_NONE UINT32_MAX

typedef struct ws_symtab {
  uint32_t *slots; /* index + 1; 0 = empty */
  uint32_t cap;    /* power of two, or 0 */
  uint32_t count;
} ws_symtab;

void ws_symtab_init(ws_symtab *t);
void ws_symtab_free(ws_symtab *t);
/* Forgets every entry, keeping the allocation. */
void ws_symtab_clear(ws_symtab *t);
/* Index of the record named s[0..n), or WS_SYMTAB_NONE. */
uint32_t ws_symtab_find(const ws_symtab *t, const void *base, size_t stride, const char *s, size_t n);
/* Adds record `index` (its name must not be present yet); false when out of
 * memory. */
bool ws_symtab_add(ws_symtab *t, const void *base, size_t stride, uint32_t index);

#endif
