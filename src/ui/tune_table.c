// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Tune pane's before/after table: the devices a previewed change moves,
 * each with its threshold, drain time, writer rate, wakeups and state now and
 * under the change, in columns as wide as their cells that give way by
 * priority to the screen's width.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"
#include "wbtop/catalog.h"
#include "wbtop/layout.h"

static const struct wb_sample *cur(const struct ui *u)
{
	return wb_ring_get(u->ring, 0);
}

/* Does device i have writers now: pages dirtied in the last interval, or writers held? */
static bool has_writers(const struct ui *u, size_t i)
{
	const struct wb_view *v = u->view;

	if (i < u->lim.nbdis && u->lim.bdis[i].state >= WB_ST_THROTTLED)
		return true;
	return v && i < v->cur->nbdis && v->bdi[i].dirtied_ok && v->bdi[i].dirtied > 0;
}

/* The next minute's background wakeups of device i: now (k 0) or proposed (1); < 0 unknown. */
static double wakes(const struct ui *u, size_t i, int k)
{
	if (!u->tune_fc_ok || i >= u->tune_fc[0].nbdis || i >= u->tune_fc[1].nbdis)
		return -1;
	return u->tune_fc[k].bdis[i].bg_flushes_per_min;
}

/* Device i's threshold under l is known, as the Devices pane has it (this table read 560M->267M beside "-"). */
static bool thresh_known(const struct wb_limits *l, size_t i)
{
	return wb_bdi_thresh_known(&l->bdis[i]);
}

/* Device i's state under l, with the limit that holds its writers ("throttled:global"); "-" unknown. */
static const char *state_text(const struct wb_limits *l, size_t i, char *buf, size_t n)
{
	enum wb_held_by h = wb_pipeline_held_by(l, i);

	if (!thresh_known(l, i) || !l->bdis[i].dirty_known)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%s%s%s", wb_bdi_state_names[l->bdis[i].state], h ? ":" : "",
			 wb_held_by_names[h]);
	return buf;
}

/*
 * Is device i a row of the before/after table: it has writers (the device
 * one is told to watch), or its threshold, state or forecast changes. An
 * idle device's forecast alone does not list it (nothing of it to flush).
 */
static bool row_shown(const struct ui *u, size_t i)
{
	const struct wb_bdi_limits *x = &u->lim.bdis[i], *z = &u->tune_pred.bdis[i];
	char a[40], b[40];
	bool idle = x->state == WB_ST_IDLE && z->state == WB_ST_IDLE;
	double P = cur(u)->page_size;

	if (has_writers(u, i)) /* a threshold changes when it does on screen (not by a page) */
		return true;
	if ((thresh_known(&u->lim, i) || thresh_known(&u->tune_pred, i)) &&
	    strcmp(wb_fmt_bytes(a, sizeof(a), x->thresh * P), wb_fmt_bytes(b, sizeof(b), z->thresh * P)))
		return true;
	if (strcmp(state_text(&u->lim, i, a, sizeof(a)), state_text(&u->tune_pred, i, b, sizeof(b))))
		return true;
	return !idle && lround(wakes(u, i, 0)) != lround(wakes(u, i, 1));
}

int ui_tune_table_rows(const struct ui *u, size_t *idx, int max)
{
	int n = 0;

	for (size_t i = 0; i < u->tune_pred.nbdis && i < u->lim.nbdis && n < max; i++)
		if (row_shown(u, i))
			idx[n++] = i;
	return n;
}

/*
 * Device i (BDI bdi)'s value of the catalogue's field titled title, as the
 * Devices pane shows it, under the limits l (the current or the previewed
 * ones); unknown where the view is not of the newest sample or its device i
 * is another (a prediction held while a device came or went).
 */
static struct wb_value dev_field(const struct ui *u, size_t i, const char *bdi, const struct wb_limits *l,
				 const struct wb_settings *k, const char *title, const struct wb_field **f)
{
	size_t nf;
	const struct wb_field *t = wb_catalog_bdi(&nf);
	struct wb_fctx c;

	*f = NULL;
	for (size_t k = 0; k < nf && !*f; k++)
		if (t[k].title && strcmp(t[k].title, title) == 0)
			*f = &t[k];
	if (!*f || !u->view || u->view->cur != cur(u) || i >= cur(u)->nbdis || strcmp(cur(u)->bdis[i].name, bdi))
		return (struct wb_value){ .known = false };
	wb_catalog_ctx(&c, u->view, l, i);
	c.k = k;
	return (*f)->get(&c);
}

/*
 * Device i, BDI bdi, labelled as the Devices pane shows it (the catalogue's
 * DEVICE), and its mount point ("-": none); by its BDI name where the sample's device i
 * is another (a prediction held while a device came or went).
 */
void ui_tune_dev_name(const struct ui *u, size_t i, const char *bdi, char *name, size_t n, const char **mnt)
{
	const struct wb_sample *s = cur(u);
	const struct wb_bdi *b = i < s->nbdis && strcmp(s->bdis[i].name, bdi) == 0 ? &s->bdis[i] : NULL;
	const struct wb_field *f;
	struct wb_value x = dev_field(u, i, bdi, &u->lim, NULL, "DEVICE", &f);

	snprintf(name, n, "%s", bdi);
	if (x.known)
		snprintf(name, n, "%.*s", (int)n - 1, wb_value_text(&x));
	*mnt = b && b->nmounts ? b->mounts[0] : "-";
}

/*
 * The before/after table's columns, in their order: the mount beside the
 * device as in pane 1, the state last (its width varies by row). When the
 * table is wider than the screen the highest tc_prio go first (at 80 columns
 * the state and the mount were cut: "over-limit:dev").
 */
enum { TC_DEV, TC_MOUNT, TC_THRESH, TC_DRAIN, TC_WRITER, TC_WAKE, TC_STATE, TC_COUNT };
static const int tc_prio[TC_COUNT] = { 0, 4, 0, 2, 1, 3, 0 };
static const char *const tc_title[TC_COUNT] = { "DEVICE", "MOUNT", "THRESH", "DRAIN", "WRITER/s", "WAKE/m",
						 "STATE->new" };
/*
 * The device label and the mount point are cut (marked; a mount keeps its end) to these at 80
 * columns (they were at any width: "btrfs-123456789…" at 200); each column a
 * wider screen has past 80 goes to them while the table leaves room, as far
 * as their longest cells and the Devices pane's maxima (ui_grow_max).
 */
static const int tc_base[TC_COUNT] = { [TC_DEV] = 16, [TC_MOUNT] = 12 };

/* One row's cells (the threshold's two sides apart). */
struct trow {
	char c[TC_COUNT][WB_PATH_LEN + 8]; /* a mount point whole, cut to its column when drawn */
	char t1[24];
};

/* Device i's cells: label, mount, threshold now and new, drain, writer rate, wakeups, state now->new. */
static void table_cells(const struct ui *u, size_t i, struct trow *r)
{
	const struct wb_bdi_limits *x = &u->lim.bdis[i], *z = &u->tune_pred.bdis[i];
	double P = cur(u)->page_size, w0 = wakes(u, i, 0), w1 = wakes(u, i, 1);
	char d1[24], s0[40], s1[40];
	const char *mnt;
	const struct wb_field *f;
	struct wb_value cv;

	ui_tune_dev_name(u, i, u->tune_pred.bdis[i].name, r->c[TC_DEV], sizeof(r->c[TC_DEV]), &mnt);
	snprintf(r->c[TC_MOUNT], sizeof(r->c[TC_MOUNT]), "%s", mnt); /* both cut to their columns' width */
	if (thresh_known(&u->lim, i))
		ui_tune_bytes(u, r->c[TC_THRESH], sizeof(r->c[TC_THRESH]), x->thresh * P);
	else
		snprintf(r->c[TC_THRESH], sizeof(r->c[TC_THRESH]), "-");
	if (thresh_known(&u->tune_pred, i))
		ui_tune_bytes(u, r->t1, sizeof(r->t1), z->thresh * P);
	else
		snprintf(r->t1, sizeof(r->t1), "-");
	/* pane 1's CLEAN-IN under the previewed limits and settings: a knob does not change how fast a
	 * device writes, but its background condition decides whether the pages wait for their expiry
	 * first ("7.3s+"; drawn apart here, the + was missing), and with periodic writeback off they
	 * are never written by themselves ("never"; it read 7.3s+ under dirty_writeback_centisecs=0) */
	cv = dev_field(u, i, z->name, &u->tune_pred, &u->tune_set, "CLEAN-IN", &f);
	snprintf(r->c[TC_DRAIN], sizeof(r->c[TC_DRAIN]), "%s", f ? wb_catalog_show(f, &cv, d1, sizeof(d1)) : "-");
	/* the writers' throughput the forecast predicts under the change, 5-30 s on (not the
	 * kernel's per-task rate limit, which is no throughput: a walk through the panes read 12K/s beside
	 * a writer going at 3-4 MiB/s) */
	if (!u->tune_fc_ok || i >= u->tune_fc[1].nbdis) {
		snprintf(r->c[TC_WRITER], sizeof(r->c[TC_WRITER]), "-");
	} else if (u->tune_fc[1].bdis[i].dirty_rate_in == 0) {
		snprintf(r->c[TC_WRITER], sizeof(r->c[TC_WRITER]), "idle"); /* no writer: no rate to show */
	} else {
		const struct wb_forecast *f = &u->tune_fc[1];
		double sum = 0;
		size_t k, m = 0;
		for (k = 5; k <= 30 && k < f->nsteps; k++, m++)
			sum += f->bdis[i].write_rate[k];
		for (k = 0; m == 0 && k < f->nsteps; k++, m++) /* a short forecast: all of it */
			sum += f->bdis[i].write_rate[k];
		snprintf(r->c[TC_WRITER], sizeof(r->c[TC_WRITER]), "%s/s",
			 m ? ui_tune_bytes(u, d1, sizeof(d1), sum / (double)m * P) : "-");
	}
	/* one figure where the change moves none as shown, as STATE shows one word */
	if (w0 >= 0) {
		char a[24], b[24];
		snprintf(a, sizeof(a), "%.0f", w0);
		snprintf(b, sizeof(b), "%.0f", w1);
		if (strcmp(a, b))
			snprintf(r->c[TC_WAKE], sizeof(r->c[TC_WAKE]), "%s->%s", a, b);
		else
			snprintf(r->c[TC_WAKE], sizeof(r->c[TC_WAKE]), "%s", a);
	} else
		snprintf(r->c[TC_WAKE], sizeof(r->c[TC_WAKE]), "-");
	state_text(&u->lim, i, s0, sizeof(s0));
	state_text(&u->tune_pred, i, s1, sizeof(s1));
	if (strcmp(s0, s1))
		snprintf(r->c[TC_STATE], sizeof(r->c[TC_STATE]), "%s->%s", s0, s1);
	else
		snprintf(r->c[TC_STATE], sizeof(r->c[TC_STATE]), "%s", s0);
}

/* The table's geometry: each column's width (as wide as its widest cell), the new threshold's, which show. */
struct tgeom {
	int w[TC_COUNT], new_w;
	bool shown[TC_COUNT];
};

/*
 * Give left cells of room to DEVICE, then MOUNT, as far as their widest
 * cells (full[c]) and the Devices pane's maxima.
 */
static void table_grow(struct tgeom *g, const int *full, int left)
{
	for (int c = 0; c < TC_COUNT && left > 0; c++) {
		int to = full[c] < ui_grow_max(tc_title[c]) ? full[c] : ui_grow_max(tc_title[c]);

		if (!tc_base[c] || !g->shown[c] || to <= g->w[c])
			continue;
		to = to < g->w[c] + left ? to : g->w[c] + left;
		left -= to - g->w[c];
		g->w[c] = to;
	}
}

/* Geometry for the table's rows idx (all of them, so that scrolling moves no column). */
static void table_geom(const struct ui *u, const size_t *idx, int nr, struct tgeom *g)
{
	struct trow r;
	int full[TC_COUNT], used, avail = ui_cols(u) - 2;

	for (int c = 0; c < TC_COUNT; c++)
		full[c] = (int)strlen(tc_title[c]);
	g->new_w = 3; /* "new" */
	for (int k = 0; k < nr; k++) {
		table_cells(u, idx[k], &r);
		for (int c = 0; c < TC_COUNT; c++) {
			int cols = wb_text_cols(r.c[c]);
			full[c] = cols > full[c] ? cols : full[c];
		}
		g->new_w = (int)strlen(r.t1) > g->new_w ? (int)strlen(r.t1) : g->new_w;
	}
	for (int c = 0; c < TC_COUNT; c++)
		g->w[c] = tc_base[c] && full[c] > tc_base[c] ? tc_base[c] : full[c];
	g->w[TC_THRESH] += 2 + g->new_w; /* "3.4G->47M" */
	used = wb_layout_columns(g->w, tc_prio, TC_COUNT, avail, g->shown);
	if (!g->shown[TC_STATE]) /* never left out: cut, marked, where nothing else gives it room */
		g->shown[TC_STATE] = true, used += g->w[TC_STATE] + 1;
	table_grow(g, full, avail - used < ui_cols(u) - WB_MIN_COLS ? avail - used : ui_cols(u) - WB_MIN_COLS);
}

/* One line of the table: the titles (r NULL) or a row, cut to the screen with a marker. */
static void table_line(const struct ui *u, const struct tgeom *g, const struct trow *r, char *l, size_t n)
{
	size_t len = 0;
	int tw = g->w[TC_THRESH] - 2 - g->new_w;

	snprintf(l, n, " ");
	for (int c = 0; c < TC_COUNT && len < n; c++) {
		char cut[sizeof(r->c[0])];
		const char *v = r ? r->c[c] : tc_title[c];
		int pad;
		if (!g->shown[c])
			continue;
		if (tc_base[c] && r) { /* a label or mount wider than its column: cut, marked */
			snprintf(cut, sizeof(cut), "%s", v);
			(c == TC_MOUNT ? ui_path_cut : ui_cut)(cut, sizeof(cut), g->w[c], u->utf8);
			v = cut;
		}
		pad = g->w[c] - wb_text_cols(v) + (int)strlen(v); /* bytes, for a width in cells */
		len = strlen(l);
		if (c == TC_THRESH)
			snprintf(l + len, n - len, " %*s->%-*s", tw, v, g->new_w, r ? r->t1 : "new");
		else if (c == TC_DRAIN || c == TC_WRITER)
			snprintf(l + len, n - len, " %*s", pad, v);
		else
			snprintf(l + len, n - len, " %-*s", c == TC_STATE ? 0 : pad, v);
		len = strlen(l);
	}
	ui_cut(l, n, ui_cols(u), u->utf8);
}

int ui_tune_table(const struct ui *u, const size_t *idx, int nr, int first, int last, int y, int end,
		  void (*put)(const struct ui *, int, int, enum wb_role, const char *))
{
	struct tgeom g;
	struct trow row;
	char l[512];

	table_geom(u, idx, nr, &g);
	table_line(u, &g, NULL, l, sizeof(l));
	put(u, y++, 0, WB_R_TITLE, l);
	for (int r = first; r < nr && r < last && y < end; r++) {
		table_cells(u, idx[r], &row);
		table_line(u, &g, &row, l, sizeof(l));
		put(u, y++, 0, u->tune_pred.bdis[idx[r]].state >= WB_ST_THROTTLED ? WB_R_WARN : WB_R_NORMAL, l);
	}
	if (nr == 0 && y < end) { /* a title over nothing said neither why nor that nothing moves */
		bool known = false;
		for (size_t i = 0; i < u->lim.nbdis; i++)
			known |= thresh_known(&u->lim, i);
		put(u, y++, 2, WB_R_NA, known ? "no device's threshold, state or writers change"
					      : "per-device thresholds unknown: they need level 2 (root, debugfs)");
	}
	return y;
}
