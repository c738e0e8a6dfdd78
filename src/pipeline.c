// SPDX-License-Identifier: GPL-2.0-or-later
/* The pipeline: history window -> model, what-if, forecast, derived figures -> one view. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/forecast.h"
#include "wbtop/apply.h"
#include "wbtop/pipeline.h"
#include "wbtop/whatif.h"

struct wb_pipeline {
	struct wb_pipeline_opts o;
	struct wb_ring *ring;
	struct wb_view view;
	bool have_view;
	struct wb_limits lim, whatif;
	struct wb_forecast fc, wfc;
	bool fc_made;                /* fc/wfc hold a forecast made at fc_mono */
	double fc_mono;
	struct wb_bdi_derived *bdi;
	size_t bdi_cap;
	struct wb_proc_derived *proc;
	size_t proc_cap;
	struct wb_timeline *tl;      /* NULL unless opts.timeline */
	struct wb_pipeline_sink *sinks; /* opts.sinks, copied */
	struct wb_diag diag;         /* the sinks' problems at the last push */
	struct wb_diag warn;         /* and their passing ones */
};

struct wb_pipeline *wb_pipeline_create(const struct wb_pipeline_opts *o)
{
	struct wb_pipeline *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->o = *o;
	if (p->o.window < 2)
		p->o.window = WB_PIPELINE_WINDOW;
	p->ring = wb_ring_create(p->o.window);
	p->tl = p->o.timeline ? wb_timeline_create(p->o.timeline) : NULL;
	p->sinks = o->nsinks ? calloc(o->nsinks, sizeof(*p->sinks)) : NULL;
	if (!p->ring || (p->o.timeline && !p->tl) || (o->nsinks && !p->sinks)) {
		wb_ring_destroy(p->ring);
		wb_timeline_destroy(p->tl);
		free(p->sinks);
		free(p);
		return NULL;
	}
	if (o->nsinks)
		memcpy(p->sinks, o->sinks, o->nsinks * sizeof(*p->sinks));
	p->o.sinks = p->sinks;
	return p;
}

/* Free the forecasts (they may outlive a view: forecast_every_s). */
static void drop_forecasts(struct wb_pipeline *p)
{
	wb_forecast_finish(&p->fc);
	wb_forecast_finish(&p->wfc);
	memset(&p->fc, 0, sizeof(p->fc));
	memset(&p->wfc, 0, sizeof(p->wfc));
	p->fc_made = false;
}

/* Free what the last view owns. */
static void view_finish(struct wb_pipeline *p)
{
	if (!p->have_view)
		return;
	wb_limits_finish(&p->lim);
	wb_limits_finish(&p->whatif);
	if (p->o.forecast_every_s <= 0) /* else kept for the views until the next one */
		drop_forecasts(p);
	memset(&p->lim, 0, sizeof(p->lim));
	memset(&p->whatif, 0, sizeof(p->whatif));
	memset(&p->view, 0, sizeof(p->view));
	p->have_view = false;
}

void wb_pipeline_destroy(struct wb_pipeline *p)
{
	if (!p)
		return;
	view_finish(p);
	drop_forecasts(p);
	wb_ring_destroy(p->ring);
	wb_timeline_destroy(p->tl);
	free(p->bdi);
	free(p->proc);
	free(p->sinks);
	free(p);
}

void wb_pipeline_clear(struct wb_pipeline *p)
{
	view_finish(p);
	drop_forecasts(p);
	wb_ring_clear(p->ring);
	if (p->tl)
		wb_timeline_clear(p->tl);
}

const struct wb_timeline *wb_pipeline_timeline(const struct wb_pipeline *p)
{
	return p->tl;
}

const struct wb_view *wb_pipeline_view(const struct wb_pipeline *p)
{
	return p->have_view ? &p->view : NULL;
}

const struct wb_ring *wb_pipeline_history(const struct wb_pipeline *p)
{
	return p->ring;
}

bool wb_bdi_write_bw(const struct wb_bdi *b, uint64_t *pages_s)
{
	if (WB_HAS(b->st_valid, WB_B_WB_BW))
		*pages_s = b->st[WB_B_WB_BW];
	else if (WB_HAS(b->st_valid, WB_B_BDI_BW))
		*pages_s = b->st[WB_B_BDI_BW];
	else
		return false;
	return true;
}

/*
 * The device a --set entry names (bdi.NAME.attr=...) into name, and the key
 * (bdi.NAME.attr) into key; false for a vm.* entry or one not of that shape.
 */
static bool set_device(const char *set, char *name, size_t nn, char *key, size_t kn)
{
	const char *eq = strchr(set, '='), *dot = eq ? memrchr(set, '.', (size_t)(eq - set)) : NULL;

	if (strncmp(set, "bdi.", 4) || !dot || dot <= set + 4 || (size_t)(dot - set - 4) >= nn ||
	    (size_t)(eq - set) >= kn)
		return false;
	snprintf(name, nn, "%.*s", (int)(dot - set - 4), set + 4);
	snprintf(key, kn, "%.*s", (int)(eq - set), set);
	return true;
}

/* Does s have the backing device called name (its MAJ:MIN or its device name)? */
static bool sample_has(const struct wb_sample *s, const char *name)
{
	for (size_t i = 0; i < s->nbdis; i++)
		if (strcmp(s->bdis[i].name, name) == 0 || (s->bdis[i].dev[0] && strcmp(s->bdis[i].dev, name) == 0))
			return true;
	return false;
}

bool wb_pipeline_set_absent(const struct wb_pipeline *p, int i, const struct wb_sample *s)
{
	char name[WB_NAME_LEN + 1], key[96];

	return i >= 0 && i < p->o.nsets && set_device(p->o.sets[i], name, sizeof(name), key, sizeof(key)) &&
	       !sample_has(s, name);
}

/*
 * A replay's --set (set) naming a device the recording does not have (where:
 * "in the recording at this sample"; who: "it", the sample s): the model's
 * "see /sys/class/bdi" points at this machine's devices, which have nothing
 * to do with it. Said in err as not in the recording, with the ones s has (as
 * many as fit); err is left as it is for anything else.
 */
static void not_recorded(const char *set, const struct wb_sample *s, const char *where, const char *who, char *err,
			 size_t n)
{
	char name[WB_NAME_LEN + 1], key[96], q[WB_QUOTE_LEN], qn[WB_QUOTE_LEN];
	size_t o, shown = 0;
	int k;

	if (!set_device(set, name, sizeof(name), key, sizeof(key)) || n < 64 || sample_has(s, name))
		return; /* there: the model's message is about something else */
	k = snprintf(err, n, "%s: no backing device \"%s\" %s (%s has ", wb_quote(key, q, sizeof(q)),
		     wb_quote(name, qn, sizeof(qn)), where, who);
	o = k > 0 && (size_t)k < n - 24 ? (size_t)k : n - 24; /* room kept for " and N more)" */
	for (; shown < s->nbdis; shown++) {
		const struct wb_bdi *b = &s->bdis[shown];
		k = snprintf(err + o, n - o, "%s%s%s%s%s", shown ? ", " : "", b->name, b->dev[0] ? " (" : "", b->dev,
			     b->dev[0] ? ")" : "");
		if (k < 0 || (size_t)k >= n - 24 - o)
			break;
		o += (size_t)k;
	}
	if (shown < s->nbdis)
		snprintf(err + o, n - o, "%s and %zu more)", shown ? "" : "none shown", s->nbdis - shown);
	else
		snprintf(err + o, n - o, "%s)", s->nbdis ? "" : "none");
}

void wb_pipeline_absent_msg(const struct wb_pipeline *p, int i, const struct wb_sample *s, const char *where,
			    const char *who, char *err, size_t n)
{
	if (i >= 0 && i < p->o.nsets)
		not_recorded(p->o.sets[i], s, where, who, err, n);
}

/*
 * The what-if settings for cur from the --set list (with skip_absent, its
 * entries naming a device cur lacks left out). 0, -ENOMEM or -EINVAL (err).
 */
static int whatif_settings(const struct wb_pipeline *p, const struct wb_sample *cur, const struct wb_limits *lim,
			   bool skip_absent, struct wb_settings *k, char *err, size_t n)
{
	if (wb_settings_from_sample(k, cur))
		return -ENOMEM;
	struct wb_setop ops[WB_APPLY_MAX_SETS];
	int m = 0;

	for (int i = 0; i < p->o.nsets && i < WB_APPLY_MAX_SETS; i++) {
		if (skip_absent && wb_pipeline_set_absent(p, i, cur))
			continue;
		if (wb_setop_parse(p->o.sets[i], cur, &ops[m], err, n) || wb_setop_clash(ops, m, err, n) ||
		    wb_settings_apply(k, lim, cur->page_size, &ops[m], err, n)) {
			if (p->o.replay)
				not_recorded(p->o.sets[i], cur, "in the recording at this sample", "it", err, n);
			wb_settings_finish(k);
			return -EINVAL;
		}
		m++;
	}
	return 0;
}

int wb_pipeline_check_present(const struct wb_pipeline *p, char *err, size_t n)
{
	struct wb_settings k;
	int rc;

	if (!p->have_view)
		return 0;
	rc = whatif_settings(p, p->view.cur, &p->lim, true, &k, err, n);
	if (rc == 0)
		wb_settings_finish(&k);
	return rc;
}

/* Forecast under the current settings and, with --set, under the new ones. */
static void run_forecast(struct wb_pipeline *p)
{
	struct wb_view *v = &p->view;
	struct wb_forecast_in in;
	double *buf = wb_forecast_prepare(v->cur, p->ring, p->o.forecast_s, 1.0, &in);
	struct wb_settings k;
	char err[256];

	if (!buf)
		return;
	if (p->o.forecast_members > 0) /* a sink's own trade of band quality for cost */
		in.members = (unsigned)p->o.forecast_members;
	if (wb_settings_from_sample(&k, v->cur) == 0) {
		if (wb_forecast_run(v->cur, v->lim, &k, &in, &p->fc) == 0)
			v->forecast = &p->fc;
		wb_settings_finish(&k);
	}
	if (v->whatif && whatif_settings(p, v->cur, v->lim, false, &k, err, sizeof(err)) == 0) {
		if (wb_forecast_run(v->cur, v->whatif, &k, &in, &p->wfc) == 0)
			v->whatif_forecast = &p->wfc;
		wb_settings_finish(&k);
	}
	free(buf);
}

/* A new forecast, or the last one while it is younger than forecast_every_s. */
static void forecast_or_keep(struct wb_pipeline *p)
{
	struct wb_view *v = &p->view;
	double age = v->cur->mono - p->fc_mono;

	if (!p->fc_made || p->o.forecast_every_s <= 0 || age >= p->o.forecast_every_s - 1e-6 || age < 0) {
		drop_forecasts(p);
		run_forecast(p);
		p->fc_made = true;
		p->fc_mono = v->cur->mono;
	} else {
		v->forecast = p->fc.nsteps ? &p->fc : NULL;
		v->whatif_forecast = p->wfc.nsteps && v->whatif ? &p->wfc : NULL;
	}
	v->forecast_mono = p->fc_mono;
}

/* The model, the what-if and the forecast of the newest sample. */
static int run_model(struct wb_pipeline *p, char *err, size_t errlen)
{
	struct wb_view *v = &p->view;
	struct wb_settings k;
	int rc;

	if (wb_model_eval_hist(v->prev, v->cur, p->ring, NULL, NULL, 0, &p->lim) == 0) {
		wb_model_drain(&p->lim, v->cur, p->ring); /* by what the device completes, not the kernel's estimate */
		v->lim = &p->lim;
	}
	if (p->o.nsets) {
		rc = whatif_settings(p, v->cur, &p->lim, false, &k, err, errlen);
		if (rc)
			return rc;
		if (wb_model_eval_hist(v->prev, v->cur, p->ring, &k, &p->lim, 0, &p->whatif) == 0) {
			wb_model_drain(&p->whatif, v->cur, p->ring);
			v->whatif = &p->whatif;
		}
		wb_settings_finish(&k);
	}
	if (p->o.forecast_s > 0 && v->lim)
		forecast_or_keep(p);
	return 0;
}

/*
 * Wakeups and throttling pauses of BDI j per minute over the last minute
 * (< 0: unknown), both in one walk of the ring (the walk, with a name
 * compared per sample, was most of what deriving a BDI cost).
 */
static void per_minute(const struct wb_pipeline *p, size_t j, double *wake_pm, double *throttle_pm)
{
	const struct wb_sample *now = wb_ring_get(p->ring, 0), *s, *older;
	const char *name = now->bdis[j].name;
	double wakes = 0, pauses = 0, span = 0;

	*wake_pm = *throttle_pm = -1;
	if (!now->ev_valid)
		return;
	/* events of sample i happened since sample i+1: whole intervals up to a minute */
	for (size_t i = 0; (s = wb_ring_get(p->ring, i)) && (older = wb_ring_get(p->ring, i + 1)); i++) {
		const struct wb_bdi *b = wb_sample_bdi_at(s, name, j);
		double dt = s->mono - older->mono;
		if (!s->ev_valid || span + dt > WB_PER_MINUTE_SPAN)
			break;
		if (b) {
			wakes += b->ev.wake_bg;
			pauses += b->ev.pauses;
		}
		span += dt;
	}
	if (span > 0) {
		*wake_pm = wakes * 60 / span;
		*throttle_pm = pauses * 60 / span;
	}
}

/* Bytes/s written to the disk under BDI b, from diskstats. */
static bool disk_rate(const struct wb_sample *prev, const struct wb_sample *s, const struct wb_bdi *b,
		      double *out)
{
	const struct wb_bdi *pb;
	double dt;

	if (!WB_HAS(b->disk_valid, WB_D_WRITE_SECTORS) || !prev)
		return false;
	pb = wb_sample_bdi(prev, b->name);
	dt = s->mono - prev->mono;
	if (!pb || !WB_HAS(pb->disk_valid, WB_D_WRITE_SECTORS) || dt <= 0 ||
	    b->disk[WB_D_WRITE_SECTORS] < pb->disk[WB_D_WRITE_SECTORS])
		return false;
	*out = (double)(b->disk[WB_D_WRITE_SECTORS] - pb->disk[WB_D_WRITE_SECTORS]) * 512 / dt;
	return true;
}

const char *const wb_held_by_names[WB_HELD_COUNT] = {
	[WB_HELD_NONE] = "", [WB_HELD_GLOBAL] = "global", [WB_HELD_DEVICE] = "device",
};

enum wb_held_by wb_pipeline_held_by(const struct wb_limits *l, size_t j)
{
	const struct wb_bdi_limits *b = l && l->valid && j < l->nbdis ? &l->bdis[j] : NULL;

	if (!b || !b->valid || (b->state != WB_ST_THROTTLED && b->state != WB_ST_OVER))
		return WB_HELD_NONE;
	if (b->strict || (b->dirty_known && b->wb_dirty > 0 && b->wb_dirty >= b->thresh))
		return WB_HELD_DEVICE;
	return WB_HELD_GLOBAL;
}

/* The derived figures of BDI j of the newest sample. */
static void derive_bdi(const struct wb_pipeline *p, size_t j, struct wb_bdi_derived *d)
{
	const struct wb_view *v = &p->view;
	const struct wb_sample *s = v->cur, *pr = v->prev;
	const struct wb_bdi *b = &s->bdis[j];
	const struct wb_bdi_limits *bl = v->lim && v->lim->valid && j < v->lim->nbdis ? &v->lim->bdis[j] : NULL;
	double P = s->page_size, r;
	uint64_t bw;

	memset(d, 0, sizeof(*d));
	if (pr && wb_rate_bdi(pr, s, b->name, WB_B_DIRTIED, &r)) {
		d->dirtied_ok = true;
		d->dirtied = r * s->page_size;
	}
	if (pr && wb_rate_bdi(pr, s, b->name, WB_B_WRITTEN, &r)) {
		d->written_ok = true;
		d->written = r * s->page_size;
	}
	d->bw_ok = wb_bdi_write_bw(b, &bw);
	d->bw = d->bw_ok ? (double)wb_pages_to_bytes(s, bw) : 0;
	d->dirty_ok = WB_HAS(b->st_valid, WB_B_RECLAIMABLE) && WB_HAS(b->st_valid, WB_B_WRITEBACK);
	d->dirty = d->dirty_ok ? (double)(b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK]) * P : 0;
	d->pct_ok = d->dirty_ok && bl && bl->thresh;
	d->pct = d->pct_ok ? 100.0 * d->dirty / ((double)bl->thresh * P) : 0;
	d->disk_ok = disk_rate(pr, s, b, &d->disk_write);
	d->drain_s = bl && bl->drain_s >= 0 ? bl->drain_s : -1;
	per_minute(p, j, &d->wake_pm, &d->throttle_pm);
	d->held_by = wb_pipeline_held_by(v->lim, j);
	d->if_held_by = wb_pipeline_held_by(v->whatif, j);
}

/* Grow *arr to hold n entries of size sz. */
static int reserve(void **arr, size_t *cap, size_t n, size_t sz)
{
	void *x;

	if (n <= *cap)
		return 0;
	x = realloc(*arr, n * sz);
	if (!x)
		return -ENOMEM;
	*arr = x;
	*cap = n;
	return 0;
}

/* Rates of the global counters, per-BDI and per-process figures. */
static int derive(struct wb_pipeline *p)
{
	struct wb_view *v = &p->view;
	const struct wb_sample *s = v->cur;
	double dt = v->prev ? s->mono - v->prev->mono : 0;

	if (reserve((void **)&p->bdi, &p->bdi_cap, s->nbdis, sizeof(*p->bdi)) ||
	    reserve((void **)&p->proc, &p->proc_cap, s->nprocs, sizeof(*p->proc)))
		return -ENOMEM;
	for (int k = 0; k < WB_G_COUNT; k++)
		v->g_rate_ok[k] = v->prev && wb_rate_global(v->prev, s, (enum wb_gstat)k, &v->g_rate[k]);
	for (size_t j = 0; j < s->nbdis; j++)
		derive_bdi(p, j, &p->bdi[j]);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct wb_proc *x = &s->procs[i];
		p->proc[i] = (struct wb_proc_derived){ dt > 0, dt > 0 ? x->write_bytes_delta / dt : 0,
						      dt > 0 ? x->cancelled_delta / dt : 0 };
	}
	v->bdi = p->bdi;
	v->proc = p->proc;
	return 0;
}

/* The new view to every sink; a sink that failed says why in p->diag. */
static void feed_sinks(struct wb_pipeline *p)
{
	for (size_t i = 0; i < p->o.nsinks; i++) {
		const struct wb_pipeline_sink *k = &p->sinks[i];
		const struct wb_diag *w;
		const char *why;
		int rc = k->take(k->ctx, &p->view);

		for (int j = 0; k->warnings && (w = k->warnings(k->ctx)) && j < w->n; j++)
			wb_diag_add(&p->warn, "%s", w->msg[j]);
		if (rc == 0)
			continue;
		why = k->error ? k->error(k->ctx) : NULL;
		wb_diag_add(&p->diag, "%s", why ? why : "an output stopped");
	}
}

int wb_pipeline_push(struct wb_pipeline *p, const struct wb_sample *s, char *err, size_t errlen)
{
	int rc;

	wb_diag_clear(&p->diag);
	wb_diag_clear(&p->warn);
	view_finish(p);
	if (wb_ring_push(p->ring, s))
		return -ENOMEM;
	p->have_view = true;
	p->view.cur = wb_ring_get(p->ring, 0);
	p->view.prev = wb_ring_get(p->ring, 1);
	if (p->o.samples_only && !p->o.nsets && p->o.forecast_s <= 0 && !p->tl) {
		feed_sinks(p); /* the view's derived parts stay empty: nothing reads them */
		return 0;
	}
	rc = run_model(p, err, errlen);
	if (rc == 0)
		rc = derive(p);
	else if (derive(p))
		return -ENOMEM;
	if (rc == -ENOMEM)
		return rc;
	feed_sinks(p); /* first: the recorder keeps the sample even if the timeline cannot grow */
	if (p->tl && wb_timeline_push(p->tl, &p->view))
		return -ENOMEM;
	return rc;
}

const struct wb_diag *wb_pipeline_diag(const struct wb_pipeline *p)
{
	return &p->diag;
}

const struct wb_diag *wb_pipeline_warnings(const struct wb_pipeline *p)
{
	return &p->warn;
}

void wb_pipeline_annotate(struct wb_pipeline *p, const char *text)
{
	for (size_t i = 0; i < p->o.nsinks; i++)
		if (p->sinks[i].annotate)
			p->sinks[i].annotate(p->sinks[i].ctx, text);
}

void wb_pipeline_set_forecast(struct wb_pipeline *p, double secs, double every, int members)
{
	p->o.forecast_s = secs > 0 ? secs : 0;
	p->o.forecast_every_s = every > 0 ? every : 0;
	p->o.forecast_members = members;
	if (!p->o.forecast_s || !p->have_view) {
		if (!p->have_view || !p->view.forecast)
			drop_forecasts(p); /* a view still points at them otherwise: the next push drops them */
		return;
	}
	if (!p->view.forecast && p->view.lim) {
		drop_forecasts(p);
		forecast_or_keep(p);
	}
}

/*
 * The timeline point of the ring's newest sample, from its view as a push
 * makes it (the model and the derived figures; no what-if or forecast, which
 * the timeline does not plot). Leaves no view, as wb_pipeline_clear did.
 */
static int timeline_refill(struct wb_pipeline *p)
{
	int rc;

	view_finish(p);
	p->have_view = true;
	p->view.cur = wb_ring_get(p->ring, 0);
	p->view.prev = wb_ring_get(p->ring, 1);
	if (wb_model_eval_hist(p->view.prev, p->view.cur, p->ring, NULL, NULL, 0, &p->lim) == 0)
		p->view.lim = &p->lim;
	rc = derive(p) ? -ENOMEM : wb_timeline_push(p->tl, &p->view);
	view_finish(p);
	return rc;
}

int wb_pipeline_resync(struct wb_pipeline *p, struct wb_source *src)
{
	struct wb_sample s;
	size_t k, at = 0, pos = 0, n;
	double t, len;
	int rc = 0;

	if (!src->rewind)
		return 0;
	wb_pipeline_clear(p);
	/* back to where the source was, by its position, not k reads: a read that skips a damaged
	 * key frame's samples took the refill past it (--from 60 lost good samples unsaid) */
	if (src->where)
		src->where(src->ctx, &t, &len, &at, &n);
	/* the window, or as far back as the timeline holds (the ring keeps the newest) */
	k = src->rewind(src->ctx, p->tl && p->o.timeline > p->o.window ? p->o.timeline - 1 : p->o.window - 1);
	wb_sample_init(&s);
	for (size_t i = 0; rc == 0; i++) {
		if (src->where)
			src->where(src->ctx, &t, &len, &pos, &n);
		if (src->where ? pos >= at : i >= k)
			break;
		if (src->read(src->ctx, &s)) {
			rc = -EIO;
			break;
		}
		if (src->where)
			src->where(src->ctx, &t, &len, &pos, &n);
		if (src->where && pos > at) { /* skipped past where it was: that sample is the next read's */
			src->rewind(src->ctx, 1);
			break;
		}
		rc = wb_ring_push(p->ring, &s);
		if (rc == 0 && p->tl)
			rc = timeline_refill(p);
	}
	wb_sample_finish(&s);
	return rc;
}

void wb_pipeline_strip(const struct wb_pipeline *p, const char *bdi, bool wakes, double *v, int w)
{
	int k = 0;
	size_t at = 0; /* where the device was in the last sample: mostly where it is in this one */

	for (int i = w - 1; i >= 0; i--) {
		const struct wb_sample *s = wb_ring_get(p->ring, (size_t)i);
		const struct wb_bdi *b = s ? wb_sample_bdi_at(s, bdi, at) : NULL;
		if (b)
			at = (size_t)(b - s->bdis);
		if (!b || (wakes && !s->ev_valid))
			v[k] = -1;
		else
			v[k] = wakes ? (double)b->ev.wake_bg : (double)(b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK]);
		k++;
	}
}
