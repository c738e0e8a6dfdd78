/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The headless loop (--batch, headless.c): read a source, push each sample
 * through the pipeline (whose own sinks, such as the recorder, take every
 * view) and print the view as text, JSON, CSV or OpenMetrics on stdout;
 * problems on stderr.
 */
#ifndef WBTOP_HEADLESS_H
#define WBTOP_HEADLESS_H

#include <stdbool.h>
#include <stddef.h>

#include "wbtop/source.h"

enum wb_fmt { WB_FMT_TEXT, WB_FMT_JSON, WB_FMT_CSV, WB_FMT_OM };

struct wb_pipeline_sink;

struct wb_headless_opts {
	enum wb_fmt fmt;
	long count;                   /* samples to print; 0 = until the source ends */
	double delay;                 /* live: seconds between samples */
	const char *root;             /* for the message when nothing can be read */
	bool quiet_text;              /* serving metrics: no text unless a format was asked for */
	bool text_unread;             /* recording, its text to a closed stdout: as to /dev/null */
	const char *const *sets;      /* --set list (the what-if) */
	int nsets;
	double forecast;              /* --forecast seconds, 0 = none */
	const struct wb_pipeline_sink *sinks; /* the pipeline's own sinks (the recorder) */
	size_t nsinks;
	bool csv_units;               /* --csv-units: a units row under the CSV header */
	bool no_trace;                /* --no-trace: level 3 is off by choice, not for want of root */
};

/*
 * Run until count samples, the source's end or a signal. The exit code: 0;
 * 1 (nothing readable live, a sink that stopped, stdout failing, out of
 * memory); 2 (the --set list does not apply).
 */
int wb_headless_run(const struct wb_headless_opts *o, struct wb_source *src);

#endif
