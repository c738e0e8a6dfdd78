/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Batch sinks: readable text (like top -b), JSON Lines, CSV. Each takes a
 * view: the sample, the one before it (for rates), and the model's output.
 * Everything a person or program reads is in bytes, bytes/s and seconds;
 * a value that is not known is left out (JSON) or empty (CSV), never 0.
 */
#ifndef WBTOP_OUT_H
#define WBTOP_OUT_H

#include <stdio.h>

#include "wbtop/forecast.h"
#include "wbtop/model.h"
#include "wbtop/sample.h"

struct wb_view {
	const struct wb_sample *prev;   /* NULL for the first sample */
	const struct wb_sample *cur;
	const struct wb_limits *lim;    /* model, current settings; NULL if not run */
	const struct wb_limits *whatif; /* model under --set; NULL without */
	const struct wb_forecast *forecast;        /* --forecast, current settings */
	const struct wb_forecast *whatif_forecast; /* --forecast with --set */
};

void wb_out_json(FILE *f, const struct wb_view *v);
void wb_out_text(FILE *f, const struct wb_view *v);
void wb_out_csv_header(FILE *f);
void wb_out_csv(FILE *f, const struct wb_view *v);

/* "1.5G", "640K": human-readable bytes into buf (>= 16 bytes). */
const char *wb_fmt_bytes(char *buf, size_t len, double bytes);

#endif
