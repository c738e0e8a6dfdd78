// SPDX-License-Identifier: GPL-2.0-or-later
/* JSON Lines sink: one object per sample, keys per design.md. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "wbtop/out.h"

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
	fputc_unlocked('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc_unlocked(c, f);
	}
	fputc_unlocked('"', f);
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

static void dbl(struct js *j, const char *k, double v)
{
	dblp(j, k, v, 1);
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

/* Page counter as bytes, only if valid. */
static void pages(struct js *j, const struct wb_sample *s, const char *k, uint64_t mask, int bit,
		  uint64_t v)
{
	if (WB_HAS(mask, bit))
		u64(j, k, wb_pages_to_bytes(s, v));
}

/* Rate of a global page counter, bytes/s. */
static void grate(struct js *j, const struct wb_view *v, const char *k, enum wb_gstat g, bool is_pages)
{
	double r;

	if (v->prev && wb_rate_global(v->prev, v->cur, g, &r))
		dbl(j, k, is_pages ? r * v->cur->page_size : r);
}

static void global_obj(struct js *j, const struct wb_view *v, const struct wb_limits *l,
		       const char *name)
{
	const struct wb_sample *s = v->cur;
	uint64_t m = s->g.valid;

	open_(j, name, '{');
	if (l == v->lim) {
		pages(j, s, "dirty", m, WB_G_DIRTY, s->g.v[WB_G_DIRTY]);
		pages(j, s, "writeback", m, WB_G_WRITEBACK, s->g.v[WB_G_WRITEBACK]);
	}
	if (l && l->valid) {
		u64(j, "dirtyable", wb_pages_to_bytes(s, l->dirtyable));
		u64(j, "thresh", wb_pages_to_bytes(s, l->thresh));
		u64(j, "bg_thresh", wb_pages_to_bytes(s, l->bg));
		u64(j, "freerun", wb_pages_to_bytes(s, l->freerun));
		u64(j, "setpoint", wb_pages_to_bytes(s, l->setpoint));
		u64(j, "reserve", wb_pages_to_bytes(s, l->reserve));
		if (l->calibrated)
			bval(j, "calibrated", true);
	}
	if (l == v->lim) {
		pages(j, s, "kernel_thresh", m, WB_G_DIRTY_THRESH, s->g.v[WB_G_DIRTY_THRESH]);
		pages(j, s, "kernel_bg_thresh", m, WB_G_BG_THRESH, s->g.v[WB_G_BG_THRESH]);
		pages(j, s, "free", m, WB_G_MEMFREE, s->g.v[WB_G_MEMFREE]);
		if (WB_HAS(m, WB_G_ACTIVE_FILE) && WB_HAS(m, WB_G_INACTIVE_FILE))
			u64(j, "file_lru", wb_pages_to_bytes(s, s->g.v[WB_G_ACTIVE_FILE] + s->g.v[WB_G_INACTIVE_FILE]));
		pages(j, s, "write_pending", m, WB_G_ZONE_WRITE_PENDING, s->g.v[WB_G_ZONE_WRITE_PENDING]);
		grate(j, v, "dirtied_rate", WB_G_DIRTIED, true);
		grate(j, v, "written_rate", WB_G_WRITTEN, true);
		grate(j, v, "vmscan_write_rate", WB_G_VMSCAN_WRITE, true);
		grate(j, v, "vmscan_immediate_rate", WB_G_VMSCAN_IMMEDIATE, true);
		grate(j, v, "throttled_written_rate", WB_G_THROTTLED_WRITTEN, true);
		grate(j, v, "pgscan_per_s", WB_G_PGSCAN, false);
		grate(j, v, "pgsteal_per_s", WB_G_PGSTEAL, false);
		grate(j, v, "allocstall_per_s", WB_G_ALLOCSTALL, false);
	}
	close_(j, '}');
}

static void nodes_arr(struct js *j, const struct wb_view *v)
{
	const struct wb_sample *s = v->cur;

	open_(j, "nodes", '[');
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct wb_node *n = &s->nodes[i];
		const struct wb_node_limits *nl = v->lim && v->lim->valid && i < v->lim->nnodes
						  ? &v->lim->nodes[i] : NULL;
		open_(j, NULL, '{');
		i64(j, "node", n->id);
		pages(j, s, "dirty", n->valid, WB_N_DIRTY, n->v[WB_N_DIRTY]);
		pages(j, s, "writeback", n->valid, WB_N_WRITEBACK, n->v[WB_N_WRITEBACK]);
		pages(j, s, "free", n->valid, WB_N_MEMFREE, n->v[WB_N_MEMFREE]);
		if (nl) {
			u64(j, "dirtyable", wb_pages_to_bytes(s, nl->dirtyable));
			u64(j, "thresh", wb_pages_to_bytes(s, nl->limit));
			bval(j, "over", nl->over);
		}
		close_(j, '}');
	}
	close_(j, ']');
}

static void zones_arr(struct js *j, const struct wb_sample *s)
{
	static const struct { const char *k; int bit; } f[] = {
		{ "free", WB_Z_FREE }, { "min_wmark", WB_Z_MIN }, { "low_wmark", WB_Z_LOW },
		{ "high_wmark", WB_Z_HIGH }, { "boost", WB_Z_BOOST }, { "managed", WB_Z_MANAGED },
		{ "protection", WB_Z_PROTECTION }, { "write_pending", WB_Z_WRITE_PENDING },
	};
	open_(j, "zones", '[');
	for (size_t i = 0; i < s->nzones; i++) {
		const struct wb_zone *z = &s->zones[i];
		open_(j, NULL, '{');
		i64(j, "node", z->node);
		sval(j, "zone", z->name);
		for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
			pages(j, s, f[k].k, z->valid, f[k].bit, z->v[f[k].bit]);
		close_(j, '}');
	}
	close_(j, ']');
}

/* Model fields of one BDI (shared by the current and the what-if objects). */
static void bdi_model(struct js *j, const struct wb_sample *s, const struct wb_bdi_limits *bl)
{
	if (!bl || !bl->valid)
		return;
	u64(j, "thresh", wb_pages_to_bytes(s, bl->thresh));
	u64(j, "bg_thresh", wb_pages_to_bytes(s, bl->bg_thresh));
	if (bl->frac_src != WB_FRAC_NONE) {
		/* the writeout share, and how it is known (capped: at least this) */
		static const char *const src[] = { "none", "debugfs", "floor", "capped" };
		dblp(j, "share", bl->frac_den ? (double)bl->frac_num / (double)bl->frac_den : 0, 6);
		sval(j, "share_src", src[bl->frac_src]);
	}
	sval(j, "state", wb_bdi_state_names[bl->state]);
	if (bl->drain_s >= 0)
		dblp(j, "drain_s", bl->drain_s, 3);
	if (bl->pos_ratio >= 0) {
		dblp(j, "pos_ratio", bl->pos_ratio / 1024.0, 4);
		u64(j, "task_ratelimit", bl->task_ratelimit * s->page_size);
		u64(j, "pause_ms", bl->pause_ms);
	}
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

/* Per-BDI tracepoint figures since the previous sample. */
static void bdi_events(struct js *j, const struct wb_sample *s, const struct wb_bdi_events *e)
{
	uint64_t P = s->page_size;

	u64(j, "wakeups", e->wake_bg);
	open_(j, "events", '{');
	u64(j, "wake_background", e->wake_bg);
	reasons(j, "writeback_start", s, e->start);
	u64(j, "pauses", e->pauses);
	u64(j, "pause_ms_total", e->pause_ms_total);
	u64(j, "pause_ms_max", e->pause_ms_max);
	if (e->pauses || e->task_ratelimit) {
		u64(j, "task_ratelimit", e->task_ratelimit * P);
		u64(j, "dirty_ratelimit", e->dirty_ratelimit * P);
	}
	if (e->balanced_ratelimit)
		u64(j, "balanced_ratelimit", e->balanced_ratelimit * P);
	if (e->dirtied_max)
		u64(j, "dirtied_before_pause_max", (uint64_t)e->dirtied_max * P);
	close_(j, '}');
}

static const char *const ev_kind_names[WB_EV_COUNT] = { "wake_background", "writeback_start",
							 "pause", "reclaim_throttled" };

/* Global tracepoint figures and the bounded event log. */
static void events_obj(struct js *j, const struct wb_sample *s)
{
	uint32_t start[WB_REASONS] = { 0 }, wake = 0, pauses = 0, pmax = 0;

	for (size_t i = 0; i < s->nbdis; i++) {
		const struct wb_bdi_events *e = &s->bdis[i].ev;
		wake += e->wake_bg;
		pauses += e->pauses;
		if (e->pause_ms_max > pmax)
			pmax = e->pause_ms_max;
		for (int r = 0; r < WB_REASONS; r++)
			start[r] += e->start[r];
	}
	open_(j, "events", '{');
	u64(j, "wake_background", wake);
	reasons(j, "writeback_start", s, start);
	u64(j, "throttled", pauses);
	u64(j, "pause_ms_max", pmax);
	open_(j, "reclaim_throttled", '{');
	for (int r = 0; r < WB_RECLAIM_REASONS; r++)
		if (s->reclaim_names[r][0])
			u64(j, s->reclaim_names[r], s->reclaim_throttled[r]);
	close_(j, '}');
	u64(j, "reclaim_delay_us", s->reclaim_delay_us);
	if (s->dirty_limit_valid)
		u64(j, "dirty_limit", s->dirty_limit * s->page_size);
	u64(j, "handled", s->ev_total);
	u64(j, "dropped", s->ev_dropped);
	u64(j, "not_logged", s->ev_lost_log);
	open_(j, "log", '[');
	for (size_t i = 0; i < s->nevents; i++) {
		const struct wb_event *e = &s->events[i];
		open_(j, NULL, '{');
		dblp(j, "t", e->t, 6);
		sval(j, "kind", e->kind < WB_EV_COUNT ? ev_kind_names[e->kind] : "?");
		if (e->bdi[0])
			sval(j, "bdi", e->bdi);
		i64(j, "pid", e->pid);
		if (e->kind == WB_EV_START && e->reason < WB_REASONS)
			sval(j, "reason", s->reason_names[e->reason]);
		if (e->kind == WB_EV_PAUSE) {
			u64(j, "pause_ms", e->value);
			u64(j, "wb_dirty", e->extra * s->page_size);
		} else if (e->kind == WB_EV_START) {
			u64(j, "nr_pages", e->value);
		} else if (e->kind == WB_EV_RECLAIM) {
			u64(j, "delayed_us", e->value);
		} else if (e->kind == WB_EV_WAKE_BG && e->extra != UINT64_MAX) {
			u64(j, "reclaimable", e->extra * s->page_size); /* estimated: see wake_reclaimable() */
		}
		close_(j, '}');
	}
	close_(j, ']');
	close_(j, '}');
}

static void bdi_obj(struct js *j, const struct wb_view *v, size_t i)
{
	const struct wb_sample *s = v->cur;
	const struct wb_bdi *b = &s->bdis[i];
	const struct wb_bdi_limits *bl = v->lim ? wb_limits_bdi(v->lim, b->name) : NULL;
	double r;

	open_(j, NULL, '{');
	sval(j, "bdi", b->name);
	if (b->dev[0])
		sval(j, "dev", b->dev);
	if (b->fstype[0])
		sval(j, "fstype", b->fstype);
	open_(j, "mounts", '[');
	for (int m = 0; m < b->nmounts; m++)
		sval(j, NULL, b->mounts[m]);
	close_(j, ']');
	pages(j, s, "reclaimable", b->st_valid, WB_B_RECLAIMABLE, b->st[WB_B_RECLAIMABLE]);
	pages(j, s, "writeback", b->st_valid, WB_B_WRITEBACK, b->st[WB_B_WRITEBACK]);
	bdi_model(j, s, bl);
	pages(j, s, "kernel_thresh", b->st_valid, WB_B_THRESH, b->st[WB_B_THRESH]);
	/* the global threshold the kernel divided for this BDI (read with it, not with vmstat) */
	pages(j, s, "kernel_global_thresh", b->st_valid, WB_B_DIRTY_THRESH, b->st[WB_B_DIRTY_THRESH]);
	if (WB_HAS(b->st_valid, WB_B_WB_BW))
		u64(j, "write_bw", wb_pages_to_bytes(s, b->st[WB_B_WB_BW]));
	else if (WB_HAS(b->st_valid, WB_B_BDI_BW))
		u64(j, "write_bw", wb_pages_to_bytes(s, b->st[WB_B_BDI_BW]));
	if (v->prev && wb_rate_bdi(v->prev, s, b->name, WB_B_DIRTIED, &r))
		dbl(j, "dirtied", r * s->page_size);
	if (v->prev && wb_rate_bdi(v->prev, s, b->name, WB_B_WRITTEN, &r))
		dbl(j, "written", r * s->page_size);
	if (WB_HAS(b->disk_valid, WB_D_WRITE_SECTORS) && v->prev) {
		const struct wb_bdi *pb = wb_sample_bdi(v->prev, b->name);
		double dt = s->mono - v->prev->mono;
		if (pb && WB_HAS(pb->disk_valid, WB_D_WRITE_SECTORS) && dt > 0 &&
		    b->disk[WB_D_WRITE_SECTORS] >= pb->disk[WB_D_WRITE_SECTORS])
			dbl(j, "disk_write_rate",
			    (double)(b->disk[WB_D_WRITE_SECTORS] - pb->disk[WB_D_WRITE_SECTORS]) * 512 / dt);
	}
	for (int k = 0; k < WB_K_COUNT; k++)
		if (WB_HAS(b->knob_valid, k))
			u64(j, wb_knob_names[k], b->knob[k]);
	if (WB_HAS(b->st_valid, WB_B_B_DIRTY))
		u64(j, "dirty_inodes", b->st[WB_B_B_DIRTY]);
	if (s->ev_valid)
		bdi_events(j, s, &b->ev);
	if (b->stats_skipped)
		bval(j, "stats_stale", true);
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
		if (b->dirty_rate_in >= 0) /* absent: throttled writers, demand unknown */
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
		open_(j, NULL, '{');
		sval(j, "bdi", v->whatif->bdis[i].name);
		bdi_model(j, s, &v->whatif->bdis[i]);
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
	nodes_arr(&j, v);
	zones_arr(&j, s);
	open_(&j, "bdis", '[');
	for (size_t i = 0; i < s->nbdis; i++)
		bdi_obj(&j, v, i);
	close_(&j, ']');
	if (s->procs_valid) {
		double dt = v->prev ? s->mono - v->prev->mono : 0;
		open_(&j, "procs", '[');
		for (size_t i = 0; i < s->nprocs; i++) {
			const struct wb_proc *p = &s->procs[i];
			open_(&j, NULL, '{');
			i64(&j, "pid", p->pid);
			sval(&j, "comm", p->comm);
			if (dt > 0) {
				dbl(&j, "write_rate", p->write_bytes_delta / dt);
				dbl(&j, "cancelled_rate", p->cancelled_delta / dt);
			}
			bval(&j, "throttled", p->throttled);
			close_(&j, '}');
		}
		close_(&j, ']');
	}
	if (s->ev_valid)
		events_obj(&j, s);
	if (v->whatif)
		whatif_obj(&j, v);
	if (v->forecast)
		forecast_obj(&j, v->forecast, s->page_size);
	close_(&j, '}');
	fputc('\n', f);
}
