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

#include <poll.h>
#include <stdbool.h>

#include <event-parse.h>
#include <tracefs.h>

#include "wbtop/kvfile.h"

struct wb_tracebuf;

/* Called for each record of an event known to tep (others are skipped). */
typedef int (*wb_tracebuf_fn)(struct tep_event *ev, struct tep_record *r, int cpu, void *ctx);

/*
 * Open every possible CPU's buffer of inst; NULL on failure. Free with
 * wb_tracebuf_destroy(). pollable: inst's buffer_percent is 0, so that
 * poll() says readable as soon as a buffer holds a record (at the default
 * 50 it waits for half a buffer); the buffers are then handed out to poll.
 */
struct wb_tracebuf *wb_tracebuf_create(struct tracefs_instance *inst, struct tep_handle *tep, bool pollable);
void wb_tracebuf_destroy(struct wb_tracebuf *b); /* NULL-safe */
/* Read everything buffered and call fn in time order. 0, or -1 on a read error. */
int wb_tracebuf_drain(struct wb_tracebuf *b, wb_tracebuf_fn fn, void *ctx);
/*
 * The buffers to poll() (POLLIN) before the next drain (none unless
 * pollable): at most max into pf, their count. Their revents go back
 * through wb_tracebuf_polled(); a buffer found empty is not read.
 */
size_t wb_tracebuf_pollfds(const struct wb_tracebuf *b, struct pollfd *pf, size_t max);
void wb_tracebuf_polled(struct wb_tracebuf *b, const struct pollfd *pf, size_t n);
/* The kept buffers of a trace (trace.c), NULL when it reads through libtracefs's iterator. */
struct wb_trace;
struct wb_tracebuf *wb_trace_buffers(struct wb_trace *t);
/* Events the kernel overwrote (all CPUs, cumulative, from per_cpu/cpuN/stats). */
unsigned long long wb_tracebuf_overruns(struct wb_tracebuf *b);

#endif
