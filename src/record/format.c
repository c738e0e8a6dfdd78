// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lossless sample serialization for recordings. Numbers are zigzag varints,
 * as deltas against the previous sample when the structure is the same
 * (most are 0: one byte each, and zstd folds the runs). Strings are
 * length-prefixed. Every read is bounds-checked: a hostile file can make
 * decoding fail, never overrun or allocate from an unchecked size.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wbrec_internal.h"
#include "wbtop/record.h"

#define MAX_ITEMS 4096  /* zones, BDIs or processes in one frame */
#define MAX_NODES 1024  /* the kernel's MAX_NUMNODES at its largest */
#define MAX_CPUS (1u << 16)
#define MAX_COUNT (1ULL << 62) /* pages or sectors: 16 EiB of 4 KiB pages */
#define MAX_MONO 1e9    /* seconds since boot: 31 years (and t * 1e9 fits an int64 for llround) */
#define MAX_WALL 1e11   /* seconds since 1970: the year 5138 */

uint32_t wbrec_crc32(const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	uint32_t c = 0xffffffffu;

	if (!table[1]) /* built on first use; idempotent if raced */
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t v = i;
			for (int k = 0; k < 8; k++)
				v = (v >> 1) ^ (0xedb88320u & (uint32_t)-(int32_t)(v & 1));
			table[i] = v;
		}
	for (size_t i = 0; i < n; i++)
		c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

void wb_buf_free(struct wb_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static void put(struct wb_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 1024;
		uint8_t *np;
		while (nc < b->len + n)
			nc *= 2;
		np = realloc(b->p, nc);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_uv(struct wb_buf *b, uint64_t v)
{
	uint8_t t[10];

	put(b, t, wbrec_put_uv(t, v));
}

static void put_str(struct wb_buf *b, const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	put_uv(b, n);
	put(b, s, n);
}

/* Encoder state: the previous values, walked in the same order, or NULL. */
struct enc {
	struct wb_buf *b;
	bool delta;
};

/* One number: a zigzag delta against prev, or the value itself. */
static void num(struct enc *e, uint64_t v, uint64_t prev)
{
	uint64_t d = e->delta ? v - prev : v;
	int64_t sd = (int64_t)d;
	put_uv(e->b, ((uint64_t)sd << 1) ^ (uint64_t)(sd >> 63));
}

static uint64_t dbits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	return u;
}

static double bitsd(uint64_t u)
{
	double d;
	memcpy(&d, &u, sizeof(d));
	return d;
}

void wb_rec_structure(const struct wb_sample *s, struct wb_buf *b)
{
	put_uv(b, s->nnodes);
	for (size_t i = 0; i < s->nnodes; i++)
		put_uv(b, (uint64_t)(int64_t)s->nodes[i].id);
	put_uv(b, s->nzones);
	for (size_t i = 0; i < s->nzones; i++) {
		put_uv(b, (uint64_t)(int64_t)s->zones[i].node);
		put_str(b, s->zones[i].name, sizeof(s->zones[i].name));
	}
	put_uv(b, s->nbdis);
	for (size_t i = 0; i < s->nbdis; i++) {
		const struct wb_bdi *x = &s->bdis[i];
		put_str(b, x->name, sizeof(x->name));
		put_str(b, x->dev, sizeof(x->dev));
		put_str(b, x->fstype, sizeof(x->fstype));
		put_uv(b, (uint64_t)x->nmounts);
		for (int m = 0; m < x->nmounts && m < WB_MAX_MOUNTS; m++)
			put_str(b, x->mounts[m], WB_PATH_LEN);
	}
	for (int r = 0; r < WB_REASONS; r++)
		put_str(b, s->reason_names[r], sizeof(s->reason_names[r]));
	for (int r = 0; r < WB_RECLAIM_REASONS; r++)
		put_str(b, s->reclaim_names[r], sizeof(s->reclaim_names[r]));
}

/* The fixed-shape numbers of a sample, in one order for encode and decode. */
#define ARR(e, cur, prev, field, n)                                                      \
	for (size_t k_ = 0; k_ < (n); k_++)                                               \
		num(e, (uint64_t)(cur)->field[k_], prev ? (uint64_t)(prev)->field[k_] : 0)

static void bdi_ev_nums(struct enc *e, const struct wb_bdi_events *c, const struct wb_bdi_events *p)
{
	static const struct wb_bdi_events zero;
	if (!p)
		p = &zero;
	num(e, c->wake_bg, p->wake_bg);
	for (int r = 0; r < WB_REASONS; r++)
		num(e, c->start[r], p->start[r]);
	num(e, c->pauses, p->pauses);
	num(e, c->pause_ms_total, p->pause_ms_total);
	num(e, c->pause_ms_max, p->pause_ms_max);
	num(e, c->task_ratelimit, p->task_ratelimit);
	num(e, c->dirty_ratelimit, p->dirty_ratelimit);
	num(e, c->balanced_ratelimit, p->balanced_ratelimit);
	num(e, c->wb_dirty_at_wake, p->wb_dirty_at_wake);
}

/*
 * A reference for a BDI figure that mostly repeats another one in the same
 * sample: the global thresholds every stats file shows, an idle device's
 * floor shared by all idle devices, the root wb's share of its BDI's. Stored
 * relative to it, these are 0 sample after sample.
 */
static uint64_t st_ref(const struct wb_sample *s, size_t i, int k)
{
	switch (k) {
	case WB_B_DIRTY_THRESH: return s->g.v[WB_G_DIRTY_THRESH];
	case WB_B_BG_THRESH: return s->g.v[WB_G_BG_THRESH];
	case WB_B_THRESH: return i > 0 ? s->bdis[i - 1].st[WB_B_THRESH] : 0;
	case WB_B_WB_THRESH: return s->bdis[i].st[WB_B_THRESH];
	default: return 0;
	}
}

static void numbers(struct enc *e, const struct wb_sample *s, const struct wb_sample *p)
{
	num(e, dbits(s->mono), p ? dbits(p->mono) : 0);
	num(e, dbits(s->wall), p ? dbits(p->wall) : 0);
	num(e, s->page_size, p ? p->page_size : 0);
	num(e, s->ncpus, p ? p->ncpus : 0);
	num(e, (uint64_t)(int64_t)s->level, p ? (uint64_t)(int64_t)p->level : 0);
	ARR(e, s, p, sys, WB_SYS_COUNT);
	num(e, s->sys_valid, p ? p->sys_valid : 0);
	ARR(e, s, p, g.v, WB_G_COUNT);
	num(e, s->g.valid, p ? p->g.valid : 0);
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct wb_node *c = &s->nodes[i], *q = p ? &p->nodes[i] : NULL;
		ARR(e, c, q, v, WB_N_COUNT);
		num(e, c->valid, q ? q->valid : 0);
	}
	for (size_t i = 0; i < s->nzones; i++) {
		const struct wb_zone *c = &s->zones[i], *q = p ? &p->zones[i] : NULL;
		ARR(e, c, q, v, WB_Z_COUNT);
		num(e, c->valid, q ? q->valid : 0);
	}
	for (size_t i = 0; i < s->nbdis; i++) {
		const struct wb_bdi *c = &s->bdis[i], *q = p ? &p->bdis[i] : NULL;
		ARR(e, c, q, knob, WB_K_COUNT);
		num(e, c->knob_valid, q ? q->knob_valid : 0);
		for (int k = 0; k < WB_B_COUNT; k++)
			num(e, c->st[k] - st_ref(s, i, k), q ? q->st[k] - st_ref(p, i, k) : 0);
		num(e, c->st_valid, q ? q->st_valid : 0);
		ARR(e, c, q, disk, WB_D_COUNT);
		num(e, c->disk_valid, q ? q->disk_valid : 0);
		bdi_ev_nums(e, &c->ev, q ? &q->ev : NULL);
		num(e, c->stats_cost_us, q ? q->stats_cost_us : 0);
		num(e, c->stats_skipped, q ? q->stats_skipped : 0);
	}
	num(e, s->ev_valid, p ? p->ev_valid : 0);
	ARR(e, s, p, reclaim_throttled, WB_RECLAIM_REASONS);
	num(e, s->reclaim_delay_us, p ? p->reclaim_delay_us : 0);
	num(e, s->dirty_limit_valid, p ? p->dirty_limit_valid : 0);
	num(e, s->dirty_limit, p ? p->dirty_limit : 0);
	num(e, s->ev_total, p ? p->ev_total : 0);
	num(e, s->ev_dropped, p ? p->ev_dropped : 0);
	num(e, s->ev_lost_log, p ? p->ev_lost_log : 0);
	num(e, s->procs_valid, p ? p->procs_valid : 0);
}

/* Processes and the event log: written in full (their shape changes every sample). */
static void variable(struct wb_buf *b, const struct wb_sample *s)
{
	struct enc e = { b, false };

	put_uv(b, s->nprocs);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct wb_proc *x = &s->procs[i];
		num(&e, (uint64_t)(int64_t)x->pid, 0);
		put_str(b, x->comm, sizeof(x->comm));
		num(&e, (uint64_t)(uint8_t)x->state, 0);
		num(&e, x->throttled, 0);
		num(&e, x->write_bytes, 0);
		num(&e, x->cancelled_write_bytes, 0);
		num(&e, x->write_bytes_delta, 0);
		num(&e, x->cancelled_delta, 0);
	}
	put_uv(b, s->nevents);
	/*
	 * Event times come from the trace clock as whole nanoseconds (t = ns /
	 * 1e9), so they are kept as nanosecond deltas from the previous event:
	 * a few bytes instead of a double, and ns recovers t exactly.
	 */
	int64_t prev_ns = 0;
	for (size_t i = 0; i < s->nevents; i++) {
		const struct wb_event *x = &s->events[i];
		int64_t ns = llround(x->t * 1e9);
		bool exact = (double)ns / 1e9 == x->t;
		num(&e, exact, 0);
		if (exact) {
			num(&e, (uint64_t)ns - (uint64_t)prev_ns, 0);
			prev_ns = ns;
		} else {
			num(&e, dbits(x->t), 0);
		}
		num(&e, x->kind, 0);
		num(&e, x->reason, 0);
		num(&e, (uint64_t)(int64_t)x->pid, 0);
		put_str(b, x->bdi, sizeof(x->bdi));
		put_str(b, x->comm, sizeof(x->comm));
		num(&e, x->value, 0);
		num(&e, x->extra, 0);
	}
}

void wb_rec_encode(const struct wb_sample *s, const struct wb_sample *prev, struct wb_buf *out)
{
	struct enc e = { out, prev != NULL };

	if (!prev)
		wb_rec_structure(s, out);
	numbers(&e, s, prev);
	variable(out, s);
	/* minor 1: appended, so that a minor-0 reader can skip it */
	for (size_t i = 0; i < s->nbdis; i++)
		num(&e, s->bdis[i].ev.dirtied_max, prev ? prev->bdis[i].ev.dirtied_max : 0);
}

/* ---- decoding ---- */

struct dec {
	const uint8_t *p, *end;
	bool bad;
	const char *what;   /* the first thing that did not fit */
	bool delta;
	char msg[96];       /* what, when it names a value */
};

/* A decoded value out of its range: damage, named with the value (the first one wins). */
static void reject(struct dec *d, const char *fmt, ...)
{
	va_list ap;

	if (d->bad)
		return;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	d->what = d->msg;
	d->bad = true;
}

static uint64_t get_uv(struct dec *d)
{
	uint64_t v = 0;
	int shift = 0;

	while (!d->bad) {
		uint8_t c;
		if (d->p >= d->end || shift > 63) {
			d->bad = true;
			break;
		}
		c = *d->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	return 0;
}

static void get_str(struct dec *d, char *dst, size_t cap, const char *what)
{
	uint64_t n = get_uv(d);

	if (d->bad || n >= cap || n > (uint64_t)(d->end - d->p)) {
		if (!d->bad)
			d->what = what;
		d->bad = true;
		dst[0] = '\0';
		return;
	}
	memcpy(dst, d->p, (size_t)n);
	dst[n] = '\0';
	d->p += n;
}

static uint64_t dnum(struct dec *d, uint64_t prev)
{
	uint64_t z = get_uv(d);
	uint64_t v = (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
	return d->delta ? prev + v : v;
}

/* A count that will size an array: bounded by max, never trusted. */
static size_t get_count(struct dec *d, const char *what, size_t max)
{
	uint64_t n = get_uv(d);
	if (n > max) {
		if (!d->bad)
			d->what = what;
		d->bad = true;
		return 0;
	}
	return (size_t)n;
}

static int read_structure(struct dec *d, struct wb_sample *s)
{
	s->nnodes = get_count(d, "node count", MAX_NODES);
	s->nodes = s->nnodes ? calloc(s->nnodes, sizeof(*s->nodes)) : NULL;
	if (s->nnodes && !s->nodes)
		return -1;
	for (size_t i = 0; i < s->nnodes; i++)
		s->nodes[i].id = (int)(int64_t)get_uv(d);
	s->nzones = get_count(d, "zone count", MAX_ITEMS);
	s->zones = s->nzones ? calloc(s->nzones, sizeof(*s->zones)) : NULL;
	if (s->nzones && !s->zones)
		return -1;
	for (size_t i = 0; i < s->nzones; i++) {
		s->zones[i].node = (int)(int64_t)get_uv(d);
		get_str(d, s->zones[i].name, sizeof(s->zones[i].name), "zone name");
	}
	s->nbdis = get_count(d, "BDI count", MAX_ITEMS);
	s->bdis = s->nbdis ? calloc(s->nbdis, sizeof(*s->bdis)) : NULL;
	if (s->nbdis && !s->bdis)
		return -1;
	for (size_t i = 0; i < s->nbdis && !d->bad; i++) {
		struct wb_bdi *x = &s->bdis[i];
		get_str(d, x->name, sizeof(x->name), "BDI name");
		get_str(d, x->dev, sizeof(x->dev), "device name");
		get_str(d, x->fstype, sizeof(x->fstype), "fs type");
		x->nmounts = (int)get_count(d, "mount count", WB_MAX_MOUNTS);
		for (int m = 0; m < x->nmounts; m++)
			get_str(d, x->mounts[m], WB_PATH_LEN, "mount point");
	}
	for (int r = 0; r < WB_REASONS; r++)
		get_str(d, s->reason_names[r], sizeof(s->reason_names[r]), "reason name");
	for (int r = 0; r < WB_RECLAIM_REASONS; r++)
		get_str(d, s->reclaim_names[r], sizeof(s->reclaim_names[r]), "reclaim reason name");
	return 0;
}

/* Copy the structure of prev into s (a delta frame has none of its own). */
static int copy_structure(struct wb_sample *s, const struct wb_sample *prev)
{
	struct wb_sample t;

	wb_sample_init(&t);
	if (wb_sample_copy(&t, prev))
		return -1;
	free(t.procs);
	free(t.events);
	t.procs = NULL;
	t.events = NULL;
	t.nprocs = t.nevents = 0;
	*s = t;
	return 0;
}

#define DARR(d, cur, prev, field, n)                                                  \
	for (size_t k_ = 0; k_ < (n); k_++)                                            \
		(cur)->field[k_] = (__typeof__((cur)->field[0]))dnum(d, prev ? (uint64_t)(prev)->field[k_] : 0)

static void dec_bdi_ev(struct dec *d, struct wb_bdi_events *c, const struct wb_bdi_events *p)
{
	static const struct wb_bdi_events zero;
	if (!p)
		p = &zero;
	c->wake_bg = (uint32_t)dnum(d, p->wake_bg);
	for (int r = 0; r < WB_REASONS; r++)
		c->start[r] = (uint32_t)dnum(d, p->start[r]);
	c->pauses = (uint32_t)dnum(d, p->pauses);
	c->pause_ms_total = dnum(d, p->pause_ms_total);
	c->pause_ms_max = (uint32_t)dnum(d, p->pause_ms_max);
	c->task_ratelimit = dnum(d, p->task_ratelimit);
	c->dirty_ratelimit = dnum(d, p->dirty_ratelimit);
	c->balanced_ratelimit = dnum(d, p->balanced_ratelimit);
	c->wb_dirty_at_wake = dnum(d, p->wb_dirty_at_wake);
}

static void dec_numbers(struct dec *d, struct wb_sample *s, const struct wb_sample *p)
{
	s->mono = bitsd(dnum(d, p ? dbits(p->mono) : 0));
	s->wall = bitsd(dnum(d, p ? dbits(p->wall) : 0));
	s->page_size = (uint32_t)dnum(d, p ? p->page_size : 0);
	s->ncpus = (uint32_t)dnum(d, p ? p->ncpus : 0);
	uint64_t level = dnum(d, p ? (uint64_t)(int64_t)p->level : 0);
	/* checked before it narrows to int: the sinks index tables with it */
	if (level > WB_LEVEL_TRACE)
		reject(d, "access level %lld, not 0..3", (long long)(int64_t)level);
	s->level = level > WB_LEVEL_TRACE ? WB_LEVEL_PROC : (int)level;
	DARR(d, s, p, sys, WB_SYS_COUNT);
	s->sys_valid = dnum(d, p ? p->sys_valid : 0);
	DARR(d, s, p, g.v, WB_G_COUNT);
	s->g.valid = dnum(d, p ? p->g.valid : 0);
	for (size_t i = 0; i < s->nnodes; i++) {
		struct wb_node *c = &s->nodes[i];
		const struct wb_node *q = p ? &p->nodes[i] : NULL;
		DARR(d, c, q, v, WB_N_COUNT);
		c->valid = dnum(d, q ? q->valid : 0);
	}
	for (size_t i = 0; i < s->nzones; i++) {
		struct wb_zone *c = &s->zones[i];
		const struct wb_zone *q = p ? &p->zones[i] : NULL;
		DARR(d, c, q, v, WB_Z_COUNT);
		c->valid = dnum(d, q ? q->valid : 0);
	}
	for (size_t i = 0; i < s->nbdis; i++) {
		struct wb_bdi *c = &s->bdis[i];
		const struct wb_bdi *q = p ? &p->bdis[i] : NULL;
		DARR(d, c, q, knob, WB_K_COUNT);
		c->knob_valid = dnum(d, q ? q->knob_valid : 0);
		for (int k = 0; k < WB_B_COUNT; k++) /* references are decoded before they are used */
			c->st[k] = dnum(d, q ? q->st[k] - st_ref(p, i, k) : 0) + st_ref(s, i, k);
		c->st_valid = dnum(d, q ? q->st_valid : 0);
		DARR(d, c, q, disk, WB_D_COUNT);
		c->disk_valid = dnum(d, q ? q->disk_valid : 0);
		dec_bdi_ev(d, &c->ev, q ? &q->ev : NULL);
		c->stats_cost_us = (uint32_t)dnum(d, q ? q->stats_cost_us : 0);
		c->stats_skipped = dnum(d, q ? q->stats_skipped : 0) != 0;
	}
	s->ev_valid = dnum(d, p ? p->ev_valid : 0) != 0;
	DARR(d, s, p, reclaim_throttled, WB_RECLAIM_REASONS);
	s->reclaim_delay_us = dnum(d, p ? p->reclaim_delay_us : 0);
	s->dirty_limit_valid = dnum(d, p ? p->dirty_limit_valid : 0) != 0;
	s->dirty_limit = dnum(d, p ? p->dirty_limit : 0);
	s->ev_total = dnum(d, p ? p->ev_total : 0);
	s->ev_dropped = dnum(d, p ? p->ev_dropped : 0);
	s->ev_lost_log = dnum(d, p ? p->ev_lost_log : 0);
	s->procs_valid = dnum(d, p ? p->procs_valid : 0) != 0;
}

static int dec_variable(struct dec *d, struct wb_sample *s)
{
	d->delta = false;
	s->nprocs = get_count(d, "process count", MAX_ITEMS);
	s->procs = s->nprocs ? calloc(s->nprocs, sizeof(*s->procs)) : NULL;
	if (s->nprocs && !s->procs)
		return -1;
	for (size_t i = 0; i < s->nprocs && !d->bad; i++) {
		struct wb_proc *x = &s->procs[i];
		x->pid = (int)(int64_t)dnum(d, 0);
		get_str(d, x->comm, sizeof(x->comm), "process name");
		x->state = (char)dnum(d, 0);
		x->throttled = dnum(d, 0) != 0;
		x->write_bytes = dnum(d, 0);
		x->cancelled_write_bytes = dnum(d, 0);
		x->write_bytes_delta = dnum(d, 0);
		x->cancelled_delta = dnum(d, 0);
	}
	s->nevents = get_count(d, "event count", WB_EVLOG_MAX);
	s->events = s->nevents ? calloc(s->nevents, sizeof(*s->events)) : NULL;
	if (s->nevents && !s->events)
		return -1;
	uint64_t prev_ns = 0; /* unsigned: a hostile delta wraps, it does not overflow */
	for (size_t i = 0; i < s->nevents && !d->bad; i++) {
		struct wb_event *x = &s->events[i];
		if (dnum(d, 0)) {
			prev_ns += dnum(d, 0);
			x->t = (double)(int64_t)prev_ns / 1e9;
		} else {
			x->t = bitsd(dnum(d, 0));
		}
		x->kind = (uint8_t)dnum(d, 0);
		x->reason = (uint8_t)dnum(d, 0);
		x->pid = (int32_t)(int64_t)dnum(d, 0);
		get_str(d, x->bdi, sizeof(x->bdi), "event BDI");
		get_str(d, x->comm, sizeof(x->comm), "event comm");
		x->value = dnum(d, 0);
		x->extra = dnum(d, 0);
	}
	return 0;
}

/* A page size a kernel can have: a power of two from 1 KiB (the model divides by it). */
static bool page_size_ok(uint32_t v)
{
	return v >= 1024 && v <= (1u << 20) && (v & (v - 1)) == 0;
}

/* The event log: times the sinks turn into clock times, kinds and reasons they look up. */
static void check_events(struct dec *d, const struct wb_sample *s)
{
	for (size_t i = 0; i < s->nevents; i++) {
		const struct wb_event *e = &s->events[i];
		if (!(isfinite(e->t) && fabs(e->t) <= MAX_MONO))
			reject(d, "event %zu time %g", i, e->t);
		else if (e->kind >= WB_EV_COUNT)
			reject(d, "event %zu kind %u", i, e->kind);
		else if (e->reason >= WB_REASONS)
			reject(d, "event %zu reason %u", i, e->reason);
	}
}

/* The first of n counters at or past MAX_COUNT, or -1. */
static int over(const uint64_t *v, int n)
{
	for (int k = 0; k < n; k++)
		if (v[k] >= MAX_COUNT)
			return k;
	return -1;
}

/* Page and sector counts: no kernel has 2^62 of them; the model computes with them as int64. */
static void check_counts(struct dec *d, const struct wb_sample *s)
{
	int k;

	if ((k = over(s->g.v, WB_G_COUNT)) >= 0)
		reject(d, "global counter %d: %llu", k, (unsigned long long)s->g.v[k]);
	for (size_t i = 0; i < s->nnodes; i++)
		if ((k = over(s->nodes[i].v, WB_N_COUNT)) >= 0)
			reject(d, "node %zu counter %d: %llu", i, k, (unsigned long long)s->nodes[i].v[k]);
	for (size_t i = 0; i < s->nzones; i++)
		if ((k = over(s->zones[i].v, WB_Z_COUNT)) >= 0)
			reject(d, "zone %zu counter %d: %llu", i, k, (unsigned long long)s->zones[i].v[k]);
	for (size_t i = 0; i < s->nbdis; i++) {
		const struct wb_bdi *b = &s->bdis[i];
		if ((k = over(b->st, WB_B_COUNT)) >= 0)
			reject(d, "BDI %zu stats value %d: %llu", i, k, (unsigned long long)b->st[k]);
		else if ((k = over(b->disk, WB_D_COUNT)) >= 0)
			reject(d, "BDI %zu disk counter %d: %llu", i, k, (unsigned long long)b->disk[k]);
	}
}

/*
 * What the rest of wbtop relies on without checking: finite times that do
 * not go backwards, a page size to divide by, a CPU count. Checked here,
 * once, so that a hostile file is damage and not a crash further on.
 */
static void check_sample(struct dec *d, const struct wb_sample *s, const struct wb_sample *prev)
{
	if (!(isfinite(s->mono) && s->mono >= 0 && s->mono <= MAX_MONO))
		reject(d, "sample time %g", s->mono);
	else if (prev && s->mono < prev->mono)
		reject(d, "sample time %.6f before the previous sample's %.6f", s->mono, prev->mono);
	else if (!(isfinite(s->wall) && s->wall >= 0 && s->wall <= MAX_WALL))
		reject(d, "wall clock time %g", s->wall);
	else if (!page_size_ok(s->page_size))
		reject(d, "page size %u", s->page_size);
	else if (s->ncpus > MAX_CPUS)
		reject(d, "CPU count %u", s->ncpus);
	check_counts(d, s);
	check_events(d, s);
}

int wb_rec_decode(const uint8_t *p, size_t len, bool key, unsigned minor, const struct wb_sample *prev,
		  struct wb_sample *s, char *err, size_t errlen)
{
	struct dec d;
	struct wb_sample t;
	int rc;

	if (!p || len == 0) {
		snprintf(err, errlen, "damaged frame (empty)");
		return -1;
	}
	d = (struct dec){ .p = p, .end = p + len, .delta = !key };
	wb_sample_init(&t);
	if (!key && !prev) {
		snprintf(err, errlen, "a delta frame without the frame before it");
		return -1;
	}
	rc = key ? read_structure(&d, &t) : copy_structure(&t, prev);
	if (rc == 0 && !d.bad) {
		dec_numbers(&d, &t, key ? NULL : prev);
		rc = dec_variable(&d, &t);
	}
	d.delta = !key; /* dec_variable reads absolute numbers; the minor-1 tail is delta again */
	if (rc == 0 && !d.bad && minor >= 1)
		for (size_t i = 0; i < t.nbdis; i++)
			t.bdis[i].ev.dirtied_max = (uint32_t)dnum(&d, key ? 0 : prev->bdis[i].ev.dirtied_max);
	if (minor > WB_REC_MINOR) /* a newer minor's appended fields */
		d.p = d.end;
	if (rc == 0 && !d.bad)
		check_sample(&d, &t, key ? NULL : prev);
	if (rc || d.bad || d.p != d.end) {
		if (rc)
			snprintf(err, errlen, "out of memory");
		else if (d.bad)
			snprintf(err, errlen, "damaged frame (%s)", d.what ? d.what : "truncated numbers");
		else
			snprintf(err, errlen, "damaged frame (%zu bytes left over)", (size_t)(d.end - d.p));
		wb_sample_finish(&t);
		return -1;
	}
	wb_sample_finish(s);
	*s = t;
	return 0;
}
