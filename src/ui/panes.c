// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The panes' tables: devices, zones and nodes, flusher state, processes.
 * Each draws the pipeline's view through the widgets in draw.c; the tables'
 * columns come from the field catalogue.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui_internal.h"
#include "wbtop/catalog.h"
#include "wbtop/layout.h"
#include "wbtop/util.h"

/* ---- devices pane ---- */

#define DEV_MAX_COLS 32

/* The pane's columns from the catalogue (computed once). */
static const struct wb_field *const *dev_cols(size_t *n)
{
	static const struct wb_field *col[DEV_MAX_COLS];
	static size_t m;

	if (!m)
		m = wb_ui_dev_columns(col, DEV_MAX_COLS);
	*n = m;
	return col;
}

static bool is_col(const struct wb_field *f, const char *title)
{
	return strcmp(f->title, title) == 0;
}

int ui_dev_columns(void)
{
	size_t n;
	const struct wb_field *const *col = dev_cols(&n);

	return (int)n - (n && is_col(col[n - 1], "DIRTY HISTORY")); /* the sparkline is not sortable */
}

const char *ui_dev_column_name(int c)
{
	size_t n;
	const struct wb_field *const *col = dev_cols(&n);

	return c >= 0 && (size_t)c < n ? col[c]->title : "?";
}

static const struct ui *sort_ui;

/* Sort key of a row for a numeric column: unknown sorts lowest. */
static double key_of(const struct wb_value *x, const struct wb_field *f)
{
	if (!x->known)
		return -1;
	return f->unit == WB_U_BYTES || f->unit == WB_U_COUNT ? (double)x->u : x->d;
}

static int row_cmp(const void *a, const void *b)
{
	const struct devrow *x = a, *y = b;
	size_t n;
	const struct wb_field *f = dev_cols(&n)[sort_ui->sort_col];
	int r;

	if (sort_ui->sort_col == 0) {
		r = wb_bdi_name_cmp(x->b->name, y->b->name);
	} else {
		struct wb_fctx cx, cy;
		struct wb_value p, q;
		wb_catalog_ctx(&cx, sort_ui->view, sort_ui->view->lim, x->i);
		wb_catalog_ctx(&cy, sort_ui->view, sort_ui->view->lim, y->i);
		p = f->get(&cx);
		q = f->get(&cy);
		if (f->unit == WB_U_TEXT) {
			r = strcmp(p.known ? wb_value_text(&p) : "~", q.known ? wb_value_text(&q) : "~");
		} else {
			double kp = key_of(&p, f), kq = key_of(&q, f);
			r = (kp > kq) - (kp < kq);
		}
	}
	if (sort_ui->sort_desc)
		r = -r;
	return r ? r : wb_bdi_name_cmp(x->b->name, y->b->name);
}


static bool row_visible(const struct ui *u, const struct wb_bdi *b, const struct wb_bdi_limits *bl)
{
	if (u->hide_loop && strncmp(b->dev, "loop", 4) == 0)
		return false;
	if (u->hide_idle && (!bl || bl->state == WB_ST_IDLE))
		return false;
	if (u->filter[0] && !strstr(b->name, u->filter) && !strstr(b->dev, u->filter) &&
	    !(b->nmounts && strstr(b->mounts[0], u->filter)) && !strstr(b->fstype, u->filter))
		return false;
	return true;
}

void ui_build_rows(struct ui *u)
{
	const struct wb_sample *s = ui_cur(u);
	double P;

	u->nrows = 0;
	if (!s)
		return;
	P = s->page_size;
	if ((int)s->nbdis > u->rows_cap) {
		struct devrow *n = realloc(u->rows, s->nbdis * sizeof(*n));
		if (!n)
			return;
		u->rows = n;
		u->rows_cap = (int)s->nbdis;
	}
	for (size_t i = 0; i < s->nbdis; i++) {
		const struct wb_bdi *b = &s->bdis[i];
		const struct wb_bdi_limits *bl = u->lim_ok && i < u->lim.nbdis ? &u->lim.bdis[i] : NULL;
		struct devrow *r = &u->rows[u->nrows];

		if (!row_visible(u, b, bl))
			continue;
		memset(r, 0, sizeof(*r));
		r->b = b;
		r->bl = bl;
		r->i = i;
		r->d = &u->view->bdi[i];
		if (r->d->pct_ok && bl) {
			bool over_bg = r->d->dirty > (double)bl->bg_thresh * P;
			r->hl = r->d->pct >= u->o->crit_pct || bl->state >= WB_ST_THROTTLED ? 2
				: r->d->pct >= u->o->warn_pct || over_bg ? 1 : 0;
		}
		u->nrows++;
	}
	sort_ui = u;
	qsort(u->rows, (size_t)u->nrows, sizeof(*u->rows), row_cmp);
	if (u->sel >= u->nrows)
		u->sel = u->nrows ? u->nrows - 1 : 0;
}

/* A path longer than the column keeps its end, where the distinguishing part
 * is ("/tmp/x/y/stick" -> "…/y/stick"), cut at a '/' when one fits. */
static int path_tail(char *p, int width, bool utf8)
{
	const char *ell = utf8 ? "\u2026" : "~"; /* one column either way */
	size_t len = strlen(p), keep;
	const char *t, *slash;

	if (width <= 2 || len <= (size_t)width)
		return 0;
	keep = (size_t)width - 1;
	t = p + len - keep;
	slash = strchr(t, '/');
	if (slash && slash[1])
		t = slash;
	memmove(p + strlen(ell), t, strlen(t) + 1);
	memcpy(p, ell, strlen(ell));
	return (int)strlen(ell) - 1; /* bytes beyond columns, for the padding */
}

/* One row's cell for column f into v: the catalogue's text, or the sparkline. */
static int dev_cell(const struct ui *u, const struct devrow *r, const struct wb_field *f, int w, char *v, size_t n)
{
	if (is_col(f, "DIRTY HISTORY")) {
		ui_sparkline(u, r->b->name, false, v, n, w);
		return 0;
	}
	wb_ui_dev_cell(f, u->view, r->i, v, n);
	return is_col(f, "MOUNT") ? path_tail(v, w, u->utf8) : 0;
}

/* Which columns fit, and their widths (the sparkline takes what is left). */
static void dev_layout(const struct ui *u, const struct wb_field *const *col, int nc, int *width, bool *shown)
{
	int prio[DEV_MAX_COLS];

	for (int c = 0; c < nc; c++) {
		width[c] = col[c]->width;
		/* the what-if column only with --set; hidden columns never */
		prio[c] = (!u->whatif_ok && is_col(col[c], "IF-THRESH")) || ui_column_hidden(u, WB_TABLE_DEVICES, c)
			  ? 99 : col[c]->prio;
	}
	wb_layout_columns(width, prio, nc, ui_cols(u) - 1, shown);
	for (int c = 0; c < nc; c++)
		if (shown[c] && is_col(col[c], "DIRTY HISTORY")) {
			int used = 0;
			for (int k = 0; k < nc; k++)
				used += shown[k] ? width[k] + 1 : 0;
			width[c] += ui_cols(u) - 1 - used;
		}
}

/* Keep the cursor *sel of a table of n rows, rows of them shown from *first, in view. */
static void scroll_to(int *sel, int *first, int n, int rows)
{
	if (*sel >= n)
		*sel = n - 1;
	if (*sel < 0)
		*sel = 0;
	if (*sel < *first)
		*first = *sel;
	if (*sel >= *first + rows)
		*first = *sel - rows + 1;
	if (*first > n - rows)
		*first = n - rows;
	if (*first < 0)
		*first = 0;
}

void ui_draw_devices(struct ui *u, int y, int h)
{
	size_t n;
	const struct wb_field *const *col = dev_cols(&n);
	int nc = (int)n, width[DEV_MAX_COLS], x = 0;
	bool shown[DEV_MAX_COLS];
	char buf[1024];

	if (u->choosing) {
		ui_draw_columns(u, y, h);
		return;
	}
	dev_layout(u, col, nc, width, shown);
	wb_grid_hline(u->grid, y, 0, WB_R_TITLE, ui_cols(u));
	for (int c = 0; c < nc; c++) {
		if (!shown[c])
			continue;
		snprintf(buf, sizeof(buf), col[c]->left ? "%-*s%s" : "%*s%s", width[c] - (c == u->sort_col),
			 col[c]->title, c == u->sort_col ? (u->sort_desc ? "v" : "^") : "");
		wb_grid_put(u->grid, y, x, WB_R_TITLE, buf, width[c]);
		x += width[c] + 1;
	}
	y++;
	h--;
	if (u->nrows == 0) {
		ui_put(u, y, 1, WB_R_NA, ui_cur(u)->nbdis ? "no device matches the filter"
						       : "n/a: /sys/class/bdi unreadable: no devices known");
		return;
	}
	/* also when the list shrank (devices gone, a filter): no rows hidden above a short list */
	scroll_to(&u->sel, &u->scroll, u->nrows, h);
	for (int i = u->scroll; i < u->nrows && y < ui_lines(u) - 1 && i < u->scroll + h; i++, y++) {
		const struct devrow *r = &u->rows[i];
		enum wb_role role = r->hl == 2 ? WB_R_CRITICAL : r->hl == 1 ? WB_R_WARN
				  : (r->bl && r->bl->state == WB_ST_IDLE) ? WB_R_IDLE : WB_R_NORMAL;
		bool sel = i == u->sel;
		x = 0;
		wb_grid_hline(u->grid, y, 0, role, ui_cols(u) - 1);
		if (sel) /* the row keeps its state colour: the selection adds bold */
			wb_grid_attrs(u->grid, WB_A_BOLD);
		for (int c = 0; c < nc; c++) {
			char v[512];
			bool spark = is_col(col[c], "DIRTY HISTORY");
			if (!shown[c])
				continue;
			int extra = dev_cell(u, r, col[c], width[c] - (c == 0), v, sizeof(v));
			if (spark)
				snprintf(buf, sizeof(buf), "%s", v);
			else if (c == 0) /* the first column leads with the marker's cell */
				snprintf(buf, sizeof(buf), " %-*.*s", width[c] - 1 + extra, width[c] - 1 + extra, v);
			else
				snprintf(buf, sizeof(buf), col[c]->left ? "%-*.*s" : "%*.*s", width[c] + extra,
					 width[c] + extra, v);
			ui_put(u, y, x, spark && role == WB_R_NORMAL ? WB_R_DIRTY : role, buf);
			x += width[c] + 1;
		}
		if (sel) {
			wb_grid_attrs(u->grid, 0);
			ui_put(u, y, 0, WB_R_SELECTED, ">"); /* a marker, not a bar over the row's state */
		}
	}
}

/* ---- zones pane ---- */

/* One line of a pane's table from catalogue columns: the titles (c NULL) or an entity's values. */
static void table_line(const struct wb_field *const *col, size_t m, const struct wb_fctx *c, char *line, size_t n)
{
	size_t o = 0;

	line[0] = '\0';
	for (size_t k = 0; k < m && o < n; k++) {
		char buf[256];
		const char *txt = col[k]->title;
		int w;
		if (c) {
			struct wb_value x = col[k]->get(c);
			txt = wb_catalog_show(col[k], &x, buf, sizeof(buf));
		}
		w = snprintf(line + o, n - o, col[k]->left ? "%s%-*s" : "%s%*s", k ? " " : "", col[k]->width, txt);
		o += w > 0 ? (size_t)w : 0;
	}
}

/* The zones the table lists: those with managed pages. */
static int zone_count(const struct wb_sample *s)
{
	int n = 0;

	for (size_t i = 0; i < s->nzones; i++)
		n += s->zones[i].v[WB_Z_MANAGED] != 0;
	return n;
}

int ui_table_rows(struct ui *u)
{
	const struct wb_sample *s = ui_cur(u);
	size_t n = 0;

	if (u->pane == P_ZONES)
		return s ? zone_count(s) : 0;
	if (u->pane == P_PROCS && s && s->procs_valid)
		ui_proc_rows(u, s, &n);
	return u->pane == P_PROCS ? (int)n : u->nrows;
}


/* A table's title, with "3-12/32" (the rows shown, of how many) when not every row fits. */
static void title_line(const struct ui *u, int y, const char *title, int first, int rows, int n)
{
	char line[600];

	if (n > rows)
		snprintf(line, sizeof(line), "%s  %d-%d/%d", title, first + 1, first + rows, n);
	else
		snprintf(line, sizeof(line), "%s", title);
	ui_put(u, y, 0, WB_R_TITLE, line);
}

/* The zones table from y, scrolled to the cursor, leaving the reclaim lines room; the next y. */
static int zone_table(struct ui *u, int y, int end)
{
	const struct wb_sample *s = ui_cur(u);
	const struct wb_field *col[16];
	size_t m = ui_table_columns(u, WB_TABLE_ZONES, col, 16);
	int n = zone_count(s), room = end - y - 1, rows = n <= room - 4 ? n : room - 4 >= 3 ? room - 4 : room;
	char line[512];

	rows = rows < 1 ? 1 : rows;
	scroll_to(&u->zone_sel, &u->zone_scroll, n, rows);
	table_line(col, m, NULL, line, sizeof(line));
	title_line(u, y++, line, u->zone_scroll, rows, n);
	for (size_t i = 0, k = 0; i < s->nzones && y < end; i++) {
		const struct wb_zone *z = &s->zones[i];
		struct wb_fctx c = { .v = u->view, .s = s, .l = u->view->lim, .i = i };
		bool low = z->v[WB_Z_FREE] < z->v[WB_Z_LOW];
		if (!z->v[WB_Z_MANAGED] || (int)k++ < u->zone_scroll)
			continue;
		if ((int)k > u->zone_scroll + rows)
			break;
		table_line(col, m, &c, line, sizeof(line));
		ui_put(u, y, 0, low ? WB_R_WARN : WB_R_NORMAL, line);
		if ((int)k - 1 == u->zone_sel)
			ui_put(u, y, 0, WB_R_SELECTED, ">");
		y++;
	}
	return y;
}

void ui_draw_zones(struct ui *u, int y, int h)
{
	const struct wb_sample *s = ui_cur(u);
	double P = s->page_size;
	char line[512], a[16], b[16], c[16], d[16];
	int end = y + h;

	if (u->choosing) {
		ui_draw_columns(u, y, h);
		return;
	}
	ui_put(u, y++, 0, WB_R_TITLE, "NODE  DIRTY+WB vs NODE DIRTY LIMIT (new page cache avoids a node over it)");
	for (size_t i = 0; i < s->nnodes && y < end; i++) {
		const struct wb_node *n = &s->nodes[i];
		const struct wb_node_limits *nl = u->lim_ok && i < u->lim.nnodes ? &u->lim.nodes[i] : NULL;
		double dv = (double)n->v[WB_N_DIRTY] * P, wv = (double)n->v[WB_N_WRITEBACK] * P;

		snprintf(line, sizeof(line), "%4d", n->id);
		ui_put(u, y, 0, nl && nl->over ? WB_R_CRITICAL : WB_R_NORMAL, line);
		if (nl) {
			struct ui_mark m[] = { { (double)nl->limit * P, 'L', WB_R_THRESHOLD } };
			ui_meter(u, y, 6, 40, dv, wv, m, 1, (double)nl->limit * P * 1.05);
		}
		snprintf(line, sizeof(line), "%s + %s / %s%s", ui_bytes(a, 16, true, dv), ui_bytes(b, 16, true, wv),
			 ui_bytes(c, 16, nl, nl ? (double)nl->limit * P : 0), nl && nl->over ? "  OVER" : "");
		ui_put(u, y++, 49, nl && nl->over ? WB_R_CRITICAL : WB_R_NORMAL, line);
	}
	y++;
	if (y < end)
		y = zone_table(u, y, end);
	y++;
	if (y < end) {
		static const struct { const char *n; enum wb_gstat g; bool pages; } rc[] = {
			{ "vmscan_write", WB_G_VMSCAN_WRITE, true }, { "immediate", WB_G_VMSCAN_IMMEDIATE, true },
			{ "throttled_written", WB_G_THROTTLED_WRITTEN, true }, { "pgscan", WB_G_PGSCAN, false },
			{ "pgsteal", WB_G_PGSTEAL, false }, { "allocstall", WB_G_ALLOCSTALL, false },
		};
		int x = 0;
		ui_put(u, y++, 0, WB_R_TITLE, "RECLAIM (per second)");
		for (size_t k = 0; k < sizeof(rc) / sizeof(rc[0]); k++) {
			double r = u->view->g_rate[rc[k].g];
			bool ok = u->view->g_rate_ok[rc[k].g];
			if (ok && rc[k].pages)
				snprintf(line, sizeof(line), "%s %s/s", rc[k].n, ui_bytes(d, 16, true, r * P));
			else if (ok)
				snprintf(line, sizeof(line), "%s %.0f/s", rc[k].n, r);
			else
				snprintf(line, sizeof(line), "%s -", rc[k].n);
			ui_put(u, y, x, ok && r > 0 && k < 3 ? WB_R_WARN : WB_R_NORMAL, line);
			x += (int)strlen(line) + 3;
			if (x > ui_cols(u) - 30) {
				x = 0;
				y++;
			}
		}
	}
}

/* ---- flusher pane ---- */

/* One line of the event log. */
static void log_line(const struct ui *u, const struct wb_event *e, char *line, size_t n)
{
	const struct wb_sample *s = ui_cur(u);
	double P = s->page_size, ago = s->mono - e->t;
	char a[16], b[16];

	switch (e->kind) {
	case WB_EV_WAKE_BG:
		snprintf(line, n, "%7.1fs ago  wakeup     %-10s background  reclaimable ~%s", ago,
			 e->bdi, e->extra == UINT64_MAX ? "-" : wb_fmt_bytes(a, 16, (double)e->extra * P));
		break;
	case WB_EV_START:
		snprintf(line, n, "%7.1fs ago  writeback  %-10s %-12s %lld pages to write", ago, e->bdi,
			 e->reason < WB_REASONS && u->log_names[e->reason][0] ? u->log_names[e->reason] : "?",
			 (long long)e->value);
		break;
	case WB_EV_PAUSE:
		snprintf(line, n, "%7.1fs ago  throttled  %-10s pid %-7d paused %llu ms, wb_dirty %s", ago, e->bdi,
			 e->pid, (unsigned long long)e->value, wb_fmt_bytes(b, 16, (double)e->extra * P));
		break;
	case WB_EV_RECLAIM:
		snprintf(line, n, "%7.1fs ago  reclaim    pid %-7d throttled %llu us (reason bits %u)", ago, e->pid,
			 (unsigned long long)e->value, e->reason);
		break;
	default:
		snprintf(line, n, "?");
	}
}

/* The Flusher pane's columns (catalogue rows), in order; how many. */
static size_t flusher_columns(const struct wb_field **col, size_t max)
{
	size_t n;
	const struct wb_field *t = wb_catalog_bdi(&n);

	return wb_catalog_columns(t, n, WB_SINK_FLUSHER, col, max);
}

/*
 * The title line (titles == true) or BDI i's row of the Flusher pane: each
 * column at its catalogue width, a space before each (the row's first one
 * is the selection marker's); the row's width.
 */
static int flusher_line(const struct ui *u, const struct wb_field *const *col, size_t m, bool titles, size_t i,
			char *line, size_t n)
{
	struct wb_fctx c;
	int x = 0;

	if (!titles)
		wb_catalog_ctx(&c, u->view, u->view->lim, i);
	for (size_t k = 0; k < m && x < (int)n; k++) {
		const struct wb_field *f = col[k];
		char buf[96];
		struct wb_value v;
		int w;
		const char *txt = wb_catalog_title(f, WB_SINK_FLUSHER, &w);
		if (!titles) {
			v = f->get(&c);
			txt = wb_catalog_show(f, &v, buf, sizeof(buf));
		}
		if (titles && k == 0) /* the title starts in the marker's column */
			x += snprintf(line + x, n - (size_t)x, "%-*s", w + 1, txt);
		else
			x += snprintf(line + x, n - (size_t)x, f->left ? " %-*.*s" : " %*.*s", w,
				      f->left ? w : (int)strlen(txt), txt);
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
	int row_w = flusher_line(u, col, m, true, 0, title, sizeof(title));

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

		flusher_line(u, col, m, false, u->rows[r].i, line, sizeof(line));
		if (strip >= 8 && s->ev_valid) {
			size_t l = strlen(line);
			line[l++] = ' ';
			line[l++] = ' ';
			ui_sparkline(u, x->name, true, line + l, sizeof(line) - l, strip);
		}
		ui_put(u, y, 0, running ? WB_R_WRITEBACK : bl && bl->over_bg ? WB_R_WARN : WB_R_NORMAL, line);
		if (r == u->sel) /* the Devices pane's selection, marked the same way */
			ui_put(u, y, 0, WB_R_SELECTED, ">");
		y++;
	}
	if (u->nrows == 0 && s->nbdis)
		ui_put(u, y++, 0, WB_R_NA, "no device matches the filter");
	y++;
	if (!s->ev_valid) {
		ui_put(u, y++, 0, WB_R_NA, "Event log: n/a - wakeups, throttling pauses and reclaim throttling come from");
		ui_put(u, y, 0, WB_R_NA, "tracepoints (level 3: root and tracefs; --mount-debugfs mounts it).");
		return;
	}
	{
		char t[160];
		snprintf(t, sizeof(t), "EVENTS (newest first; Up/Down scroll%s)  handled %llu, dropped %llu%s",
			 u->frozen ? ", frozen" : ", space freezes", (unsigned long long)s->ev_total,
			 (unsigned long long)s->ev_dropped, s->ev_lost_log ? ", some not logged" : "");
		ui_put(u, y++, 0, s->ev_dropped ? WB_R_CRITICAL : WB_R_TITLE, t);
	}
	if (u->log_scroll > u->log_len - 1)
		u->log_scroll = u->log_len > 0 ? u->log_len - 1 : 0;
	if (u->log_len == 0)
		ui_put(u, y, 0, WB_R_IDLE, "no flusher wakeups, throttling or reclaim throttling yet");
	for (int k = u->log_len - 1 - u->log_scroll; k >= 0 && y < end; k--, y++) {
		const struct wb_event *e = &u->log[(u->log_head + k) % cap];
		char line[256];
		log_line(u, e, line, sizeof(line));
		ui_put(u, y, 0, e->kind == WB_EV_PAUSE || e->kind == WB_EV_RECLAIM ? WB_R_WARN : WB_R_NORMAL, line);
	}
}

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

/* Where e's writer is throttled: the device as the Flusher pane names it (the catalogue's DEV-MOUNT), and the pause. */
static void pause_text(const struct ui *u, const struct wb_event *e, char *buf, size_t n)
{
	const struct wb_sample *s = ui_cur(u);
	size_t nf;
	const struct wb_field *t = wb_catalog_bdi(&nf), *f = NULL;
	struct wb_value x = { .known = false };

	for (size_t k = 0; k < nf && !f; k++)
		if (t[k].title && strcmp(t[k].title, "DEV-MOUNT") == 0)
			f = &t[k];
	for (size_t b = 0; f && b < s->nbdis && !x.known; b++)
		if (strcmp(s->bdis[b].name, e->bdi) == 0) {
			struct wb_fctx c;
			wb_catalog_ctx(&c, u->view, u->view->lim, b);
			x = f->get(&c);
		}
	snprintf(buf, n, "%s %llums", x.known ? wb_value_text(&x) : e->bdi, (unsigned long long)e->value);
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
	if (!s->procs_valid) {
		ui_put(u, y, 0, WB_R_NA, "n/a: the process table is read live only (not from fixture trees or --no-procs)");
		return;
	}
	m = ui_table_columns(u, WB_TABLE_PROCS, col, 8);
	const size_t *row = ui_proc_rows(u, s, &nrow); /* the pane's filter and sort */
	n = (int)nrow;
	more = unlisted_pauses(u, s, also, sizeof(also));
	rows = h - 1 - (n == 0) - more - procs_partial(s);
	rows = rows < 1 ? 1 : rows;
	scroll_to(&u->proc_sel, &u->proc_scroll, n, rows);
	table_line(col, m, NULL, line, sizeof(line));
	snprintf(line + strlen(line), sizeof(line) - strlen(line), "  S  THROTTLED ON");
	title_line(u, y++, line, u->proc_scroll, rows, n);
	if (s->nprocs == 0)
		ui_put(u, y++, 0, WB_R_IDLE, procs_partial(s) ? "none of your processes wrote since the last sample"
							    : "no process wrote since the last sample");
	else if (n == 0)
		ui_put(u, y++, 0, WB_R_IDLE, "no process matches the filter");
	for (int r = u->proc_scroll; r < n && r < u->proc_scroll + rows && y < end; r++, y++) {
		const struct wb_proc *x = &s->procs[row[r]];
		const struct wb_event *e = last_pause(u, s, x->pid);
		struct wb_fctx c = { .v = u->view, .s = s, .l = u->view->lim, .i = row[r] };
		char where[96];
		if (e)
			pause_text(u, e, where, sizeof(where));
		table_line(col, m, &c, line, sizeof(line));
		/* throttled now: the device it waits on (the last pause traced), '-' when no trace says */
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "  %c  %s", x->state ? x->state : '?',
			 x->throttled ? (e ? where : "- (no trace)") : "");
		ui_put(u, y, 0, x->throttled ? WB_R_CRITICAL : WB_R_NORMAL, line);
		if (r == u->proc_sel)
			ui_put(u, y, 0, WB_R_SELECTED, ">");
	}
	if (more && y < end)
		ui_put(u, y++, 0, WB_R_CRITICAL, also);
	if (procs_partial(s) && y < end)
		ui_put(u, y, 0, WB_R_NA, "other users' processes cannot be read: run as root");
}
