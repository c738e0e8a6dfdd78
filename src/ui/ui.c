// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The UI loop: sample, model, draw; keys from one table. The terminal is
 * restored on every exit path (q, signals, fatal errors).
 */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <termios.h>
#include <unistd.h>

#include "ui_internal.h"
#include "wbtop/layout.h"
#include "wbtop/util.h"
#include "wbtop/signals.h"
#include "wbtop/whatif.h"

#define RING_SAMPLES 600   /* 10 minutes at 1 Hz for sparklines and rates */
#define GRAPH_POINTS 4096  /* the Graph pane's timeline: over an hour at 1 Hz, then merged */

static volatile sig_atomic_t curses_on;

/* A crash must not leave the terminal raw (wb_signals_install's handler calls this). */
static void restore_terminal(void)
{
	if (curses_on)
		endwin();
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Show the pipeline's newest view: the model's output as the panes read it. */
static void take_view(struct ui *u)
{
	const struct wb_view *v = wb_pipeline_view(u->pl);

	u->view = v;
	u->lim_ok = v && v->lim && v->lim->valid;
	u->whatif_ok = u->lim_ok && v->whatif;
	memset(&u->lim, 0, sizeof(u->lim));
	memset(&u->whatif, 0, sizeof(u->whatif));
	if (u->lim_ok)
		u->lim = *v->lim;
	if (u->whatif_ok)
		u->whatif = *v->whatif;
}

int ui_push(struct ui *u, const struct wb_sample *s)
{
	char err[256];
	int rc = wb_pipeline_push(u->pl, s, err, sizeof(err));

	if (rc == -EINVAL)
		snprintf(u->status, sizeof(u->status), "what-if: %.180s", err);
	take_view(u);
	if (!u->day0[0] && isfinite(s->wall))
		wb_fmt_clock(s->wall, "%Y-%m-%d", u->day0, sizeof(u->day0));
	/* the rows point into the samples: made again from this one before the Tune pane's
	 * refresh or a key reads them (after a seek they pointed into freed samples) */
	if (u->view)
		ui_build_rows(u);
	ui_tune_refresh(u);
	if (rc != -ENOMEM)
		ui_log_events(u, s);
	return rc == -EINVAL ? 0 : rc;
}

void ui_resync(struct ui *u)
{
	size_t n;

	if (wb_pipeline_resync(u->pl, u->src))
		snprintf(u->status, sizeof(u->status), "seek: the recording could not be read back");
	u->view = NULL;
	/* the samples the rows pointed into are gone: the rows keep their names (the selection
	 * follows by name), not the pointers, until the next sample builds them again */
	for (int k = 0; k < u->nrows; k++)
		u->rows[k].b = NULL, u->rows[k].bl = NULL, u->rows[k].d = NULL;
	u->lim_ok = u->whatif_ok = false;
	u->log_len = u->log_head = 0;
	n = wb_ring_len(u->ring);
	while (n--)
		ui_log_events(u, wb_ring_get(u->ring, n));
}

void ui_log_events(struct ui *u, const struct wb_sample *s)
{
	int cap = (int)(sizeof(u->log) / sizeof(u->log[0]));

	const struct wb_sample *oldest = wb_ring_get(u->ring, wb_ring_len(u->ring) - 1);

	/* the log holds the events of the samples in the window, as a seek rebuilds it */
	while (u->log_len && oldest && u->log_mono[u->log_head] < oldest->mono) {
		u->log_head = (u->log_head + 1) % cap;
		u->log_len--;
	}
	if (!s->ev_valid)
		return;
	memcpy(u->log_names, s->reason_names, sizeof(u->log_names));
	for (size_t i = 0; i < s->nevents; i++) {
		int at = (u->log_head + u->log_len) % cap;
		u->log[at] = s->events[i];
		u->log_mono[at] = s->mono;
		if (u->log_len < cap)
			u->log_len++;
		else
			u->log_head = (u->log_head + 1) % cap;
	}
}

int ui_take_sample(struct ui *u)
{
	struct wb_source *src = u->src;
	struct wb_sample s;
	int rc;

	wb_sample_init(&s);
	rc = src->read(src->ctx, &s);
	if (rc == 0 && u->procs_samples < 2)
		u->procs_samples++;
	if (rc == 0 && ui_push(u, &s))
		snprintf(u->status, sizeof(u->status), "out of memory");
	wb_sample_finish(&s);
	if (rc == 0 && wb_pipeline_diag(u->pl)->n && !u->status[0]) /* a sink that stopped: every frame */
		snprintf(u->status, sizeof(u->status), "%.190s", wb_pipeline_diag(u->pl)->msg[0]);
	if (rc == 0 && wb_pipeline_warnings(u->pl)->n && !u->status[0]) /* one it retries (the textfile) */
		snprintf(u->status, sizeof(u->status), "%.190s", wb_pipeline_warnings(u->pl)->msg[0]);
	u->diag = src->diag ? src->diag(src->ctx) : NULL;
	if (u->diag && u->diag->n && !u->status[0])
		snprintf(u->status, sizeof(u->status), "%.190s", u->diag->msg[0]);
	return rc;
}

/* ---- keys ---- */

/* The replay's position after a seek or a step: rebuild the window and show the sample now. */
static void replay_show(struct ui *u)
{
	ui_resync(u);
	u->ended = false;
	if (ui_take_sample(u) != 0)
		u->ended = true;
	u->delay = u->src->interval / u->speed;
}

static void k_quit(struct ui *u, int ch) { (void)ch; u->quit = true; }
static void k_help(struct ui *u, int ch) { (void)ch; u->help = true; }
static void k_pane(struct ui *u, int ch)
{
	enum pane was = u->pane;

	if (ch == '\t')
		u->pane = (u->pane + 1) % P_COUNT;
	else if (ch == KEY_BTAB)
		u->pane = (u->pane + P_COUNT - 1) % P_COUNT;
	else if (ch == '\n' || ch == KEY_ENTER)
		u->pane = u->pane == P_DEVICES ? P_GRAPH : u->pane;
	else
		u->pane = (enum pane)(ch - '1');
	if (u->pane == was && (ch == '\n' || ch == KEY_ENTER))
		snprintf(u->status, sizeof(u->status), "Enter opens the selected device's Graph from the Devices pane");
	if ((was == P_GRAPH) != (u->pane == P_GRAPH))
		ui_graph_shown(u, u->pane == P_GRAPH);
	if (u->tune_stale)
		ui_tune_refresh(u);
}
/* Devices pane: edit the selected device's knobs (the tune pane at its first per-BDI knob). */
static void k_edit(struct ui *u, int ch)
{
	const char *name, *range, *help;
	bool is_bdi;
	int knob;

	(void)ch;
	if (u->pane != P_DEVICES) {
		snprintf(u->status, sizeof(u->status), "e edits the selected device's knobs from the Devices pane");
		return;
	}
	u->pane = P_TUNE;
	for (size_t i = 0; i < wb_knob_count(); i++) {
		wb_knob_info(i, &name, &is_bdi, &knob, &range, &help);
		if (is_bdi) {
			u->tune_sel = (int)i;
			break;
		}
	}
	u->tune_ok = false;
	u->tune_buf[0] = '\0';
}
/* A replay cut by --from/--to: its range is not the whole recording. */
static bool range_cut(const struct ui *u)
{
	double t, len;
	size_t i, n;

	u->src->where(u->src->ctx, &t, &len, &i, &n);
	return u->src->range_from > 1e-6 || u->src->range_to < len - 1e-6;
}

/* Home/End in a replay: the first or last sample of the range replayed. */
static void replay_ends(struct ui *u, int ch)
{
	double t, len;
	size_t i, n;

	u->src->where(u->src->ctx, &t, &len, &i, &n);
	u->src->seek(u->src->ctx, ch == KEY_HOME ? 0 : len);
	replay_show(u);
	snprintf(u->status, sizeof(u->status), "%s of the %s", ch == KEY_HOME ? "start" : "end",
		 range_cut(u) ? "range (--from/--to)" : "recording");
}
static void k_move(struct ui *u, int ch)
{
	int page = ui_lines(u) > 16 ? ui_lines(u) - 12 : 4;

	if ((ch == KEY_HOME || ch == KEY_END) && u->src && u->src->replay) {
		replay_ends(u, ch);
		return;
	}
	/* the Zones and Processes tables have their own cursors; the others move the Devices rows' */
	int *sel = u->pane == P_ZONES ? &u->zone_sel : u->pane == P_PROCS ? &u->proc_sel : &u->sel;
	int n = ui_table_rows(u), was = *sel;

	/*
	 * On Flusher the device rows are few and the event log long: PgUp/PgDn
	 * scroll the log (clamped as it is drawn), Up/Down select, as elsewhere
	 * (one key did both: three Ups moved the cursor and hid three events)
	 */
	if (u->pane == P_FLUSHER && (ch == KEY_PPAGE || ch == KEY_NPAGE)) {
		u->log_scroll = ch == KEY_PPAGE ? u->log_scroll + page : u->log_scroll > page ? u->log_scroll - page : 0;
		return;
	}
	switch (ch) {
	case KEY_UP: (*sel)--; break;
	case KEY_DOWN: (*sel)++; break;
	case KEY_PPAGE: *sel -= page; break;
	case KEY_NPAGE: *sel += page; break;
	case KEY_HOME: *sel = 0; break;
	case KEY_END: *sel = n - 1; break;
	}
	if (*sel >= n)
		*sel = n - 1;
	if (*sel < 0)
		*sel = 0;
	if (*sel == was && u->pane != P_FLUSHER) /* at an end: say so rather than nothing */
		snprintf(u->status, sizeof(u->status), n ? "%s row of %d" : "no rows", was ? "last" : "first", n);
}

/* The Processes pane's columns (the catalogue's, as the pane shows them); how many. */
static size_t proc_columns(const struct wb_field **col, size_t max)
{
	size_t n;
	const struct wb_field *t = wb_catalog_proc(&n);

	return wb_catalog_columns(t, n, WB_SINK_UI, col, max);
}

static const char *const pane_names[P_COUNT] = { "Devices", "Zones", "Flusher", "Processes", "Tune", "Graph" };

/*
 * s / S: the current pane's table (Devices rows also order Tune and Graph);
 * ch 0 with `at`: a click on the title of column `at` (again: the other way).
 */
static void k_sort_at(struct ui *u, int ch, int at)
{
	const struct wb_field *col[8];
	size_t m = proc_columns(col, 8);

	if (u->pane == P_PROCS) {
		const struct wb_sample *cur = ui_cur(u);

		/* a recording or a source without one: it said "sorted by CANCEL/s" over a pane with no
		 * table (live, the first read after the pane is shown has none yet: sorted as asked) */
		if (cur && !cur->procs_valid && (!u->src || !u->src->procs || u->src->replay)) {
			snprintf(u->status, sizeof(u->status), "nothing to sort: no process table here");
			return;
		}
		if (ch == 'S' || (!ch && at == u->proc_sort_col))
			u->proc_sort_desc = !u->proc_sort_desc;
		else if (!ch && at >= 0 && at < (int)m) {
			u->proc_sort_col = at;
			u->proc_sort_desc = !col[at]->left;
		} else if (m) {
			int k = 0;
			do /* the next column shown */
				u->proc_sort_col = (u->proc_sort_col + 1) % (int)m;
			while (ui_column_hidden(u, WB_TABLE_PROCS, u->proc_sort_col) && ++k < (int)m);
			u->proc_sort_desc = !col[u->proc_sort_col]->left;
		}
		snprintf(u->status, sizeof(u->status), "processes sorted by %s %s",
			 m ? col[u->proc_sort_col]->title : "-", u->proc_sort_desc ? "(descending)" : "(ascending)");
		return;
	}
	if (ch == 'S' || (!ch && at == u->sort_col)) {
		u->sort_desc = !u->sort_desc;
	} else if (!ch && at >= 0 && at < ui_dev_columns()) {
		u->sort_col = at;
		u->sort_desc = u->sort_col > 1;
	} else {
		int k = 0;
		do /* the next column shown (not one the width or a missing --set leaves out: sorted unseen) */
			u->sort_col = (u->sort_col + 1) % ui_dev_columns();
		while (!ui_dev_column_fits(u, u->sort_col) && ++k < ui_dev_columns());
		/* numbers read best largest first, names A-Z */
		u->sort_desc = u->sort_col > 1;
	}
	snprintf(u->status, sizeof(u->status), "sorted by %s %s", ui_dev_column_name(u->sort_col),
		 u->sort_desc ? "(descending)" : "(ascending)");
}

static void k_sort(struct ui *u, int ch)
{
	k_sort_at(u, ch, -1);
}

/* Devices by name; Processes top writers first (write rate, descending). */
void ui_sort_defaults(struct ui *u)
{
	const struct wb_field *col[8];
	size_t m = proc_columns(col, 8);

	u->sort_col = 0;
	u->sort_desc = false;
	for (size_t c = 0; c < m; c++)
		if (col[c]->key && strcmp(col[c]->key, "write_rate") == 0) {
			u->proc_sort_col = (int)c;
			u->proc_sort_desc = true;
		}
}

char *ui_filter(struct ui *u)
{
	return u->pane == P_PROCS ? u->proc_filter : u->filter;
}

/* The Flusher's rows are the Devices pane's, in its filter (its tab line shows it, Esc clears it). */
static void k_filter(struct ui *u, int ch)
{
	(void)ch;
	u->filtering = true;
}
/* Esc: clear the current pane's applied filter (not on Zones: it cleared the Devices pane's unseen). */
static void k_unfilter(struct ui *u, int ch)
{
	char *f = ui_filter(u);

	(void)ch;
	if (u->pane == P_TUNE && (u->tune_ok || u->tune_verify)) { /* its preview, and the Graph's "if changed" */
		ui_tune_finish(u);
		u->tune_ok = false;
		snprintf(u->status, sizeof(u->status), "preview dropped");
		return;
	}
	snprintf(u->status, sizeof(u->status), f[0] ? "filter cleared" : "no filter to clear");
	f[0] = '\0';
}

/* Is process x shown under filter f (a part of its name, or its pid)? */
static bool proc_match(const struct wb_proc *x, const char *f)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", x->pid);
	return !f[0] || strstr(x->comm, f) || strcmp(pid, f) == 0;
}

static const struct ui *proc_ui;
static const struct wb_sample *proc_s;

/* A process's sort key in the current column: a number (unknown lowest), or its text in *txt. */
static double proc_key(size_t i, const char **txt, char *tmp, size_t n)
{
	const struct wb_field *col[8];
	size_t m = proc_columns(col, 8);
	struct wb_fctx c = { .v = proc_ui->view, .s = proc_s, .l = proc_ui->view ? proc_ui->view->lim : NULL,
			     .i = i };
	const struct wb_field *f;
	struct wb_value x;

	*txt = NULL;
	if (!m)
		return 0;
	f = col[proc_ui->proc_sort_col % (int)m];
	x = f->get(&c);
	if (f->unit == WB_U_TEXT) {
		snprintf(tmp, n, "%s", x.known ? wb_value_text(&x) : "~");
		*txt = tmp;
		return 0;
	}
	if (!x.known)
		return -1;
	if (f->json == WB_J_SINT)
		return (double)x.i;
	return f->unit == WB_U_BYTES || f->unit == WB_U_COUNT || f->unit == WB_U_FLAG ? (double)x.u : x.d;
}

static int proc_cmp(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	char ta[80], tb[80];
	const char *sa, *sb;
	double ka = proc_key(i, &sa, ta, sizeof(ta)), kb = proc_key(j, &sb, tb, sizeof(tb));
	int r = sa && sb ? strcmp(sa, sb) : (ka > kb) - (ka < kb);

	if (r == 0)
		r = (i > j) - (i < j);
	return proc_ui->proc_sort_desc ? -r : r;
}

const size_t *ui_proc_rows(struct ui *u, const struct wb_sample *s, size_t *n)
{
	size_t k = 0;

	*n = 0;
	if (s->nprocs > u->proc_cap) {
		size_t *p = realloc(u->proc_idx, s->nprocs * sizeof(*p));
		if (!p)
			return u->proc_idx;
		u->proc_idx = p;
		u->proc_cap = s->nprocs;
	}
	for (size_t i = 0; i < s->nprocs; i++)
		if (proc_match(&s->procs[i], u->proc_filter))
			u->proc_idx[k++] = i;
	proc_ui = u;
	proc_s = s;
	if (k)
		qsort(u->proc_idx, k, sizeof(*u->proc_idx), proc_cmp);
	*n = k;
	return u->proc_idx;
}

static void k_idle(struct ui *u, int ch)
{
	(void)ch;
	u->hide_idle = !u->hide_idle;
	snprintf(u->status, sizeof(u->status), "idle devices %s", u->hide_idle ? "hidden" : "shown");
}
static void k_loop(struct ui *u, int ch)
{
	(void)ch;
	u->hide_loop = !u->hide_loop;
	snprintf(u->status, sizeof(u->status), "loop devices %s", u->hide_loop ? "hidden" : "shown");
}
static void k_freeze(struct ui *u, int ch)
{
	(void)ch;
	u->frozen = !u->frozen;
	snprintf(u->status, sizeof(u->status), "%s", u->frozen ? (u->src && u->src->replay ? "paused" : "frozen")
								: "running");
}
/* Live + / -: faster / slower, i.e. a shorter / longer delay between samples. */
static void k_rate(struct ui *u, int ch)
{
	static const double steps[] = { 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60 };
	int n = (int)(sizeof(steps) / sizeof(steps[0])), i = 0;
	bool faster = ch == '+' || ch == '=';

	while (i < n - 1 && steps[i] < u->delay - 1e-9) /* the first step from the delay on, or the last */
		i++;
	if (faster && i > 0 && steps[i] >= u->delay - 1e-9)
		i--;
	else if (ch == '-' && i < n - 1 && steps[i] <= u->delay + 1e-9)
		i++;
	double was = u->delay;

	/* a delay past the steps' ends (-d 100, -d 0.07) is kept, not stepped the other way: - went to 60 s */
	if (faster ? steps[i] <= u->delay + 1e-9 : steps[i] >= u->delay - 1e-9)
		u->delay = steps[i];
	/* at an end: say so, as the Graph pane's zoom does (it repeated "sampling every 0.1s") */
	snprintf(u->status, sizeof(u->status), u->delay == was ? "sampling every %gs (no %s step; -d sets any)"
								 : "sampling every %gs",
		 u->delay, faster ? "shorter" : "longer");
}

/* Were the writers of BDI name throttled (paused) in s? */
static bool paused_on(const struct wb_sample *s, const char *name)
{
	for (size_t b = 0; s && b < s->nbdis; b++)
		if (s->bdis[b].ev.pauses > 0 && strcmp(s->bdis[b].name, name) == 0)
			return true;
	return false;
}

/*
 * What the shown sample holds that n/N looked for: a note made there, or the throttled
 * devices and why the episode starts there (after a quiet sample, a device newly throttled,
 * or throttling going on: n stops every 30 s of it).
 */
static void say_found(struct ui *u)
{
	const struct wb_sample *s = ui_cur(u), *prev = u->view ? u->view->prev : NULL;
	double t, len, nt = -1;
	size_t i, n, len0;
	const char *note = u->src->note ? u->src->note(u->src->ctx, &nt) : NULL;
	char tm[16], dev[48], fresh[96] = "";
	bool was = false;

	u->src->where(u->src->ctx, &t, &len, &i, &n);
	if (!s)
		return;
	if (note && fabs(nt - t) < u->src->interval / 2 + 1e-6) {
		snprintf(u->status, sizeof(u->status), "note: %.180s", note);
		return;
	}
	wb_fmt_clock(s->wall, "%H:%M:%S", tm, sizeof(tm));
	for (size_t b = 0; prev && b < prev->nbdis; b++)
		was |= prev->bdis[b].ev.pauses > 0;
	snprintf(u->status, sizeof(u->status), "throttling on");
	for (size_t b = 0; b < s->nbdis; b++) {
		if (s->bdis[b].ev.pauses == 0 || (len0 = strlen(u->status)) >= 100)
			continue;
		ui_dev_label(&s->bdis[b], dev, sizeof(dev));
		snprintf(u->status + len0, sizeof(u->status) - len0, " %s", dev);
		if (was && !paused_on(prev, s->bdis[b].name) && strlen(fresh) + strlen(dev) + 2 < sizeof(fresh))
			snprintf(fresh + strlen(fresh), sizeof(fresh) - strlen(fresh), "%s%s", fresh[0] ? " " : "", dev);
	}
	len0 = strlen(u->status);
	if (len0 == strlen("throttling on"))
		snprintf(u->status, sizeof(u->status), "at %s: no throttling or note here", tm);
	else if (fresh[0])
		snprintf(u->status + len0, sizeof(u->status) - len0, " at %s (new: %.40s)", tm, fresh);
	else if (was)
		snprintf(u->status + len0, sizeof(u->status) - len0, " at %s (still: n stops every 30 s of it)", tm);
	else
		snprintf(u->status + len0, sizeof(u->status) - len0, " at %s", tm);
}

/*
 * N: move to the throttling episode or note before the shown sample, found by
 * walking n from the start; 0, or -1 (none: back where it was). The caller shows it.
 */
static int replay_prev_event(struct ui *u)
{
	struct wb_source *src = u->src;
	double t, len, t_prev = -1, shown;
	size_t i, n;
	struct wb_sample s;

	src->where(src->ctx, &shown, &len, &i, &n);
	src->seek(src->ctx, 0);
	wb_sample_init(&s);
	if (src->read(src->ctx, &s) == 0) /* n looks after the sample last read */
		while (src->next_event(src->ctx) == 0 && src->read(src->ctx, &s) == 0) {
			src->where(src->ctx, &t, &len, &i, &n);
			if (t >= shown - 1e-6)
				break;
			t_prev = t;
		}
	wb_sample_finish(&s);
	src->seek(src->ctx, t_prev < 0 ? shown : t_prev);
	return t_prev < 0 ? -1 : 0;
}

/* , : one sample back, through the exact-seek path (rebuild the window, then read it). */
static void replay_back(struct ui *u)
{
	double t, len;
	size_t i, n;

	u->src->where(u->src->ctx, &t, &len, &i, &n);
	u->frozen = true;
	if (t <= u->src->range_from + 1e-6) { /* not before --from: the rewind is the pipeline's */
		snprintf(u->status, sizeof(u->status), "at the %s first sample", range_cut(u) ? "range's" : "recording's");
		return;
	}
	if (u->src->rewind(u->src->ctx, 2) < 2)
		snprintf(u->status, sizeof(u->status), "at the recording's first sample");
	replay_show(u);
}

/* . : one sample forward, paused. */
static void replay_step(struct ui *u)
{
	u->frozen = true;
	if (ui_take_sample(u) != 0) {
		u->ended = true;
		snprintf(u->status, sizeof(u->status), "at the recording's last sample");
	}
}

/* n / N: the next / previous throttling episode or note, and what it is. */
static void replay_find(struct ui *u, int ch)
{
	int rc = ch == 'n' ? u->src->next_event(u->src->ctx) : replay_prev_event(u);

	if (rc == 0 || ch == 'N') /* N without a find: back to the sample it left */
		replay_show(u);
	if (rc == 0)
		say_found(u);
	else
		snprintf(u->status, sizeof(u->status), "no %s throttling episode or note",
			 ch == 'n' ? "further" : "earlier");
}

/* Replay: speed, step, seek, next event, jump to a time. */
static void k_replay(struct ui *u, int ch)
{
	double t, len;
	size_t i, n;

	if (!u->src->replay) {
		k_rate(u, ch);
		return;
	}
	u->src->where(u->src->ctx, &t, &len, &i, &n);
	switch (ch) {
	case '+': case '=': case '>': u->speed = u->speed < 64 ? u->speed * 2 : 64; break;
	case '-': case '<': u->speed = u->speed > 0.25 ? u->speed / 2 : 0.25; break;
	case '.': replay_step(u); break;
	case ',': replay_back(u); break;
	/* to the sample nearest 10 s away: sample times jitter around the interval */
	case KEY_RIGHT: u->src->seek(u->src->ctx, t + 10 - u->src->interval / 2); replay_show(u); break;
	case KEY_LEFT: u->src->seek(u->src->ctx, t - 10 - u->src->interval / 2); replay_show(u); break;
	case 'n': case 'N': replay_find(u, ch); return;
	case 'g': u->jumping = true; u->jump[0] = '\0'; return;
	}
	u->delay = u->src->interval / u->speed;
	if (!u->status[0])
		snprintf(u->status, sizeof(u->status), "replay x%g%s", u->speed,
			 u->frozen ? " (paused: space resumes, . and , step)" : "");
}

static void k_theme(struct ui *u, int ch)
{
	char err[256];
	(void)ch;
	if (u->nthemes == 0) {
		snprintf(u->status, sizeof(u->status), "no other theme found");
		return;
	}
	u->theme_idx = (u->theme_idx + 1) % u->nthemes;
	if (wb_theme_load(&u->theme, u->themes[u->theme_idx], u->o->theme_dirs, err, sizeof(err)) == 0) {
		snprintf(u->theme_arg, sizeof(u->theme_arg), "%s", u->themes[u->theme_idx]);
		ui_apply_theme(u);
		snprintf(u->status, sizeof(u->status), "theme %s", u->theme.name);
	} else {
		snprintf(u->status, sizeof(u->status), "%.190s", err);
	}
}

/* W: the current settings into the settings file, as top does; says where. */
static void k_write(struct ui *u, int ch)
{
	struct wb_config c;
	char msg[sizeof(u->status)];

	(void)ch;
	if (!u->o->cfg_path) {
		snprintf(u->status, sizeof(u->status), "W: no settings file (set HOME or XDG_CONFIG_HOME)");
		return;
	}
	if (u->cfg)
		c = *u->cfg; /* anything the UI cannot change stays as read */
	else
		wb_config_init(&c);
	ui_columns_to_config(u, &c);
	/* the name or path it was loaded by: a --theme file's own [theme] name is no theme to
	 * load next time ("theme = x unusable") */
	size_t tl = strlen(u->theme_arg);
	if (tl < sizeof(c.theme)) /* a longer path: the file's theme line kept as it was */
		memcpy(c.theme, u->theme_arg, tl + 1);
	c.warn = u->o->warn_pct;
	c.crit = u->o->crit_pct;
	/* a replay's pace is the recording's, no setting: the delay a live run would sample at */
	c.delay = u->src && u->src->replay ? u->o->delay : u->delay;
	snprintf(c.sort, sizeof(c.sort), "%s", ui_dev_column_name(u->sort_col));
	c.sort_desc = u->sort_desc;
	c.hide_idle = u->hide_idle;
	c.hide_loop = u->hide_loop;
	wb_config_save(&c, u->o->cfg_path, msg, sizeof(msg));
	snprintf(u->status, sizeof(u->status), "%s", msg);
}

/* The settings file's sort, hidden devices and hidden columns, when the UI starts. */
static void apply_config(struct ui *u, const struct wb_config *c)
{
	if (!c)
		return;
	bool sort_found = !c->sort[0];

	for (int k = 0; c->sort[0] && k < ui_dev_columns(); k++)
		if (strcmp(ui_dev_column_name(k), c->sort) == 0) {
			u->sort_col = k;
			sort_found = true;
		}
	if (!sort_found && !u->cfg_warn[0]) {
		char safe[sizeof(u->cfg_warn)];
		snprintf(safe, sizeof(safe), "%s: sort = %.40s: no such column; sorted by device",
			 u->o->cfg_path ? u->o->cfg_path : "wbtoprc", c->sort);
		wb_safe_text(safe, u->cfg_warn, sizeof(u->cfg_warn)); /* the file's text: no escapes (stderr too) */
	}
	if (c->sort_desc >= 0)
		u->sort_desc = c->sort_desc;
	if (c->hide_idle >= 0)
		u->hide_idle = c->hide_idle;
	if (c->hide_loop >= 0)
		u->hide_loop = c->hide_loop;
	ui_columns_from_config(u, c);
}

const char *ui_origin(const struct ui *u)
{
	return u->src && u->src->replay && u->o->origin && u->o->origin[0] ? u->o->origin : NULL;
}

const char *ui_recording(const struct ui *u)
{
	const struct wb_pipeline_sink *k = u->o->record_sink;

	if (!u->o->record || !u->o->record[0] || (u->src && u->src->replay))
		return NULL;
	return k && k->error && k->error(k->ctx) ? NULL : u->o->record; /* stopped: the status line says why */
}

#define K_LIVE (UI_K_LIVE | UI_K_TREE) /* sampling: this machine's kernel or a --root tree */
#define K_ALL (K_LIVE | UI_K_REPLAY)
#define K_GRAPH (K_ALL | UI_K_GRAPH)
#define K_TUNE (K_ALL | UI_K_TUNE)
#define K_TUNE_LIVE (UI_K_LIVE | UI_K_TUNE) /* writes the kernel: not in a replay or on a --root tree, none to write */

static void k_graph(struct ui *u, int ch) { ui_graph_key(u, ch); }
/* The Tune pane's keys; PgUp/PgDn page the devices when there is no before/after table to scroll. */
static void k_tune(struct ui *u, int ch)
{
	if (!ui_tune_key(u, ch))
		k_move(u, ch);
}
static void k_columns(struct ui *u, int ch) { (void)ch; ui_columns_open(u); }
static void k_mouse(struct ui *u, int ch);

/* Every key binding once: its keys, its help, its footer word; help screen and footer are drawn from it. */
static const struct ui_binding bindings[] = {
	{ { 'q', 'Q', KEY_F(10) }, "q, F10", "quit", "q", "Quit", 10, 9, K_ALL, k_quit },
	{ { 'h', '?', KEY_F(1) }, "h, ?, F1", "this help", "F1", "Help", 1, 9, K_ALL, k_help },
	{ { '\t', KEY_BTAB, '1', '2', '3', '4', '5', '6' }, "Tab, 1-6", "switch pane", "Tab", "Pane", 2, 5, K_ALL, k_pane },
	{ { '\n', KEY_ENTER }, "Enter", "Devices: its Graph", NULL, NULL, 0, 0, K_ALL, k_pane },
	/* the Graph pane's own keys (< and > are the replay's speed elsewhere) */
	{ { '<', '>' }, "< / >", "Graph: zoom in/out", "<>", "Zoom", 4, 8, K_GRAPH, k_graph },
	{ { 'f', 'F' }, "f / F", "Graph: pin/unpin fcast", "f/F", "Pin", 5, 8, K_GRAPH, k_graph },
	{ { 'b' }, "b", "Graph: glyph set", "b", "Glyph", 6, 8, K_GRAPH, k_graph },
	{ { KEY_UP, KEY_DOWN }, "Up/Down", "select a row", NULL, NULL, 0, 0, K_ALL, k_move },
	{ { KEY_PPAGE, KEY_NPAGE }, "PgUp/PgDn", "page; Flusher: the events", NULL, NULL, 0, 0, K_ALL, k_move },
	{ { KEY_HOME, KEY_END }, "Home/End", "first/last, replay ends", NULL, NULL, 0, 0, K_ALL, k_move },
	{ { 's', 'S' }, "s / S", "sort this pane/reverse", "s/S", "Sort", 3, 4, K_ALL, k_sort },
	{ { '/' }, "/", "filter this pane", "/",
	  "Filter", 4, 3, K_ALL, k_filter },
	{ { 27 }, "Esc", "clear filter / preview", NULL, NULL, 0, 0, K_ALL, k_unfilter },
	{ { 'i' }, "i", "hide idle devices", "i", "Idle", 5, 2, K_ALL, k_idle },
	{ { 'l' }, "l", "hide loop devices", "l", "Loop", 6, 2, K_ALL, k_loop },
	{ { ' ' }, "space", "freeze the display", "Spc", "Freeze", 7, 6, K_LIVE, k_freeze },
	{ { '+', '=', '-' }, "+ / -", "faster/slower sampling", "+-", "Rate", 8, 4, K_LIVE,
	  k_replay },
	{ { 't' }, "t", "next theme", "t", "Theme", 9, 1, K_ALL, k_theme },
	{ { 'W' }, "W", "write the settings file", NULL, NULL, 0, 0, K_ALL, k_write },
	{ { 'e' }, "e", "edit the device's knobs", NULL, NULL, 0, 0, K_ALL, k_edit },
	{ { 'c', KEY_F(2) }, "c, F2", "show/hide columns", NULL, NULL, 0, 0, K_ALL, k_columns },
	{ { KEY_MOUSE }, "mouse", "tab/sort/select/scroll", NULL, NULL, 0, 0, K_ALL,
	  k_mouse },
	/* the Tune pane's own keys (+ and - step the value there, Enter and e type one) */
	{ { KEY_UP, KEY_DOWN }, "Up/Down", "Tune: choose a knob", NULL, NULL, 0, 0, K_TUNE, k_tune },
	{ { '\n', KEY_ENTER, 'e' }, "Enter, e", "Tune: type a value", "e", "Edit", 4, 8, K_TUNE, k_tune },
	{ { '+', '=', '-' }, "+ / -", "Tune: step the value", "+-", "Step", 8, 8, K_TUNE, k_tune },
	{ { 'a', 'k' }, "a / k", "Tune: apply/keep trial", "a/k", "Apply", 5, 8, K_TUNE_LIVE, k_tune },
	{ { 'u', 'R' }, "u / R", "Tune: undo / revert all", "u/R", "Undo", 6, 8, K_TUNE_LIVE, k_tune },
	{ { 'r' }, "r", "Tune: raw bytes or 80M", "r", "Raw", 7, 8, K_TUNE, k_tune },
	{ { KEY_PPAGE, KEY_NPAGE }, "PgUp/PgDn", "Tune: scroll the table", NULL, NULL, 0, 0, K_TUNE, k_tune },
	{ { ' ' }, "space", "pause / resume", "Spc", "Pause", 3, 7, UI_K_REPLAY, k_freeze },
	{ { '.', ',' }, ". / ,", "step forward / back", ".,", "Step", 3, 6, UI_K_REPLAY, k_replay },
	{ { '+', '=', '>', '-', '<' }, "+/- or >/<", "faster/slower playback", "+-", "Speed", 3, 4, UI_K_REPLAY,
	  k_replay },
	{ { KEY_LEFT, KEY_RIGHT }, "Left/Right", "seek 10 s back/forward", "Lt/Rt", "Seek", 3, 7, UI_K_REPLAY,
	  k_replay },
	{ { 'n', 'N' }, "n / N", "next/prev throttle/note", "n/N", "Next", 3, 6, UI_K_REPLAY,
	  k_replay },
	{ { 'g' }, "g", "jump: 23:18:40 or secs", "g", "Jump", 3, 7, UI_K_REPLAY, k_replay },
};

/*
 * The panes (1 << pane) where a binding's keys have nothing to act on, and what they lack:
 * a press there says so, and their footer does not offer the keys.
 */
static const struct {
	key_fn fn;
	unsigned panes;
	const char *lack;
} nothing_here[] = {
	{ k_sort, 1u << P_ZONES | 1u << P_FLUSHER, "no sortable table" },
	{ k_filter, 1u << P_ZONES, "nothing to filter" },
	{ k_unfilter, 1u << P_ZONES, "no filter" }, /* the Devices pane's, cleared unseen */
	/* the Devices rows' (also the Flusher's, Tune's and Graph's), toggled unseen */
	{ k_idle, 1u << P_ZONES | 1u << P_PROCS, "no device rows to hide" },
	{ k_loop, 1u << P_ZONES | 1u << P_PROCS, "no device rows to hide" },
};

/* What pane p lacks for binding b, or NULL where it acts. */
static const char *lack_of(const struct ui_binding *b, enum pane p)
{
	for (size_t i = 0; i < sizeof(nothing_here) / sizeof(nothing_here[0]); i++)
		if (nothing_here[i].fn == b->fn && (nothing_here[i].panes >> p & 1u))
			return nothing_here[i].lack;
	return NULL;
}

bool ui_binding_acts(const struct ui_binding *b, enum pane p)
{
	return !lack_of(b, p);
}

bool ui_binding_here(const struct ui_binding *b, enum pane p)
{
	if (b->when & UI_K_GRAPH)
		return p == P_GRAPH;
	if (b->when & UI_K_TUNE)
		return p == P_TUNE;
	return true;
}

/* Does a binding of the pane shown, for this source, take key ch (the Graph's < and >, Tune's + and -)? */
static bool pane_takes(const struct ui *u, int ch)
{
	unsigned mode = ui_key_mode(u);

	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++)
		for (size_t k = 0; k < UI_KEYS_MAX && bindings[i].keys[k]; k++)
			if ((bindings[i].when & UI_K_PANE) && (bindings[i].when & mode) &&
			    ui_binding_here(&bindings[i], u->pane) && bindings[i].keys[k] == ch)
				return true;
	return false;
}

/* Does an alternative of a label ("+/-") name a key the pane shown takes? Its one-character words are keys. */
static bool alt_taken(const struct ui *u, const char *alt, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		bool alone = (i == 0 || strchr(" /,", alt[i - 1])) && (i + 1 == len || strchr(" /,", alt[i + 1]));
		if (alone && !strchr(" /,", alt[i]) && pane_takes(u, (unsigned char)alt[i]))
			return true;
	}
	return false;
}

const char *ui_binding_label(const struct ui *u, const struct ui_binding *b, char *buf, size_t n)
{
	const char *p = b->label, *or;

	if (b->when & UI_K_PANE) /* a pane's own keys are what they say */
		return b->label;
	buf[0] = '\0';
	for (;; p = or + 4) { /* the label's alternatives ("+/- or >/<") that keep their keys */
		size_t len = (or = strstr(p, " or ")) ? (size_t)(or - p) : strlen(p);
		if (!alt_taken(u, p, len))
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%.*s", buf[0] ? " or " : "", (int)len, p);
		if (!or)
			return buf;
	}
}

unsigned ui_key_mode(const struct ui *u)
{
	if (u->src && u->src->replay)
		return UI_K_REPLAY;
	return u->o->apply == WB_UI_APPLY_LIVE ? UI_K_LIVE : UI_K_TREE;
}

size_t ui_bindings(const struct ui_binding **b)
{
	*b = bindings;
	return sizeof(bindings) / sizeof(bindings[0]);
}

/* The binding of key ch for this source (live or replay) and pane, or NULL: the pane's own keys first. */
static const struct ui_binding *binding_of(const struct ui *u, int ch)
{
	unsigned mode = ui_key_mode(u);

	for (int own = 1; own >= 0; own--)
		for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++) {
			if (!(bindings[i].when & mode) || !ui_binding_here(&bindings[i], u->pane) ||
			    !(bindings[i].when & UI_K_PANE) != !own)
				continue;
			for (size_t k = 0; k < UI_KEYS_MAX && bindings[i].keys[k]; k++)
				if (bindings[i].keys[k] == ch)
					return &bindings[i];
		}
	return NULL;
}

/*
 * A binding of key ch here for another source only (Tune's a in a replay or on a --root
 * tree, g live), or NULL: a press says whose key it is rather than nothing.
 */
static const struct ui_binding *other_source_binding(const struct ui *u, int ch)
{
	unsigned mode = ui_key_mode(u);

	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++) {
		if ((bindings[i].when & mode) || !ui_binding_here(&bindings[i], u->pane))
			continue;
		for (size_t k = 0; k < UI_KEYS_MAX && bindings[i].keys[k]; k++)
			if (bindings[i].keys[k] == ch)
				return &bindings[i];
	}
	return NULL;
}

/* The pane tab at column x of the tab line (as draw.c draws them: " N Name " and a space). */
static int tab_at(int x)
{
	static const char *const names[P_COUNT] = { "1 Devices", "2 Zones", "3 Flusher", "4 Processes",
						     "5 Tune", "6 Graph" };
	int at = 0;

	for (int i = 0; i < P_COUNT; i++) {
		int w = (int)strlen(names[i]) + 2;
		if (x >= at && x < at + w)
			return i;
		at += w + 1;
	}
	return -1;
}

static void k_mouse(struct ui *u, int ch)
{
	MEVENT e;

	(void)ch;
	if (u->mouse && getmouse(&e) == OK)
		ui_mouse(u, &e);
}

void ui_mouse(struct ui *u, const MEVENT *m)
{
	MEVENT e = *m;

	if (e.bstate & BUTTON4_PRESSED)
		k_move(u, KEY_UP);
#ifdef BUTTON5_PRESSED
	else if (e.bstate & BUTTON5_PRESSED)
		k_move(u, KEY_DOWN);
#endif
	else if (!(e.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)))
		return;
	else if (e.y == u->tab_y && tab_at(e.x) >= 0)
		k_pane(u, '1' + tab_at(e.x));
	else if (e.y == u->tab_y + 1 && u->pane == P_DEVICES) {
		int c = ui_dev_column_at(u, e.x);
		if (c >= 0)
			k_sort_at(u, 0, c);
	} else if (e.y == u->tab_y + 1 && u->pane == P_PROCS && ui_cur(u) && ui_cur(u)->procs_valid) {
		int c = ui_proc_column_at(u, e.x);
		if (c >= 0)
			k_sort_at(u, 0, c);
	}
	else if (e.y > u->tab_y + 1 && u->pane == P_DEVICES && u->scroll + e.y - u->tab_y - 2 < u->nrows)
		u->sel = u->scroll + e.y - u->tab_y - 2;
	else if (e.y > u->tab_y + 1 && u->pane == P_PROCS && u->proc_scroll + e.y - u->tab_y - 2 < ui_table_rows(u))
		u->proc_sel = u->proc_scroll + e.y - u->tab_y - 2;
	else if (u->pane == P_ZONES && u->zone_y > 0 && e.y >= u->zone_y &&
		 u->zone_scroll + e.y - u->zone_y < ui_table_rows(u))
		u->zone_sel = u->zone_scroll + e.y - u->zone_y;
}

/* Typing a filter: printable characters, Backspace, Enter keeps, Esc clears. */
static void filter_key(struct ui *u, int ch)
{
	char *f = ui_filter(u);

	switch (ui_line_edit(f, sizeof(u->filter), ch, true)) {
	case UI_EDIT_CANCEL: f[0] = '\0'; u->filtering = false; break;
	case UI_EDIT_DONE: u->filtering = false; break;
	default: break;
	}
}

/*
 * A time typed for g: seconds from the start, or a clock time HH:MM[:SS] on
 * the recording's local clock (as the header shows it), the day that puts it
 * inside the recording. 0 with *t_rel, or -1.
 */
static int jump_target(const struct ui *u, const char *text, double *t_rel)
{
	const struct wb_sample *s = ui_cur(u);
	double tr, len;
	size_t i, n;

	u->src->where(u->src->ctx, &tr, &len, &i, &n);
	if (!strchr(text, ':')) /* decimal: strtod took nan (a seek to nan), inf and 0x10 */
		return wb_parse_decimal(text, t_rel) ? 0 : -1;
	/* inside the recording, to a second - or to the minute, as HH:MM: "23:18" of one that starts at 23:18:10 */
	double slack = strchr(strchr(text, ':') + 1, ':') ? 1 : 60;
	if (!s || wb_clock_rel(text, s->wall, tr, -slack, len + slack, t_rel))
		return -1;
	*t_rel = fmax(*t_rel, 0);
	return 0;
}

/* Typing a time to jump to (seconds from the recording's start, or a clock time). */
static void jump_key(struct ui *u, int ch)
{
	double t;
	enum ui_edit e = ui_line_edit(u->jump, sizeof(u->jump), ch, false);

	if (e == UI_EDIT_CANCEL) {
		u->jumping = false;
	} else if (e == UI_EDIT_DONE) {
		u->jumping = false;
		if (jump_target(u, u->jump, &t)) {
			snprintf(u->status, sizeof(u->status),
				 "jump: \"%s\" is neither seconds nor a clock time (HH:MM:SS) in the recording", u->jump);
			return;
		}
		double at, len;
		size_t i, n;
		char typed[24];

		u->src->seek(u->src->ctx, t);
		replay_show(u);
		u->src->where(u->src->ctx, &at, &len, &i, &n);
		if (t < 1e9)
			snprintf(typed, sizeof(typed), "%.1f", t);
		else /* as typed: %.1f of 1e308 is 310 digits */
			snprintf(typed, sizeof(typed), "%.15s", u->jump);
		if (t > len) /* the seek stops at the last sample: say where it is, not the time typed */
			snprintf(u->status, sizeof(u->status), "%s s is past the end: at the last sample, %.1f s",
				 typed, at);
		else if (range_cut(u) && (t < u->src->range_from - 1e-3 || t > u->src->range_to + 1e-3))
			snprintf(u->status, sizeof(u->status), "%s s is outside the range replayed (%.1f-%.1f s): at %.1f s",
				 typed, u->src->range_from, u->src->range_to, at);
		else if (fabs(at - t) < 0.05)
			snprintf(u->status, sizeof(u->status), "jumped to %.1f s", at);
		else /* where it landed, as the title says (a clock time falls between samples: "9.8 s" beside 10.0) */
			snprintf(u->status, sizeof(u->status), "jumped to %.1f s, the first sample from %s s", at, typed);
	}
}

/*
 * An escape sequence curses did not know (a function key the terminfo entry
 * lacks): drop the rest of it, so that "ESC O Q" or "ESC [ 2 1 q" is never
 * read as the keys Q or q. 27 when it was a lone Esc, else 0 (dropped).
 */
static int drop_escape_tail(void)
{
	int c;

	if (!curses_on)
		return 27;
	timeout(0);
	c = getch();
	if (c != '[' && c != 'O') { /* a lone Esc: the next key is a key */
		if (c != ERR)
			ungetch(c);
		return 27;
	}
	for (int i = 0; i < 16 && (c = getch()) != ERR; i++)
		if (c >= 0x40 && c <= 0x7e) /* the final byte */
			break;
	return 0;
}

void ui_handle_key(struct ui *u, int ch)
{
	if (ch == KEY_RESIZE)
		return;
	if (ch == 27 && !drop_escape_tail())
		return;
	/* too small a terminal shows only why: a key acting there acts unseen (h opened a help
	 * nobody saw, and the next key, q too, only closed it), so q quits and the rest wait */
	if (u->grid && !wb_layout_fits(ui_cols(u), ui_lines(u))) {
		const struct ui_binding *b = binding_of(u, ch);
		if (b && b->fn == k_quit)
			b->fn(u, ch);
		return;
	}
	if (u->jumping) {
		jump_key(u, ch);
		return;
	}
	if (u->help) {
		u->help = false;
		return;
	}
	u->status[0] = '\0';
	if (u->choosing && ui_columns_key(u, ch))
		return;
	if (u->filtering) {
		filter_key(u, ch);
		return;
	}
	if (u->pane == P_TUNE && (u->tune_editing || u->tune_confirm)) { /* typing a value, or y/n */
		ui_tune_key(u, ch);
		return;
	}
	const struct ui_binding *b = binding_of(u, ch), *o = b ? NULL : other_source_binding(u, ch);

	if (o) /* a replay's key live, or a writing key where nothing is written: the Tune pane says why */
		snprintf(u->status, sizeof(u->status), "%s (%s): %s", o->label, o->help,
			 o->when & UI_K_REPLAY || !ui_tune_no_apply(u) ? "a replay's key" : ui_tune_no_apply(u));
	else if (b && lack_of(b, u->pane))
		snprintf(u->status, sizeof(u->status), "the %s pane has %s", pane_names[u->pane], lack_of(b, u->pane));
	else if (b)
		b->fn(u, ch);
}

int ui_tabs_row(const struct ui *u)
{
	char line[4096];

	for (int y = 0; y < ui_lines(u) && y < 16; y++)
		if (wb_grid_line(u->grid, y, line, sizeof(line)) && strncmp(line, " 1 Devices ", 11) == 0)
			return y;
	return -1;
}

/* Theme at start: the option, else mono with NO_COLOR, else default. */
static int init_theme(struct ui *u, char *err, size_t errlen)
{
	const char *want = u->o->theme;
	const char *nc = getenv("NO_COLOR");

	if (!want)
		want = nc && *nc ? "mono" : "default";
	if (wb_theme_load(&u->theme, want, u->o->theme_dirs, err, errlen)) {
		/* --theme is the user's word: an error; the settings file's is a warning, defaults hold */
		if (!u->cfg || want != u->cfg->theme)
			return -1;
		char safe[sizeof(u->cfg_warn)];
		snprintf(safe, sizeof(safe), "%s: theme = %.60s unusable, the default theme: %.120s",
			 u->o->cfg_path ? u->o->cfg_path : "wbtoprc", want, err);
		wb_safe_text(safe, u->cfg_warn, sizeof(u->cfg_warn)); /* the files' text: no escapes */
		want = nc && *nc ? "mono" : "default";
		if (wb_theme_load(&u->theme, want, u->o->theme_dirs, err, errlen))
			return -1;
	}
	/* a file's path whole (a relative one means nothing from another directory next time) */
	char abs[PATH_MAX];
	size_t wl = strlen(want);
	bool file = strchr(want, '/') || (wl > 6 && strcmp(want + wl - 6, ".theme") == 0); /* as wb_theme_load */
	snprintf(u->theme_arg, sizeof(u->theme_arg), "%s", file && realpath(want, abs) ? abs : want);
	u->nthemes = wb_theme_list(u->o->theme_dirs, u->themes, 16);
	for (int i = 0; i < u->nthemes; i++)
		if (strcmp(u->themes[i], u->theme.name) == 0)
			u->theme_idx = i;
	return 0;
}

/*
 * Ctrl-S is a key here, not the terminal's XOFF: with IXON on, one press
 * stopped the output, and wbtop, blocked writing a frame, stopped sampling
 * and recording until Ctrl-Q (a recording had a 10 s hole). The mode is
 * the program's (def_prog_mode): endwin() puts the shell's back.
 */
static void no_flow_control(void)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &t) == 0 && (t.c_iflag & (IXON | IXOFF))) {
		t.c_iflag &= ~(tcflag_t)(IXON | IXOFF);
		if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
			def_prog_mode();
	}
}

/*
 * newterm, not initscr: initscr exits by itself when the terminal cannot be
 * set up (LINES=99999 COLUMNS=99999 in the environment), with "Error opening
 * terminal: xterm." - and wbtop's trace instance was left behind. 0, or -1
 * with a message.
 */
static int start_curses(struct ui *u, char *err, size_t errlen)
{
	if (!newterm(NULL, stdout, stdin)) {
		const char *t = getenv("TERM"), *l = getenv("LINES"), *c = getenv("COLUMNS");
		char msg[256];
		snprintf(msg, sizeof(msg), "curses could not set up the terminal (TERM=%.40s%s%.20s%s%.20s)",
			 t ? t : "", l ? ", LINES=" : "", l ? l : "", c ? ", COLUMNS=" : "", c ? c : "");
		wb_safe_text(msg, err, errlen); /* the environment's text: no escapes */
		return -1;
	}
	def_prog_mode(); /* as initscr() does after newterm(): what refresh restores after endwin() */
	/*
	 * ncurses 6.4 flushes its output after every cursor move until the
	 * screen has once come back from endwin() (its state stays "initial"):
	 * a 1 Hz frame went out as ~37 writes to the terminal. One endwin /
	 * refresh cycle before anything is drawn makes a frame one or two.
	 */
	endwin();
	refresh();
	curses_on = 1;
	cbreak();
	noecho();
	no_flow_control();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	/* clicks and the wheel where the terminal reports them; elsewhere keys only */
	u->mouse = mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
					    | BUTTON5_PRESSED
#endif
					    , NULL) != 0;
	mouseinterval(0);
	if (has_colors() && !u->theme.mono) {
		start_color();
		use_default_colors();
	}
	ui_apply_theme(u);
	return 0;
}

int ui_init(struct ui *u, const struct wb_ui_opts *o, struct wb_source *src, struct wb_grid *g, char *err,
	    size_t errlen)
{
	const char *cs = nl_langinfo(CODESET);
	struct wb_pipeline_opts po = { .window = RING_SAMPLES, .sets = o->sets, .nsets = o->nsets,
				       .timeline = GRAPH_POINTS, .sinks = o->sinks, .nsinks = o->nsinks,
				       .replay = src->replay };

	*u = (struct ui){ .o = o, .grid = g, .delay = src->replay ? src->interval : o->delay, .sort_col = 0,
			  .src = src, .speed = 1, .cfg = o->cfg, .tab_y = -1, .procs_on = true };
	ui_sort_defaults(u);
	u->utf8 = cs && strcmp(cs, "UTF-8") == 0;
	if (init_theme(u, err, errlen))
		return -1;
	u->pl = wb_pipeline_create(&po);
	if (!u->pl) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	u->ring = wb_pipeline_history(u->pl);
	apply_config(u, o->cfg);
	if (src->replay) /* from --from: the window playing from the start would have */
		ui_resync(u);
	if (o->notice)
		snprintf(u->status, sizeof(u->status), "%.190s", o->notice);
	if (u->cfg_warn[0]) /* shown first, and on stderr once the screen is gone */
		snprintf(u->status, sizeof(u->status), "%.190s", u->cfg_warn);
	return 0;
}

void ui_finish(struct ui *u)
{
	ui_tune_finish(u);
	ui_graph_finish(u);
	free(u->rows);
	free(u->proc_idx);
	wb_pipeline_destroy(u->pl);
	u->rows = NULL;
	u->proc_idx = NULL;
	u->pl = NULL;
}

bool ui_tick(struct ui *u, double t, double *next)
{
	bool redraw = false;

	u->now = t;
	if (u->src->need_procs && u->procs_on != (u->pane == P_PROCS)) {
		/* the process table only for its pane; shown again: a sample now */
		u->procs_on = u->pane == P_PROCS;
		u->procs_samples = 0;
		u->src->need_procs(u->src->ctx, u->procs_on);
		u->step = u->step || (u->procs_on && !u->frozen && !u->ended);
	}
	if (u->tune_trial_end > 0) { /* the countdown, and the revert when it runs out */
		ui_tune_tick(u);
		redraw = true;
	}
	/* a delay shortened since (+, a faster replay) counts from the last sample, not after the old one */
	if (u->sampled && u->sampled_at + u->delay < *next)
		*next = u->sampled_at + u->delay;
	if (t < *next && !u->step)
		return redraw;
	if ((!u->frozen && !u->ended) || u->step) {
		u->sampled = true;
		u->sampled_at = t;
		if (ui_take_sample(u) != 0) {
			u->ended = true;
			if (u->diag && u->diag->n) /* a damaged frame ended it: say so, not "the end" */
				snprintf(u->status, sizeof(u->status), "replay stopped: %.170s", u->diag->msg[0]);
			else
				snprintf(u->status, sizeof(u->status), u->src->replay
					 ? "end of the recording: g jumps, Left seeks back, q quits"
					 : "the source ended; press q to quit");
		}
		u->step = false;
		redraw = true;
	}
	*next = t + u->delay;
	return redraw;
}

/* The grid at the terminal's size, drawn, copied to the terminal; the tab row for the mouse. */
static void redraw_screen(struct ui *u)
{
	if ((u->grid->w != COLS || u->grid->h != LINES) && wb_grid_resize(u->grid, COLS, LINES)) {
		snprintf(u->status, sizeof(u->status), "out of memory");
		return;
	}
	ui_build_rows(u);
	ui_render(u);
	ui_flush(u);
	u->tab_y = ui_tabs_row(u);
}

int wb_ui_run(const struct wb_ui_opts *o, struct wb_source *src, char *err, size_t errlen)
{
	struct ui u;
	struct wb_grid grid;
	double next;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "the UI needs a terminal (use --batch for a pipe or a file)");
		return 1;
	}
	/*
	 * The terminal's character set for ncurses' wide characters; numbers
	 * stay C's: the endpoint and the textfile served from this process,
	 * values typed in the Tune pane and every figure drawn (a comma
	 * locale turned the exposition's 0.2 into 0,2, which Prometheus
	 * refuses whole).
	 */
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	wb_grid_init(&grid);
	if (ui_init(&u, o, src, &grid, err, errlen)) {
		ui_finish(&u);
		return 1;
	}
	wb_signals_install();
	wb_signals_at_crash(restore_terminal);
	if (start_curses(&u, err, errlen)) {
		ui_finish(&u);
		return 1;
	}
	/*
	 * No typeahead checks while a frame is written: curses polled the
	 * terminal every 5 changed lines (4 polls a frame) to postpone a frame
	 * for a key; a frame takes under a millisecond and keys are read after it.
	 */
	typeahead(-1);
	next = now_s();
	bool redraw = true;
	while (!u.quit && !wb_stop) {
		int ch;

		if (ui_tick(&u, now_s(), &next))
			redraw = true;
		if (redraw) { /* only after a sample, a key or a resize */
			redraw_screen(&u);
			redraw = false;
		}
		/*
		 * One wakeup a tick when nothing happens: getch() polls the terminal
		 * until the next sample (keys, resizes and signals end it early);
		 * only a change on trial wakes every 250 ms, for its countdown.
		 */
		timeout((int)fmax(1, fmin(u.tune_trial_end > 0 ? 250 : 3600e3,
					  ceil((next - now_s()) * 1000)))); /* up: no 1 ms second wakeup */
		ch = getch();
		if (ch != ERR) {
			ui_handle_key(&u, ch);
			timeout(0);
			while (!u.quit && !wb_stop && (ch = getch()) != ERR) /* drain typed-ahead keys */
				ui_handle_key(&u, ch);
			redraw = true;
		}
	}
	if (u.tune_trial_end > 0) { /* a change still on trial is not kept by quitting */
		u.now = u.tune_trial_end;
		ui_tune_tick(&u);
	}
	endwin();
	curses_on = 0;
	if (u.cfg_warn[0])
		fprintf(stderr, "wbtop: %s\n", u.cfg_warn);
	ui_finish(&u);
	wb_grid_finish(&grid);
	return 0;
}
