/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The forecast layer: step each device's dirty and writeback pages forward
 * under the kernel's rules (writeback-model.md 4.1, 5.4, 5.8, 7): writers
 * dirty at their measured rate until balance_dirty_pages throttles them to
 * the position ratio times the write bandwidth; the flusher writes at the
 * device's bandwidth while the background condition holds or pages expire;
 * completions feed each device's writeout share (3 s aging), which moves
 * its threshold. Pure: no I/O.
 */
#ifndef WBTOP_FORECAST_H
#define WBTOP_FORECAST_H

#include "wbtop/model.h"

/* The series a band is given for, in this order (level: dirty + writeback). */
enum { WB_FC_DIRTY, WB_FC_WRITEBACK, WB_FC_THRESH, WB_FC_WRITE_RATE, WB_FC_LEVEL, WB_FC_SERIES };

struct wb_forecast_bdi {
	char name[WB_NAME_LEN];
	double *dirty, *writeback, *thresh, *write_rate; /* per step: pages, pages/s */
	double *p10[WB_FC_SERIES], *p90[WB_FC_SERIES];   /* the band per step (NULL: none) */
	double drain_s;            /* writers stopped now: seconds to clean; < 0 unknown */
	double clean_at_s;         /* first step with nothing dirty (writers going on), 0 clean now; < 0 never */
	double bg_flushes_per_min; /* background flusher wakeups (writeback_wake_background) */
	double dirty_rate_in;      /* the assumed writer demand, pages/s */
};

struct wb_forecast {
	double horizon_s, step_s;
	size_t nsteps;
	double *g_dirty, *g_writeback;  /* pages */
	double *g_p10[2], *g_p90[2];    /* their band: dirty, writeback (NULL: none) */
	size_t nbdis;
	struct wb_forecast_bdi *bdis;   /* owned, in the sample's BDI order */
};

struct wb_forecast_in {
	double horizon_s, step_s;       /* e.g. 60, 1 */
	const double *bw;               /* write bandwidth per BDI, pages/s (0 unknown) */
	const double *dirty_rate;       /* writer demand per BDI, pages/s */
	const double *chunk;            /* pages a writer dirties between two pauses (NULL: 32) */
	const double *tasks;            /* writers asleep in balance_dirty_pages (NULL or < 0: unknown) */
	unsigned members;               /* ensemble size for the p10..p90 band (0: no band) */
	const double *seen_s;           /* seconds the device's writers have been seen writing,
					 * up to the history's length (NULL or < 0: long) */
	const double *age;              /* seconds each BDI has held dirty pages without a break
					 * (NULL: none yet): the periodic flusher writes what is
					 * older than dirty_expire_centisecs */
	const double *completed;        /* pages each BDI completed, each halved every 3 s
					 * since, as the writeout shares count them (NULL:
					 * unknown; the shares' denominator taken as steady) */
	const double *free_rate;        /* the most each BDI's writers dirtied a second while
					 * none paused, two seconds running (NULL or <= 0:
					 * not seen): what a held writer wants once let go */
	const double *inflight;         /* the most each BDI holds under writeback when it has
					 * more to write, pages (NULL or <= 0: not bounded as
					 * far as seen): a queue of a few requests, as a USB
					 * stick's, whose flusher waits on it */
	const double *hold_s;           /* seconds of its writers' pages a device that keeps up
					 * holds dirty or in flight (NULL or 0: none seen) */
	const double *level_sd;         /* how far each BDI's dirty + writeback strayed from its
					 * course over the last WB_FORECAST_LEVEL_S seconds, pages
					 * (NULL or 0: not seen): the band's sawtooth */
	const double *wset;             /* the pages each BDI's writer rewrites, which it never
					 * holds more of dirty (NULL or 0: it writes fresh pages) */
};

/*
 * The ensemble size wb_forecast_prepare asks for; the environment's
 * WBTOP_FORECAST_MEMBERS (0-64; 0: no band) overrides it, for offline
 * judging of the point forecast, which the band does not change.
 */
#define WB_FORECAST_MEMBERS 8

/*
 * Under a dirty_ratio the global threshold moves with the memory the kernel
 * counts as dirtyable, where the point forecast holds it: the band draws it
 * (every device's threshold and cap with it) a log-normal multiplier of
 * sigma WB_FORECAST_G_DRIFT per second of lead, clipped at
 * WB_FORECAST_ZMAX sigma like every draw of the band.
 */
#define WB_FORECAST_G_DRIFT 0.0004
#define WB_FORECAST_ZMAX 2.5

/*
 * Run the forecast for sample s under limits l, with its band when
 * in->members > 0. Free with wb_forecast_finish().
 */
int wb_forecast_run(const struct wb_sample *s, const struct wb_limits *l,
		    const struct wb_settings *k, const struct wb_forecast_in *in,
		    struct wb_forecast *out);
void wb_forecast_finish(struct wb_forecast *f);

/*
 * The forecast's inputs from recent history, newest first (hist[0] the
 * sample forecast from, nhist >= 1), over the last WB_FORECAST_WINDOW_S
 * seconds of it (for a device whose writer started within them, from the
 * last sample that found it empty): write bandwidth per BDI (what a busy
 * device completed, else the kernel's estimate), writer demand (the
 * dirtying rate), pages/s;
 * from the tracepoints (0 unknown), the pages a throttled writer dirties
 * between two pauses and the number of writers asleep in
 * balance_dirty_pages on average. Arrays of hist[0]->nbdis; how long each
 * BDI has held dirty pages without a break (as far back as the samples go).
 */
#define WB_FORECAST_WINDOW_S 5.0
#define WB_FORECAST_BW_WINDOW_S 8.0 /* a backlogged device's completions */
#define WB_FORECAST_HIST 32     /* samples at most looked at for the window */
#define WB_FORECAST_LEVEL_S 15.0 /* the level's own spread (level_sd) */
struct wb_forecast_inputs_out {
	double *bw, *rate, *chunk, *tasks;
	double *seen_s;                 /* NULL: not wanted */
	double *age;                    /* NULL: not wanted */
	double *completed;              /* NULL: not wanted */
	double *free_rate;              /* NULL: not wanted */
	double *inflight;               /* NULL: not wanted */
	double *hold_s;                 /* NULL: not wanted */
	double *level_sd;               /* NULL: not wanted */
	double *wset;                   /* NULL: not wanted */
};
void wb_forecast_inputs(const struct wb_sample *const *hist, size_t nhist,
			const struct wb_forecast_inputs_out *out);

/*
 * The inputs for a forecast of cur, from cur and a history ring (newest
 * first; its samples no older than cur are skipped, so the ring may hold cur
 * or not): fills in, whose arrays live in the returned buffer - free() it
 * after the forecast. NULL on out of memory.
 */
double *wb_forecast_prepare(const struct wb_sample *cur, const struct wb_ring *hist,
			    double horizon_s, double step_s, struct wb_forecast_in *in);

/* Measured dirtying rate per BDI (pages/s) between two samples; 0 unknown. */
void wb_forecast_dirty_rates(const struct wb_sample *prev, const struct wb_sample *cur,
			     double *rate);

#endif
