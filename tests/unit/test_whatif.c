// SPDX-License-Identifier: GPL-2.0-or-later
/* What-if: KEY=VALUE parsing and the kernel's write semantics. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "wbtop/whatif.h"

static struct wb_bdi bdis[2] = { { .name = "7:0", .dev = "loop0" }, { .name = "8:16", .dev = "sdb" } };
static struct wb_sample sample;
static struct wb_settings k;
static struct wb_limits cur = { .valid = true, .thresh = 100000, .dirtyable = 500000 };

static int setup(void **st)
{
	(void)st;
	wb_sample_init(&sample);
	sample.page_size = 4096;
	sample.sys[WB_SYS_DIRTY_RATIO] = 20;
	sample.sys[WB_SYS_BG_RATIO] = 10;
	sample.bdis = bdis;
	sample.nbdis = 2;
	return wb_settings_from_sample(&k, &sample);
}

static int teardown(void **st)
{
	(void)st;
	wb_settings_finish(&k);
	return 0;
}

/* Parse and apply; returns the apply (or parse) result. */
static int set(const char *arg, char *err)
{
	struct wb_setop op;
	int rc = wb_setop_parse(arg, &sample, &op, err, 256);
	return rc ? rc : wb_settings_apply(&k, &cur, 4096, &op, err, 256);
}

static void ratio_and_bytes_twins(void **st)
{
	char err[256];
	(void)st;
	assert_int_equal(set("vm.dirty_bytes=64M", err), 0);
	assert_int_equal(k.dirty_bytes, 64 << 20);
	assert_int_equal(k.dirty_ratio, 0);
	assert_int_equal(set("vm.dirty_ratio=0", err), 0);  /* same value: no mode switch */
	assert_int_equal(k.dirty_bytes, 64 << 20);
	assert_int_equal(set("vm.dirty_ratio=15%", err), 0);
	assert_int_equal(k.dirty_ratio, 15);
	assert_int_equal(k.dirty_bytes, 0);
	assert_int_equal(set("vm.dirty_background_bytes=1", err), 0);
	assert_int_equal(k.bg_ratio, 0);
	assert_int_equal(set("vm.dirty_background_ratio=10", err), 0);
	assert_int_equal(k.bg_bytes, 0);
}

static void refused_like_the_kernel(void **st)
{
	char err[256];
	(void)st;
	assert_int_equal(set("vm.dirty_bytes=8191", err), -EINVAL); /* < 2 pages */
	assert_non_null(strstr(err, "minimum"));
	assert_int_equal(set("vm.dirty_background_bytes=0", err), -EINVAL);
	assert_int_equal(set("vm.dirty_ratio=101", err), -EINVAL);
	assert_int_equal(set("vm.dirty_bytes=64Q", err), -EINVAL);
	assert_non_null(strstr(err, "unit"));
	assert_int_equal(set("vm.dirty_bytes=17592186044416K", err), -ERANGE); /* 2^34 pages */
	assert_int_equal(set("vm.dirty_bytes=18446744073709547520", err), -ERANGE); /* 2^64 - 4096 */
	assert_int_equal(set("vm.dirty_background_bytes=17592186040321", err), -ERANGE); /* 2^32-1 pages + 1 */
	assert_int_equal(set("vm.nonsense=1", err), -EINVAL);
	assert_int_equal(set("bdi.nosuch.max_ratio=1", err), -EINVAL);
	assert_non_null(strstr(err, "no backing device"));
	assert_int_equal(set("noequals", err), -EINVAL);
	assert_int_equal(k.dirty_ratio, 20); /* nothing changed */
}

/* Within a page of 2^64 the kernel's page check wraps: it takes the value, the threshold is 0. */
static void bytes_near_2_64(void **st)
{
	char err[256];
	(void)st;
	assert_int_equal(set("vm.dirty_bytes=18446744073709551615", err), 0);
	assert_true(k.dirty_bytes == UINT64_MAX);
	assert_int_equal(k.dirty_ratio, 0);
	assert_int_equal(set("vm.dirty_bytes=18446744073709547521", err), 0); /* 2^64 - 4095 */
	assert_int_equal(set("vm.dirty_background_bytes=18446744073709551615", err), 0);
	assert_int_equal(k.bg_ratio, 0);
}

static void bdi_knobs(void **st)
{
	char err[256];
	(void)st;
	assert_int_equal(set("bdi.loop0.max_ratio=30", err), 0);
	assert_int_equal(k.bdis[0].max_ppm, 300000);
	assert_int_equal(set("bdi.7:0.min_ratio=40", err), -EINVAL); /* min > max */
	assert_int_equal(set("bdi.loop0.min_ratio=30", err), 0);
	assert_int_equal(set("bdi.sdb.min_ratio_fine=700000", err), -EINVAL); /* sum would be 100 % */
	assert_non_null(strstr(err, "100%"));
	assert_int_equal(set("bdi.sdb.min_ratio_fine=699999", err), 0);
	assert_int_equal(set("bdi.loop0.max_ratio=20", err), -EINVAL); /* below min */
	assert_int_equal(set("bdi.sdb.strict_limit=2", err), -EINVAL);
	assert_int_equal(set("bdi.sdb.strict_limit=1", err), 0);
	assert_true(k.bdis[1].strict);
	/* bytes become a ratio of the current threshold: 10000 pages of 100000 = 10 % */
	assert_int_equal(set("bdi.sdb.min_ratio_fine=0", err), 0);
	assert_int_equal(set("bdi.sdb.max_bytes=40960000", err), 0);
	assert_int_equal(k.bdis[1].max_ppm, 100000);
	assert_int_equal(set("bdi.sdb.max_bytes=4T", err), -EINVAL); /* > dirtyable */
	assert_int_equal(set("bdi.sdb.max_bytes=409604096", err), -EINVAL); /* a page past the threshold */
	assert_non_null(strstr(err, "above the dirty threshold, 409600000 bytes now"));
}

static void setop_path(void **st)
{
	struct wb_setop op;
	char err[256], path[128];
	(void)st;
	assert_int_equal(wb_setop_parse("bdi.loop0.strict_limit=1", &sample, &op, err, 256), 0);
	wb_setop_path(&op, path, sizeof(path));
	assert_string_equal(path, "sys/class/bdi/7:0/strict_limit");
	assert_int_equal(wb_setop_parse("vm.dirty_expire_centisecs=100", &sample, &op, err, 256), 0);
	wb_setop_path(&op, path, sizeof(path));
	assert_string_equal(path, "proc/sys/vm/dirty_expire_centisecs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(ratio_and_bytes_twins, setup, teardown),
		cmocka_unit_test_setup_teardown(refused_like_the_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(bytes_near_2_64, setup, teardown),
		cmocka_unit_test_setup_teardown(bdi_knobs, setup, teardown),
		cmocka_unit_test_setup_teardown(setop_path, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
