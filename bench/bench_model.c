// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The model's cost: one what-if evaluation (limits + control for 16 BDIs)
 * and one 60 s forecast, without its band or with it (the ensemble wbtop
 * runs), on a synthetic sample. Prints the median time per call; run-bench
 * adds callgrind instruction counts (--toggle-collect=one_*).
 *   bench_model whatif|forecast|band [iterations]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wbtop/forecast.h"
#include "wbtop/model.h"

#define NB 16

static struct wb_sample s;
static struct wb_bdi bdis[NB];
static struct wb_zone zone = { .name = "Normal" };

static void make_sample(void)
{
	wb_sample_init(&s);
	s.page_size = 4096;
	s.ncpus = 2;
	s.sys[WB_SYS_DIRTY_RATIO] = 20;
	s.sys[WB_SYS_BG_RATIO] = 10;
	s.sys[WB_SYS_EXPIRE_CS] = 3000;
	s.sys[WB_SYS_WRITEBACK_CS] = 500;
	s.sys_valid = 0xff;
	s.g.v[WB_G_MEMFREE] = 5000000;
	s.g.v[WB_G_ACTIVE_FILE] = 500000;
	s.g.v[WB_G_INACTIVE_FILE] = 500000;
	s.g.v[WB_G_DIRTY] = 900000;
	s.g.v[WB_G_WRITEBACK] = 100000;
	s.g.v[WB_G_DIRTY_THRESH] = 1200000;
	s.g.valid = ~0ULL;
	zone.v[WB_Z_HIGH] = 30000;
	zone.v[WB_Z_MANAGED] = 6000000;
	zone.valid = ~0ULL;
	s.zones = &zone;
	s.nzones = 1;
	for (int i = 0; i < NB; i++) {
		struct wb_bdi *b = &bdis[i];
		snprintf(b->name, sizeof(b->name), "8:%d", i * 16);
		b->st[WB_B_RECLAIMABLE] = 50000 + i * 1000;
		b->st[WB_B_WRITEBACK] = 5000;
		b->st[WB_B_THRESH] = 1200000 / NB + i;
		b->st[WB_B_DIRTY_THRESH] = 1200000;
		b->st[WB_B_WB_BW] = 2000 + i * 500;
		b->st_valid = ~0ULL;
		b->knob[WB_K_MAX_RATIO_FINE] = 1000000;
		b->knob_valid = WB_BIT(WB_K_MAX_RATIO_FINE) | WB_BIT(WB_K_MIN_RATIO_FINE);
	}
	s.bdis = bdis;
	s.nbdis = NB;
}

static struct wb_limits base;
static double bw[NB], rate[NB];

__attribute__((noinline)) void one_whatif(const struct wb_settings *k)
{
	struct wb_limits l;
	wb_model_eval(NULL, &s, k, &base, 250, &l);
	wb_limits_finish(&l);
}

static unsigned members; /* "band": the ensemble wbtop runs */

__attribute__((noinline)) void one_forecast(const struct wb_settings *k)
{
	struct wb_forecast f;
	struct wb_forecast_in in = { 60, 1, bw, rate, NULL, NULL, members, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	wb_forecast_run(&s, &base, k, &in, &f);
	wb_forecast_finish(&f);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "whatif";
	int iters = argc > 2 ? atoi(argv[2]) : 1000;
	struct wb_settings k;
	double t[9];

	if (strcmp(mode, "band") == 0)
		members = WB_FORECAST_MEMBERS;
	make_sample();
	wb_model_eval(NULL, &s, NULL, NULL, 250, &base);
	wb_settings_from_sample(&k, &s);
	k.dirty_ratio = 30;
	for (int i = 0; i < NB; i++) {
		bw[i] = 2000 + i * 500;
		rate[i] = i % 2 ? 3000 : 0;
	}
	for (int r = 0; r < 9; r++) {
		double t0 = now();
		for (int i = 0; i < iters; i++) {
			if (strcmp(mode, "forecast") == 0 || strcmp(mode, "band") == 0)
				one_forecast(&k);
			else
				one_whatif(&k);
		}
		t[r] = (now() - t0) / iters;
	}
	qsort(t, 9, sizeof(t[0]), cmp);
	printf("%-8s %d BDIs: median %.2f us per call (9 runs x %d)\n", mode, NB, t[4] * 1e6, iters);
	wb_settings_finish(&k);
	wb_limits_finish(&base);
	return 0;
}
