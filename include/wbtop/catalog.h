/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The field catalogue: every figure a sink shows, named once per entity -
 * its JSON key, CSV column, title, unit, width and drop priority on screen,
 * and one getter that returns the value or "unknown". JSON, CSV, text and
 * the Devices pane walk these tables. Unknown is rendered one way: absent in
 * JSON, an empty CSV cell, "-" on screen and in text.
 */
#ifndef WBTOP_CATALOG_H
#define WBTOP_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wbtop/out.h"

enum wb_unit {
	WB_U_TEXT,     /* a string */
	WB_U_BYTES,    /* an integer of bytes */
	WB_U_RATE,     /* bytes per second (real) */
	WB_U_COUNT,    /* a plain integer */
	WB_U_PCT,      /* percent (real) */
	WB_U_SECS,     /* seconds (real) */
	WB_U_PER_MIN,  /* events per minute (real) */
	WB_U_REAL,     /* a plain real (ratios) */
	WB_U_FLAG,     /* true when shown */
};

/* How JSON writes a value (the JSON export is byte-stable: keep these). */
enum wb_jfmt { WB_J_INT, WB_J_SINT, WB_J_REAL1, WB_J_REAL3, WB_J_REAL4, WB_J_REAL6, WB_J_STR, WB_J_TRUE,
	       WB_J_BOOL, WB_J_HOOK };

/* Sinks that walk the catalogue, each with its own column order (UI: the Devices pane). */
enum wb_sink { WB_SINK_CSV, WB_SINK_TEXT, WB_SINK_UI, WB_SINK_FLUSHER, WB_SINK_COUNT };

/* CSV: time_iso is written at this position; columns after it were added later (their old ones keep place). */
#define WB_CSV_POS_TIME_ISO 23

struct wb_value {
	bool known;
	uint64_t u;          /* integers (BYTES, COUNT; FLAG: 0 or 1); a state's TEXT: its enum, to sort by */
	int64_t i;           /* signed integers (WB_J_SINT: node, pid) */
	double d;            /* reals */
	const char *s;       /* TEXT (owned by the sample or static); NULL: in tmp */
	char tmp[72];        /* TEXT a getter composed */
};

/* The text of a TEXT value. */
static inline const char *wb_value_text(const struct wb_value *x)
{
	return x->s ? x->s : x->tmp;
}

/* What a getter reads: the view and, for a BDI, its index and model row. */
struct wb_fctx {
	const struct wb_view *v;
	const struct wb_sample *s;
	const struct wb_limits *l;        /* current or what-if limits; NULL unknown */
	size_t i;                         /* index in s of the BDI, node, zone or process */
	const struct wb_bdi *b;
	const struct wb_bdi_limits *bl;   /* of l; NULL unknown */
	const struct wb_bdi_derived *d;
	const struct wb_settings *k;      /* previewed settings (the Tune pane) with l; NULL: the sample's */
};

struct wb_field {
	const char *key;      /* JSON key; NULL: not in JSON */
	const char *csv;      /* CSV column; NULL: not in CSV */
	const char *title;    /* column title on screen and in text */
	enum wb_unit unit;
	enum wb_jfmt json;
	int width, prio;      /* screen: width, drop priority (0 dropped last) */
	bool left;            /* left-aligned text */
	bool model;           /* a model figure: also in the what-if object */
	signed char pos[WB_SINK_COUNT]; /* order in each sink; 0: not shown there */
	struct wb_value (*get)(const struct wb_fctx *c);
};

/* The tables (static), one per entity. */
const struct wb_field *wb_catalog_bdi(size_t *n);
const struct wb_field *wb_catalog_global(size_t *n);
const struct wb_field *wb_catalog_node(size_t *n);
const struct wb_field *wb_catalog_zone(size_t *n);
const struct wb_field *wb_catalog_proc(size_t *n);
/*
 * Tracepoint figures (level 3), unknown without them: a BDI's, inside its
 * JSON "events" object (getter context as for the BDI table), and the
 * whole system's, the top-level "events" object (context of the global
 * entity). Nested parts (counts by reason, the event log) are JSON hooks.
 */
const struct wb_field *wb_catalog_bdi_events(size_t *n);
const struct wb_field *wb_catalog_events(size_t *n);
/* The event log's entries (JSON "log"): context { .v, .s, .i = the event's index in s->events }. */
const struct wb_field *wb_catalog_event_log(size_t *n);

/* The rows of table t shown by sink k, in its order; how many (<= max). */
size_t wb_catalog_columns(const struct wb_field *t, size_t n, enum wb_sink k, const struct wb_field **out,
			  size_t max);

/*
 * f's column title and width in sink k: its own, or the sink's heading for
 * it (the Flusher pane's RECLAIM and BG-THRESH, older than the catalogue).
 */
const char *wb_catalog_title(const struct wb_field *f, enum wb_sink k, int *width);

/* A getter context for BDI i of the view under limits l, or for the global entity (i >= nbdis).
 * Nodes, zones and processes take { .v, .s, .l, .i } alone. */
void wb_catalog_ctx(struct wb_fctx *c, const struct wb_view *v, const struct wb_limits *l, size_t i);

/* A value as shown on screen and in text: "-" when unknown. Returns buf or a constant. */
const char *wb_catalog_show(const struct wb_field *f, const struct wb_value *x, char *buf, size_t n);
/* A value as one CSV cell (no comma): empty when unknown, text quoted and made safe. */
void wb_catalog_csv(FILE *out, const struct wb_field *f, const struct wb_value *x);

#endif
