// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tune pane: every knob of the catalogue with its current value; type a
 * new one and the model's prediction appears before anything is written;
 * apply (root) with confirmation as a 30 s trial that reverts unless kept;
 * undo the last change, revert all; trials are reverted on exit.
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui_internal.h"
#include "wbtop/out.h"
#include "wbtop/tune.h"
#include "wbtop/whatif.h"

#define TRIAL_S 30

static const struct wb_sample *cur(const struct ui *u)
{
	return wb_ring_get(u->ring, 0);
}

/* The BDI the knobs below apply to: the one selected in the devices pane. */
static const struct wb_bdi *tune_bdi(const struct ui *u)
{
	return u->nrows > 0 && u->sel < u->nrows ? u->rows[u->sel].b : NULL;
}

const char *ui_tune_bytes(const struct ui *u, char *buf, size_t n, double b)
{
	if (!u->tune_raw)
		return wb_fmt_bytes(buf, n, b);
	snprintf(buf, n, "%.0f", b);
	return buf;
}

/* Is knob `name` a byte count (shown with the byte formatter)? */
static bool is_bytes_knob(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && strcmp(name + n - 6, "_bytes") == 0;
}

/* The current value of catalogue entry i as the kernel shows it (raw: for stepping). */
static void current_raw(const struct ui *u, size_t i, char *buf, size_t n)
{
	const char *name, *range, *help;
	bool is_bdi;
	int knob;
	const struct wb_sample *s = cur(u);
	const struct wb_bdi *b = tune_bdi(u);

	wb_knob_info(i, &name, &is_bdi, &knob, &range, &help);
	if (!is_bdi)
		snprintf(buf, n, WB_HAS(s->sys_valid, knob) ? "%llu" : "n/a", (unsigned long long)s->sys[knob]);
	else if (b && WB_HAS(b->knob_valid, knob))
		snprintf(buf, n, "%llu", (unsigned long long)b->knob[knob]);
	else
		snprintf(buf, n, "n/a");
}

/* The current value of entry i for the eye: byte knobs as 80M unless r. */
static void current(const struct ui *u, size_t i, char *buf, size_t n)
{
	const char *name, *range, *help;
	bool is_bdi;
	int knob;
	char *end;
	double v;

	current_raw(u, i, buf, n);
	wb_knob_info(i, &name, &is_bdi, &knob, &range, &help);
	v = strtod(buf, &end);
	if (is_bytes_knob(name) && !*end && end != buf)
		ui_tune_bytes(u, buf, n, v);
}

/* "vm.NAME" or "bdi.DEV.NAME" for entry i. */
static void key_of_entry(const struct ui *u, size_t i, char *buf, size_t n)
{
	const char *name, *range, *help;
	bool is_bdi;
	int knob;
	const struct wb_bdi *b = tune_bdi(u);

	wb_knob_info(i, &name, &is_bdi, &knob, &range, &help);
	if (is_bdi)
		snprintf(buf, n, "bdi.%s.%s", b ? b->name : "?", name);
	else
		snprintf(buf, n, "vm.%s", name);
}

/* Drop the prediction and its forecasts. */
void ui_tune_finish(struct ui *u)
{
	if (u->tune_pred_ok) {
		wb_limits_finish(&u->tune_pred);
		wb_settings_finish(&u->tune_set);
	}
	if (u->tune_fc_ok) {
		wb_forecast_finish(&u->tune_fc[0]);
		wb_forecast_finish(&u->tune_fc[1]);
	}
	u->tune_pred_ok = u->tune_fc_ok = u->tune_verify = false;
}

/* The next minute under the current and the proposed settings (wakeups, rates). */
static void forecast(struct ui *u, const struct wb_settings *k)
{
	const struct wb_sample *s = cur(u);
	struct wb_forecast_in in;
	double *buf = wb_forecast_prepare(s, u->ring, 60, 1, &in);
	struct wb_settings k0;

	if (buf && wb_settings_from_sample(&k0, s) == 0) {
		if (wb_forecast_run(s, &u->lim, &k0, &in, &u->tune_fc[0]) == 0) {
			if (wb_forecast_run(s, &u->tune_pred, k, &in, &u->tune_fc[1]) == 0)
				u->tune_fc_ok = true;
			else
				wb_forecast_finish(&u->tune_fc[0]);
		}
		wb_settings_finish(&k0);
	}
	free(buf);
}

/* Parse the typed value, check it as the kernel would, and run the model on it. */
static void preview(struct ui *u)
{
	const struct wb_sample *s = cur(u);
	struct wb_settings k;
	char key[128], arg[192];

	u->tune_ok = false;
	u->tune_scroll = 0;
	ui_tune_finish(u);
	if (!s || !u->lim_ok)
		return;
	key_of_entry(u, (size_t)u->tune_sel, key, sizeof(key));
	snprintf(arg, sizeof(arg), "%s=%s", key, u->tune_buf);
	if (wb_setop_parse(arg, s, &u->tune_op, u->tune_err, sizeof(u->tune_err)) ||
	    wb_settings_from_sample(&k, s))
		return;
	if (wb_settings_apply(&k, &u->lim, s->page_size, &u->tune_op, u->tune_err, sizeof(u->tune_err)) == 0) {
		/* its DRAIN is CLEAN-IN's, the pipeline's drain time (tune_table.c) */
		u->tune_pred_ok = wb_model_eval_hist(wb_ring_get(u->ring, 1), s, u->ring, &k, &u->lim, 0, &u->tune_pred) == 0;
		u->tune_ok = u->tune_pred_ok;
		u->tune_err[0] = '\0';
		if (u->tune_pred_ok) { /* kept with the prediction: DRAIN reads them (tune_table.c) */
			u->tune_set = k;
			k = (struct wb_settings){ 0 };
			forecast(u, &u->tune_set);
		}
	}
	wb_settings_finish(&k);
}

/*
 * A new sample: the prediction shown is made again from it, so that the
 * before and after sides are of the same sample (it was kept from the
 * keypress while the before side moved on: drift shown as the change's
 * effect). Not while a value is typed or confirmed, nor after an apply
 * (the prediction then stays beside what the kernel did).
 */
void ui_tune_refresh(struct ui *u)
{
	int scroll = u->tune_scroll;
	char refused[sizeof(u->tune_err)];

	if (!u->tune_ok || u->tune_editing || u->tune_confirm || u->tune_verify)
		return;
	/* shown only by Tune and Graph: elsewhere made again when one of them is shown (a forecast
	 * and its band cost milliseconds a sample) */
	u->tune_stale = u->pane != P_TUNE && u->pane != P_GRAPH;
	if (u->tune_stale)
		return;
	snprintf(refused, sizeof(refused), "%s", u->tune_err);
	preview(u);
	u->tune_scroll = scroll; /* the table keeps its place (clamped when drawn) */
	if (u->tune_ok && refused[0]) /* a refused step's note, beside the value kept: until the next key */
		snprintf(u->tune_err, sizeof(u->tune_err), "%s", refused);
}

/* Device names as one list ("7:0, 7:1, btrfs-1"), "and 3 more" past a row's worth. */
struct names {
	char s[96];
	int n, shown;
};

static void names_add(struct names *l, const char *name)
{
	size_t len = strlen(l->s);

	if (len + strlen(name) + 2 < 60) {
		snprintf(l->s + len, sizeof(l->s) - len, "%s%s", len ? ", " : "", name);
		l->shown++;
	}
	l->n++;
}

/* The list l as text, into buf. */
static const char *names_text(const struct names *l, char *buf, size_t n)
{
	snprintf(buf, n, l->n > l->shown ? "%s and %d more" : "%s", l->s, l->n - l->shown);
	return buf;
}

/*
 * Warnings for the previewed change. The devices a warning is about are
 * named together: one line a device read the same words over and over and
 * took the before/after table's rows at 80x24.
 */
static int warnings(const struct ui *u, const char **w, char buf[][160], int max)
{
	const struct wb_setop *op = &u->tune_op;
	const struct wb_sample *s = cur(u);
	struct names held[2] = { 0 }, stall = { 0 }; /* held: over it now, [1] lowered further */
	char l[128];
	int n = 0;

	/*
	 * dirty_ratio/dirty_bytes clear their twin only when the value written
	 * differs from the one the kernel has; the background pair on every
	 * write (dirty_background_*_handler(); wb_settings_apply() alike)
	 */
	bool moves = !op->is_bdi && (!(s->sys_valid & WB_BIT(op->knob)) || s->sys[op->knob] != op->value ||
				     op->knob == WB_SYS_BG_RATIO || op->knob == WB_SYS_BG_BYTES);

	if (moves && op->knob == WB_SYS_DIRTY_RATIO && s->sys[WB_SYS_DIRTY_BYTES] && n < max)
		w[n++] = "writing the ratio clears vm.dirty_bytes (the kernel keeps one of the pair)";
	if (moves && op->knob == WB_SYS_DIRTY_BYTES && s->sys[WB_SYS_DIRTY_RATIO] && n < max)
		w[n++] = "writing bytes clears vm.dirty_ratio";
	if (moves && op->knob == WB_SYS_BG_RATIO && s->sys[WB_SYS_BG_BYTES] && n < max)
		w[n++] = "writing the ratio clears vm.dirty_background_bytes";
	if (moves && op->knob == WB_SYS_BG_BYTES && s->sys[WB_SYS_BG_RATIO] && n < max)
		w[n++] = "writing bytes clears vm.dirty_background_ratio";
	for (size_t i = 0; u->tune_pred_ok && i < u->tune_pred.nbdis; i++) {
		const struct wb_bdi_limits *p = &u->tune_pred.bdis[i];
		const struct wb_bdi_limits *o = i < u->lim.nbdis ? &u->lim.bdis[i] : NULL;
		char lb[64];
		const char *mnt;
		if (!p->dirty_known || p->wb_dirty <= p->thresh || p->wb_dirty == 0)
			continue;
		ui_tune_dev_name(u, i, p->name, lb, sizeof(lb), &mnt); /* as the table names them (it said loop0, this 7:0) */
		/* over it already: not the change's doing, unless the change lowers it */
		if (o && o->wb_dirty > o->thresh)
			names_add(&held[p->thresh < o->thresh], lb);
		else
			names_add(&stall, lb);
	}
	for (int k = 0; k < 2 && n < max; k++) {
		if (!held[k].n)
			continue;
		snprintf(buf[n], 160, held[k].n > 1 ? "%s: over their thresholds now%s; their writers stay held"
						     : "%s: over its threshold now%s; its writers stay held",
			 names_text(&held[k], l, sizeof(l)), k ? ", lowered further" : "");
		w[n] = buf[n];
		n++;
	}
	if (stall.n && n < max) {
		snprintf(buf[n], 160,
			 stall.n > 1 ? "%s: thresholds would fall below what is dirty now: their writers will stall"
				     : "%s's threshold would fall below what is dirty now: its writers will stall",
			 names_text(&stall, l, sizeof(l)));
		w[n] = buf[n];
		n++;
	}
	const char *caution = u->tune_pred_ok ? wb_whatif_caution(&u->lim, &u->tune_pred) : NULL;
	if (caution && n < max)
		w[n++] = caution;
	if (u->tune_pred_ok && u->tune_pred.dirty > u->tune_pred.freerun && u->lim.dirty <= u->lim.freerun && n < max)
		w[n++] = "dirty pages would be past the freerun ceiling: writers start being throttled";
	return n;
}

/*
 * After Apply: the prediction next to what the kernel now shows (vmstat's
 * thresholds; debugfs BdiDirtyThresh per device), error in pages.
 */
static int verify(const struct ui *u, int y, int end,
		  void (*put)(const struct ui *, int, int, enum wb_role, const char *))
{
	const struct wb_sample *s = cur(u);
	const struct wb_limits *n = &u->tune_pred;
	double P = s->page_size;
	char l[256], a[24], b[24];

	snprintf(l, sizeof(l), "APPLIED %s: predicted vs the kernel now (error in pages)", u->tune_applied);
	put(u, y++, 0, WB_R_TITLE, l);
	if (WB_HAS(s->g.valid, WB_G_DIRTY_THRESH) && y < end) {
		snprintf(l, sizeof(l), "  dirty thresh   %8s  kernel %8s  %+lld",
			 ui_tune_bytes(u, a, sizeof(a), n->thresh * P),
			 ui_tune_bytes(u, b, sizeof(b), s->g.v[WB_G_DIRTY_THRESH] * P),
			 (long long)s->g.v[WB_G_DIRTY_THRESH] - (long long)n->thresh);
		put(u, y++, 0, WB_R_NORMAL, l);
	}
	if (WB_HAS(s->g.valid, WB_G_BG_THRESH) && y < end) {
		snprintf(l, sizeof(l), "  background     %8s  kernel %8s  %+lld",
			 ui_tune_bytes(u, a, sizeof(a), n->bg * P),
			 ui_tune_bytes(u, b, sizeof(b), s->g.v[WB_G_BG_THRESH] * P),
			 (long long)s->g.v[WB_G_BG_THRESH] - (long long)n->bg);
		put(u, y++, 0, WB_R_NORMAL, l);
	}
	for (size_t i = 0; i < n->nbdis && y < end; i++) {
		const struct wb_bdi *d = wb_sample_bdi(s, n->bdis[i].name);
		const struct wb_bdi_limits *o = wb_limits_bdi(&u->lim, n->bdis[i].name);
		if (!d || !WB_HAS(d->st_valid, WB_B_THRESH) || (o && o->thresh == n->bdis[i].thresh &&
								  d->st[WB_B_THRESH] == n->bdis[i].thresh))
			continue;
		snprintf(l, sizeof(l), "  %-14s %8s  kernel %8s  %+lld", n->bdis[i].name,
			 ui_tune_bytes(u, a, sizeof(a), n->bdis[i].thresh * P),
			 ui_tune_bytes(u, b, sizeof(b), d->st[WB_B_THRESH] * P),
			 (long long)d->st[WB_B_THRESH] - (long long)n->bdis[i].thresh);
		put(u, y++, 0, WB_R_NORMAL, l);
	}
	return y;
}

typedef void (*put_fn)(const struct ui *, int, int, enum wb_role, const char *);

/* The knob column's width: the longest "vm.NAME" or "bdi.NAME" of the catalogue. */
static int knob_w(void)
{
	const char *name, *range, *help;
	bool is_bdi;
	int knob, w = 4;

	for (size_t i = 0; i < wb_knob_count(); i++) {
		wb_knob_info(i, &name, &is_bdi, &knob, &range, &help);
		if ((int)strlen(name) + (is_bdi ? 4 : 3) > w)
			w = (int)strlen(name) + (is_bdi ? 4 : 3);
	}
	return w;
}

#define KNOB_VALUE_W 10 /* CURRENT: "1000000", raw bytes up to 9.3G */
#define KNOB_RANGE_W 20 /* "0-max %, sum < 100 %" */

/*
 * The knob list, rows lines of it at most, scrolled to keep the selected knob
 * in sight: name, value under CURRENT, range under RANGE (vm.* and bdi.* rows
 * alike; the titles stood a few cells off their values, the bdi.* values one
 * off the vm.* ones).
 */
static int draw_knobs(const struct ui *u, int y, int rows, put_fn put)
{
	const struct wb_bdi *b = tune_bdi(u);
	int count = (int)wb_knob_count(), first = 0, kw = knob_w(), w = ui_cols(u);
	int range_x = 2 + kw + 1 + KNOB_VALUE_W + 2, at = range_x + KNOB_RANGE_W + 2;
	char l[256], v[32], key[64], lb[64], dev[sizeof(lb) + WB_NAME_LEN + 16];
	const char *mnt;

	/* the device the bdi.* rows are for, whole: cut at 80 columns "7:316" read "7:31",
	 * another device; it moves left over the padding when it does not fit. Named as the
	 * table names it, with the MAJ:MIN the knobs' keys carry */
	if (b)
		ui_tune_dev_name(u, u->rows[u->sel].i, b->name, lb, sizeof(lb), &mnt);
	if (!b)
		snprintf(dev, sizeof(dev), "per-device: (select a device in pane 1)");
	else if (strstr(lb, b->name)) /* btrfs-1:loop2 names its BDI already */
		snprintf(dev, sizeof(dev), "per-device: %s", lb);
	else
		snprintf(dev, sizeof(dev), "per-device: %s (%s)", lb, b->name);
	if (w > 0 && at + (int)strlen(dev) > w)
		at = w - (int)strlen(dev) > range_x + 7 ? w - (int)strlen(dev) : range_x + 7;
	snprintf(l, sizeof(l), "  %-*s %*s  %-*s%s", kw, "KNOB", KNOB_VALUE_W, "CURRENT", at - range_x, "RANGE", dev);
	put(u, y++, 0, WB_R_TITLE, l);
	if (rows < count && u->tune_sel >= rows / 2)
		first = u->tune_sel - rows / 2 < count - rows ? u->tune_sel - rows / 2 : count - rows;
	for (int i = first; i < count && i < first + rows; i++) {
		const char *name, *range, *help;
		bool is_bdi;
		int knob;

		wb_knob_info((size_t)i, &name, &is_bdi, &knob, &range, &help);
		current(u, (size_t)i, v, sizeof(v));
		snprintf(key, sizeof(key), "%s%s", is_bdi ? "bdi." : "vm.", name);
		snprintf(l, sizeof(l), "  %-*s %*s  %s", kw, key, KNOB_VALUE_W, v, range);
		put(u, y++, 0, i == u->tune_sel ? WB_R_SELECTED : WB_R_NORMAL, l);
	}
	return y;
}

/* What the selected knob does, named in full ("vm.dirty_ratio: writers are ..."), for a row of its own. */
static void knob_help(const struct ui *u, char *buf, size_t n)
{
	const char *name, *range, *help;
	bool is_bdi;
	int knob;
	char key[128];

	wb_knob_info((size_t)u->tune_sel, &name, &is_bdi, &knob, &range, &help);
	key_of_entry(u, (size_t)u->tune_sel, key, sizeof(key));
	snprintf(buf, n, "%s: %s", key, help);
}

/*
 * Why the pane writes nothing here, in each place's words: one row per reason.
 * A user who is not root saw "a: apply (root)" offered live, and a did nothing.
 */
static const struct no_apply_row {
	const char *title; /* the prediction's title */
	const char *hint;  /* after the hint's keys */
	const char *key;   /* a press of a, k, u or R */
} no_apply_rows[] = {
	{ "preview only: not the live kernel", "(a replay: preview only)", "live only, a replay writes nothing" },
	{ "preview only: not the live kernel", "(--root: preview only)",
	  "the live kernel only, a --root tree is not written" },
	{ "preview only: applying needs root", "(not root: preview only)",
	  "applying needs root, run wbtop as root; this is a preview" },
};

/* The reason the pane writes nothing here, or NULL where a applies (live, root). */
static const struct no_apply_row *no_apply(const struct ui *u)
{
	if (u->src && u->src->replay)
		return &no_apply_rows[0];
	return u->o->apply == WB_UI_APPLY_LIVE ? NULL : &no_apply_rows[u->o->apply == WB_UI_APPLY_NOT_ROOT ? 2 : 1];
}

const char *ui_tune_no_apply(const struct ui *u)
{
	return no_apply(u) ? no_apply(u)->key : NULL;
}

/* The prediction's text: its title, the thresholds before and after (with the rows shown when scrolled), y/n. */
struct pred_text {
	char title[256], thresh[256], confirm[256];
};

static void pred_text(const struct ui *u, int nr, int first, int room, struct pred_text *t)
{
	const struct wb_limits *n = &u->tune_pred, *o = &u->lim;
	double P = cur(u)->page_size;
	char a[24], b[24], c[24], d[24];

	snprintf(t->title, sizeof(t->title), "PREDICTED %s=%s (%s)", u->tune_op.key, u->tune_buf,
		 no_apply(u) ? no_apply(u)->title : "nothing written yet; a applies");
	snprintf(t->thresh, sizeof(t->thresh), "dirty thresh %s -> %s   background %s -> %s",
		 ui_tune_bytes(u, a, sizeof(a), o->thresh * P), ui_tune_bytes(u, b, sizeof(b), n->thresh * P),
		 ui_tune_bytes(u, c, sizeof(c), o->bg * P), ui_tune_bytes(u, d, sizeof(d), n->bg * P));
	if (nr > room) /* the table scrolls */
		snprintf(t->thresh + strlen(t->thresh), sizeof(t->thresh) - strlen(t->thresh),
			 "   rows %d-%d of %d: PgUp/PgDn", first + 1, first + room, nr);
	t->confirm[0] = '\0';
	if (u->tune_confirm)
		snprintf(t->confirm, sizeof(t->confirm), "apply %s=%s for a %d s trial? y/n", u->tune_op.key,
			 u->tune_buf, TRIAL_S);
}

/*
 * The rows the prediction takes but the table's: its text wrapped (the
 * thresholds indented 2, a warning 4 after its "! "), and the table's title.
 */
static int pred_rows(const struct ui *u, const struct pred_text *t, const char *const *w, int nw)
{
	int rows = 1 + ui_put_wrapped(u, t->title, 0, 0, 0, WB_R_NORMAL, NULL) +
		   ui_put_wrapped(u, t->thresh, 0, 2, 0, WB_R_NORMAL, NULL) +
		   ui_put_wrapped(u, t->confirm, 0, 0, 0, WB_R_NORMAL, NULL);

	for (int i = 0; i < nw; i++)
		rows += ui_put_wrapped(u, w[i], 0, 4, 0, WB_R_NORMAL, NULL);
	return rows;
}

/* The prediction: thresholds, the before/after table (scrolled: PgUp/PgDn) and the warnings, all wrapped. */
static int draw_preview(struct ui *u, int y, int end, put_fn put)
{
	const char *w[8];
	char wb[8][160];
	size_t idx[256];
	int nw = warnings(u, w, wb, 8), nr = ui_tune_table_rows(u, idx, 256), room;
	struct pred_text t;

	pred_text(u, nr, 0, nr, &t); /* the room without the "rows" note, then with it where it scrolls */
	room = end - y - pred_rows(u, &t, w, nw);
	if (room < nr) {
		pred_text(u, nr, 0, room, &t);
		room = end - y - pred_rows(u, &t, w, nw);
	}
	if (room < 1)
		room = 1;
	u->tune_scroll_max = nr - room > 0 ? nr - room : 0;
	u->tune_page = room;
	if (u->tune_scroll > u->tune_scroll_max)
		u->tune_scroll = u->tune_scroll_max;
	pred_text(u, nr, u->tune_scroll, room, &t);
	y += ui_put_wrapped(u, t.title, y, 0, end, WB_R_THRESHOLD, put);
	y += ui_put_wrapped(u, t.thresh, y, 2, end, WB_R_THRESHOLD, put);
	y += ui_put_wrapped(u, t.confirm, y, 0, end, WB_R_CRITICAL, put);
	y = ui_tune_table(u, idx, nr, u->tune_scroll, u->tune_scroll + room, y, end, put);
	for (int i = 0; i < nw && y < end; i++) {
		put(u, y, 2, WB_R_WARN, "!");
		y += ui_put_wrapped(u, w[i], y, 4, end, WB_R_WARN, put);
	}
	return y;
}

/* Lines the prediction needs in full (the table's rows included). */
static int preview_lines(const struct ui *u)
{
	const char *w[8];
	char wb[8][160];
	size_t idx[256];
	int nw = warnings(u, w, wb, 8), nr;
	struct pred_text t;

	if (!u->tune_ok)
		return 0;
	nr = ui_tune_table_rows(u, idx, 256);
	pred_text(u, nr, 0, nr, &t);
	return pred_rows(u, &t, w, nw) + (nr ? nr : 1); /* none: a line says why */
}

void ui_draw_tune(struct ui *u, int y, int h, put_fn put)
{
	int end = y + h, count = (int)wb_knob_count(), rows;
	char trial[512] = "", edit[512] = "", err[512] = "", help[256], hint[256] = "";

	/* where nothing can be written no a, u or R is offered: the key table leaves them out too */
	if (!u->tune_editing && !u->tune_buf[0])
		snprintf(hint, sizeof(hint), "Enter: type a value (+/-: step it) and see the prediction   %s%s",
			 no_apply(u) ? "r: raw bytes   " : "a: apply   u: undo   R: revert all   r: raw bytes",
			 no_apply(u) ? no_apply(u)->hint : "");

	if (u->tune_trial_end > 0)
		snprintf(trial, sizeof(trial), "TRIAL: %s  - the old values come back in %.0f s: k keeps, u reverts now",
			 u->tune_applied, u->tune_trial_end - u->now);
	if (u->tune_editing) {
		char key[128];
		key_of_entry(u, (size_t)u->tune_sel, key, sizeof(key));
		snprintf(edit, sizeof(edit), "new value for %s: %s_   (units: 64M, 5%%; Enter previews, Esc cancels)",
			 key, u->tune_buf);
	}
	if (u->tune_err[0])
		snprintf(err, sizeof(err), "refused: %s", u->tune_err);
	/* the selected knob's help on rows of its own under the list: at its row's end 80 columns cut it */
	knob_help(u, help, sizeof(help));
	/* the knob list gives way to the prediction, down to 3 knobs around the selected one */
	rows = h - 2 - preview_lines(u);
	for (size_t k = 0; k < 5; k++) /* the rows each line below takes */
		rows -= ui_put_wrapped(u, (const char *[]){ help, trial, edit, hint, err }[k], 0, 0, 0, WB_R_NORMAL,
				       NULL);
	rows = rows < 3 ? 3 : rows > count ? count : rows;
	y = draw_knobs(u, y, rows, put);
	y += ui_put_wrapped(u, help, y, 0, end, WB_R_HINT, put);
	y++;
	y += ui_put_wrapped(u, trial, y, 0, end, WB_R_CRITICAL, put);
	y += ui_put_wrapped(u, edit, y, 0, end, WB_R_TITLE, put);
	y += ui_put_wrapped(u, hint, y, 0, end, WB_R_HINT, put);
	y += ui_put_wrapped(u, err, y, 0, end, WB_R_CRITICAL, put);
	if (u->tune_verify && u->tune_pred_ok && y < end)
		y = verify(u, y, end, put);
	if (u->tune_ok && y < end)
		draw_preview(u, y, end, put);
}

/* Revert the newest applied change (trial or kept). */
static void undo(struct ui *u)
{
	char err[256];

	if (u->tune_nstack == 0) {
		snprintf(u->status, sizeof(u->status), "nothing to undo");
		return;
	}
	struct wb_tune *t = &u->tune_stack[--u->tune_nstack];

	if (wb_tune_revert(t, err, sizeof(err)))
		snprintf(u->status, sizeof(u->status), "undo: %.180s", err);
	else if (t->left[0]) /* another process wrote the knob since: its value stays */
		snprintf(u->status, sizeof(u->status), "not undone, changed by another since: %.150s", t->left);
	else if (t->gone[0]) /* a device removed meanwhile took its knobs along: nothing to put back there */
		snprintf(u->status, sizeof(u->status), "undone: %.110s (gone meanwhile: %.60s)", u->tune_applied, t->gone);
	else
		snprintf(u->status, sizeof(u->status), "undone: %.180s", u->tune_applied);
	u->tune_trial_end = 0;
}

void ui_tune_revert_all(struct ui *u)
{
	while (u->tune_nstack > 0)
		undo(u);
}

/* Called every loop: a trial past its time reverts itself. */
void ui_tune_tick(struct ui *u)
{
	if (u->tune_trial_end > 0 && u->now >= u->tune_trial_end) {
		undo(u);
		if (!u->tune_stack[u->tune_nstack].left[0])
			snprintf(u->status, sizeof(u->status), "trial over: %.170s reverted", u->tune_applied);
	}
}

static void apply(struct ui *u)
{
	char err[256];

	u->tune_confirm = false;
	if (u->tune_nstack >= (int)(sizeof(u->tune_stack) / sizeof(u->tune_stack[0]))) {
		snprintf(u->status, sizeof(u->status), "too many changes: undo some first");
		return;
	}
	if (u->tune_trial_end > 0) /* one trial at a time: the previous one is kept */
		u->tune_trial_end = 0;
	if (wb_tune_apply(&u->tune_stack[u->tune_nstack], "/", &u->tune_op, 1, err, sizeof(err))) {
		snprintf(u->status, sizeof(u->status), "%.190s", err);
		return;
	}
	u->tune_nstack++;
	snprintf(u->tune_applied, sizeof(u->tune_applied), "%s=%s", u->tune_op.key, u->tune_buf);
	u->tune_trial_end = u->now + TRIAL_S;
	wb_pipeline_annotate(u->pl, u->tune_applied); /* the recorder notes it */
	u->tune_buf[0] = '\0';
	u->tune_ok = false;
	u->tune_verify = u->tune_pred_ok; /* the prediction stays, beside the kernel's figures */
	if (u->tune_fc_ok) /* the Graph pane draws what was predicted against what comes */
		ui_graph_pin(u, &u->tune_fc[1], ui_cur(u) ? ui_cur(u)->mono : 0, u->tune_applied);
	snprintf(u->status, sizeof(u->status), "applied %.150s: watch the devices, k keeps it", u->tune_applied);
}

/* The step of + and - for a knob, by its unit; 0: a 0/1 switch. */
static unsigned long long knob_step(const char *name)
{
	static const struct { const char *suffix; unsigned long long step; } steps[] = {
		{ "_fine", 10000 }, { "_bytes", 4ull << 20 }, { "_centisecs", 100 }, { "_ratio", 1 },
		{ "strict_limit", 0 },
	};
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		size_t m = strlen(steps[i].suffix);
		if (n >= m && strcmp(name + n - m, steps[i].suffix) == 0)
			return steps[i].step;
	}
	return 1;
}

/*
 * + / -: step the proposed value (from the typed one, else the current) and
 * preview it. A step the kernel would refuse (out of range) keeps the value
 * and its prediction as they were, the refusal said beside them: the next
 * step goes from the value last accepted, not from the refused one.
 */
static void step(struct ui *u, int ch)
{
	const char *name, *range, *help;
	bool is_bdi;
	int knob;
	char cur[32], *end, was[sizeof(u->tune_buf)], why[sizeof(u->tune_err)];
	unsigned long long v, st;

	wb_knob_info((size_t)u->tune_sel, &name, &is_bdi, &knob, &range, &help);
	v = strtoull(u->tune_buf, &end, 10);
	if (!u->tune_buf[0] || *end) { /* nothing typed, or a value with units: start from now */
		current_raw(u, (size_t)u->tune_sel, cur, sizeof(cur));
		v = strtoull(cur, &end, 10);
		if (*end)
			return; /* not known at this level */
	}
	st = knob_step(name);
	/* nothing below 0: said, as a step past the top is, not predicted again - where 0 is the
	 * least the kernel takes; where it is not (vm.dirty_bytes: 0 while the ratio rules), the
	 * preview of 0 refuses it with the kernel's least */
	if (ch == '-' && v == 0) {
		char key[128], why[160];

		key_of_entry(u, (size_t)u->tune_sel, key, sizeof(key));
		if (wb_knob_check((size_t)u->tune_sel, key, 0, ui_cur(u) ? ui_cur(u)->page_size : 4096, why, sizeof(why)) == 0) {
			if (st == 0)
				snprintf(u->tune_err, sizeof(u->tune_err), "%s is 0, off, already (+ turns it on)", key);
			else
				snprintf(u->tune_err, sizeof(u->tune_err),
					 "%s=-%llu: below the kernel's minimum of 0 (it takes %s)", key, st, range);
			return;
		}
	}
	if (st == 0)
		v = ch == '+';
	else if (ch == '+')
		v += st;
	else
		v = v > st ? v - st : 0;
	snprintf(was, sizeof(was), "%s", u->tune_buf);
	snprintf(u->tune_buf, sizeof(u->tune_buf), "%llu", v);
	preview(u);
	if (u->tune_ok || !u->tune_err[0])
		return;
	snprintf(why, sizeof(why), "%s", u->tune_err);
	snprintf(u->tune_buf, sizeof(u->tune_buf), "%s", was);
	u->tune_err[0] = '\0';
	if (was[0])
		preview(u);
	if (!u->tune_err[0]) /* a typed value refused itself keeps its own reason */
		snprintf(u->tune_err, sizeof(u->tune_err), "%s", why);
}

/* Keys of the tune pane; true when the key was used. */
bool ui_tune_key(struct ui *u, int ch)
{
	if (u->tune_confirm) {
		if (ch == 'y' || ch == 'Y')
			apply(u);
		else
			u->tune_confirm = false;
		return true;
	}
	if (u->tune_editing) {
		switch (ui_line_edit(u->tune_buf, sizeof(u->tune_buf), ch, false)) {
		case UI_EDIT_CANCEL:
			u->tune_editing = false;
			u->tune_buf[0] = '\0';
			u->tune_err[0] = '\0';
			u->tune_ok = false;
			break;
		case UI_EDIT_DONE:
			u->tune_editing = false;
			preview(u);
			break;
		default:
			break;
		}
		return true;
	}
	switch (ch) {
	case KEY_UP: if (u->tune_sel > 0) u->tune_sel--; u->tune_ok = false; u->tune_buf[0] = '\0'; return true;
	case KEY_DOWN:
		if (u->tune_sel + 1 < (int)wb_knob_count())
			u->tune_sel++;
		u->tune_ok = false;
		u->tune_buf[0] = '\0';
		return true;
	case '\n': case KEY_ENTER: case 'e':
		u->tune_editing = true;
		u->tune_buf[0] = '\0';
		u->tune_err[0] = '\0';
		return true;
	case 'a':
		if (!u->tune_ok)
			snprintf(u->status, sizeof(u->status), "nothing to apply: Enter a value first");
		else if (no_apply(u)) /* the key table binds a only where it writes: a second guard */
			snprintf(u->status, sizeof(u->status), "preview only: %s", no_apply(u)->key);
		else
			u->tune_confirm = true;
		return true;
	case 'k':
		if (u->tune_trial_end > 0) {
			wb_tune_confirm(&u->tune_stack[u->tune_nstack - 1]);
			u->tune_trial_end = 0;
			snprintf(u->status, sizeof(u->status), "kept %.180s", u->tune_applied);
		} else {
			snprintf(u->status, sizeof(u->status), "no change on trial to keep");
		}
		return true;
	case '+': case '=': case '-': step(u, ch); return true;
	case 'u': undo(u); return true;
	case 'r': /* raw byte counts on demand */
		u->tune_raw = !u->tune_raw;
		snprintf(u->status, sizeof(u->status), "%s", u->tune_raw ? "bytes shown raw (r: 80M)" : "bytes shown as 80M (r: raw)");
		return true;
	case KEY_NPAGE: case KEY_PPAGE: /* scroll the before/after table; without one, the devices */
		if (!u->tune_ok)
			return false;
		if (u->tune_scroll == (ch == KEY_NPAGE ? u->tune_scroll_max : 0)) /* say so rather than nothing */
			snprintf(u->status, sizeof(u->status), "%s of the table", ch == KEY_NPAGE ? "end" : "top");
		/* a page is the rows shown: a fixed 5 skipped a row where 4 fit */
		u->tune_scroll += (ch == KEY_NPAGE ? 1 : -1) * (u->tune_page > 0 ? u->tune_page : 5);
		if (u->tune_scroll > u->tune_scroll_max)
			u->tune_scroll = u->tune_scroll_max;
		if (u->tune_scroll < 0)
			u->tune_scroll = 0;
		return true;
	case 'R':
		if (u->tune_nstack == 0) { /* a preview writes nothing: nothing to put back */
			snprintf(u->status, sizeof(u->status), "nothing to revert: no change applied this session");
			return true;
		}
		ui_tune_revert_all(u);
		snprintf(u->status, sizeof(u->status), "every change reverted");
		return true;
	}
	return false;
}
