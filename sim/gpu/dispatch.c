/* dispatch.c - the CTA dispatcher's counters (see dispatch.h for the rule). */
#include "sim/gpu/dispatch.h"

void ws_dispatch_init(ws_dispatch *d, uint64_t total_ctas, uint32_t num_sms, uint32_t ctas_per_sm) {
  d->total = total_ctas;
  d->next = 0;
  d->retired = 0;
  d->num_sms = num_sms;
  d->ctas_per_sm = ctas_per_sm;
}

bool ws_dispatch_initial(ws_dispatch *d, uint32_t *sm, uint64_t *cta) {
  uint64_t first_wave = (uint64_t)d->num_sms * d->ctas_per_sm;
  if (d->next >= d->total || d->next >= first_wave) return false;
  *sm = (uint32_t)(d->next % d->num_sms);
  *cta = d->next++;
  return true;
}

bool ws_dispatch_next(ws_dispatch *d, uint64_t *cta) {
  if (d->next >= d->total) return false;
  *cta = d->next++;
  return true;
}
