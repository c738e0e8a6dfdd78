/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Batch sinks: readable text (like top -b), JSON Lines, CSV. Each takes a
 * view: the sample, the one before it (for rates), and the model's output.
 * Everything a person or program reads is in bytes, bytes/s and seconds;
 * a value that is not known is left out (JSON) or empty (CSV), never 0.
 */
#ifndef WBTOP_OUT_H
#define WBTOP_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "wbtop/forecast.h"
#include "wbtop/model.h"
#include "wbtop/sample.h"
#include "wbtop/util.h"

/* Which limit holds a device's writers (when throttled or over). */
enum wb_held_by {
	WB_HELD_NONE,     /* not held, or unknown */
	WB_HELD_GLOBAL,   /* the global dirty level is past freerun; the device is under its own threshold */
	WB_HELD_DEVICE,   /* its own dirty + writeback is at or past its threshold, or strict_limit */
	WB_HELD_COUNT
};
extern const char *const wb_held_by_names[WB_HELD_COUNT];

/* Figures the pipeline derives for one BDI (index: the sample's BDI index). */
struct wb_bdi_derived {
	bool dirtied_ok, written_ok, bw_ok, dirty_ok, pct_ok, disk_ok;
	double dirtied, written;        /* bytes/s since the previous sample */
	double bw;                      /* write bandwidth, bytes/s (wb_bdi_write_bw) */
	double dirty;                   /* reclaimable + writeback, bytes */
	double pct;                     /* dirty / the model's threshold, percent */
	double disk_write;              /* diskstats' written sectors, bytes/s */
	double drain_s;                 /* the model's time to clean; < 0 unknown */
	double wake_pm, throttle_pm;    /* per minute over the last minute; < 0 unknown */
	enum wb_held_by held_by;        /* under the current settings */
	enum wb_held_by if_held_by;     /* under the what-if (--set); NONE without */
};

/* A process's rates since the previous sample (ok false: no interval). */
struct wb_proc_derived {
	bool ok;
	double write_rate, cancelled_rate; /* bytes/s */
};

/* One sample as every sink sees it: the sample, the model's output and the
 * figures derived from the history (by the pipeline, never by a sink). */
struct wb_view {
	const struct wb_sample *prev;   /* NULL for the first sample */
	const struct wb_sample *cur;
	const struct wb_limits *lim;    /* model, current settings; NULL if not run */
	const struct wb_limits *whatif; /* model under --set; NULL without */
	const struct wb_forecast *forecast;        /* --forecast, current settings */
	const struct wb_forecast *whatif_forecast; /* --forecast with --set */
	double forecast_mono;           /* the sample the forecasts start from (a sink that
					 * forecasts less often than it samples keeps an older one) */
	const struct wb_bdi_derived *bdi;   /* cur->nbdis entries */
	const struct wb_proc_derived *proc; /* cur->nprocs entries */
	bool g_rate_ok[WB_G_COUNT];
	double g_rate[WB_G_COUNT];          /* per second, in the counter's unit (pages or events) */
};

void wb_out_json(FILE *f, const struct wb_view *v);
void wb_out_text(FILE *f, const struct wb_view *v);
void wb_out_csv_header(FILE *f);
/*
 * --csv-units: a second header row, each column's unit under its name ("B",
 * "B/s", "%", "s", "0/1"; empty for text), as a two-row header reader
 * (pandas header=[0,1]) takes it. The plain header stays as it is.
 */
void wb_out_csv_units(FILE *f);
void wb_out_csv(FILE *f, const struct wb_view *v);

/* A CSV text cell: quoted, quotes doubled, unsafe characters replaced. */
void wb_out_csv_text(FILE *f, const char *s);

#endif
