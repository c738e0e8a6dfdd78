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

#define WB_CONFIG_MAX_HIDDEN 16
#define WB_CONFIG_NAME 32

struct wb_config {
	char theme[64];                /* "" unset */
	double warn, crit;             /* percent; 0 unset */
	double delay;                  /* seconds; 0 unset */
	char sort[WB_CONFIG_NAME];     /* a Devices column title; "" unset */
	int sort_desc;                 /* 1/0; -1 unset */
	int hide_idle, hide_loop;      /* 1/0; -1 unset */
	char hidden[WB_CONFIG_MAX_HIDDEN][WB_CONFIG_NAME]; /* Devices column titles not shown */
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
 * and returns -1 with "PATH:LINE: what" in msg.
 */
int wb_config_load(struct wb_config *c, const char *path, char *msg, size_t n);
/*
 * Write c to path: a temporary file in the same folder (created, never
 * followed through a link) renamed over it; the folder is made if missing.
 * 0, or -1 with a message.
 */
int wb_config_save(const struct wb_config *c, const char *path, char *msg, size_t n);

#endif
