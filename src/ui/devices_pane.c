// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Devices pane: a row per BDI, columns from the catalogue, sorted and
 * filtered, the selection kept in view.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui_internal.h"
#include "wbtop/catalog.h"
#include "wbtop/layout.h"
#include "wbtop/util.h"

/* ---- devices pane ---- */

#define DEV_MAX_COLS 32

static bool is_col(const struct wb_field *f, const char *title)
{
	return strcmp(f->title, title) == 0;
}

/* How a column's cell is made: a value, the sparkline, a path cut at its head. */
enum dev_kind { DK_VALUE, DK_SPARK, DK_MOUNT };
static enum dev_kind dev_kind[DEV_MAX_COLS];

/* The pane's columns from the catalogue and their kinds (computed once: a frame draws ~300 cells). */
static const struct wb_field *const *dev_cols(size_t *n)
{
	static const struct wb_field *col[DEV_MAX_COLS];
	static size_t m;

	if (!m) {
		m = wb_ui_dev_columns(col, DEV_MAX_COLS);
		for (size_t c = 0; c < m; c++)
			dev_kind[c] = is_col(col[c], "DIRTY HISTORY") ? DK_SPARK : is_col(col[c], "MOUNT") ? DK_MOUNT : DK_VALUE;
	}
	*n = m;
	return col;
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

/* A state's severity: the enum its value carries (catalog.h), not its text; unknown lowest. */
static double state_rank(const struct wb_value *x)
{
	return x->known ? (double)x->u : -1;
}

typedef double (*rank_fn)(const struct wb_value *x);

/* Text columns sorted by a rank of their own, not A-Z: STATE worst first when descending, as %LIM. */
static const struct {
	const char *title;
	rank_fn rank;
} ranked[] = {
	{ "STATE", state_rank },
};

/* Column f's rank function, or NULL (numbers by value, text A-Z). */
static rank_fn rank_of(const struct wb_field *f)
{
	for (size_t k = 0; k < sizeof(ranked) / sizeof(ranked[0]); k++)
		if (is_col(f, ranked[k].title))
			return ranked[k].rank;
	return NULL;
}

static int row_cmp(const void *a, const void *b)
{
	const struct devrow *x = a, *y = b;
	size_t n;
	const struct wb_field *f = dev_cols(&n)[sort_ui->sort_col];
	rank_fn rank = rank_of(f);
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
		if (rank) {
			double kp = rank(&p), kq = rank(&q);
			r = (kp > kq) - (kp < kq);
		} else if (f->unit == WB_U_TEXT) {
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

const char *ui_no_rows_note(const struct ui *u, char *buf, size_t n)
{
	const char *hid = u->hide_idle && u->hide_loop ? "idle and loop devices hidden (i, l show them)"
			  : u->hide_idle ? "idle devices hidden (i shows them)"
			  : u->hide_loop ? "loop devices hidden (l shows them)" : NULL;

	if (!hid)
		snprintf(buf, n, "no device matches the filter");
	else if (u->filter[0])
		snprintf(buf, n, "no device matches the filter; %s", hid);
	else
		snprintf(buf, n, "no device shown: %s", hid);
	return buf;
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

/*
 * The selection stays on its device when rows come, go or change order (a new
 * loop device sorted before it, a sort by DIRTY): the Graph and Tune panes
 * follow the selection, and an index alone would move them to another device.
 */
static void follow_selection(struct ui *u, const char *name, const struct wb_sample *s)
{
	bool exists = false;

	for (int k = 0; k < u->nrows; k++)
		if (strcmp(u->rows[k].name, name) == 0) {
			u->sel = k;
			return;
		}
	for (size_t i = 0; i < s->nbdis; i++)
		exists |= strcmp(s->bdis[i].name, name) == 0;
	if (!exists) /* gone from the kernel, not just filtered out: the cursor lands on a neighbour */
		snprintf(u->status, sizeof(u->status), "%s has gone: the selection moved to a neighbour", name);
}

void ui_build_rows(struct ui *u)
{
	const struct wb_sample *s = ui_cur(u);
	char sel_name[WB_NAME_LEN] = "";
	double P;

	if (u->sel >= 0 && u->sel < u->nrows)
		memcpy(sel_name, u->rows[u->sel].name, sizeof(sel_name));
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
		snprintf(r->name, sizeof(r->name), "%s", b->name);
		if (r->d->pct_ok && bl) {
			bool over_bg = r->d->dirty > (double)bl->bg_thresh * P;
			r->hl = r->d->pct >= u->o->crit_pct || bl->state >= WB_ST_THROTTLED ? 2
				: r->d->pct >= u->o->warn_pct || over_bg ? 1 : 0;
		}
		u->nrows++;
	}
	sort_ui = u;
	qsort(u->rows, (size_t)u->nrows, sizeof(*u->rows), row_cmp);
	if (sel_name[0])
		follow_selection(u, sel_name, s);
	if (u->sel >= u->nrows)
		u->sel = u->nrows ? u->nrows - 1 : 0;
}

/*
 * One row's cell for column f into v, w columns: the catalogue's text (cut
 * with a marker; a mount as every pane cuts one), or the sparkline. The bytes beyond
 * its columns, for the padding.
 */
static int dev_cell(const struct ui *u, const struct devrow *r, const struct wb_field *f, enum dev_kind k, int w,
		    char *v, size_t n)
{
	if (k == DK_SPARK) {
		ui_sparkline(u, r->b->name, false, r->bl ? (double)r->bl->thresh : 0, v, n, w); /* pages, as the strip */
		return 0;
	}
	wb_ui_dev_cell(f, u->view, r->i, v, n);
	return k == DK_MOUNT ? ui_path_cut(v, n, w, u->utf8) : ui_cut(v, n, w, u->utf8);
}

/* Column c's drop priority: 99 (never shown) for a hidden one, and for the what-if's without --set. */
static int dev_prio(const struct ui *u, const struct wb_field *const *col, int c)
{
	return (!u->whatif_ok && is_col(col[c], "IF-THRESH")) || ui_column_hidden(u, WB_TABLE_DEVICES, c)
	       ? 99 : col[c]->prio;
}

/* The cells of the longest state word ("over-limit"): STATE's least, its ":device" cut, marked. */
static int state_word_w(void)
{
	int w = 0;

	for (int s = 0; s < WB_ST_COUNT; s++)
		w = (int)strlen(wb_bdi_state_names[s]) > w ? (int)strlen(wb_bdi_state_names[s]) : w;
	return w;
}

/* The cells row r's cell of column c takes in w (DEVICE's marker cell in them): a label cut at its end
 * all w, a mount point's tail maybe one fewer (a wide character). */
static int cell_cols(const struct ui *u, const struct devrow *r, const struct wb_field *f, int c, int w)
{
	char v[512];

	dev_cell(u, r, f, dev_kind[c], w - (c == 0), v, sizeof(v));
	return wb_text_cols(v) + (c == 0);
}

/*
 * Which columns fit, sorted by column `sorted` (its mark widens it), and their widths: DEVICE and MOUNT
 * grow into the room left as far as they show more (ui_grow_columns), and the sparkline takes the rest. STATE, the row's
 * verdict, takes the room left down to its state word where its full width does not fit: at 80 columns
 * IF-THRESH (--set) left it one cell short, and it went.
 */
static void dev_layout(const struct ui *u, const struct wb_field *const *col, int nc, int sorted, int *width,
		       bool *shown)
{
	int prio[DEV_MAX_COLS] = { 0 }, full[DEV_MAX_COLS] = { 0 }, least[DEV_MAX_COLS] = { 0 }, left;

	for (int c = 0; c < nc; c++) {
		full[c] = ui_column_width(col[c], c == sorted);
		prio[c] = dev_prio(u, col, c);
		if (is_col(col[c], "STATE"))
			least[c] = state_word_w() > full[c] ? full[c] : state_word_w();
	}
	wb_layout_columns_min(full, least, width, nc, prio, ui_cols(u) - 1, shown);
	left = ui_grow_columns(u, col, nc, width, shown, ui_cols(u) - 1, cell_cols);
	for (int c = 0; c < nc; c++)
		if (shown[c] && is_col(col[c], "DIRTY HISTORY") && left > 0)
			width[c] += left;
}

bool ui_dev_column_fits(const struct ui *u, int c)
{
	size_t n;
	const struct wb_field *const *col = dev_cols(&n);
	int width[DEV_MAX_COLS];
	bool shown[DEV_MAX_COLS];

	if (c < 0 || (size_t)c >= n)
		return false;
	if (ui_cols(u) <= 0) /* keys without a screen: no width to leave a column out */
		return dev_prio(u, col, c) < 99;
	dev_layout(u, col, (int)n, c, width, shown);
	return shown[c];
}

const char *ui_dev_column_absent(const struct ui *u, int c)
{
	size_t n;
	const struct wb_field *const *col = dev_cols(&n);
	int width[DEV_MAX_COLS];
	bool shown[DEV_MAX_COLS];

	if (c < 0 || (size_t)c >= n || ui_cols(u) <= 0 || ui_column_hidden(u, WB_TABLE_DEVICES, c))
		return NULL;
	if (!u->whatif_ok && is_col(col[c], "IF-THRESH"))
		return "--set only";
	dev_layout(u, col, (int)n, u->sort_col, width, shown);
	return shown[c] ? NULL : "no room";
}

/* The sortable column whose title is under screen column x, or -1. */
int ui_dev_column_at(const struct ui *u, int x)
{
	size_t n;
	const struct wb_field *const *col = dev_cols(&n);
	int nc = (int)n, width[DEV_MAX_COLS], at = 0;
	bool shown[DEV_MAX_COLS];

	dev_layout(u, col, nc, u->sort_col, width, shown);
	for (int c = 0; c < nc; c++) {
		if (!shown[c])
			continue;
		if (x >= at && x <= at + width[c]) /* the title and the space after it */
			return c < ui_dev_columns() ? c : -1;
		at += width[c] + 1;
	}
	return -1;
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
	dev_layout(u, col, nc, u->sort_col, width, shown);
	wb_grid_hline(u->grid, y, 0, WB_R_TITLE, ui_cols(u));
	for (int c = 0; c < nc; c++) {
		if (!shown[c])
			continue;
		ui_title_cell(col[c], width[c], c == u->sort_col ? ui_sort_mark(u->sort_desc) : NULL, buf, sizeof(buf));
		wb_grid_put(u->grid, y, x, WB_R_TITLE, buf, width[c]);
		x += width[c] + 1;
	}
	y++;
	h--;
	if (u->nrows == 0) {
		char note[96];
		ui_put(u, y, 1, WB_R_NA, ui_cur(u)->nbdis ? ui_no_rows_note(u, note, sizeof(note))
						       : "n/a: /sys/class/bdi unreadable: no devices known");
		return;
	}
	/* also when the list shrank (devices gone, a filter): no rows hidden above a short list */
	ui_scroll_to(&u->sel, &u->scroll, u->nrows, h);
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
			const char *cell = buf;
			int pad = ui_mark_pad(col[c], c == u->sort_col), extra, w;
			if (!shown[c])
				continue;
			extra = dev_cell(u, r, col[c], dev_kind[c], width[c] - (c == 0), v, sizeof(v));
			w = width[c] + extra; /* in bytes: the cut left `extra` more bytes than cells */
			if (dev_kind[c] == DK_SPARK) /* as wide as its column already */
				cell = v;
			else if (c == 0) /* the first column leads with the marker's cell */
				ui_pad(buf, sizeof(buf), " ", v, w > 1 ? w - 1 : 0, 0);
			else if (col[c]->left)
				ui_pad(buf, sizeof(buf), "", v, w, 0);
			else /* a sorted column's values end under its title, not under the mark */
				ui_pad(buf, sizeof(buf), "", v, w > pad ? pad - w : 0, pad);
			/* the cell's text is safe already (wb_ui_dev_cell, the sparkline's blocks) */
			wb_grid_put(u->grid, y, x, dev_kind[c] == DK_SPARK && role == WB_R_NORMAL ? WB_R_DIRTY : role,
				    cell, -1);
			x += width[c] + 1;
		}
		if (sel) {
			wb_grid_attrs(u->grid, 0);
			ui_put(u, y, 0, WB_R_SELECTED, ">"); /* a marker, not a bar over the row's state */
		}
	}
}

