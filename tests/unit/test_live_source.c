// SPDX-License-Identifier: GPL-2.0-or-later
/* The live source behind struct wb_source (collect/live_source.c), on fixture trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "wbtop/live.h"
#include "wbtop/source.h"

/* The source over fixture tree name (the live state to destroy), or NULL with err. */
static struct wb_live *open_source(const char *name, bool procs_always, struct wb_source *src, char *err,
				   size_t n)
{
	static char root[512];
	struct wb_live_opts o = { .root = root, .procs = true };

	snprintf(root, sizeof(root), "%s/%s", FIXTURES, name);
	return wb_live_source_open(&o, procs_always, src, err, n);
}

/* Reads like the collectors it wraps; the UI may turn the process table off, a recording may not. */
static void reads_a_fixture(void **st)
{
	struct wb_source src;
	struct wb_sample s;
	char err[256];
	struct wb_live *l = open_source("6.18-writing", false, &src, err, sizeof(err));
	(void)st;
	assert_non_null(l);
	assert_false(src.replay);
	assert_null(src.seek);
	assert_non_null(src.need_procs);
	wb_sample_init(&s);
	assert_int_equal(src.read(src.ctx, &s), 0);
	assert_true(s.level >= 0 && s.nbdis > 0);
	assert_int_equal(src.diag(src.ctx)->n, 0);
	src.need_procs(src.ctx, false);
	assert_int_equal(src.read(src.ctx, &s), 0);
	assert_false(s.procs_valid);
	wb_sample_finish(&s);
	wb_live_destroy(l);

	l = open_source("6.18-writing", true, &src, err, sizeof(err));
	assert_non_null(l);
	assert_null(src.need_procs); /* a recording keeps every sample whole */
	wb_live_destroy(l);
}

/* A tree with nothing readable: the source ends at once (-1), with its problems said. */
static void nothing_readable_ends(void **st)
{
	struct wb_source src;
	struct wb_sample s;
	char err[256] = "";
	struct wb_live *l = open_source("no-such-tree", false, &src, err, sizeof(err));
	(void)st;
	if (!l) { /* refused at the start: a message says why */
		assert_true(err[0] != '\0');
		return;
	}
	wb_sample_init(&s);
	assert_int_equal(src.read(src.ctx, &s), -1);
	assert_true(src.diag(src.ctx)->n > 0);
	wb_sample_finish(&s);
	wb_live_destroy(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_a_fixture),
		cmocka_unit_test(nothing_readable_ends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
