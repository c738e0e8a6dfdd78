// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The panes: overview meters, devices, zones/nodes, flusher state, processes,
 * help. Everything drawn comes from the history ring and the model's output.
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ui_internal.h"
#include "wbtop/layout.h"
#include "wbtop/out.h"
#include "wbtop/util.h"

/* ---- theme -> curses ---- */

static attr_t attr_of(const struct ui *u, enum wb_role r)
{
	const struct wb_style *s = &u->theme.role[r];
	attr_t a = 0;

	if (s->attrs & WB_A_BOLD)
		a |= A_BOLD;
	if (s->attrs & WB_A_REVERSE)
		a |= A_REVERSE;
	if (s->attrs & WB_A_UNDERLINE)
		a |= A_UNDERLINE;
	if (s->attrs & WB_A_DIM)
		a |= A_DIM;
	if (!u->theme.mono && has_colors())
		a |= COLOR_PAIR(r + 1);
	return a;
}

void ui_apply_theme(struct ui *u)
{
	if (!has_colors() || u->theme.mono)
		return;
	for (int r = 0; r < WB_R_COUNT; r++) {
		const struct wb_style *s = &u->theme.role[r];
		bool wide = COLORS >= 256;
		init_pair((short)(r + 1), wide ? s->fg : s->fg8, wide ? s->bg : s->bg8);
	}
	bkgd(attr_of(u, WB_R_NORMAL));
}

/* Bytes of s that fill at most cols columns (addnstr counts bytes; every
 * glyph wbtop draws is one column wide, so count UTF-8 lead bytes). */
static int fit_bytes(const char *s, int cols)
{
	int i = 0;

	for (int c = 0; s[i]; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80 && c++ == cols)
			break;
	return i;
}

/* Every string drawn goes through here: made safe for the terminal first
 * (a mount point, device or process name from a recording may hold escapes). */
static void put(const struct ui *u, int y, int x, enum wb_role r, const char *s)
{
	attr_t a = attr_of(u, r);
	char safe[2048];

	wb_safe_text(s, safe, sizeof(safe));
	attron(a);
	mvaddnstr(y, x, safe, fit_bytes(safe, COLS - x > 0 ? COLS - x : 0));
	attroff(a);
}

/* ---- formatting ---- */

static const char *bytes(char *buf, size_t n, bool ok, double v)
{
	if (!ok)
		return "-";
	return wb_fmt_bytes(buf, n, v);
}

/* A device's label: its block device, or a filesystem's own BDI with what it sits on. */
static const char *dev_label(const struct wb_bdi *b, char *buf, size_t n)
{
	if (b->dev[0] && !strchr(b->name, ':'))
		snprintf(buf, n, "%s:%s", b->name, b->dev);
	else
		snprintf(buf, n, "%s", b->dev[0] ? b->dev : b->name);
	return buf;
}

/* ---- meters ---- */

struct mark {
	double v;
	char c;
	enum wb_role role;
};

/* [dirty|writeback|....b....f...T] with threshold markers. */
static void meter(const struct ui *u, int y, int x, int w, double dirty, double wb,
		  const struct mark *m, int nm, double max)
{
	int d = wb_layout_meter_pos(dirty, max, w), e = wb_layout_meter_pos(dirty + wb, max, w);
	const char *full = u->utf8 ? "\u2588" : "#", *half = u->utf8 ? "\u2592" : "=";
	const char *empty = u->utf8 ? "\u00b7" : ".";

	put(u, y, x, WB_R_NORMAL, "[");
	for (int i = 0; i < w; i++) {
		enum wb_role r = i < d ? WB_R_DIRTY : i < e ? WB_R_WRITEBACK : WB_R_BAR_EMPTY;
		const char *ch = i < d ? full : i < e ? half : empty;
		for (int k = 0; k < nm; k++)
			if (wb_layout_meter_pos(m[k].v, max, w) == i && m[k].v > 0) {
				static char s[2];
				s[0] = m[k].c;
				s[1] = '\0';
				ch = s;
				r = m[k].role;
			}
		put(u, y, x + 1 + i, r, ch);
	}
	put(u, y, x + 1 + w, WB_R_NORMAL, "]");
}

static const struct wb_sample *cur_sample(const struct ui *u)
{
	return u->view ? u->view->cur : NULL;
}

/* A global figure as the catalogue shows it ("-" unknown), by its JSON key; buf >= 16 bytes. */
static const char *gshow(const struct ui *u, const char *key, char *buf)
{
	size_t n;

	snprintf(buf, 16, "-");
	const struct wb_field *t = wb_catalog_global(&n);
	struct wb_fctx c;

	wb_catalog_ctx(&c, u->view, u->view->lim, SIZE_MAX);
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].key, key) == 0) {
			struct wb_value x = t[i].get(&c);
			return wb_catalog_show(&t[i], &x, buf, 16); /* "-" is a constant: buf stays "-" */
		}
	return buf;
}

/* Header: title line, global meter, numbers, settings, hidden levels. */
static int draw_header(struct ui *u)
{
	const struct wb_sample *s = cur_sample(u);
	const struct wb_limits *l = u->lim_ok ? &u->lim : NULL;
	char line[512], a[16], b[16], c[16], d[16], e[16], f[16], tm[16];
	uint64_t P = s->page_size;
	int y = 0;

	wb_fmt_clock(s->wall, "%H:%M:%S", tm, sizeof(tm)); /* a damaged wall time may be NaN */
	if (u->src && u->src->replay) {
		double tr, len;
		size_t i, n;
		u->src->where(u->src->ctx, &tr, &len, &i, &n);
		snprintf(line, sizeof(line), " wbtop %s  REPLAY %s  %.1f/%.1fs  x%g  level %d%s%s", WBTOP_VERSION, tm, tr,
			 len, u->speed, s->level, u->frozen ? "  [PAUSED]" : "", u->whatif_ok ? "  [what-if]" : "");
	} else {
		snprintf(line, sizeof(line), " wbtop %s  %s  level %d  every %.2gs%s%s", WBTOP_VERSION, tm,
			 s->level, u->delay, u->frozen ? "  [FROZEN]" : "", u->whatif_ok ? "  [what-if]" : "");
	}
	attron(attr_of(u, WB_R_HEADER));
	mvhline(y, 0, ' ', COLS);
	attroff(attr_of(u, WB_R_HEADER));
	put(u, y++, 0, WB_R_HEADER, line);
	if (u->src && u->src->replay) { /* the time bar, with the newest note */
		double tr, len, nt;
		size_t i, n;
		const char *note = u->src->note ? u->src->note(u->src->ctx, &nt) : NULL;
		u->src->where(u->src->ctx, &tr, &len, &i, &n);
		int w = COLS / 3, pos = wb_layout_meter_pos(tr, len > 0 ? len : 1, w);
		put(u, y, 0, WB_R_TITLE, "Time");
		for (int k = 0; k < w; k++)
			put(u, y, 5 + k, k == pos ? WB_R_THRESHOLD : k < pos ? WB_R_DIRTY : WB_R_BAR_EMPTY,
			    k == pos ? "|" : k < pos ? "=" : "-");
		if (note) {
			snprintf(line, sizeof(line), "  at %.1fs: %s", nt, note);
			put(u, y, 6 + w, WB_R_WARN, line);
		}
		y++;
	}

	bool dok = WB_HAS(s->g.valid, WB_G_DIRTY), wok = WB_HAS(s->g.valid, WB_G_WRITEBACK);
	double dirty = dok ? (double)s->g.v[WB_G_DIRTY] * P : 0, wb = wok ? (double)s->g.v[WB_G_WRITEBACK] * P : 0;
	put(u, y, 0, WB_R_TITLE, "Global");
	if (l) {
		struct mark m[] = {
			{ (double)l->bg * P, 'b', WB_R_BACKGROUND },
			{ (double)l->freerun * P, 'f', WB_R_BACKGROUND },
			{ (double)l->thresh * P, 'T', WB_R_THRESHOLD },
		};
		meter(u, y, 7, COLS - 9, dirty, wb, m, 3, (double)l->thresh * P * 1.05);
	} else {
		put(u, y, 7, WB_R_NA, "n/a: the model needs /proc/vmstat, meminfo and zoneinfo");
	}
	y++;
	snprintf(line, sizeof(line), "dirty %s  writeback %s  bg %s  freerun %s  thresh %s (kernel %s)",
		 gshow(u, "dirty", a), gshow(u, "writeback", b), gshow(u, "bg_thresh", c), gshow(u, "freerun", d),
		 gshow(u, "thresh", e), gshow(u, "kernel_thresh", f));
	put(u, y++, 1, WB_R_NORMAL, line);
	gshow(u, "dirtied_rate", b); /* rates: "/s" when known */
	gshow(u, "written_rate", c);
	snprintf(line, sizeof(line), "dirtyable %s  dirtied %s%s  written %s%s%s", gshow(u, "dirtyable", a), b,
		 strcmp(b, "-") ? "/s" : "", c, strcmp(c, "-") ? "/s" : "",
		 l && l->calibrated ? "  (dirtyable recovered from the kernel's thresholds)" : "");
	put(u, y++, 1, WB_R_NORMAL, line);
	if (u->whatif_ok) {
		const struct wb_limits *w = &u->whatif;
		snprintf(line, sizeof(line), "what-if: bg %s  freerun %s  thresh %s  (IF-THRESH per device)",
			 bytes(a, 16, true, w->bg * P), bytes(b, 16, true, w->freerun * P),
			 bytes(c, 16, true, w->thresh * P));
		put(u, y++, 1, WB_R_THRESHOLD, line);
	}
	snprintf(line, sizeof(line), "vm: dirty_ratio %llu  dirty_bytes %s  background_ratio %llu  background_bytes %s  "
		 "expire %.0fs  writeback %.0fs",
		 (unsigned long long)s->sys[WB_SYS_DIRTY_RATIO], wb_fmt_bytes(a, 16, (double)s->sys[WB_SYS_DIRTY_BYTES]),
		 (unsigned long long)s->sys[WB_SYS_BG_RATIO], wb_fmt_bytes(b, 16, (double)s->sys[WB_SYS_BG_BYTES]),
		 s->sys[WB_SYS_EXPIRE_CS] / 100.0, s->sys[WB_SYS_WRITEBACK_CS] / 100.0);
	put(u, y++, 1, WB_R_NORMAL, line);
	{
		const char *h[4];
		int nh = wb_level_hidden(s->level, h, 4);
		if (nh)
			put(u, y++, 1, WB_R_NA, h[0]);
	}
	return y;
}

static void draw_tabs(struct ui *u, int y)
{
	static const char *const names[P_COUNT] = { "1 Devices", "2 Zones", "3 Flusher", "4 Processes",
						     "5 Tune" };
	int x = 0;

	for (int i = 0; i < P_COUNT; i++) {
		char b[32];
		snprintf(b, sizeof(b), " %s ", names[i]);
		put(u, y, x, i == (int)u->pane ? WB_R_TAB_ACTIVE : WB_R_TAB, b);
		x += (int)strlen(b) + 1;
	}
	if (u->jumping) {
		char b[64];
		snprintf(b, sizeof(b), " jump to (s): %s_", u->jump);
		put(u, y, x + 1, WB_R_TITLE, b);
	} else if (u->filter[0] || u->filtering) {
		char b[96];
		snprintf(b, sizeof(b), " filter: %s%s", u->filter, u->filtering ? "_" : "");
		put(u, y, x + 1, WB_R_TITLE, b);
	}
}

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
	const struct wb_sample *s = cur_sample(u);
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

/* A sparkline over the ring (newest right), one sample a column: one BDI's
 * dirty+writeback, or (wakes) its background wakeups in each interval. */
static void sparkline(const struct ui *u, const char *bdi, bool wakes, char *out, size_t n, int w)
{
	static const char *const blocks[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585",
					      "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = " .:-=+*#@";
	double v[256], max = 1;
	int k = 0;
	size_t len = 0;

	if (w > 256)
		w = 256;
	if (w < 0)
		w = 0;
	wb_pipeline_strip(u->pl, bdi, wakes, v, w);
	for (k = 0; k < w; k++)
		if (v[k] > max)
			max = v[k];
	out[0] = '\0';
	for (int i = 0; i < k && len + 4 < n; i++) {
		int lv = v[i] < 0 ? 0 : (int)ceil(v[i] / max * 8);
		if (u->utf8) {
			size_t bl = strlen(blocks[lv]);
			memcpy(out + len, blocks[lv], bl);
			len += bl;
		} else {
			out[len++] = ascii[lv];
		}
	}
	out[len] = '\0';
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
		sparkline(u, r->b->name, false, v, n, w);
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
		/* the what-if column only with --set */
		prio[c] = !u->whatif_ok && is_col(col[c], "IF-THRESH") ? 99 : col[c]->prio;
	}
	wb_layout_columns(width, prio, nc, COLS - 1, shown);
	for (int c = 0; c < nc; c++)
		if (shown[c] && is_col(col[c], "DIRTY HISTORY")) {
			int used = 0;
			for (int k = 0; k < nc; k++)
				used += shown[k] ? width[k] + 1 : 0;
			width[c] += COLS - 1 - used;
		}
}

static void draw_devices(struct ui *u, int y, int h)
{
	size_t n;
	const struct wb_field *const *col = dev_cols(&n);
	int nc = (int)n, width[DEV_MAX_COLS], x = 0;
	bool shown[DEV_MAX_COLS];
	char buf[1024];

	dev_layout(u, col, nc, width, shown);
	attron(attr_of(u, WB_R_TITLE));
	mvhline(y, 0, ' ', COLS);
	for (int c = 0; c < nc; c++) {
		if (!shown[c])
			continue;
		snprintf(buf, sizeof(buf), col[c]->left ? "%-*s%s" : "%*s%s", width[c] - (c == u->sort_col),
			 col[c]->title, c == u->sort_col ? (u->sort_desc ? "v" : "^") : "");
		mvaddnstr(y, x, buf, width[c]);
		x += width[c] + 1;
	}
	attroff(attr_of(u, WB_R_TITLE));
	y++;
	h--;
	if (u->nrows == 0) {
		put(u, y, 1, WB_R_NA, cur_sample(u)->nbdis ? "no device matches the filter"
						       : "n/a: /sys/class/bdi unreadable: no devices known");
		return;
	}
	if (u->sel < u->scroll)
		u->scroll = u->sel;
	if (u->sel >= u->scroll + h)
		u->scroll = u->sel - h + 1;
	for (int i = u->scroll; i < u->nrows && y < LINES - 1 && i < u->scroll + h; i++, y++) {
		const struct devrow *r = &u->rows[i];
		enum wb_role role = i == u->sel ? WB_R_SELECTED : r->hl == 2 ? WB_R_CRITICAL
				  : r->hl == 1 ? WB_R_WARN : (r->bl && r->bl->state == WB_ST_IDLE) ? WB_R_IDLE
				  : WB_R_NORMAL;
		x = 0;
		attron(attr_of(u, role));
		mvhline(y, 0, ' ', COLS - 1);
		attroff(attr_of(u, role));
		for (int c = 0; c < nc; c++) {
			char v[512];
			bool spark = is_col(col[c], "DIRTY HISTORY");
			if (!shown[c])
				continue;
			int extra = dev_cell(u, r, col[c], width[c], v, sizeof(v));
			if (spark)
				snprintf(buf, sizeof(buf), "%s", v);
			else
				snprintf(buf, sizeof(buf), col[c]->left ? "%-*.*s" : "%*.*s", width[c] + extra,
					 width[c] + extra, v);
			put(u, y, x, spark && role == WB_R_NORMAL ? WB_R_DIRTY : role, buf);
			x += width[c] + 1;
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

static void draw_zones(struct ui *u, int y, int h)
{
	const struct wb_sample *s = cur_sample(u);
	double P = s->page_size;
	char line[512], a[16], b[16], c[16], d[16];
	int end = y + h;

	put(u, y++, 0, WB_R_TITLE, "NODE  DIRTY+WB vs NODE DIRTY LIMIT (page cache is steered away from a node over its limit)");
	for (size_t i = 0; i < s->nnodes && y < end; i++) {
		const struct wb_node *n = &s->nodes[i];
		const struct wb_node_limits *nl = u->lim_ok && i < u->lim.nnodes ? &u->lim.nodes[i] : NULL;
		double dv = (double)n->v[WB_N_DIRTY] * P, wv = (double)n->v[WB_N_WRITEBACK] * P;

		snprintf(line, sizeof(line), "%4d", n->id);
		put(u, y, 0, nl && nl->over ? WB_R_CRITICAL : WB_R_NORMAL, line);
		if (nl) {
			struct mark m[] = { { (double)nl->limit * P, 'L', WB_R_THRESHOLD } };
			meter(u, y, 6, 40, dv, wv, m, 1, (double)nl->limit * P * 1.05);
		}
		snprintf(line, sizeof(line), "%s + %s / %s%s", bytes(a, 16, true, dv), bytes(b, 16, true, wv),
			 bytes(c, 16, nl, nl ? (double)nl->limit * P : 0), nl && nl->over ? "  OVER" : "");
		put(u, y++, 49, nl && nl->over ? WB_R_CRITICAL : WB_R_NORMAL, line);
	}
	y++;
	if (y < end) {
		size_t n;
		const struct wb_field *t = wb_catalog_zone(&n), *col[16];
		size_t m = wb_catalog_columns(t, n, WB_SINK_UI, col, 16);
		table_line(col, m, NULL, line, sizeof(line));
		put(u, y++, 0, WB_R_TITLE, line);
		for (size_t i = 0; i < s->nzones && y < end; i++) {
			const struct wb_zone *z = &s->zones[i];
			struct wb_fctx c = { .v = u->view, .s = s, .l = u->view->lim, .i = i };
			bool low = z->v[WB_Z_MANAGED] && z->v[WB_Z_FREE] < z->v[WB_Z_LOW];
			if (!z->v[WB_Z_MANAGED])
				continue;
			table_line(col, m, &c, line, sizeof(line));
			put(u, y++, 0, low ? WB_R_WARN : WB_R_NORMAL, line);
		}
	}
	y++;
	if (y < end) {
		static const struct { const char *n; enum wb_gstat g; bool pages; } rc[] = {
			{ "vmscan_write", WB_G_VMSCAN_WRITE, true }, { "immediate", WB_G_VMSCAN_IMMEDIATE, true },
			{ "throttled_written", WB_G_THROTTLED_WRITTEN, true }, { "pgscan", WB_G_PGSCAN, false },
			{ "pgsteal", WB_G_PGSTEAL, false }, { "allocstall", WB_G_ALLOCSTALL, false },
		};
		int x = 0;
		put(u, y++, 0, WB_R_TITLE, "RECLAIM (per second)");
		for (size_t k = 0; k < sizeof(rc) / sizeof(rc[0]); k++) {
			double r = u->view->g_rate[rc[k].g];
			bool ok = u->view->g_rate_ok[rc[k].g];
			if (ok && rc[k].pages)
				snprintf(line, sizeof(line), "%s %s/s", rc[k].n, bytes(d, 16, true, r * P));
			else if (ok)
				snprintf(line, sizeof(line), "%s %.0f/s", rc[k].n, r);
			else
				snprintf(line, sizeof(line), "%s -", rc[k].n);
			put(u, y, x, ok && r > 0 && k < 3 ? WB_R_WARN : WB_R_NORMAL, line);
			x += (int)strlen(line) + 3;
			if (x > COLS - 30) {
				x = 0;
				y++;
			}
		}
	}
}

/* ---- flusher pane ---- */

/* A count from the debugfs stats, or "-" (unknown). */
static const char *count(char *buf, size_t n, const struct wb_bdi *b, enum wb_bstat k)
{
	if (!WB_HAS(b->st_valid, k))
		return "-";
	snprintf(buf, n, "%llu", (unsigned long long)b->st[k]);
	return buf;
}

/* One line of the event log. */
static void log_line(const struct ui *u, const struct wb_event *e, char *line, size_t n)
{
	const struct wb_sample *s = cur_sample(u);
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

#define FLUSHER_TITLE "DEVICE          FLUSHER OVER-BG  INODES  B_IO  RECLAIM BG-THRESH WAKE/m THROTTLE/m"
#define FLUSHER_ROW_W ((int)sizeof(FLUSHER_TITLE) - 1)

static void draw_flusher(struct ui *u, int y, int h)
{
	const struct wb_sample *s = cur_sample(u);
	int end = y + h, cap = (int)(sizeof(u->log) / sizeof(u->log[0]));

	/* what the row leaves of the width: a strip of wakeups per interval */
	int strip = COLS - FLUSHER_ROW_W - 2;
	char title[320];

	snprintf(title, sizeof(title), "%s%s", FLUSHER_TITLE, strip >= 8 ? "  WAKEUPS/SAMPLE" : "");
	put(u, y++, 0, WB_R_TITLE, title);
	for (size_t i = 0; i < s->nbdis && y < end - 4; i++) {
		const struct wb_bdi *x = &s->bdis[i];
		const struct wb_bdi_limits *bl = u->lim_ok && i < u->lim.nbdis ? &u->lim.bdis[i] : NULL;
		bool st = WB_HAS(x->st_valid, WB_B_STATE), running = st && (x->st[WB_B_STATE] & 2);
		double wk = u->view->bdi[i].wake_pm, th = u->view->bdi[i].throttle_pm;
		char line[1400], c0[2 * WB_NAME_LEN + 2], c1[16], c2[16], c4[16], c5[16], c6[16], c7[16];

		if (!row_visible(u, x, bl))
			continue;
		snprintf(c6, 16, wk < 0 ? "-" : "%.0f", wk);
		snprintf(c7, 16, th < 0 ? "-" : "%.0f", th);
		snprintf(line, sizeof(line), "%-15.15s %-7s %-7s %7s %5s %8s %9s %6s %10s",
			 dev_label(x, c0, sizeof(c0)), st ? (running ? "running" : "idle") : "-",
			 bl ? (bl->over_bg ? "yes" : "no") : "-", count(c1, 16, x, WB_B_B_DIRTY),
			 count(c2, 16, x, WB_B_B_IO),
			 bytes(c4, 16, WB_HAS(x->st_valid, WB_B_RECLAIMABLE),
			       (double)x->st[WB_B_RECLAIMABLE] * s->page_size),
			 bytes(c5, 16, bl, bl ? (double)bl->bg_thresh * s->page_size : 0), c6, c7);
		if (strip >= 8 && s->ev_valid) {
			size_t l = strlen(line);
			line[l++] = ' ';
			line[l++] = ' ';
			sparkline(u, x->name, true, line + l, sizeof(line) - l, strip);
		}
		put(u, y++, 0, running ? WB_R_WRITEBACK : bl && bl->over_bg ? WB_R_WARN : WB_R_NORMAL, line);
	}
	y++;
	if (!s->ev_valid) {
		put(u, y++, 0, WB_R_NA, "Event log: n/a - wakeups, throttling pauses and reclaim throttling come from");
		put(u, y, 0, WB_R_NA, "tracepoints (level 3: root and tracefs; --mount-debugfs mounts it).");
		return;
	}
	{
		char t[160];
		snprintf(t, sizeof(t), "EVENTS (newest first; Up/Down scroll%s)  handled %llu, dropped %llu%s",
			 u->frozen ? ", frozen" : ", space freezes", (unsigned long long)s->ev_total,
			 (unsigned long long)s->ev_dropped, s->ev_lost_log ? ", some not logged" : "");
		put(u, y++, 0, s->ev_dropped ? WB_R_CRITICAL : WB_R_TITLE, t);
	}
	if (u->log_scroll > u->log_len - 1)
		u->log_scroll = u->log_len > 0 ? u->log_len - 1 : 0;
	if (u->log_len == 0)
		put(u, y, 0, WB_R_IDLE, "no flusher wakeups, throttling or reclaim throttling yet");
	for (int k = u->log_len - 1 - u->log_scroll; k >= 0 && y < end; k--, y++) {
		const struct wb_event *e = &u->log[(u->log_head + k) % cap];
		char line[256];
		log_line(u, e, line, sizeof(line));
		put(u, y, 0, e->kind == WB_EV_PAUSE || e->kind == WB_EV_RECLAIM ? WB_R_WARN : WB_R_NORMAL, line);
	}
}

/* ---- processes pane ---- */

static void draw_procs(struct ui *u, int y, int h)
{
	const struct wb_sample *s = cur_sample(u);
	const struct wb_field *t, *col[8];
	size_t n, m;
	char line[256];

	if (!s->procs_valid) {
		put(u, y, 0, WB_R_NA, "n/a: the process table is read live only (not from fixture trees or --no-procs)");
		return;
	}
	t = wb_catalog_proc(&n);
	m = wb_catalog_columns(t, n, WB_SINK_UI, col, 8);
	table_line(col, m, NULL, line, sizeof(line));
	snprintf(line + strlen(line), sizeof(line) - strlen(line), "  S  THROTTLED");
	put(u, y++, 0, WB_R_TITLE, line);
	if (s->nprocs == 0)
		put(u, y, 0, WB_R_IDLE, "no process wrote since the last sample");
	if (s->ev_valid) { /* tasks paused in balance_dirty_pages since the last sample */
		int shown = 0;
		for (size_t i = 0; i < s->nevents && shown < 4; i++)
			if (s->events[i].kind == WB_EV_PAUSE) {
				bool dup = false;
				for (size_t j = 0; j < i; j++)
					dup |= s->events[j].kind == WB_EV_PAUSE && s->events[j].pid == s->events[i].pid;
				if (dup)
					continue;
				snprintf(line, sizeof(line), "throttled: pid %d on %s, pauses up to %llu ms", s->events[i].pid,
					 s->events[i].bdi, (unsigned long long)s->events[i].value);
				put(u, LINES - 2 - shown++, 0, WB_R_CRITICAL, line);
			}
	}
	for (size_t i = 0; i < s->nprocs && i < (size_t)h - 6; i++) {
		const struct wb_proc *x = &s->procs[i];
		struct wb_fctx c = { .v = u->view, .s = s, .l = u->view->lim, .i = i };
		table_line(col, m, &c, line, sizeof(line));
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "  %c  %s", x->state ? x->state : '?',
			 x->throttled ? "balance_dirty_pages" : "");
		put(u, y++, 0, x->throttled ? WB_R_CRITICAL : WB_R_NORMAL, line);
	}
}

/* ---- help ---- */

/* The key table's bindings for one mode, two to a line when both fit. */
static int help_keys(struct ui *u, int y, unsigned when)
{
	const struct ui_binding *b;
	size_t n = ui_bindings(&b);
	char line[200], one[2][96];
	int k = 0;

	for (size_t i = 0; i <= n && y < LINES - 1; i++) {
		bool last = i == n;
		if (!last && (b[i].when & UI_K_LIVE ? UI_K_LIVE : UI_K_REPLAY) != when)
			continue;
		if (!last)
			snprintf(one[k++], sizeof(one[0]), "%-13s %s", b[i].label, b[i].help);
		if (k == 2 && (strlen(one[0]) > 38 || strlen(one[1]) > 38)) { /* the first alone */
			snprintf(line, sizeof(line), "  %s", one[0]);
			put(u, y++, 2, WB_R_NORMAL, line);
			memmove(one[0], one[1], sizeof(one[0]));
			k = 1;
		}
		if (k == 2 || (last && k == 1)) {
			snprintf(line, sizeof(line), "  %-38s%s", one[0], k == 2 ? one[1] : "");
			put(u, y++, 2, WB_R_NORMAL, line);
			k = 0;
		}
	}
	return y;
}

static void draw_help(struct ui *u)
{
	static const char *const notes[] = {
		"Tune (5): Enter a value (or +/- to step it) to see the prediction, a apply (30 s trial),",
		"         k keep, u undo, R revert all; trials are reverted on exit",
		"",
		"Devices: DIRTY = reclaimable pages, WRITEBK = under writeback, THRESH / BG = the",
		"device's share of the dirty / background threshold (model), %LIM = (dirty +",
		"writeback) / THRESH, CLEAN-IN = time to write it all at the measured bandwidth.",
		"Rows turn warn at the warn percentage or past BG, critical at the critical",
		"percentage or when writers are throttled. '-': not known at this access level.",
		"Meter: b = background threshold, f = freerun ceiling, T = dirty threshold.",
		"",
		"Press any key to return.",
	};
	int y = 2;

	erase();
	put(u, y++, 2, WB_R_TITLE, "wbtop - top for Linux writeback");
	y++;
	y = help_keys(u, y, UI_K_LIVE);
	if (u->src && u->src->replay) { /* the replay's own keys only where they work */
		put(u, y++, 2, WB_R_NORMAL, "Replay:");
		y = help_keys(u, y, UI_K_REPLAY);
	}
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]) && y < LINES - 1; i++)
		put(u, y++, 2, WB_R_NORMAL, notes[i]);
}

/* The footer: the key table's footer words for this source, in their order. */
static void draw_footer(struct ui *u)
{
	unsigned mode = u->src && u->src->replay ? UI_K_REPLAY : UI_K_LIVE;
	const struct ui_binding *b;
	size_t n = ui_bindings(&b);
	int x = 0;

	move(LINES - 1, 0);
	clrtoeol();
	if (u->status[0]) {
		put(u, LINES - 1, 0, WB_R_WARN, u->status);
		return;
	}
	for (int pos = 1; pos <= 10; pos++)
		for (size_t i = 0; i < n; i++) {
			int w = b[i].foot ? (int)(strlen(b[i].foot_key) + strlen(b[i].foot)) + 1 : 0;
			if (b[i].foot_pos != pos || !b[i].foot || !(b[i].when & mode))
				continue;
			if (x + w > COLS - 1 - (pos < 10 ? 6 : 0)) /* room kept for qQuit */
				continue;
			put(u, LINES - 1, x, WB_R_NORMAL, b[i].foot_key);
			x += (int)strlen(b[i].foot_key);
			put(u, LINES - 1, x, WB_R_HINT, b[i].foot);
			x += (int)strlen(b[i].foot) + 1;
		}
}

void ui_draw(struct ui *u)
{
	int y;

	erase();
	if (!wb_layout_fits(COLS, LINES)) {
		char m[96];
		snprintf(m, sizeof(m), "terminal too small (%dx%d): wbtop needs %dx%d", COLS, LINES, WB_MIN_COLS,
			 WB_MIN_LINES);
		mvaddnstr(0, 0, m, COLS);
		refresh();
		return;
	}
	if (!cur_sample(u)) {
		mvaddstr(0, 0, "waiting for the first sample...");
		refresh();
		return;
	}
	if (u->help) {
		draw_help(u);
		refresh();
		return;
	}
	y = draw_header(u);
	draw_tabs(u, y++);
	switch (u->pane) {
	case P_DEVICES: draw_devices(u, y, LINES - 1 - y); break;
	case P_ZONES: draw_zones(u, y, LINES - 1 - y); break;
	case P_FLUSHER: draw_flusher(u, y, LINES - 1 - y); break;
	case P_PROCS: draw_procs(u, y, LINES - 1 - y); break;
	case P_TUNE: ui_draw_tune(u, y, LINES - 1 - y, put); break;
	default: break;
	}
	draw_footer(u);
	refresh();
}
