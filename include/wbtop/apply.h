/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CLI's one-shot tuning modes (apply.c): --set K=V with --apply, --trial
 * or --export-sysctl (or alone: the prediction), and --recover of changes a
 * killed wbtop left unconfirmed. Messages go to stdout and stderr.
 */
#ifndef WBTOP_APPLY_H
#define WBTOP_APPLY_H

#include <stdbool.h>

#define WB_APPLY_MAX_SETS 64

struct wb_apply_opts {
	const char *root;              /* "/" unless a fixture tree */
	const char *const *sets;       /* the --set list, at most WB_APPLY_MAX_SETS */
	int nsets;
	bool apply, export_sysctl;
	double trial;                  /* --trial seconds, 0 = none */
	const char *recover;           /* --recover revert|keep, or NULL: ask on a terminal */
};

/*
 * Validate the --set list on one live sample, predict, and then print the
 * prediction, export it (export_sysctl) or journal, write and read it back
 * (apply; root), keeping it or not after a trial. The exit code: 0, 1 (an
 * error), 2 (a bad value: nothing written).
 */
int wb_apply_run(const struct wb_apply_opts *o);
/*
 * Changes a killed wbtop left unconfirmed: revert, keep, or ask. 0, or -1 if
 * a --recover the user asked for could not be done (a damaged journal, a
 * failed revert).
 */
int wb_apply_recover(const struct wb_apply_opts *o);

#endif
