// SPDX-License-Identifier: GPL-2.0-or-later
/* The Graph pane's history: a few figures per sample over a long span. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/out.h"
#include "wbtop/timeline.h"

struct tl_dev {
	char name[WB_NAME_LEN];
	double *v[WB_TL_B_COUNT];
};

struct wb_timeline {
	size_t cap, n;
	double *mono, *wall;
	double *g[WB_TL_G_COUNT];
	struct tl_dev *devs;
	size_t ndevs;
};

/* Counts add up when two points merge; everything else is averaged. */
static const bool b_is_count[WB_TL_B_COUNT] = { [WB_TL_B_PAUSES] = true, [WB_TL_B_WAKEUPS] = true };

struct wb_timeline *wb_timeline_create(size_t cap)
{
	struct wb_timeline *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cap = cap < 16 ? 16 : cap & ~(size_t)1;
	t->mono = malloc(t->cap * sizeof(double));
	t->wall = malloc(t->cap * sizeof(double));
	bool ok = t->mono && t->wall;
	for (int k = 0; k < WB_TL_G_COUNT; k++)
		ok = (t->g[k] = malloc(t->cap * sizeof(double))) && ok;
	if (!ok) {
		wb_timeline_destroy(t);
		return NULL;
	}
	return t;
}

void wb_timeline_destroy(struct wb_timeline *t)
{
	if (!t)
		return;
	wb_timeline_clear(t);
	free(t->mono);
	free(t->wall);
	for (int k = 0; k < WB_TL_G_COUNT; k++)
		free(t->g[k]);
	free(t);
}

void wb_timeline_clear(struct wb_timeline *t)
{
	for (size_t i = 0; i < t->ndevs; i++)
		for (int k = 0; k < WB_TL_B_COUNT; k++)
			free(t->devs[i].v[k]);
	free(t->devs);
	t->devs = NULL;
	t->ndevs = 0;
	t->n = 0;
}

static struct tl_dev *find_dev(const struct wb_timeline *t, const char *name)
{
	for (size_t i = 0; i < t->ndevs; i++)
		if (strcmp(t->devs[i].name, name) == 0)
			return &t->devs[i];
	return NULL;
}

/* A device's series, made (NaN until now) the first time it is seen. */
static struct tl_dev *dev_of(struct wb_timeline *t, const char *name)
{
	struct tl_dev *d = find_dev(t, name), *nd;

	if (d)
		return d;
	nd = realloc(t->devs, (t->ndevs + 1) * sizeof(*nd));
	if (!nd)
		return NULL;
	t->devs = nd;
	d = &nd[t->ndevs];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	for (int k = 0; k < WB_TL_B_COUNT; k++) {
		d->v[k] = malloc(t->cap * sizeof(double));
		if (!d->v[k]) {
			for (int j = 0; j < k; j++)
				free(d->v[j]);
			return NULL;
		}
		for (size_t i = 0; i < t->cap; i++)
			d->v[k][i] = NAN;
	}
	t->ndevs++;
	return d;
}

/* Two values as one point: a sum of counts, else the mean of what is known. */
static double merge(double a, double b, bool count)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return count ? a + b : (a + b) / 2;
}

/* Full: merge the older half pairwise, keeping the newer half as it is. */
static void decimate(struct wb_timeline *t)
{
	size_t half = t->n / 2, keep = half / 2, j;

	for (j = 0; j < keep; j++) {
		t->mono[j] = t->mono[2 * j + 1];
		t->wall[j] = t->wall[2 * j + 1];
		for (int k = 0; k < WB_TL_G_COUNT; k++)
			t->g[k][j] = merge(t->g[k][2 * j], t->g[k][2 * j + 1], false);
		for (size_t d = 0; d < t->ndevs; d++)
			for (int k = 0; k < WB_TL_B_COUNT; k++)
				t->devs[d].v[k][j] = merge(t->devs[d].v[k][2 * j], t->devs[d].v[k][2 * j + 1],
							   b_is_count[k]);
	}
	for (size_t i = 2 * keep; i < t->n; i++, j++) {
		t->mono[j] = t->mono[i];
		t->wall[j] = t->wall[i];
		for (int k = 0; k < WB_TL_G_COUNT; k++)
			t->g[k][j] = t->g[k][i];
		for (size_t d = 0; d < t->ndevs; d++)
			for (int k = 0; k < WB_TL_B_COUNT; k++)
				t->devs[d].v[k][j] = t->devs[d].v[k][i];
	}
	t->n = j;
}

static double pages(const struct wb_sample *s, bool ok, uint64_t v)
{
	return ok ? (double)v * s->page_size : NAN;
}

static void push_global(struct wb_timeline *t, const struct wb_sample *s, const struct wb_limits *l, size_t i)
{
	const struct wb_global *g = &s->g;
	bool lv = l && l->valid;

	t->g[WB_TL_G_DIRTY][i] = pages(s, WB_HAS(g->valid, WB_G_DIRTY), g->v[WB_G_DIRTY]);
	t->g[WB_TL_G_WRITEBACK][i] = pages(s, WB_HAS(g->valid, WB_G_WRITEBACK), g->v[WB_G_WRITEBACK]);
	t->g[WB_TL_G_LEVEL][i] = t->g[WB_TL_G_DIRTY][i] + t->g[WB_TL_G_WRITEBACK][i];
	t->g[WB_TL_G_THRESH][i] = pages(s, lv, lv ? l->thresh : 0);
	t->g[WB_TL_G_BG][i] = pages(s, lv, lv ? l->bg : 0);
	t->g[WB_TL_G_FREERUN][i] = pages(s, lv, lv ? l->freerun : 0);
	t->g[WB_TL_G_KTHRESH][i] = pages(s, WB_HAS(g->valid, WB_G_DIRTY_THRESH), g->v[WB_G_DIRTY_THRESH]);
}

/* BDI j of the view's sample at point i: levels from the sample, rates from the view's derived figures. */
static int push_bdi(struct wb_timeline *t, const struct wb_view *v, size_t j, size_t i)
{
	const struct wb_sample *s = v->cur;
	const struct wb_bdi *b = &s->bdis[j];
	const struct wb_bdi_derived *dv = v->bdi ? &v->bdi[j] : NULL;
	struct tl_dev *d = dev_of(t, b->name);
	const struct wb_bdi_limits *bl = v->lim ? wb_limits_bdi(v->lim, b->name) : NULL;
	uint32_t starts = 0;

	if (!d)
		return -ENOMEM;
	d->v[WB_TL_B_DIRTY][i] = pages(s, WB_HAS(b->st_valid, WB_B_RECLAIMABLE), b->st[WB_B_RECLAIMABLE]);
	d->v[WB_TL_B_WRITEBACK][i] = pages(s, WB_HAS(b->st_valid, WB_B_WRITEBACK), b->st[WB_B_WRITEBACK]);
	d->v[WB_TL_B_LEVEL][i] = d->v[WB_TL_B_DIRTY][i] + d->v[WB_TL_B_WRITEBACK][i];
	d->v[WB_TL_B_THRESH][i] = wb_bdi_thresh_known(bl) ? (double)bl->thresh * s->page_size : NAN;
	d->v[WB_TL_B_KTHRESH][i] = pages(s, WB_HAS(b->st_valid, WB_B_THRESH), b->st[WB_B_THRESH]);
	d->v[WB_TL_B_BW][i] = dv && dv->bw_ok ? dv->bw : NAN;                /* as BW/s shows it */
	d->v[WB_TL_B_WRITER][i] = dv && dv->dirtied_ok ? dv->dirtied : NAN;  /* as DIRTIED/s */
	for (int k = 0; k < WB_REASONS; k++)
		starts += b->ev.start[k];
	d->v[WB_TL_B_PAUSES][i] = s->ev_valid ? b->ev.pauses : NAN;
	d->v[WB_TL_B_WAKEUPS][i] = s->ev_valid ? starts : NAN;
	return 0;
}

int wb_timeline_push(struct wb_timeline *t, const struct wb_view *v)
{
	const struct wb_sample *s = v->cur;
	size_t i;

	if (!isfinite(s->mono) || (t->n && s->mono <= t->mono[t->n - 1]))
		return 0;
	if (t->n == t->cap)
		decimate(t);
	i = t->n;
	t->mono[i] = s->mono;
	t->wall[i] = s->wall;
	push_global(t, s, v->lim, i);
	for (size_t d = 0; d < t->ndevs; d++)
		for (int k = 0; k < WB_TL_B_COUNT; k++)
			t->devs[d].v[k][i] = NAN;
	for (size_t b = 0; b < s->nbdis; b++)
		if (push_bdi(t, v, b, i))
			return -ENOMEM;
	t->n++;
	return 0;
}

size_t wb_timeline_len(const struct wb_timeline *t)
{
	return t->n;
}

const double *wb_timeline_mono(const struct wb_timeline *t)
{
	return t->mono;
}

const double *wb_timeline_wall(const struct wb_timeline *t)
{
	return t->wall;
}

const double *wb_timeline_global(const struct wb_timeline *t, enum wb_tl_g k)
{
	return (unsigned)k < WB_TL_G_COUNT ? t->g[k] : NULL;
}

const double *wb_timeline_bdi(const struct wb_timeline *t, const char *bdi, enum wb_tl_b k)
{
	const struct tl_dev *d = find_dev(t, bdi);

	return d && (unsigned)k < WB_TL_B_COUNT ? d->v[k] : NULL;
}
