// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The terminal side of drawing: theme roles as curses attributes, and the
 * grid the panes drew copied to the screen. Only this file draws with curses.
 */
#include <curses.h>
#include <string.h>

#include "ui_internal.h"

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
	if (!has_colors() || u->theme.mono)
		return;
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

/* Write the run of cells from y, *x that share one role and attributes; *x moves past it. */
static void flush_run(const struct ui *u, const struct wb_cell *row, int y, int *x)
{
	const struct wb_cell *first = &row[*x], *c;
	char run[2048];
	size_t len = 0;
	int x0 = *x;
	attr_t a = ui_attr(u, (enum wb_role)first->role) | curses_attrs(first->attrs);

	while (*x < u->grid->w && (c = &row[*x], !is_blank(c)) && c->role == first->role &&
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

void ui_flush(const struct ui *u)
{
	erase();
	for (int y = 0; y < u->grid->h; y++) {
		const struct wb_cell *row = wb_grid_at(u->grid, y, 0);
		for (int x = 0; x < u->grid->w;) {
			if (is_blank(&row[x]))
				x++;
			else
				flush_run(u, row, y, &x);
		}
	}
	refresh();
}
