// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Renders the Graph pane from a recording into a text grid, without a
 * terminal, for golden screens and for forecast-against-reality checks:
 *
 *   graph_screen FILE COLSxROWS [--at SEC] [--bdi NAME] [--zoom N]
 *                [--pin SEC] [--ascii|--block] [--roles] [--errors]
 *
 * --at: the moment shown (seconds from the recording's start; default its
 * end); --pin: a forecast pinned at that moment; --errors: print the pinned
 * forecast's errors (wb_graph_errors) instead of the screen; --roles: a
 * second grid with each cell's theme role as a letter.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/forecast.h"
#include "wbtop/graph.h"
#include "wbtop/model.h"
#include "wbtop/pipeline.h"
#include "wbtop/record.h"
#include "wbtop/source.h"
#include "wbtop/timeline.h"

#define MAXW 256
#define MAXH 100

struct grid {
	int w, h;
	char cell[MAXH][MAXW][5];
	char role[MAXH][MAXW];
};

/* Put one UTF-8 string into the grid, a code point a cell. */
static void put(void *ctx, int y, int x, int role, const char *s)
{
	struct grid *g = ctx;

	while (*s && y >= 0 && y < g->h) {
		int len = (*s & 0x80) == 0 ? 1 : (*s & 0xE0) == 0xC0 ? 2 : (*s & 0xF0) == 0xE0 ? 3 : 4;
		if (x >= 0 && x < g->w) {
			memcpy(g->cell[y][x], s, (size_t)len);
			g->cell[y][x][len] = '\0';
			g->role[y][x] = (char)('a' + role);
		}
		s += len;
		x++;
	}
}

/* The forecast made at sample cur from the samples before it. */
static int forecast_at(const struct wb_sample *prev, const struct wb_sample *cur, const struct wb_ring *hist,
		       struct wb_forecast *fc)
{
	struct wb_limits lim;
	struct wb_settings k;
	struct wb_forecast_in in;
	double *buf;
	int rc = -1;

	memset(fc, 0, sizeof(*fc));
	if (wb_model_eval(prev, cur, NULL, NULL, 0, &lim) != 0)
		return -1;
	buf = wb_forecast_prepare(cur, hist, 40, 1.0, &in);
	if (buf && wb_settings_from_sample(&k, cur) == 0) {
		rc = wb_forecast_run(cur, &lim, &k, &in, fc);
		wb_settings_finish(&k);
	}
	free(buf);
	wb_limits_finish(&lim);
	return rc;
}

/* "auto": the device that held the most dirty + writeback in the timeline. */
static const char *busiest(const struct wb_timeline *tl, const struct wb_sample *s)
{
	const char *best = NULL;
	double m = -1;

	for (size_t i = 0; i < s->nbdis; i++) {
		const double *v = wb_timeline_bdi(tl, s->bdis[i].name, WB_TL_B_LEVEL);
		for (size_t k = 0; v && k < wb_timeline_len(tl); k++)
			if (v[k] > m) {
				m = v[k];
				best = s->bdis[i].name;
			}
	}
	return best;
}

struct args {
	const char *file, *bdi;
	int w, h, zoom;
	double at, pin;
	enum wb_plot_glyphs glyphs;
	bool roles, errors;
};

static int parse(int argc, char **argv, struct args *a)
{
	*a = (struct args){ .at = -1, .pin = -1 };
	if (argc < 3 || sscanf(argv[2], "%dx%d", &a->w, &a->h) != 2 || a->w < 1 || a->w > MAXW || a->h < 1 ||
	    a->h > MAXH)
		return -1;
	a->file = argv[1];
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--at") && i + 1 < argc)
			a->at = atof(argv[++i]);
		else if (!strcmp(argv[i], "--pin") && i + 1 < argc)
			a->pin = atof(argv[++i]);
		else if (!strcmp(argv[i], "--bdi") && i + 1 < argc)
			a->bdi = argv[++i];
		else if (!strcmp(argv[i], "--zoom") && i + 1 < argc)
			a->zoom = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ascii"))
			a->glyphs = WB_PLOT_ASCII;
		else if (!strcmp(argv[i], "--block"))
			a->glyphs = WB_PLOT_BLOCK;
		else if (!strcmp(argv[i], "--roles"))
			a->roles = true;
		else if (!strcmp(argv[i], "--errors"))
			a->errors = true;
		else
			return -1;
	}
	return 0;
}

static void print_grid(const struct grid *g, bool roles)
{
	for (int y = 0; y < g->h; y++) {
		char line[MAXW * 5 + 1];
		size_t len = 0;
		for (int x = 0; x < g->w; x++) {
			const char *c = roles ? (char[2]){ g->role[y][x], 0 } : g->cell[y][x];
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s", c);
		}
		while (len && line[len - 1] == ' ')
			line[--len] = '\0';
		puts(line);
	}
}

int main(int argc, char **argv)
{
	struct args a;
	char err[256], warn[256];
	struct wb_rec_reader *r;
	struct wb_replay *p;
	struct wb_source src;
	struct wb_sample cur, prev;
	struct wb_ring *hist = wb_ring_create(WB_FORECAST_HIST);
	/* the pipeline's timeline, as the UI keeps it: each view pushed once */
	struct wb_pipeline *pl = wb_pipeline_create(&(struct wb_pipeline_opts){ .window = 2, .timeline = 4096 });
	const struct wb_timeline *tl = pl ? wb_pipeline_timeline(pl) : NULL;
	struct wb_forecast fc = { 0 }, pin = { 0 };
	static struct grid g;
	double t0 = NAN, pin_t = 0;
	bool have = false, pinned = false;

	if (parse(argc, argv, &a) || !hist || !tl) {
		fprintf(stderr, "usage: graph_screen FILE COLSxROWS [--at SEC] [--bdi NAME] [--zoom N] "
				"[--pin SEC] [--ascii|--block] [--roles] [--errors]\n");
		return 2;
	}
	if (!(r = wb_rec_open(a.file, err, sizeof(err), warn, sizeof(warn))) || !(p = wb_replay_create(r, 0, 0))) {
		fprintf(stderr, "%s: %s\n", a.file, err);
		return 1;
	}
	wb_replay_source(p, &src);
	wb_sample_init(&cur);
	wb_sample_init(&prev);
	while (src.read(src.ctx, &cur) == 0) {
		if (isnan(t0))
			t0 = cur.mono;
		if (a.at >= 0 && cur.mono - t0 > a.at + 1e-6)
			break;
		if (wb_pipeline_push(pl, &cur, err, sizeof(err)) == -ENOMEM)
			return 1;
		if (a.pin >= 0 && !pinned && cur.mono - t0 >= a.pin - 1e-6) {
			pinned = forecast_at(have ? &prev : NULL, &cur, hist, &pin) == 0;
			pin_t = cur.mono;
		}
		wb_ring_push(hist, &cur);
		wb_sample_copy(&prev, &cur);
		have = true;
	}
	if (!have) {
		fprintf(stderr, "%s: no samples\n", a.file);
		return 1;
	}
	if (a.bdi && !strcmp(a.bdi, "auto"))
		a.bdi = busiest(tl, &prev);
	bool fc_ok = forecast_at(NULL, &prev, hist, &fc) == 0;
	struct wb_graph_in in = { .tl = tl, .bdi = a.bdi, .label = a.bdi, .now = prev.mono, .zoom = a.zoom,
				  .page_size = prev.page_size, .fc = fc_ok && !pinned ? &fc : NULL, .fc_t = prev.mono,
				  .pin = pinned ? &pin : NULL, .pin_t = pin_t, .glyphs = a.glyphs };
	if (a.errors) {
		struct wb_graph_err e[4];
		int n = wb_graph_errors(&in, e, 4);
		for (int i = 0; i < n; i++)
			printf("%s %d %.0f %.0f %+.4f\n", e[i].what, e[i].n, e[i].forecast, e[i].observed, e[i].rel);
	} else {
		g.w = a.w;
		g.h = a.h;
		for (int y = 0; y < g.h; y++)
			for (int x = 0; x < g.w; x++) {
				strcpy(g.cell[y][x], " ");
				g.role[y][x] = '.';
			}
		wb_graph_draw(&in, 0, 0, a.w, a.h, put, &g);
		print_grid(&g, false);
		if (a.roles)
			print_grid(&g, true);
	}
	wb_forecast_finish(&fc);
	wb_forecast_finish(&pin);
	wb_sample_finish(&cur);
	wb_sample_finish(&prev);
	wb_pipeline_destroy(pl);
	wb_ring_destroy(hist);
	wb_replay_destroy(p);
	wb_rec_close_reader(r);
	return 0;
}
