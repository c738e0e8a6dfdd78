/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The curses UI. It reads samples through a source (live or replay) and the
 * model's output; it never opens a kernel file itself.
 */
#ifndef WBTOP_UI_H
#define WBTOP_UI_H

#include <stdbool.h>
#include <stddef.h>

#include "wbtop/catalog.h"
#include "wbtop/config.h"
#include "wbtop/util.h"
#include "wbtop/sample.h"
#include "wbtop/source.h"

struct wb_pipeline_sink;

/* May the Tune pane write the kernel? Zero (a --root tree, and any replay) writes nothing. */
enum wb_ui_apply {
	WB_UI_APPLY_NONE = 0,         /* not this machine's kernel: a --root tree, a replay */
	WB_UI_APPLY_LIVE,             /* this machine's kernel, as root */
	WB_UI_APPLY_NOT_ROOT,         /* this machine's kernel, not root: the pane previews and says why */
};

struct wb_ui_opts {
	double delay;                 /* seconds between samples */
	const char *theme;            /* name or path; NULL = default (mono with NO_COLOR) */
	const char *const *theme_dirs;
	double warn_pct, crit_pct;    /* row highlighting, percent of the device's threshold */
	const char *const *sets;      /* --set list for the what-if column */
	int nsets;
	const char *notice;           /* shown on the status line at start (may be NULL) */
	enum wb_ui_apply apply;       /* whether the Tune pane may write, and if not why */
	const char *origin;           /* replay: the recorded host and kernel ("" or NULL unknown) */
	const struct wb_config *cfg;  /* the settings file read at start (sort, hidden); may be NULL */
	const char *cfg_path;         /* where W writes it; NULL: W says it cannot */
	const struct wb_pipeline_sink *sinks;  /* fed every view the UI's pipeline makes (the recorder); may be NULL */
	size_t nsinks;
	const char *record;           /* live --record FILE: the title says REC and its name; NULL: none */
	const struct wb_pipeline_sink *record_sink; /* the recorder, one of sinks: once its error() says it
						     * stopped the title no longer says REC; may be NULL */
};

/* The Devices pane's columns (catalogue rows with a screen position), in order; how many. */
size_t wb_ui_dev_columns(const struct wb_field **col, size_t max);
/*
 * The text of one Devices-pane cell: the catalogue's value for BDI i of the
 * view, "-" when unknown, made safe for a terminal (no curses needed).
 */
const char *wb_ui_dev_cell(const struct wb_field *f, const struct wb_view *v, size_t i, char *buf, size_t n);

/* Run until the user quits or a signal arrives. 0, or 1 with err set. */
int wb_ui_run(const struct wb_ui_opts *o, struct wb_source *src, char *err, size_t errlen);

#endif
