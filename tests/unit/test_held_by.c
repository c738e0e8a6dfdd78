// SPDX-License-Identifier: GPL-2.0-or-later
/* Which limit holds a device's writers (wb_pipeline_held_by), on hand-made model output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "wbtop/pipeline.h"

/* Limits past freerun (dirty 700 > freerun 600, limit 1000) with one device b. */
static struct wb_limits limits_with(struct wb_bdi_limits *b)
{
	return (struct wb_limits){ .valid = true, .thresh = 800, .freerun = 600, .limit = 1000, .dirty = 700,
				   .nbdis = 1, .bdis = b };
}

/* Under its own threshold while the system is past freerun: held by the others' pages. */
static void under_own_threshold_is_global(void **st)
{
	struct wb_bdi_limits b = { .valid = true, .thresh = 300, .dirty_known = true, .wb_dirty = 90,
				   .state = WB_ST_THROTTLED };
	struct wb_limits l = limits_with(&b);

	(void)st;
	assert_int_equal(wb_pipeline_held_by(&l, 0), WB_HELD_GLOBAL);
	b.state = WB_ST_OVER; /* over because the global limit is reached */
	assert_int_equal(wb_pipeline_held_by(&l, 0), WB_HELD_GLOBAL);
}

/* At or past its own threshold, or strict_limit: its own limit. */
static void at_own_threshold_or_strict_is_device(void **st)
{
	struct wb_bdi_limits b = { .valid = true, .thresh = 300, .dirty_known = true, .wb_dirty = 300,
				   .state = WB_ST_OVER };
	struct wb_limits l = limits_with(&b);

	(void)st;
	assert_int_equal(wb_pipeline_held_by(&l, 0), WB_HELD_DEVICE);
	b.wb_dirty = 10;
	b.strict = true;
	b.state = WB_ST_THROTTLED;
	assert_int_equal(wb_pipeline_held_by(&l, 0), WB_HELD_DEVICE);
}

/* Nothing dirty on a device with a zero threshold is not its own limit; not held is NONE. */
static void empty_device_and_free_writers(void **st)
{
	struct wb_bdi_limits b = { .valid = true, .thresh = 0, .dirty_known = true, .wb_dirty = 0,
				   .state = WB_ST_OVER };
	struct wb_limits l = limits_with(&b);

	(void)st;
	assert_int_equal(wb_pipeline_held_by(&l, 0), WB_HELD_GLOBAL);
	b.state = WB_ST_FLUSHING;
	assert_int_equal(wb_pipeline_held_by(&l, 0), WB_HELD_NONE);
	b.state = WB_ST_THROTTLED;
	assert_int_equal(wb_pipeline_held_by(&l, 1), WB_HELD_NONE); /* no such device */
	assert_int_equal(wb_pipeline_held_by(NULL, 0), WB_HELD_NONE);
	l.valid = false;
	assert_int_equal(wb_pipeline_held_by(&l, 0), WB_HELD_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(under_own_threshold_is_global),
		cmocka_unit_test(at_own_threshold_or_strict_is_device),
		cmocka_unit_test(empty_device_and_free_writers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
