/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A trace instance's per-CPU raw buffers, kept open between drains: every
 * drain reads what each CPU holds (non-blocking, a sub-buffer per read, or
 * in place through a mapping of the buffer where the kernel offers one) and
 * hands the records to a callback oldest first across CPUs, as
 * tracefs_iterate_raw_events() does, without opening and closing the
 * buffers, the header page and the stats files each time.
 */
#ifndef WBTOP_TRACEBUF_H
#define WBTOP_TRACEBUF_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event-parse.h>
#include <tracefs.h>

#include "wbtop/kvfile.h"

struct wb_tracebuf;

/* Called for each record of an event known to tep (others are skipped). */
typedef int (*wb_tracebuf_fn)(struct tep_event *ev, struct tep_record *r, int cpu, void *ctx);

/* How the records are taken from the kernel: the same records in the same order, and overruns, each way. */
enum wb_tb_path {
	WB_TB_READ,   /* read(), a sub-buffer a call */
	WB_TB_SPLICE, /* the full sub-buffers spliced into a pipe and read out at once, the last read() */
	WB_TB_MAP,    /* walked where they are, mapped (Linux 6.10+); a CPU that cannot be is read() */
};

/*
 * Open every possible CPU's buffer of inst; NULL on failure. Free with
 * wb_tracebuf_destroy(). pollable: inst's buffer_percent is 0, so that
 * poll() says readable as soon as a buffer holds a record (at the default
 * 50 it waits for half a buffer); the buffers are then handed out to poll.
 */
struct wb_tracebuf *wb_tracebuf_create(struct tracefs_instance *inst, struct tep_handle *tep, bool pollable,
				       enum wb_tb_path path);
/* Whether b splices (WB_TB_SPLICE asked, and neither the pipe nor a splice has failed yet). */
bool wb_tracebuf_splicing(const struct wb_tracebuf *b);
/* Sub-buffers spliced so far, all CPUs. */
size_t wb_tracebuf_spliced(const struct wb_tracebuf *b);
/* How many of the CPUs' buffers are mapped (the rest are read()), of how many. */
int wb_tracebuf_mapped(const struct wb_tracebuf *b);
int wb_tracebuf_ncpu(const struct wb_tracebuf *b);
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
/* Events the kernel lost (all CPUs, cumulative, from per_cpu/cpuN/stats). */
unsigned long long wb_tracebuf_overruns(struct wb_tracebuf *b);
/*
 * The events one per_cpu/cpuN/stats text says were lost: overwritten
 * ("overrun"), lost to a nested writer filling the buffer ("commit
 * overrun") and refused with the buffer full ("dropped events").
 */
unsigned long long wb_rb_lost(const char *stats);

/*
 * One sub-buffer of this machine's own ring buffer, walked record by record
 * as libtraceevent's kbuffer does (same records, times and sizes), with
 * the header decoded inline: kbuffer reads each 4 bytes through a function
 * pointer, which under load was most of what a skipped record cost.
 */
struct wb_subbuf {
	const unsigned char *data; /* the records (after the page header) */
	uint32_t size, next;       /* committed bytes; offset of the next header */
	unsigned long long ts;     /* time of the record last returned */
};
/* Start on a sub-buffer of len bytes (0 records if it is shorter than its header). */
void wb_subbuf_load(struct wb_subbuf *w, const void *sub, size_t len);
/* The next record's data (its time in w->ts, its length in *len), or NULL at the end. */
const void *wb_subbuf_next(struct wb_subbuf *w, uint32_t *len);

#endif
