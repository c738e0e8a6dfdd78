// SPDX-License-Identifier: GPL-2.0-or-later
/* Screen geometry as pure functions. */
#include "wbtop/layout.h"

int wb_layout_columns(const int *width, const int *prio, int n, int avail, bool *shown)
{
	int used = 0;

	for (int i = 0; i < n; i++)
		shown[i] = false;
	for (int p = 0; p <= 9; p++)
		for (int i = 0; i < n; i++)
			if (prio[i] == p && used + width[i] + (used ? 1 : 0) <= avail) {
				used += width[i] + (used ? 1 : 0);
				shown[i] = true;
			}
	return used;
}

int wb_layout_meter_pos(double v, double max, int w)
{
	double x;

	if (max <= 0 || w <= 0 || v <= 0)
		return 0;
	x = v / max * w;
	return x >= w ? w : (int)x;
}
