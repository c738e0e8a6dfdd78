/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A trace instance's per-CPU raw buffers, kept open between drains: every
 * drain reads what each CPU holds (non-blocking, a sub-buffer per read) and
 * hands the records to a callback oldest first across CPUs, as
 * tracefs_iterate_raw_events() does, without opening and closing the
 * buffers, the header page and the stats files each time.
 */
#ifndef WBTOP_TRACEBUF_H
#define WBTOP_TRACEBUF_H

#include <event-parse.h>
#include <tracefs.h>

struct wb_tracebuf;

/* Called for each record of an event known to tep (others are skipped). */
typedef int (*wb_tracebuf_fn)(struct tep_event *ev, struct tep_record *r, int cpu, void *ctx);

/* Open every possible CPU's buffer of inst; NULL on failure. Free with wb_tracebuf_destroy(). */
struct wb_tracebuf *wb_tracebuf_create(struct tracefs_instance *inst, struct tep_handle *tep);
void wb_tracebuf_destroy(struct wb_tracebuf *b); /* NULL-safe */
/* Read everything buffered and call fn in time order. 0, or -1 on a read error. */
int wb_tracebuf_drain(struct wb_tracebuf *b, wb_tracebuf_fn fn, void *ctx);
/* Events the kernel overwrote (all CPUs, cumulative, from per_cpu/cpuN/stats). */
unsigned long long wb_tracebuf_overruns(struct wb_tracebuf *b);

#endif
