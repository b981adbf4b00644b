/* statsdoc.h - the stats glossary of docs/stats.md, generated from the
 * registry itself: a timed launch on the classroom preset registers every
 * counter, and each name pattern (indices replaced by <i>) is listed once
 * with its registered description, so no counter can go undocumented. */
#ifndef WS_STATSDOC_H
#define WS_STATSDOC_H

#define WS_STATSDOC_BEGIN "<!-- BEGIN GENERATED STATS -->"
#define WS_STATSDOC_END "<!-- END GENERATED STATS -->"

/* A malloc'd Markdown table; NULL when out of memory or the launch failed. */
char *ws_statsdoc_markdown(void);

#endif
