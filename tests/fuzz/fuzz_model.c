// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: decoded recording frames through everything a replay
 * feeds: the model (limits, control), what-if under a fixed --set list, the
 * forecast, and every batch sink (JSON, text, CSV to /dev/null).
 * Input: byte 0 = the file's minor version, bytes 1-2 = length L of a key
 * frame's payload (little endian), then L bytes of it, then an optional
 * delta frame against it. CRCs are not in the way: this starts after them.
 * FUZZ_SKIP=forecast,sinks (either) leaves those out, to look past a known
 * finding in them while triaging; the test suite runs everything.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/forecast.h"
#include "wbtop/live.h"
#include "wbtop/model.h"
#include "wbtop/out.h"
#include "wbtop/record.h"
#include "wbtop/whatif.h"

static FILE *sink;
static bool skip_forecast, skip_sinks;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *skip = getenv("FUZZ_SKIP");

	(void)argc;
	(void)argv;
	skip_forecast = skip && strstr(skip, "forecast");
	skip_sinks = skip && strstr(skip, "sinks");
	sink = fopen("/dev/null", "w");
	return sink ? 0 : 1;
}

/* The what-if settings of a fixed --set list (the BDI ones on cur's first BDI). */
static int settings_for(const struct wb_sample *cur, const struct wb_limits *lim, struct wb_settings *k)
{
	static const char *const sets[] = { "vm.dirty_ratio=40", "vm.dirty_background_bytes=64M",
					    "vm.dirty_expire_centisecs=100", "bdi.%s.max_ratio=5",
					    "bdi.%s.strict_limit=1", "bdi.%s.min_bytes=1M", "bdi.%s.max_ratio_fine=1" };
	char arg[160], err[256];

	if (wb_settings_from_sample(k, cur))
		return -1;
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct wb_setop op;
		if (strstr(sets[i], "%s") && cur->nbdis == 0)
			continue;
		snprintf(arg, sizeof(arg), sets[i], cur->nbdis ? cur->bdis[0].name : "");
		if (wb_setop_parse(arg, cur, &op, err, sizeof(err)) == 0)
			wb_settings_apply(k, lim, cur->page_size, &op, err, sizeof(err));
	}
	return 0;
}

/* Forecasts under the current and the what-if settings, as run_batch does. */
static void forecasts(struct wb_view *v, const struct wb_ring *hist, const struct wb_settings *wk,
		      struct wb_forecast *fc, struct wb_forecast *wfc)
{
	struct wb_forecast_in in;
	struct wb_settings k;
	double *buf = wb_forecast_prepare(v->cur, hist, 20, 1.0, &in);

	if (!buf)
		return;
	if (wb_settings_from_sample(&k, v->cur) == 0) {
		if (wb_forecast_run(v->cur, v->lim, &k, &in, fc) == 0)
			v->forecast = fc;
		wb_settings_finish(&k);
	}
	if (v->whatif && wb_forecast_run(v->cur, v->whatif, wk, &in, wfc) == 0)
		v->whatif_forecast = wfc;
	free(buf);
}

/* One sample through the model, what-if, forecast and sinks. */
static void pipeline(const struct wb_sample *prev, const struct wb_sample *cur, const struct wb_ring *hist)
{
	struct wb_limits lim, wi;
	struct wb_settings k;
	struct wb_forecast fc, wfc;
	struct wb_view v = { .prev = prev, .cur = cur };
	const char *hidden[4];
	bool have_k = false;

	memset(&lim, 0, sizeof(lim));
	memset(&wi, 0, sizeof(wi));
	memset(&fc, 0, sizeof(fc));
	memset(&wfc, 0, sizeof(wfc));
	wb_level_hidden(cur->level, hidden, 4);
	if (wb_model_eval(prev, cur, NULL, NULL, 0, &lim) == 0) {
		v.lim = &lim;
		if (settings_for(cur, &lim, &k) == 0) {
			have_k = true;
			if (wb_model_eval(prev, cur, &k, &lim, 0, &wi) == 0)
				v.whatif = &wi;
		}
		if (!skip_forecast)
			forecasts(&v, hist, &k, &fc, &wfc);
	}
	if (!skip_sinks) {
		wb_out_json(sink, &v);
		wb_out_text(sink, &v);
		wb_out_csv_header(sink);
		wb_out_csv(sink, &v);
	}
	if (have_k)
		wb_settings_finish(&k);
	wb_forecast_finish(&fc);
	wb_forecast_finish(&wfc);
	wb_limits_finish(&lim);
	wb_limits_finish(&wi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wb_sample a, b;
	struct wb_ring *hist;
	char err[256];
	size_t klen;

	if (size < 3)
		return 0;
	klen = data[1] | (size_t)data[2] << 8;
	if (klen > size - 3)
		klen = size - 3;
	hist = wb_ring_create(WB_FORECAST_HIST);
	wb_sample_init(&a);
	wb_sample_init(&b);
	if (hist && wb_rec_decode(data + 3, klen, true, data[0] % 4, NULL, &a, err, sizeof(err)) == 0) {
		pipeline(NULL, &a, hist);
		wb_ring_push(hist, &a);
		if (size - 3 - klen > 0 &&
		    wb_rec_decode(data + 3 + klen, size - 3 - klen, false, data[0] % 4, &a, &b, err, sizeof(err)) == 0)
			pipeline(&a, &b, hist);
	}
	wb_sample_finish(&a);
	wb_sample_finish(&b);
	wb_ring_destroy(hist);
	return 0;
}
