/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Graph pane: time plots of the timeline with the forecast drawn ahead
 * of now, a forecast under proposed settings beside it, and a forecast
 * pinned at an earlier moment against what really came, with its error so
 * far. Pure: it draws through a callback, so the UI puts it on the screen
 * and tests into a text grid.
 */
#ifndef WBTOP_GRAPH_H
#define WBTOP_GRAPH_H

#include <stdbool.h>

#include "wbtop/forecast.h"
#include "wbtop/plot.h"
#include "wbtop/timeline.h"

/* Put text s at row y, column x (both relative to the screen) in a theme role. */
typedef void (*wb_graph_put)(void *ctx, int y, int x, int role, const char *s);

/* The zoom steps: the span shown left of now, seconds; 0 is the whole timeline. */
#define WB_GRAPH_ZOOMS 4
extern const double wb_graph_zoom_s[WB_GRAPH_ZOOMS];

struct wb_graph_in {
	const struct wb_timeline *tl;
	const char *bdi;            /* the selected device's BDI name; NULL: global plots only */
	const char *label;          /* how the device is called on screen ("loop0 /mnt/stick") */
	double now;                 /* CLOCK_MONOTONIC of the sample shown */
	int zoom;                   /* index into wb_graph_zoom_s */
	uint32_t page_size;
	const struct wb_forecast *fc;   /* under the current settings, made at fc_t, or NULL */
	double fc_t;                    /* CLOCK_MONOTONIC of fc's sample (<= now) */
	const struct wb_forecast *alt;  /* from now under proposed settings (Tune), or NULL */
	const struct wb_forecast *pin;  /* pinned at pin_t, or NULL */
	double pin_t;
	enum wb_plot_glyphs glyphs;
	bool local_time;            /* time labels in local time (else UTC) */
};

/* One figure of the pinned forecast against what came: mean over (pin_t, now]. */
struct wb_graph_err {
	const char *what;           /* "level", "writer", "thresh", "global" */
	double forecast, observed;  /* means, bytes or bytes/s */
	double rel;                 /* (forecast - observed) / max(observed, 1) */
	int n;                      /* points compared; 0: none yet */
};

/*
 * The pinned forecast's errors so far for the selected device (level,
 * writer, threshold) and the global level: fills up to max, returns how many.
 * The same figure as tools/forecast-eval's for a window of (pin_t, now].
 */
int wb_graph_errors(const struct wb_graph_in *in, struct wb_graph_err *out, int max);

/* The columns a device's label may take in its plots' titles, w wide, before the title is cut. */
int wb_graph_label_room(int w);

/* Draw the pane into rows y..y+h-1, columns x..x+w-1. */
void wb_graph_draw(const struct wb_graph_in *in, int y, int x, int w, int h, wb_graph_put put, void *ctx);

#endif
