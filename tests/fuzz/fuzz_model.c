// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: decoded recording frames through everything a replay
 * feeds: the pipeline (model, what-if under a fixed --set list, forecast,
 * derived figures, timeline) and every sink (JSON, text, CSV, OpenMetrics).
 * Input: byte 0 = the format version (0-3: 2.0, 2.1, 3.0, 1.0), bytes 1-2 = length L of a key
 * frame's payload (little endian), then L bytes of it, then an optional
 * delta frame against it. CRCs are not in the way: this starts after them.
 * FUZZ_SKIP=forecast,sinks (either) leaves those out, to look past a known
 * finding in them while triaging; the test suite runs everything.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "wbtop/openmetrics.h"
#include "wbtop/out.h"
#include "wbtop/pipeline.h"
#include "wbtop/record.h"
#include "wbtop/util.h"
#include "../../src/record/wbrec_internal.h" /* struct wbrec_schema */

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

/* The fixed --set list (the BDI ones on the first BDI) into args[]; how many. */
static int set_list(const struct wb_sample *cur, char args[][96], const char **sets)
{
	static const char *const tmpl[] = { "vm.dirty_ratio=40", "vm.dirty_background_bytes=64M",
					    "vm.dirty_expire_centisecs=100", "bdi.%s.max_ratio=5",
					    "bdi.%s.strict_limit=1", "bdi.%s.min_bytes=1M", "bdi.%s.max_ratio_fine=1" };
	int n = 0;

	for (size_t i = 0; i < sizeof(tmpl) / sizeof(tmpl[0]); i++) {
		if (strstr(tmpl[i], "%s") && cur->nbdis == 0)
			continue;
		snprintf(args[n], 96, tmpl[i], cur->nbdis ? cur->bdis[0].name : "");
		sets[n] = args[n];
		n++;
	}
	return n;
}

/* Every sink on one view: JSON, text, CSV and OpenMetrics. */
static void sinks(const struct wb_view *v)
{
	struct wb_om *om;
	char *text;
	size_t len;

	wb_out_json(sink, v);
	wb_out_text(sink, v);
	wb_out_csv_header(sink);
	wb_out_csv(sink, v);
	if ((om = wb_om_create(true))) {
		if (wb_om_add(om, v) == 0 && (text = wb_om_render(om, WB_OM_OPENMETRICS, &len)))
			free(text);
		wb_om_destroy(om);
	}
}

/* The samples through the pipeline (model, what-if under the --set list, forecast, derived figures) and sinks. */
static void run(const struct wb_sample *a, const struct wb_sample *b)
{
	char args[8][96], err[256];
	const char *sets[8];
	struct wb_pipeline_opts po = { .window = 8, .sets = sets, .nsets = set_list(a, args, sets),
				       .forecast_s = skip_forecast ? 0 : 20, .timeline = 16 };
	struct wb_pipeline *p = wb_pipeline_create(&po);
	const char *hidden[4];

	if (!p)
		return;
	for (int i = 0; i < 2; i++) {
		const struct wb_sample *s = i ? b : a;
		if (!s)
			break;
		wb_level_hidden(s->level, s->level_why, hidden, 4);
		if (wb_pipeline_push(p, s, err, sizeof(err)) != -ENOMEM && !skip_sinks && wb_pipeline_view(p))
			sinks(wb_pipeline_view(p));
	}
	wb_pipeline_destroy(p);
}

/* Byte 0 picks the format version of the frames. */
static const unsigned versions[4][2] = { { 2, 0 }, { 2, 1 }, { 3, 0 }, { 1, 0 } };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wb_sample a, b;
	struct wbrec_schema sc;
	char err[256];
	size_t klen;
	const unsigned *v;

	if (size < 3)
		return 0;
	v = versions[data[0] % 4];
	klen = data[1] | (size_t)data[2] << 8;
	if (klen > size - 3)
		klen = size - 3;
	memset(&sc, 0, sizeof(sc));
	wb_sample_init(&a);
	wb_sample_init(&b);
	if (wb_rec_decode(data + 3, klen, true, v[0], v[1], NULL, &sc, &a, err, sizeof(err)) == 0) {
		bool two = size - 3 - klen > 0 &&
			   wb_rec_decode(data + 3 + klen, size - 3 - klen, false, v[0], v[1], &a, &sc, &b, err,
					 sizeof(err)) == 0;
		run(&a, two ? &b : NULL);
	}
	wb_sample_finish(&a);
	wb_sample_finish(&b);
	return 0;
}
