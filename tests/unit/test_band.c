// SPDX-License-Identifier: GPL-2.0-or-later
/* The forecast's band follows what the model cannot observe (forecast_band.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "wbtop/forecast.h"
#include "wbtop/model.h"

/* One device with 5000 dirty pages, its writer seen for 30 s, the kernel's thresholds 20000 / 10000. */
struct one {
	struct wb_sample s;
	struct wb_bdi b;
	struct wb_limits l;
	struct wb_bdi_limits bl;
	double bw, rate, seen;
	struct wb_forecast_in in;
};

static void one_init(struct one *o)
{
	memset(o, 0, sizeof(*o));
	wb_sample_init(&o->s);
	o->s.page_size = 4096;
	strcpy(o->b.name, "8:0");
	o->b.st[WB_B_RECLAIMABLE] = 5000;
	o->b.st[WB_B_DIRTY_THRESH] = 20000;
	o->b.st[WB_B_THRESH] = 10000;
	o->b.st_valid = WB_BIT(WB_B_RECLAIMABLE) | WB_BIT(WB_B_WRITEBACK) | WB_BIT(WB_B_DIRTY_THRESH) |
			WB_BIT(WB_B_THRESH);
	o->s.bdis = &o->b;
	o->s.nbdis = 1;
	o->l = (struct wb_limits){ .valid = true, .thresh = 20000, .bg = 10000, .dirty = 5000, .nbdis = 1 };
	o->bl = (struct wb_bdi_limits){ .name = "8:0", .valid = true, .frac_num = 1, .frac_den = 2,
					.thresh = 10000 };
	o->l.bdis = &o->bl;
	o->bw = 1000;
	o->rate = 800;
	o->seen = 30;
	o->in = (struct wb_forecast_in){ 30, 1, &o->bw, &o->rate, NULL, NULL, WB_FORECAST_MEMBERS, &o->seen,
					 NULL, NULL, NULL };
}

/* The level band's width at step t relative to the point forecast there. */
static double rel_width(const struct wb_forecast *f, size_t t)
{
	double pt = f->bdis[0].dirty[t] + f->bdis[0].writeback[t];

	return (f->bdis[0].p90[WB_FC_LEVEL][t] - f->bdis[0].p10[WB_FC_LEVEL][t]) / (pt > 1 ? pt : 1);
}

/* The band holds its point forecast at every step of every series. */
static void assert_holds_point(const struct wb_forecast *f)
{
	for (int q = 0; q < WB_FC_SERIES; q++)
		for (size_t t = 0; t < f->nsteps; t++) {
			const struct wb_forecast_bdi *b = &f->bdis[0];
			double pt = q == WB_FC_DIRTY ? b->dirty[t] : q == WB_FC_WRITEBACK ? b->writeback[t]
				  : q == WB_FC_THRESH ? b->thresh[t] : q == WB_FC_WRITE_RATE ? b->write_rate[t]
				  : b->dirty[t] + b->writeback[t];

			assert_true(b->p10[q][t] <= pt && pt <= b->p90[q][t]);
		}
}

/*
 * A what-if four times below the kernel's thresholds: the kernel settles
 * again (rate limits, shares, levels), which the sample cannot show - a
 * wider band than the same forecast from a sample where the kernel already
 * holds those limits.
 */
static void band_wider_after_a_change(void **st)
{
	struct one o;
	struct wb_forecast same, moved;
	(void)st;
	one_init(&o);
	o.l.thresh = 5000;
	o.l.bg = 2500;
	o.bl.thresh = 2500;
	o.b.st[WB_B_DIRTY_THRESH] = 5000;
	o.b.st[WB_B_THRESH] = 2500;
	assert_int_equal(wb_forecast_run(&o.s, &o.l, NULL, &o.in, &same), 0);
	o.b.st[WB_B_DIRTY_THRESH] = 20000;
	o.b.st[WB_B_THRESH] = 10000;
	assert_int_equal(wb_forecast_run(&o.s, &o.l, NULL, &o.in, &moved), 0);
	assert_holds_point(&same);
	assert_holds_point(&moved);
	assert_true(rel_width(&moved, 19) > 1.5 * rel_width(&same, 19));
	wb_forecast_finish(&same);
	wb_forecast_finish(&moved);
}

/*
 * The kernel's rate limit far from its balanced rate (tracepoints): its
 * course is not seen between samples - a wider writer band than when the two
 * agree, for a writer faster than its device (the rate limit decides its
 * rate once the level reaches the threshold).
 */
static void band_wider_while_ratelimit_moves(void **st)
{
	struct one o;
	struct wb_forecast settled, moving;
	double w[2];
	(void)st;
	one_init(&o);
	o.rate = 3000;
	o.s.ev_valid = true;
	o.b.ev.dirty_ratelimit = o.b.ev.balanced_ratelimit = 800;
	assert_int_equal(wb_forecast_run(&o.s, &o.l, NULL, &o.in, &settled), 0);
	o.b.ev.balanced_ratelimit = 200;
	assert_int_equal(wb_forecast_run(&o.s, &o.l, NULL, &o.in, &moving), 0);
	for (int k = 0; k < 2; k++) {
		const struct wb_forecast *f = k ? &moving : &settled;
		double lo = 0, hi = 0;

		for (size_t t = 0; t < f->nsteps; t++) {
			lo += f->bdis[0].p10[WB_FC_WRITE_RATE][t];
			hi += f->bdis[0].p90[WB_FC_WRITE_RATE][t];
		}
		w[k] = hi - lo;
	}
	assert_true(w[1] > w[0]);
	wb_forecast_finish(&settled);
	wb_forecast_finish(&moving);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(band_wider_after_a_change),
		cmocka_unit_test(band_wider_while_ratelimit_moves),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
