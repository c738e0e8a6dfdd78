/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A plotting canvas for the terminal: lines, dashed lines and bands drawn in
 * data coordinates onto a grid of cells, each cell a glyph and a theme role.
 * Braille cells give 2x4 dots each, block characters 1x2, ASCII 1x1. Pure:
 * no curses; the Graph pane copies the cells to the screen (or a test to a
 * text grid).
 */
#ifndef WBTOP_PLOT_H
#define WBTOP_PLOT_H

#include <stdbool.h>
#include <stddef.h>

enum wb_plot_glyphs { WB_PLOT_BRAILLE, WB_PLOT_BLOCK, WB_PLOT_ASCII };

struct wb_plot;

/* A canvas of cols x rows cells. NULL on out of memory or a size under 1x1.
 * Free with wb_plot_destroy() (NULL-safe). */
struct wb_plot *wb_plot_create(int cols, int rows, enum wb_plot_glyphs g);
void wb_plot_destroy(struct wb_plot *p);
/* The data window: x0..x1 left to right, y0..y1 bottom to top (x1 > x0, y1 > y0). */
void wb_plot_window(struct wb_plot *p, double x0, double x1, double y0, double y1);
/*
 * A line through (x[i], y[i]); a NaN y or one above the window breaks it. Dashed: every other pair
 * of dots left out (the forecast, a pinned forecast). Later drawing takes a
 * shared cell's role.
 */
void wb_plot_line(struct wb_plot *p, const double *x, const double *y, size_t n, int role, bool dashed);
/* A horizontal line at y over the whole width. */
void wb_plot_hline(struct wb_plot *p, double y, int role, bool dashed);
/* A vertical line at x over the whole height ("now"). */
void wb_plot_vline(struct wb_plot *p, double x, int role);
/* Fill between lo[i] and hi[i] at x[i] (a forecast's p10..p90 band). */
void wb_plot_band(struct wb_plot *p, const double *x, const double *lo, const double *hi, size_t n, int role);
/*
 * Cell (c, r), r = 0 the top row: its glyph (UTF-8, static or owned by p,
 * valid until the next drawing) and role; " " with role -1 when empty.
 */
const char *wb_plot_cell(const struct wb_plot *p, int c, int r, int *role);
/* A "nice" upper bound for values up to v: 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of 10 (binary: of
 * 10 and 1024, 110M is 150M); every plot's axis. */
double wb_plot_nice_max(double v, bool binary);

#endif
