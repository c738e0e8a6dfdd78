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

/* The current value of catalogue entry i as the kernel shows it. */
static void current(const struct ui *u, size_t i, char *buf, size_t n)
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
	if (u->tune_pred_ok)
		wb_limits_finish(&u->tune_pred);
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
	ui_tune_finish(u);
	if (!s || !u->lim_ok)
		return;
	key_of_entry(u, (size_t)u->tune_sel, key, sizeof(key));
	snprintf(arg, sizeof(arg), "%s=%s", key, u->tune_buf);
	if (wb_setop_parse(arg, s, &u->tune_op, u->tune_err, sizeof(u->tune_err)) ||
	    wb_settings_from_sample(&k, s))
		return;
	if (wb_settings_apply(&k, &u->lim, s->page_size, &u->tune_op, u->tune_err, sizeof(u->tune_err)) == 0) {
		u->tune_pred_ok = wb_model_eval(wb_ring_get(u->ring, 1), s, &k, &u->lim, 0, &u->tune_pred) == 0;
		u->tune_ok = u->tune_pred_ok;
		u->tune_err[0] = '\0';
		if (u->tune_pred_ok)
			forecast(u, &k);
	}
	wb_settings_finish(&k);
}

/* Warnings for the previewed change. */
static int warnings(const struct ui *u, const char **w, char buf[][160], int max)
{
	const struct wb_setop *op = &u->tune_op;
	const struct wb_sample *s = cur(u);
	int n = 0;

	if (!op->is_bdi && op->knob == WB_SYS_DIRTY_RATIO && s->sys[WB_SYS_DIRTY_BYTES] && n < max)
		w[n++] = "writing the ratio clears vm.dirty_bytes (the kernel keeps one of the pair)";
	if (!op->is_bdi && op->knob == WB_SYS_DIRTY_BYTES && s->sys[WB_SYS_DIRTY_RATIO] && n < max)
		w[n++] = "writing bytes clears vm.dirty_ratio";
	if (!op->is_bdi && op->knob == WB_SYS_BG_RATIO && s->sys[WB_SYS_BG_BYTES] && n < max)
		w[n++] = "writing the ratio clears vm.dirty_background_bytes";
	if (!op->is_bdi && op->knob == WB_SYS_BG_BYTES && s->sys[WB_SYS_BG_RATIO] && n < max)
		w[n++] = "writing bytes clears vm.dirty_background_ratio";
	for (size_t i = 0; u->tune_pred_ok && i < u->tune_pred.nbdis && n < max; i++) {
		const struct wb_bdi_limits *p = &u->tune_pred.bdis[i];
		if (p->dirty_known && p->wb_dirty > p->thresh && p->wb_dirty > 0) {
			snprintf(buf[n], 160, "%s's threshold would fall below what is dirty now: its writers will stall",
				 p->name);
			w[n] = buf[n];
			n++;
		}
	}
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
	char l[256], a[16], b[16];

	snprintf(l, sizeof(l), "APPLIED %s: predicted vs the kernel now (error in pages)", u->tune_applied);
	put(u, y++, 0, WB_R_TITLE, l);
	if (WB_HAS(s->g.valid, WB_G_DIRTY_THRESH) && y < end) {
		snprintf(l, sizeof(l), "  dirty thresh   %8s  kernel %8s  %+lld", wb_fmt_bytes(a, 16, n->thresh * P),
			 wb_fmt_bytes(b, 16, s->g.v[WB_G_DIRTY_THRESH] * P),
			 (long long)s->g.v[WB_G_DIRTY_THRESH] - (long long)n->thresh);
		put(u, y++, 0, WB_R_NORMAL, l);
	}
	if (WB_HAS(s->g.valid, WB_G_BG_THRESH) && y < end) {
		snprintf(l, sizeof(l), "  background     %8s  kernel %8s  %+lld", wb_fmt_bytes(a, 16, n->bg * P),
			 wb_fmt_bytes(b, 16, s->g.v[WB_G_BG_THRESH] * P),
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
			 wb_fmt_bytes(a, 16, n->bdis[i].thresh * P), wb_fmt_bytes(b, 16, d->st[WB_B_THRESH] * P),
			 (long long)d->st[WB_B_THRESH] - (long long)n->bdis[i].thresh);
		put(u, y++, 0, WB_R_NORMAL, l);
	}
	return y;
}

void ui_draw_tune(struct ui *u, int y, int h, void (*put)(const struct ui *, int, int, enum wb_role, const char *))
{
	const struct wb_sample *s = cur(u);
	const struct wb_bdi *b = tune_bdi(u);
	int end = y + h;
	char l[256], v[32], a[16], c[16];
	double P = s->page_size;

	snprintf(l, sizeof(l), "KNOB                          CURRENT      RANGE                per-device knobs: %s",
		 b ? b->name : "(select a device in pane 1)");
	put(u, y++, 0, WB_R_TITLE, l);
	for (size_t i = 0; i < wb_knob_count() && y < end; i++) {
		const char *name, *range, *help;
		bool is_bdi;
		int knob;

		wb_knob_info(i, &name, &is_bdi, &knob, &range, &help);
		current(u, i, v, sizeof(v));
		snprintf(l, sizeof(l), "%s%-27s %10s      %-20s %s", is_bdi ? "  bdi." : "  vm.", name, v, range,
			 (int)i == u->tune_sel ? help : "");
		put(u, y++, 0, (int)i == u->tune_sel ? WB_R_SELECTED : WB_R_NORMAL, l);
	}
	y++;
	if (u->tune_trial_end > 0) {
		snprintf(l, sizeof(l), "TRIAL: %s  - the old values come back in %.0f s: k keeps, u reverts now",
			 u->tune_applied, u->tune_trial_end - u->now);
		put(u, y++, 0, WB_R_CRITICAL, l);
	}
	if (u->tune_editing) {
		char key[128];
		key_of_entry(u, (size_t)u->tune_sel, key, sizeof(key));
		snprintf(l, sizeof(l), "new value for %s: %s_   (units: 64M, 5%%; Enter previews, Esc cancels)", key,
			 u->tune_buf);
		put(u, y++, 0, WB_R_TITLE, l);
	} else if (!u->tune_buf[0]) {
		put(u, y++, 0, WB_R_HINT, "Enter: type a value (+/-: step it) and see the prediction   "
					  "a: apply (root)   u: undo   R: revert all");
	}
	if (u->tune_err[0]) {
		snprintf(l, sizeof(l), "refused: %s", u->tune_err);
		put(u, y++, 0, WB_R_CRITICAL, l);
	}
	if (u->tune_verify && u->tune_pred_ok && y < end)
		y = verify(u, y, end, put);
	if (u->tune_ok && y < end) {
		const struct wb_limits *n = &u->tune_pred, *o = &u->lim;
		const char *w[8];
		char wb[8][160];
		int nw = warnings(u, w, wb, 8);

		snprintf(l, sizeof(l), "PREDICTED %s=%s (nothing written yet%s)", u->tune_op.key, u->tune_buf,
			 !u->o->can_apply ? "; preview only: not the live kernel"
			 : geteuid() ? "; preview only: applying needs root" : "; a applies");
		put(u, y++, 0, WB_R_THRESHOLD, l);
		snprintf(l, sizeof(l), "  dirty thresh %s -> %s   background %s -> %s",
			 wb_fmt_bytes(a, 16, o->thresh * P), wb_fmt_bytes(c, 16, n->thresh * P),
			 wb_fmt_bytes(v, 16, o->bg * P), wb_fmt_bytes(wb[7], 16, n->bg * P));
		put(u, y++, 0, WB_R_THRESHOLD, l);
		if (u->tune_confirm) {
			snprintf(l, sizeof(l), "apply %s=%s for a %d s trial? y/n", u->tune_op.key, u->tune_buf, TRIAL_S);
			put(u, y++, 0, WB_R_CRITICAL, l);
		}
		put(u, y++, 0, WB_R_TITLE, "  DEVICE     THRESH now -> new     STATE now -> new         DRAIN   WRITERS  "
					   "BG WAKE/m");
		for (size_t i = 0; i < n->nbdis && i < o->nbdis && y < end - nw; i++) {
			const struct wb_bdi_limits *x = &o->bdis[i], *z = &n->bdis[i];
			char t1[16], t2[16], d1[16], r1[24];
			double w0 = -1, w1 = -1;
			if (u->tune_fc_ok && i < u->tune_fc[0].nbdis && i < u->tune_fc[1].nbdis) {
				w0 = u->tune_fc[0].bdis[i].bg_flushes_per_min;
				w1 = u->tune_fc[1].bdis[i].bg_flushes_per_min;
			}
			wb_fmt_bytes(t1, 16, x->thresh * P);
			wb_fmt_bytes(t2, 16, z->thresh * P);
			if (!strcmp(t1, t2) && x->state == z->state && lround(w0) == lround(w1))
				continue; /* no change one can see */
			if (u->tune_fc_ok && i < u->tune_fc[1].nbdis && u->tune_fc[1].bdis[i].dirty_rate_in == 0)
				snprintf(r1, sizeof(r1), "idle"); /* no writer: no rate to show */
			else if (z->pos_ratio < 0)
				snprintf(r1, sizeof(r1), "free");
			else if (z->task_ratelimit == 0)
				snprintf(r1, sizeof(r1), "stalled");
			else
				snprintf(r1, sizeof(r1), "%s/s", wb_fmt_bytes(d1, 16, (double)z->task_ratelimit * P));
			snprintf(l, sizeof(l), "  %-10s %7s -> %-7s  %-10s -> %-10s %6s  %8s  ", z->name, t1, t2,
				 wb_bdi_state_names[x->state], wb_bdi_state_names[z->state],
				 z->drain_s >= 0 ? (snprintf(d1, 16, "%.1fs", z->drain_s), d1) : "n/a", r1);
			if (w0 >= 0)
				snprintf(l + strlen(l), sizeof(l) - strlen(l), "%3.0f -> %.0f", w0, w1);
			else
				snprintf(l + strlen(l), sizeof(l) - strlen(l), "n/a");
			put(u, y++, 0, z->state >= WB_ST_THROTTLED ? WB_R_WARN : WB_R_NORMAL, l);
		}
		for (int i = 0; i < nw && y < end; i++) {
			snprintf(l, sizeof(l), "  ! %s", w[i]);
			put(u, y++, 0, WB_R_WARN, l);
		}
	}
}

/* Revert the newest applied change (trial or kept). */
static void undo(struct ui *u)
{
	char err[256];

	if (u->tune_nstack == 0) {
		snprintf(u->status, sizeof(u->status), "nothing to undo");
		return;
	}
	if (wb_tune_revert(&u->tune_stack[--u->tune_nstack], err, sizeof(err)))
		snprintf(u->status, sizeof(u->status), "undo: %.180s", err);
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
	if (u->src && u->src->annotate)
		u->src->annotate(u->src->ctx, u->tune_applied);
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

/* + / -: step the proposed value (from the typed one, else the current) and preview it. */
static void step(struct ui *u, int ch)
{
	const char *name, *range, *help;
	bool is_bdi;
	int knob;
	char cur[32], *end;
	unsigned long long v, st;

	wb_knob_info((size_t)u->tune_sel, &name, &is_bdi, &knob, &range, &help);
	v = strtoull(u->tune_buf, &end, 10);
	if (!u->tune_buf[0] || *end) { /* nothing typed, or a value with units: start from now */
		current(u, (size_t)u->tune_sel, cur, sizeof(cur));
		v = strtoull(cur, &end, 10);
		if (*end)
			return; /* not known at this level */
	}
	st = knob_step(name);
	if (st == 0)
		v = ch == '+';
	else if (ch == '+')
		v += st;
	else
		v = v > st ? v - st : 0;
	snprintf(u->tune_buf, sizeof(u->tune_buf), "%llu", v);
	preview(u);
}

/* Keys of the tune pane; true when the key was used. */
bool ui_tune_key(struct ui *u, int ch)
{
	size_t n = strlen(u->tune_buf);

	if (u->tune_confirm) {
		if (ch == 'y' || ch == 'Y')
			apply(u);
		else
			u->tune_confirm = false;
		return true;
	}
	if (u->tune_editing) {
		if (ch == 27) {
			u->tune_editing = false;
			u->tune_buf[0] = '\0';
			u->tune_err[0] = '\0';
			u->tune_ok = false;
		} else if (ch == '\n' || ch == KEY_ENTER) {
			u->tune_editing = false;
			preview(u);
		} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n) {
			u->tune_buf[n - 1] = '\0';
		} else if (ch > 32 && ch < 127 && n + 1 < sizeof(u->tune_buf)) {
			u->tune_buf[n] = (char)ch;
			u->tune_buf[n + 1] = '\0';
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
		else if (geteuid() != 0 || !u->o->can_apply)
			snprintf(u->status, sizeof(u->status), "%s", !u->o->can_apply
				 ? "preview only: this is not the live kernel (replay or --root)"
				 : "preview only: applying needs root (run wbtop as root)");
		else
			u->tune_confirm = true;
		return true;
	case 'k':
		if (u->tune_trial_end > 0) {
			wb_tune_confirm(&u->tune_stack[u->tune_nstack - 1]);
			u->tune_trial_end = 0;
			snprintf(u->status, sizeof(u->status), "kept %.180s", u->tune_applied);
		}
		return true;
	case '+': case '=': case '-': step(u, ch); return true;
	case 'u': undo(u); return true;
	case 'R': ui_tune_revert_all(u); snprintf(u->status, sizeof(u->status), "every change reverted"); return true;
	}
	return false;
}
