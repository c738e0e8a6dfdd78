// SPDX-License-Identifier: GPL-2.0-or-later
/* The forecast layer: a time-stepped simulation of dirty pages per device. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wb_model_internal.h"
#include "wbtop/env.h"
#include "wbtop/forecast.h"

#define DT_POINT 0.05        /* simulation step, s */
#define DT_MEMBER 0.1        /* an ensemble member's: the band's cost in bounds */
#define FPROP_PERIOD 3.0     /* writeout-share aging period, s */
#define INFLIGHT_S 1.0       /* writeback kept in flight: about a second of bandwidth */
#define HOLD_MAX_S 2.0       /* the most hold_time() takes */
#define INFLIGHT_SEEN 3      /* samples that show a queue bounded (inflight_cap) */
#define RL_PERIOD 0.2        /* BANDWIDTH_INTERVAL: the rate limit's update period, s */
#define MAX_TASKS 64.0
#define HZ 250.0             /* jiffies a second (Debian's kernels) */
#define MAX_PAUSE_S 0.2
#define BW_PERIOD (1024.0 / HZ)  /* roundup_pow_of_two(3 * HZ) jiffies: write_bandwidth's memory */
#define DIRTY_POLL_PAGES 32.0
#define MIN_SEEN_PAGES 1024.0 /* completions (4 MiB) and shares (5 %) that measure the */
#define MIN_SEEN_SHARE 0.05   /* shares' denominator */
#define NEUTRAL 0.2          /* rates this close (relative) are equal within their noise:
				* a 5 s bandwidth reading of a throttled device wanders 12 % */

struct sim_bdi {
	double r, w;             /* reclaimable, writeback (pages) */
	double bw, demand;       /* pages/s: what the device completes, what its writers want */
	double kbw, kavg;        /* the kernel's estimates of bw: write_bandwidth and
				  * avg_write_bandwidth, which its throttle uses */
	double kdone, kt;        /* pages completed, seconds, since the estimates' last update */
	double n;                /* writers on the device (for the per-task rate limit) */
	double rl, prev_bal;     /* dirty_ratelimit and balanced rate, all writers together, pages/s */
	double dirtied, since;   /* pages dirtied, seconds, since the last rate-limit update */
	double chunk;            /* pages of one write, which the kernel cannot split */
	double step_dirtied;     /* pages dirtied in the current output step */
	double e;                /* completions in the share's numerator */
	double share_mul;        /* an ensemble member's multiplier on them (1: the point forecast) */
	double age;              /* seconds the oldest dirty page has waited */
	double tick;             /* seconds since its flusher last ran (to the next periodic run) */
	double min_ppm, max_ppm;
	double wakeups;
	double fill;             /* pages/s of the free-running gap this step lets it dirty */
	double cap;              /* the most it holds under writeback (0: not bounded) */
	double hold;             /* seconds of its writer's pages it keeps dirty (hold_time()) */
	double wset;             /* the pages its writer rewrites (rewrite_set(); 0: fresh pages) */
	bool strict, flushing;
	bool whole;              /* a flush takes every dirty page at once (btrfs) */
	/*
	 * Of the dirty and the background threshold (T), the terms of
	 * __wb_calc_thresh that stay put over a forecast: T's part that the
	 * min_ratios leave to the shares, T * (1e6 - sum_min_ppm) / 1e6; its
	 * min_ratio part; its max_ratio cap. Worked out once, not at each step
	 * (six divisions a device a step), with the same operations in the
	 * same order: the same doubles.
	 */
	struct { double shared, min, cap; } th[2];
};

/* b's threshold terms (sim_bdi.th) for thresholds T and bg, min_ratios summing to summin (ppm). */
static void thresh_terms(struct sim_bdi *b, double T, double bg, double summin)
{
	const double of[2] = { T, bg };

	for (int k = 0; k < 2; k++) {
		b->th[k].shared = of[k] * (1e6 - summin) / 1e6;
		b->th[k].min = of[k] * b->min_ppm / 1e6;
		b->th[k].cap = of[k] * b->max_ppm / 1e6;
	}
}

/* __wb_calc_thresh in floating point for the simulation: threshold k (0 T, 1 bg) of b with dirty D. */
static double calc_thresh(double T, double D, const struct sim_bdi *b, int k, double frac)
{
	double a = b->th[k].shared * frac + b->th[k].min;
	double fl = T > D ? (T - D) / (b->strict ? 100 : 8) : 0;

	if (a < fl)
		a = fl;
	return fmin(a, b->th[k].cap);
}

/*
 * Position ratio of b's writers (1.0 = at the setpoint); < 0 while they run
 * free of balance_dirty_pages.
 */
static double position(const struct sim_bdi *b, double dirty, double thresh, double bg,
		       double wth, double wbg)
{
	double freerun = (thresh + bg) / 2, limit = thresh, sp = (freerun + limit) / 2;
	double wd = b->r + b->w, pos, x;

	if (b->strict ? wd <= (wth + wbg) / 2 : dirty <= freerun)
		return -1;
	if (dirty >= limit || (b->strict && wd >= wth))
		return 0;
	x = (sp - dirty) / fmax(limit - sp, 1);
	pos = 1 + x * x * x;
	if (b->strict) {
		double wsp = (wth + wbg) / 2, y = (wsp - wd) / fmax(wth - wsp, 1);
		pos = fmin(pos, 1 + y * y * y);
	} else {
		double wt = fmin(wth, thresh), share = wt / fmax(thresh, 1);
		double wsp = sp * share, span = (thresh - wt + 8 * b->kavg) * share, xint = wsp + span;
		pos = wd < xint - span / 4 ? pos * (xint - wd) / fmax(xint - wsp, 1) : pos / 4;
		if (wd < wt / 2)
			pos = wd > wt / 16 ? pos * (wt / 2) / wd : pos * 8;
	}
	return fmax(pos, 0);
}

/*
 * The gap to the freerun ceiling in one step (pages/s, what the devices
 * complete meanwhile too) shared among the devices being written: the
 * global level is one for all, so each fills its part, not the whole -
 * with each filling all of it, three writers let loose by a higher
 * vm.dirty_ratio went three times past the ceiling and were forecast
 * blocked for 8 s (scenario-gen repeats/caseD). Equal parts, a writer
 * wanting less than its part leaving the rest to the others (its demand
 * measured; a held writer's is open).
 */
static void share_gap(struct sim_bdi *sb, size_t nb, double gap)
{
	size_t open = 0, left;

	for (size_t i = 0; i < nb; i++) {
		sb[i].fill = -1;
		open += sb[i].demand > 0;
	}
	for (left = open; left > 0;) {
		double part = gap / (double)left;
		size_t took = 0;
		for (size_t i = 0; i < nb; i++)
			if (sb[i].demand > 0 && sb[i].fill < 0 && sb[i].demand <= part) {
				sb[i].fill = sb[i].demand;
				gap -= sb[i].demand;
				took++;
			}
		left -= took;
		if (!took) {
			for (size_t i = 0; i < nb; i++)
				if (sb[i].demand > 0 && sb[i].fill < 0)
					sb[i].fill = part;
			break;
		}
	}
	for (size_t i = 0; i < nb; i++)
		sb[i].fill = fmax(sb[i].fill, 0);
}

/*
 * Completions the writeout shares count for a device capped at the share
 * fm (max_ratio): __fprop_add_percpu_max counts none while its share is
 * past the cap and only enough to reach it otherwise - in the numerator
 * and the denominator alike - so the others' shares grow into what the
 * cap leaves. Counted in full, a device capped at 8 % kept its 40 %, and
 * the other three kept their thresholds where the kernel raised them by
 * half (scenario-gen heldout3/case09, a max_bytes change).
 */
static double capped_add(double e, double g, double fm, double nr)
{
	double room = g * fm - e;

	if (room < 0)
		return 0;
	return room < nr * (1 - fm) ? room / (1 - fm) : nr;
}

static int alloc_out(struct wb_forecast *f, size_t nb, size_t ns)
{
	f->nsteps = ns;
	f->g_dirty = calloc(ns, sizeof(double));
	f->g_writeback = calloc(ns, sizeof(double));
	f->bdis = calloc(nb ? nb : 1, sizeof(*f->bdis));
	if (!f->g_dirty || !f->g_writeback || !f->bdis)
		return -ENOMEM;
	f->nbdis = nb;
	for (size_t i = 0; i < nb; i++) {
		struct wb_forecast_bdi *b = &f->bdis[i];
		b->dirty = calloc(ns, sizeof(double));
		b->writeback = calloc(ns, sizeof(double));
		b->thresh = calloc(ns, sizeof(double));
		b->write_rate = calloc(ns, sizeof(double));
		if (!b->dirty || !b->writeback || !b->thresh || !b->write_rate)
			return -ENOMEM;
	}
	return 0;
}

void wb_forecast_finish(struct wb_forecast *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nbdis; i++) {
		free(f->bdis[i].dirty);
		free(f->bdis[i].writeback);
		free(f->bdis[i].thresh);
		free(f->bdis[i].write_rate);
		for (int q = 0; q < WB_FC_SERIES; q++) {
			free(f->bdis[i].p10[q]);
			free(f->bdis[i].p90[q]);
		}
	}
	for (int q = 0; q < 2; q++) {
		free(f->g_p10[q]);
		free(f->g_p90[q]);
	}
	free(f->bdis);
	free(f->g_dirty);
	free(f->g_writeback);
	memset(f, 0, sizeof(*f));
}

void wb_forecast_dirty_rates(const struct wb_sample *prev, const struct wb_sample *cur, double *rate)
{
	for (size_t i = 0; i < cur->nbdis; i++)
		if (!prev || !wb_rate_bdi(prev, cur, cur->bdis[i].name, WB_B_DIRTIED, &rate[i]))
			rate[i] = 0;
}

/* b has `pages` or more dirty+writeback while the global level is over background */
static bool backlogged(const struct wb_sample *s, const char *name, double pages)
{
	const struct wb_bdi *b = wb_sample_bdi(s, name);

	return b && WB_HAS(s->g.valid, WB_G_DIRTY) && WB_HAS(s->g.valid, WB_G_WRITEBACK) &&
	       WB_HAS(s->g.valid, WB_G_BG_THRESH) && WB_HAS(b->st_valid, WB_B_RECLAIMABLE) &&
	       WB_HAS(b->st_valid, WB_B_WRITEBACK) &&
	       s->g.v[WB_G_DIRTY] + s->g.v[WB_G_WRITEBACK] > s->g.v[WB_G_BG_THRESH] &&
	       (double)(b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK]) >= pages;
}

/*
 * The flusher writes b out without a pause: `pages` / 2 or more in flight,
 * or the kernel's background test holds (wb_over_bg_thresh: the global
 * dirty count, writeback not counted, over the background threshold, or
 * the device's reclaimable pages over its share of it, BdiDirtyThresh
 * scaled by BackgroundThresh / DirtyThresh). Below both, its dirty pages
 * wait for the next time it crosses its share, and what it completes is
 * what its writers dirtied, not its speed (a 31 MiB/s device held by
 * another's writeback completed 7 MiB/s with 60 MiB dirty, scenario-gen
 * run05).
 */
static bool flushed(const struct wb_sample *s, const char *name, double pages)
{
	const struct wb_bdi *b = wb_sample_bdi(s, name);

	if (!b || !WB_HAS(b->st_valid, WB_B_RECLAIMABLE) || !WB_HAS(b->st_valid, WB_B_WRITEBACK))
		return false;
	if ((double)b->st[WB_B_WRITEBACK] >= pages / 2)
		return true;
	if (WB_HAS(s->g.valid, WB_G_DIRTY) && WB_HAS(s->g.valid, WB_G_BG_THRESH) &&
	    s->g.v[WB_G_DIRTY] > s->g.v[WB_G_BG_THRESH])
		return true;
	return WB_HAS(b->st_valid, WB_B_THRESH) && WB_HAS(b->st_valid, WB_B_DIRTY_THRESH) &&
	       WB_HAS(b->st_valid, WB_B_BG_THRESH) && b->st[WB_B_DIRTY_THRESH] &&
	       (double)b->st[WB_B_RECLAIMABLE] >
		       (double)b->st[WB_B_THRESH] * (double)b->st[WB_B_BG_THRESH] / (double)b->st[WB_B_DIRTY_THRESH];
}

/* mib MiB in s's pages (4 KiB pages where the sample does not say) */
static double mib_pages(const struct wb_sample *s, double mib)
{
	return mib * (1 << 20) / (s->page_size ? (double)s->page_size : 4096);
}

/*
 * The most b holds under writeback while it has more to write: a queue of
 * a few requests (a USB stick's: 1-32 commands of 120-240 KiB) takes no
 * more, and the flusher waits for a free one - running, so that no call of
 * balance_dirty_pages wakes it. Bounded when, in INFLIGHT_SEEN samples or
 * more of the history, the flusher was at work on it - the global dirty
 * count over the background threshold, pages of b under writeback and some
 * completed since the sample before - and b had dirty pages four times the
 * most it ever had under writeback and 8 MiB beyond: the flusher had them
 * and did not put them in flight. Not on the device's own share of the
 * background threshold: a fast disk over it waits for the flusher's next
 * periodic run with nothing in flight (the root disk's 8-17M, heldout11).
 * Or, traced, when its writers paused in balance_dirty_pages twice or more
 * in a sample and not one call woke its flusher: it was running at each
 * (a sample whose records the kernel dropped in part tells nothing).
 * xfs and btrfs put whole extents under writeback (16-32M on a one-request
 * stick, stick2/run18), so the volume test misses them where the trace
 * does not. 0: not bounded as far as seen (a throttled loop device takes
 * everything the flusher submits into blk-throttle's queue, hundreds of MB,
 * and its writers wake the flusher at nearly every call).
 */
static double inflight_cap(const struct wb_sample *const *hist, size_t nhist, const char *name, size_t at)
{
	double most = 0, over = mib_pages(hist[0], 8);
	int held = 0;

	for (size_t j = 0; j < nhist; j++) {
		const struct wb_bdi *b = wb_sample_bdi_at(hist[j], name, at);

		if (b && WB_HAS(b->st_valid, WB_B_WRITEBACK))
			most = fmax(most, (double)b->st[WB_B_WRITEBACK]);
	}
	for (size_t j = 0; j + 1 < nhist; j++) {
		const struct wb_sample *s = hist[j];
		const struct wb_bdi *b = wb_sample_bdi_at(s, name, at), *p = wb_sample_bdi_at(hist[j + 1], name, at);
		const uint64_t need = WB_BIT(WB_B_RECLAIMABLE) | WB_BIT(WB_B_WRITEBACK) | WB_BIT(WB_B_WRITTEN);

		bool busy = b && p && (b->st_valid & need) == need && WB_HAS(p->st_valid, WB_B_WRITTEN) &&
			    WB_HAS(s->g.valid, WB_G_DIRTY) && WB_HAS(s->g.valid, WB_G_BG_THRESH) &&
			    s->g.v[WB_G_DIRTY] > s->g.v[WB_G_BG_THRESH] && b->st[WB_B_WRITEBACK] > 0 &&
			    b->st[WB_B_WRITTEN] > p->st[WB_B_WRITTEN];

		held += busy && ((double)b->st[WB_B_RECLAIMABLE] >= 4 * most + over ||
				 (s->ev_valid && !s->ev_dropped && b->ev.pauses >= 2 && b->ev.wake_bg == 0));
	}
	return held >= INFLIGHT_SEEN ? most : 0;
}

/* The kernel's bandwidth estimate of b fell by more than its noise from prev to cur. */
static bool estimate_falling(const struct wb_sample *prev, const struct wb_sample *cur, const char *name)
{
	const struct wb_bdi *a = wb_sample_bdi(prev, name), *b = wb_sample_bdi(cur, name);

	return !a || !b || !WB_HAS(a->st_valid, WB_B_WB_BW) || !WB_HAS(b->st_valid, WB_B_WB_BW) ||
	       (double)b->st[WB_B_WB_BW] < (1 - NEUTRAL) * (double)a->st[WB_B_WB_BW];
}

/* The most b completed over three intervals in a row among hist[0..k) (pages/s; 0: none). */
static double best_run(const struct wb_sample *const *hist, size_t k, const char *name)
{
	double best = 0, r;

	for (size_t j = 0; j + 3 < k; j++)
		if (wb_rate_bdi(hist[j + 3], hist[j], name, WB_B_WRITTEN, &r))
			best = fmax(best, r);
	return best;
}

/*
 * What b completed over the intervals it never ran dry: a megabyte more in
 * flight at the start than it completed in the interval, and a megabyte
 * still at the end - what was in flight at the start was not all done by
 * the end, so it was busy all through, and what it completed is its speed
 * (pages/s; 0: no such interval in the history). Not as much in flight as
 * it completed: 9 MiB in flight, 9 completed and 12 in flight at the end is
 * a device that ran dry and was given more (seen at 10 Hz: idle 7 of 10
 * ticks in such seconds). Summed over them, the ones that completed nothing
 * included, not the best one: a throttled loop device completes in 8 MiB
 * lumps, 24 or 32 MiB in a second at 30 MiB/s, and xfs a whole extent at
 * once (16 MiB in one second of eight on a 2 MiB/s device).
 */
static double saturated_rate(const struct wb_sample *const *hist, size_t nhist, const char *name)
{
	double slack = (double)wb_counter_slack(hist[0]), mb = mib_pages(hist[0], 1) + slack, pages = 0, span = 0;

	for (size_t j = 0; j + 1 < nhist; j++) {
		const struct wb_bdi *a = wb_sample_bdi(hist[j + 1], name), *b = wb_sample_bdi(hist[j], name);
		double done;

		if (!a || !b || a->stats_skipped || b->stats_skipped || !WB_HAS(a->st_valid, WB_B_WRITEBACK) ||
		    !WB_HAS(b->st_valid, WB_B_WRITEBACK) || !WB_HAS(a->st_valid, WB_B_WRITTEN) ||
		    !WB_HAS(b->st_valid, WB_B_WRITTEN) || b->st[WB_B_WRITTEN] < a->st[WB_B_WRITTEN])
			continue;
		done = (double)(b->st[WB_B_WRITTEN] - a->st[WB_B_WRITTEN]);
		if ((double)a->st[WB_B_WRITEBACK] < done + mb || (double)b->st[WB_B_WRITEBACK] < mb)
			continue;
		pages += done;
		span += hist[j]->mono - hist[j + 1]->mono;
	}
	return span > 0 ? pages / span : 0;
}

/*
 * What a device kept queued completed, over the longest stretch (up to
 * WB_FORECAST_BW_WINDOW_S) that it was backlogged at every sample: its
 * completions come in bursts of up to a writeback chunk (4 MiB through a
 * throttled queue), which over 5 s is 0.8 MiB/s either way on a 5 MiB/s
 * device - the difference between draining and holding.
 */
static double backlog_rate(const struct wb_sample *const *hist, size_t nhist, const char *name,
			   double w)
{
	const struct wb_sample *from = NULL;
	double r;

	for (size_t j = 1; j < nhist && hist[0]->mono - hist[j]->mono <= WB_FORECAST_BW_WINDOW_S + 0.5; j++) {
		if (!backlogged(hist[j], name, 2 * w))
			break;
		from = hist[j];
	}
	return from && wb_rate_bdi(from, hist[0], name, WB_B_WRITTEN, &r) && r > 0 ? r : w;
}

/*
 * What b completed over the longest stretch (3 to WB_FORECAST_BW_WINDOW_S
 * seconds) that it held a backlog under writeback at every sample: more in
 * flight than it completed in the whole stretch, and at least a writeback
 * chunk (4 MiB). False without such a stretch.
 */
static bool inflight_rate(const struct wb_sample *const *hist, size_t nhist, const char *name, double *rate)
{
	const struct wb_bdi *now = wb_sample_bdi(hist[0], name), *x;
	double chunk = mib_pages(hist[0], 4), least;
	size_t from = 0;

	if (!now || !WB_HAS(now->st_valid, WB_B_WRITEBACK) || !WB_HAS(now->st_valid, WB_B_WRITTEN))
		return false;
	least = (double)now->st[WB_B_WRITEBACK];
	for (size_t j = 1; j < nhist && hist[0]->mono - hist[j]->mono <= WB_FORECAST_BW_WINDOW_S + 0.5; j++) {
		x = wb_sample_bdi(hist[j], name);
		if (!x || !WB_HAS(x->st_valid, WB_B_WRITEBACK) || !WB_HAS(x->st_valid, WB_B_WRITTEN) ||
		    x->st[WB_B_WRITTEN] > now->st[WB_B_WRITTEN])
			break;
		least = fmin(least, (double)x->st[WB_B_WRITEBACK]);
		if (least < chunk || least < (double)(now->st[WB_B_WRITTEN] - x->st[WB_B_WRITTEN]))
			break;
		from = j;
	}
	if (!from || hist[0]->mono - hist[from]->mono < 3 - 1e-6)
		return false;
	return wb_rate_bdi(hist[from], hist[0], name, WB_B_WRITTEN, rate);
}

/*
 * What b completed over the intervals between samples in which it had
 * writeback in flight and a writeback chunk's more dirty pages waiting at
 * both ends (a megabyte in flight, each beyond the per-CPU counters'
 * slack: busy all through, with more to write), in the bandwidth window;
 * false with fewer than two such intervals. A stick's flusher writes in
 * bursts of a chunk, seconds apart, and the kernel's estimate, made over
 * the bursts, read 75-78 MB/s for 10 MiB/s sticks (stick2/run02) where
 * their busy seconds completed 8-16 MB.
 */
static bool busy_rate(const struct wb_sample *const *hist, size_t nhist, const char *name, double *rate)
{
	double slack = (double)wb_counter_slack(hist[0]), pages = 0, span = 0;
	double mb = mib_pages(hist[0], 1) + slack;
	double waiting = mib_pages(hist[0], 4) + slack;
	int n = 0;

	for (size_t j = 0; j + 1 < nhist && hist[0]->mono - hist[j + 1]->mono <= WB_FORECAST_BW_WINDOW_S + 0.5; j++) {
		const struct wb_bdi *a = wb_sample_bdi(hist[j + 1], name), *b = wb_sample_bdi(hist[j], name);

		if (!a || !b || a->stats_skipped || b->stats_skipped || !WB_HAS(a->st_valid, WB_B_WRITEBACK) ||
		    !WB_HAS(b->st_valid, WB_B_WRITEBACK) || !WB_HAS(a->st_valid, WB_B_WRITTEN) ||
		    !WB_HAS(b->st_valid, WB_B_WRITTEN) || b->st[WB_B_WRITTEN] < a->st[WB_B_WRITTEN])
			continue;
		if ((double)a->st[WB_B_WRITEBACK] < mb || (double)b->st[WB_B_WRITEBACK] < mb ||
		    !WB_HAS(a->st_valid, WB_B_RECLAIMABLE) || !WB_HAS(b->st_valid, WB_B_RECLAIMABLE) ||
		    (double)a->st[WB_B_RECLAIMABLE] < waiting || (double)b->st[WB_B_RECLAIMABLE] < waiting)
			continue;
		pages += (double)(b->st[WB_B_WRITTEN] - a->st[WB_B_WRITTEN]);
		span += hist[j]->mono - hist[j + 1]->mono;
		n++;
	}
	if (n < 2 || span <= 0)
		return false;
	*rate = pages / span;
	return true;
}

/*
 * b has held a writeback chunk (4 MiB, or the per-CPU counters' slack where
 * that is more) or more in flight at every sample of the last second or
 * more, up to hist[0], and completed nothing since from (its writing's
 * start): *bound, a chunk over that stretch, is more than it can complete.
 * Only on figures read in their own sample: those kept by the debugfs
 * back-off (stats_skipped) are an older read's, whose WRITTEN says nothing
 * of what completed since.
 */
static bool stalled(const struct wb_sample *const *hist, size_t nhist, const struct wb_sample *from,
		    const char *name, double *bound)
{
	const struct wb_bdi *now = wb_sample_bdi(hist[0], name), *then = from ? wb_sample_bdi(from, name) : NULL;
	double chunk = mib_pages(hist[0], 4), span;
	size_t oldest = 0;

	chunk = fmax(chunk, (double)wb_counter_slack(hist[0]));
	if (!now || !then || now->stats_skipped || !WB_HAS(now->st_valid, WB_B_WRITEBACK) ||
	    !WB_HAS(now->st_valid, WB_B_WRITTEN) || !WB_HAS(then->st_valid, WB_B_WRITTEN) ||
	    now->st[WB_B_WRITTEN] != then->st[WB_B_WRITTEN] || (double)now->st[WB_B_WRITEBACK] < chunk)
		return false;
	for (size_t j = 1; j < nhist && hist[j]->mono >= from->mono - 1e-6; j++) {
		const struct wb_bdi *x = wb_sample_bdi(hist[j], name);

		if (!x || x->stats_skipped || !WB_HAS(x->st_valid, WB_B_WRITEBACK) ||
		    !WB_HAS(x->st_valid, WB_B_WRITTEN) || x->st[WB_B_WRITTEN] != now->st[WB_B_WRITTEN] ||
		    (double)x->st[WB_B_WRITEBACK] < chunk)
			break;
		oldest = j;
	}
	span = hist[0]->mono - hist[oldest]->mono;
	if (!(span >= 0.9)) /* a second, less the sampler's jitter */
		return false;
	*bound = chunk / span;
	return true;
}

/*
 * The least the device has shown it can complete, a floor under its
 * bandwidth: the most it completed over any 3 s or more of hist, less two
 * 4 MiB bursts (a throttled queue completes in bursts of them; over 3 s
 * the most seen was up to 2.5 MiB/s above the throttle, scenario-gen
 * runs/; 7 of 458 recorded devices still went over it by more than 10 %),
 * or two of its lumps where it completes in larger ones (lumps_of()).
 * Its own estimate and what it completed lately say only what its writers
 * gave it: a 33 MiB/s device flushed in bursts showed 7-9 MiB/s, and the
 * forecast under a higher limit kept the shares half and half where the
 * kernel gave it 86 % (runs/run38).
 */
/*
 * The largest lump b completed in one interval right after one in which it
 * completed under a quarter of it, where it did so twice or more in hist
 * (0 otherwise): a device that completes in lumps. xfs writes large folios
 * into bios of tens of MiB, which a throttled queue lets through whole: a
 * 22 MiB/s device completed 48-66 MiB a second every 2-3 s, and over 3 s
 * it showed 31 MiB/s (heldout26/run16). Once is a device starting; a
 * throttled queue's writeback chunks (4 MiB, two or three at once on an
 * 8 MiB/s device) are not lumps: 16 MiB or more. A lone lump after
 * STALL_S or more in which nothing completed with pages in flight, and
 * little since, is a cycle: the stall and the lump. A 5.2 MiB/s device's
 * first 52 MiB came 10 s after its writeback began, and over the 3 s
 * around it it showed 14.4 MiB/s (heldout31/run14).
 */
struct lumps {
	double most;        /* the largest, pages; 0: not a device that completes in lumps */
	size_t first, last; /* hist's samples at the end of its oldest and newest lump */
	double alone;       /* pages/s: the only lump over the stall before it (STALL_S or
			     * more) and its own interval; 0: none, or more than a quarter
			     * of it completed after it */
	double lone;        /* that lump, pages */
};
#define STALL_S 3.0 /* completions stood still this long before a lump: its cycle */

static struct lumps lumps_of(const struct wb_sample *const *hist, size_t nhist, const char *name)
{
	struct lumps l = { 0, 0, 0, 0, 0 };
	double most = 0, c[2] = { -1, -1 }, dt[2] = { 0, 0 }, least = mib_pages(hist[0], 16), still = 0;
	double cycle = 0, since = 0; /* seconds from the stall's start to the lump's end; pages after */
	int n = 0;

	for (size_t j = nhist; j-- > 1;) {
		const struct wb_bdi *a = wb_sample_bdi(hist[j], name), *b = wb_sample_bdi(hist[j - 1], name);

		c[0] = c[1];
		dt[0] = dt[1];
		dt[1] = hist[j - 1]->mono - hist[j]->mono;
		/*
		 * Not across a kept read (stats_skipped: its WRITTEN stood still),
		 * nor over an interval longer than the one before (samples dropped
		 * between, fresh_history()): the seconds completed at once there
		 * would read as a lump.
		 */
		c[1] = a && b && !a->stats_skipped && !b->stats_skipped && WB_HAS(a->st_valid, WB_B_WRITTEN) &&
		       WB_HAS(b->st_valid, WB_B_WRITTEN) && b->st[WB_B_WRITTEN] >= a->st[WB_B_WRITTEN]
		       ? (double)(b->st[WB_B_WRITTEN] - a->st[WB_B_WRITTEN]) : -1;
		if (c[0] >= 0 && c[1] > 4 * c[0] && c[1] >= least && dt[1] <= 1.5 * dt[0]) {
			most = fmax(most, c[1]);
			if (!n++)
				l.first = j - 1;
			l.last = j - 1;
			cycle = still >= STALL_S - 1e-6 ? still + dt[1] : 0;
			l.lone = c[1];
			since = 0;
		} else if (n && c[1] >= 0) {
			since += c[1];
		}
		/* seconds in a row before this interval in which nothing completed
		 * with pages under writeback (not an idle device's) */
		still = c[1] == 0 && WB_HAS(a->st_valid, WB_B_WRITEBACK) && a->st[WB_B_WRITEBACK] > 0 ? still + dt[1] : 0;
	}
	l.most = n >= 2 ? most : 0;
	/*
	 * Lumps are more than twice what the device completed a second across
	 * them (48-66 MiB on a 22 MiB/s one); a 30 MiB/s device's first
	 * second and its 24 MiB after a second of none, over 19 MiB/s
	 * between, are its pace (taken for a 19 MiB/s device that completes
	 * in lumps, its writer was forecast 34 % low; now 25 %)
	 */
	double r;
	if (l.most && l.last != l.first &&
	    wb_rate_bdi(hist[l.first], hist[l.last], name, WB_B_WRITTEN, &r) && 2 * r > l.most)
		l.most = 0;
	/* the lone lump over its stall, where little completed since (else the
	 * device went on at its speed after a start: that stands) */
	l.alone = n == 1 && cycle > 0 && since < l.lone / 4 ? l.lone / cycle : 0;
	if (!l.alone)
		l.lone = 0;
	return l;
}

/*
 * What a device that completes in lumps (l) completed over whole cycles:
 * from its oldest lump's sample to its newest's, 3 s or more apart. Over a
 * window cut anywhere, one lump more or less is its size over the window:
 * 66 MiB over 8 s is 8 MiB/s on a 22 MiB/s device.
 */
static bool lump_rate(const struct wb_sample *const *hist, const struct lumps *l, const char *name, double *rate)
{
	if (!l->most || hist[l->last]->mono - hist[l->first]->mono < 3 - 1e-6)
		return false;
	return wb_rate_bdi(hist[l->first], hist[l->last], name, WB_B_WRITTEN, rate) && *rate > 0;
}

static double shown_rate(const struct wb_sample *const *hist, size_t nhist, const char *name,
			 const struct lumps *l)
{
	double best = 0, r, span, slack = fmax(mib_pages(hist[0], 8), 2 * fmax(l->most, l->lone));

	for (size_t j = 0; j < nhist; j++)
		for (size_t k = j + 1; k < nhist; k++) {
			span = hist[j]->mono - hist[k]->mono;
			if (span >= 3 - 1e-6 && wb_rate_bdi(hist[k], hist[j], name, WB_B_WRITTEN, &r))
				best = fmax(best, (r * span - slack) / span);
		}
	return best;
}

/*
 * wb_min_pause's nr_dirtied_pause: the pages the kernel lets a task dirty
 * before its next balance_dirty_pages call, from the rate limit, the task
 * rate limit and the bandwidth estimate (pages/s; HZ 250) and the longest
 * pause (seconds: wb_max_pause(), at most 200 ms). About 10 ms of the rate
 * limit, at least 32 pages (or what the longest pause allows), fewer when
 * the task rate limit would otherwise make the pause longer than the
 * longest.
 */
static double pause_pages(double rl, double trl, double kavg, double max_pause_s)
{
	const double mp = round(max_pause_s * HZ), hz2 = 256; /* jiffies; roundup_pow_of_two(HZ) */
	/* ilogb: the kernel's ilog2 (floor of log2) without libm's log2, per step */
	double t = floor(HZ / 100), pages, hi = kavg >= 1 ? ilogb(kavg) : 0;
	double lo = rl >= 1 ? ilogb(rl) : 0;

	if (hi > lo)
		t += floor((hi - lo) * 10 * HZ / 1024);
	t = fmin(t, 1 + floor(mp / 2));
	pages = floor(rl * t / hz2);
	if (pages < DIRTY_POLL_PAGES) {
		t = mp;
		pages = fmin(floor(rl * t / hz2), DIRTY_POLL_PAGES);
	}
	if (HZ * pages / (trl + 1) > mp)
		pages = floor(trl * mp / hz2);
	return pages;
}

/*
 * Seconds each BDI of hist[0] has held dirty pages without a break, as far
 * back as hist goes: an inode's dirtied_when is its first dirtying, so a
 * file written for a while is already due for the periodic flusher.
 */
static void dirty_ages(const struct wb_sample *const *hist, size_t nhist, double *age)
{
	const struct wb_sample *cur = hist[0];

	for (size_t i = 0; i < cur->nbdis; i++) {
		age[i] = 0;
		for (size_t k = 1; k < nhist; k++) {
			const struct wb_bdi *b = wb_sample_bdi_at(hist[k], cur->bdis[i].name, i);
			if (!b || !WB_HAS(b->st_valid, WB_B_RECLAIMABLE) || b->st[WB_B_RECLAIMABLE] == 0)
				break;
			age[i] = cur->mono - hist[k]->mono;
		}
	}
}

/*
 * Seconds back to the first sample of the device's current writing (a gap
 * of 3 samples without dirtying ends it), up to the history's length: the
 * forecast is least sure of a writer it has seen for a few seconds.
 */
static double seen_writing(const struct wb_sample *const *hist, size_t nhist, const char *name)
{
	size_t last = 0, quiet = 0;
	double d;

	for (size_t j = 0; j + 1 < nhist && quiet < 3; j++) {
		if (wb_rate_bdi(hist[j + 1], hist[j], name, WB_B_DIRTIED, &d) && d > 0) {
			last = j + 1;
			quiet = 0;
		} else {
			quiet++;
		}
	}
	return hist[0]->mono - hist[last]->mono;
}

/*
 * Pages the device completed over hist, each halved every FPROP_PERIOD s
 * since, as the kernel's writeout shares count them (it halves the counts
 * at each period's turn, at a phase not seen: a continuous decay, scaled
 * so that a steady rate R gives the 2 R FPROP_PERIOD the simulation takes
 * for steady). 0 when the history spans less than a period.
 */
static double completed(const struct wb_sample *const *hist, size_t nhist, const char *name)
{
	double sum = 0, r;

	if (nhist < 2 || hist[0]->mono - hist[nhist - 1]->mono < FPROP_PERIOD)
		return 0;
	for (size_t j = 0; j + 1 < nhist; j++)
		if (wb_rate_bdi(hist[j + 1], hist[j], name, WB_B_WRITTEN, &r))
			sum += r * (hist[j]->mono - hist[j + 1]->mono) *
			       exp2(-(hist[0]->mono - (hist[j]->mono + hist[j + 1]->mono) / 2) / FPROP_PERIOD);
	return sum * 2 * M_LN2;
}

/*
 * x, y, z: three samples of b, newest first. What its writers dirtied a
 * second from y to x when none of them paused from z to x and they dirtied
 * in both intervals (a writer that starts late in an interval shows a part
 * of its pace there): true and the rate, pages/s.
 */
static bool free_pair(const struct wb_sample *x, const struct wb_sample *y, const struct wb_sample *z,
		      const char *name, double *d)
{
	const struct wb_bdi *a = wb_sample_bdi(x, name), *c = wb_sample_bdi(y, name);
	double e;

	return a && c && x->ev_valid && y->ev_valid && !a->ev.pauses && !c->ev.pauses &&
	       wb_rate_bdi(y, x, name, WB_B_DIRTIED, d) && *d > 0 && wb_rate_bdi(z, y, name, WB_B_DIRTIED, &e) &&
	       e > 0;
}

/* The most b's writers dirtied a second while free over hist (pages/s), or -1. */
static double free_rate(const struct wb_sample *const *hist, size_t nhist, const char *name)
{
	double best = -1, d;

	for (size_t j = 0; j + 2 < nhist; j++)
		if (free_pair(hist[j], hist[j + 1], hist[j + 2], name, &d))
			best = fmax(best, d);
	return best;
}

/*
 * Seconds of its writers' pages a device that keeps up holds dirty or in
 * flight: the flusher takes what was dirtied before its pass began, so a
 * paced writer below its device's speed leaves a level of about its rate
 * times this (a 21 MB/s writer on a 36 MB/s stick held 2-10 MiB, mean
 * 5.5, where the forecast had it empty: stick4/run18). The window's mean
 * level over its mean dirtying rate, where at every sample the device
 * held under half its threshold, no writer paused and it completed what
 * was dirtied over the window but a fifth of it or 2 MiB (a write and
 * one in flight) - kept up, not a backlog building; at least 3 intervals
 * (a paced writer's large writes leave some with nothing dirtied), else
 * 0. At most HOLD_MAX_S: a trickle
 * waits for the periodic flusher, which the simulation's ages model.
 */
static double hold_time(const struct wb_sample *const *hist, size_t k, const char *name, size_t at)
{
	double level = 0, dirtied = 0, written = 0, span = 0, d, w;
	int n = 0;

	for (size_t j = 0; j + 1 < k; j++) {
		const struct wb_sample *s = hist[j];
		const struct wb_bdi *b = wb_sample_bdi_at(s, name, at);
		const uint64_t need = WB_BIT(WB_B_RECLAIMABLE) | WB_BIT(WB_B_WRITEBACK) | WB_BIT(WB_B_THRESH);

		if (!b || (b->st_valid & need) != need || b->stats_skipped || (s->ev_valid && b->ev.pauses) ||
		    !wb_rate_bdi(hist[j + 1], s, name, WB_B_DIRTIED, &d) ||
		    !wb_rate_bdi(hist[j + 1], s, name, WB_B_WRITTEN, &w))
			return 0;
		double lv = (double)(b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK]), dt = s->mono - hist[j + 1]->mono;

		if (lv >= (double)b->st[WB_B_THRESH] / 2)
			return 0;
		level += lv;
		dirtied += d * dt;
		written += w * dt;
		span += dt;
		n++;
	}
	if (n < 3 || span <= 0 || dirtied <= 0 ||
	    written < dirtied - fmax(0.2 * dirtied, mib_pages(hist[0], 2) + (double)wb_counter_slack(hist[0])))
		return 0;
	return fmin(level / n / (dirtied / span), HOLD_MAX_S);
}

/*
 * The spread of a device's dirty + writeback about its straight course
 * (least squares) over the last WB_FORECAST_LEVEL_S seconds, pages; 0 with
 * fewer than 5 samples. A paced writer's device goes in a sawtooth - what
 * waits for the flusher's next pass or its share's test, an xfs lump in
 * flight - whose phase no forecast knows: its 5 s means fell outside a
 * band drawn on the course alone on both sides alike (scenario-gen
 * heldout27/28: paced writers' levels covered 52-70 %).
 */
static double level_sd(const struct wb_sample *const *hist, size_t nhist, const char *name, size_t at)
{
	double st = 0, sl = 0, stt = 0, stl = 0, sll = 0;
	int n = 0;

	for (size_t j = 0; j < nhist && hist[0]->mono - hist[j]->mono <= WB_FORECAST_LEVEL_S + 0.5; j++) {
		const struct wb_bdi *b = wb_sample_bdi_at(hist[j], name, at);
		const uint64_t need = WB_BIT(WB_B_RECLAIMABLE) | WB_BIT(WB_B_WRITEBACK);

		if (!b || (b->st_valid & need) != need || b->stats_skipped)
			continue;
		double t = hist[j]->mono - hist[0]->mono, lv = (double)(b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK]);

		st += t;
		sl += lv;
		stt += t * t;
		stl += t * lv;
		sll += lv * lv;
		n++;
	}
	if (n < 5)
		return 0;
	double vt = stt - st * st / n, vl = sll - sl * sl / n, c = stl - st * sl / n;
	double res = vt > 0 ? vl - c * c / vt : vl; /* what the line leaves */

	return res > 0 ? sqrt(res / (n - 2)) : 0;
}

/*
 * The set of pages a writer rewrites (seed 4's read-1M, rewrite-1M, sleep
 * loop), pages; 0 for a writer of fresh pages. Dirtying a page that is
 * already dirty counts nowhere, so such a device's dirtied counter moves
 * only once a flush has cleaned its pages, and its dirty pages never pile
 * up past the set. Seen as a span of REWRITE_FLAT_S or more in which the
 * device held dirty pages with nothing dirtied or completed, a flush after
 * it, and dirtying again within REWRITE_AFTER_S of that flush, neither its
 * level nor what it dirtied in one interval ever past REWRITE_X times what
 * it held then: the set is the most the device held (the root disk, which
 * held 1.2 MiB for 5 s, then dirtied 10 MiB in a second, is not one). A
 * fresh writer at a pace dirties whatever it writes, flushed or not
 * (scenario-gen's paced writers leave 2.5 s at most between two writes;
 * one that pauses longer, its pages held, is taken for a rewriter: the
 * counters cannot tell them apart). In tests/scenarios/cache_thrash.sh
 * the flash device held its 1 MiB for 5-10 s at a time, each flush
 * followed by 1 MiB dirtied in the next second or two; taken for a fresh
 * 0.2-0.6 MiB/s writer, after min_ratio=5 its pages were forecast to pile
 * up past its background threshold, be flushed and keep its share (its
 * threshold 14 MiB), where they stayed at 1 MiB unflushed and its share
 * faded (10.3 MiB).
 */
#define REWRITE_FLAT_S 4.0
#define REWRITE_AFTER_S 2.5
#define REWRITE_X 1.25
static double rewrite_set(const struct wb_sample *const *hist, size_t nhist, const char *name, size_t at)
{
	double slack = (double)wb_counter_slack(hist[0]), most = 0, lump = 0, flat = 0, held = 0, flush_at = -1;
	const uint64_t need = WB_BIT(WB_B_RECLAIMABLE) | WB_BIT(WB_B_WRITEBACK);
	bool found = false;

	/* oldest first: a flat span, then its flush, then dirtying again */
	for (size_t j = nhist - 1; j >= 1; j--) {
		const struct wb_sample *a = hist[j], *s = hist[j - 1];
		const struct wb_bdi *b = wb_sample_bdi_at(s, name, at);
		double d, w, dt = s->mono - a->mono;

		if (!b || (b->st_valid & need) != need || b->stats_skipped || dt <= 0 ||
		    !wb_rate_bdi(a, s, name, WB_B_DIRTIED, &d) || !wb_rate_bdi(a, s, name, WB_B_WRITTEN, &w))
			return 0;
		d *= dt;
		w *= dt;
		double rec = (double)b->st[WB_B_RECLAIMABLE], lv = rec + (double)b->st[WB_B_WRITEBACK];

		most = fmax(most, lv);
		lump = fmax(lump, d);
		if (d <= slack && w <= slack && rec > slack) {
			flat += dt;
			held = fmax(held, rec);
			continue;
		}
		if (flat >= REWRITE_FLAT_S - 0.5 && w >= held / 2)
			flush_at = s->mono;
		flat = 0;
		if (flush_at >= 0 && s->mono - flush_at <= REWRITE_AFTER_S + 0.5 && d >= held / 2 && d > slack)
			found = true;
		else if (flush_at >= 0 && s->mono - flush_at > REWRITE_AFTER_S + 0.5)
			flush_at = -1;
	}
	return found && most <= REWRITE_X * held && lump <= REWRITE_X * held ? most : 0;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/*
 * The write size the seconds' mosts of pages dirtied before a pause are
 * whole numbers of: the largest of them or of their pairwise greatest
 * common divisors that divides three in four of them (all of two or
 * three). Not the divisor of all: a most of 288 or 224 among 1M writes'
 * 256s (a write cut by the per-CPU rate limit, a redirtied page) brought
 * the chunk of an xfs writer to 4 pages, then 1, and its wakeups to 3x
 * the kernel's (scenario-gen unseen2/run10; traced, 682 of 686 calls
 * came after 256 pages).
 */
static uint64_t common_write(const uint64_t *most, size_t n)
{
	size_t need = (3 * n + 3) / 4;
	uint64_t best = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++) {
			uint64_t d = gcd_u64(most[i], most[j]);
			size_t hits = 0;

			if (d <= best)
				continue;
			for (size_t m = 0; m < n; m++)
				hits += most[m] % d == 0;
			if (hits >= need)
				best = d;
		}
	return best;
}

/*
 * Where the window's rates of a device start: at prev (hist[k - 1]), or, if
 * it held nothing dirty or under writeback there (a few pages a file system
 * keeps dirty aside: no more than 32, the usb-stick example's disk held 3),
 * at the last of the samples from prev on that found it so with nothing
 * dirtied since prev - its writer started within the window (a device that
 * writes all it is given between two samples, zram, is seen empty at each
 * and keeps the window). A writer started 2 s before the forecast was seen
 * at 40 % of its rate and its device at 40 % of its completions, averaged
 * with the idle seconds before it (scenario-gen heldout11/run04: 1229
 * pages/s completed, 3400 seen once it wrote).
 */
static const struct wb_sample *activity_start(const struct wb_sample *const *hist, size_t k, const char *name)
{
	const struct wb_sample *from = hist[k - 1];
	const struct wb_bdi *p = wb_sample_bdi(from, name);

	if (!p || !WB_HAS(p->st_valid, WB_B_DIRTIED))
		return from;
	for (size_t j = k - 1; j >= 1; j--) {
		const struct wb_bdi *x = wb_sample_bdi(hist[j], name);

		if (!x || !WB_HAS(x->st_valid, WB_B_RECLAIMABLE) || !WB_HAS(x->st_valid, WB_B_WRITEBACK) ||
		    !WB_HAS(x->st_valid, WB_B_DIRTIED) ||
		    x->st[WB_B_RECLAIMABLE] + x->st[WB_B_WRITEBACK] > DIRTY_POLL_PAGES ||
		    x->st[WB_B_DIRTIED] != p->st[WB_B_DIRTIED])
			break;
		from = hist[j];
	}
	return from;
}

/* b dirtied in one interval of the window only (hist[0..k-1]), less than a megabyte. */
static bool one_write(const struct wb_sample *const *hist, size_t k, const char *name, size_t at)
{
	const struct wb_bdi *now = wb_sample_bdi_at(hist[0], name, at), *then = wb_sample_bdi_at(hist[k - 1], name, at);
	int moved = 0;

	if (!now || !then || !WB_HAS(now->st_valid, WB_B_DIRTIED) || !WB_HAS(then->st_valid, WB_B_DIRTIED) ||
	    now->st[WB_B_DIRTIED] < then->st[WB_B_DIRTIED] ||
	    (double)(now->st[WB_B_DIRTIED] - then->st[WB_B_DIRTIED]) >= mib_pages(hist[0], 1))
		return false;
	for (size_t j = 0; j + 1 < k; j++) {
		const struct wb_bdi *a = wb_sample_bdi_at(hist[j + 1], name, at), *b = wb_sample_bdi_at(hist[j], name, at);

		if (!a || !b || !WB_HAS(a->st_valid, WB_B_DIRTIED) || !WB_HAS(b->st_valid, WB_B_DIRTIED))
			return false;
		moved += b->st[WB_B_DIRTIED] != a->st[WB_B_DIRTIED];
	}
	return moved == 1;
}

void wb_forecast_inputs(const struct wb_sample *const *hist, size_t nhist,
			const struct wb_forecast_inputs_out *o)
{
	const struct wb_sample *cur = hist[0], *prev = NULL;
	double any = 0;
	size_t k = 1;
	bool gap = false;

	/* the oldest sample in the window; events are summed over the same span */
	for (; k < nhist && cur->mono - hist[k]->mono <= WB_FORECAST_WINDOW_S + 0.5; k++)
		prev = hist[k];
	/*
	 * None in it (those between were dropped as stale, fresh_history()):
	 * the rates over the gap, not none (every writer was forecast gone);
	 * the events of the samples dropped are not here, so no pause counts
	 */
	if (!prev && nhist > 1) {
		prev = hist[k++];
		gap = true;
	}
	wb_model_bandwidths(prev, cur, o->bw);
	wb_forecast_dirty_rates(prev, cur, o->rate);
	if (o->age)
		dirty_ages(hist, nhist, o->age);
	for (size_t i = 0; i < cur->nbdis; i++) {
		const struct wb_bdi *b = &cur->bdis[i];
		/*
		 * What a device completed in the window is its bandwidth when it
		 * had more queued than its threshold or a backlog in flight (it
		 * wrote flat out); the kernel's smoothed estimate overshoots there
		 * on bursty (throttled, queued) devices. Below its threshold a
		 * device may have been short of dirty pages (its share still
		 * growing), and completions understate it: then the larger of the two.
		 */
		bool full = WB_HAS(b->st_valid, WB_B_THRESH) && WB_HAS(b->st_valid, WB_B_RECLAIMABLE) &&
			    WB_HAS(b->st_valid, WB_B_WRITEBACK) &&
			    b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK] >= b->st[WB_B_THRESH];
		double w, bz, pauses = 0, pause_ms = 0;
		bool traced = prev != NULL && !gap, inflight_only = false;

		bool measured = false;
		const struct lumps lumps = lumps_of(hist, nhist, b->name); /* one scan for both its uses */
		const struct wb_sample *from = prev ? activity_start(hist, k, b->name) : NULL;

		if (from && from != prev && !wb_rate_bdi(from, cur, b->name, WB_B_DIRTIED, &o->rate[i]))
			o->rate[i] = 0;
		/*
		 * Less than a megabyte, dirtied in one interval of the window,
		 * is a write, not a writer: none (one 64 KiB write to an idle
		 * root disk in the last second was a 64 KiB/s writer for the
		 * next 20 s, blocked under a what-if's limit and so forecast to
		 * wake its flusher 165-267 times a minute; it woke it 0)
		 */
		if (prev && o->rate[i] > 0 && one_write(hist, k, b->name, i))
			o->rate[i] = 0;
		if (prev && o->rate[i] > 0 && wb_rate_bdi(from, cur, b->name, WB_B_WRITTEN, &w) && w > 0) {
			measured = true;
			/*
			 * A backlog: a second or more of its completions still in
			 * flight, or two seconds of them queued while the flusher
			 * writes in the background (the global level over its
			 * background threshold), at the window's both ends. A new
			 * device's own estimate starts at 100 MB/s and takes tens of
			 * seconds to come down (43 MiB/s shown at t=10 on a 30 MiB/s one).
			 */
			bool queued = backlogged(cur, b->name, 2 * w) && backlogged(prev, b->name, 2 * w);

			/*
			 * Pages that wait unflushed say nothing of the device's
			 * speed: then the kernel's estimate, unless it is still
			 * coming down from where a new device's starts.
			 */
			bool unflushed = queued && !(flushed(cur, b->name, 2 * w) && flushed(prev, b->name, 2 * w));

			if (unflushed && !estimate_falling(prev, cur, b->name))
				queued = false;

			inflight_only = !full && !queued && WB_HAS(b->st_valid, WB_B_WRITEBACK) &&
					(double)b->st[WB_B_WRITEBACK] >= w;
			full = full || queued || inflight_only;
			if (queued)
				w = backlog_rate(hist, nhist, b->name, w);
			/*
			 * Queued but not flushed flat out, the estimate still
			 * coming down: what it completed waited on the flusher,
			 * not on the device; its best three seconds, where they
			 * are clearly more, say more, up to the estimate (a 30
			 * MiB/s device completed 24 MiB/s over the window, 29
			 * over its last three seconds, with the estimate at 33:
			 * its writer was forecast at 24 and went at 30 once the
			 * other device's writeback drained, -20 %; now -2 %).
			 */
			if (unflushed && queued && WB_HAS(b->st_valid, WB_B_WB_BW) &&
			    (bz = fmin((double)b->st[WB_B_WB_BW], best_run(hist, k, b->name))) > (1 + NEUTRAL) * w)
				w = bz;
			/*
			 * Not flushed flat out, its seconds busy all through (in
			 * the history, not only the window) show its speed where
			 * they are clearly more, and its lumps are its writer's
			 * pace: a 30 MiB/s device held with the global level at
			 * the limit completed 12 MiB/s in bursts, after 32 in its
			 * one busy second at the start, and its writer, forecast
			 * at 13, went at 30 once the other device drained (-56 %;
			 * now +8 %, bench/forecast-runs/s10/run17)
			 */
			double sat = unflushed && queued ? saturated_rate(hist, nhist, b->name) : 0;

			if (sat > (1 + NEUTRAL) * w)
				w = sat;
			else if (full && lump_rate(hist, &lumps, b->name, &bz))
				w = bz;
			else if (full && lumps.alone > 0)
				w = lumps.alone;
			o->bw[i] = full || w > o->bw[i] ? w : o->bw[i];
			/*
			 * Short of its threshold while the estimate still falls
			 * from a new device's start: no faster than its best three
			 * seconds (a 30 MiB/s device completed 32 at best with the
			 * estimate at 35: its writer was forecast 14 % fast)
			 */
			if (!full && estimate_falling(prev, cur, b->name) && (bz = best_run(hist, k, b->name)) > 0)
				o->bw[i] = fmax(w, fmin(o->bw[i], bz));
		}
		/*
		 * A backlog in flight all along while the kernel's estimate fell:
		 * the device completes less than the estimate says, and what it
		 * completed is its speed (a 0.5 MiB/s device with 99 MiB queued
		 * behind its throttle completed nothing for 10 s while the
		 * estimate sank from 100 to 9 MiB/s; the forecast, at the
		 * estimate, drained it in 12 s).
		 */
		if (!measured && prev && estimate_falling(prev, cur, b->name) &&
		    inflight_rate(hist, nhist, b->name, &w) && w < o->bw[i]) {
			o->bw[i] = w;
			full = true;
		}
		/*
		 * A backlog in flight for a second or more and nothing completed
		 * since the writing started: the device is slower than a
		 * writeback chunk over that second, however far the kernel's
		 * estimate of a new device (100 MB/s) has yet to come down. At
		 * the estimate a 3 MiB/s device with 175M queued behind its
		 * throttle had its writer forecast at 95 MB/s where the kernel
		 * held it to 15, then 3 (scenario-gen unseen2/run15).
		 */
		if (!measured && stalled(hist, nhist, from, b->name, &w) && w < o->bw[i]) {
			o->bw[i] = w;
			full = true;
		}
		/*
		 * A device that completes in lumps goes at what its whole cycles
		 * completed (or its one lump over the stall before it), whether
		 * or not its writer dirtied in the window: one held outright at
		 * the global limit (heldout31/run14: 52 MiB every 10 s, 5.2 MiB/s)
		 * was taken at the kernel's estimate, 0-0.8 MiB/s, and its writer
		 * forecast held for good.
		 */
		if (!measured && (lump_rate(hist, &lumps, b->name, &w) || (w = lumps.alone) > 0)) {
			o->bw[i] = w;
			full = true;
		}
		/*
		 * A device completing in bursts goes at what its busy seconds
		 * completed: short of its threshold with no backlog, where that
		 * is under the kernel's estimate; with no more than a burst in
		 * flight (a stick's queue holds a chunk: in flight at the sample,
		 * idle for seconds between), where it is over what the window
		 * completed on average - that is its writer's pace, not its speed.
		 */
		if (measured && (!full || inflight_only) && busy_rate(hist, nhist, b->name, &bz)) {
			if (!full && bz < o->bw[i] / 2)
				o->bw[i] = fmax(bz, w);
			else if (inflight_only && bz > o->bw[i] * 1.5)
				o->bw[i] = bz;
		}
		/* short of its threshold with no backlog, a device kept up with its
		 * writers (an idle disk's own estimate can be stale: 1 page/s on vda) */
		if (!full)
			o->bw[i] = fmax(o->bw[i], o->rate[i]);
		o->bw[i] = fmax(o->bw[i], shown_rate(hist, nhist, b->name, &lumps));
		o->chunk[i] = 0;
		double seen = HUGE_VAL, bound = HUGE_VAL;
		uint64_t most[WB_FORECAST_HIST]; /* each second's most dirtied before a pause */
		size_t nmost = 0;
		for (size_t j = 0; j + 1 < k; j++) {
			const struct wb_bdi *x = wb_sample_bdi(hist[j], b->name);
			double d;
			traced = traced && hist[j]->ev_valid;
			if (!x)
				continue;
			pauses += x->ev.pauses;
			pause_ms += (double)x->ev.pause_ms_total;
			/*
			 * The pages one write dirties (one folio), which the kernel
			 * cannot split: at the throttle's floor a writer goes at one
			 * of them per longest pause. The tracepoint shows the pages
			 * dirtied before each pause, which is what the kernel asked
			 * for (nr_dirtied_pause) rounded up to whole writes. A second
			 * whose most is no more than what the kernel asked (and a
			 * 16-page write) bounds the write: it is no larger, and the
			 * kernel asks for no less than 32 pages unless the task rate
			 * limit is tiny. Without such a second, the writes are
			 * larger than what was asked: each most is whole writes, and
			 * so is a common divisor of most of them (common_write(): 256
			 * pages for 1 MiB writes into large folios). Not the smallest
			 * most alone: a
			 * young writer, asked for 100-200 pages a pause while the
			 * rate limit comes down from its start, showed 192, 256 and
			 * 384 for 64-page writes, and its wakeups were forecast at a
			 * third of the kernel's (heldout14/run02).
			 * Older recordings: per pause in the interval that shows the
			 * most (a writer blocked outright pauses without dirtying and
			 * dilutes the figure).
			 */
			if (x->ev.dirtied_max) {
				double asked = pause_pages((double)x->ev.dirty_ratelimit, (double)x->ev.task_ratelimit,
							   WB_HAS(x->st_valid, WB_B_WB_BW) ? (double)x->st[WB_B_WB_BW] : 0,
							   MAX_PAUSE_S);
				seen = fmin(seen, x->ev.dirtied_max);
				if (nmost < WB_FORECAST_HIST)
					most[nmost++] = x->ev.dirtied_max;
				if (x->ev.dirtied_max <= asked + 16)
					bound = fmin(bound, x->ev.dirtied_max);
			} else if (x->ev.pauses && wb_rate_bdi(hist[j + 1], hist[j], b->name, WB_B_DIRTIED, &d))
				o->chunk[i] = fmax(o->chunk[i],
						   d * (hist[j]->mono - hist[j + 1]->mono) / x->ev.pauses);
		}
		if (isfinite(bound))
			o->chunk[i] = fmin(bound, DIRTY_POLL_PAGES);
		else if (isfinite(seen))
			o->chunk[i] = fmin(seen, (double)common_write(most, nmost));
		if (!traced)
			o->chunk[i] = 0;
		/* writers asleep there on average: one per second of pauses a second */
		o->tasks[i] = traced ? round(pause_ms / 1000 / (cur->mono - from->mono)) : -1;
		if (o->seen_s)
			o->seen_s[i] = seen_writing(hist, nhist, b->name);
		if (o->completed)
			o->completed[i] = completed(hist, nhist, b->name);
		if (o->free_rate)
			o->free_rate[i] = free_rate(hist, nhist, b->name);
		if (o->inflight)
			o->inflight[i] = inflight_cap(hist, nhist, b->name, i);
		/*
		 * kept up with its writer all through the window (hold_time()):
		 * it completes at least what was dirtied, whatever a bursty
		 * window's completions say (a stick paced at 0.7 MB/s, 1 MiB
		 * writes, showed 0.48 MiB/s with 1-2 MiB in flight, and was
		 * forecast to fall behind its writer)
		 */
		double hold = hold_time(hist, k, b->name, i);
		if (o->hold_s)
			o->hold_s[i] = hold;
		if (o->level_sd)
			o->level_sd[i] = level_sd(hist, nhist, b->name, i);
		if (o->wset)
			o->wset[i] = rewrite_set(hist, nhist, b->name, i);
		if (hold > 0)
			o->bw[i] = fmax(o->bw[i], o->rate[i]);
		any = fmax(any, o->chunk[i]);
	}
	/* a writer blocked all along shows none: the largest seen elsewhere */
	for (size_t i = 0; i < cur->nbdis; i++)
		if (o->chunk[i] <= 0)
			o->chunk[i] = any;
	/*
	 * A device with dirty pages that never completed one and has no
	 * estimate (its writer blocked from the start) would be forecast never
	 * to write: as fast as the devices seen completing, on average (a
	 * 12.7 MiB/s one kept 1 % of the threshold under a higher limit where
	 * the kernel gave it 80 %, heldout/run22).
	 */
	double seen_bw = 0, nseen = 0, r;
	for (size_t i = 0; i < cur->nbdis; i++)
		if (nhist > 1 && wb_rate_bdi(hist[nhist - 1], cur, cur->bdis[i].name, WB_B_WRITTEN, &r) && r > 0) {
			seen_bw += o->bw[i];
			nseen++;
		}
	for (size_t i = 0; i < cur->nbdis; i++)
		if (nseen && o->bw[i] < seen_bw / nseen && WB_HAS(cur->bdis[i].st_valid, WB_B_RECLAIMABLE) &&
		    cur->bdis[i].st[WB_B_RECLAIMABLE] > 0 && nhist > 1 &&
		    wb_rate_bdi(hist[nhist - 1], cur, cur->bdis[i].name, WB_B_WRITTEN, &r) && r == 0)
			o->bw[i] = seen_bw / nseen;
}

/* The ensemble size: WB_FORECAST_MEMBERS, or WBTOP_FORECAST_MEMBERS from the environment (src/env.c). */
static unsigned band_members(void)
{
	unsigned n;

	return wb_env_uint(WB_ENV_FORECAST_MEMBERS, &n) ? n : WB_FORECAST_MEMBERS;
}

/* a and b show the same dirtied and written counts (absent in both counts as the same). */
static bool same_counts(const struct wb_bdi *a, const struct wb_bdi *b)
{
	static const int key[] = { WB_B_DIRTIED, WB_B_WRITTEN };

	for (size_t q = 0; q < sizeof(key) / sizeof(key[0]); q++) {
		bool ha = WB_HAS(a->st_valid, key[q]), hb = WB_HAS(b->st_valid, key[q]);

		if (ha != hb || (ha && a->st[key[q]] != b->st[key[q]]))
			return false;
	}
	return true;
}

/*
 * Whether a device's kept figures in h[j] (its stats read backed off) can
 * mislead: only if it moved. Not where the next fresh read of it (newer)
 * counts the same; with none newer, not where it had not moved over the
 * window before the read it keeps. An idle btrfs BDI whose read took 11 ms
 * had 11 samples in a row taken as stale for every device; the first fresh
 * one after found none in its window, and every writer was forecast gone
 * (scenario-gen stick5/run05, at its knob change).
 */
static bool kept_moved(const struct wb_sample *const *h, size_t nh, size_t j, const struct wb_bdi *b)
{
	const struct wb_bdi *x, *f = NULL;
	size_t m;

	for (size_t i = j; i-- > 0;)
		if ((x = wb_sample_bdi(h[i], b->name)) && !x->stats_skipped)
			return !same_counts(x, b);
	for (m = j + 1; m < nh && !f; m++)
		if ((x = wb_sample_bdi(h[m], b->name)) && !x->stats_skipped)
			f = x;
	if (!f)
		return true;
	for (double t = h[m - 1]->mono; m < nh; m++)
		if ((x = wb_sample_bdi(h[m], b->name)) && !x->stats_skipped &&
		    t - h[m]->mono >= WB_FORECAST_WINDOW_S - 0.5)
			return !same_counts(x, f);
	return true;
}

/* Some BDI's debugfs stats in h[j] are an older read's (back-off), and it moved. */
static bool stale(const struct wb_sample *const *h, size_t nh, size_t j)
{
	for (size_t i = 0; i < h[j]->nbdis; i++)
		if (h[j]->bdis[i].stats_skipped && kept_moved(h, nh, j, &h[j]->bdis[i]))
			return true;
	return false;
}

static bool same_bdis(const struct wb_sample *a, const struct wb_sample *b)
{
	if (a->nbdis != b->nbdis)
		return false;
	for (size_t i = 0; i < a->nbdis; i++)
		if (strcmp(a->bdis[i].name, b->bdis[i].name) != 0)
			return false;
	return true;
}

/*
 * The history the inputs are measured on, newest first: without the samples
 * whose stats were not re-read (a loaded machine backs off slow debugfs
 * reads for up to 30 samples; their counters stand still, and a device
 * writing 30 MiB/s looked idle - forecast to drain to nothing), from the
 * newest fresh one, when at least 3 fresh samples with the same devices
 * remain; else all of it. Returns the new count.
 */
static size_t fresh_history(const struct wb_sample **h, size_t nh)
{
	size_t k = 0;

	bool keep[WB_FORECAST_HIST];

	for (size_t j = 0; j < nh; j++)
		k += keep[j] = !stale(h, nh, j) && same_bdis(h[j], h[0]);
	if (k == nh || k < 3)
		return nh;
	k = 0;
	for (size_t j = 0; j < nh; j++)
		if (keep[j])
			h[k++] = h[j];
	return k;
}

double *wb_forecast_prepare(const struct wb_sample *cur, const struct wb_ring *hist,
			    double horizon_s, double step_s, struct wb_forecast_in *in)
{
	size_t n = cur->nbdis ? cur->nbdis : 1, nh = 0;
	double *buf = calloc(12 * n, sizeof(double));
	struct wb_forecast_inputs_out io = { buf, buf + n, buf + 2 * n, buf + 3 * n, buf + 4 * n, buf + 5 * n,
					     buf + 6 * n, buf + 7 * n, buf + 8 * n, buf + 9 * n, buf + 10 * n,
					     buf + 11 * n };
	const struct wb_sample *h[WB_FORECAST_HIST], *x;

	if (!buf)
		return NULL;
	h[nh++] = cur;
	for (size_t i = 0; nh < WB_FORECAST_HIST && (x = wb_ring_get(hist, i)); i++)
		if (x->mono < cur->mono)
			h[nh++] = x;
	nh = fresh_history(h, nh);
	wb_forecast_inputs(h, nh, &io);
	/* a writer held longer than the window: when it was last free, as far
	 * back as the history goes (32 samples after, it was let go at the
	 * device's speed again: heldout13/run07's root disk at 466 MB/s), from
	 * the window's oldest pair on: the window's own pairs were judged */
	for (size_t i = 0; i < cur->nbdis; i++) {
		const struct wb_sample *r[3] = { nh >= 2 ? h[nh - 2] : cur, nh >= 2 ? h[nh - 1] : NULL, NULL };
		size_t have = nh >= 2 ? 2 : 1;

		for (size_t j = 0; io.free_rate[i] <= 0 && (x = wb_ring_get(hist, j)); j++) {
			if (x->mono >= r[have - 1]->mono)
				continue;
			if (have == 3) {
				r[0] = r[1];
				r[1] = r[2];
				have = 2;
			}
			r[have++] = x;
			if (have == 3 && !free_pair(r[0], r[1], r[2], cur->bdis[i].name, &io.free_rate[i]))
				io.free_rate[i] = -1;
		}
	}
	*in = (struct wb_forecast_in){ horizon_s, step_s, io.bw, io.rate, io.chunk, io.tasks, band_members(),
				       io.seen_s, io.age, io.completed, io.free_rate, io.inflight, io.hold_s,
				       io.level_sd, io.wset };
	return buf;
}

/*
 * The kernel's dirty_ratelimit, when the tracepoints showed it (level 3): it
 * is history, not a function of the state - while the global level sits
 * below its setpoint it can only rise, so a device can stay held far above
 * its own setpoint for minutes - and the forecast starts from it. It is per
 * writer: N writers (those asleep in balance_dirty_pages on average) share
 * the device. The balance_dirty_pages tracepoint shows it at every pause;
 * bdi_dirty_ratelimit, with the balanced rate, only where it was updated in
 * the second, which a second of writers held outright may not see (the
 * flusher's bandwidth updates take the same 200 ms slot): then the balanced
 * rate is taken as the rate limit itself. Taking the bandwidth for both
 * there started a young writer's rate limit at 1,690 pages/s where the
 * kernel's was 11,490 (heldout14/run02). Without the tracepoints: settled
 * (all writers together let dirty at the bandwidth).
 */
static void init_ratelimit(struct sim_bdi *x, const struct wb_bdi *b, bool traced, double tasks)
{
	x->n = fmin(MAX_TASKS, fmax(1, tasks));
	x->rl = x->prev_bal = x->bw;
	if (!traced || !b->ev.dirty_ratelimit)
		return;
	x->rl = x->n * (double)b->ev.dirty_ratelimit;
	x->prev_bal = x->n * (double)(b->ev.balanced_ratelimit ? b->ev.balanced_ratelimit : b->ev.dirty_ratelimit);
}

/* A page rate as a whole number: NaN and below 0 are 0, beyond 2^62 is 2^62 (damaged input). */
static uint64_t sat_u64(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 0x1p62 ? (uint64_t)1 << 62 : (uint64_t)v;
}

/*
 * wb_update_dirty_ratelimit (writeback-model.md 5.5) on one writer's share:
 * the balanced rate from what was dirtied against what was let, and a step
 * towards it only when the level's error agrees, shrinking near the target.
 */
static void update_ratelimit(struct sim_bdi *b, double pos, bool below_setpoint)
{
	/*
	 * In whole pages/s like the kernel: at a few pages/s the rounding
	 * decides whether the rate limit can still move (one page/s of step
	 * or none).
	 */
	uint64_t rl = sat_u64(fmax(1, round(b->rl / b->n))), pb = sat_u64(round(b->prev_bal / b->n));
	uint64_t tr = sat_u64(floor((double)rl * fmax(pos, 0))) + 1, kbw = sat_u64(fmax(1, b->kavg / b->n));
	uint64_t dr = sat_u64(b->dirtied / b->since / b->n), x, step = 0, sh;
	uint64_t bal = sat_u64((double)tr * (double)kbw / (double)(dr | 1));

	if (bal > kbw) /* capped at the kernel's bandwidth estimate */
		bal = kbw;
	if (below_setpoint) {
		x = pb < bal ? pb : bal;
		x = x < tr ? x : tr;
		if (rl < x)
			step = x - rl;
	} else {
		x = pb > bal ? pb : bal;
		x = x > tr ? x : tr;
		if (rl > x)
			step = rl - x;
	}
	sh = rl / (2 * step + 1);
	step = sh < 64 ? ((step >> sh) + 7) / 8 : 0;
	rl = rl < bal ? rl + step : rl - step;
	b->rl = (double)(rl ? rl : 1) * b->n;
	b->prev_bal = (double)bal * b->n;
}

/*
 * wb_update_write_bandwidth: write_bandwidth moves towards what was
 * completed over a 4 s memory; avg_write_bandwidth follows it by an eighth
 * while it keeps its direction. Quiet periods (nothing in flight) are
 * skipped, as the kernel skips them.
 */
static void update_bandwidth(struct sim_bdi *b)
{
	double old = b->kbw, bw = b->kdone / b->kt;

	if (b->kdone > 0 || b->w > 0) {
		b->kbw = (bw * b->kt + old * (BW_PERIOD - b->kt)) / BW_PERIOD;
		if (b->kavg > old && old >= b->kbw)
			b->kavg -= (b->kavg - old) / 8;
		if (b->kavg < old && old <= b->kbw)
			b->kavg += (old - b->kavg) / 8;
		b->kavg = fmax(b->kavg, 1);
	}
	b->kdone = b->kt = 0;
}

/*
 * wb_max_pause(): the longest pause, seconds - shorter for a device with
 * little dirty for its speed. Taken as balance_dirty_pages() takes it, after
 * the writers dirtied a write each (their pages are in wb_dirty): before it,
 * a device with nothing dirty had a pause of one jiffy and a writer held to
 * a write a pause went at 256 pages a jiffy for a whole step.
 */
static double max_pause(const struct sim_bdi *b)
{
	double wd = b->r + b->w + b->n * b->chunk;

	return fmin((floor(wd / (1 + floor(b->kavg / 32))) + 1) / HZ, MAX_PAUSE_S);
}

/*
 * What b's writers dirty under balance_dirty_pages (writeback-model.md 5.6):
 * a task rate limit that rounds to 0 pages/s blocks them (MAX_PAUSE sleeps
 * until the state changes); else they go at the task rate limit, the kernel
 * asking for fewer pages a pause as it sinks - down to one write, which it
 * cannot split: a task never goes slower than a write per max_pause,
 * however low the rate limit has sunk.
 */
static double throttled_rate(const struct sim_bdi *b, double pos)
{
	double tr = floor(b->rl / b->n * pos), mp = max_pause(b);
	double floor_rate = b->n * b->chunk / mp;

	if (tr < 1)
		return 0;
	if (b->n * tr >= floor_rate)
		return b->n * tr;
	/*
	 * At the floor within the figures' noise of the device's speed, the
	 * level is neutral: the kernel's own noise decides whether it creeps
	 * up or down, and the forecast holds it where it is.
	 */
	return fabs(floor_rate - b->bw) < NEUTRAL * b->bw ? b->bw : floor_rate;
}

/*
 * Background flusher wakeups a second from b's writers
 * (writeback_wake_background). balance_dirty_pages() wakes a flusher that is
 * not running at every call above the freerun ceiling, and below it only
 * while the global dirty count - writeback not counted - is over the
 * background threshold. A writer calls it every nr_dirtied_pause pages, in
 * whole writes: free running, about the square root of the gap to the limit
 * (dirty_poll_interval(); under strict_limit the device's own gap);
 * throttled, wb_min_pause()'s pages from the rate limit and the task rate
 * limit; held outright (task rate limit 0) it loops in it, a call a longest
 * pause. The flusher is taken as idle at every call: it stops between
 * chunks, and gating the count on the simulated flusher's runs met 18 % of
 * heldout10+11's running forecasts where this meets 44 %. Pages dirtied per
 * wakeup as measured lately (the previous way) carried one regime into
 * another: throttled, 2 pages a wakeup, applied to a writer forecast free
 * running on the root disk, came to 75,000 a minute where 1,500-2,400 were
 * seen.
 */
static double wakeups(const struct sim_bdi *b, double pos, double rate, bool dirty_over_bg, double gap)
{
	double pages;

	if (b->demand <= 0)
		return 0;
	/*
	 * its flusher waits on a full queue: running, not woken, until it has
	 * nothing left to put in flight - not as soon as what is left would
	 * fit, the extents in flight being larger than the queue (stick2/run06:
	 * 700-2,400 a minute forecast once the simulated level fell under the
	 * most ever under writeback, 0 made)
	 */
	if (b->cap > 0 && b->flushing && b->r >= 1)
		return 0;
	if (pos < 0) {
		if (!dirty_over_bg || rate <= 0)
			return 0;
		pages = gap >= 1 ? ldexp(1, ilogb(gap) / 2) : 1;
	} else if (rate <= 0) {
		return b->n / max_pause(b);
	} else {
		double tr = floor(b->rl / b->n * pos);

		pages = pause_pages(b->rl / b->n, tr, b->kavg, max_pause(b));
		/*
		 * A writer below its task rate limit is not paused (its pause
		 * comes out under min_pause), and balance_dirty_pages() keeps
		 * its nr_dirtied_pause, adding the pages dirtied to it at each
		 * call whose period (HZ * pages / task rate limit) rounds to 0
		 * jiffies: it doubles until a period is a jiffy or more. A
		 * writer paced at 9.3 MB/s called it every 1,024-1,280 pages
		 * where wb_min_pause() asks 128-256 (traced), and its wakeups
		 * were forecast at 4-6x the kernel's (scenario-gen unseen2).
		 */
		if (rate < b->n * tr * (1 - 1e-9))
			while (pages >= 1 && HZ * pages < tr)
				pages *= 2;
	}
	if (b->chunk > 0)
		pages = ceil(fmax(pages, 1) / b->chunk) * b->chunk;
	return rate / fmax(pages, 1);
}

/* One ensemble member's multipliers on what the model cannot observe exactly. */
static void jitter_sim(struct sim_bdi *x, const struct wb_fc_jitter *j, size_t i)
{
	x->bw *= j->bw[i];
	if (isfinite(x->demand))
		x->demand *= j->demand[i];
	x->rl *= j->rl[i];
	x->prev_bal *= j->rl[i];
	x->kavg *= j->kbw[i];
	x->kbw *= j->kbw[i];
	/*
	 * On the share now and on what the device adds to it: with the
	 * denominator measured, a multiplier on the share alone washes out
	 * within seconds after writers start (the band's threshold covered
	 * 58 % where it had covered 67 %).
	 */
	x->e *= j->share[i];
	x->share_mul = j->share[i];
}

double wb_fc_max_ppm(const struct wb_settings *k, const char *name)
{
	const struct wb_bdi_knobs *kn = k ? wb_settings_bdi((struct wb_settings *)k, name) : NULL;

	return kn ? fmin((double)kn->max_ppm, 1e6) : 1e6;
}

/* The writeout fraction the forecast starts from: a what-if's lifted cap a second after the change. */
static double kernel_frac(const struct wb_bdi_limits *bl)
{
	return bl->frac_den ? (double)bl->frac_num / (double)bl->frac_den : 0;
}

/*
 * The pages a background flusher run writes between its checks of the
 * thresholds (writeback_chunk_size()): half a second at the kernel's
 * estimate, at most an eighth of the limit, plus 4 MiB, in whole 4 MiB.
 */
static double write_chunk(double kavg, double limit)
{
	const double min_pages = 1024; /* MIN_WRITEBACK_PAGES (4 KiB pages) */

	return floor((fmin(kavg / 2, limit / 8) + min_pages) / min_pages) * min_pages;
}

/* Set up the per-BDI simulation state from the sample and the limits. */
static void init_sim(struct sim_bdi *sb, const struct wb_sample *s, const struct wb_limits *l,
		     const struct wb_settings *k, const struct wb_forecast_in *in,
		     const struct wb_fc_jitter *jit, double *g)
{
	double sumbw = 0; /* pages */

	/*
	 * The share's denominator holds about two aging periods of
	 * completions: a device's pages to write and what its writer dirties
	 * meanwhile, at most its bandwidth; a writer held back in
	 * balance_dirty_pages, its bandwidth (an idle 6 GB/s disk counted made
	 * a new writer's share grow 0.1 % a second where alone completing it
	 * goes to ~1 in a few periods; with 3 dirty pages, or a trickle
	 * writer, it counted the same 6 GB/s)
	 */
	for (size_t i = 0; i < s->nbdis; i++) {
		double span = in->bw[i] * FPROP_PERIOD * 2;
		double pages = (double)(s->bdis[i].st[WB_B_RECLAIMABLE] + s->bdis[i].st[WB_B_WRITEBACK]);
		double rate = in->dirty_rate && in->dirty_rate[i] > 0 ? in->dirty_rate[i] : 0;

		sumbw += in->tasks && in->tasks[i] > 0.5 ? span : fmin(span, pages + rate * FPROP_PERIOD * 2);
	}
	*g = fmax(sumbw, 1);
	/*
	 * The denominator the kernel's shares have now: what the devices
	 * completed lately over the shares it gives them. Right after writers
	 * start it is far from steady and the shares move by the second; it
	 * also holds completions no listed device shows (a device's first
	 * 8 MiB gave it 8 %, scenario-gen run01).
	 */
	if (in->completed) {
		double c = 0, f = 0;
		for (size_t i = 0; i < s->nbdis; i++) {
			c += in->completed[i];
			f += kernel_frac(&l->bdis[i]);
		}
		if (c >= MIN_SEEN_PAGES && f >= MIN_SEEN_SHARE)
			*g = fmax(c / fmin(f, 1), 1);
	}
	for (size_t i = 0; i < s->nbdis; i++) {
		const struct wb_bdi *b = &s->bdis[i];
		const struct wb_bdi_limits *bl = &l->bdis[i];
		struct sim_bdi *x = &sb[i];
		struct wb_bdi_knobs *kn = k ? wb_settings_bdi((struct wb_settings *)k, b->name) : NULL;
		double tasks = in->tasks ? in->tasks[i] : -1;

		x->r = WB_HAS(b->st_valid, WB_B_RECLAIMABLE) ? (double)b->st[WB_B_RECLAIMABLE] : 0;
		x->w = WB_HAS(b->st_valid, WB_B_WRITEBACK) ? (double)b->st[WB_B_WRITEBACK] : 0;
		x->bw = in->bw[i];
		/* a new device's estimates start at 100 MB/s and take tens of
		 * seconds to come down: its throttle works from them meanwhile */
		x->kavg = WB_HAS(b->st_valid, WB_B_WB_BW) && b->st[WB_B_WB_BW] ? (double)b->st[WB_B_WB_BW] : x->bw;
		x->kbw = WB_HAS(b->st_valid, WB_B_BDI_BW) && b->st[WB_B_BDI_BW] ? (double)b->st[WB_B_BDI_BW] : x->kavg;
		x->demand = in->dirty_rate ? in->dirty_rate[i] : 0;
		x->age = in->age && x->r > 0 ? in->age[i] : 0;
		x->cap = in->inflight && in->inflight[i] > 0 ? in->inflight[i] : 0;
		x->hold = in->hold_s && in->hold_s[i] > 0 ? in->hold_s[i] : 0;
		x->wset = in->wset && in->wset[i] > 0 ? in->wset[i] : 0;
		/*
		 * A writer held back wrote as fast as it was let: its demand is
		 * open. Held back: asleep in balance_dirty_pages half the time or
		 * more (tracepoints), else throttled and keeping its device half
		 * busy (an occasional writer on another disk is "throttled" too
		 * whenever the global level is past freerun). Asleep there with
		 * nothing dirtied is held back outright, not gone (a writer over
		 * its device's limit pausing 200 ms five times a second was
		 * forecast as no writer, and idle after a change that let it go).
		 */
		if (tasks > 0.5 || (x->demand > 0 && tasks < 0 && x->demand >= x->bw / 2 &&
				    (bl->state == WB_ST_THROTTLED || bl->state == WB_ST_OVER)))
			x->demand = HUGE_VAL;
		/*
		 * ... as fast as it went when last free, where that was seen:
		 * the root disk's occasional writers, held while loop devices
		 * keep the global level up, were let go at 37-469 MB/s in what-ifs
		 * where they had never dirtied 20 MB/s
		 */
		if (isinf(x->demand) && in->free_rate && in->free_rate[i] > 0)
			x->demand = fmax(in->free_rate[i], in->dirty_rate ? in->dirty_rate[i] : 0);
		x->e = *g * kernel_frac(bl);
		x->min_ppm = kn ? (double)kn->min_ppm : 0;
		x->max_ppm = wb_fc_max_ppm(k, b->name);
		x->strict = kn && kn->strict;
		x->flushing = x->w > 0;
		/*
		 * btrfs writes back whole delalloc extents (up to 128 MiB a
		 * range), not the flusher's chunk: a background flush moved
		 * all of a device's dirty pages to writeback within a second,
		 * 46M, 95M, 126M, where the model's chunks stopped once below
		 * the background thresholds and left the level standing for
		 * seconds (scenario-gen unseen2/run07, run09). Not so where
		 * only expired pages are written: 152M went in pieces of 4-44M
		 * over 28 s (run14), as on ext4. Its BDI is its own, named
		 * "btrfs-N" by super_setup_bdi().
		 */
		x->whole = strncmp(b->name, "btrfs-", 6) == 0;
		x->share_mul = 1;
		init_ratelimit(x, b, s->ev_valid, tasks);
		x->chunk = in->chunk && in->chunk[i] > 0 ? in->chunk[i] : DIRTY_POLL_PAGES;
		if (jit)
			jitter_sim(x, jit, i);
	}
}

int wb_forecast_sim(const struct wb_sample *s, const struct wb_limits *l,
		    const struct wb_settings *k, const struct wb_forecast_in *in,
		    const struct wb_fc_jitter *jit, struct wb_forecast *out)
{
	size_t nb = s->nbdis, ns;
	struct sim_bdi *sb;
	double g, other, t = 0, next_out, next_age = FPROP_PERIOD;
	double expire = k ? k->expire_cs / 100.0 : 30, period = k ? k->writeback_cs / 100.0 : 5;

	/* a sysctl not read is the kernel's default, not 0 (0 turns periodic writeback off) */
	if (!(s->sys_valid & WB_BIT(WB_SYS_WRITEBACK_CS)) && period == 0)
		period = 5;
	if (!(s->sys_valid & WB_BIT(WB_SYS_EXPIRE_CS)) && expire == 0)
		expire = 30;

	size_t step = 0, nshare = 0;

	memset(out, 0, sizeof(*out));
	if (!l->valid || in->step_s <= 0 || in->horizon_s < in->step_s || in->horizon_s > 86400)
		return -EINVAL;
	ns = (size_t)(in->horizon_s / in->step_s + 1e-9);
	out->horizon_s = in->horizon_s;
	out->step_s = in->step_s;
	sb = calloc(nb ? nb : 1, sizeof(*sb));
	if (!sb || alloc_out(out, nb, ns)) {
		free(sb);
		wb_forecast_finish(out);
		return -ENOMEM;
	}
	init_sim(sb, s, l, k, in, jit, &g);
	/*
	 * A guess at what came before the sample: with the global dirty count
	 * over the background threshold every device's flusher is taken as at
	 * work (a writer's call wakes only its own device's, but each timer
	 * run since found the count over and kept going). Else one not writing
	 * ran last at a time not known: half a period ago.
	 */
	/*
	 * The background test reads NR_FILE_DIRTY alone (wb_over_bg_thresh()):
	 * the global count without what is under writeback anywhere, the
	 * devices not listed included; what is left of it once the listed
	 * devices' dirty pages are taken out stays as it is over the forecast.
	 */
	bool gd_known = WB_HAS(s->g.valid, WB_G_DIRTY);
	double nd0 = gd_known ? (double)s->g.v[WB_G_DIRTY] : (double)l->dirty;
	for (size_t i = 0; i < nb && !gd_known; i++)
		nd0 -= sb[i].w;
	double other_nd = nd0;
	for (size_t i = 0; i < nb; i++)
		other_nd -= sb[i].r;
	if (other_nd < 0)
		other_nd = 0;
	for (size_t i = 0; i < nb; i++) {
		sb[i].flushing = sb[i].flushing || (nd0 > (double)l->bg && sb[i].r > 0);
		sb[i].tick = sb[i].flushing ? 0 : period / 2;
	}
	for (size_t i = 0; i < nb; i++)
		thresh_terms(&sb[i], (double)l->thresh, (double)l->bg, (double)l->sum_min_ppm);
	const double DT = jit ? DT_MEMBER : DT_POINT;
	other = (double)l->dirty;
	for (size_t i = 0; i < nb; i++) {
		other -= sb[i].r + sb[i].w;
		/* clean now with nothing to dirty it: clean at the sample, not at the first step */
		out->bdis[i].clean_at_s = sb[i].r + sb[i].w < 1 && !(sb[i].demand > 0) ? 0 : -1;
		out->bdis[i].dirty_rate_in = isfinite(sb[i].demand) ? sb[i].demand : -1;
		memcpy(out->bdis[i].name, s->bdis[i].name, WB_NAME_LEN);
		out->bdis[i].drain_s = sb[i].bw > 0 ? (sb[i].r + sb[i].w) / sb[i].bw : -1;
	}
	if (other < 0)
		other = 0;
	/* writers not under strict_limit: the ones that can share the room to the global limit */
	for (size_t i = 0; i < nb; i++)
		nshare += sb[i].demand > 0 && !sb[i].strict;
	next_out = in->step_s;
	while (step < ns) {
		double dirty = other, ndirty = fmin(other_nd, other), T = (double)l->thresh, bg = (double)l->bg,
		       done_rate = 0;

		for (size_t i = 0; i < nb; i++) {
			dirty += sb[i].r + sb[i].w;
			ndirty += sb[i].r;
			/* what an idle device completes in the step, its pages only
			 * (the root disk's 6 GB/s let a writer at the ceiling dirty
			 * 300 MB in a step, past the limit: heldout12/run06); a
			 * written device's completions are its own writer's below */
			if (!(sb[i].demand > 0))
				done_rate += fmin(sb[i].bw, (sb[i].r + sb[i].w) / DT);
		}
		share_gap(sb, nb, fmax(0, (T + bg) / 2 - dirty) / DT + done_rate);
		/*
		 * the throttled writers under the global limit share the room to
		 * it: counted only where two or more could be (one takes it all)
		 */
		double held = 0;
		for (size_t i = 0; i < nb && nshare > 1; i++) {
			struct sim_bdi *b = &sb[i];
			if (b->demand > 0 && !b->strict) {
				double wth = calc_thresh(T, dirty, b, 0, fmin(1, b->e / g));
				held += position(b, dirty, T, bg, wth, T > 0 ? wth * bg / T : 0) >= 0;
			}
		}
		for (size_t i = 0; i < nb; i++) {
			struct sim_bdi *b = &sb[i];
			double frac = fmin(1, b->e / g), wth = calc_thresh(T, dirty, b, 0, frac);
			double wbg = calc_thresh(bg, ndirty, b, 1, frac);
			double wbg_sp = T > 0 ? wth * bg / T : 0;
			double pos = position(b, dirty, T, bg, wth, wbg_sp);
			/* free running, an open demand fills its part of the gap to the
			 * freerun ceiling at once, what its device completes
			 * meanwhile, and a chunk more: it checks only between chunks.
			 * Not another written device's completions: its writer
			 * refills them (zram's 4 GB/s shared out let three writers
			 * on 2-10 MiB/s devices dirty 60 MB each in a step past the
			 * limit, fast2/run07). Under strict_limit the ceiling is
			 * the device's own (domain_dirty_freerun()), whatever the
			 * global level. */
			double gap = (b->strict ? fmax(0, (wth + wbg_sp) / 2 - b->r - b->w) / DT : b->fill) + b->bw +
				     b->chunk / DT;
			/* throttled, no further in a step than to the limit (where
			 * the position ratio is 0), what the device completes and a
			 * chunk: a rate limit left high by an earlier run of the
			 * device, times a position ratio of 4, had a writer blocked
			 * since its start dirty 9 GB in a step (fast2/run03); the
			 * gap to the global limit is the held writers' together
			 * (three on leftover 8 GB/s rate limits each took all of
			 * it, 23 % past the limit) */
			double room = (b->strict ? fmax(0, wth - b->r - b->w) : fmax(0, T - dirty) / fmax(held, 1)) / DT +
				      b->bw + b->chunk / DT;
			double rate = pos < 0 ? fmin(b->demand, gap) : fmin(fmin(b->demand, throttled_rate(b, pos)), room);
			/* a rewriter dirties only what a flush cleaned of its set */
			if (b->wset > 0)
				rate = fmin(rate, fmax(0, b->wset - b->r) / DT);
			double done, submit, add, nd = ndirty + rate * DT, over;
			bool expired;

			b->wakeups += wakeups(b, pos, rate, ndirty > bg, b->strict ? wth - b->r - b->w : T - dirty) * DT;
			b->age = b->r > 0 ? b->age + DT : 0;
			expired = period > 0 && b->r > 0 && b->age >= expire; /* kupdate: periodic writeback only */
			b->r += rate * DT;
			/*
			 * Pages past the background thresholds (wb_over_bg_thresh()),
			 * with what this step dirtied: a device that writes a step's
			 * worth in a step would otherwise be seen below them at every
			 * step's start and never flushed.
			 */
			over = fmax(nd - bg, b->r - wbg);
			/*
			 * periodic writeback off (dirty_writeback_centisecs 0): no
			 * flusher run checks the background thresholds; only a writer
			 * over the global one starts it (balance_dirty_pages()), and a
			 * run goes on while over either (wb_over_bg_thresh()); below,
			 * nothing writes without sync or reclaim
			 */
			if (period > 0) {
				/*
				 * A run starts when something wakes the flusher: a
				 * writer's call of balance_dirty_pages() with the
				 * global dirty count over the background threshold,
				 * any call past freerun (a writer held there calls
				 * it at each pause), or its periodic run; it
				 * goes on while over either threshold. A device over
				 * only its own share waits for the periodic run: three
				 * paced writers' sticks, the global level under the
				 * background threshold, sat 10-20M over their shares
				 * between runs every 5 s (stick2/run02), where a
				 * flush at once held them at their shares.
				 */
				bool woken = (b->demand > 0 && pos >= 0) || (rate > 0 && nd > bg);
				bool due = b->tick >= period - 1e-9;

				b->flushing = expired || (over > 0 && (b->flushing || woken || due));
				b->tick = b->flushing || due || b->r <= 0 ? 0 : b->tick + DT;
			} else {
				b->flushing = over > 0 && (b->flushing || (rate > 0 && nd > bg));
			}
			b->dirtied += rate * DT;
			b->step_dirtied += rate * DT;
			b->since += DT;
			if (pos < 0 || b->demand <= 0) {
				/* free running, or no writer there: balance_dirty_pages,
				 * which alone updates the rate limit, is not entered */
				b->dirtied = b->since = 0;
			} else if (b->since >= RL_PERIOD - 1e-9) {
				/*
				 * balance_dirty_pages updates the rate limit when a
				 * writer enters it, right after it dirtied: with the
				 * pages this step added, in the position ratio and the
				 * setpoint test alike (both read the one dtc->dirty).
				 * A device that completes more in a step than a
				 * quarter of the span from the background threshold
				 * to the limit (zram: 115 MB a step, the span 84M)
				 * completes between the writer's entries (every
				 * 15-20 MB there): the level it sees is net of them.
				 * Else it was over the limit at every update, and a
				 * 2 GB/s rate limit sank to 0.3 GB/s in 4 s where
				 * the kernel's held (scenario-gen fast1/run10).
				 */
				double seen = rate * DT, now;

				if (b->bw * DT > (T - bg) / 4)
					seen = fmax(0, seen - b->bw * DT);
				now = dirty + seen;
				bool below = b->strict ? b->r + b->w < (wth + wbg_sp) / 2
						       : now < ((T + bg) / 2 + T) / 2;

				update_ratelimit(b, position(b, now, T, bg, wth, wbg_sp), below);
				b->dirtied = b->since = 0;
			}
			/* the flusher keeps about a second of bandwidth in flight */
			submit = !b->flushing ? 0
				 : b->whole && over > 0 ? b->r
							: fmin(b->r, fmax(0, b->bw * INFLIGHT_S - b->w) + b->bw * DT);
			/*
			 * background writeback stops once below the thresholds (it
			 * checks between chunks): a device faster than its writer
			 * holds its level about the background threshold, not empty
			 * (zram, 3.6 GB/s: 23-96M, mean 52M, against a threshold of 50M)
			 */
			if (!expired && !(b->whole && over > 0))
				submit = fmin(submit, fmax(over, write_chunk(b->kavg, T)));
			/* a queue of a few requests: what it holds, and what it completes in the step */
			if (b->cap > 0)
				submit = fmin(submit, fmax(0, b->cap + b->bw * DT - b->w));
			/* what its writer dirtied since the flusher's pass began waits for the next */
			if (b->hold > 0)
				submit = fmin(submit, fmax(0, b->r - rate * b->hold));
			b->r -= submit;
			b->w += submit;
			done = fmin(b->w, b->bw * DT);
			b->w -= done;
			add = b->max_ppm < 1e6 ? capped_add(b->e, g, b->max_ppm / 1e6, done) : done;
			b->e += add * b->share_mul;
			b->kdone += done;
			b->kt += DT;
			if (b->kt >= RL_PERIOD - 1e-9)
				update_bandwidth(b);
			g += add;
			if (b->r <= 0)
				b->age = 0;
			else if (b->hold > 0 && b->r <= rate * b->hold + 1)
				b->age = fmin(b->age, b->hold); /* what is left is what it held back */
			if (t + DT >= next_out - 1e-9) {
				struct wb_forecast_bdi *o = &out->bdis[i];
				o->dirty[step] = b->r;
				o->writeback[step] = b->w;
				o->thresh[step] = wth;
				/* the step's mean: throttled writers go in bursts */
				o->write_rate[step] = b->step_dirtied / in->step_s;
				b->step_dirtied = 0;
				if (o->clean_at_s < 0 && b->r + b->w < 1)
					o->clean_at_s = next_out;
			}
		}
		t += DT;
		if (t >= next_age) { /* 3 s aging halves every count */
			g = fmax(g / 2, 1);
			for (size_t i = 0; i < nb; i++)
				sb[i].e /= 2;
			next_age += FPROP_PERIOD;
		}
		if (t >= next_out - 1e-9) {
			out->g_dirty[step] = ndirty;
			out->g_writeback[step] = dirty - ndirty;
			step++;
			next_out += in->step_s;
		}
	}
	for (size_t i = 0; i < nb; i++)
		out->bdis[i].bg_flushes_per_min = sb[i].wakeups * 60.0 / in->horizon_s;
	free(sb);
	return 0;
}

int wb_forecast_run(const struct wb_sample *s, const struct wb_limits *l,
		    const struct wb_settings *k, const struct wb_forecast_in *in,
		    struct wb_forecast *out)
{
	int rc = wb_forecast_sim(s, l, k, in, NULL, out);

	if (rc == 0 && in->members > 0 && (rc = wb_forecast_band(s, l, k, in, out)))
		wb_forecast_finish(out);
	return rc;
}
