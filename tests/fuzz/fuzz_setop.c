// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: --set KEY=VALUE through wb_setop_parse against a real
 * sample (the 6.18-writing fixture tree), then wb_settings_apply and the
 * model under the result, as --set does. Must never crash; a refusal says
 * why; an accepted BDI key names a BDI of the sample.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/live.h"
#include "wbtop/model.h"
#include "wbtop/whatif.h"

static struct wb_sample s;
static struct wb_limits lim;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct wb_live_opts o = { .root = FIXTURES "/6.18-writing" };
	char err[256];
	struct wb_live *l = wb_live_create(&o, err, sizeof(err));

	(void)argc;
	(void)argv;
	if (!l) {
		fprintf(stderr, "fuzz_setop: %s\n", err);
		abort();
	}
	wb_sample_init(&s);
	wb_live_read(l, &s);
	wb_live_destroy(l);
	if (s.nbdis == 0 || wb_model_eval(NULL, &s, NULL, NULL, 0, &lim))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char arg[512], err[256];
	struct wb_setop op;
	struct wb_settings k;
	struct wb_limits out;

	if (size >= sizeof(arg))
		return 0;
	memcpy(arg, data, size);
	arg[size] = '\0';
	err[0] = '\0';
	if (wb_setop_parse(arg, &s, &op, err, sizeof(err))) {
		if (!err[0])
			__builtin_trap();
		return 0;
	}
	if (op.is_bdi && !wb_sample_bdi(&s, op.bdi))
		__builtin_trap();
	if (wb_settings_from_sample(&k, &s))
		return 0;
	err[0] = '\0';
	if (wb_settings_apply(&k, &lim, s.page_size, &op, err, sizeof(err)) == 0) {
		if (wb_model_eval(NULL, &s, &k, &lim, 0, &out) == 0)
			wb_limits_finish(&out);
	} else if (!err[0]) {
		__builtin_trap();
	}
	wb_settings_finish(&k);
	return 0;
}
