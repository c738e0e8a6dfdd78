/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The figures the Graph pane plots, kept per sample over a long span (the
 * pipeline pushes each view, so nothing here is derived a second time): global
 * dirty, writeback and thresholds; per device its level, thresholds (model
 * and kernel), write bandwidth, writer throughput, throttling pauses and
 * flusher wakeups. Bytes, bytes/s and counts; NaN where unknown. When full,
 * the older half is merged pairwise (levels averaged, counts summed), so a
 * long recording keeps its whole span at a coarser step.
 */
#ifndef WBTOP_TIMELINE_H
#define WBTOP_TIMELINE_H

#include <stddef.h>

#include "wbtop/model.h"
#include "wbtop/out.h"
#include "wbtop/sample.h"

enum wb_tl_g {
	WB_TL_G_DIRTY, WB_TL_G_WRITEBACK, WB_TL_G_LEVEL, /* dirty + writeback */
	WB_TL_G_THRESH, WB_TL_G_BG, WB_TL_G_FREERUN, WB_TL_G_KTHRESH,
	WB_TL_G_COUNT
};

enum wb_tl_b {
	WB_TL_B_DIRTY, WB_TL_B_WRITEBACK, WB_TL_B_LEVEL, WB_TL_B_THRESH, WB_TL_B_KTHRESH,
	WB_TL_B_BW, WB_TL_B_WRITER, WB_TL_B_PAUSES, WB_TL_B_WAKEUPS,
	WB_TL_B_COUNT
};

struct wb_timeline;

/* cap points at most (>= 16). NULL on out of memory. Free with wb_timeline_destroy() (NULL-safe). */
struct wb_timeline *wb_timeline_create(size_t cap);
void wb_timeline_destroy(struct wb_timeline *t);
void wb_timeline_clear(struct wb_timeline *t);
/*
 * Add the pipeline's view of a sample: its levels from v->cur, thresholds
 * from v->lim, rates and bandwidth from v->bdi (the figures the other sinks
 * show; NULL lim or bdi: unknown). A sample not newer than the last point
 * is ignored. 0 or -ENOMEM.
 */
int wb_timeline_push(struct wb_timeline *t, const struct wb_view *v);
size_t wb_timeline_len(const struct wb_timeline *t);
/* Point times, oldest first: CLOCK_MONOTONIC and wall seconds (length len). */
const double *wb_timeline_mono(const struct wb_timeline *t);
const double *wb_timeline_wall(const struct wb_timeline *t);
/* A global series (length len). */
const double *wb_timeline_global(const struct wb_timeline *t, enum wb_tl_g k);
/* A device's series by BDI name (length len, NaN before it appeared); NULL if never seen. */
const double *wb_timeline_bdi(const struct wb_timeline *t, const char *bdi, enum wb_tl_b k);

#endif
