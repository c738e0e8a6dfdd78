// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control layer: what balance_dirty_pages and the flusher would do now
 * (writeback-model.md section 5 and 7.1), per BDI, for one writer.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wb_model_internal.h"
#include "wbtop/model.h"

#define RATELIMIT_SHIFT 10
#define WB_BW_MAX 1e15 /* pages/s: anything above is damage; keeps (uint64_t)bw defined */

int64_t wb_pos_polynom(int64_t setpoint, int64_t dirty, int64_t limit)
{
	/* in 128 bits, and |x| past 4096 saturates p anyway: damaged figures cannot overflow */
	__int128 x128 = ((__int128)setpoint - dirty) * (1 << RATELIMIT_SHIFT) / (((__int128)limit - setpoint) | 1);
	int64_t x = x128 > 4096 ? 4096 : x128 < -4096 ? -4096 : (int64_t)x128;
	int64_t p = x;

	p = (p * x) >> RATELIMIT_SHIFT;
	p = (p * x) >> RATELIMIT_SHIFT;
	p += 1 << RATELIMIT_SHIFT;
	if (p < 0)
		p = 0;
	if (p > 2 << RATELIMIT_SHIFT)
		p = 2 << RATELIMIT_SHIFT;
	return p;
}

/* Clamp a 128-bit intermediate of position_ratio to [0, 2^40] (damaged figures only reach the ends). */
static __int128 pos_clamp(__int128 v)
{
	return v < 0 ? 0 : v > ((__int128)1 << 40) ? (__int128)1 << 40 : v;
}

/* wb_position_ratio (6.14+), bw in pages/s; 128-bit arithmetic: page counts are any uint64. */
static int64_t position_ratio(const struct wb_limits *l, const struct wb_bdi_limits *b, double bw)
{
	__int128 pos, wt, x16, wsp, span, xint, h;
	__int128 dirty = l->dirty, limit = l->limit;
	__int128 wd = b->wb_dirty;

	if (dirty >= limit)
		return 0;
	pos = wb_pos_polynom((int64_t)l->setpoint, (int64_t)dirty, (int64_t)limit);
	if (b->strict) {
		__int128 wth = b->thresh, wsp2 = ((__int128)b->thresh + b->bdp_bg_thresh) / 2;
		if (wd >= wth || wsp2 == 0 || wsp2 == wth)
			return 0;
		int64_t p2 = wb_pos_polynom((int64_t)wsp2, (int64_t)wd, (int64_t)wth);
		return pos < p2 ? (int64_t)pos : p2;
	}
	wt = b->thresh < l->thresh ? b->thresh : l->thresh;
	x16 = (wt << 16) / (l->thresh | 1);
	wsp = (l->setpoint * x16) >> 16;
	span = (((__int128)l->thresh - wt + 8 * (__int128)bw) * x16) >> 16;
	xint = wsp + span;
	if (wd < xint - span / 4)
		pos = pos_clamp(pos * (xint - wd) / ((xint - wsp) | 1));
	else
		pos = pos / 4;
	h = wt / 2;
	if (wd < h)
		pos = pos_clamp(wd > h / 8 ? pos * h / wd : pos * 8);
	return (int64_t)pos;
}

/* Is this BDI's writer in freerun (no balance_dirty_pages pause)? */
static bool freerun(const struct wb_limits *l, const struct wb_bdi_limits *b)
{
	if (b->strict)
		return b->wb_dirty <= (b->thresh + b->bdp_bg_thresh) / 2;
	return l->dirty <= l->freerun;
}

/*
 * Pages a device's counters may show with nothing dirty: they are per-CPU
 * and read without summing, so up to their batch per CPU (8 * (1 + ilog2
 * CPUs)) stays for good. A device holding no more is not flushing.
 */
uint64_t wb_counter_slack(const struct wb_sample *s)
{
	unsigned n = s->ncpus ? s->ncpus : 1, lg = 0;

	while (lg < 31 && (2u << lg) <= n)
		lg++;
	return (uint64_t)n * 8 * (1 + lg);
}

/*
 * Throttled means a writer of the device is paced in balance_dirty_pages,
 * which only a task dirtying its pages enters: over the freerun ceiling every
 * device's writers are, but a device nothing wrote to since the last sample
 * has none (its pages left are the flusher's). Without the dirtied counter,
 * pages on it stand for a writer.
 */
static enum wb_bdi_state state_of(const struct wb_limits *l, const struct wb_bdi_limits *b,
				  const struct wb_bdi *sb, bool is_free, uint64_t slack)
{
	bool pages = b->dirty_known && b->wb_dirty > slack;
	bool writer = b->dirtying ? b->dirtying > 0 : pages;

	/* the global limit holds only the writers there are: an idle device is not over it */
	if ((l->dirty >= l->limit && writer) ||
	    (b->dirty_known && b->wb_dirty >= b->thresh && b->wb_dirty > 0 && (b->strict || !is_free)))
		return WB_ST_OVER;
	if (!is_free && writer)
		return WB_ST_THROTTLED;
	/* past a background threshold the flusher runs for what the device holds: no more than
	 * the counters' slack, nothing to write (unknown: take the threshold's word) */
	if ((b->over_bg && !b->dirty_known) || pages ||
	    (WB_HAS(sb->st_valid, WB_B_B_IO) && sb->st[WB_B_B_IO] > 0))
		return WB_ST_FLUSHING;
	return WB_ST_IDLE;
}

void wb_control_compute(struct wb_limits *l, const struct wb_sample *s,
			const double *bw_pages_s, unsigned hz)
{
	if (!l->valid)
		return;
	if (hz == 0)
		hz = 250;
	for (size_t i = 0; i < l->nbdis && i < s->nbdis; i++) {
		struct wb_bdi_limits *b = &l->bdis[i];
		const struct wb_bdi *sb = &s->bdis[i];
		double bw = bw_pages_s ? bw_pages_s[i] : 0;
		bool is_free = freerun(l, b);

		if (!(bw > 0))
			bw = 0; /* NaN from damaged figures too */
		else if (bw > WB_BW_MAX)
			bw = WB_BW_MAX;
		b->bw = bw;
		b->over_bg = s->g.v[WB_G_DIRTY] > l->bg ||
			     (WB_HAS(sb->st_valid, WB_B_RECLAIMABLE) && sb->st[WB_B_RECLAIMABLE] > b->bg_thresh);
		b->state = state_of(l, b, sb, is_free, wb_counter_slack(s));
		/* none from the estimate a device starts with: a guess (wb_model_drain() may measure one) */
		b->drain_s = !b->dirty_known ? -1 : !b->wb_dirty ? 0
			     : bw > 0 && !wb_bw_unmeasured(bw, s->page_size) ? (double)b->wb_dirty / bw : -1;
		if (is_free || !b->dirty_known || bw <= 0) {
			b->pos_ratio = -1;
			b->dirty_ratelimit = 0;
			b->ratelimit_traced = false;
			b->task_ratelimit = 0;
			b->pause_ms = 0;
			continue;
		}
		b->pos_ratio = position_ratio(l, b, bw);
		/*
		 * dirty_ratelimit is history, not a function of the state: a
		 * device far over its share holds it at a few pages/s for tens
		 * of seconds, and a writer is blocked outright while that times
		 * the position ratio rounds to 0 pages/s. The tracepoint shows
		 * it; without it, one writer settled at the write bandwidth.
		 */
		b->ratelimit_traced = s->ev_valid && sb->ev.dirty_ratelimit > 0;
		b->dirty_ratelimit = b->ratelimit_traced ? sb->ev.dirty_ratelimit : (uint64_t)bw;
		b->task_ratelimit = (b->dirty_ratelimit * (uint64_t)b->pos_ratio) >> RATELIMIT_SHIFT;
		{
			uint64_t max_pause = hz / 5 ? hz / 5 : 1;
			uint64_t mp = b->wb_dirty / (1 + (uint64_t)bw / wb_rp2(1 + hz / 8)) + 1;
			uint64_t pages = 32, pause;

			if (mp < max_pause)
				max_pause = mp;
			pause = b->task_ratelimit ? (uint64_t)hz * pages / b->task_ratelimit : max_pause;
			if (pause > max_pause)
				pause = max_pause;
			b->pause_ms = (uint32_t)(pause * 1000 / hz);
		}
	}
}

void wb_model_bandwidths(const struct wb_sample *prev, const struct wb_sample *cur, double *bw)
{
	for (size_t i = 0; i < cur->nbdis; i++) {
		const struct wb_bdi *b = &cur->bdis[i];
		double r;

		bw[i] = 0;
		if (WB_HAS(b->st_valid, WB_B_WB_BW))
			bw[i] = (double)b->st[WB_B_WB_BW];
		else if (WB_HAS(b->st_valid, WB_B_BDI_BW) && b->st[WB_B_BDI_BW])
			bw[i] = (double)b->st[WB_B_BDI_BW];
		else if (prev && wb_rate_bdi(prev, cur, b->name, WB_B_WRITTEN, &r))
			bw[i] = r;
	}
}

void wb_model_completed(const struct wb_sample *cur, const struct wb_ring *hist, const char *name,
			double *pages, double *secs)
{
	const struct wb_bdi *b = wb_sample_bdi(cur, name), *o, *from = NULL;
	const struct wb_sample *now = cur, *h;

	*pages = *secs = 0;
	for (size_t i = 0; b && b->stats_skipped && (h = wb_ring_get(hist, i)); i++)
		if (h->mono < cur->mono && (o = wb_sample_bdi(h, name)) && !o->stats_skipped) {
			/* stats not re-read (back-off) stand still: from the last read */
			now = h;
			b = o;
		}
	if (!b || b->stats_skipped || !WB_HAS(b->st_valid, WB_B_WRITTEN) || !WB_HAS(b->st_valid, WB_B_WRITEBACK) ||
	    !b->st[WB_B_WRITEBACK])
		return;
	for (size_t i = 0; (h = wb_ring_get(hist, i)); i++) {
		if (h->mono >= now->mono)
			continue;
		if (cur->mono - h->mono > WB_DRAIN_WINDOW_S + 0.5)
			break;
		o = wb_sample_bdi(h, name);
		if (o && o->stats_skipped)
			continue;
		/* a gap in its writeback, or a counter that went back (another device under the name) */
		if (!o || !WB_HAS(o->st_valid, WB_B_WRITTEN) || !WB_HAS(o->st_valid, WB_B_WRITEBACK) ||
		    !o->st[WB_B_WRITEBACK] || o->st[WB_B_WRITTEN] > b->st[WB_B_WRITTEN])
			break;
		from = o;
		*secs = now->mono - h->mono;
	}
	if (from)
		*pages = (double)(b->st[WB_B_WRITTEN] - from->st[WB_B_WRITTEN]);
}

void wb_model_drain(struct wb_limits *l, const struct wb_sample *cur, const struct wb_ring *hist)
{
	if (!l || !l->valid || !hist)
		return;
	for (size_t i = 0; i < l->nbdis && i < cur->nbdis; i++) {
		struct wb_bdi_limits *b = &l->bdis[i];
		double pages, secs;

		if (!b->dirty_known)
			continue;
		wb_model_completed(cur, hist, cur->bdis[i].name, &pages, &secs);
		/*
		 * none completed with writeback in flight that long: stalled,
		 * unknown - as --until-clean says (the kernel's estimate, decayed
		 * to 4 KiB/s on a stalled disk, had CLEAN-IN at 1m34s there)
		 */
		if (secs >= WB_DRAIN_MIN_S)
			b->drain_s = pages > 0 ? (double)b->wb_dirty * secs / pages : -1;
	}
}

/* Pages fewer than this written back by every device over the window say nothing of who wrote them: 4 MiB. */
#define SHARE_MIN_BYTES (4u << 20)

/* o, of sample s, has a freshly read BdiWritten beside s's nr_written. */
static bool fresh_written(const struct wb_sample *s, const struct wb_bdi *o)
{
	return o && !o->stats_skipped && WB_HAS(o->st_valid, WB_B_WRITTEN) && WB_HAS(s->g.valid, WB_G_WRITTEN);
}

/* A stretch between two samples: seconds, the device's pages written back and everyone else's. */
struct share_step {
	double dt, own, others;
};

/*
 * The kernel's count (fprop, mm/page-writeback.c's wb_domain completions)
 * replayed over steps, oldest first: every count halved each
 * WB_SHARE_PERIOD_S (continuously here: the timer's phase is not seen),
 * the others' completions added to the whole, the device's own only as far
 * as keeps its part within m (__fprop_add_percpu_max: a capped device's
 * completions stop counting at its cap, so others' pages written after it
 * take its share away, while without completions both sides halve alike and
 * it keeps it). The kernel rounds the last allowance up to a whole page: a
 * device that wrote into a tiny count keeps at least one. A step's pages
 * come spread over it (the device's after the others' it interleaves with).
 * The state before the first step: that step's rates held for ever.
 * *whole: the count the share is of, in pages. m_last: the cap of the last
 * step (a what-if's new max_ratio), m before it.
 */
static double replay_share(const struct share_step *st, size_t n, double m, double m_last, double *whole)
{
	const double tau = WB_SHARE_PERIOD_S / M_LN2; /* a constant rate's count settles at rate * tau */
	double num = 0, oth = 0;

	*whole = 0;
	if (!n)
		return -1;
	if (st[0].dt > 0) {
		oth = st[0].others / st[0].dt * tau;
		num = st[0].own / st[0].dt * tau;
		if (m < 1 && num > m / (1 - m) * oth)
			num = m / (1 - m) * oth;
	}
	for (size_t i = 0; i < n; i++) {
		double a = exp2(-st[i].dt / WB_SHARE_PERIOD_S);
		double w = st[i].dt > 0 ? (1 - a) * tau / st[i].dt : 1; /* the mean weight now of a page spread over the step */
		double aged = num * a, mi = i + 1 == n ? m_last : m;

		oth = oth * a + st[i].others * w;
		num = aged + st[i].own * w;
		if (mi < 1 && st[i].own > 0) {
			double lim = ceil(mi / (1 - mi) * oth);

			if (num > lim)
				num = aged > lim ? aged : lim;
		}
	}
	*whole = num + oth;
	return *whole > 0 ? num / *whole : -1;
}

/*
 * The stretches, oldest first, over which BDI name and everyone else wrote
 * back, from the samples of hist up to WB_SHARE_BACK_S before its last fresh
 * read (stats kept by the back-off stand still: that read's, and its
 * sample's nr_written). 0 when there is not enough to judge by: under
 * SHARE_MIN_BYTES written back by everyone over the history. A sample
 * without the BDI ends the history: another device may have come back under
 * its name, its counter started again.
 */
#define SHARE_MAX_STEPS 256
static size_t share_steps(const struct wb_sample *cur, const struct wb_ring *hist, const char *name,
			 struct share_step st[SHARE_MAX_STEPS])
{
	const struct wb_sample *now = cur, *h, *newer;
	const struct wb_bdi *b = wb_sample_bdi(cur, name), *o, *nb;
	uint64_t min_pages = SHARE_MIN_BYTES / (cur->page_size ? cur->page_size : 4096), all = 0;
	size_t n = 0;

	if (!min_pages)
		min_pages = 1;
	if (b && b->stats_skipped)
		for (size_t k = 0; (h = wb_ring_get(hist, k)); k++) {
			if (h->mono >= cur->mono)
				continue;
			if (!(o = wb_sample_bdi(h, name)) || cur->mono - h->mono > WB_SHARE_PERIOD_S * 2)
				return 0;
			if (fresh_written(h, o)) {
				now = h;
				b = o;
				break;
			}
		}
	if (!fresh_written(now, b))
		return 0;
	newer = now;
	nb = b;
	/* newest first into st, reversed below */
	for (size_t k = 0; n < SHARE_MAX_STEPS && (h = wb_ring_get(hist, k)); k++) {
		if (h->mono >= newer->mono)
			continue;
		if (now->mono - h->mono > WB_SHARE_BACK_S + 0.5 || !(o = wb_sample_bdi(h, name)))
			break;
		if (!fresh_written(h, o))
			continue;
		if (o->st[WB_B_WRITTEN] > nb->st[WB_B_WRITTEN] || h->g.v[WB_G_WRITTEN] > newer->g.v[WB_G_WRITTEN])
			break;
		uint64_t d_all = newer->g.v[WB_G_WRITTEN] - h->g.v[WB_G_WRITTEN];
		uint64_t d_own = nb->st[WB_B_WRITTEN] - o->st[WB_B_WRITTEN];

		st[n].dt = newer->mono - h->mono;
		st[n].own = (double)d_own;
		st[n].others = d_all > d_own ? (double)(d_all - d_own) : 0;
		n++;
		all += d_all;
		newer = h;
		nb = o;
	}
	if (!n || now->mono - newer->mono < 1.0 || all < min_pages)
		return 0;
	for (size_t i = 0; i < n / 2; i++) {
		struct share_step t = st[i];

		st[i] = st[n - 1 - i];
		st[n - 1 - i] = t;
	}
	return n;
}

/* BDI name's part of the kernel's count, replayed from what hist shows it wrote back (above), capped at m. */
static double completed_share(const struct wb_sample *cur, const struct wb_ring *hist, const char *name, double m,
			      double *whole)
{
	struct share_step st[SHARE_MAX_STEPS];
	size_t n = share_steps(cur, hist, name, st);

	*whole = 0;
	return n ? replay_share(st, n, m, m, whole) : -1;
}

/* A what-if's thresholds are told as a sample after the change, as the panes will show them. */
#define LIFT_AFTER_S 1.0

/*
 * A device at its max_ratio cap stopped counting there
 * (__fprop_add_percpu_max); a higher cap lets it count again, and one that
 * completes more than the others' count takes the new cap within a second
 * (a FUSE mount at its default 1 % writing back 600 MB/s: 237M a second
 * after max_ratio 5, where the share it has now gave 47M). Its part then:
 * the count replayed at the old cap, and LIFT_AFTER_S more at the newest
 * stretch's rates under the new one. < 0: not enough history.
 */
static double lifted_share(const struct wb_sample *cur, const struct wb_ring *hist, const char *name, double m_old,
			   double m_new)
{
	struct share_step st[SHARE_MAX_STEPS + 1];
	size_t n = share_steps(cur, hist, name, st);
	double whole;

	if (!n || !(st[n - 1].dt > 0))
		return -1;
	st[n].dt = LIFT_AFTER_S;
	st[n].own = st[n - 1].own / st[n - 1].dt * LIFT_AFTER_S;
	st[n].others = st[n - 1].others / st[n - 1].dt * LIFT_AFTER_S;
	return replay_share(st, n + 1, m_old, m_new, &whole);
}

void wb_model_lift_caps(struct wb_limits *w, const struct wb_limits *base, const struct wb_sample *cur,
			const struct wb_ring *hist)
{
	if (!w || !w->valid || !base || !cur || !hist)
		return;
	for (size_t i = 0; i < w->nbdis && i < cur->nbdis; i++) {
		struct wb_bdi_limits *bl = &w->bdis[i];
		const struct wb_bdi_limits *b0 = wb_limits_bdi(base, bl->name);
		double s;

		/* at the cap, or within 1/16 of it: the count stops short by the per-CPU counters'
		 * batches (a FUSE mount's 1 % read as 0.98 % while it wrote back 600 MB/s) */
		if (!b0 || !b0->valid || b0->max_ppm >= WB_RATIO_FULL || bl->max_ppm <= b0->max_ppm || !bl->frac_den ||
		    b0->thresh + b0->wb_max / 16 < b0->wb_max)
			continue;
		s = lifted_share(cur, hist, bl->name, (double)b0->max_ppm / WB_RATIO_FULL,
				 (double)bl->max_ppm / WB_RATIO_FULL);
		if (s * (double)bl->frac_den > (double)bl->frac_num) {
			bl->lifted = true;
			wb_limits_set_share(w, cur, i, s);
		}
	}
}

/*
 * The part of the kernel's count its figures leave to the devices whose
 * share they hide: shares are parts of one count, so 1 less every share a
 * figure shows. < 0 when that says nothing: a device without a figure;
 * shares that add up to more than the whole (a count so small that each
 * device's part is read within its per-CPU slack, and several show it
 * all: an idle machine's); or the devices listed wrote back under 90 % of
 * what everyone did over the last samples (one completing is not listed:
 * a fixture, a filtered tree).
 */
static double hidden_remainder(const struct wb_limits *l, const struct wb_sample *cur, const struct wb_ring *hist)
{
	const struct wb_sample *h = NULL;
	double seen = 0;
	uint64_t listed = 0;

	for (size_t i = 0; i < l->nbdis; i++) {
		const struct wb_bdi_limits *bl = &l->bdis[i];

		if (bl->frac_src == WB_FRAC_NONE)
			return -1;
		if (bl->frac_src == WB_FRAC_DEBUGFS || (bl->frac_src == WB_FRAC_CAPPED && !bl->frac_hidden))
			seen += (double)bl->frac_num / (double)(bl->frac_den ? bl->frac_den : 1);
	}
	if (seen > 1.001)
		return -1;
	for (size_t k = 0; (h = wb_ring_get(hist, k)); k++)
		if (h->mono < cur->mono - WB_SHARE_PERIOD_S + 0.5)
			break;
	if (!h || !WB_HAS(cur->g.valid, WB_G_WRITTEN) || !WB_HAS(h->g.valid, WB_G_WRITTEN) ||
	    cur->g.v[WB_G_WRITTEN] < h->g.v[WB_G_WRITTEN])
		return -1;
	for (size_t i = 0; i < cur->nbdis; i++) {
		const struct wb_bdi *b = &cur->bdis[i], *o = wb_sample_bdi_at(h, b->name, i);

		if (fresh_written(cur, b) && fresh_written(h, o) && b->st[WB_B_WRITTEN] >= o->st[WB_B_WRITTEN])
			listed += b->st[WB_B_WRITTEN] - o->st[WB_B_WRITTEN];
	}
	if ((double)listed < 0.9 * (double)(cur->g.v[WB_G_WRITTEN] - h->g.v[WB_G_WRITTEN]))
		return -1;
	return seen < 1 ? 1 - seen : 0;
}

void wb_model_hidden_shares(struct wb_limits *l, const struct wb_sample *cur, const struct wb_ring *hist)
{
	double rem, under = 0, weight = 0, *rep;
	size_t nhidden = 0;

	if (!l || !l->valid || !cur || !hist || !l->nbdis)
		return;
	if (!(rep = calloc(l->nbdis, sizeof(*rep))))
		return;
	for (size_t i = 0; i < l->nbdis && i < cur->nbdis; i++) {
		const struct wb_bdi_limits *bl = &l->bdis[i];
		double m = (double)bl->max_ppm / WB_RATIO_FULL, whole;

		rep[i] = -1;
		if (bl->frac_hidden || bl->frac_src == WB_FRAC_FLOOR)
			rep[i] = completed_share(cur, hist, cur->bdis[i].name, m, &whole);
		nhidden += bl->frac_hidden;
		if (rep[i] > 0)
			*(bl->frac_hidden ? &weight : &under) += rep[i];
	}
	rem = nhidden ? hidden_remainder(l, cur, hist) : -1;
	/*
	 * What the figures leave is the hidden devices' and the small shares
	 * under the floor: these as replayed (a root disk's journal pages took
	 * 0.4 % of a CI-like count), the rest split between the hidden devices
	 * as the replayed counts have them, alike without counts. The replayed
	 * counts alone come from nr_written's 1 s steps and the kernel's timer
	 * phase is not seen: 2x the kernel's share 3 s after a device stopped
	 * (a test run).
	 */
	rem = rem < 0 ? rem : rem > under ? rem - under : 0;
	for (size_t i = 0; i < l->nbdis && i < cur->nbdis; i++) {
		if (!l->bdis[i].frac_hidden)
			continue;
		if (rem >= 0) {
			wb_limits_set_share(l, cur, i, weight > 0 ? (rep[i] > 0 ? rem * rep[i] / weight : 0) : rem / (double)nhidden);
			l->bdis[i].hidden_how = WB_HID_READ;
		} else if (rep[i] >= 0) {
			wb_limits_set_share(l, cur, i, rep[i]);
			l->bdis[i].hidden_how = WB_HID_REPLAYED;
		}
	}
	free(rep);
}

int wb_model_eval(const struct wb_sample *prev, const struct wb_sample *cur,
		  const struct wb_settings *k, const struct wb_limits *base, unsigned hz,
		  struct wb_limits *out)
{
	return wb_model_eval_hist(prev, cur, NULL, k, base, hz, out);
}

int wb_model_eval_hist(const struct wb_sample *prev, const struct wb_sample *cur, const struct wb_ring *hist,
		       const struct wb_settings *k, const struct wb_limits *base, unsigned hz, struct wb_limits *out)
{
	double stackbw[64], *bw = stackbw;
	int err = wb_limits_compute(cur, k, base, out);

	if (err)
		return err;
	if (!base)
		wb_model_hidden_shares(out, cur, hist);
	else /* a what-if takes its shares from base, but for caps it raises */
		wb_model_lift_caps(out, base, cur, hist);
	if (cur->nbdis > 64) {
		bw = calloc(cur->nbdis, sizeof(*bw));
		if (!bw)
			return -ENOMEM;
	}
	wb_model_bandwidths(prev, cur, bw);
	for (size_t i = 0; i < out->nbdis && i < cur->nbdis; i++) {
		const struct wb_bdi *sb = &cur->bdis[i];
		double r;

		out->bdis[i].dirtying = 0;
		if (prev && wb_rate_bdi(prev, cur, sb->name, WB_B_DIRTIED, &r)) /* a fold of per-CPU counts is noise */
			out->bdis[i].dirtying = r * (cur->mono - prev->mono) > (double)wb_counter_slack(cur) ? 1 : -1;
		if (cur->ev_valid && sb->ev.pauses > 0)
			out->bdis[i].dirtying = 1;
	}
	wb_control_compute(out, cur, bw, hz);
	if (bw != stackbw)
		free(bw);
	return 0;
}
