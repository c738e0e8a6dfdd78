// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Graph pane in the UI: the pipeline's timeline and forecast drawn by
 * graph.c; zoom, the glyph set, and a forecast pinned at a moment (f) or
 * at an applied change, kept while the real figures arrive over it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui_internal.h"
#include "wbtop/graph.h"

#define GRAPH_FORECAST_S 60
/* a forecast with its band costs several frames: one every 10 s, from 4 members */
#define GRAPH_FORECAST_EVERY_S 10
#define GRAPH_MEMBERS 4

static void put(void *ctx, int y, int x, int role, const char *s)
{
	ui_put(ctx, y, x, (enum wb_role)role, s);
}

/* A copy of n doubles (NULL stays NULL); *ok false when out of memory. */
static double *dup(const double *v, size_t n, bool *ok)
{
	double *d;

	if (!v)
		return NULL;
	d = malloc(n ? n * sizeof(double) : 1);
	if (!d) {
		*ok = false;
		return NULL;
	}
	memcpy(d, v, n * sizeof(double));
	return d;
}

/* A deep copy of f into dst (finished first), band included. 0, or -1 out of memory (dst empty). */
static int copy_forecast(struct wb_forecast *dst, const struct wb_forecast *f)
{
	size_t n = f->nsteps;
	bool ok = true;

	wb_forecast_finish(dst);
	*dst = (struct wb_forecast){ .horizon_s = f->horizon_s, .step_s = f->step_s, .nsteps = n };
	dst->bdis = calloc(f->nbdis ? f->nbdis : 1, sizeof(*dst->bdis));
	if (!dst->bdis)
		return -1;
	dst->nbdis = f->nbdis;
	dst->g_dirty = dup(f->g_dirty, n, &ok);
	dst->g_writeback = dup(f->g_writeback, n, &ok);
	for (int q = 0; q < 2; q++) {
		dst->g_p10[q] = dup(f->g_p10[q], n, &ok);
		dst->g_p90[q] = dup(f->g_p90[q], n, &ok);
	}
	for (size_t i = 0; i < f->nbdis; i++) {
		const struct wb_forecast_bdi *a = &f->bdis[i];
		struct wb_forecast_bdi *b = &dst->bdis[i];
		memcpy(b->name, a->name, sizeof(b->name));
		b->drain_s = a->drain_s;
		b->clean_at_s = a->clean_at_s;
		b->bg_flushes_per_min = a->bg_flushes_per_min;
		b->dirty_rate_in = a->dirty_rate_in;
		b->dirty = dup(a->dirty, n, &ok);
		b->writeback = dup(a->writeback, n, &ok);
		b->thresh = dup(a->thresh, n, &ok);
		b->write_rate = dup(a->write_rate, n, &ok);
		for (int q = 0; q < WB_FC_SERIES; q++) {
			b->p10[q] = dup(a->p10[q], n, &ok);
			b->p90[q] = dup(a->p90[q], n, &ok);
		}
	}
	if (!ok) {
		wb_forecast_finish(dst);
		return -1;
	}
	return 0;
}

void ui_graph_pin(struct ui *u, const struct wb_forecast *f, double made_at, const char *why)
{
	if (!f)
		return;
	if (copy_forecast(&u->graph_pin, f)) {
		u->graph_pinned = false;
		snprintf(u->status, sizeof(u->status), "out of memory");
		return;
	}
	u->graph_pinned = true;
	u->graph_pin_t = made_at;
	snprintf(u->status, sizeof(u->status), "forecast pinned (%s): the real figures will arrive over it; F unpins",
		 why);
}

void ui_graph_finish(struct ui *u)
{
	wb_forecast_finish(&u->graph_pin);
	memset(&u->graph_pin, 0, sizeof(u->graph_pin));
	u->graph_pinned = false;
}

/* The forecast the pipeline makes only while this pane is shown. */
void ui_graph_shown(struct ui *u, bool shown)
{
	wb_pipeline_set_forecast(u->pl, shown ? GRAPH_FORECAST_S : 0, GRAPH_FORECAST_EVERY_S, GRAPH_MEMBERS);
	if (shown) {
		const struct wb_view *v = wb_pipeline_view(u->pl);
		u->view = v ? v : u->view;
	}
}

/* The device the pane plots: the one selected in the Devices pane, if any. */
static const struct wb_bdi *graph_bdi(const struct ui *u)
{
	return u->nrows > 0 && u->sel >= 0 && u->sel < u->nrows ? u->rows[u->sel].b : NULL;
}

void ui_draw_graph(struct ui *u, int y, int h)
{
	const struct wb_sample *s = ui_cur(u);
	const struct wb_bdi *b = graph_bdi(u);
	char label[WB_PATH_LEN + 64], dev[48];
	static const enum wb_plot_glyphs next_glyphs[] = { WB_PLOT_BRAILLE, WB_PLOT_BLOCK, WB_PLOT_ASCII };
	struct wb_graph_in in;

	if (!s)
		return;
	if (b) {
		char mnt[WB_PATH_LEN + 8] = "";
		int room;
		ui_dev_label(b, dev, sizeof(dev));
		/* the mount as every pane cuts one, in what the titles leave beside the label (they cut
		 * its description at 80 columns); as the Flusher pane's, the label alone in less */
		if (b->nmounts) {
			snprintf(mnt, sizeof(mnt), "%s", b->mounts[0]);
			room = wb_graph_label_room(ui_cols(u)) - wb_text_cols(dev) - 1;
			if (room < UI_MOUNT_LEAST && room < wb_text_cols(mnt))
				mnt[0] = '\0';
			else
				ui_path_cut(mnt, sizeof(mnt), room, u->utf8);
		}
		snprintf(label, sizeof(label), "%s%s%s", dev, mnt[0] ? " " : "", mnt);
	}
	in = (struct wb_graph_in){
		.tl = wb_pipeline_timeline(u->pl), .bdi = b ? b->name : NULL, .label = b ? label : NULL,
		.now = s->mono, .zoom = u->graph_zoom, .page_size = s->page_size,
		.fc = u->view ? u->view->forecast : NULL, .fc_t = u->view ? u->view->forecast_mono : s->mono,
		/* only while Tune shows its preview: a knob chosen since dropped it there, not here */
		.alt = u->tune_ok && u->tune_fc_ok ? &u->tune_fc[1] : NULL,
		.pin = u->graph_pinned ? &u->graph_pin : NULL, .pin_t = u->graph_pin_t,
		.glyphs = u->utf8 ? next_glyphs[u->graph_glyphs % 3] : WB_PLOT_ASCII, .local_time = true,
	};
	wb_graph_draw(&in, y, 0, ui_cols(u), h, put, u);
}

bool ui_graph_key(struct ui *u, int ch)
{
	static const char *const zoom_names[WB_GRAPH_ZOOMS] = { "1 min", "5 min", "30 min", "all" };

	switch (ch) {
	case '<':
	case '>': {
		int to = u->graph_zoom + (ch == '>' ? 1 : -1);
		if (to < 0 || to >= WB_GRAPH_ZOOMS) { /* an end stops, and says so, as a table's first or last row does */
			snprintf(u->status, sizeof(u->status), "graph: already the %s span (%s)",
				 ch == '>' ? "longest" : "shortest", zoom_names[u->graph_zoom]);
			return true;
		}
		u->graph_zoom = to;
		snprintf(u->status, sizeof(u->status), "graph: %s", zoom_names[u->graph_zoom]);
		return true;
	}
	case 'f':
		if (u->view && u->view->forecast)
			ui_graph_pin(u, u->view->forecast, u->view->forecast_mono, "here");
		else
			snprintf(u->status, sizeof(u->status), "no forecast yet (it needs a few samples)");
		return true;
	case 'F':
		ui_graph_finish(u);
		snprintf(u->status, sizeof(u->status), "forecast unpinned");
		return true;
	case 'b':
		u->graph_glyphs = (u->graph_glyphs + 1) % 3;
		return true;
	}
	return false;
}
