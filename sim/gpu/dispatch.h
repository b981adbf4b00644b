/* dispatch.h - the CTA dispatcher: which SM runs which CTA, and when.
 *
 * Design: the rule is fixed and deterministic, like the hardware's: CTAs
 * start in linear order (x fastest); the first wave places CTA i on SM
 * i mod num_sms until every SM holds ctas_per_sm (the occupancy limit);
 * afterwards, whenever a CTA retires, the SM that freed the slot receives
 * the next CTA, SMs freeing slots in the same cycle served lowest-numbered
 * first. The dispatcher only hands out CTA numbers; the engine places them. */
#ifndef WS_DISPATCH_H
#define WS_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ws_dispatch {
  uint64_t total; /* CTAs in the grid */
  uint64_t next;  /* next CTA to hand out */
  uint64_t retired;
  uint32_t num_sms;
  uint32_t ctas_per_sm;
} ws_dispatch;

void ws_dispatch_init(ws_dispatch *d, uint64_t total_ctas, uint32_t num_sms, uint32_t ctas_per_sm);
/* The first wave: CTA i goes to SM *sm for i < first_wave; false when done. */
bool ws_dispatch_initial(ws_dispatch *d, uint32_t *sm, uint64_t *cta);
/* The next CTA for an SM that has a free slot; false when none remain. */
bool ws_dispatch_next(ws_dispatch *d, uint64_t *cta);
static inline bool ws_dispatch_all_retired(const ws_dispatch *d) { return d->retired == d->total; }

#endif
