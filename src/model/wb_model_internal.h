/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Arithmetic helpers shared by the model's layers (not installed). */
#ifndef WBTOP_MODEL_INTERNAL_H
#define WBTOP_MODEL_INTERNAL_H

#include <stdint.h>

#include "wbtop/forecast.h"

/* Per-BDI multipliers of one ensemble member (forecast_band.c). */
struct wb_fc_jitter {
	const double *bw, *demand, *rl, *kbw, *share;
};

/* The forecast's simulation; jit NULL: the point forecast. */
int wb_forecast_sim(const struct wb_sample *s, const struct wb_limits *l,
		    const struct wb_settings *k, const struct wb_forecast_in *in,
		    const struct wb_fc_jitter *jit, struct wb_forecast *out);
/*
 * A device's max_ratio under settings k, ppm (no settings, or none for it:
 * 100 %): its threshold's cap, T * max_ppm / 1e6 (__wb_calc_thresh), in the
 * simulation and in its band alike.
 */
double wb_fc_max_ppm(const struct wb_settings *k, const char *name);
/* Add the p10/p90 band to the point forecast out from in->members members. */
int wb_forecast_band(const struct wb_sample *s, const struct wb_limits *l,
		     const struct wb_settings *k, const struct wb_forecast_in *in,
		     struct wb_forecast *out);

static inline uint64_t wb_div_round_up(uint64_t a, uint64_t b)
{
	return b ? a / b + (a % b != 0) : 0;
}

/*
 * The kernel's DIV_ROUND_UP on an unsigned long, (a + b - 1) / b, wrap included:
 * dirty_bytes and dirty_background_bytes within b - 1 of 2^64 pass the
 * kernel's 2^32-1 page check and give a threshold of 0 pages (measured on
 * 6.18: dirty_bytes=2^64-1 accepted, nr_dirty_threshold 0).
 */
static inline uint64_t wb_kernel_div_round_up(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : 0;
}

/* floor(a * b / c) without overflowing the product. */
static inline uint64_t wb_mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return c ? (uint64_t)((unsigned __int128)a * b / c) : 0;
}

/* Round up to a power of two (rp2), and floor(log2). */
static inline uint64_t wb_rp2(uint64_t n)
{
	uint64_t p = 1;
	while (p < n)
		p <<= 1;
	return p;
}

static inline unsigned wb_ilog2(uint64_t n)
{
	unsigned l = 0;
	while (n >>= 1)
		l++;
	return l;
}

#endif
