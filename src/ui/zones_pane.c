// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Zones pane: a row per zone with managed pages, nodes' dirty limits and
 * reclaim below it.
 */
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"
#include "wbtop/catalog.h"
#include "wbtop/layout.h"
#include "wbtop/util.h"

/* The zones table from y, scrolled to the cursor, leaving the reclaim lines room; the next y. */
static int zone_table(struct ui *u, int y, int end)
{
	const struct wb_sample *s = ui_cur(u);
	const struct wb_field *col[16];
	size_t m = ui_table_columns(u, WB_TABLE_ZONES, col, 16);
	int n = ui_zone_count(s), room = end - y - 1, rows = n <= room - 4 ? n : room - 4 >= 3 ? room - 4 : room;
	char line[512];

	rows = rows < 1 ? 1 : rows;
	ui_scroll_to(&u->zone_sel, &u->zone_scroll, n, rows);
	ui_table_line(col, m, NULL, NULL, line, sizeof(line));
	ui_title_line(u, y++, line, u->zone_scroll, rows, n);
	u->zone_y = y;
	for (size_t i = 0, k = 0; i < s->nzones && y < end; i++) {
		const struct wb_zone *z = &s->zones[i];
		struct wb_fctx c = { .v = u->view, .s = s, .l = u->view->lim, .i = i };
		bool low = z->v[WB_Z_FREE] < z->v[WB_Z_LOW];
		if (!z->v[WB_Z_MANAGED] || (int)k++ < u->zone_scroll)
			continue;
		if ((int)k > u->zone_scroll + rows)
			break;
		ui_table_line(col, m, &c, NULL, line, sizeof(line));
		ui_put(u, y, 0, low ? WB_R_WARN : WB_R_NORMAL, line);
		if ((int)k - 1 == u->zone_sel)
			ui_put(u, y, 0, WB_R_SELECTED, ">");
		y++;
	}
	return y;
}

void ui_draw_zones(struct ui *u, int y, int h)
{
	const struct wb_sample *s = ui_cur(u);
	double P = s->page_size;
	char line[512], a[16], b[16], c[16], d[16];
	int end = y + h;

	if (u->choosing) {
		ui_draw_columns(u, y, h);
		return;
	}
	ui_put(u, y++, 0, WB_R_TITLE, "NODE  DIRTY+WB vs NODE DIRTY LIMIT (new page cache avoids a node over it)");
	for (size_t i = 0; i < s->nnodes && y < end; i++) {
		const struct wb_node *n = &s->nodes[i];
		const struct wb_node_limits *nl = u->lim_ok && i < u->lim.nnodes ? &u->lim.nodes[i] : NULL;
		double dv = (double)n->v[WB_N_DIRTY] * P, wv = (double)n->v[WB_N_WRITEBACK] * P;
		double lim = nl ? (double)nl->limit * P : 0;
		enum wb_role role = ui_limit_figure(u, dv + wv, lim, nl && nl->over, d, sizeof(d));

		snprintf(line, sizeof(line), "%4d", n->id);
		ui_put(u, y, 0, role, line);
		if (nl) {
			struct ui_mark m[] = { { lim, 'L', WB_R_THRESHOLD } };
			ui_meter(u, y, 6, 40, dv, wv, m, 1, lim, nl->over);
		}
		snprintf(line, sizeof(line), "%s + %s / %s  %s", ui_bytes(a, 16, true, dv), ui_bytes(b, 16, true, wv),
			 ui_bytes(c, 16, nl, lim), d);
		ui_put(u, y++, 49, role, line);
	}
	y++;
	if (y < end)
		y = zone_table(u, y, end);
	y++;
	if (y < end) {
		static const struct { const char *n; enum wb_gstat g; bool pages; } rc[] = {
			{ "vmscan_write", WB_G_VMSCAN_WRITE, true }, { "immediate", WB_G_VMSCAN_IMMEDIATE, true },
			{ "throttled_written", WB_G_THROTTLED_WRITTEN, true }, { "pgscan", WB_G_PGSCAN, false },
			{ "pgsteal", WB_G_PGSTEAL, false }, { "allocstall", WB_G_ALLOCSTALL, false },
		};
		int x = 0;
		ui_put(u, y++, 0, WB_R_TITLE, "RECLAIM (per second)");
		for (size_t k = 0; k < sizeof(rc) / sizeof(rc[0]); k++) {
			double r = u->view->g_rate[rc[k].g];
			bool ok = u->view->g_rate_ok[rc[k].g];
			if (ok && rc[k].pages)
				snprintf(line, sizeof(line), "%s %s/s", rc[k].n, ui_bytes(d, 16, true, r * P));
			else if (ok)
				snprintf(line, sizeof(line), "%s %.0f/s", rc[k].n, r);
			else
				snprintf(line, sizeof(line), "%s -", rc[k].n);
			ui_put(u, y, x, ok && r > 0 && k < 3 ? WB_R_WARN : WB_R_NORMAL, line);
			x += (int)strlen(line) + 3;
			if (x > ui_cols(u) - 30) {
				x = 0;
				y++;
			}
		}
	}
}

