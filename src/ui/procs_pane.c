// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Processes pane: the writers, what they write, and where the throttled
 * ones are held.
 */
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"
#include "wbtop/catalog.h"
#include "wbtop/layout.h"
#include "wbtop/util.h"

/* ---- processes pane ---- */

/*
 * Are other users' processes missing from the table? Unprivileged, their
 * /proc/PID/io is not readable; the sample counts them, so a replay of such
 * a recording says it too.
 */
static bool procs_partial(const struct wb_sample *s)
{
	return WB_HAS(s->g.valid, WB_G_PROCS_UNREADABLE) && s->g.v[WB_G_PROCS_UNREADABLE] > 0;
}

/*
 * The line under the table when processes are missing. From level 2 up the
 * sample was read as root, which some /proc/PID/io still refuse (a process
 * in another user namespace, a security module): "run as root" would mislead.
 */
const char *ui_procs_missing_note(const struct wb_sample *s, char *buf, size_t n)
{
	if (!procs_partial(s))
		return NULL;
	if (s->level >= 2)
		snprintf(buf, n, "%llu process%s I/O refused even to root (another user namespace or an LSM)",
			 (unsigned long long)s->g.v[WB_G_PROCS_UNREADABLE],
			 s->g.v[WB_G_PROCS_UNREADABLE] == 1 ? "'s" : "es'");
	else
		snprintf(buf, n, "other users' processes cannot be read: run as root");
	return buf;
}

/*
 * Unprivileged, "your processes" are those read; as root (level 2 up) the
 * ones refused are not the user's others, and "your" would say they were.
 */
const char *ui_procs_idle_note(const struct wb_sample *s)
{
	if (!procs_partial(s))
		return "no process wrote since the last sample";
	return s->level >= 2 ? "none of the processes whose I/O could be read wrote since the last sample"
			     : "none of your processes wrote since the last sample";
}

/* The newest pause of pid in this sample's events, else in the log; NULL when none is known. */
static const struct wb_event *last_pause(const struct ui *u, const struct wb_sample *s, int pid)
{
	const struct wb_event *best = NULL;
	int cap = (int)(sizeof(u->log) / sizeof(u->log[0]));

	for (size_t i = 0; s->ev_valid && i < s->nevents; i++)
		if (s->events[i].kind == WB_EV_PAUSE && s->events[i].pid == pid &&
		    (!best || s->events[i].value > best->value))
			best = &s->events[i];
	for (int k = u->log_len - 1; !best && k >= 0; k--) {
		const struct wb_event *e = &u->log[(u->log_head + k) % cap];
		if (e->kind == WB_EV_PAUSE && e->pid == pid)
			best = e;
	}
	return best;
}

/* Where e's writer is throttled: the device as the Flusher pane names it (its DEVICE column), and the pause. */
static void pause_text(const struct ui *u, const struct wb_event *e, char *buf, size_t n)
{
	char dev[192];

	snprintf(buf, n, "%s %llums", ui_event_dev(u, e->bdi, dev, sizeof(dev)), (unsigned long long)e->value);
}

/* Is pid a row of the process table? */
static bool proc_listed(const struct wb_sample *s, int pid)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return true;
	return false;
}

/* Writers paused in this sample that the table does not list, on one line; false when none. */
static bool unlisted_pauses(const struct ui *u, const struct wb_sample *s, char *line, size_t n)
{
	size_t o = (size_t)snprintf(line, n, "also throttled:");
	int found = 0;

	for (size_t i = 0; s->ev_valid && i < s->nevents && o < n; i++) {
		const struct wb_event *e = &s->events[i];
		bool dup = false;
		char t[96];
		if (e->kind != WB_EV_PAUSE || proc_listed(s, e->pid))
			continue;
		for (size_t j = 0; j < i; j++)
			dup |= s->events[j].kind == WB_EV_PAUSE && s->events[j].pid == e->pid;
		if (dup)
			continue;
		pause_text(u, e, t, sizeof(t));
		o += (size_t)snprintf(line + o, n - o, "%s pid %d on %s", found++ ? "," : "", e->pid, t);
	}
	return found > 0;
}

/* The Processes column sorted on (of wb_config_columns' list), or NULL. */
static const struct wb_field *proc_sorted(const struct ui *u)
{
	const struct wb_field *all[8];
	size_t na = wb_config_columns(WB_TABLE_PROCS, all, 8);

	return u->proc_sort_col >= 0 && (size_t)u->proc_sort_col < na ? all[u->proc_sort_col] : NULL;
}

/* The column (of wb_config_columns' Processes list) whose title is under screen column x, or -1. */
int ui_proc_column_at(const struct ui *u, int x)
{
	const struct wb_field *all[8], *sorted = proc_sorted(u);
	size_t m = wb_config_columns(WB_TABLE_PROCS, all, 8);
	int at = 0;

	for (size_t c = 0; c < m; c++) {
		int w = ui_column_width(all[c], all[c] == sorted);
		if (ui_column_hidden(u, WB_TABLE_PROCS, (int)c))
			continue;
		if (x >= at && x <= at + w)
			return (int)c;
		at += w + 1;
	}
	return -1;
}

void ui_draw_procs(struct ui *u, int y, int h)
{
	const struct wb_sample *s = ui_cur(u);
	const struct wb_field *col[8];
	size_t m, nrow;
	char line[512], also[512];
	int end = y + h, rows, n;
	bool more;

	if (u->choosing) {
		ui_draw_columns(u, y, h);
		return;
	}
	if (!s->procs_valid && u->src && u->src->procs && (u->procs_on || !u->src->need_procs) &&
	    u->procs_samples < 2) {
		/* live, the pane just shown: the first read has no rates yet (it said "read live only" for an interval) */
		ui_put(u, y, 0, WB_R_NA, "reading the process table: write rates come with the next sample");
		return;
	}
	if (!s->procs_valid) {
		/* a replay says the recording lacks it: "read live only" read as if replays never had one */
		ui_put(u, y, 0, WB_R_NA, u->src && u->src->replay
			? "n/a: this recording has no process table (--no-procs, or a fixture tree)"
			: "n/a: the process table is read live only (not from fixture trees or --no-procs)");
		return;
	}
	m = ui_table_columns(u, WB_TABLE_PROCS, col, 8);
	const size_t *row = ui_proc_rows(u, s, &nrow); /* the pane's filter and sort */
	n = (int)nrow;
	more = unlisted_pauses(u, s, also, sizeof(also));
	rows = h - 1 - (n == 0) - more - procs_partial(s);
	rows = rows < 1 ? 1 : rows;
	ui_scroll_to(&u->proc_sel, &u->proc_scroll, n, rows);
	ui_table_titles(col, m, proc_sorted(u), u->proc_sort_desc, line, sizeof(line));
	snprintf(line + strlen(line), sizeof(line) - strlen(line), "  S  THROTTLED ON");
	ui_title_line(u, y++, line, u->proc_scroll, rows, n);
	if (s->nprocs == 0)
		ui_put(u, y++, 0, WB_R_IDLE, ui_procs_idle_note(s));
	else if (n == 0)
		ui_put(u, y++, 0, WB_R_IDLE, "no process matches the filter");
	for (int r = u->proc_scroll; r < n && r < u->proc_scroll + rows && y < end; r++, y++) {
		const struct wb_proc *x = &s->procs[row[r]];
		const struct wb_event *e = last_pause(u, s, x->pid);
		struct wb_fctx c = { .v = u->view, .s = s, .l = u->view->lim, .i = row[r] };
		char where[96];
		if (e)
			pause_text(u, e, where, sizeof(where));
		ui_table_line(col, m, &c, proc_sorted(u), line, sizeof(line));
		/* throttled now: the device it waits on (the last pause traced), '-' when no trace says */
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "  %c  %s", x->state ? x->state : '?',
			 x->throttled ? (e ? where : "- (no trace)") : "");
		ui_put(u, y, 0, x->throttled ? WB_R_CRITICAL : WB_R_NORMAL, line);
		if (r == u->proc_sel)
			ui_put(u, y, 0, WB_R_SELECTED, ">");
	}
	if (more && y < end)
		ui_put(u, y++, 0, WB_R_CRITICAL, also);
	if (ui_procs_missing_note(s, also, sizeof(also)) && y < end)
		ui_put(u, y, 0, WB_R_NA, also);
}

