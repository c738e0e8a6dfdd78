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
#define ZMAX 2.5         /* draws past 2.5 sigma are clipped */

/* Log-normal spread (sigma of the log) of each multiplier, calibrated on bench/forecast-runs. */
static const struct { double bw, demand, rl, kbw, share; } SIGMA = { 0.10, 0.15, 0.5, 0.2, 0.25 };

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

/* Draw member m's multipliers for nb devices into mul (5 * nb). */
static void draw(unsigned m, size_t nb, double *mul)
{
	uint64_t x = SEED + 0x1000003ull * m;

	for (size_t i = 0; i < nb; i++) {
		mul[i] = exp(SIGMA.bw * normal(&x));
		mul[nb + i] = exp(SIGMA.demand * normal(&x));
		mul[2 * nb + i] = exp(SIGMA.rl * normal(&x));
		mul[3 * nb + i] = exp(SIGMA.kbw * normal(&x));
		mul[4 * nb + i] = exp(SIGMA.share * normal(&x));
	}
}

/*
 * What the inputs' spread leaves out - the model's own error, which grows
 * with the lead: sigma of the log of each member's figure, a + b * lead (s),
 * for the level (dirty, writeback, dirty + writeback), the threshold and the
 * writers' rate; from the errors on bench/forecast-runs (fresh/run01..11,
 * s10/run01..05: the 80th percentile of the error 10-40 % at 5-30 s ahead;
 * the threshold's growth from those and bench/scenario-gen/runs/run01..04).
 */
static const struct { double a, b; } MODEL_SD[3] = { { 0.07, 0.016 }, { 0.12, 0.004 }, { 0.18, 0.012 } };
static const int GROUP[WB_FC_SERIES] = { 0, 0, 1, 2, 0 }; /* series -> MODEL_SD */
/*
 * Before the kernel has converged - a writer seen for YOUNG_S or less, its
 * device's bandwidth estimate and every share still moving - the error is
 * YOUNG_X times the above, falling linearly to OLD_X times at CONV_S; a
 * device's threshold takes the newest writer's (its share moves with every
 * other device's). Calibrated on the same runs: forecasts made 3-5 s after
 * the writers started were off by -100 .. +340 % (level) and covered 29-43 %
 * with 1.5x; with 3x 57-59 %, later 82-85 %, overall 77-79 %.
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
 * Store member m (of n) of forecast f in vals: per (device, series, step) n
 * values; members past the first (the point forecast) with the model's
 * error drawn on top, widened by youth() of the device's writer (rate: the
 * writers' demand; the newest writer anywhere widens every threshold).
 */
static void collect(const struct wb_forecast *f, const double *seen_s, const double *rate, unsigned m,
		    unsigned n, double *vals)
{
	size_t ns = f->nsteps, k = 0;
	uint64_t x = SEED ^ (0x2545f4914f6cdd1dull * (m + 1));
	double newest = HUGE_VAL;

	for (size_t i = 0; seen_s && rate && i < f->nbdis; i++)
		if (rate[i] > 0 && seen_s[i] >= 0)
			newest = fmin(newest, seen_s[i]);
	for (size_t i = 0; i < f->nbdis; i++) {
		double z[3] = { normal(&x), normal(&x), normal(&x) };
		double own = seen_s ? youth(seen_s[i]) : OLD_X;
		double y[3] = { own, fmax(own, youth(isfinite(newest) ? newest : -1)), own };

		for (int q = 0; q < WB_FC_SERIES; q++)
			for (size_t t = 0; t < ns; t++) {
				int g = GROUP[q];
				double sd = MODEL_SD[g].a + MODEL_SD[g].b * (double)(t + 1) * f->step_s;

				vals[k++ * n + m] = series(f, i, q, t) * (m ? exp(y[g] * sd * z[g]) : 1);
			}
	}
	for (size_t t = 0; t < ns; t++) {
		vals[k++ * n + m] = f->g_dirty[t];
		vals[k++ * n + m] = f->g_writeback[t];
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
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

/* Sort each run of n values and write its p10 and p90 into out's band. */
static void fill_band(struct wb_forecast *out, double *vals, unsigned n)
{
	size_t ns = out->nsteps, k = 0;

	for (size_t i = 0; i < out->nbdis; i++)
		for (int q = 0; q < WB_FC_SERIES; q++)
			for (size_t t = 0; t < ns; t++, k++) {
				qsort(vals + k * n, n, sizeof(double), cmp_double);
				out->bdis[i].p10[q][t] = quantile(vals + k * n, n, 0.1);
				out->bdis[i].p90[q][t] = quantile(vals + k * n, n, 0.9);
			}
	for (size_t t = 0; t < ns; t++)
		for (int q = 0; q < 2; q++, k++) {
			qsort(vals + k * n, n, sizeof(double), cmp_double);
			out->g_p10[q][t] = quantile(vals + k * n, n, 0.1);
			out->g_p90[q][t] = quantile(vals + k * n, n, 0.9);
		}
}

/* Run the members and the point forecast's band (writeback-model.md: the forecast's inputs). */
int wb_forecast_band(const struct wb_sample *s, const struct wb_limits *l,
		     const struct wb_settings *k, const struct wb_forecast_in *in,
		     struct wb_forecast *out)
{
	size_t nb = out->nbdis, rows = (nb * WB_FC_SERIES + 2) * out->nsteps;
	unsigned n = in->members + 1; /* the point forecast is one of them */
	double *vals = calloc(rows * n, sizeof(double)), *mul = calloc(5 * (nb ? nb : 1), sizeof(double));
	struct wb_fc_jitter j = { mul, mul + nb, mul + 2 * nb, mul + 3 * nb, mul + 4 * nb };
	int rc = vals && mul ? alloc_band(out) : -ENOMEM;

	if (rc == 0)
		collect(out, in->seen_s, in->dirty_rate, 0, n, vals);
	for (unsigned m = 1; rc == 0 && m < n; m++) {
		struct wb_forecast f;

		draw(m, nb, mul);
		rc = wb_forecast_sim(s, l, k, in, &j, &f);
		if (rc == 0)
			collect(&f, in->seen_s, in->dirty_rate, m, n, vals);
		wb_forecast_finish(&f);
	}
	if (rc == 0)
		fill_band(out, vals, n);
	free(vals);
	free(mul);
	return rc;
}
