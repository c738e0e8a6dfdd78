// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: decoded recording frames through everything a replay
 * feeds: the pipeline (model, what-if under a --set list, forecast,
 * derived figures, timeline) and every sink (JSON, text, CSV, OpenMetrics).
 * Input: byte 0 = the format version (0-3: 2.0, 2.1, 3.0, 1.0) and modes
 * (below), bytes 1-2 = length L of a key frame's payload (little endian),
 * then L bytes of it, then an optional delta frame against it. CRCs are not
 * in the way: this starts after them.
 * Byte 0's modes (none in the seeds made before them):
 *  0x04  the --set list raises the cap of every BDI capped under 100 %
 *        instead of the fixed list (which lowers caps): the what-if a
 *        capped device's share is replayed for (wb_model_lift_caps);
 *  0x08  raised to 100 % (max_ratio=100), else to twice its cap (_fine);
 *  0x10  after the key frame, up to MAX_SAMPLES - 1 delta frames each led
 *        by its 2-byte length, each against the one before: the history
 *        that replay needs (one delta is a single step).
 * FUZZ_SKIP=forecast,sinks (either) leaves those out, to look past a known
 * finding in them while triaging; the test suite runs everything.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "wbtop/model.h"
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

#define MODE_RAISE 0x04
#define MODE_RAISE_FULL 0x08
#define MODE_HISTORY 0x10
#define MAX_SETS 8
#define MAX_SAMPLES 8

/* --set args raising each capped BDI's cap (to 100 %, or to twice it) into args[]; how many. */
static int raise_list(const struct wb_sample *cur, bool full, char args[][96], const char **sets)
{
	struct wb_settings k;
	int n = 0;

	if (wb_settings_from_sample(&k, cur))
		return 0;
	for (size_t i = 0; i < k.nbdis && n < MAX_SETS; i++) {
		uint64_t ppm = k.bdis[i].max_ppm;

		if (ppm >= WB_RATIO_FULL || strchr(k.bdis[i].name, '='))
			continue;
		if (full)
			snprintf(args[n], 96, "bdi.%s.max_ratio=100", k.bdis[i].name);
		else
			snprintf(args[n], 96, "bdi.%s.max_ratio_fine=%llu", k.bdis[i].name,
				 (unsigned long long)(ppm * 2 + 1 < WB_RATIO_FULL ? ppm * 2 + 1 : WB_RATIO_FULL));
		sets[n] = args[n];
		n++;
	}
	wb_settings_finish(&k);
	return n;
}

/*
 * The fixed --set list (the BDI ones on the first BDI, max_ratio_fine on the
 * last: on the first it is max_ratio again, which the what-if refuses as
 * given twice, and then no what-if ran for a sample with devices) into
 * args[]; how many.
 */
static int set_list(const struct wb_sample *cur, char args[][96], const char **sets)
{
	static const char *const tmpl[] = { "vm.dirty_ratio=40", "vm.dirty_background_bytes=64M",
					    "vm.dirty_expire_centisecs=100", "bdi.%s.max_ratio=5",
					    "bdi.%s.strict_limit=1", "bdi.%s.min_bytes=1M", "bdi.%s.max_ratio_fine=1" };
	const size_t last = sizeof(tmpl) / sizeof(tmpl[0]) - 1;
	int n = 0;

	for (size_t i = 0; i <= last; i++) {
		if (strstr(tmpl[i], "%s") && (cur->nbdis == 0 || (i == last && cur->nbdis < 2)))
			continue;
		snprintf(args[n], 96, tmpl[i],
			 i == last ? cur->bdis[cur->nbdis - 1].name : cur->nbdis ? cur->bdis[0].name : "");
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
static void run(const struct wb_sample *s, size_t ns, unsigned mode)
{
	char args[MAX_SETS][96], err[256];
	const char *sets[MAX_SETS];
	struct wb_pipeline_opts po = { .window = 8, .sets = sets,
				       .nsets = mode & MODE_RAISE ? raise_list(&s[0], mode & MODE_RAISE_FULL, args, sets)
								  : set_list(&s[0], args, sets),
				       .forecast_s = skip_forecast ? 0 : 20, .timeline = 16 };
	struct wb_pipeline *p = wb_pipeline_create(&po);
	const char *hidden[4];

	if (!p)
		return;
	for (size_t i = 0; i < ns; i++) {
		wb_level_hidden(s[i].level, s[i].level_why, s[i].ev_valid, hidden, 4);
		if (wb_pipeline_push(p, &s[i], err, sizeof(err)) != -ENOMEM && !skip_sinks && wb_pipeline_view(p))
			sinks(wb_pipeline_view(p));
	}
	wb_pipeline_destroy(p);
}

/* Byte 0 picks the format version of the frames. */
static const unsigned versions[4][2] = { { 2, 0 }, { 2, 1 }, { 3, 0 }, { 1, 0 } };

/* Delta frames from p on, each against the sample before it, into s[1..]: how many samples in s[] then. */
static size_t deltas(const uint8_t *p, size_t len, bool framed, const unsigned *v, struct wbrec_schema *sc,
		     struct wb_sample *s)
{
	size_t ns = 1;
	char err[256];

	while (len > 0 && ns < MAX_SAMPLES) {
		size_t dlen = len;

		if (framed) {
			if (len < 2)
				break;
			dlen = p[0] | (size_t)p[1] << 8;
			p += 2;
			len -= 2;
			if (dlen > len)
				dlen = len;
		}
		if (wb_rec_decode(p, dlen, false, v[0], v[1], &s[ns - 1], sc, &s[ns], err, sizeof(err)))
			break;
		ns++;
		p += dlen;
		len -= dlen;
		if (!framed)
			break;
	}
	return ns;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wb_sample s[MAX_SAMPLES];
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
	for (size_t i = 0; i < MAX_SAMPLES; i++)
		wb_sample_init(&s[i]);
	if (wb_rec_decode(data + 3, klen, true, v[0], v[1], NULL, &sc, &s[0], err, sizeof(err)) == 0)
		run(s, deltas(data + 3 + klen, size - 3 - klen, data[0] & MODE_HISTORY, v, &sc, s), data[0]);
	for (size_t i = 0; i < MAX_SAMPLES; i++)
		wb_sample_finish(&s[i]);
	return 0;
}
