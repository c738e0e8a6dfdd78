/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The WBTOP_* environment variables that take a number, in one table (name,
 * range, default, what a value is): read through wb_env_uint() where they are
 * used, and checked once at the start by wb_env_warn(), so that a value
 * wbtop does not take is said instead of silently replaced by the default.
 */
#ifndef WBTOP_ENV_H
#define WBTOP_ENV_H

#include <stdbool.h>
#include <stdio.h>

enum wb_env {
	WB_ENV_BDI_SLOW_US,       /* a BDI stats read slower than this backs off (bdi.c) */
	WB_ENV_FORECAST_MEMBERS,  /* the forecast band's ensemble (src/model/forecast.c reads it itself) */
	WB_ENV_COUNT
};

/* The variable's value into *v when it is set to one it takes; false (*v untouched) otherwise. */
bool wb_env_uint(enum wb_env e, unsigned *v);
/* One line on f for each variable set to a value it does not take: its name, what it takes, the default used. */
void wb_env_warn(FILE *f);
/* The first of those lines into buf (no "wbtop: "), for the UI's status line, where stderr is hidden; false: none. */
bool wb_env_first_warning(char *buf, size_t n);

#endif
