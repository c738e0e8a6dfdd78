// SPDX-License-Identifier: GPL-2.0-or-later
/* The Graph pane: the timeline plotted, the forecast ahead of now, a pinned forecast against reality. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wbtop/graph.h"
#include "wbtop/grid.h"
#include "wbtop/out.h"
#include "wbtop/theme.h"

const double wb_graph_zoom_s[WB_GRAPH_ZOOMS] = { 60, 300, 1800, 0 };

#define LABEL_W 7       /* value axis labels */
#define RATE_AXIS_MIN (1 << 20) /* a rate plot with nothing written in its span: 0-1M/s, not 0-1B/s */
#define MAX_SERIES 10
#define TICK_EVERY 18   /* columns between time labels */

/* One line of a plot: points (x, y), how it is drawn, and its legend. */
struct series {
	const double *x, *y;
	size_t n;
	int role;
	bool dashed;
	bool ref;                   /* a limit: it may fall above the data's range */
	const char *label;
};

/* A forecast's p10..p90 band: points (x, lo..hi). */
struct band {
	const double *x, *lo, *hi;
	size_t n;
};

/* A plot's series and the arrays they own (forecast lines are built here). */
struct plot_def {
	const char *title;
	bool rate;                  /* values are bytes/s */
	struct series s[MAX_SERIES];
	int ns;
	struct band band;           /* the current forecast's band, if it has one */
	const char *note;           /* said in the legend after the items (what is not drawn, and why) */
	double *owned[MAX_SERIES + 1];
	int nowned;
};

struct frame {
	const struct wb_graph_in *in;
	double x0, x1;              /* time window, CLOCK_MONOTONIC */
	double wall_off;            /* wall - mono */
	wb_graph_put put;
	void *ctx;
};

static void add(struct plot_def *p, const double *x, const double *y, size_t n, int role, bool dashed,
		const char *label)
{
	size_t k = 0;

	/* a series with no figure at all (unknown below level 2) is neither drawn nor in the legend */
	while (y && k < n && !isfinite(y[k]))
		k++;
	if (p->ns < MAX_SERIES && x && y && k < n)
		p->s[p->ns++] = (struct series){ x, y, n, role, dashed, false, label };
}

/* The newest figure of a timeline series is known: a forecast from an unknown level starts from 0, not from it. */
static bool known_now(const double *y, size_t n)
{
	return y && n && isfinite(y[n - 1]);
}

/* A limit's line (a threshold): the value axis fits the data, not it. */
static void add_ref(struct plot_def *p, const double *x, const double *y, size_t n, int role, const char *label)
{
	add(p, x, y, n, role, false, label);
	if (p->ns && p->s[p->ns - 1].y == y)
		p->s[p->ns - 1].ref = true;
}

/* A forecast series as points: x = from + (k + 1) step, y = a[k] (+ b[k]) pages in bytes. */
static void add_fc(struct plot_def *p, const struct wb_forecast *f, double from, const double *a, const double *b,
		   double scale, int role, const char *label)
{
	size_t n = f->nsteps;
	double *xy;

	if (!a || !n || p->nowned >= MAX_SERIES || !(xy = malloc(2 * n * sizeof(double))))
		return;
	p->owned[p->nowned++] = xy;
	for (size_t k = 0; k < n; k++) {
		xy[k] = from + (double)(k + 1) * f->step_s;
		xy[n + k] = (a[k] + (b ? b[k] : 0)) * scale;
	}
	add(p, xy, xy + n, n, role, true, label);
}

/* Where the current forecast starts: its own sample (now, or a few seconds before). */
static double fc_from(const struct wb_graph_in *in)
{
	return in->fc_t > 0 && in->fc_t <= in->now ? in->fc_t : in->now;
}

/* The band of one forecast series (lo, hi: pages or pages/s per step) from `from`, in bytes. */
static void add_band(struct plot_def *p, const struct wb_forecast *f, double from, const double *lo,
		     const double *hi, double scale)
{
	size_t n = f->nsteps;
	double *b;

	if (!lo || !hi || !n || p->nowned > MAX_SERIES || !(b = malloc(3 * n * sizeof(double))))
		return;
	p->owned[p->nowned++] = b;
	for (size_t k = 0; k < n; k++) {
		b[k] = from + (double)(k + 1) * f->step_s;
		b[n + k] = lo[k] * scale;
		b[2 * n + k] = hi[k] * scale;
	}
	p->band = (struct band){ b, b + n, b + 2 * n, n };
}

static const struct wb_forecast_bdi *fc_bdi(const struct wb_forecast *f, const char *name)
{
	for (size_t i = 0; f && name && i < f->nbdis; i++)
		if (strcmp(f->bdis[i].name, name) == 0)
			return &f->bdis[i];
	return NULL;
}

static void free_def(struct plot_def *p)
{
	for (int i = 0; i < p->nowned; i++)
		free(p->owned[i]);
}

/* The largest value of the series (limits or data) in the window. */
static double series_max(const struct frame *fr, const struct plot_def *p, bool ref)
{
	double m = 0;

	for (int i = 0; i < p->ns; i++)
		for (size_t k = 0; p->s[i].ref == ref && k < p->s[i].n; k++)
			if (p->s[i].x[k] >= fr->x0 && p->s[i].x[k] <= fr->x1 && isfinite(p->s[i].y[k]))
				m = fmax(m, p->s[i].y[k]);
	return m;
}

/*
 * The value axis' top for a canvas of rows rows: the data and the limits,
 * unless the limits are far above the data (a 5 GiB threshold over a few
 * MiB): then the data, and the limits above it are named in the legend
 * instead of drawn. The highest of them keeps a row below the top: on a step
 * itself it was drawn on the plot's edge (usb-stick's 80M threshold).
 */
static double axis_max(const struct frame *fr, const struct plot_def *p, int rows)
{
	double d = series_max(fr, p, false), r = series_max(fr, p, true), m = d > 0 && r > 4 * d ? d : fmax(d, r);
	double top;

	if (p->rate && !(m > 0))
		return RATE_AXIS_MIN;
	top = wb_plot_nice_max(m, true); /* in fine steps: a 30M/s curve filled half of a 50M/s axis */
	while (m > 0 && rows > 0 && m >= top * (1 - 1.0 / rows)) /* in the top row: the next step */
		top = wb_plot_nice_max(top * (1 + 1e-9), true);
	return top;
}

/* Cells of one canvas row, runs of one role put together. */
static void put_row(const struct frame *fr, const struct wb_plot *pl, int r, int cols, int y, int x)
{
	char run[4096];
	int len = 0, run_role = -2, run_x = x, role;

	for (int c = 0; c <= cols; c++) {
		const char *g = c < cols ? wb_plot_cell(pl, c, r, &role) : "";
		if (role < 0)
			role = WB_R_NORMAL;
		if (c == cols || role != run_role || len + 8 >= (int)sizeof(run)) {
			if (len)
				fr->put(fr->ctx, y, run_x, run_role, run);
			len = 0;
			run[0] = '\0';
			run_role = role;
			run_x = x + c;
		}
		if (c < cols) { /* a glyph is at most 4 bytes; the run is flushed before it fills */
			size_t gl = strlen(g);
			memcpy(run + len, g, gl + 1);
			len += (int)gl;
		}
	}
}

static void value_label(char *buf, size_t n, double v, bool rate)
{
	char b[16];

	wb_fmt_bytes(b, sizeof(b), v);
	snprintf(buf, n, "%*s", LABEL_W - 1, rate ? strcat(b, "/s") : b);
	if (strlen(buf) > LABEL_W - 1)
		buf[LABEL_W - 1] = '\0';
}

/*
 * HH:MM:SS of a monotonic time, or YY-MM-DD when the span shown is over two
 * days (the same 8 columns): a recording whose clock jumped years, shown
 * whole, had labels a quarter of its span apart that were times of day.
 */
static void clock_label(const struct frame *fr, double mono, char *buf, size_t n)
{
	time_t w = (time_t)llround(fmin(fmax(mono + fr->wall_off, 0), 1e11));
	const char *fmt = fr->x1 - fr->x0 > 2 * 86400 ? "%y-%m-%d" : "%H:%M:%S";
	struct tm tm;

	if (!(fr->in->local_time ? localtime_r(&w, &tm) : gmtime_r(&w, &tm)) || !strftime(buf, n, fmt, &tm))
		snprintf(buf, n, "--:--:--");
}

/* The time axis: a label every TICK_EVERY columns; "now" where it falls. */
static void time_axis(const struct frame *fr, int y, int x, int cols)
{
	char line[1024], lab[16];
	int len = cols < (int)sizeof(line) - 1 ? cols : (int)sizeof(line) - 1;
	double per = (fr->x1 - fr->x0) / (cols > 1 ? cols - 1 : 1);
	int now_c = (int)lround((fr->in->now - fr->x0) / per);

	memset(line, ' ', (size_t)len);
	line[len] = '\0';
	for (int c = 0; c + 8 <= len; c += TICK_EVERY) {
		if (abs(c - now_c) < 9 && now_c < len)
			continue;
		clock_label(fr, fr->x0 + c * per, lab, sizeof(lab));
		memcpy(line + c, lab, 8);
	}
	fr->put(fr->ctx, y, x, WB_R_NORMAL, line);
	if (now_c >= 0 && now_c + 3 <= len)
		fr->put(fr->ctx, y, x + now_c, WB_R_TITLE, "now");
}

/* A legend item's worth when the row is short: the data, the forecasts (dashed), the limits, the band. */
static int legend_prio(const struct series *s)
{
	return s->ref ? 1 : s->dashed ? 2 : 3;
}

/*
 * The legend row: an item a line (a limit above the axis with its value), two
 * cells apart. When they do not all fit, the least needed go (the latest of
 * equals), never the data: at 80 columns "dirty+wb" and "forecast" were the
 * ones left out, behind the limits' longer items.
 */
static void legend(const struct frame *fr, const struct plot_def *p, double ymax, int y, int x, int w)
{
	bool utf8 = fr->in->glyphs != WB_PLOT_ASCII, on[MAX_SERIES + 2];
	char item[MAX_SERIES + 2][64];
	int role[MAX_SERIES + 2], prio[MAX_SERIES + 2], n = 0, total = -2;

	if (p->band.n) {
		snprintf(item[n], sizeof(item[n]), "%s p10-p90", utf8 ? "\u2591" : ":");
		role[n] = WB_R_BAR_EMPTY;
		prio[n++] = 0;
	}
	for (int i = 0; i < p->ns; i++) {
		const struct series *s = &p->s[i];
		const char *mark = s->dashed ? (utf8 ? "\u2504" : "..") : (utf8 ? "\u2501" : "--");
		char above[24] = "";
		if (!s->label)
			continue;
		if (s->ref && s->n && isfinite(s->y[s->n - 1]) && s->y[s->n - 1] > ymax) {
			char v[16];
			wb_fmt_bytes(v, sizeof(v), s->y[s->n - 1]);
			snprintf(above, sizeof(above), " %s%s", utf8 ? "\u2191" : "^", v);
		}
		snprintf(item[n], sizeof(item[n]), "%s %s%s", mark, s->label, above);
		role[n] = s->role;
		prio[n++] = legend_prio(s);
	}
	if (p->note) { /* as a limit's item: before the data and the forecasts go */
		snprintf(item[n], sizeof(item[n]), "%s", p->note);
		role[n] = WB_R_NA;
		prio[n++] = 1;
	}
	for (int i = 0; i < n; i++) {
		on[i] = true;
		total += wb_text_cols(item[i]) + 2;
	}
	while (total > w) {
		int lo = -1;
		for (int i = 0; i < n; i++)
			if (on[i] && (lo < 0 || prio[i] <= prio[lo]))
				lo = i;
		if (lo < 0)
			return;
		on[lo] = false;
		total -= wb_text_cols(item[lo]) + 2;
	}
	for (int i = 0, col = x; i < n; i++)
		if (on[i]) {
			fr->put(fr->ctx, y, col, role[i], item[i]);
			col += wb_text_cols(item[i]) + 2;
		}
}

/* What the device's plots' titles say after its label. */
enum { TT_LEVEL, TT_RATE, TT_COUNT };
static const char *const title_tail[TT_COUNT] = {
	[TT_LEVEL] = ": dirty + writeback against its threshold",
	[TT_RATE] = ": write bandwidth and writer throughput",
};

int wb_graph_label_room(int w)
{
	int most = 0;

	for (int k = 0; k < TT_COUNT; k++)
		most = (int)strlen(title_tail[k]) > most ? (int)strlen(title_tail[k]) : most;
	return w - most;
}

/* One plot: title, value axis, canvas, time axis, legend, in h rows. */
static void draw_plot(const struct frame *fr, const struct plot_def *p, int y, int x, int w, int h)
{
	int cols = w - LABEL_W, rows = h - 3;
	double ymax = axis_max(fr, p, rows);
	struct wb_plot *pl;
	char lab[24], title[256];

	/* a title wider than the plot ends in a marker, as a cut label does (at 80 columns a
	 * mount's path stopped at "against its thresh" with nothing to say so) */
	snprintf(title, sizeof(title), "%s", p->title);
	if (w > 1 && wb_text_cols(title) > w) {
		bool utf8 = fr->in->glyphs != WB_PLOT_ASCII;
		size_t at = wb_text_fit(title, w - 1);
		snprintf(title + at, sizeof(title) - at, "%s", utf8 ? "\u2026" : "~");
	}
	fr->put(fr->ctx, y, x, WB_R_TITLE, title);
	if (rows < 2 || cols < 10 || !(pl = wb_plot_create(cols, rows, fr->in->glyphs)))
		return;
	wb_plot_window(pl, fr->x0, fr->x1, 0, ymax);
	if (p->band.n) /* under the lines */
		wb_plot_band(pl, p->band.x, p->band.lo, p->band.hi, p->band.n, WB_R_BAR_EMPTY);
	for (int i = 0; i < p->ns; i++)
		wb_plot_line(pl, p->s[i].x, p->s[i].y, p->s[i].n, p->s[i].role, p->s[i].dashed);
	if (fr->x1 > fr->in->now + 1)
		wb_plot_vline(pl, fr->in->now, WB_R_TITLE);
	for (int r = 0; r < rows; r++)
		put_row(fr, pl, r, cols, y + 1 + r, x + LABEL_W);
	time_axis(fr, y + 1 + rows, x + LABEL_W, cols);
	if (p->ns == 0 && !p->band.n && !p->note) { /* nothing known to draw: an axis of 0-1B said nothing either */
		fr->put(fr->ctx, y + 2 + rows, x + LABEL_W, WB_R_NA,
			"n/a: per-device figures need level 2 (root, debugfs)");
		wb_plot_destroy(pl);
		return;
	}
	value_label(lab, sizeof(lab), ymax, p->rate);
	fr->put(fr->ctx, y + 1, x, WB_R_NORMAL, lab);
	value_label(lab, sizeof(lab), ymax / 2, p->rate);
	fr->put(fr->ctx, y + 1 + rows / 2, x, WB_R_NORMAL, lab);
	fr->put(fr->ctx, y + rows, x, WB_R_NORMAL, "     0");
	legend(fr, p, ymax, y + 2 + rows, x + LABEL_W, cols);
	wb_plot_destroy(pl);
}

/*
 * The marks, each kind on a row of its own: throttling pauses, then flusher
 * work. On one row a pause hid a wakeup of the same time bucket, and a later
 * sample's mark the earlier one's.
 */
static const struct {
	const char *utf8, *ascii, *label;
	int role;
	enum wb_tl_b series;
} marks[] = {
	{ "\u25bc", "v", "throttled", WB_R_CRITICAL, WB_TL_B_PAUSES },
	{ "\u2022", "o", "flusher", WB_R_BACKGROUND, WB_TL_B_WAKEUPS },
};
#define NMARKS ((int)(sizeof(marks) / sizeof(marks[0])))

/* A mark's legend item ("▼ throttled"). */
static void mark_item(const struct frame *fr, int k, char *buf, size_t n)
{
	snprintf(buf, n, "%s %s", fr->in->glyphs != WB_PLOT_ASCII ? marks[k].utf8 : marks[k].ascii, marks[k].label);
}

/* The cells of the widest mark's legend item: each row's legend starts in one column. */
static int mark_item_w(void)
{
	int w = 0;

	for (int k = 0; k < NMARKS; k++)
		w = 2 + (int)strlen(marks[k].label) > w ? 2 + (int)strlen(marks[k].label) : w;
	return w;
}

/*
 * Where the marks' legend starts in a marks row of cols cells: its right end,
 * two cells clear of now (marks fall only up to it); -1 when that is no room
 * (a long span leaves a short forecast area right of now).
 */
static int marks_legend_at(const struct frame *fr, int cols)
{
	double per = (fr->x1 - fr->x0) / cols;
	int at = cols - mark_item_w();

	return at >= (int)floor((fr->in->now - fr->x0) / per) + 3 ? at : -1;
}

/* The marks' legend on one row at y, x in their own roles ("▼ throttled  • flusher"). */
static void marks_legend(const struct frame *fr, int y, int x)
{
	for (int k = 0; k < NMARKS; k++) {
		char item[32];
		mark_item(fr, k, item, sizeof(item));
		fr->put(fr->ctx, y, x, marks[k].role, item);
		x += 2 + (int)strlen(marks[k].label) + 2;
	}
}

/* Has the device marks rows: its pauses and wakeups in the timeline, and 10 columns for them? */
static bool has_marks(const struct frame *fr, int w)
{
	for (int k = 0; k < NMARKS; k++)
		if (!wb_timeline_bdi(fr->in->tl, fr->in->bdi, marks[k].series))
			return false;
	return w - LABEL_W >= 10;
}

/* Were trace events read in the span shown? Without them a sample's pauses are NaN, not 0. */
static bool marks_known(const struct frame *fr)
{
	const struct wb_timeline *tl = fr->in->tl;
	const double *t = wb_timeline_mono(tl), *pa = wb_timeline_bdi(tl, fr->in->bdi, WB_TL_B_PAUSES);

	for (size_t i = 0; i < wb_timeline_len(tl); i++)
		if (t[i] >= fr->x0 && isfinite(pa[i]))
			return true;
	return false;
}

/*
 * Throttling pauses and flusher work as marks, a row each from y, per time
 * bucket (a mark where any sample of the bucket had one); each row's legend
 * right of now where it fits.
 */
static void marks_rows(const struct frame *fr, int y, int x, int w)
{
	const struct wb_timeline *tl = fr->in->tl;
	const double *t = wb_timeline_mono(tl);
	int cols = w - LABEL_W, at = marks_legend_at(fr, cols);
	bool utf8 = fr->in->glyphs != WB_PLOT_ASCII;
	double per = (fr->x1 - fr->x0) / cols;

	fr->put(fr->ctx, y, x, WB_R_NORMAL, "marks");
	if (!marks_known(fr)) { /* an empty row would say nothing was throttled: n/a, as the Flusher's event log */
		fr->put(fr->ctx, y, x + LABEL_W, WB_R_NA,
			"n/a - level 3 hidden: throttling and flusher marks need trace events");
		return;
	}
	for (int k = 0; k < NMARKS; k++) {
		const double *v = wb_timeline_bdi(tl, fr->in->bdi, marks[k].series);
		char item[32];
		for (size_t i = 0; i < wb_timeline_len(tl); i++) {
			int c = (int)floor((t[i] - fr->x0) / per);
			if (c >= 0 && c < cols && v[i] > 0)
				fr->put(fr->ctx, y + k, x + LABEL_W + c, marks[k].role, utf8 ? marks[k].utf8 : marks[k].ascii);
		}
		if (at >= 0) {
			mark_item(fr, k, item, sizeof(item));
			fr->put(fr->ctx, y + k, x + LABEL_W + at, marks[k].role, item);
		}
	}
}

/* The global plot: dirty + writeback against the three global limits. */
static void def_global(const struct frame *fr, struct plot_def *p)
{
	const struct wb_graph_in *in = fr->in;
	const struct wb_timeline *tl = in->tl;
	const double *t = wb_timeline_mono(tl);
	size_t n = wb_timeline_len(tl);

	p->title = "All devices: dirty + writeback against the limits";
	add_ref(p, t, wb_timeline_global(tl, WB_TL_G_THRESH), n, WB_R_THRESHOLD, "thresh");
	add_ref(p, t, wb_timeline_global(tl, WB_TL_G_FREERUN), n, WB_R_WARN, "freerun");
	add_ref(p, t, wb_timeline_global(tl, WB_TL_G_BG), n, WB_R_BACKGROUND, "background");
	add(p, t, wb_timeline_global(tl, WB_TL_G_WRITEBACK), n, WB_R_WRITEBACK, false, "writeback");
	add(p, t, wb_timeline_global(tl, WB_TL_G_LEVEL), n, WB_R_DIRTY, false, "dirty+wb");
	if (in->alt)
		add_fc(p, in->alt, in->now, in->alt->g_dirty, in->alt->g_writeback, in->page_size, WB_R_GOOD,
		       "if changed");
	if (in->fc)
		add_fc(p, in->fc, fc_from(in), in->fc->g_dirty, in->fc->g_writeback, in->page_size, WB_R_IDLE,
		       "forecast");
	if (in->pin)
		add_fc(p, in->pin, in->pin_t, in->pin->g_dirty, in->pin->g_writeback, in->page_size, WB_R_HINT,
		       "pinned");
}

/* The device's level against its thresholds (model and kernel). */
static void def_device(const struct frame *fr, struct plot_def *p, char *title, size_t tn)
{
	const struct wb_graph_in *in = fr->in;
	const struct wb_timeline *tl = in->tl;
	const double *t = wb_timeline_mono(tl);
	size_t n = wb_timeline_len(tl);
	const struct wb_forecast_bdi *f;

	snprintf(title, tn, "%s%s", in->label ? in->label : in->bdi, title_tail[TT_LEVEL]);
	p->title = title;
	add_ref(p, t, wb_timeline_bdi(tl, in->bdi, WB_TL_B_KTHRESH), n, WB_R_TITLE, "kernel thresh");
	add_ref(p, t, wb_timeline_bdi(tl, in->bdi, WB_TL_B_THRESH), n, WB_R_THRESHOLD, "model");
	add(p, t, wb_timeline_bdi(tl, in->bdi, WB_TL_B_WRITEBACK), n, WB_R_WRITEBACK, false, "writeback");
	add(p, t, wb_timeline_bdi(tl, in->bdi, WB_TL_B_LEVEL), n, WB_R_DIRTY, false, "dirty+wb");
	if (!known_now(wb_timeline_bdi(tl, in->bdi, WB_TL_B_LEVEL), n))
		return;
	if ((f = fc_bdi(in->alt, in->bdi)))
		add_fc(p, in->alt, in->now, f->dirty, f->writeback, in->page_size, WB_R_GOOD, "if changed");
	if ((f = fc_bdi(in->fc, in->bdi))) {
		add_band(p, in->fc, fc_from(in), f->p10[WB_FC_LEVEL], f->p90[WB_FC_LEVEL], in->page_size);
		add_fc(p, in->fc, fc_from(in), f->thresh, NULL, in->page_size, WB_R_IDLE, NULL);
		if (p->ns)
			p->s[p->ns - 1].ref = true; /* the forecast threshold is a limit too */
		add_fc(p, in->fc, fc_from(in), f->dirty, f->writeback, in->page_size, WB_R_IDLE, "forecast");
	}
	if ((f = fc_bdi(in->pin, in->bdi)))
		add_fc(p, in->pin, in->pin_t, f->dirty, f->writeback, in->page_size, WB_R_HINT, "pinned");
}

/*
 * The device's bandwidth as the kernel measured it: NaN where it is still the
 * estimate the kernel starts a device with (INIT_BW, 100 MiB/s), which set the
 * axis of a device that never wrote that fast; owned by p. Is the newest one that?
 */
static const double *measured_bw(const struct frame *fr, struct plot_def *p, const double *bw, size_t n,
				 bool *unmeasured_now)
{
	uint32_t ps = fr->in->page_size;
	double *m;

	*unmeasured_now = bw && n && wb_bw_unmeasured(bw[n - 1] / (ps ? ps : 1), ps);
	if (!bw || !n || p->nowned >= MAX_SERIES || !(m = malloc(n * sizeof(double))))
		return bw;
	p->owned[p->nowned++] = m;
	for (size_t i = 0; i < n; i++)
		m[i] = wb_bw_unmeasured(bw[i] / (ps ? ps : 1), ps) ? NAN : bw[i];
	return m;
}

/* The device's write bandwidth and its writers' throughput. */
static void def_rates(const struct frame *fr, struct plot_def *p, char *title, size_t tn)
{
	const struct wb_graph_in *in = fr->in;
	const struct wb_timeline *tl = in->tl;
	const double *t = wb_timeline_mono(tl);
	size_t n = wb_timeline_len(tl);
	const struct wb_forecast_bdi *f;
	bool unmeasured;

	snprintf(title, tn, "%s%s", in->label ? in->label : in->bdi, title_tail[TT_RATE]);
	p->title = title;
	p->rate = true;
	add_ref(p, t, measured_bw(fr, p, wb_timeline_bdi(tl, in->bdi, WB_TL_B_BW), n, &unmeasured), n, WB_R_WRITEBACK,
		"bandwidth");
	if (unmeasured)
		p->note = "bandwidth: not measured yet";
	add(p, t, wb_timeline_bdi(tl, in->bdi, WB_TL_B_WRITER), n, WB_R_DIRTY, false, "writers");
	if (!known_now(wb_timeline_bdi(tl, in->bdi, WB_TL_B_WRITER), n))
		return;
	if ((f = fc_bdi(in->alt, in->bdi)))
		add_fc(p, in->alt, in->now, f->write_rate, NULL, in->page_size, WB_R_GOOD, "if changed");
	if ((f = fc_bdi(in->fc, in->bdi))) {
		add_band(p, in->fc, fc_from(in), f->p10[WB_FC_WRITE_RATE], f->p90[WB_FC_WRITE_RATE], in->page_size);
		add_fc(p, in->fc, fc_from(in), f->write_rate, NULL, in->page_size, WB_R_IDLE, "forecast");
	}
	if ((f = fc_bdi(in->pin, in->bdi)))
		add_fc(p, in->pin, in->pin_t, f->write_rate, NULL, in->page_size, WB_R_HINT, "pinned");
}

/* The time window: the zoom's span left of now, and the forecast's right of it. */
static void window(struct frame *fr)
{
	const struct wb_graph_in *in = fr->in;
	const double *t = wb_timeline_mono(in->tl);
	size_t n = wb_timeline_len(in->tl);
	double span = wb_graph_zoom_s[in->zoom >= 0 && in->zoom < WB_GRAPH_ZOOMS ? in->zoom : 0];
	double ahead = 0;

	if (span <= 0)
		span = n ? fmax(in->now - t[0], 10) : 60;
	if (in->fc || in->alt)
		ahead = fmin((in->fc ? in->fc : in->alt)->horizon_s, fmax(30, span / 3));
	if (in->pin)
		ahead = fmax(ahead, fmin(in->pin_t + in->pin->horizon_s - in->now, span / 2));
	fr->x0 = in->now - span;
	fr->x1 = in->now + fmax(ahead, span / 60);
	fr->wall_off = n ? wb_timeline_wall(in->tl)[n - 1] - t[n - 1] : 0;
}

/* The pinned forecast's errors, one line. */
static void errors_line(const struct frame *fr, int y, int x, int w)
{
	struct wb_graph_err e[4];
	int n = wb_graph_errors(fr->in, e, 4), len, shown = 0;
	char line[256], a[16], b[16];

	len = snprintf(line, sizeof(line), "pinned forecast vs real so far:");
	for (int i = 0; i < n; i++)
		shown += e[i].n > 0;
	if (!shown) /* just pinned: it ended at the colon */
		len += snprintf(line + len, sizeof(line) - (size_t)len, " nothing yet (the next samples compare)");
	for (int i = 0; i < n; i++) {
		/* the writer's is a rate; an item whole or not at all (cut at the edge, "(5.0M vs 4" read as 4) */
		const char *u = strcmp(e[i].what, "writer") ? "" : "/s";
		char item[96];
		int il;
		if (!e[i].n)
			continue;
		wb_fmt_bytes(a, sizeof(a), e[i].forecast);
		wb_fmt_bytes(b, sizeof(b), e[i].observed);
		il = snprintf(item, sizeof(item), "  %s %+.0f%% (%s%s vs %s%s)", e[i].what, 100 * e[i].rel, a, u, b, u);
		if (len + il > w || len + il >= (int)sizeof(line))
			break;
		memcpy(line + len, item, (size_t)il + 1);
		len += il;
	}
	if (len > w)
		line[w] = '\0';
	fr->put(fr->ctx, y, x, WB_R_HINT, line);
}

void wb_graph_draw(const struct wb_graph_in *in, int y, int x, int w, int h, wb_graph_put put, void *ctx)
{
	struct frame fr = { .in = in, .put = put, .ctx = ctx };
	struct plot_def g = { 0 }, d = { 0 }, r = { 0 };
	char t1[160], t2[160];
	int rows = h, nplots;

	if (!in->tl || wb_timeline_len(in->tl) == 0 || w < 20 || h < 4) {
		put(ctx, y, x, WB_R_NA, "Graph: no samples yet");
		return;
	}
	window(&fr);
	def_global(&fr, &g);
	if (in->bdi) {
		def_device(&fr, &d, t1, sizeof(t1));
		def_rates(&fr, &r, t2, sizeof(t2));
	}
	if (in->pin) {
		errors_line(&fr, y + rows - 1, x, w);
		rows--;
	}
	if (in->bdi && rows >= 13 && has_marks(&fr, w)) {
		/* no room right of now for the legend (a long span): a row of its own under the marks */
		if (marks_legend_at(&fr, w - LABEL_W) < 0 && rows >= 14 && marks_known(&fr)) {
			marks_legend(&fr, y + rows - 1, x + LABEL_W);
			rows--;
		}
		rows -= marks_known(&fr) ? NMARKS : 1; /* unknown: one row says so */
		marks_rows(&fr, y + rows, x, w);
	}
	/* at 80x24 one plot (the device's, if one is chosen); stacked where they fit */
	nplots = !in->bdi ? 1 : rows >= 36 ? 3 : rows >= 22 ? 2 : 1;
	if (nplots == 1 && in->bdi && d.ns == 0 && !d.band.n && !d.note) {
		/* the device's figures unknown (below level 2): the global plot, which has them,
		 * rather than an empty one (an unprivileged 80x24 Graph pane drew nothing) */
		snprintf(t1, sizeof(t1), "All devices (%s's own figures need level 2: root, debugfs)",
			 in->label ? in->label : in->bdi);
		g.title = t1;
		draw_plot(&fr, &g, y, x, w, rows);
	} else if (nplots == 1) {
		draw_plot(&fr, in->bdi ? &d : &g, y, x, w, rows);
	} else {
		int each = rows / nplots;
		draw_plot(&fr, &g, y, x, w, each);
		draw_plot(&fr, &d, y + each, x, w, each);
		if (nplots == 3)
			draw_plot(&fr, &r, y + 2 * each, x, w, rows - 2 * each);
	}
	free_def(&g);
	free_def(&d);
	free_def(&r);
}

/* Mean of forecast a(+b) at the observed points' steps against the observed series. */
static void compare(const struct wb_graph_in *in, const double *a, const double *b, const double *obs,
		    struct wb_graph_err *e)
{
	const double *t = wb_timeline_mono(in->tl);
	double sf = 0, so = 0;

	e->n = 0;
	for (size_t i = 0; a && obs && i < wb_timeline_len(in->tl); i++) {
		long k = lround((t[i] - in->pin_t) / in->pin->step_s) - 1;
		if (t[i] <= in->pin_t || t[i] > in->now + 1e-6 || k < 0 || (size_t)k >= in->pin->nsteps ||
		    !isfinite(obs[i]))
			continue;
		sf += (a[k] + (b ? b[k] : 0)) * in->page_size;
		so += obs[i];
		e->n++;
	}
	if (!e->n)
		return;
	e->forecast = sf / e->n;
	e->observed = so / e->n;
	e->rel = (e->forecast - e->observed) / fmax(e->observed, 1);
}

int wb_graph_errors(const struct wb_graph_in *in, struct wb_graph_err *out, int max)
{
	const struct wb_forecast_bdi *f = fc_bdi(in->pin, in->bdi);
	const struct wb_timeline *tl = in->tl;
	int n = 0;

	if (!in->pin || !tl || in->pin->step_s <= 0)
		return 0;
	if (f && n + 3 <= max) {
		out[n].what = "level";
		compare(in, f->dirty, f->writeback, wb_timeline_bdi(tl, in->bdi, WB_TL_B_LEVEL), &out[n++]);
		out[n].what = "writer";
		compare(in, f->write_rate, NULL, wb_timeline_bdi(tl, in->bdi, WB_TL_B_WRITER), &out[n++]);
		out[n].what = "thresh";
		compare(in, f->thresh, NULL, wb_timeline_bdi(tl, in->bdi, WB_TL_B_KTHRESH), &out[n++]);
	}
	if (n < max) {
		out[n].what = "global";
		compare(in, in->pin->g_dirty, in->pin->g_writeback, wb_timeline_global(tl, WB_TL_G_LEVEL), &out[n++]);
	}
	return n;
}
