// SPDX-License-Identifier: GPL-2.0-or-later
/* Screen geometry as pure functions. */
#include <stdio.h>

#include "wbtop/layout.h"
#include "wbtop/ui.h"
#include "wbtop/util.h"

int wb_layout_columns_min(const int *width, const int *min, int *got, int n, const int *prio, int avail,
			  bool *shown)
{
	int used = 0;

	for (int i = 0; i < n; i++) {
		shown[i] = false;
		if (got)
			got[i] = width[i];
	}
	for (int p = 0; p <= 9; p++)
		for (int i = 0; i < n; i++) {
			int room = avail - used - (used ? 1 : 0), w = width[i];
			if (prio[i] != p)
				continue;
			if (w > room && min && min[i] > 0 && min[i] <= room) /* what is left, down to its least */
				w = room;
			if (got)
				got[i] = w;
			if (w <= room) {
				used += w + (used ? 1 : 0);
				shown[i] = true;
			}
		}
	return used;
}

int wb_layout_columns(const int *width, const int *prio, int n, int avail, bool *shown)
{
	return wb_layout_columns_min(width, NULL, NULL, n, prio, avail, shown);
}

int wb_layout_meter_pos(double v, double max, int w)
{
	double x;

	if (max <= 0 || w <= 0 || v <= 0)
		return 0;
	x = v / max * w;
	return x >= w ? w : (int)x;
}

size_t wb_ui_dev_columns(const struct wb_field **col, size_t max)
{
	size_t n;
	const struct wb_field *t = wb_catalog_bdi(&n);

	return wb_catalog_columns(t, n, WB_SINK_UI, col, max);
}

const char *wb_ui_dev_cell(const struct wb_field *f, const struct wb_view *v, size_t i, char *buf, size_t n)
{
	struct wb_fctx c;
	struct wb_value x;
	char raw[WB_PATH_LEN + 16];

	wb_catalog_ctx(&c, v, v->lim, i);
	x = f->get(&c);
	return wb_safe_text(wb_catalog_show(f, &x, raw, sizeof(raw)), buf, n);
}
