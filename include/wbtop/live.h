/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The live source: every kernel collector behind one read call. */
#ifndef WBTOP_LIVE_H
#define WBTOP_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "wbtop/kvfile.h"
#include "wbtop/sample.h"

struct wb_live_opts {
	const char *root;      /* "/" unless reading a fixture tree */
	bool procs;            /* read the process table and diskstats */
	bool mount_debugfs;    /* mount debugfs and tracefs if absent (root only); unmounted at destroy */
	bool trace;            /* level 3: tracepoints in a private instance */
};

struct wb_live;

/* NULL with a message in err on failure. Free with wb_live_destroy(). */
struct wb_live *wb_live_create(const struct wb_live_opts *o, char *err, size_t errlen);
/* Undo what create did (unmounts what it mounted). NULL-safe. */
void wb_live_destroy(struct wb_live *l);
/* Fill s (initialised or previously filled) from the kernel now. */
void wb_live_read(struct wb_live *l, struct wb_sample *s);
/*
 * Whether the next reads need the process table (default: yes, when the
 * options asked for it). While off, samples have procs_valid false, and
 * so has the first sample after it is turned on again (no rates yet).
 */
void wb_live_need_procs(struct wb_live *l, bool on);
/* Is the process table read at all (asked for, and the root is this machine's)? */
bool wb_live_has_procs(const struct wb_live *l);
/* What happened at create (a stale trace instance removed, why tracing is off); owned by l. */
const struct wb_diag *wb_live_notes(const struct wb_live *l);
/*
 * Async-signal-safe: remove the trace instance (rmdir) on a fatal signal, so
 * that a crash does not leave it behind.
 */
void wb_live_crash_cleanup(void);
/* Problems met by the last read; owned by l. */
const struct wb_diag *wb_live_diag(const struct wb_live *l);

#endif
