// SPDX-License-Identifier: GPL-2.0-or-later
/* UI pieces that need no terminal: layout geometry and theme files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "wbtop/layout.h"
#include "wbtop/util.h"
#include "../../src/ui/ui_internal.h"
#include "wbtop/theme.h"

static void columns_by_priority(void **st)
{
	int w[] = { 10, 20, 5, 8 }, p[] = { 0, 2, 0, 1 };
	bool shown[4];
	(void)st;
	assert_int_equal(wb_layout_columns(w, p, 4, 80, shown), 10 + 1 + 20 + 1 + 5 + 1 + 8);
	assert_true(shown[0] && shown[1] && shown[2] && shown[3]);
	assert_int_equal(wb_layout_columns(w, p, 4, 25, shown), 10 + 1 + 5 + 1 + 8);
	assert_false(shown[1]);
	assert_int_equal(wb_layout_columns(w, p, 4, 3, shown), 0);
	assert_int_equal(wb_layout_meter_pos(50, 100, 40), 20);
	assert_int_equal(wb_layout_meter_pos(500, 100, 40), 40);
	assert_int_equal(wb_layout_meter_pos(5, 0, 40), 0);
	assert_false(wb_layout_fits(79, 24));
	assert_true(wb_layout_fits(200, 60));
}

/* Units are chosen after rounding: no "1024K", no "10.0M", and counts stay short. */
static void fmt_rounds_first(void **st)
{
	static const struct { double v; const char *bytes, *count; } t[] = {
		{ 0, "0B", "0" }, { 1023, "1023B", "1.0k" }, { 1023.6, "1.0K", "1.0k" },
		{ 1023.6 * 1024, "1.0M", "1.0M" }, { 1024 * 1024 - 1, "1.0M", "1.0M" },
		{ 9.96 * 1024, "10K", "10k" }, { 9.94 * 1024, "9.9K", "10k" }, { 1536, "1.5K", "1.5k" },
		{ 83886080, "80M", "84M" }, { 999.6, "1000B", "1.0k" }, { 282, "282B", "282" },
	};
	char b[16];
	(void)st;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_string_equal(wb_fmt_bytes(b, sizeof(b), t[i].v), t[i].bytes);
		assert_string_equal(wb_fmt_count(b, sizeof(b), t[i].v), t[i].count);
	}
	assert_string_equal(wb_fmt_bytes(b, sizeof(b), 0.0 / 0.0), "-");
	assert_string_equal(wb_fmt_count(b, sizeof(b), -1), "-");
	assert_string_equal(wb_fmt_bytes(b, sizeof(b), -2048), "-2.0K");
}

/* The light theme sets its own background everywhere; mono's selection is not critical's look. */
static void theme_roles_distinct(void **st)
{
	const char *dirs[] = { THEMES, NULL };
	char err[256];
	struct wb_theme t;
	(void)st;
	assert_int_equal(wb_theme_load(&t, "light", dirs, err, sizeof(err)), 0);
	for (int r = 0; r < WB_R_COUNT; r++)
		assert_true(t.role[r].bg >= 0 && t.role[r].bg8 >= 0);
	assert_int_equal(wb_theme_load(&t, "mono", dirs, err, sizeof(err)), 0);
	assert_int_not_equal(t.role[WB_R_SELECTED].attrs, t.role[WB_R_CRITICAL].attrs);
}

static void colors(void **st)
{
	short a, b;
	(void)st;
	assert_true(wb_theme_parse_color("214|yellow", &a, &b));
	assert_int_equal(a, 214);
	assert_int_equal(b, 3);
	assert_true(wb_theme_parse_color("default", &a, &b));
	assert_int_equal(a, -1);
	assert_true(wb_theme_parse_color("12", &a, &b));
	assert_int_equal(b, 4);
	assert_false(wb_theme_parse_color("256", &a, &b));
	assert_false(wb_theme_parse_color("chartreuse", &a, &b));
	assert_false(wb_theme_parse_color("200|99", &a, &b));
}

static void shipped_themes_load(void **st)
{
	const char *dirs[] = { THEMES, NULL };
	static const char *const names[] = { "default", "light", "mono", "high-contrast" };
	char list[16][64], err[256];
	struct wb_theme t;
	(void)st;
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(wb_theme_load(&t, names[i], dirs, err, sizeof(err)), 0);
		assert_string_equal(t.name, names[i]);
	}
	assert_true(t.role[WB_R_CRITICAL].fg == 15 && t.role[WB_R_CRITICAL].fg8 == 7);
	assert_int_equal(wb_theme_load(&t, "mono", dirs, err, sizeof(err)), 0);
	assert_true(t.mono);
	assert_int_equal(wb_theme_list(dirs, list, 16), 4);
	assert_string_equal(list[0], "default");
	assert_int_equal(wb_theme_load(&t, "mono", NULL, err, sizeof(err)), 0); /* built in */
	assert_int_not_equal(wb_theme_load(&t, "nosuch", dirs, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "no theme"));
}

static void bad_theme_named(void **st)
{
	char path[] = "/tmp/wbtop-theme-XXXXXX", err[256];
	int fd = mkstemp(path);
	struct wb_theme t;
	const char *bad = "[roles]\nnormal = default, default\ndirty = plaid, default\n";
	(void)st;
	assert_int_equal(write(fd, bad, strlen(bad)), (int)strlen(bad));
	close(fd);
	assert_int_not_equal(wb_theme_load(&t, path, NULL, err, sizeof(err)), 0);
	assert_non_null(strstr(err, ":3: dirty: expected"));
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "[roles]\nsparkle = red, blue\n", 28), 28);
	close(fd);
	assert_int_not_equal(wb_theme_load(&t, path, NULL, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "unknown role \"sparkle\""));
	unlink(path);
}

/* Terminal injection: escapes, C1 controls and invalid UTF-8 become '?'; UTF-8 text stays. */
static void safe_text(void **st)
{
	char b[64];

	(void)st;
	assert_string_equal(wb_safe_text("/mnt/\x1b]0;pwned\x07x", b, sizeof(b)), "/mnt/?]0;pwned?x");
	assert_string_equal(wb_safe_text("a\x1b[2Jb\rc\x7f", b, sizeof(b)), "a?[2Jb?c?");
	assert_string_equal(wb_safe_text("\xc2\x9b" "31m", b, sizeof(b)), "?31m"); /* C1 CSI */
	assert_string_equal(wb_safe_text("caf\xc3\xa9 \xe2\x80\xa6", b, sizeof(b)), "caf\xc3\xa9 \xe2\x80\xa6");
	assert_string_equal(wb_safe_text("\xff\xc3(\xed\xa0\x80", b, sizeof(b)), "?" "?(???");
	assert_string_equal(wb_safe_text("\xc0\xaf", b, sizeof(b)), "??"); /* overlong '/' */
	assert_string_equal(wb_safe_text("abcdef", b, 4), "abc");                /* truncated, terminated */
	assert_string_equal(wb_safe_text("ab\xc3\xa9", b, 4), "ab");            /* never half a character */
}

/* JSON strings are valid UTF-8 whatever the input holds. */
static void json_utf8(void **st)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)st;
	wb_json_string(f, "a\"\\\x01\xff\xc3\xa9\xed\xa0\x80z");
	fclose(f);
	assert_string_equal(out, "\"a\\\"\\\\\\u0001\\ufffd\xc3\xa9\\ufffd\\ufffd\\ufffdz\"");
	free(out);
}

/* A wall time that is not a number is not converted to time_t (UB). */
static void clock_nan(void **st)
{
	char b[32];

	(void)st;
	assert_string_equal(wb_fmt_clock(0.0 / 0.0, "%H:%M:%S", b, sizeof(b)), "--:--:--");
	assert_string_equal(wb_fmt_clock(1e300, "%H:%M:%S", b, sizeof(b)), "--:--:--");
	assert_int_equal(strlen(wb_fmt_clock(1764530000.0, "%H:%M:%S", b, sizeof(b))), 8);
}

/* Any level a damaged recording holds gives lines from the table, never outside it. */
static void level_hidden_any(void **st)
{
	static const int levels[] = { -2147483647 - 1, -10, -3, -1, 0, 1, 2, 3, 4, 2147483647 };
	const char *h[8];

	(void)st;
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		int n = wb_level_hidden(levels[i], h, 8);
		assert_true(n >= 0 && n <= 4);
		for (int k = 0; k < n; k++)
			assert_non_null(strstr(h[k], "level "));
	}
	assert_int_equal(wb_level_hidden(3, h, 8), 0);
	assert_int_equal(wb_level_hidden(1, h, 8), 2);
	assert_int_equal(wb_level_hidden(-3, h, 8), 4);
}

/* The man page lists exactly the key table's bindings (by their labels). */
static void man_keys(void **st)
{
	const struct ui_binding *b;
	size_t n = ui_bindings(&b), nman = 0;
	char man[1 << 17], labels[64][32];
	FILE *f = fopen(MANPAGE, "r");
	size_t len;
	char *p, *end;
	bool in_table = false;

	(void)st;
	assert_non_null(f);
	len = fread(man, 1, sizeof(man) - 1, f);
	fclose(f);
	man[len] = '\0';
	p = strstr(man, ".SS Keys");
	end = strstr(man, ".SH THEMES");
	assert_non_null(p);
	assert_non_null(end);
	for (char *line = p; line && line < end; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t l = strcspn(line, "\t\n");
		if (strncmp(line, "l l.", 4) == 0) {
			in_table = true;
		} else if (strncmp(line, ".TE", 3) == 0) {
			in_table = false;
		} else if (in_table && line[l] == '\t' && nman < 64) {
			char *s = labels[nman++];
			snprintf(s, 32, "%.*s", (int)l, strncmp(line, "\\&", 2) == 0 ? line + 2 : line);
			if (strncmp(line, "\\&", 2) == 0)
				s[l - 2] = '\0';
		}
	}
	for (size_t i = 0; i < n; i++) { /* every binding is in the man page */
		bool found = false;
		for (size_t k = 0; k < nman; k++)
			found |= strcmp(labels[k], b[i].label) == 0;
		if (!found)
			fail_msg("key \"%s\" (%s) is not in man/wbtop.1", b[i].label, b[i].help);
	}
	for (size_t k = 0; k < nman; k++) { /* and the man page lists no other */
		bool found = false;
		for (size_t i = 0; i < n; i++)
			found |= strcmp(labels[k], b[i].label) == 0;
		if (!found)
			fail_msg("man/wbtop.1 lists key \"%s\", which the key table does not have", labels[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(columns_by_priority),
		cmocka_unit_test(fmt_rounds_first),
		cmocka_unit_test(theme_roles_distinct),
		cmocka_unit_test(colors),
		cmocka_unit_test(shipped_themes_load),
		cmocka_unit_test(bad_theme_named),
		cmocka_unit_test(safe_text),
		cmocka_unit_test(json_utf8),
		cmocka_unit_test(clock_nan),
		cmocka_unit_test(level_hidden_any),
		cmocka_unit_test(man_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
