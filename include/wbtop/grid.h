/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The screen as a grid of cells: the panes draw into it, curses only copies
 * it to the terminal (src/ui/screen.c), and the screen tests read it back
 * as text. Nothing here needs a terminal.
 */
#ifndef WBTOP_GRID_H
#define WBTOP_GRID_H

#include <stdbool.h>
#include <stddef.h>

/* One column of the screen. */
struct wb_cell {
	char ch[12];          /* one code point in UTF-8 (with any combining marks after it);
			       * "" on the right half of a wide character */
	unsigned char role;   /* enum wb_role */
	unsigned char attrs;  /* WB_A_* added to the role's own (the selection's bold) */
};

struct wb_grid {
	int w, h;
	struct wb_cell *cell; /* h rows of w; owned, freed by wb_grid_finish() */
	unsigned attrs;       /* WB_A_* added to everything drawn (wb_grid_attrs()) */
};

void wb_grid_init(struct wb_grid *g);
void wb_grid_finish(struct wb_grid *g);
/* Make g w x h (negative counts as 0), blank. 0, or -ENOMEM (g unchanged). */
int wb_grid_resize(struct wb_grid *g, int w, int h);
/* Every cell a blank in the normal role; the added attributes off. */
void wb_grid_erase(struct wb_grid *g);
/* Add attributes (WB_A_*) to what is drawn from now on; 0 stops. */
void wb_grid_attrs(struct wb_grid *g, unsigned attrs);
/*
 * Write UTF-8 text s at y, x in role, at most maxw columns (< 0: to the
 * edge), clipped to the grid; a wide character takes two cells, or none
 * when only one is left. The columns written.
 */
int wb_grid_put(struct wb_grid *g, int y, int x, int role, const char *s, int maxw);
/* The columns of the character at s (a wide one 2, a combining mark 0) and in *len its bytes; s not at its end. */
int wb_text_char(const char *s, size_t *len);
/* The columns UTF-8 text s takes in the grid. */
int wb_text_cols(const char *s);
/* The bytes of the longest start of s that fits in w columns, whole characters. */
size_t wb_text_fit(const char *s, int w);
/* n blanks in role from y, x (clipped): a bar under a title. */
void wb_grid_hline(struct wb_grid *g, int y, int x, int role, int n);
/* Blanks in the normal role from y, x to the end of the line. */
void wb_grid_clear_eol(struct wb_grid *g, int y, int x);
/* The cell at y, x, or NULL outside the grid. */
const struct wb_cell *wb_grid_at(const struct wb_grid *g, int y, int x);
/* Line y as UTF-8 into buf (cut to n), trailing blanks dropped; the bytes written. */
size_t wb_grid_line(const struct wb_grid *g, int y, char *buf, size_t n);

#endif
