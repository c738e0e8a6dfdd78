// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The columns a person hides: the settings file's hidden_columns applied to
 * the Devices, Zones and Processes tables, and the chooser that c / F2 opens
 * on them (as top's f and htop's F2 do). W writes the choice back.
 */
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"
#include "wbtop/catalog.h"
#include "wbtop/config.h"

#define MAX_COLS 40

static const char *const table_title[WB_TABLE_COUNT] = { "Devices", "Zones", "Processes" };

int ui_pane_table(enum pane p)
{
	switch (p) {
	case P_DEVICES: return WB_TABLE_DEVICES;
	case P_ZONES: return WB_TABLE_ZONES;
	case P_PROCS: return WB_TABLE_PROCS;
	default: return -1;
	}
}

bool ui_column_hidden(const struct ui *u, enum wb_table t, int c)
{
	return c > 0 && c < 32 && (u->hidden[t] >> c & 1u);
}

const char *ui_column_absent(const struct ui *u, enum wb_table t, int c)
{
	/* only the Devices table leaves columns out for width; Zones and Processes fit 80 columns */
	return t == WB_TABLE_DEVICES ? ui_dev_column_absent(u, c) : NULL;
}

size_t ui_table_columns(const struct ui *u, enum wb_table t, const struct wb_field **col, size_t max)
{
	const struct wb_field *all[MAX_COLS];
	size_t n = wb_config_columns(t, all, MAX_COLS), m = 0;

	for (size_t c = 0; c < n && m < max; c++)
		if (!ui_column_hidden(u, t, (int)c))
			col[m++] = all[c];
	return m;
}

void ui_columns_from_config(struct ui *u, const struct wb_config *c)
{
	enum wb_table t;
	int col;

	for (int i = 0; c && i < c->nhidden; i++)
		if (wb_config_column(c->hidden[i], &t, &col) == 0 && col < 32)
			u->hidden[t] |= 1u << col;
}

void ui_columns_to_config(const struct ui *u, struct wb_config *c)
{
	c->nhidden = 0;
	for (int t = 0; t < WB_TABLE_COUNT; t++)
		for (int col = 1; col < 32 && c->nhidden < WB_CONFIG_MAX_HIDDEN; col++)
			if (ui_column_hidden(u, (enum wb_table)t, col))
				wb_config_column_name((enum wb_table)t, col, c->hidden[c->nhidden++], WB_CONFIG_NAME);
}

void ui_columns_open(struct ui *u)
{
	int t = ui_pane_table(u->pane);

	if (t < 0) {
		snprintf(u->status, sizeof(u->status), "c chooses the columns of the Devices, Zones and Processes tables");
		return;
	}
	u->choosing = true;
	u->choose_sel = 1;
}

/* Show or hide the chosen column, and say so. */
static void toggle(struct ui *u, enum wb_table t)
{
	const struct wb_field *col[MAX_COLS];
	size_t n = wb_config_columns(t, col, MAX_COLS);
	int c = u->choose_sel;

	if (c < 1 || (size_t)c >= n || c >= 32)
		return;
	u->hidden[t] ^= 1u << c;
	const char *absent = ui_column_absent(u, t, c);
	/* on but left out ("BW/s shown" while the table had no room for it) */
	if (absent)
		snprintf(u->status, sizeof(u->status), "%s on, not shown (%s); W writes it to the settings file",
			 col[c]->title, absent);
	else
		snprintf(u->status, sizeof(u->status), "%s %s (W writes it to the settings file)", col[c]->title,
			 ui_column_hidden(u, t, c) ? "hidden" : "shown");
}

bool ui_columns_key(struct ui *u, int ch)
{
	int t = ui_pane_table(u->pane);
	const struct wb_field *col[MAX_COLS];
	int n = t < 0 ? 0 : (int)wb_config_columns((enum wb_table)t, col, MAX_COLS);

	if (t < 0) {
		u->choosing = false;
		return false;
	}
	switch (ch) {
	case KEY_UP: u->choose_sel--; break;
	case KEY_DOWN: u->choose_sel++; break;
	case KEY_HOME: case KEY_PPAGE: u->choose_sel = 1; break;
	case KEY_END: case KEY_NPAGE: u->choose_sel = n - 1; break;
	case ' ': case 'd': toggle(u, (enum wb_table)t); break;
	case '\n': case KEY_ENTER: case 27: case 'q': case 'c': case KEY_F(2): u->choosing = false; break;
	default: /* any other key leaves the chooser and does what it does */
		u->choosing = false;
		return false;
	}
	if (u->choose_sel >= n)
		u->choose_sel = n - 1;
	if (u->choose_sel < 1)
		u->choose_sel = 1;
	return true;
}

void ui_draw_columns(struct ui *u, int y, int h)
{
	int t = ui_pane_table(u->pane);
	const struct wb_field *col[MAX_COLS];
	int n = t < 0 ? 0 : (int)wb_config_columns((enum wb_table)t, col, MAX_COLS);
	int rows = h - 2 > 1 ? h - 2 : 1, colw = 22;
	char title[160], line[MAX_COLS][48];

	if (t < 0)
		return;
	snprintf(title, sizeof(title), "%s columns: Up/Down choose, space shows/hides, Enter done, W saves",
		 table_title[t]);
	ui_put(u, y, 0, WB_R_TITLE, title);
	/* on but left out says so, "[x] BW/s (no room)": an [x] read as shown */
	for (int c = 0; c < n; c++) {
		const char *absent = ui_column_absent(u, (enum wb_table)t, c);
		snprintf(line[c], sizeof(line[c]), "%c[%c] %.16s%s%s%s", c == u->choose_sel ? '>' : ' ',
			 c == 0 ? '=' : ui_column_hidden(u, (enum wb_table)t, c) ? ' ' : 'x', col[c]->title,
			 absent ? " (" : "", absent ? absent : "", absent ? ")" : "");
		colw = (int)strlen(line[c]) + 2 > colw ? (int)strlen(line[c]) + 2 : colw;
	}
	for (int c = 0; c < n; c++) {
		int yy = y + 2 + c % rows, x = c / rows * colw;
		bool sel = c == u->choose_sel;
		if (x + (int)strlen(line[c]) > ui_cols(u))
			break;
		ui_put(u, yy, x, sel ? WB_R_SELECTED : c == 0 || ui_column_absent(u, (enum wb_table)t, c)
			   ? WB_R_IDLE : WB_R_NORMAL, line[c]);
	}
}
