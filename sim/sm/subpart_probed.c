/* subpart_probed.c - the issue stage of subpart.c with the probe's hooks
 * compiled in (see its head comment for why it is a second compilation). */
#define WS_SUBPART_PROBED 1
#define ws_subpart_init ws_subpart_init_probed
#define ws_subpart_charge ws_subpart_charge_probed
#define ws_subpart_charge_warp ws_subpart_charge_warp_probed
#define ws_subpart_set_reason ws_subpart_set_reason_probed
#define ws_subpart_refresh_pc ws_subpart_refresh_pc_probed
#define ws_subpart_refresh_warp ws_subpart_refresh_warp_probed
#define ws_subpart_issue ws_subpart_issue_probed
#define ws_subpart_finish ws_subpart_finish_probed
#include "sim/sm/subpart.c"
