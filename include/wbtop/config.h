/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The settings file, $XDG_CONFIG_HOME/wbtop/wbtoprc (INI, read with inih):
 * what a person chose in the UI - theme, warn/crit, delay, sort, hidden
 * columns - written back by `W` as top does. A malformed file is reported
 * with its line and ignored whole: the defaults hold.
 */
#ifndef WBTOP_CONFIG_H
#define WBTOP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define WB_CONFIG_MAX_HIDDEN 40
#define WB_CONFIG_NAME 32

struct wb_field;

/* The tables whose columns hidden_columns can hide, as their panes are named. */
enum wb_table { WB_TABLE_DEVICES, WB_TABLE_ZONES, WB_TABLE_PROCS, WB_TABLE_COUNT };

struct wb_config {
	char theme[64];                /* "" unset */
	double warn, crit;             /* percent; 0 unset */
	double delay;                  /* seconds; 0 unset */
	char sort[WB_CONFIG_NAME];     /* a Devices column title; "" unset */
	int sort_desc;                 /* 1/0; -1 unset */
	int hide_idle, hide_loop;      /* 1/0; -1 unset */
	/* columns not shown: "TITLE" (Devices), "Zones:TITLE", "Processes:TITLE" */
	char hidden[WB_CONFIG_MAX_HIDDEN][WB_CONFIG_NAME];
	int nhidden;
};

/* Everything unset. */
void wb_config_init(struct wb_config *c);
/*
 * The user's file: $XDG_CONFIG_HOME/wbtop/wbtoprc, else
 * $HOME/.config/wbtop/wbtoprc. 0, or -1 when neither is set.
 */
int wb_config_path(char *buf, size_t n);
/*
 * Read path into c. A missing file is no error (0, c unset). A file that is
 * not a regular file, too large, or has a bad line or value leaves c unset
 * and returns -1 with "PATH:LINE: what" in msg. Column names in
 * hidden_columns that no table has are left out with a warning: 1, c read,
 * "PATH:LINE: ..." in msg.
 */
int wb_config_load(struct wb_config *c, const char *path, char *msg, size_t n);
/*
 * Write c to path: a temporary file in the same folder (created, never
 * followed through a link) renamed over it; the folder is made if missing.
 * 0, or -1 with a message.
 */
int wb_config_save(const struct wb_config *c, const char *path, char *msg, size_t n);

/* Table t's columns on screen (the field catalogue's), in order; how many (<= max). */
size_t wb_config_columns(enum wb_table t, const struct wb_field **col, size_t max);
/*
 * A hidden_columns name - "TITLE" of a Devices column, or "Zones:TITLE",
 * "Processes:TITLE"; any case - as table *t and column *c. 0; -ENOENT when no
 * table has it; -EPERM for a table's first column (*t and *c set), which
 * names its rows and is always shown.
 */
int wb_config_column(const char *name, enum wb_table *t, int *c);
/* The name of table t's column c as the file spells it, in buf. */
const char *wb_config_column_name(enum wb_table t, int c, char *buf, size_t n);

#endif
