/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Level 3: writeback and reclaim tracepoints through libtracefs in a private
 * tracefs instance ("wbtop-PID"), read from the binary per-CPU buffers.
 * The global buffer and other tracers' settings are never touched. The
 * instance is removed on exit (also on signals; a stale one left by kill -9
 * is removed at the next start).
 */
#ifndef WBTOP_TRACE_H
#define WBTOP_TRACE_H

#include <stddef.h>

#include "wbtop/kvfile.h"
#include "wbtop/sample.h"

#define WB_TRACE_PREFIX "wbtop-"

struct wb_trace;

/*
 * Create the instance under the tracefs at tracing_dir (NULL: the mounted
 * one) and enable the low-rate events. NULL with a reason in err (no
 * tracefs, no root, ...). Destroy with wb_trace_destroy().
 */
struct wb_trace *wb_trace_create(const char *tracing_dir, size_t buffer_kb, char *err, size_t errlen);
/* Remove the instance and free everything. NULL-safe. */
void wb_trace_destroy(struct wb_trace *t);
/*
 * Drain the buffers (never blocks) into s: per-BDI counters for the BDIs in
 * s, global reclaim throttling, the hard limit, the event log. Sets
 * s->ev_valid. Returns the number of events read, or -1.
 */
int wb_trace_drain(struct wb_trace *t, struct wb_sample *s, struct wb_diag *d);
/*
 * Remove instances named WB_TRACE_PREFIX<pid> whose process is gone.
 * Writes what it removed into msg. Returns how many.
 */
int wb_trace_remove_stale(const char *tracing_dir, char *msg, size_t len);
/*
 * The mounted tracefs (or debugfs's tracing/), handed to libtracefs so that
 * it never mounts one itself; NULL where none is (looked for again at the
 * next call). Once found, kept.
 */
const char *wb_tracefs_dir(void);
/* Path of the instance directory, for async-signal-safe removal (rmdir). */
const char *wb_trace_instance_path(const struct wb_trace *t);

#endif
