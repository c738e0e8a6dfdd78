/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pipeline: each sample from a source goes into one history window, and
 * every derived figure (rates, per-minute counts, %LIM, drain time, the
 * model, what-if and forecast) is computed from that window once, into one
 * view per sample. Sinks (batch outputs, the UI) only render the view. After
 * a seek the replay source rebuilds the window, so a view reached by seeking
 * equals the one reached by playing.
 */
#ifndef WBTOP_PIPELINE_H
#define WBTOP_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "wbtop/out.h"
#include "wbtop/source.h"
#include "wbtop/timeline.h"

#define WB_PIPELINE_WINDOW 600   /* samples kept: 10 minutes at 1 Hz */
#define WB_PER_MINUTE_SPAN 60.5  /* seconds of whole intervals counted per minute */

/*
 * A sink the pipeline feeds itself, after every push, with the new view (the
 * recorder): the batch outputs and the UI render the view they ask for; a
 * sink like this one takes every view, wherever the samples come from.
 */
struct wb_pipeline_sink {
	void *ctx;
	/* The new view (v->cur: the sample as the source gave it). 0, or -1 once the sink has failed. */
	int (*take)(void *ctx, const struct wb_view *v);
	/* Why it failed, a whole sentence (owned by the sink); may be NULL. */
	const char *(*error)(void *ctx);
	/* A note that belongs with the samples (wbtop wrote a knob); may be NULL. */
	void (*annotate)(void *ctx, const char *text);
	/* Problems of the last take that do not stop the sink (a write it retries); may be NULL. */
	const struct wb_diag *(*warnings)(void *ctx);
};

struct wb_pipeline_opts {
	size_t window;               /* samples of history kept; 0: WB_PIPELINE_WINDOW */
	const char *const *sets;     /* --set list for the what-if (may be NULL) */
	int nsets;
	double forecast_s;           /* > 0: forecast this many seconds ahead */
	size_t timeline;             /* > 0: keep a timeline of this many points (the Graph pane) */
	double forecast_every_s;     /* > 0: a new forecast only this often; the views between
					 * carry the last one (view.forecast_mono says from when) */
	int forecast_members;        /* > 0: the band's ensemble size (else the forecast's default) */
	const struct wb_pipeline_sink *sinks; /* fed every view a push makes (not on out of memory),
					       * in order; copied at create; may be NULL */
	size_t nsinks;
	bool samples_only;           /* the sinks take the sample as read and nothing reads the
				      * view (a recorder alone, output unprinted): no model, no
				      * derived figures; ignored with sets, forecast or timeline */
	bool replay;                 /* samples from a recording: a --set device not in them is
				      * said to be not in the recording (not "see /sys/class/bdi") */
};

struct wb_pipeline;

/* NULL on out of memory. Free with wb_pipeline_destroy() (NULL-safe). */
struct wb_pipeline *wb_pipeline_create(const struct wb_pipeline_opts *o);
void wb_pipeline_destroy(struct wb_pipeline *p);

/*
 * Take sample s into the window (copied) and derive its view. 0; -ENOMEM;
 * -EINVAL when the --set list does not apply to s (message in err: the view
 * then has no what-if).
 */
int wb_pipeline_push(struct wb_pipeline *p, const struct wb_sample *s, char *err, size_t errlen);
/*
 * Whether --set entry i names a backing device (bdi.DEV.attr) that sample s
 * does not have: a replay's device may come later in the recording.
 */
bool wb_pipeline_set_absent(const struct wb_pipeline *p, int i, const struct wb_sample *s);
/*
 * The message for that into err: "KEY: no backing device "DEV" <where> (<who>
 * has <s's devices>)", e.g. where "in any sample replayed", who "the first".
 */
void wb_pipeline_absent_msg(const struct wb_pipeline *p, int i, const struct wb_sample *s, const char *where,
			    const char *who, char *err, size_t n);
/*
 * Whether the --set list, its entries naming a device the newest sample lacks
 * left out, applies to that sample: 0, -ENOMEM, or -EINVAL with err.
 */
int wb_pipeline_check_present(const struct wb_pipeline *p, char *err, size_t n);
/*
 * Problems of the sinks at the last push, one line each ("recording
 * stopped: ..."), or none; owned by the pipeline.
 */
const struct wb_diag *wb_pipeline_diag(const struct wb_pipeline *p);
/* The sinks' passing problems at the last push (shown, not fatal). */
const struct wb_diag *wb_pipeline_warnings(const struct wb_pipeline *p);
/* Hand a note to every sink that keeps notes (e.g. "set vm.dirty_ratio=10"). */
void wb_pipeline_annotate(struct wb_pipeline *p, const char *text);
/* The newest sample's view, owned by the pipeline until the next push; NULL before one. */
const struct wb_view *wb_pipeline_view(const struct wb_pipeline *p);
/* The history window, newest first (owned by the pipeline). */
const struct wb_ring *wb_pipeline_history(const struct wb_pipeline *p);
/* The timeline of plotted figures (opts.timeline), or NULL. Owned by the pipeline. */
const struct wb_timeline *wb_pipeline_timeline(const struct wb_pipeline *p);
/*
 * Forecast secs ahead from now on (0: no more forecasts), a new one at most
 * every `every` seconds (0: each sample), its band from `members` ensemble
 * members (0: the default); the newest view gets its forecast at once. For
 * a sink that needs it only while shown.
 */
void wb_pipeline_set_forecast(struct wb_pipeline *p, double secs, double every, int members);
/* Forget the window and the view. */
void wb_pipeline_clear(struct wb_pipeline *p);

/*
 * After src->seek: empty the window and refill it with the samples before
 * the sought one, as playing would have left it; the next src->read gives
 * the sought sample. 0, or -errno. A source that cannot rewind is left as is.
 */
int wb_pipeline_resync(struct wb_pipeline *p, struct wb_source *src);

/*
 * One BDI's strip over the window, oldest first, one value per sample, the
 * newest last: dirty + writeback pages (wakes false) or background wakeups
 * in each interval (wakes true); < 0 where unknown. Fills w values.
 */
void wb_pipeline_strip(const struct wb_pipeline *p, const char *bdi, bool wakes, double *v, int w);

/*
 * Which limit holds BDI j's writers under l: its own (dirty + writeback at
 * or past its threshold, or strict_limit) or the global one (the system is
 * past freerun while the device is under its threshold: held by the others'
 * pages). NONE when the writers are not held or the model did not run. The
 * pipeline's views carry it (wb_bdi_derived); the Tune pane's preview asks.
 */
enum wb_held_by wb_pipeline_held_by(const struct wb_limits *l, size_t j);

/* A BDI's write bandwidth in pages/s, chosen one way: wb_stats, else the BDI's estimate. */
bool wb_bdi_write_bw(const struct wb_bdi *b, uint64_t *pages_s);

#endif
