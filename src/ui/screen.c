// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The terminal side of drawing: theme roles as curses attributes, and the
 * grid the panes drew copied to the screen. Only this file draws with curses.
 */
#include <curses.h>
#include <string.h>

#include "ui_internal.h"

/*
 * The grid as last copied to curses: only the cells that changed since are
 * written again, and a frame with no changed cell does not refresh at all
 * (erase() and rewriting all of a 200x60 screen were 1.6 M of the 5.5 M
 * user-space instructions of bench_frame's frame, and refresh() then compared
 * every line with the terminal's). One screen, like curses' own stdscr.
 */
static struct wb_grid shown;
static bool shown_valid;

/* WB_A_* as curses attributes. */
static attr_t curses_attrs(unsigned a)
{
	static const struct { unsigned wb; attr_t c; } map[] = {
		{ WB_A_BOLD, A_BOLD }, { WB_A_REVERSE, A_REVERSE }, { WB_A_UNDERLINE, A_UNDERLINE }, { WB_A_DIM, A_DIM },
	};
	attr_t r = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (a & map[i].wb)
			r |= map[i].c;
	return r;
}

/* A theme role as curses attributes (colour pair and all). */
static attr_t ui_attr(const struct ui *u, enum wb_role r)
{
	attr_t a = curses_attrs(u->theme.role[r].attrs);

	if (!u->theme.mono && has_colors())
		a |= COLOR_PAIR(r + 1);
	return a;
}

void ui_apply_theme(struct ui *u)
{
	shown_valid = false; /* every cell's colours may change: the next flush writes them all */
	if (!has_colors() || u->theme.mono) {
		bkgd(ui_attr(u, WB_R_NORMAL)); /* no colour pair: not the previous theme's background */
		return;
	}
	for (int r = 0; r < WB_R_COUNT; r++) {
		const struct wb_style *s = &u->theme.role[r];
		bool wide = COLORS >= 256;
		init_pair((short)(r + 1), wide ? s->fg : s->fg8, wide ? s->bg : s->bg8);
	}
	bkgd(ui_attr(u, WB_R_NORMAL));
}

/* A cell as erase() leaves it: nothing to write. */
static bool is_blank(const struct wb_cell *c)
{
	return c->ch[0] == ' ' && !c->ch[1] && c->role == WB_R_NORMAL && !c->attrs;
}

/*
 * Write the run of cells from y, *x (before end) that share one role and
 * attributes; *x moves past it. Blanks end a run unless blanks is set (a
 * changed stretch, where a blank must overwrite what was there).
 */
static void flush_run(const struct ui *u, const struct wb_cell *row, int y, int *x, int end, bool blanks)
{
	const struct wb_cell *first = &row[*x], *c;
	char run[2048];
	size_t len = 0;
	int x0 = *x;
	attr_t a = ui_attr(u, (enum wb_role)first->role) | curses_attrs(first->attrs);

	while (*x < end && (c = &row[*x], blanks || !is_blank(c)) && c->role == first->role &&
	       c->attrs == first->attrs && len + sizeof(c->ch) < sizeof(run)) {
		for (const char *p = c->ch; *p; p++)
			run[len++] = *p;
		(*x)++;
	}
	run[len] = '\0';
	attron(a);
	mvaddstr(y, x0, run);
	attroff(a);
}

static bool same(const struct wb_cell *a, const struct wb_cell *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* Unchanged cells between two changed ones written anyway: one call instead of two. */
#define MERGE_GAP 8

/* The cells of row y that differ from old (what curses holds), in stretches. */
static void flush_changes(const struct ui *u, const struct wb_cell *row, const struct wb_cell *old, int y)
{
	int w = u->grid->w;

	for (int x = 0; x < w;) {
		int a = x, b = x + 1;
		if (same(&row[x], &old[x])) {
			x++;
			continue;
		}
		for (int k = b; k < w && k - b < MERGE_GAP; k++)
			if (!same(&row[k], &old[k]))
				b = k + 1;
		/* a wide character, before or now, is written whole */
		while (a > 0 && (!row[a].ch[0] || !old[a].ch[0]))
			a--;
		while (b < w && (!row[b].ch[0] || !old[b].ch[0]))
			b++;
		for (x = a; x < b;)
			flush_run(u, row, y, &x, b, true);
	}
}

void ui_flush(const struct ui *u)
{
	const struct wb_grid *g = u->grid;
	bool full = !shown_valid || shown.w != g->w || shown.h != g->h, any = full;
	size_t rowb = (size_t)(g->w > 0 ? g->w : 0) * sizeof(struct wb_cell);

	if (full)
		erase();
	for (int y = 0; y < g->h && g->w > 0; y++) {
		const struct wb_cell *row = wb_grid_at(g, y, 0);
		if (!full) {
			struct wb_cell *old = &shown.cell[(size_t)y * (size_t)g->w]; /* the same size as g */
			if (memcmp(row, old, rowb) != 0) {
				flush_changes(u, row, old, y);
				memcpy(old, row, rowb); /* what curses holds now: changed rows only */
				any = true;
			}
			continue;
		}
		for (int x = 0; x < g->w;) {
			if (is_blank(&row[x]))
				x++;
			else
				flush_run(u, row, y, &x, g->w, false);
		}
	}
	if (any)
		refresh();
	if (!full)
		return;
	/* no copy (out of memory): the next flush writes every row */
	shown_valid = wb_grid_resize(&shown, g->w, g->h) == 0;
	if (shown_valid && rowb)
		memcpy(shown.cell, g->cell, rowb * (size_t)g->h);
}
