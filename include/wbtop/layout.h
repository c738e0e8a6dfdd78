/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Screen geometry as pure functions (unit-tested without a terminal). */
#ifndef WBTOP_LAYOUT_H
#define WBTOP_LAYOUT_H

#include <stdbool.h>

#define WB_MIN_COLS 80
#define WB_MIN_LINES 24

/*
 * Choose which table columns fit in `avail` cells: columns are taken in
 * priority order (lower prio first) while they fit, each followed by one
 * space; shown[i] tells the result. Returns the width used.
 */
int wb_layout_columns(const int *width, const int *prio, int n, int avail, bool *shown);
/*
 * The same, where a column with min[i] > 0 that does not fit at width[i]
 * takes the room left when that is at least min[i]; got[i] (NULL: not
 * wanted) is each column's width as laid out.
 */
int wb_layout_columns_min(const int *width, const int *min, int *got, int n, const int *prio, int avail,
			  bool *shown);

/* Cell (0..w) on a meter of w cells where value v lands for a full scale of max. */
int wb_layout_meter_pos(double v, double max, int w);

/* Does a terminal of cols x lines fit the UI? */
static inline bool wb_layout_fits(int cols, int lines)
{
	return cols >= WB_MIN_COLS && lines >= WB_MIN_LINES;
}

#endif
