// SPDX-License-Identifier: GPL-2.0-or-later
/* JSON Lines sink: one object per sample, keys per design.md. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "wbtop/catalog.h"
#include "wbtop/out.h"
#include "wbtop/pipeline.h"
#include "wbtop/util.h"

/* A tiny streaming emitter: tracks whether a comma is due. */
struct js {
	FILE *f;
	bool need_comma;
};

static void sep(struct js *j)
{
	if (j->need_comma)
		fputc(',', j->f);
	j->need_comma = false;
}

static void str(FILE *f, const char *s)
{
	wb_json_string(f, s); /* valid UTF-8 whatever the recording holds */
}

static void key(struct js *j, const char *k)
{
	sep(j);
	if (k) {
		str(j->f, k);
		fputc(':', j->f);
	}
}

static void open_(struct js *j, const char *k, char c)
{
	key(j, k);
	fputc(c, j->f);
}

static void close_(struct js *j, char c)
{
	fputc(c, j->f);
	j->need_comma = true;
}

/* Integers are most of the output: format them without printf. */
static void put_u64(FILE *f, uint64_t v)
{
	char b[24];
	int i = 24;

	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(b + i, 1, (size_t)(24 - i), f);
}

static void u64(struct js *j, const char *k, uint64_t v)
{
	key(j, k);
	put_u64(j->f, v);
	j->need_comma = true;
}

static void i64(struct js *j, const char *k, int64_t v)
{
	key(j, k);
	fprintf(j->f, "%lld", (long long)v);
	j->need_comma = true;
}

/* A real number with `prec` decimals (times 3, bytes/s 0, ratios 4). */
static void dblp(struct js *j, const char *k, double v, int prec)
{
	key(j, k);
	if (isfinite(v))
		fprintf(j->f, "%.*f", prec, v);
	else
		fputs("null", j->f);
	j->need_comma = true;
}

static void sval(struct js *j, const char *k, const char *v)
{
	key(j, k);
	str(j->f, v);
	j->need_comma = true;
}

static void bval(struct js *j, const char *k, bool v)
{
	key(j, k);
	fputs(v ? "true" : "false", j->f);
	j->need_comma = true;
}

static void hook(struct js *j, const struct wb_field *f, const struct wb_fctx *c);

/* One catalogue field: absent when unknown; hooks are the nested parts. */
static void field(struct js *j, const struct wb_field *f, const struct wb_fctx *c)
{
	struct wb_value x;

	if (!f->key)
		return;
	x = f->get(c);
	if (!x.known)
		return;
	switch (f->json) {
	case WB_J_INT: u64(j, f->key, x.u); break;
	case WB_J_SINT: i64(j, f->key, x.i); break;
	case WB_J_BOOL: bval(j, f->key, x.u != 0); break;
	case WB_J_REAL1: dblp(j, f->key, x.d, 1); break;
	case WB_J_REAL3: dblp(j, f->key, x.d, 3); break;
	case WB_J_REAL4: dblp(j, f->key, x.d, 4); break;
	case WB_J_REAL6: dblp(j, f->key, x.d, 6); break;
	case WB_J_STR: sval(j, f->key, wb_value_text(&x)); break;
	case WB_J_TRUE: bval(j, f->key, true); break;
	case WB_J_HOOK: hook(j, f, c); break;
	}
}

/* Walk a catalogue table: every field, or (what-if) only the model's. */
static void fields(struct js *j, const struct wb_field *t, size_t n, const struct wb_fctx *c, bool model_only)
{
	for (size_t k = 0; k < n; k++)
		if (!model_only || t[k].model)
			field(j, &t[k], c);
}

static void global_obj(struct js *j, const struct wb_view *v, const struct wb_limits *l,
		       const char *name)
{
	struct wb_fctx c;
	size_t n;
	const struct wb_field *t = wb_catalog_global(&n);

	wb_catalog_ctx(&c, v, l, SIZE_MAX);
	open_(j, name, '{');
	fields(j, t, n, &c, l != v->lim);
	close_(j, '}');
}

/* An array of one entity's objects, each a walk of its catalogue table. */
static void entity_arr(struct js *j, const char *k, const struct wb_view *v, size_t count,
		       const struct wb_field *(*table)(size_t *))
{
	size_t n;
	const struct wb_field *t = table(&n);

	open_(j, k, '[');
	for (size_t i = 0; i < count; i++) {
		struct wb_fctx c = { .v = v, .s = v->cur, .l = v->lim, .i = i };
		open_(j, NULL, '{');
		fields(j, t, n, &c, false);
		close_(j, '}');
	}
	close_(j, ']');
}

/* Counts by reason, named from the tracepoint's own format. */
static void reasons(struct js *j, const char *k, const struct wb_sample *s, const uint32_t *n)
{
	open_(j, k, '{');
	for (int r = 0; r < WB_REASONS; r++)
		if (s->reason_names[r][0])
			u64(j, s->reason_names[r], n[r]);
	close_(j, '}');
}

/* The bounded event log: each entry a walk of the log's catalogue table. */
static void h_log(struct js *j, const struct wb_fctx *c)
{
	size_t n;
	const struct wb_field *t = wb_catalog_event_log(&n);

	open_(j, "log", '[');
	for (size_t i = 0; i < c->s->nevents; i++) {
		struct wb_fctx e = { .v = c->v, .s = c->s, .l = c->l, .i = i };
		open_(j, NULL, '{');
		fields(j, t, n, &e, false);
		close_(j, '}');
	}
	close_(j, ']');
}

/* Writeback starts by reason: the BDI's, or (global entity) summed over the BDIs. */
static void h_starts(struct js *j, const struct wb_fctx *c)
{
	uint32_t start[WB_REASONS] = { 0 };

	for (size_t i = 0; i < c->s->nbdis; i++)
		if (!c->b || &c->s->bdis[i] == c->b)
			for (int r = 0; r < WB_REASONS; r++)
				start[r] += c->s->bdis[i].ev.start[r];
	reasons(j, "writeback_start", c->s, start);
}

/* Reclaim throttling by reason. */
static void h_reclaim(struct js *j, const struct wb_fctx *c)
{
	open_(j, "reclaim_throttled", '{');
	for (int r = 0; r < WB_RECLAIM_REASONS; r++)
		if (c->s->reclaim_names[r][0])
			u64(j, c->s->reclaim_names[r], c->s->reclaim_throttled[r]);
	close_(j, '}');
}

/* A BDI's "events" object, or the system's: a walk of its catalogue table. */
static void h_events(struct js *j, const struct wb_fctx *c)
{
	size_t n;
	const struct wb_field *t = c->b ? wb_catalog_bdi_events(&n) : wb_catalog_events(&n);

	open_(j, "events", '{');
	for (size_t k = 0; k < n; k++)
		field(j, &t[k], c);
	close_(j, '}');
}

static void h_mounts(struct js *j, const struct wb_fctx *c)
{
	open_(j, "mounts", '[');
	for (int m = 0; m < c->b->nmounts; m++)
		sval(j, NULL, c->b->mounts[m]);
	close_(j, ']');
}

/* The nested parts of the catalogue, by key. */
static const struct {
	const char *key;
	void (*put)(struct js *j, const struct wb_fctx *c);
} hooks[] = {
	{ "events", h_events }, { "mounts", h_mounts }, { "writeback_start", h_starts },
	{ "reclaim_throttled", h_reclaim }, { "log", h_log },
};

static void hook(struct js *j, const struct wb_field *f, const struct wb_fctx *c)
{
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++)
		if (strcmp(hooks[i].key, f->key) == 0)
			hooks[i].put(j, c);
}

static void bdi_obj(struct js *j, const struct wb_view *v, size_t i)
{
	struct wb_fctx c;
	size_t n;
	const struct wb_field *t = wb_catalog_bdi(&n);

	wb_catalog_ctx(&c, v, v->lim, i);
	open_(j, NULL, '{');
	fields(j, t, n, &c, false);
	close_(j, '}');
}

/* An array of page figures as bytes (rates: pages/s as bytes/s). */
static void page_arr(struct js *j, const char *k, const double *v, size_t n, uint32_t P)
{
	open_(j, k, '[');
	for (size_t i = 0; i < n; i++) {
		sep(j);
		fprintf(j->f, "%.0f", v[i] * P);
		j->need_comma = true;
	}
	close_(j, ']');
}

/* A series' band as NAME_p10 and NAME_p90, when the forecast has one. */
static void band_arr(struct js *j, const char *k, const double *p10, const double *p90, size_t n,
		     uint32_t P)
{
	char key[40];

	if (!p10 || !p90)
		return;
	snprintf(key, sizeof(key), "%s_p10", k);
	page_arr(j, key, p10, n, P);
	snprintf(key, sizeof(key), "%s_p90", k);
	page_arr(j, key, p90, n, P);
}

static void forecast_obj(struct js *j, const struct wb_forecast *f, uint32_t P)
{
	static const char *const band_names[WB_FC_SERIES] = { "dirty", "writeback", "thresh", "write_rate",
							      "level" };

	open_(j, "forecast", '{');
	dblp(j, "horizon_s", f->horizon_s, 1);
	dblp(j, "step_s", f->step_s, 2);
	open_(j, "global", '{');
	page_arr(j, "dirty", f->g_dirty, f->nsteps, P);
	page_arr(j, "writeback", f->g_writeback, f->nsteps, P);
	band_arr(j, "dirty", f->g_p10[0], f->g_p90[0], f->nsteps, P);
	band_arr(j, "writeback", f->g_p10[1], f->g_p90[1], f->nsteps, P);
	close_(j, '}');
	open_(j, "bdis", '[');
	for (size_t i = 0; i < f->nbdis; i++) {
		const struct wb_forecast_bdi *b = &f->bdis[i];
		open_(j, NULL, '{');
		sval(j, "bdi", b->name);
		page_arr(j, "dirty", b->dirty, f->nsteps, P);
		page_arr(j, "writeback", b->writeback, f->nsteps, P);
		page_arr(j, "thresh", b->thresh, f->nsteps, P);
		page_arr(j, "write_rate", b->write_rate, f->nsteps, P);
		for (int q = 0; q < WB_FC_SERIES; q++)
			band_arr(j, band_names[q], b->p10[q], b->p90[q], f->nsteps, P);
		if (b->drain_s >= 0)
			dblp(j, "drain_s", b->drain_s, 2);
		if (b->clean_at_s >= 0)
			dblp(j, "clean_at_s", b->clean_at_s, 2);
		dblp(j, "bg_flushes_per_min", b->bg_flushes_per_min, 2);
		if (b->dirty_rate_in >= 0) /* absent: held writers never seen free, demand open */
			dblp(j, "demand", b->dirty_rate_in * P, 0);
		close_(j, '}');
	}
	close_(j, ']');
	close_(j, '}');
}

static void whatif_obj(struct js *j, const struct wb_view *v)
{
	const struct wb_sample *s = v->cur;

	open_(j, "whatif", '{');
	global_obj(j, v, v->whatif, "global");
	open_(j, "bdis", '[');
	for (size_t i = 0; i < v->whatif->nbdis; i++) {
		/* d: which limit would hold its writers (held_by, as the current figures have it) */
		struct wb_fctx c = { .v = v, .s = s, .l = v->whatif, .i = i, .bl = &v->whatif->bdis[i],
				     .b = i < s->nbdis ? &s->bdis[i] : NULL, .d = i < s->nbdis ? &v->bdi[i] : NULL };
		size_t n;
		const struct wb_field *t = wb_catalog_bdi(&n);
		open_(j, NULL, '{');
		sval(j, "bdi", v->whatif->bdis[i].name);
		fields(j, t, n, &c, true);
		close_(j, '}');
	}
	close_(j, ']');
	if (v->whatif_forecast)
		forecast_obj(j, v->whatif_forecast, s->page_size);
	close_(j, '}');
}

void wb_out_json(FILE *f, const struct wb_view *v)
{
	const struct wb_sample *s = v->cur;
	struct js j = { f, false };

	open_(&j, NULL, '{');
	dblp(&j, "time", s->wall, 3);
	dblp(&j, "mono", s->mono, 3);
	i64(&j, "level", s->level);
	u64(&j, "page_size", s->page_size);
	open_(&j, "sysctl", '{');
	for (int i = 0; i < WB_SYS_COUNT; i++)
		if (WB_HAS(s->sys_valid, i))
			u64(&j, wb_sysctl_names[i], s->sys[i]);
	close_(&j, '}');
	global_obj(&j, v, v->lim, "global");
	entity_arr(&j, "nodes", v, s->nnodes, wb_catalog_node);
	entity_arr(&j, "zones", v, s->nzones, wb_catalog_zone);
	open_(&j, "bdis", '[');
	for (size_t i = 0; i < s->nbdis; i++)
		bdi_obj(&j, v, i);
	close_(&j, ']');
	if (s->procs_valid)
		entity_arr(&j, "procs", v, s->nprocs, wb_catalog_proc);
	if (s->ev_valid) {
		struct wb_fctx c;
		wb_catalog_ctx(&c, v, v->lim, SIZE_MAX);
		h_events(&j, &c);
	}
	if (v->whatif)
		whatif_obj(&j, v);
	if (v->forecast)
		forecast_obj(&j, v->forecast, s->page_size);
	close_(&j, '}');
	fputc('\n', f);
}
