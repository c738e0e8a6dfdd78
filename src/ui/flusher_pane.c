// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Flusher pane: each device's flusher state and wakeups, and the event log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui_internal.h"
#include "wbtop/catalog.h"
#include "wbtop/layout.h"
#include "wbtop/util.h"

/* ---- flusher pane ---- */

#define DEV_CELL 192 /* a DEVICE cell's bytes: a label and a mount cut to 24 cells, 4 bytes a cell at most */
#define STRIP_KEEP 14 /* the wakeups strip's least beside a grown DEVICE: its title, WAKEUPS/SAMPLE, whole (13 cut it at the edge) */

/* The catalogue's DEV-MOUNT row: the pane's DEVICE column. */
static const struct wb_field *dev_mount_field(void)
{
	size_t nf;
	const struct wb_field *t = wb_catalog_bdi(&nf);

	for (size_t k = 0; k < nf; k++)
		if (t[k].title && strcmp(t[k].title, "DEV-MOUNT") == 0)
			return &t[k];
	return NULL;
}

/* The Flusher pane's columns (catalogue rows), in order; how many. */
static size_t flusher_columns(const struct wb_field **col, size_t max)
{
	size_t n;
	const struct wb_field *t = wb_catalog_bdi(&n);

	return wb_catalog_columns(t, n, WB_SINK_FLUSHER, col, max);
}

/*
 * The DEVICE cell of c's device in w cells (buf, n bytes): its label, and after it its mount point as
 * every pane cuts one (ui_path_cut) where the label leaves the mount whole or at least UI_MOUNT_LEAST
 * cells; the label alone (cut by the caller) where not.
 */
static const char *dev_fit(const struct ui *u, const struct wb_fctx *c, int w, char *buf, size_t n)
{
	struct wb_value x = dev_mount_field()->get(c);
	char m[WB_PATH_LEN + 8];
	int room;

	snprintf(buf, n, "%s", wb_value_text(&x));
	if (!c->b->nmounts)
		return buf;
	snprintf(m, sizeof(m), "%s", c->b->mounts[0]);
	room = w - wb_text_cols(buf) - 1;
	if (room < UI_MOUNT_LEAST && room < wb_text_cols(m))
		return buf;
	ui_path_cut(m, sizeof(m), room, u->utf8);
	snprintf(buf + strlen(buf), n - strlen(buf), " %s", m);
	return buf;
}

/* The cells row r's DEVICE cell takes in w: the label and its mount where both fit, else the label cut. */
static int dev_cols(const struct ui *u, const struct devrow *r, const struct wb_field *f, int c, int w)
{
	struct wb_fctx x;
	char cell[DEV_CELL];

	(void)c, (void)f;
	wb_catalog_ctx(&x, u->view, u->view->lim, r->i);
	dev_fit(u, &x, w, cell, sizeof(cell));
	ui_cut(cell, sizeof(cell), w, u->utf8);
	return wb_text_cols(cell);
}

/* The Flusher table's column widths (m <= 16), each column a blank before it (the first one's the marker's): the
 * catalogue's, DEVICE grown into the room the table and a strip of 13 leave, as the Devices pane's grows. */
static void flusher_widths(const struct ui *u, const struct wb_field *const *col, size_t m, int *width)
{
	bool shown[16];

	for (size_t k = 0; k < m; k++) {
		wb_catalog_title(col[k], WB_SINK_FLUSHER, &width[k]);
		shown[k] = true;
	}
	if (u->view) /* the strip's two blanks and 13 cells (the Devices history's least) stay */
		ui_grow_columns(u, col, (int)m, width, shown, ui_cols(u) - 3 - STRIP_KEEP, dev_cols);
}

/* BDI bdi as the Flusher pane's DEVICE column names it in w cells (its label uncut), or by its name (see ui_event_dev). */
static const char *event_dev(const struct ui *u, const char *bdi, int w, char *buf, size_t n)
{
	const struct wb_sample *s = ui_cur(u);
	const struct wb_bdi *b = s ? wb_sample_bdi(s, bdi) : NULL;

	if (b) { /* the sample's own names (recorded with it): a replay names devices as live did */
		struct wb_fctx c;
		wb_catalog_ctx(&c, u->view, u->view->lim, (size_t)(b - s->bdis));
		return dev_fit(u, &c, w, buf, n);
	}
	snprintf(buf, n, "%s", bdi);
	return buf;
}

const char *ui_event_dev(const struct ui *u, const char *bdi, char *buf, size_t n)
{
	const struct wb_field *col[16];
	int width[16];

	flusher_widths(u, col, flusher_columns(col, 16), width);
	return event_dev(u, bdi, width[0], buf, n);
}

/* One line of the event log; its device as the rows above name it, in the DEVICE column's width w. */
static void log_line(const struct ui *u, const struct wb_event *e, int w, char *line, size_t n)
{
	const struct wb_sample *s = ui_cur(u);
	double P = s->page_size, ago = s->mono - e->t;
	char a[16], b[16], dev[DEV_CELL];
	int extra;

	event_dev(u, e->bdi, w, dev, sizeof(dev));
	extra = ui_cut(dev, sizeof(dev), w, u->utf8); /* a UTF-8 mount name pads by its columns */
	switch (e->kind) {
	case WB_EV_WAKE_BG:
		snprintf(line, n, "%7.1fs ago  wakeup     %-*s background  reclaimable ~%s", ago, w + extra,
			 dev, e->extra == UINT64_MAX ? "-" : wb_fmt_bytes(a, 16, (double)e->extra * P));
		break;
	case WB_EV_START:
		snprintf(line, n, "%7.1fs ago  writeback  %-*s %-12s %lld pages to write", ago, w + extra, dev,
			 e->reason < WB_REASONS && u->log_names[e->reason][0] ? u->log_names[e->reason] : "?",
			 (long long)e->value);
		break;
	case WB_EV_PAUSE:
		snprintf(line, n, "%7.1fs ago  throttled  %-*s pid %-7d paused %llu ms, wb_dirty %s", ago, w + extra,
			 dev, e->pid, (unsigned long long)e->value, wb_fmt_bytes(b, 16, (double)e->extra * P));
		break;
	case WB_EV_RECLAIM: {
		/* the reasons by the names the trace format gives them ("writeback"), in ms as pauses are */
		char why[4 * 17] = "";
		for (unsigned r = 0; r < WB_RECLAIM_REASONS; r++)
			if (e->reason & (1u << r))
				snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s", why[0] ? "," : "",
					 s->reclaim_names[r][0] ? s->reclaim_names[r] : "?");
		snprintf(line, n, "%7.1fs ago  reclaim    pid %-7d throttled %.1f ms on %s", ago, e->pid,
			 (double)e->value / 1000, why[0] ? why : "?");
		break;
	}
	default:
		snprintf(line, n, "?");
	}
}

/*
 * The event log's title: its counts, and the keys while the row has room for them (at 80
 * columns the edge cut "some not logged" to "some not"); cut, marked, only past that.
 */
static void log_title(const struct ui *u, const struct wb_sample *s, char *t, size_t n)
{
	char counts[96];

	snprintf(counts, sizeof(counts), "handled %llu, dropped %llu%s", (unsigned long long)s->ev_total,
		 (unsigned long long)s->ev_dropped, s->ev_lost_log ? ", some not logged" : "");
	snprintf(t, n, "EVENTS (newest first; PgUp/PgDn scroll%s)  %s", u->frozen ? ", frozen" : ", space freezes",
		 counts);
	if ((int)strlen(t) > ui_cols(u))
		snprintf(t, n, "EVENTS (newest first)  %s", counts);
	ui_cut(t, n, ui_cols(u), u->utf8);
}

/*
 * The title line (titles == true) or BDI i's row of the Flusher pane: each
 * column at its width, a space before each (the row's first one is the
 * selection marker's); the row's width.
 */
static int flusher_line(const struct ui *u, const struct wb_field *const *col, const int *width, size_t m, bool titles,
			size_t i, char *line, size_t n)
{
	struct wb_fctx c;
	int x = 0;

	if (!titles)
		wb_catalog_ctx(&c, u->view, u->view->lim, i);
	for (size_t k = 0; k < m && x < (int)n; k++) {
		const struct wb_field *f = col[k];
		char buf[96], cell[DEV_CELL];
		struct wb_value v;
		int w = width[k], extra = 0, cw;
		const char *txt = wb_catalog_title(f, WB_SINK_FLUSHER, &cw);
		if (!titles) { /* a text cut to its column says so, as in the Devices pane; numbers are never cut */
			v = f->get(&c);
			if (f == dev_mount_field()) /* the mount only where the label leaves room */
				dev_fit(u, &c, w, cell, sizeof(cell));
			else
				snprintf(cell, sizeof(cell), "%s", wb_catalog_show(f, &v, buf, sizeof(buf)));
			extra = f->left ? ui_cut(cell, sizeof(cell), w, u->utf8) : 0;
			txt = cell;
		}
		if (titles && k == 0) /* the title starts in the marker's column */
			x += snprintf(line + x, n - (size_t)x, "%-*s", w + 1, txt);
		else
			x += snprintf(line + x, n - (size_t)x, f->left ? " %-*.*s" : " %*.*s", w + extra,
				      f->left ? w + extra : (int)strlen(txt), txt);
	}
	return x;
}

void ui_draw_flusher(struct ui *u, int y, int h)
{
	const struct wb_sample *s = ui_cur(u);
	int end = y + h, cap = (int)(sizeof(u->log) / sizeof(u->log[0]));
	const struct wb_field *col[16];
	size_t m = flusher_columns(col, 16);
	char title[320];
	int width[16], row_w;

	flusher_widths(u, col, m, width);
	row_w = flusher_line(u, col, width, m, true, 0, title, sizeof(title));

	/* what the row leaves of the width: a strip of wakeups per interval */
	int strip = ui_cols(u) - row_w - 2;

	if (strip >= 8)
		snprintf(title + row_w, sizeof(title) - (size_t)row_w, "  WAKEUPS/SAMPLE");
	ui_put(u, y++, 0, WB_R_TITLE, title);
	/* the Devices pane's rows, in its order and filter, scrolled to keep the selection in view */
	int rows = end - 4 - y, first = u->sel >= rows && rows > 0 ? u->sel - rows + 1 : 0;
	for (int r = first; r < u->nrows && y < end - 4; r++) {
		const struct wb_bdi *x = u->rows[r].b;
		const struct wb_bdi_limits *bl = u->rows[r].bl;
		bool running = WB_HAS(x->st_valid, WB_B_STATE) && (x->st[WB_B_STATE] & 2);
		char line[1400];

		flusher_line(u, col, width, m, false, u->rows[r].i, line, sizeof(line));
		if (strip >= 8 && s->ev_valid) {
			size_t l = strlen(line);
			line[l++] = ' ';
			line[l++] = ' ';
			ui_sparkline(u, x->name, true, 0, line + l, sizeof(line) - l, strip);
		}
		ui_put(u, y, 0, running ? WB_R_WRITEBACK : bl && bl->over_bg ? WB_R_WARN : WB_R_NORMAL, line);
		if (r == u->sel) /* the Devices pane's selection, marked the same way */
			ui_put(u, y, 0, WB_R_SELECTED, ">");
		y++;
	}
	if (u->nrows == 0 && s->nbdis) {
		char note[96];
		ui_put(u, y++, 0, WB_R_NA, ui_no_rows_note(u, note, sizeof(note)));
	}
	y++;
	if (!s->ev_valid) { /* the header's level-3 line, its reason on a line of its own */
		const char *why = NULL, *paren;
		char t[200];

		wb_level_hidden(WB_LEVEL_TRACE - 1, s->level_why, false, &why, 1);
		paren = why ? strstr(why, " (") : NULL;
		snprintf(t, sizeof(t), "Event log: n/a - %.*s", paren ? (int)(paren - why) : 150, why ? why : "");
		ui_put(u, y++, 0, WB_R_NA, t);
		if (paren)
			ui_put(u, y, 0, WB_R_NA, paren + 1);
		return;
	}
	{
		char t[200];
		log_title(u, s, t, sizeof(t));
		ui_put(u, y++, 0, s->ev_dropped ? WB_R_CRITICAL : WB_R_TITLE, t);
	}
	if (u->log_scroll > u->log_len - 1)
		u->log_scroll = u->log_len > 0 ? u->log_len - 1 : 0;
	if (u->log_len == 0)
		ui_put(u, y, 0, WB_R_IDLE, "no flusher wakeups, throttling or reclaim throttling yet");
	for (int k = u->log_len - 1 - u->log_scroll; k >= 0 && y < end; k--, y++) {
		const struct wb_event *e = &u->log[(u->log_head + k) % cap];
		char line[256];
		log_line(u, e, width[0], line, sizeof(line));
		ui_put(u, y, 0, e->kind == WB_EV_PAUSE || e->kind == WB_EV_RECLAIM ? WB_R_WARN : WB_R_NORMAL, line);
	}
}

