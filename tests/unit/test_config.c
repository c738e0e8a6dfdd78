// SPDX-License-Identifier: GPL-2.0-or-later
/* The settings file: round trip, malformed lines named, hostile paths refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "wbtop/config.h"

static char dir[64];

static int setup(void **st)
{
	(void)st;
	strcpy(dir, "/tmp/wbtop-config-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
	char cmd[128];
	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void round_trip(void **st)
{
	struct wb_config c, d;
	char path[128], msg[256];
	(void)st;
	snprintf(path, sizeof(path), "%s/sub/wbtoprc", dir);
	wb_config_init(&c);
	strcpy(c.theme, "mono");
	c.warn = 60;
	c.crit = 90;
	c.delay = 2.5;
	strcpy(c.sort, "DIRTY");
	c.sort_desc = 1;
	c.hide_loop = 1;
	c.nhidden = 2;
	strcpy(c.hidden[0], "MIN%");
	strcpy(c.hidden[1], "MOUNT");
	assert_int_equal(wb_config_save(&c, path, msg, sizeof(msg)), 0);
	assert_int_equal(wb_config_load(&d, path, msg, sizeof(msg)), 0);
	assert_string_equal(d.theme, "mono");
	assert_true(d.warn == 60 && d.crit == 90 && d.delay == 2.5);
	assert_string_equal(d.sort, "DIRTY");
	assert_int_equal(d.sort_desc, 1);
	assert_int_equal(d.hide_loop, 1);
	assert_int_equal(d.hide_idle, -1); /* unset stays unset */
	assert_int_equal(d.nhidden, 2);
	assert_string_equal(d.hidden[1], "MOUNT");
}

/* Unknown column names: a warning naming the line, the rest of the file (and list) kept. */
static void unknown_columns_warned(void **st)
{
	struct wb_config c;
	char path[128], msg[256];
	enum wb_table t;
	int col;
	(void)st;
	snprintf(path, sizeof(path), "%s/cols", dir);
	write_file(path, "[display]\ntheme = mono\n; a comment\nhidden_columns = mount, nope, zones:free, Processes:PID\n");
	assert_int_equal(wb_config_load(&c, path, msg, sizeof(msg)), 1);
	/* PID exists: said as a column that cannot be hidden, not as a misspelling ("no column") */
	if (!strstr(msg, "cols:4: hidden_columns: no column \"nope\"; \"Processes:PID\" cannot be hidden (a table's "
			 "first column names its rows); ignored"))
		fail_msg("got \"%s\"", msg);
	assert_string_equal(c.theme, "mono");
	assert_int_equal(c.nhidden, 2);
	assert_string_equal(c.hidden[0], "MOUNT"); /* as the table spells it */
	assert_string_equal(c.hidden[1], "Zones:FREE");
	assert_int_equal(wb_config_column("Processes:WRITE/s", &t, &col), 0);
	assert_int_equal(t, WB_TABLE_PROCS);
	assert_int_equal(col, 2);
	assert_int_equal(wb_config_column("DEVICE", &t, &col), -EPERM); /* names the rows: always shown */
	assert_int_equal(wb_config_column("zones:node", &t, &col), -EPERM);
	assert_int_equal(t, WB_TABLE_ZONES);
	assert_int_equal(wb_config_column("Tune:X", &t, &col), -ENOENT);
	assert_int_equal(wb_config_column("nope", &t, &col), -ENOENT);
	/* only cannot-be-hidden ones: no "no column" at all */
	write_file(path, "[display]\nhidden_columns = device, Zones:NODE\n");
	assert_int_equal(wb_config_load(&c, path, msg, sizeof(msg)), 1);
	if (!strstr(msg, "cols:2: hidden_columns: \"device\", \"Zones:NODE\" cannot be hidden") || strstr(msg, "no column"))
		fail_msg("got \"%s\"", msg);
	assert_int_equal(c.nhidden, 0);
}

/* A key set twice: the last value, and a warning naming the key and its first line. */
static void repeated_key_warned(void **st)
{
	struct wb_config c;
	char path[128], msg[512];
	(void)st;
	snprintf(path, sizeof(path), "%s/again", dir);
	write_file(path, "[display]\nwarn = 50\ntheme = mono\nwarn = 60\nhidden_columns = mount\nhidden_columns = nope\n");
	assert_int_equal(wb_config_load(&c, path, msg, sizeof(msg)), 1);
	assert_true(c.warn == 60);
	assert_int_equal(c.nhidden, 1); /* hidden_columns goes on over lines: not a repeat */
	if (!strstr(msg, "no column \"nope\"") || !strstr(msg, "again:2: warn is set more than once; the last one is used"))
		fail_msg("got \"%s\"", msg);
	write_file(path, "[display]\nhidden_columns = mount\nhidden_columns = zones:free\n");
	assert_int_equal(wb_config_load(&c, path, msg, sizeof(msg)), 0);
	assert_int_equal(c.nhidden, 2);
}

/* Every column of every table hidden: one long line that still reads back whole. */
/* Two bad lines: the message is the first one's, its number and its text together. */
static void first_error_named(void **st)
{
	struct wb_config c;
	char path[128], msg[256];
	(void)st;
	snprintf(path, sizeof(path), "%s/two", dir);
	write_file(path, "[display]\ntheme = mono\n[other]\nfoo = 1\nwarn = lots\n");
	assert_int_equal(wb_config_load(&c, path, msg, sizeof(msg)), -1);
	if (!strstr(msg, "two:4: unknown section [other]"))
		fail_msg("got: %s", msg);
	write_file(path, "[display]\nwarn = lots\nbogus = 1\n");
	assert_int_equal(wb_config_load(&c, path, msg, sizeof(msg)), -1);
	if (!strstr(msg, "two:2: warn"))
		fail_msg("got: %s", msg);
}

static void all_columns_round_trip(void **st)
{
	const struct wb_field *col[40];
	struct wb_config c, d;
	char path[128], msg[256];
	(void)st;
	snprintf(path, sizeof(path), "%s/all", dir);
	wb_config_init(&c);
	for (int t = 0; t < WB_TABLE_COUNT; t++) {
		size_t n = wb_config_columns((enum wb_table)t, col, 40);
		for (size_t k = 1; k < n; k++)
			wb_config_column_name((enum wb_table)t, (int)k, c.hidden[c.nhidden++], WB_CONFIG_NAME);
	}
	assert_true(c.nhidden > 20);
	assert_int_equal(wb_config_save(&c, path, msg, sizeof(msg)), 0);
	assert_int_equal(wb_config_load(&d, path, msg, sizeof(msg)), 0);
	assert_int_equal(d.nhidden, c.nhidden);
	for (int i = 0; i < c.nhidden; i++)
		assert_string_equal(d.hidden[i], c.hidden[i]);
}

static void missing_is_fine(void **st)
{
	struct wb_config c;
	char path[128], msg[256];
	(void)st;
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(wb_config_load(&c, path, msg, sizeof(msg)), 0);
	assert_string_equal(c.theme, "");
	assert_int_equal(c.sort_desc, -1);
}

static void malformed_named_and_ignored(void **st)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "[display]\ntheme = mono\nwarn = lots\n", ":3: warn = lots" },
		{ "[display]\n\ncolour = red\n", ":3: unknown key" },
		{ "[other]\nwarn = 5\n", ":2: unknown section" },
		{ "[display]\nthis is not ini\n", ":2:" },
		{ "[display]\nsort_desc = maybe\n", "expected true or false" },
		{ "[display]\ndelay = 0.001\n", "from 0.05" },
		/* decimal only: strtod took hexadecimal (16 s) and a sign */
		{ "[display]\ndelay = 0x10\n", ":2: delay = 0x10: expected a number from 0.05" },
		{ "[display]\nwarn = +50\n", ":2: warn = +50: expected a number" },
	};
	struct wb_config c;
	char path[128], msg[256];
	(void)st;
	snprintf(path, sizeof(path), "%s/bad", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(path, bad[i].text);
		assert_int_equal(wb_config_load(&c, path, msg, sizeof(msg)), -1);
		if (!strstr(msg, bad[i].want))
			fail_msg("%s: got \"%s\"", bad[i].want, msg);
		assert_string_equal(c.theme, ""); /* the defaults, not half a file */
	}
	/* a line over inih's buffer: its pieces were lines to inih, ":3: not an INI line" in a file of two */
	char text[400] = "[display]\nhidden_columns = ";
	while (strlen(text) < 300)
		strcat(text, "mount,");
	strcat(text, "\n");
	write_file(path, text);
	assert_int_equal(wb_config_load(&c, path, msg, sizeof(msg)), -1);
	if (!strstr(msg, ":2: line longer than 197 characters"))
		fail_msg("a 300-character line: got \"%s\"", msg);
}

static void not_a_file(void **st)
{
	struct wb_config c;
	char msg[256], big[128];
	FILE *f;
	(void)st;

	assert_int_equal(wb_config_load(&c, dir, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "not a regular file"));
	/* a regular file too large was "not a regular file of at most 64 KiB" too */
	snprintf(big, sizeof(big), "%s/big", dir);
	assert_non_null(f = fopen(big, "w"));
	for (int i = 0; i < 70000; i++)
		fputc('#', f);
	fclose(f);
	assert_int_equal(wb_config_load(&c, big, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "big: larger than 64 KiB: not a settings file"));
	assert_int_equal(wb_config_load(&c, "/dev/zero", msg, sizeof(msg)), -1);
}

static void save_replaces_a_link_not_its_target(void **st)
{
	struct wb_config c;
	char path[128], target[128], msg[256], buf[32] = "";
	FILE *f;
	(void)st;
	snprintf(target, sizeof(target), "%s/canary", dir);
	snprintf(path, sizeof(path), "%s/linked", dir);
	write_file(target, "canary\n");
	assert_int_equal(symlink(target, path), 0);
	wb_config_init(&c);
	assert_int_equal(wb_config_save(&c, path, msg, sizeof(msg)), 0);
	f = fopen(target, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "canary\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(missing_is_fine),
		cmocka_unit_test(unknown_columns_warned),
		cmocka_unit_test(repeated_key_warned),
		cmocka_unit_test(first_error_named),
		cmocka_unit_test(all_columns_round_trip),
		cmocka_unit_test(malformed_named_and_ignored),
		cmocka_unit_test(not_a_file),
		cmocka_unit_test(save_replaces_a_link_not_its_target),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
