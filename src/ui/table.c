// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the panes' tables share: the cursor kept in view, a line of catalogue
 * columns, a title with the rows shown, how many rows the current table has.
 */
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"
#include "wbtop/catalog.h"
#include "wbtop/layout.h"
#include "wbtop/util.h"

/* Keep the cursor *sel of a table of n rows, rows of them shown from *first, in view. */
void ui_scroll_to(int *sel, int *first, int n, int rows)
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

int ui_cut(char *s, size_t n, int w, bool utf8)
{
	size_t at, bytes = strlen(s);
	int cols = wb_text_cols(s);
	const char *mark = ui_cut_mark(utf8);

	if (cols <= w || w <= 0)
		return (int)bytes - cols;
	at = wb_text_fit(s, w - 1);
	if (at + strlen(mark) >= n) /* no room for "…" in s: the ASCII marker, one byte */
		mark = ui_cut_mark(false);
	snprintf(s + at, n - at, "%s", mark);
	return (int)(at + strlen(mark)) - wb_text_cols(s);
}

int ui_path_cut(char *p, size_t n, int w, bool utf8)
{
	const char *mark = ui_cut_mark(utf8);
	int cols = wb_text_cols(p);
	char *t = p;
	size_t len;

	if (cols <= w || w <= 1)
		return ui_cut(p, n, w, utf8);
	/* the tail: from the first character after which w - 1 columns are left, a combining
	 * mark not first (alone it would sit on the marker) */
	while (*t && (cols > w - 1 || wb_text_char(t, &len) == 0)) {
		cols -= wb_text_char(t, &len);
		t += len;
	}
	/*
	 * A fragment of a component too short to know it by ("…8/disk" read as a
	 * path "8/disk", a review) goes: from its '/' on, where it is
	 * UI_PATH_FRAGMENT columns or fewer; a longer one stays ("…aLBy8/stick":
	 * each cell of a wider column shows more).
	 */
	char *slash = *t != '/' ? strchr(t, '/') : NULL;

	if (slash && slash[1]) {
		int frag = 0;

		for (const char *c = t; c < slash; c += len)
			frag += wb_text_char(c, &len);
		if (frag <= UI_PATH_FRAGMENT)
			t = slash;
	}
	if (strlen(t) + strlen(mark) >= n) /* no room for "…" in p: the ASCII marker, one byte */
		mark = ui_cut_mark(false);
	memmove(p + strlen(mark), t, strlen(t) + 1);
	memcpy(p, mark, strlen(mark));
	return (int)strlen(p) - wb_text_cols(p);
}

int ui_column_width(const struct wb_field *f, bool sorted)
{
	int need = (int)strlen(f->title) + 2;

	if (!sorted)
		return f->width;
	return !f->left ? f->width + 2 : need > f->width ? need : f->width;
}

void ui_title_cell(const struct wb_field *f, int w, const char *mark, char *buf, size_t n)
{
	char t[64];

	snprintf(t, sizeof(t), mark ? "%s %s" : "%s", f->title, mark);
	snprintf(buf, n, f->left ? "%-*s" : "%*s", w, t);
}

/*
 * A table line: the titles (c NULL; the sorted column's with mark beside it
 * when mark is not NULL) or an entity's values, the sorted column as wide as
 * its marked title.
 */
static void table_line(const struct wb_field *const *col, size_t m, const struct wb_fctx *c,
		       const struct wb_field *sorted, const char *mark, char *line, size_t n)
{
	size_t o = 0;

	line[0] = '\0';
	for (size_t k = 0; k < m && o < n; k++) {
		char buf[256];
		const char *txt = buf;
		int w = ui_column_width(col[k], col[k] == sorted), pad;
		if (c) {
			struct wb_value x = col[k]->get(c);
			txt = wb_catalog_show(col[k], &x, buf, sizeof(buf));
		} else {
			ui_title_cell(col[k], w, col[k] == sorted ? mark : NULL, buf, sizeof(buf));
		}
		pad = ui_mark_pad(col[k], c && col[k] == sorted); /* values end under the title, not the mark */
		w += (int)strlen(txt) - wb_text_cols(txt); /* printf pads in bytes: a COMM in CJK is 3 a 2 columns */
		if (col[k]->left)
			w = snprintf(line + o, n - o, "%s%-*s", k ? " " : "", w, txt);
		else
			w = snprintf(line + o, n - o, "%s%*s%*s", k ? " " : "", w - pad, txt, pad, "");
		o += w > 0 ? (size_t)w : 0;
	}
}

void ui_table_line(const struct wb_field *const *col, size_t m, const struct wb_fctx *c,
		   const struct wb_field *sorted, char *line, size_t n)
{
	table_line(col, m, c, sorted, NULL, line, n);
}

void ui_table_titles(const struct wb_field *const *col, size_t m, const struct wb_field *sorted, bool desc, char *line,
		     size_t n)
{
	table_line(col, m, NULL, sorted, ui_sort_mark(desc), line, n);
}

/*
 * The columns of the device-row tables that grow into the room a wide terminal leaves, in this
 * order, each as far as that shows more of its cells and at most max cells: at 200 columns the
 * Devices pane's MOUNT stayed 8 cells ("…/stick") and the Flusher pane's DEVICE 13
 * ("btrfs-102:lo…"), the history beside them taking the rest.
 */
static const struct {
	const char *title;
	int max;
} grows[] = {
	{ "DEVICE", 24 },    /* the Devices pane's, its first cell the selection's marker */
	{ "DEV-MOUNT", 24 }, /* the Flusher pane's DEVICE: the label and its mount where the mount fits (cut) */
	{ "MOUNT", 40 },
};

int ui_grow_max(const char *title)
{
	for (size_t g = 0; g < sizeof(grows) / sizeof(grows[0]); g++)
		if (strcmp(title, grows[g].title) == 0)
			return grows[g].max;
	return 0;
}

int ui_grow_columns(const struct ui *u, const struct wb_field *const *col, int nc, int *width, const bool *shown,
		    int avail, ui_cell_cols_fn cols)
{
	int left = avail;

	for (int c = 0; c < nc; c++)
		left -= shown[c] ? width[c] + 1 : 0;
	left++; /* no blank after the last column */
	for (size_t g = 0; g < sizeof(grows) / sizeof(grows[0]) && left > 0; g++)
		for (int c = 0; c < nc; c++) {
			int to, most = 0;
			if (!shown[c] || strcmp(col[c]->title, grows[g].title))
				continue;
			to = width[c] + left < grows[g].max ? width[c] + left : grows[g].max;
			for (int r = 0; r < u->nrows && u->view; r++) {
				int k = cols(u, &u->rows[r], col[c], c, to);
				most = k > most ? k : most;
			}
			if (most > width[c]) {
				left -= most - width[c];
				width[c] = most;
			}
		}
	return left;
}

/* The zones the table lists: those with managed pages. */
int ui_zone_count(const struct wb_sample *s)
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
		return s ? ui_zone_count(s) : 0;
	if (u->pane == P_PROCS && s && s->procs_valid)
		ui_proc_rows(u, s, &n);
	return u->pane == P_PROCS ? (int)n : u->nrows;
}

/* A table's title, with "3-12/32" (the rows shown, of how many) when not every row fits. */
void ui_title_line(const struct ui *u, int y, const char *title, int first, int rows, int n)
{
	char line[600];

	if (n > rows)
		snprintf(line, sizeof(line), "%s  %d-%d/%d", title, first + 1, first + rows, n);
	else
		snprintf(line, sizeof(line), "%s", title);
	ui_put(u, y, 0, WB_R_TITLE, line);
}

