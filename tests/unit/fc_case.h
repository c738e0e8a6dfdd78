/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Forecast cases for test_model.c: one sample, its limits and the forecast's inputs, from a spec. */
#ifndef WBTOP_TESTS_UNIT_FC_CASE_H
#define WBTOP_TESTS_UNIT_FC_CASE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "wbtop/forecast.h"
#include "wbtop/model.h"

#define FC_MAX 4 /* devices in a case at the most */

/* The figures a sample's device shows: what the kernel's bandwidth adds to. */
#define FC_VALID_PAGES (WB_BIT(WB_B_RECLAIMABLE) | WB_BIT(WB_B_WRITEBACK))
#define FC_VALID_KBW (FC_VALID_PAGES | WB_BIT(WB_B_WB_BW))

/* One device: what the sample shows, its share, its knobs and what the forecast is told of it. */
struct fc_dev {
	const char *name;             /* NULL ends the list */
	uint64_t num, den;            /* its writeout share */
	double bw, rate, tasks, chunk; /* the forecast's inputs, pages/s (tasks, chunk: when the spec asks) */
	uint64_t dirty, writeback, kbw; /* the sample's reclaimable, writeback and WbWriteBandwidth */
	uint64_t max_ppm;             /* its knob in the case's settings */
	bool strict;
};

/* A case: global limits, the figures valid on each device, the horizon, and the devices. */
struct fc_spec {
	uint64_t thresh, bg, dirty;   /* the limits', pages (freerun and the rest left 0) */
	uint64_t valid;               /* each device's st_valid: FC_VALID_PAGES or FC_VALID_KBW */
	double horizon;               /* seconds, in steps of 1 s */
	bool tasks, chunk;            /* hand the forecast the devices' tasks, chunks (else NULL) */
	struct fc_dev dev[FC_MAX];
};

/* What a test runs the forecast on; fc_case_init() fills it, the test changes what it varies. */
struct fc_case {
	struct wb_sample s;
	struct wb_bdi b[FC_MAX];
	struct wb_limits l;
	struct wb_bdi_limits bl[FC_MAX];
	struct wb_bdi_knobs kn[FC_MAX];
	struct wb_settings k;         /* expire 30 s, a period of 5 s, the devices' knobs */
	double bw[FC_MAX], rate[FC_MAX], tasks[FC_MAX], chunk[FC_MAX];
	struct wb_forecast_in in;
};

/* Fill c from sp: a 4 KiB-page sample whose BDIs, limits and knobs are in the order of sp's devices. */
static inline void fc_case_init(struct fc_case *c, const struct fc_spec *sp)
{
	size_t n = 0;

	memset(c, 0, sizeof(*c));
	wb_sample_init(&c->s);
	c->s.page_size = 4096;
	for (; n < FC_MAX && sp->dev[n].name; n++) {
		const struct fc_dev *d = &sp->dev[n];

		strcpy(c->b[n].name, d->name);
		c->b[n].st_valid = sp->valid;
		c->b[n].st[WB_B_RECLAIMABLE] = d->dirty;
		c->b[n].st[WB_B_WRITEBACK] = d->writeback;
		c->b[n].st[WB_B_WB_BW] = d->kbw;
		c->bl[n] = (struct wb_bdi_limits){ .valid = true, .frac_num = d->num, .frac_den = d->den };
		strcpy(c->bl[n].name, d->name);
		c->kn[n] = (struct wb_bdi_knobs){ .max_ppm = d->max_ppm, .strict = d->strict };
		strcpy(c->kn[n].name, d->name);
		c->bw[n] = d->bw;
		c->rate[n] = d->rate;
		c->tasks[n] = d->tasks;
		c->chunk[n] = d->chunk;
	}
	c->s.bdis = c->b;
	c->s.nbdis = n;
	c->l = (struct wb_limits){ .valid = true, .thresh = sp->thresh, .bg = sp->bg, .dirty = sp->dirty,
				   .nbdis = n, .bdis = c->bl };
	c->k = (struct wb_settings){ .expire_cs = 3000, .writeback_cs = 500, .bdis = c->kn, .nbdis = n };
	c->in = (struct wb_forecast_in){ .horizon_s = sp->horizon, .step_s = 1, .bw = c->bw, .dirty_rate = c->rate,
					 .tasks = sp->tasks ? c->tasks : NULL, .chunk = sp->chunk ? c->chunk : NULL };
}

#endif
