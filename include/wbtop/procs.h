/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process table (top writers by write_bytes rate, tasks sleeping in
 * balance_dirty_pages) and /proc/diskstats (device-side written sectors),
 * read incrementally: new PIDs only are looked at, kernel threads are
 * skipped, user processes' /proc/PID/io stay open and those of sleeping
 * processes are read less often (all of them when nr_dirtied moved more than
 * the ones read explain). Live /proc only (no fixture root).
 */
#ifndef WBTOP_PROCS_H
#define WBTOP_PROCS_H

#include "wbtop/kvfile.h"
#include "wbtop/sample.h"

#define WB_TOP_PROCS 16

struct wb_procs;

/* NULL on failure (message in d). Free with wb_procs_destroy(). */
struct wb_procs *wb_procs_create(struct wb_diag *d);
void wb_procs_destroy(struct wb_procs *p);
/*
 * Replace s->procs with the top writers since the previous call, and set
 * s->g's WB_G_PROCS_UNREADABLE (processes whose io we may not read).
 */
void wb_procs_read(struct wb_procs *p, struct wb_sample *s, struct wb_diag *d);
/* After a pause: the next read only takes new counters (procs_valid false). */
void wb_procs_restart(struct wb_procs *p);
/* Fill s->bdis[].disk from /proc/diskstats, matched by device name. */
void wb_procs_read_disks(struct wb_procs *p, struct wb_sample *s, struct wb_diag *d);

#endif
