// SPDX-License-Identifier: GPL-2.0-or-later
/* The sample contract: init/copy/free, and the history ring. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/sample.h"

const char *const wb_sysctl_names[WB_SYS_COUNT] = {
	[WB_SYS_DIRTY_RATIO] = "dirty_ratio",
	[WB_SYS_DIRTY_BYTES] = "dirty_bytes",
	[WB_SYS_BG_RATIO] = "dirty_background_ratio",
	[WB_SYS_BG_BYTES] = "dirty_background_bytes",
	[WB_SYS_EXPIRE_CS] = "dirty_expire_centisecs",
	[WB_SYS_WRITEBACK_CS] = "dirty_writeback_centisecs",
	[WB_SYS_DIRTYTIME_EXPIRE] = "dirtytime_expire_seconds",
	[WB_SYS_LAPTOP_MODE] = "laptop_mode",
};

const char *const wb_knob_names[WB_K_COUNT] = {
	[WB_K_MIN_RATIO] = "min_ratio",
	[WB_K_MAX_RATIO] = "max_ratio",
	[WB_K_MIN_RATIO_FINE] = "min_ratio_fine",
	[WB_K_MAX_RATIO_FINE] = "max_ratio_fine",
	[WB_K_MIN_BYTES] = "min_bytes",
	[WB_K_MAX_BYTES] = "max_bytes",
	[WB_K_STRICT_LIMIT] = "strict_limit",
};

/* mm/page-writeback.c's sysctl table: the ratios 0-100, the rest ints or unsigned longs. */
const uint64_t wb_sysctl_max[WB_SYS_COUNT] = {
	[WB_SYS_DIRTY_RATIO] = 100,            [WB_SYS_DIRTY_BYTES] = UINT64_MAX,
	[WB_SYS_BG_RATIO] = 100,               [WB_SYS_BG_BYTES] = UINT64_MAX,
	[WB_SYS_EXPIRE_CS] = INT32_MAX,        [WB_SYS_WRITEBACK_CS] = INT32_MAX,
	[WB_SYS_DIRTYTIME_EXPIRE] = INT32_MAX, [WB_SYS_LAPTOP_MODE] = INT32_MAX,
};

/* mm/backing-dev.c: ratios in percent, the _fine ones in millionths, strict_limit a flag. */
const uint64_t wb_knob_max[WB_K_COUNT] = {
	[WB_K_MIN_RATIO] = 100,          [WB_K_MAX_RATIO] = 100,
	[WB_K_MIN_RATIO_FINE] = 1000000, [WB_K_MAX_RATIO_FINE] = 1000000,
	[WB_K_MIN_BYTES] = UINT64_MAX,   [WB_K_MAX_BYTES] = UINT64_MAX,
	[WB_K_STRICT_LIMIT] = 1,
};

void wb_sample_init(struct wb_sample *s)
{
	memset(s, 0, sizeof(*s));
}

void wb_sample_finish(struct wb_sample *s)
{
	if (!s)
		return;
	free(s->nodes);
	free(s->zones);
	free(s->bdis);
	free(s->procs);
	free(s->events);
	wb_sample_init(s);
}

/*
 * A deep copy, all or nothing. dst's arrays are reused where they hold as
 * many items as src's (the usual case: a ring slot, the writer's previous
 * sample), so that a copy is mostly memcpy; the others are allocated first,
 * and on failure dst is left as it was.
 */
int wb_sample_copy(struct wb_sample *dst, const struct wb_sample *src)
{
	struct wb_sample t = *src;
	struct {
		void **out;
		void *keep;
		size_t keep_n;
		const void *src;
		size_t n, sz;
	} a[] = {
		{ (void **)&t.events, dst->events, dst->nevents, src->events, src->nevents, sizeof(*src->events) },
		{ (void **)&t.nodes, dst->nodes, dst->nnodes, src->nodes, src->nnodes, sizeof(*src->nodes) },
		{ (void **)&t.zones, dst->zones, dst->nzones, src->zones, src->nzones, sizeof(*src->zones) },
		{ (void **)&t.bdis, dst->bdis, dst->nbdis, src->bdis, src->nbdis, sizeof(*src->bdis) },
		{ (void **)&t.procs, dst->procs, dst->nprocs, src->procs, src->nprocs, sizeof(*src->procs) },
	};
	size_t k, na = sizeof(a) / sizeof(a[0]);

	for (k = 0; k < na; k++) {
		*a[k].out = NULL;
		if (a[k].n == 0)
			continue;
		if (a[k].keep_n == a[k].n && a[k].keep)
			*a[k].out = a[k].keep;
		else if (!(*a[k].out = malloc(a[k].n * a[k].sz)))
			goto oom;
	}
	for (k = 0; k < na; k++) {
		if (*a[k].out != a[k].keep)
			free(a[k].keep);
		if (a[k].n)
			memcpy(*a[k].out, a[k].src, a[k].n * a[k].sz);
	}
	*dst = t;
	return 0;
oom:
	while (k-- > 0)
		if (*a[k].out != a[k].keep)
			free(*a[k].out);
	return -ENOMEM;
}

const struct wb_bdi *wb_sample_bdi_at(const struct wb_sample *s, const char *name, size_t hint)
{
	size_t n = s->nbdis, i = hint < n ? hint : 0;

	for (size_t k = 0; k < n; k++, i = i + 1 < n ? i + 1 : 0)
		if (strcmp(s->bdis[i].name, name) == 0)
			return &s->bdis[i];
	return NULL;
}

const struct wb_bdi *wb_sample_bdi(const struct wb_sample *s, const char *name)
{
	return wb_sample_bdi_at(s, name, 0);
}

struct wb_ring {
	struct wb_sample *slot;
	size_t cap, len, head; /* head: index of the newest */
};

struct wb_ring *wb_ring_create(size_t capacity)
{
	struct wb_ring *r;

	if (capacity == 0)
		capacity = 1;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->slot = calloc(capacity, sizeof(*r->slot));
	if (!r->slot) {
		free(r);
		return NULL;
	}
	r->cap = capacity;
	return r;
}

void wb_ring_clear(struct wb_ring *r)
{
	for (size_t i = 0; i < r->cap; i++)
		wb_sample_finish(&r->slot[i]);
	r->len = 0;
	r->head = 0;
}

void wb_ring_destroy(struct wb_ring *r)
{
	if (!r)
		return;
	wb_ring_clear(r);
	free(r->slot);
	free(r);
}

int wb_ring_push(struct wb_ring *r, const struct wb_sample *s)
{
	size_t next = r->len ? (r->head + 1) % r->cap : 0;
	int err = wb_sample_copy(&r->slot[next], s);

	if (err)
		return err;
	r->head = next;
	if (r->len < r->cap)
		r->len++;
	return 0;
}

size_t wb_ring_len(const struct wb_ring *r)
{
	return r->len;
}

const struct wb_sample *wb_ring_get(const struct wb_ring *r, size_t i)
{
	if (i >= r->len)
		return NULL;
	return &r->slot[(r->head + r->cap - i) % r->cap];
}

/* Rate of a monotonically growing counter; false if unusable. */
static bool counter_rate(uint64_t a, uint64_t b, double dt, double *per_s)
{
	if (dt <= 0 || b < a)
		return false;
	*per_s = (double)(b - a) / dt;
	return true;
}

bool wb_rate_global(const struct wb_sample *a, const struct wb_sample *b,
		    enum wb_gstat k, double *per_s)
{
	if (!WB_HAS(a->g.valid, k) || !WB_HAS(b->g.valid, k))
		return false;
	return counter_rate(a->g.v[k], b->g.v[k], b->mono - a->mono, per_s);
}

bool wb_rate_bdi(const struct wb_sample *a, const struct wb_sample *b,
		 const char *bdi, enum wb_bstat k, double *per_s)
{
	const struct wb_bdi *x = wb_sample_bdi(a, bdi), *y = wb_sample_bdi(b, bdi);

	if (!x || !y || !WB_HAS(x->st_valid, k) || !WB_HAS(y->st_valid, k))
		return false;
	return counter_rate(x->st[k], y->st[k], b->mono - a->mono, per_s);
}

uint64_t wb_lerp_count(uint64_t v0, double t0, uint64_t v1, double t1, double t)
{
	double f;

	if (t1 <= t0)
		return v1;
	f = (t - t0) / (t1 - t0);
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return (uint64_t)llround((double)v0 + f * ((double)v1 - (double)v0));
}
