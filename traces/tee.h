/* tee.h - one probe that hands every call to two others (a trace writer
 * and a journey, say), in that order. */
#ifndef WS_TEE_H
#define WS_TEE_H

#include "sim/common/probe.h"

typedef struct ws_tee {
  ws_probe probe; /* what to set on the device */
  const ws_probe *a, *b;
} ws_tee;

/* Either may be NULL. The tee must stay where it is while in use. */
void ws_tee_init(ws_tee *t, const ws_probe *a, const ws_probe *b);

#endif
