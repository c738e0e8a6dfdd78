// SPDX-License-Identifier: GPL-2.0-or-later
/* UI pieces that need no terminal: layout geometry and theme files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include <cmocka.h>

#include "wbtop/graph.h"
#include "wbtop/layout.h"
#include "wbtop/util.h"
#include "../../src/ui/ui_internal.h"
#include "wbtop/theme.h"
#include "wbtop/record.h"
#include "wbtop/source.h"

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
	/* a column with a least width takes the room left where its own does not fit (STATE beside
	 * IF-THRESH at 80 columns was one cell short and went); nothing after it fits then */
	{
		int mw[] = { 0, 0, 0, 6 }, got[4];
		assert_int_equal(wb_layout_columns(w, p, 4, 24, shown), 10 + 1 + 5);
		assert_int_equal(wb_layout_columns_min(w, mw, got, 4, p, 24, shown), 10 + 1 + 5 + 1 + 7);
		assert_true(shown[0] && !shown[1] && shown[2] && shown[3]);
		assert_int_equal(got[3], 7);
		assert_int_equal(got[0], 10);
		assert_int_equal(wb_layout_columns_min(w, mw, got, 4, p, 22, shown), 10 + 1 + 5);
		assert_false(shown[3]); /* 5 cells left: under its least */
	}
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

/* printf's figures, the way the formatters made them before they did without printf. */
static double ref_shown(double v, int u)
{
	return u == 0 || v >= 9.95 ? round(v) : round(v * 10) / 10;
}

static void ref_fmt(char *buf, size_t len, double v, bool bytes)
{
	const char *unit = bytes ? "BKMGTPE" : " kMGT", *sign = v < 0 ? "-" : "";
	double step = bytes ? 1024 : 1000;
	int u = 0, top = bytes ? 6 : 4;

	v = bytes ? fabs(v) : v;
	while (u < top && ref_shown(v, u) >= step) {
		v /= step;
		u++;
	}
	if (bytes)
		snprintf(buf, len, u && v < 9.95 ? "%s%.1f%c" : "%s%.0f%c", sign, v, unit[u]);
	else if (u == 0)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, v < 9.95 ? "%.1f%c" : "%.0f%c", v, unit[u]);
}

/* The formatters round as printf does (half to even on the exact binary value), ties and their neighbours too. */
static void fmt_as_printf(void **st)
{
	static const size_t lens[] = { 32, 6, 4, 3, 2, 1 };
	uint64_t x = 0x9E3779B97F4A7C15u;
	(void)st;
	for (int i = 0; i < 400000; i++) {
		double v;
		char got[32], want[32];
		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		switch (i % 4) {
		case 0: v = (double)(x >> (x % 60)); break; /* byte counts of every size */
		case 1: v = ldexp((double)(x >> 11), (int)(x % 70) - 60); break; /* rates: fractions of all sizes */
		case 2: v = ldexp((double)(x % 200000) / 20, 10 * (int)(x % 5)); break; /* ties (x.x5, x.5) in any unit */
		default: v = nextafter(ldexp((double)(x % 200000) / 20, 10 * (int)(x % 5)), (x & 1) ? 0 : 1e30); /* beside them */
		}
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			ref_fmt(want, lens[l], v, true);
			wb_fmt_bytes(got, lens[l], v);
			if (strcmp(got, want) != 0)
				fail_msg("bytes %.17g in %zu: \"%s\", printf \"%s\"", v, lens[l], got, want);
			ref_fmt(want, lens[l], v, false);
			wb_fmt_count(got, lens[l], v);
			if (strcmp(got, want) != 0)
				fail_msg("count %.17g in %zu: \"%s\", printf \"%s\"", v, lens[l], got, want);
		}
	}
}

/* printf's decimal point is LC_NUMERIC's, and the UI runs in the user's locale: the formatters use the same one. */
static void fmt_locale_point(void **st)
{
	static const char *const comma[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "ru_RU.UTF-8" };
	const char *was = setlocale(LC_NUMERIC, NULL);
	char keep[64], got[32], want[32];
	size_t i = 0;

	(void)st;
	snprintf(keep, sizeof(keep), "%s", was ? was : "C");
	char dir[] = "/tmp/wbtop-locale.XXXXXX", cmd[256];
	bool made = false;

	while (i < sizeof(comma) / sizeof(comma[0]) && !setlocale(LC_NUMERIC, comma[i]))
		i++;
	if (i == sizeof(comma) / sizeof(comma[0]) && mkdtemp(dir)) {
		/* none installed (Debian's default): compiled from glibc's sources, where they are */
		snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
		made = true;
		if (system(cmd) == 0 && setenv("LOCPATH", dir, 1) == 0 && setlocale(LC_NUMERIC, "de_DE.UTF-8"))
			i = 0;
	}
	if (made) { /* the loaded locale stays mapped: the files can go */
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			print_message("could not remove %s\n", dir);
		unsetenv("LOCPATH");
	}
	if (i == sizeof(comma) / sizeof(comma[0]))
		skip(); /* no locale with a decimal comma here, and none could be made */
	for (int k = 0; k < 2; k++) {
		snprintf(want, sizeof(want), k ? "%.1fk" : "%.1fK", 1.5); /* "1,5K" */
		if (k)
			wb_fmt_count(got, sizeof(got), 1500);
		else
			wb_fmt_bytes(got, sizeof(got), 1536);
		if (strcmp(got, want) != 0) {
			setlocale(LC_NUMERIC, keep);
			fail_msg("in %s: \"%s\", printf \"%s\"", comma[i], got, want);
		}
	}
	setlocale(LC_NUMERIC, keep);
}

/* ui_pad() is printf's "%s%-*.*s%*s" (left) and "%s%*.*s%*s" (right), but never cuts a character in two. */
static void pad_as_printf(void **st)
{
	static const char *const v[] = { "", "7", "7:0", "1.5M", "over-limit", "/mnt/a long path" };
	char got[64], want[64];
	(void)st;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (int w = 0; w < 20; w++)
			for (int t = 0; t < 3; t++)
				for (size_t n = 1; n <= sizeof(got); n += 7) {
					snprintf(want, n, "%s%-*.*s%*s", " ", w, w, v[i], t, "");
					assert_int_equal(ui_pad(got, n, " ", v[i], w, t), strlen(want));
					assert_string_equal(got, want);
					snprintf(want, n, "%*.*s%*s", w, w, v[i], t, "");
					ui_pad(got, n, "", v[i], -w, t);
					assert_string_equal(got, want);
				}
	/* "sdä" is 4 bytes: a cut at 3 would leave half of the ä */
	ui_pad(got, sizeof(got), "", "sd\xc3\xa4", 3, 0);
	assert_string_equal(got, "sd ");
	ui_pad(got, sizeof(got), "", "sd\xc3\xa4", -3, 0);
	assert_string_equal(got, " sd");
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
	assert_non_null(strstr(err, "there are: default, high-contrast, light, mono")); /* the shipped ones too */
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
	/* two bad lines: the first one's number with its own text (inih goes on after an error) */
	assert_int_not_equal(wb_theme_parse(&t, "[roles]\ndirty = red, red, blink\nsparkle = red, blue\n", "two",
					    err, sizeof(err)), 0);
	if (!strstr(err, "two:2: dirty: expected"))
		fail_msg("two bad lines: %s", err);
	/* a line that is not INI, then a bad role: the first line's number with its own text */
	assert_int_not_equal(wb_theme_parse(&t, "[roles]\nfoo\ndirty = plaid, default\n", "syntax", err,
					    sizeof(err)), 0);
	if (!strstr(err, "syntax:2: not INI syntax"))
		fail_msg("not INI, then a bad role: %s", err);
	/* a fourth field, an empty one, or one past the value buffer: refused, not dropped */
	for (int i = 0; i < 3; i++) {
		static const char *const four[] = {
			"[roles]\nnormal = default, default\ndirty = red, blue, bold, blink\n",
			"[roles]\nnormal = default, default\ndirty = red,, blue\n",
			"[roles]\nnormal = default, default\ndirty = red, blue, bold"
			"                                                                      "
			"                                                                   , blink\n",
		};
		assert_int_not_equal(wb_theme_parse(&t, four[i], "four", err, sizeof(err)), 0);
		if (!strstr(err, "four:3: dirty: expected"))
			fail_msg("bad fields %d: %s", i, err);
	}
	/* attributes are names joined with +: an empty one, or two joined with a blank, was taken */
	for (int i = 0; i < 3; i++) {
		static const char *const attrs[] = { "bold+", "+", "bold reverse" };
		char text[96];
		snprintf(text, sizeof(text), "[roles]\nnormal = default, default\ndirty = red, blue, %s\n", attrs[i]);
		assert_int_not_equal(wb_theme_parse(&t, text, "attrs", err, sizeof(err)), 0);
		if (!strstr(err, "attrs:3: dirty: expected"))
			fail_msg("attributes \"%s\": %s", attrs[i], err);
	}
	assert_int_equal(wb_theme_parse(&t, "[roles]\ndirty = red, blue, bold + underline\n", "ok", err, sizeof(err)), 0);
	/* an indented line is a line of its own: inih took it as more of the value above ("role normal set again") */
	if (wb_theme_parse(&t, "  [theme]\n\tname = ind\n[roles]\nnormal = red, blue\n  header = white, green, bold\n"
			   "\t  ; a comment\n \tdirty = 214|yellow, default\n", "indented", err, sizeof(err)))
		fail_msg("indented lines: %s", err);
	assert_string_equal(t.name, "ind");
	assert_int_equal(t.role[WB_R_NORMAL].fg, 1);
	assert_int_equal(t.role[WB_R_HEADER].fg, 7);
	assert_int_equal(t.role[WB_R_HEADER].bg, 2);
	assert_int_equal(t.role[WB_R_DIRTY].fg, 214);
	/* mono is true or false: anything else was false, said nothing */
	assert_int_not_equal(wb_theme_parse(&t, "[theme]\nmono = maybe\n", "mono", err, sizeof(err)), 0);
	if (!strstr(err, "mono:2: mono = maybe: expected true or false"))
		fail_msg("mono = maybe: %s", err);
	/* a role (or a [theme] key) set twice: the last one was taken, without a word */
	assert_int_not_equal(wb_theme_parse(&t, "[roles]\ndirty = red, default\nwarn = black, yellow\n"
					    "dirty = blue, default\n", "dup", err, sizeof(err)), 0);
	if (!strstr(err, "dup:4: role \"dirty\" set again (first on line 2): a role is set once"))
		fail_msg("a role twice: %s", err);
	assert_int_not_equal(wb_theme_parse(&t, "[theme]\nname = a\n[roles]\ndirty = red, default\n[theme]\n"
					    "name = b\n", "dupname", err, sizeof(err)), 0);
	if (!strstr(err, "dupname:6: [theme] key \"name\" set again (first on line 2)"))
		fail_msg("name twice: %s", err);
	unlink(path);
}

/*
 * A line longer than inih's buffer (197 characters and \r\n, as usually
 * built): named by its own number, not the next one (inih counted its
 * pieces as lines); the lines after one that fits keep their numbers.
 */
static void long_theme_line(void **st)
{
	char text[1024], err[256], x[400];
	struct wb_theme t;

	(void)st;
	memset(x, 'x', sizeof(x));
	snprintf(text, sizeof(text), "[roles]\n# %.300s\nnormal = red, blue\n", x);
	assert_int_not_equal(wb_theme_parse(&t, text, "long", err, sizeof(err)), 0);
	if (!strstr(err, "long:2: line longer than"))
		fail_msg("a 302-character comment: %s", err);
	snprintf(text, sizeof(text), "[roles]\n# %.197s\ndirty = plaid, default\n", x); /* 199: '\n' left over */
	assert_int_not_equal(wb_theme_parse(&t, text, "long", err, sizeof(err)), 0);
	if (!strstr(err, "long:2: line longer than"))
		fail_msg("a 199-character comment: %s", err);
	snprintf(text, sizeof(text), "[roles]\n# %.195s\r\ndirty = plaid, default\n", x); /* 197: fits */
	assert_int_not_equal(wb_theme_parse(&t, text, "long", err, sizeof(err)), 0);
	if (!strstr(err, "long:3: dirty: expected"))
		fail_msg("after a 197-character comment: %s", err);
}

/* Terminal injection: escapes, C1 controls, bidi controls and invalid UTF-8 become '?'; UTF-8 text stays. */
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
	/* what reorders or breaks the text around it: U+202E (right-to-left override), U+2028, U+2067 */
	assert_string_equal(wb_safe_text("\xe2\x80\xae" "abc\xe2\x80\xa8" "d\xe2\x81\xa7", b, sizeof(b)), "?abc?d?");
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
	/* U+2028 and U+202E are JSON, but break a reader's lines or turn the text round: escaped, as the man page says */
	f = open_memstream(&out, &len);
	wb_json_string(f, "/mnt/a\xe2\x80\xa8" "b\xe2\x80\xae" "txt\xc2\x85\xd8\x9c\xc3\xa9");
	fclose(f);
	assert_string_equal(out, "\"/mnt/a\\u2028b\\u202etxt\\u0085\\u061c\xc3\xa9\"");
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
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		for (int why = -2; why < WB_WHY_COUNT + 3; why++) {
			int n = wb_level_hidden(levels[i], why, false, h, 8);
			assert_true(n >= 0 && n <= 4);
			for (int k = 0; k < n; k++)
				assert_non_null(strstr(h[k], "level "));
		}
	assert_int_equal(wb_level_hidden(3, WB_WHY_KERNEL, false, h, 8), 0);
	assert_int_equal(wb_level_hidden(1, WB_WHY_KERNEL, false, h, 8), 2);
	assert_int_equal(wb_level_hidden(-3, WB_WHY_KERNEL, false, h, 8), 4);
	/* the advice fits the reason: run as root only where that would help */
	assert_int_equal(wb_level_hidden(2, WB_WHY_KERNEL, false, h, 8), 1);
	assert_non_null(strstr(h[0], "run as root"));
	assert_int_equal(wb_level_hidden(2, WB_WHY_NO_TRACE, false, h, 8), 1);
	assert_non_null(strstr(h[0], "--no-trace"));
	assert_int_equal(wb_level_hidden(2, WB_WHY_FIXTURE, false, h, 8), 1);
	assert_non_null(strstr(h[0], "fixture"));
	assert_int_equal(wb_level_hidden(1, WB_WHY_NO_TRACE, false, h, 8), 2);
	assert_non_null(strstr(h[0], "run as root")); /* level 2 is not the option's doing */
	assert_int_equal(wb_level_hidden(1, WB_WHY_RECORDING, false, h, 8), 2);
	assert_non_null(strstr(h[0], "not in the recording"));
	assert_null(strstr(h[1], "run as root"));
	/* tracefs without debugfs: events at level 1, so only level 2 is hidden */
	assert_int_equal(wb_level_hidden(1, WB_WHY_KERNEL, true, h, 8), 1);
	assert_non_null(strstr(h[0], "level 2"));
}

/*
 * Live below level 2, the hint names what is missing as the collector found it: debugfs
 * mounted but root's says root and not --mount-debugfs (which changes nothing there); as
 * root with debugfs not mounted, the option and not root; a cause not known, both.
 */
static void level_why_live(void **st)
{
	static const struct {
		bool trace, root;
		int level, err, why;
		const char *l2, *not_l2, *l3;
	} c[] = {
		{ true, false, 1, EACCES, WB_WHY_NEED_ROOT, "run as root", "--mount-debugfs", "run as root" },
		{ true, true, 1, ENOENT, WB_WHY_NEED_MOUNT, "--mount-debugfs", "root", "--mount-debugfs" },
		{ true, false, 1, ENOENT, WB_WHY_KERNEL, "run as root with --mount-debugfs", NULL, "run as root" },
		{ true, true, 1, EPERM, WB_WHY_KERNEL, "run as root with --mount-debugfs", NULL, "run as root" },
		{ true, false, 0, 0, WB_WHY_KERNEL, "run as root with --mount-debugfs", NULL, "run as root" },
		{ false, false, 1, EACCES, WB_WHY_NEED_ROOT_NO_TRACE, "run as root", "--mount-debugfs", "--no-trace" },
		{ false, true, 1, ENOENT, WB_WHY_NEED_MOUNT_NO_TRACE, "--mount-debugfs", "root", "--no-trace" },
		{ false, false, 1, ENOENT, WB_WHY_NO_TRACE, "run as root with --mount-debugfs", NULL, "--no-trace" },
		/* level 2 reached: the folder's old errno says nothing of level 3 */
		{ true, true, 2, ENOENT, WB_WHY_KERNEL, NULL, NULL, "tracefs" },
		{ false, true, 2, ENOENT, WB_WHY_NO_TRACE, NULL, NULL, "--no-trace" },
	};
	const char *h[8];

	(void)st;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int why = wb_level_why_live(c[i].trace, c[i].level, c[i].err, c[i].root);
		int n = wb_level_hidden(c[i].level, why, false, h, 8);

		assert_int_equal(why, c[i].why);
		assert_int_equal(n, 3 - c[i].level);
		if (c[i].l2) {
			assert_non_null(strstr(h[n - 2], "level 2"));
			assert_non_null(strstr(h[n - 2], c[i].l2));
		}
		if (c[i].not_l2 && strstr(h[n - 2], c[i].not_l2))
			fail_msg("case %zu: \"%s\" says %s", i, h[n - 2], c[i].not_l2);
		assert_non_null(strstr(h[n - 1], "level 3"));
		assert_non_null(strstr(h[n - 1], c[i].l3));
	}
}

/*
 * Table titles: the sorted column's mark after its title, a blank between
 * ("WRITE/s v", "COMM ^"; glued, "WRITE/sv" read as a title, and WRITEBK's
 * mark fell outside its 7 cells), for every Processes and Devices column
 * either way; the values keep their width.
 */
static void titles_marked(void **st)
{
	const struct wb_field *all[40];
	char plain[512], marked[512], cell[64], want[64];
	(void)st;

	for (int t = 0; t < 2; t++) {
		size_t m = wb_config_columns(t ? WB_TABLE_DEVICES : WB_TABLE_PROCS, all, 40);
		assert_true(m >= 3);
		for (size_t k = 0; k < m; k++)
			for (int desc = 0; desc < 2; desc++) {
				const struct wb_field *f = all[k];
				int w = ui_column_width(f, true);
				const char *at;
				ui_title_cell(f, w, ui_sort_mark(desc), cell, sizeof(cell));
				snprintf(want, sizeof(want), "%s %s", f->title, ui_sort_mark(desc));
				assert_int_equal(strlen(cell), (size_t)w);
				assert_true(w - ui_mark_pad(f, true) >= f->width);
				at = strstr(cell, want);
				if (!at || (f->left ? at != cell : at + strlen(want) != cell + w))
					fail_msg("%s sorted: \"%s\", not \"%s\" at its edge", f->title, cell, want);
				if (t)
					continue;
				ui_table_line(all, m, NULL, f, plain, sizeof(plain)); /* as wide as the values */
				ui_table_titles(all, m, f, desc, marked, sizeof(marked));
				assert_int_equal(strlen(marked), strlen(plain));
				assert_non_null(strstr(marked, want));
			}
	}
	ui_table_line(all, 3, NULL, NULL, plain, sizeof(plain));
	ui_table_titles(all, 3, NULL, true, marked, sizeof(marked));
	assert_string_equal(marked, plain);
}

/*
 * A Processes row whose COMM is not ASCII ("\u6570\u636e\u540c\u6b65", 12
 * bytes in 8 columns) keeps the columns after it under their titles: padded
 * in bytes, its WRITE/s stood 4 columns left of the ASCII row's.
 */
static void procs_row_wide_comm(void **st)
{
	struct wb_sample s = { 0 };
	struct wb_proc p[2] = { { .pid = 101, .comm = "abcdefgh" }, { .pid = 102, .comm = "\u6570\u636e\u540c\u6b65" } };
	struct wb_proc_derived d[2] = { { true, 4096, 0 }, { true, 4096, 0 } };
	struct wb_view v = { .cur = &s, .proc = d };
	const struct wb_field *col[8];
	char line[2][256], was[64];
	int cols[2];
	size_t m;

	(void)st;
	snprintf(was, sizeof(was), "%s", setlocale(LC_CTYPE, NULL));
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		skip();
	s.procs = p;
	s.nprocs = 2;
	m = wb_config_columns(WB_TABLE_PROCS, col, 8);
	for (size_t i = 0; i < 2; i++) {
		struct wb_fctx c = { .v = &v, .s = &s, .i = i };
		ui_table_line(col, m, &c, NULL, line[i], sizeof(line[i]));
	}
	cols[0] = wb_text_cols(line[0]);
	cols[1] = wb_text_cols(line[1]);
	setlocale(LC_CTYPE, was);
	assert_int_equal(cols[1], cols[0]);
	/* COMM at the same column in both, and the same text after its 16 columns */
	for (size_t i = 0; i < 2; i++)
		assert_non_null(strstr(line[i], p[i].comm));
	assert_int_equal(strstr(line[0], p[0].comm) - line[0], strstr(line[1], p[1].comm) - line[1]);
	assert_string_equal(strstr(line[0], p[0].comm) + 16, strstr(line[1], p[1].comm) + 16 + 4);
}

/* A text cut to its column ends in the marker (htop's way), counted in characters, whole ones kept. */
static void cut_marked(void **st)
{
	static const struct {
		const char *in;
		int w;
		bool utf8;
		const char *out;
		int extra; /* bytes beyond the columns */
	} cases[] = {
		{ "btrfs-3:loop0", 12, true, "btrfs-3:loo\u2026", 2 },
		{ "btrfs-3:loop0", 12, false, "btrfs-3:loo~", 0 },
		{ "btrfs-3:loop0", 13, true, "btrfs-3:loop0", 0 }, /* fits: as it was */
		{ "loop0", 12, true, "loop0", 0 },
		{ "d\u00e9j\u00e0-vu", 5, true, "d\u00e9j\u00e0\u2026", 4 }, /* whole characters, not bytes */
		{ "d\u00e9j\u00e0-vu", 7, true, "d\u00e9j\u00e0-vu", 2 },
		{ "abc", 1, false, "~", 0 },
	};
	static const struct {
		const char *in;
		int w;
		const char *out;
		int extra;
	} wide[] = {
		{ "\u6570\u636e", 4, "\u6570\u636e", 2 },                   /* fits: 6 bytes, 4 columns */
		{ "\u6570\u636e\u5907", 5, "\u6570\u636e\u2026", 4 },      /* 4 columns kept and the marker */
		{ "ab\u6570\u636e", 4, "ab\u2026", 2 },                      /* 数 would take the marker's column */
		{ "e\u0301t\u00e9-\u00e9t\u00e9", 5, "e\u0301t\u00e9-\u2026", 5 }, /* the mark stays with its e */
	};
	char buf[64], was[64];

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int extra;
		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		extra = ui_cut(buf, sizeof(buf), cases[i].w, cases[i].utf8);
		if (strcmp(buf, cases[i].out) || extra != cases[i].extra)
			fail_msg("\"%s\" in %d: \"%s\" (+%d), expected \"%s\" (+%d)", cases[i].in, cases[i].w, buf,
				 extra, cases[i].out, cases[i].extra);
	}
	snprintf(buf, 6, "abcde"); /* no room for the 3 bytes of "…": the ASCII marker */
	assert_int_equal(ui_cut(buf, 6, 4, true), 0);
	assert_string_equal(buf, "abc~");
	/* counted in columns: a CJK character takes two, a combining mark none */
	snprintf(was, sizeof(was), "%s", setlocale(LC_CTYPE, NULL));
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		return;
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++) {
		int extra;
		snprintf(buf, sizeof(buf), "%s", wide[i].in);
		extra = ui_cut(buf, sizeof(buf), wide[i].w, true);
		if (strcmp(buf, wide[i].out) || extra != wide[i].extra)
			fail_msg("\"%s\" in %d: \"%s\" (+%d), expected \"%s\" (+%d)", wide[i].in, wide[i].w, buf, extra,
				 wide[i].out, wide[i].extra);
	}
	setlocale(LC_CTYPE, was);
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


/* ---- the key walk: every binding of the key table, on every pane, live and replay ---- */

struct rig {
	struct ui u;
	struct wb_ui_opts o;
	struct wb_source src;
	struct wb_rec_reader *r;
	struct wb_replay *p;
	const char *dirs[2];
	char cfg[128];
};

/* Read n samples through the UI's path (ui_push), as its loop does. */
static void feed(struct rig *g, int n)
{
	struct wb_sample s;

	for (int k = 0; k < n; k++) {
		wb_sample_init(&s);
		if (g->src.read(g->src.ctx, &s) == 0)
			assert_int_equal(ui_push(&g->u, &s), 0);
		wb_sample_finish(&s);
	}
	ui_build_rows(&g->u);
}

/* A UI over recording path, with the what-if of sets (may be NULL); live: the same samples through a
 * source that cannot seek. */
static void rig_open_at(struct rig *g, bool replay, const char *dir, const char *path, const char *const *sets)
{
	char err[256], warn[256];
	struct wb_pipeline_opts po = { .window = 600, .timeline = 4096, .sets = sets };

	while (sets && sets[po.nsets])
		po.nsets++;
	memset(g, 0, sizeof(*g));
	g->r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	assert_non_null(g->r);
	g->p = wb_replay_create(g->r, 0, 0);
	assert_non_null(g->p);
	wb_replay_source(g->p, &g->src);
	if (!replay)
		g->src = (struct wb_source){ .ctx = g->src.ctx, .read = g->src.read };
	g->dirs[0] = THEMES;
	snprintf(g->cfg, sizeof(g->cfg), "%s/wbtoprc", dir);
	g->o = (struct wb_ui_opts){ .delay = 1, .theme_dirs = g->dirs, .warn_pct = 75, .crit_pct = 95,
				    .cfg_path = g->cfg, .origin = "testhost 6.18.0" };
	g->u = (struct ui){ .o = &g->o, .src = &g->src, .speed = 1, .delay = 1, .tab_y = -1 };
	g->u.pl = wb_pipeline_create(&po);
	g->u.ring = wb_pipeline_history(g->u.pl);
	assert_int_equal(wb_theme_load(&g->u.theme, "default", g->dirs, err, sizeof(err)), 0);
	g->u.nthemes = wb_theme_list(g->dirs, g->u.themes, 16);
	feed(g, 40);
}

/* A UI over a shipped recording; live: the same samples through a source that cannot seek. */
static void rig_open(struct rig *g, bool replay, const char *dir)
{
	rig_open_at(g, replay, dir, EXAMPLES "/usb-stick.wbrec", NULL);
}

/*
 * The sources the key table knows (ui_key_mode): this machine's kernel as root (the rig
 * only draws it: its Tune pane could write), a --root tree (the rig's live default), a
 * replay, and this machine's kernel without root (sampled live, nothing written).
 */
enum { SRC_KERNEL, SRC_TREE, SRC_REPLAY, SRC_USER, SRC_COUNT };
static const char *const src_names[SRC_COUNT] = { "live", "--root", "replay", "live, not root" };

static void rig_open_src(struct rig *g, int src, const char *dir)
{
	rig_open(g, src == SRC_REPLAY, dir);
	g->o.apply = src == SRC_KERNEL ? WB_UI_APPLY_LIVE : src == SRC_USER ? WB_UI_APPLY_NOT_ROOT : WB_UI_APPLY_NONE;
}

static void rig_close(struct rig *g)
{
	ui_tune_finish(&g->u);
	ui_graph_finish(&g->u);
	free(g->u.rows);
	free(g->u.proc_idx);
	wb_pipeline_destroy(g->u.pl);
	wb_replay_destroy(g->p);
	wb_rec_close_reader(g->r);
}

/* The state a key may claim to change. */
struct snap {
	int pane, sel, sort_col, proc_sort_col, theme_idx, zoom, glyphs, tune_sel, log_scroll, zone_sel, proc_sel;
	bool choosing;
	uint32_t hidden[WB_TABLE_COUNT];
	bool sort_desc, proc_sort_desc, filtering, idle, loop, frozen, help, jumping, quit, pinned, editing;
	char filter[64], proc_filter[64], tune_buf[64];
	double delay, speed, t;
	size_t i;
};

static struct snap snap_of(const struct rig *g)
{
	const struct ui *u = &g->u;
	struct snap s = { u->pane, u->sel, u->sort_col, u->proc_sort_col, u->theme_idx, u->graph_zoom,
			  u->graph_glyphs, u->tune_sel, u->log_scroll, u->zone_sel, u->proc_sel, u->choosing,
			  { u->hidden[0], u->hidden[1], u->hidden[2] }, u->sort_desc, u->proc_sort_desc,
			  u->filtering, u->hide_idle, u->hide_loop, u->frozen, u->help, u->jumping, u->quit,
			  u->graph_pinned, u->tune_editing, "", "", "", u->delay, u->speed, 0, 0 };
	double len;
	size_t n;

	memcpy(s.filter, u->filter, sizeof(s.filter));
	memcpy(s.proc_filter, u->proc_filter, sizeof(s.proc_filter));
	memcpy(s.tune_buf, u->tune_buf, sizeof(s.tune_buf));
	if (g->src.replay)
		g->src.where(g->src.ctx, &s.t, &len, &s.i, &n);
	return s;
}

/* Back to a known state before a key: the middle of the recording, pane p, row 1, nothing typed. */
static void rig_reset(struct rig *g, enum pane p)
{
	struct ui *u = &g->u;
	double t, len;
	size_t i, n;

	if (g->src.replay) {
		g->src.where(g->src.ctx, &t, &len, &i, &n);
		if (fabs(t - len / 2) > 1) {
			g->src.seek(g->src.ctx, len / 2);
			ui_resync(u);
			feed(g, 1);
		}
	}
	if ((u->pane == P_GRAPH) != (p == P_GRAPH))
		ui_graph_shown(u, p == P_GRAPH);
	u->pane = p;
	u->sel = u->tune_sel = u->zone_sel = u->proc_sel = 1;
	u->choosing = false;
	u->help = u->jumping = u->filtering = u->quit = u->frozen = u->tune_editing = u->tune_confirm = false;
	u->filter[0] = u->proc_filter[0] = u->status[0] = u->tune_buf[0] = '\0';
	u->hide_idle = u->hide_loop = false;
	u->speed = 1;
	u->delay = 1;
	ui_build_rows(u);
}

/* What each key's help says it does, checked on the state (a, b: before, after). */
static void expect(const struct rig *g, int ch, const struct snap *a, const struct snap *b, const char *st)
{
	bool replay = g->src.replay, graph = a->pane == P_GRAPH, lists = a->pane == P_DEVICES || a->pane == P_PROCS;
	bool procs = a->pane == P_PROCS, tune = a->pane == P_TUNE;
	char what[64];

	snprintf(what, sizeof(what), "key %d on pane %d (%s)", ch, a->pane, replay ? "replay" : "live");
	switch (ch) {
	case 'q': case 'Q': case KEY_F(10): if (!b->quit) fail_msg("%s: no quit", what); break;
	case 'h': case '?': case KEY_F(1): if (!b->help) fail_msg("%s: no help", what); break;
	case '\t': if (!tune && b->pane != (a->pane + 1) % P_COUNT) fail_msg("%s: pane", what); break;
	case '1': case '2': case '3': case '4': case '5': case '6':
		if (!(tune && b->editing) && b->pane != ch - '1')
			fail_msg("%s: pane", what);
		break;
	case 's':
		if (lists && (procs ? b->proc_sort_col == a->proc_sort_col : b->sort_col == a->sort_col))
			fail_msg("%s: sort column", what);
		break;
	case 'S':
		if (lists && (procs ? b->proc_sort_desc == a->proc_sort_desc : b->sort_desc == a->sort_desc))
			fail_msg("%s: sort order", what);
		break;
	case '/': if ((lists || graph || a->pane == P_FLUSHER) && !b->filtering) fail_msg("%s: filter", what); break;
	case 27: /* the Zones pane has none: the Devices pane's stays */
		if (a->pane == P_ZONES ? strcmp(b->filter, a->filter) != 0 : procs ? b->proc_filter[0] != 0 : b->filter[0] != 0)
			fail_msg("%s: Esc %s the filter", what, a->pane == P_ZONES ? "changed" : "left");
		break;
	case 'i': case 'l': /* the Devices rows': Zones and Processes have none, and say so */
		if (a->pane == P_ZONES || procs ? (b->idle != a->idle || b->loop != a->loop || !strstr(st, " pane has "))
						: ch == 'i' ? b->idle == a->idle : b->loop == a->loop)
			fail_msg("%s: %s said \"%s\"", what, ch == 'i' ? "idle" : "loop", st);
		break;
	case ' ': if (b->frozen == a->frozen) fail_msg("%s: freeze", what); break;
	case 't': if (g->u.nthemes > 1 && b->theme_idx == a->theme_idx) fail_msg("%s: theme", what); break;
	case 'W': if (!strstr(st, g->cfg)) fail_msg("%s: W said \"%s\"", what, st); break;
	case 'e': if (a->pane == P_DEVICES && b->pane != P_TUNE) fail_msg("%s: edit", what); break;
	case 'c': case KEY_F(2): /* the chooser on a pane with a table */
		if (!tune && b->choosing != (ui_pane_table(a->pane) >= 0))
			fail_msg("%s: column chooser", what);
		break;
	case 'b': if (b->glyphs == a->glyphs) fail_msg("%s: glyphs", what); break;
	case '<': case '>': /* the zoom at an end stays, and says so */
		if (graph ? b->zoom == a->zoom && !strstr(st, "already the") : b->speed == a->speed)
			fail_msg("%s: zoom/speed", what);
		break;
	case '+': case '=': case '-':
		if (tune)
			break;
		if (replay ? (ch == '-' ? b->speed >= a->speed : b->speed <= a->speed)
			   : (ch == '-' ? b->delay <= a->delay : b->delay >= a->delay))
			fail_msg("%s: + is faster, - slower", what);
		break;
	case '.': if (b->i != a->i + 1 || !b->frozen) fail_msg("%s: step forward %zu -> %zu", what, a->i, b->i); break;
	case ',': if (b->i + 1 != a->i || !b->frozen) fail_msg("%s: step back %zu -> %zu", what, a->i, b->i); break;
	case KEY_LEFT: case KEY_RIGHT:
		if (fabs(fabs(b->t - a->t) - 10) > 2) fail_msg("%s: seek 10 s: %g -> %g", what, a->t, b->t);
		break;
	case KEY_HOME: case KEY_END:
		if (replay ? (ch == KEY_HOME ? b->t > 1 : b->t < a->t)
			   : (lists && (procs ? b->proc_sel == a->proc_sel : b->sel == a->sel) && !tune &&
			      !strstr(st, " row"))) /* or, already there, it says so */
			fail_msg("%s: Home/End", what);
		break;
	case 'n': case 'N':
		if (strncmp(st, "throttling on ", 14) && strncmp(st, "note: ", 6) && strncmp(st, "no ", 3))
			fail_msg("%s: n said \"%s\"", what, st);
		if (!strncmp(st, "throttling on ", 14) && (ch == 'n' ? b->t <= a->t : b->t >= a->t))
			fail_msg("%s: n/N went the wrong way", what);
		break;
	case 'g': if (!b->jumping) fail_msg("%s: g", what); break;
	}
}

static void walk_mode(bool replay, const char *dir)
{
	const struct ui_binding *bind;
	size_t nb = ui_bindings(&bind);
	struct rig g;

	rig_open(&g, replay, dir);
	assert_true(g.u.nrows >= 3);
	for (int p = 0; p < P_COUNT; p++)
		for (size_t k = 0; k < nb; k++) {
			if (!(bind[k].when & (replay ? UI_K_REPLAY : UI_K_LIVE)) ||
			    !ui_binding_here(&bind[k], (enum pane)p))
				continue;
			for (int j = 0; j < UI_KEYS_MAX && bind[k].keys[j]; j++) {
				int ch = bind[k].keys[j];
				struct snap a, b;
				if (ch == KEY_MOUSE) /* no terminal: ui_mouse is driven below */
					continue;
				rig_reset(&g, (enum pane)p);
				if (ch == 27) /* Esc clears the filter the pane has */
					strcpy(p == P_PROCS ? g.u.proc_filter : g.u.filter, "zz");
				a = snap_of(&g);
				ui_handle_key(&g.u, ch);
				ui_build_rows(&g.u);
				b = snap_of(&g);
				/* no key silently does nothing: it changes state or says why not */
				if (memcmp(&a, &b, sizeof(a)) == 0 && !g.u.status[0] && ch != '1' + p)
					fail_msg("key \"%s\" (%s, code %d) did nothing on pane %d (%s)", bind[k].label,
						 bind[k].help, ch, p, replay ? "replay" : "live");
				expect(&g, ch, &a, &b, g.u.status);
			}
		}
	rig_close(&g);
}

static void key_walk(void **st)
{
	char dir[] = "/tmp/wbtop-keys-XXXXXX", cmd[64];

	(void)st;
	assert_non_null(mkdtemp(dir));
	walk_mode(false, dir);
	walk_mode(true, dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* bind lists ch as a key of the pane: Tune's by their help ("Tune: ..."), the others' by their when flag. */
static bool pane_lists(const struct ui_binding *bind, int ch, enum pane p)
{
	for (int j = 0; j < UI_KEYS_MAX && bind->keys[j]; j++)
		if (bind->keys[j] == ch)
			return p == P_TUNE ? strncmp(bind->help, "Tune: ", 6) == 0 : (bind->when & UI_K_GRAPH) != 0;
	return false;
}

/* Every key pane p's handler take() takes is one of its bindings in the key table. */
static void keys_in_table(enum pane p, bool (*take)(struct ui *, int), const char *name)
{
	const struct ui_binding *bind;
	size_t nb = ui_bindings(&bind);
	char dir[] = "/tmp/wbtop-pkeys-XXXXXX", cmd[64];
	struct rig g;

	assert_non_null(mkdtemp(dir));
	rig_open(&g, false, dir);
	for (int ch = 1; ch < KEY_MAX; ch++) {
		bool listed = false;
		if (ch == KEY_MOUSE || ch == KEY_RESIZE)
			continue;
		rig_reset(&g, p);
		g.u.tune_ok = false;
		if (!take(&g.u, ch))
			continue;
		for (size_t k = 0; k < nb && !listed; k++)
			listed = pane_lists(&bind[k], ch, p);
		if (!listed)
			fail_msg("the %s pane takes key %d ('%c'), which no %s binding of the key table lists", name, ch,
				 ch > 32 && ch < 127 ? ch : '?', name);
	}
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * Every key the Tune pane takes is in the key table as one of Tune's (help "Tune: ..."),
 * so the help screen, the footer and the man page name it (r, a, k, u and R were in none).
 */
static void tune_keys_in_table(void **st)
{
	(void)st;
	keys_in_table(P_TUNE, ui_tune_key, "Tune");
}

/* Every key the Graph pane takes is a Graph binding of the key table (so help and man name it; b and F were in none). */
static void graph_keys_in_table(void **st)
{
	(void)st;
	keys_in_table(P_GRAPH, ui_graph_key, "Graph");
}

/*
 * The footer at 80x24 shows the Graph's and the Tune pane's own keys, live, on a --root tree
 * and in a replay: every Graph binding (b and F were in none) and every Tune binding with a
 * footer word for that source (a replay's keys took the room first: <>Zoom was cut at 80 columns).
 */
static void pane_keys_in_footer(void **st)
{
	static const enum pane panes[] = { P_GRAPH, P_TUNE };
	const struct ui_binding *bind;
	size_t nb = ui_bindings(&bind);
	char dir[] = "/tmp/wbtop-foot-XXXXXX", cmd[64], foot[256], word[32];
	struct wb_grid grid;

	(void)st;
	assert_non_null(mkdtemp(dir));
	wb_grid_init(&grid);
	assert_int_equal(wb_grid_resize(&grid, 80, 24), 0);
	for (int src = 0; src < SRC_COUNT; src++) {
		struct rig g;
		rig_open_src(&g, src, dir);
		g.u.grid = &grid;
		for (size_t p = 0; p < sizeof(panes) / sizeof(panes[0]); p++) {
			rig_reset(&g, panes[p]);
			ui_render(&g.u);
			wb_grid_line(&grid, 23, foot, sizeof(foot));
			for (size_t k = 0; k < nb; k++) {
				const struct ui_binding *b = &bind[k];
				if (!(b->when & UI_K_PANE) || !ui_binding_here(b, panes[p]) || !(b->when & ui_key_mode(&g.u)))
					continue;
				if (!b->foot && panes[p] == P_GRAPH)
					fail_msg("Graph key \"%s\" (%s) has no footer word", b->label, b->help);
				snprintf(word, sizeof(word), "%s%s", b->foot_key ? b->foot_key : "", b->foot ? b->foot : "");
				if (b->foot && !strstr(foot, word))
					fail_msg("pane %d (%s) at 80x24: \"%s\" is not in the footer \"%s\"", panes[p],
						 src_names[src], word, foot);
			}
		}
		g.u.grid = NULL;
		rig_close(&g);
	}
	wb_grid_finish(&grid);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * A footer entry for two actions ("f / F" in the key table, not "q, F10") names both keys
 * in the footer, as f/F does: s/S, n/N, a/k and u/R named only their first.
 */
static void footer_names_pairs(void **st)
{
	const struct ui_binding *b;
	size_t nb = ui_bindings(&b);

	(void)st;
	for (size_t k = 0; k < nb; k++) {
		const char *l = b[k].label;
		if (!b[k].foot || strlen(l) != 5 || strncmp(l + 1, " / ", 3) != 0)
			continue;
		if (!strchr(b[k].foot_key, l[0]) || !strchr(b[k].foot_key, l[4]))
			fail_msg("\"%s\" (%s): the footer shows \"%s%s\"", l, b[k].help, b[k].foot_key, b[k].foot);
	}
}

/* The catalogue's row titled title (the BDI table), or NULL. */
static const struct wb_field *bdi_field(const char *title)
{
	size_t n;
	const struct wb_field *t = wb_catalog_bdi(&n);

	for (size_t k = 0; k < n; k++)
		if (t[k].title && strcmp(t[k].title, title) == 0)
			return &t[k];
	return NULL;
}

/*
 * The Flusher pane's FLUSHER fits its 7 cells whatever is under writeback:
 * "io " and 4 characters. wb_fmt_bytes() shows 1000K-1023K (and M, G) in
 * 5, and "io 1000K" was cut to "io 100\u2026", a figure it is not.
 */
static void flusher_io_fits(void **st)
{
	const struct wb_field *f = bdi_field("FL-STATE");
	static const uint64_t pages[] = { 1, 250, 255, 2500, 256000, 261888, 262143, 262144, 67108864 };
	static const char *const want[] = { "io 4.0K", "io 1.0M", "io 1.0M", "io 9.8M", "io 1.0G",
					     "io 1.0G", "io 1.0G", "io 1.0G", "io 256G" };
	struct wb_sample s = { .page_size = 4096 };
	struct wb_bdi b = { .st_valid = WB_BIT(WB_B_STATE) | WB_BIT(WB_B_WRITEBACK) | WB_BIT(WB_B_RECLAIMABLE) };
	struct wb_fctx c = { .s = &s, .b = &b };

	(void)st;
	assert_non_null(f);
	for (size_t k = 0; k < sizeof(pages) / sizeof(pages[0]); k++) {
		struct wb_value v;

		b.st[WB_B_WRITEBACK] = pages[k];
		v = f->get(&c);
		assert_true(v.known);
		if (strlen(wb_value_text(&v)) > 7 || strcmp(wb_value_text(&v), want[k]) != 0)
			fail_msg("%llu pages under writeback: FLUSHER \"%s\", not \"%s\"", (unsigned long long)pages[k],
				 wb_value_text(&v), want[k]);
	}
}

/*
 * Sorted by STATE the rows go by severity, the state enum's order: descending (s's
 * default there) over-limit, throttled, flushing, idle, as %LIM puts the worst first;
 * ascending the other way. It sorted A-Z: throttled, over-limit, idle, flushing.
 * The sort takes the enum the STATE value carries, not its text read back
 * ("over-limit:device" parsed in the pane): the value's u is the row's state.
 */
static void sort_state_severity(void **st)
{
	char dir[] = "/tmp/wbtop-sstate-XXXXXX", cmd[64];
	const struct wb_field *f = bdi_field("STATE");
	struct rig g;
	int col = -1;

	(void)st;
	assert_non_null(mkdtemp(dir));
	rig_open(&g, true, dir);
	g.src.seek(g.src.ctx, 24); /* the stick over its limit, the disk's writer throttled, vda flushing */
	ui_resync(&g.u);
	feed(&g, 1);
	for (int c = 0; c < ui_dev_columns(); c++)
		if (strcmp(ui_dev_column_name(c), "STATE") == 0)
			col = c;
	assert_true(col > 1);
	for (int desc = 0; desc < 2; desc++) {
		int seen = 0, last = desc ? WB_ST_COUNT : -1;
		g.u.sort_col = col;
		g.u.sort_desc = desc;
		ui_build_rows(&g.u);
		for (int k = 0; k < g.u.nrows; k++) {
			const struct wb_bdi_limits *bl = g.u.rows[k].bl;
			int s = bl && bl->dirty_known ? (int)bl->state : -1;
			struct wb_fctx c;
			struct wb_value v;
			wb_catalog_ctx(&c, g.u.view, g.u.view->lim, g.u.rows[k].i);
			v = f->get(&c);
			if (v.known != (s >= 0) || (v.known && v.u != (uint64_t)s))
				fail_msg("%s: STATE \"%s\" carries %s, the row's state is %s", g.u.rows[k].name,
					 v.known ? wb_value_text(&v) : "-", v.known ? wb_bdi_state_names[v.u % WB_ST_COUNT] : "-",
					 s < 0 ? "-" : wb_bdi_state_names[s]);
			if (desc ? s > last : s < last)
				fail_msg("sorted by STATE %s: row %d (%s) is %s after %s", desc ? "descending" : "ascending", k,
					 g.u.rows[k].name, s < 0 ? "-" : wb_bdi_state_names[s],
					 last < 0 || last >= WB_ST_COUNT ? "-" : wb_bdi_state_names[last]);
			seen |= s >= 0 ? 1 << s : 0;
			last = s;
		}
		assert_int_equal(seen, (1 << WB_ST_COUNT) - 1); /* every state is there to order */
	}
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Does any row of the grid hold text? */
static bool grid_has(struct wb_grid *grid, const char *text)
{
	char line[512];

	for (int y = 0; y < grid->h; y++)
		if (wb_grid_line(grid, y, line, sizeof(line)) && strstr(line, text))
			return true;
	return false;
}

/*
 * Is b offered on the screen just drawn in grid: its footer entry (between blanks, on the
 * last line), or its line in the help? Its text in what.
 */
static bool offered(struct wb_grid *grid, const struct ui_binding *b, bool help, char *what, size_t n)
{
	char foot[512];

	if (help) {
		snprintf(what, n, "%-10s %s", b->label, b->help);
		return grid_has(grid, what);
	}
	foot[0] = ' '; /* " F1Help ... qQuit ": every entry between blanks */
	wb_grid_line(grid, 59, foot + 1, sizeof(foot) - 2);
	strcat(foot, " ");
	snprintf(what, n, " %s%s ", b->foot_key ? b->foot_key : "", b->foot ? b->foot : "");
	return b->foot && strstr(foot, what);
}

/*
 * Every key the footer (help false) or the help over a pane (help true) offers acts there,
 * live and in a replay, at a width where every entry fits: none answers "the Zones pane has
 * no sortable table". The footer offered s/S and / on the Zones pane, s/S on the Flusher's;
 * the help over Zones and Processes listed i and l (and over Zones s/S, / and Esc, over the
 * Flusher's s/S), which there only said so. The Graph's and Tune's own keys are listed in
 * the help everywhere, marked with their pane.
 */
static void offered_keys_act(bool help)
{
	const struct ui_binding *bind;
	size_t nb = ui_bindings(&bind);
	char dir[] = "/tmp/wbtop-keysact-XXXXXX", cmd[64], what[96];
	struct wb_grid grid;

	assert_non_null(mkdtemp(dir));
	wb_grid_init(&grid);
	assert_int_equal(wb_grid_resize(&grid, 200, 60), 0);
	for (int replay = 0; replay < 2; replay++) {
		struct rig g;
		rig_open(&g, replay, dir);
		for (int p = 0; p < P_COUNT; p++)
			for (size_t k = 0; k < nb; k++) {
				const struct ui_binding *b = &bind[k];
				if (!(b->when & (replay ? UI_K_REPLAY : UI_K_LIVE)) || !ui_binding_here(b, (enum pane)p))
					continue;
				rig_reset(&g, (enum pane)p);
				g.u.help = help;
				g.u.grid = &grid;
				ui_render(&g.u);
				g.u.grid = NULL;
				if (!offered(&grid, b, help, what, sizeof(what)))
					continue;
				g.u.help = false;
				ui_handle_key(&g.u, b->keys[0]);
				if (strstr(g.u.status, " pane has "))
					fail_msg("pane %d (%s): the %s offers \"%s\", which says \"%s\"", p + 1,
						 replay ? "replay" : "live", help ? "help" : "footer", what, g.u.status);
			}
		rig_close(&g);
	}
	wb_grid_finish(&grid);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void footer_keys_act(void **st)
{
	(void)st;
	offered_keys_act(false);
}

static void help_keys_act(void **st)
{
	(void)st;
	offered_keys_act(true);
}

/*
 * Tune's a / k and u / R write the kernel: a replay has none to write, nor has a --root
 * tree, and a user who is not root may not. Their footer, help and hint do not offer
 * them (they did: a/kApply u/RUndo, "a: apply (root)   u: undo"; on a --root tree until
 * the key table knew it from a replay; live without root until it knew the user), and
 * a press says why on one line, over a preview too ("nothing to undo" read as if one
 * could); live on this machine's kernel as root they stay (drawn only here: no key pressed).
 */
static void tune_writes_live_only(void **st)
{
	static const int keys[] = { 'a', 'k', 'u', 'R' };
	static const char *const why[SRC_COUNT] = { NULL, "the live kernel only, a --root tree is not written",
						    "live only, a replay writes nothing",
						    "applying needs root, run wbtop as root" };
	static const char *const title[SRC_COUNT] = { "nothing written yet; a applies",
						      "preview only: not the live kernel",
						      "preview only: not the live kernel",
						      "preview only: applying needs root" };
	char dir[] = "/tmp/wbtop-tlive-XXXXXX", cmd[64];
	struct wb_grid grid;

	(void)st;
	assert_non_null(mkdtemp(dir));
	wb_grid_init(&grid);
	for (int src = 0; src < SRC_COUNT; src++) {
		bool writes = src == SRC_KERNEL;
		struct rig g;
		rig_open_src(&g, src, dir);
		for (int size = 0; size < 2; size++) {
			assert_int_equal(wb_grid_resize(&grid, size ? 200 : 80, size ? 60 : 24), 0);
			rig_reset(&g, P_TUNE);
			g.u.grid = &grid;
			ui_render(&g.u);
			if (grid_has(&grid, "a/kApply") != writes || grid_has(&grid, "u/RUndo") != writes ||
			    grid_has(&grid, "a: apply") != writes || grid_has(&grid, "u: undo") != writes)
				fail_msg("%s at %dx%d: a/k and u/R %s", src_names[src], grid.w, grid.h,
					 writes ? "not offered" : "offered");
			g.u.help = true;
			ui_render(&g.u);
			if (grid_has(&grid, "apply/keep trial") != writes || grid_has(&grid, "undo / revert all") != writes)
				fail_msg("%s help at %dx%d: a / k and u / R %s", src_names[src], grid.w, grid.h,
					 writes ? "missing" : "listed");
			g.u.grid = NULL;
		}
		for (size_t k = 0; !writes && k < sizeof(keys) / sizeof(keys[0]); k++) {
			rig_reset(&g, P_TUNE);
			g.u.tune_sel = 1; /* vm.dirty_bytes=64M previewed */
			ui_handle_key(&g.u, '\n');
			for (const char *c = "64M\n"; *c; c++)
				ui_handle_key(&g.u, *c);
			assert_true(g.u.tune_ok);
			assert_int_equal(wb_grid_resize(&grid, 80, 24), 0);
			g.u.grid = &grid;
			ui_render(&g.u); /* the prediction's title says why it is a preview */
			g.u.grid = NULL;
			if (!grid_has(&grid, title[src]))
				fail_msg("%s: the prediction's title is not \"%s\"", src_names[src], title[src]);
			ui_handle_key(&g.u, keys[k]);
			if (!strstr(g.u.status, why[src]) || g.u.tune_confirm || g.u.tune_nstack || strchr(g.u.status, '\n'))
				fail_msg("%s: '%c' said \"%s\"", src_names[src], keys[k], g.u.status);
		}
		rig_close(&g);
	}
	wb_grid_finish(&grid);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * Over a pane whose own keys take some of a general binding's, the help names only the
 * keys left: in a replay over the Graph, < and > zoom, so the playback speed is + / -
 * (it listed "+/- or >/<" beside "< / > Graph: zoom"); over Tune, + and - step the value,
 * so speed is > / < there, and live "+ / -  faster/slower sampling" is not listed at all.
 */
static void help_names_keys_left(void **st)
{
	static const struct {
		int src;
		enum pane p;
		const char *has, *hasnt;
	} cases[] = {
		{ SRC_REPLAY, P_GRAPH, "+/-        faster/slower playback", ">/<" },
		{ SRC_REPLAY, P_TUNE, ">/<        faster/slower playback", "+/- or" },
		{ SRC_REPLAY, P_DEVICES, "+/- or >/< faster/slower playback", NULL },
		{ SRC_TREE, P_TUNE, "Tune: step the value", "faster/slower sampling" },
		{ SRC_TREE, P_GRAPH, "+ / -      faster/slower sampling", NULL },
	};
	char dir[] = "/tmp/wbtop-helpleft-XXXXXX", cmd[64];
	struct wb_grid grid;

	(void)st;
	assert_non_null(mkdtemp(dir));
	wb_grid_init(&grid);
	assert_int_equal(wb_grid_resize(&grid, 80, 24), 0);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct rig g;
		rig_open_src(&g, cases[c].src, dir);
		rig_reset(&g, cases[c].p);
		g.u.help = true;
		g.u.grid = &grid;
		ui_render(&g.u);
		g.u.grid = NULL;
		if (!grid_has(&grid, cases[c].has) || (cases[c].hasnt && grid_has(&grid, cases[c].hasnt)))
			fail_msg("%s help over pane %d: \"%s\" wanted, \"%s\" not", src_names[cases[c].src],
				 cases[c].p + 1, cases[c].has, cases[c].hasnt ? cases[c].hasnt : "");
		rig_close(&g);
	}
	wb_grid_finish(&grid);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * The help shows all it has at 80x24 (and 100x30) over every pane, on this machine's
 * kernel (a / k and u / R too: the most keys), on a --root tree and in a replay:
 * every key it lists for the pane, the replay's n/N note and the whole Devices
 * legend (at 80x24 in a replay the n/N note pushed the legend out); over the
 * Flusher its own, which says what its FLUSHER words mean.
 */
static void help_fits(void **st)
{
	static const char *const notes[] = { "Devices: DIRTY reclaimable", "CLEAN-IN =", "(1.3s+: once expired)",
					     "Rows: warn at", "Meter: b background", "Press any key to return." };
	static const char *const flusher_notes[] = { "Flusher: FLUSHER running:", "io 44M: it is not",
						      "waiting: dirty, none under", "idle: neither.",
						      "Rows: in the writeback colour", "Meter: b background",
						      "Press any key to return." };
	static const int sizes[][2] = { { 80, 24 }, { 100, 30 } };
	const struct ui_binding *b;
	size_t nb = ui_bindings(&b);
	char dir[] = "/tmp/wbtop-helpfit-XXXXXX", cmd[64], what[96];
	struct wb_grid grid;

	(void)st;
	assert_non_null(mkdtemp(dir));
	wb_grid_init(&grid);
	for (int src = 0; src < SRC_COUNT; src++) {
		struct rig g;
		rig_open_src(&g, src, dir);
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			assert_int_equal(wb_grid_resize(&grid, sizes[z][0], sizes[z][1]), 0);
			for (int p = 0; p < P_COUNT; p++) {
				unsigned mode;
				rig_reset(&g, (enum pane)p);
				g.u.help = true;
				g.u.grid = &grid;
				ui_render(&g.u);
				g.u.grid = NULL;
				mode = ui_key_mode(&g.u);
				for (size_t k = 0; k < nb; k++) {
					char lb[32];
					const char *label = ui_binding_label(&g.u, &b[k], lb, sizeof(lb));
					if (!(b[k].when & mode) || !ui_binding_acts(&b[k], (enum pane)p) || !label[0])
						continue;
					snprintf(what, sizeof(what), "%-10s %s", label, b[k].help);
					if (!grid_has(&grid, what))
						fail_msg("%s help at %dx%d over pane %d: no \"%s\"", src_names[src], grid.w,
							 grid.h, p + 1, what);
				}
				const char *const *nt = p == P_FLUSHER ? flusher_notes : notes;
				size_t nn = p == P_FLUSHER ? sizeof(flusher_notes) / sizeof(flusher_notes[0])
							   : sizeof(notes) / sizeof(notes[0]);
				for (size_t k = 0; k < nn; k++) {
					const char *want = nt[k];
					if (!grid_has(&grid, want))
						fail_msg("%s help at %dx%d over pane %d: no \"%s\"", src_names[src], grid.w,
							 grid.h, p + 1, want);
				}
				if (grid_has(&grid, "n/N stop where throttling starts") != (src == SRC_REPLAY))
					fail_msg("%s help at %dx%d over pane %d: the n/N note %s", src_names[src], grid.w,
						 grid.h, p + 1, src == SRC_REPLAY ? "missing" : "shown");
				g.u.help = false;
			}
		}
		rig_close(&g);
	}
	wb_grid_finish(&grid);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * The Tune pane's prediction follows the samples: both sides of its table
 * are of the newest sample (it was made once, at the keypress, while the
 * before side moved on, so drift showed as the change's effect).
 */
static void tune_preview_follows(void **st)
{
	char dir[] = "/tmp/wbtop-tfollow-XXXXXX", cmd[64];
	struct rig g;
	uint64_t first;
	bool moved = false;

	(void)st;
	assert_non_null(mkdtemp(dir));
	rig_open(&g, false, dir);
	rig_reset(&g, P_TUNE);
	g.u.tune_sel = 0; /* vm.dirty_ratio: its threshold moves with the dirtyable memory */
	assert_true(ui_tune_key(&g.u, 'e'));
	assert_true(ui_tune_key(&g.u, '3'));
	assert_true(ui_tune_key(&g.u, '0'));
	assert_true(ui_tune_key(&g.u, '\n'));
	assert_true(g.u.tune_ok);
	assert_string_equal(g.u.tune_op.key, "vm.dirty_ratio");
	first = g.u.lim.dirtyable;
	for (int k = 0; k < 10; k++) {
		feed(&g, 1);
		assert_true(g.u.tune_ok);
		assert_int_equal(g.u.tune_pred.dirtyable, g.u.lim.dirtyable);
		moved |= g.u.lim.dirtyable != first;
	}
	assert_true(moved); /* else the check above could not fail */
	/*
	 * On a pane that does not show it (Devices) it is not made again each
	 * sample (a forecast and its band: milliseconds); shown again, it is
	 */
	ui_handle_key(&g.u, '1');
	assert_int_equal(g.u.pane, P_DEVICES);
	first = g.u.tune_pred.dirtyable;
	moved = false;
	for (int k = 0; k < 10; k++) {
		feed(&g, 1);
		assert_true(g.u.tune_stale);
		assert_int_equal(g.u.tune_pred.dirtyable, first);
		moved |= g.u.lim.dirtyable != first;
	}
	assert_true(moved);
	ui_handle_key(&g.u, '5');
	assert_int_equal(g.u.pane, P_TUNE);
	assert_false(g.u.tune_stale);
	assert_int_equal(g.u.tune_pred.dirtyable, g.u.lim.dirtyable);
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static const char *stopped_error(void *ctx)
{
	(void)ctx;
	return "recording stopped: No space left on device";
}

/*
 * The title says REC and the --record file's name while recording live: the name whole where it
 * fits (the version gives way to it), else cut (marked, ~ in ASCII) to the room the other items
 * leave; REC alone, then left out before the time or a state in brackets is cut, as the width
 * shrinks to 20 and under. A name's escapes never reach the terminal. Nothing once the recorder
 * has stopped, nor in a replay.
 */
static void title_rec(void **st)
{
	static const struct {
		int cols;
		bool frozen, ver;
		const char *has, *hasnt;
	} c[] = {
		{ 200, false, true, "  level 3  every 1s  REC day-one.wbrec", NULL },
		{ 80, false, true, "  level 3  every 1s  REC day-one.wbrec", NULL },
		/* the name before the version, the first item to go in any case */
		{ 60, true, false, "  level 3  every 1s  REC day-one.wbrec  [FROZEN]", NULL },
		{ 40, false, false, "  level 3  every 1s  REC day-o~", NULL },
		{ 30, false, false, "  level 3  REC day-o~", "every" },
		{ 24, false, false, "  level 3  REC", "day" },
		{ 20, false, false, "  REC day-~", "level" },
		{ 20, true, false, "  [FROZEN]", "REC" },
		{ 16, false, false, "  REC", "day" },
	};
	char dir[] = "/tmp/wbtop-rec-XXXXXX", cmd[64], line[512];
	struct wb_pipeline_sink stopped = { .error = stopped_error };
	struct wb_grid grid;
	struct rig g;

	(void)st;
	assert_non_null(mkdtemp(dir));
	wb_grid_init(&grid);
	rig_open(&g, false, dir);
	g.o.record = "/var/log/wbtop/day-one.wbrec";
	g.u.grid = &grid;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		assert_int_equal(wb_grid_resize(&grid, c[i].cols, 24), 0);
		g.u.frozen = c[i].frozen;
		ui_title(&g.u, ui_cur(&g.u), line, sizeof(line));
		if ((int)strlen(line) > c[i].cols || !strstr(line, c[i].has) || (c[i].hasnt && strstr(line, c[i].hasnt)) ||
		    !strstr(line, "  ") || !strstr(line, ":") || (strncmp(line, " wbtop ", 7) == 0) != c[i].ver)
			fail_msg("%d columns: \"%s\" (want \"%s\"%s%s)", c[i].cols, line, c[i].has,
				 c[i].hasnt ? ", not " : "", c[i].hasnt ? c[i].hasnt : "");
	}
	assert_int_equal(wb_grid_resize(&grid, 80, 24), 0);
	g.o.record = "/tmp/\033]0;owned\007\033[2J.wbrec";
	ui_title(&g.u, ui_cur(&g.u), line, sizeof(line));
	assert_non_null(strstr(line, "REC "));
	assert_null(strchr(line, '\033'));
	assert_null(strchr(line, '\007'));
	g.o.record_sink = &stopped; /* the status line says why; the title no longer claims it */
	assert_null(strstr(ui_title(&g.u, ui_cur(&g.u), line, sizeof(line)), "REC"));
	g.u.grid = NULL;
	rig_close(&g);
	rig_open(&g, true, dir); /* a replay records nothing */
	g.o.record = "/var/log/wbtop/day-one.wbrec";
	g.u.grid = &grid;
	assert_null(strstr(ui_title(&g.u, ui_cur(&g.u), line, sizeof(line)), "REC"));
	g.u.grid = NULL;
	rig_close(&g);
	wb_grid_finish(&grid);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * The event log names a device as the Flusher pane's rows do ("loop1 ~/disk" in 13 ASCII cells: its
 * mount's end, cut as every pane cuts one, from the sample's own device and mount: a replay as
 * live), not by its BDI's MAJ:MIN; one the sample no longer has by that.
 */
static void event_dev_named(void **st)
{
	char dir[] = "/tmp/wbtop-evdev-XXXXXX", cmd[64], buf[192];
	struct rig g;

	(void)st;
	assert_non_null(mkdtemp(dir));
	rig_open(&g, true, dir);
	assert_string_equal(ui_event_dev(&g.u, "7:1", buf, sizeof(buf)), "loop1 ~/disk");
	assert_string_equal(ui_event_dev(&g.u, "7:0", buf, sizeof(buf)), "loop0 ~/stick");
	assert_string_equal(ui_event_dev(&g.u, "9:99", buf, sizeof(buf)), "9:99");
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * Processes missing from the table: "run as root" only when the sample was not read as root;
 * and an empty table says "your processes" only then (as root the refused ones are not others').
 */
static void procs_missing_note(void **st)
{
	struct wb_sample s;
	char buf[160];

	(void)st;
	wb_sample_init(&s);
	s.level = 3;
	assert_null(ui_procs_missing_note(&s, buf, sizeof(buf)));
	assert_string_equal(ui_procs_idle_note(&s), "no process wrote since the last sample");
	s.g.v[WB_G_PROCS_UNREADABLE] = 2;
	s.g.valid |= WB_BIT(WB_G_PROCS_UNREADABLE);
	assert_non_null(ui_procs_missing_note(&s, buf, sizeof(buf)));
	if (strstr(buf, "run as root"))
		fail_msg("read as root (level 3), yet: %s", buf);
	assert_non_null(strstr(buf, "2 processes"));
	if (strstr(ui_procs_idle_note(&s), "your"))
		fail_msg("read as root (level 3), yet: %s", ui_procs_idle_note(&s));
	s.level = 2;
	assert_null(strstr(ui_procs_idle_note(&s), "your"));
	s.level = 1;
	assert_non_null(strstr(ui_procs_missing_note(&s, buf, sizeof(buf)), "run as root"));
	assert_string_equal(ui_procs_idle_note(&s), "none of your processes wrote since the last sample");
	wb_sample_finish(&s);
}

/*
 * The selection stays on its device when the rows change under it (here the loop devices
 * before it hidden, then the order reversed): the Graph and Tune panes follow the selection,
 * and by index alone they moved to another device when a loop device came or went.
 */
static void selection_follows_device(void **st)
{
	char dir[] = "/tmp/wbtop-sel-XXXXXX", cmd[64];
	struct rig g;
	int z = -1;

	(void)st;
	assert_non_null(mkdtemp(dir));
	rig_open(&g, false, dir);
	for (int k = 0; k < g.u.nrows; k++)
		if (strcmp(g.u.rows[k].b->dev, "zram0") == 0)
			z = k;
	assert_true(z > 0);
	g.u.sel = z;
	g.u.hide_loop = true;
	ui_build_rows(&g.u);
	assert_string_equal(g.u.rows[g.u.sel].b->dev, "zram0");
	g.u.sort_desc = !g.u.sort_desc;
	ui_build_rows(&g.u);
	assert_string_equal(g.u.rows[g.u.sel].b->dev, "zram0");
	feed(&g, 3); /* new samples: still there */
	assert_string_equal(g.u.rows[g.u.sel].b->dev, "zram0");
	assert_null(strstr(g.u.status, "has gone"));
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A rig in a new directory dir drawing into grid (80 x 24), frozen: the Devices pane's mount tests. */
static void grid_rig_open(struct rig *g, struct wb_grid *grid, char *dir)
{
	assert_non_null(mkdtemp(dir));
	wb_grid_init(grid);
	assert_int_equal(wb_grid_resize(grid, 80, 24), 0);
	rig_open(g, true, dir);
	g->u.grid = grid;
	g->u.frozen = true;
}

static void grid_rig_close(struct rig *g, struct wb_grid *grid, const char *dir)
{
	char cmd[64];

	g->u.grid = NULL;
	rig_close(g);
	wb_grid_finish(grid);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * A mount path cut to its tail in the Devices pane keeps whole characters: no cell of the grid holds a
 * byte of half a character (what the terminal would get), however the cut falls in "ä" (2 bytes).
 */
static void devices_mount_cut_whole(void **st)
{
	char dir[] = "/tmp/wbtop-mnt-XXXXXX";
	struct wb_grid grid;
	struct rig g;

	(void)st;
	grid_rig_open(&g, &grid, dir);
	for (int odd = 0; odd < 2; odd++) {
		struct wb_sample *s = (struct wb_sample *)ui_cur(&g.u); /* the newest sample: a mount of its own */
		for (size_t i = 0; i < s->nbdis; i++) {
			snprintf(s->bdis[i].mounts[0], sizeof(s->bdis[i].mounts[0]), "/mnt/%s\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4"
				 "\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4", odd ? "x" : "");
			s->bdis[i].nmounts = 1;
		}
		ui_build_rows(&g.u);
		ui_render(&g.u);
		for (int y = 0; y < grid.h; y++)
			for (int x = 0; x < grid.w; x++) {
				const char *ch = wb_grid_at(&grid, y, x)->ch;
				char safe[16];
				if (strcmp(wb_safe_text(ch, safe, sizeof(safe)), ch) != 0)
					fail_msg("cell %d,%d holds a part of a character (%02x)", y, x, (unsigned char)ch[0]);
			}
	}
	grid_rig_close(&g, &grid, dir);
}

/* Render every device with mount m; the grid's rows into rows (80 x 24). */
static void render_mounts(struct rig *g, const char *m, char rows[24][80][12])
{
	struct wb_sample *s = (struct wb_sample *)ui_cur(&g->u);

	for (size_t i = 0; i < s->nbdis; i++) {
		snprintf(s->bdis[i].mounts[0], sizeof(s->bdis[i].mounts[0]), "%s", m);
		s->bdis[i].nmounts = 1;
	}
	ui_build_rows(&g->u);
	ui_render(&g->u);
	for (int y = 0; y < 24; y++)
		for (int x = 0; x < 80; x++)
			memcpy(rows[y][x], wb_grid_at(g->u.grid, y, x)->ch, 12);
}

/*
 * A mount path in characters two columns wide (CJK) takes as many columns as
 * an ASCII one of the same width: the columns after MOUNT stay where they
 * are in every row (counted in characters, each row ran past its column by
 * one cell a wide character).
 */
static void devices_mount_wide(void **st)
{
	static char narrow[24][80][12], wide[24][80][12];
	static const char *const paths[][2] = {
		{ "/mnt/abcdefghijklmnopqrstuvwxyz", "/mnt/\u6570\u636e\u5907\u4efd\u76d8\u6570\u636e\u5907\u4efd\u76d8\u6570\u636e\u5907" },
		{ "/mnt/ab", "/mnt/\u76d8" },
	};
	char dir[] = "/tmp/wbtop-mnt-XXXXXX", was[64], head[1024];
	struct wb_grid grid;
	struct rig g;

	(void)st;
	snprintf(was, sizeof(was), "%s", setlocale(LC_CTYPE, NULL));
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		skip();
	assert_int_equal(wcwidth(0x6570), 2);
	grid_rig_open(&g, &grid, dir);
	for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
		const char *mark = ui_cut_mark(g.u.utf8);
		int mx, nx, y0 = -1;

		render_mounts(&g, paths[p][0], narrow);
		render_mounts(&g, paths[p][1], wide);
		for (int y = 0; y < 24 && y0 < 0; y++) { /* the table's title row */
			wb_grid_line(&grid, y, head, sizeof(head));
			if (strstr(head, "MOUNT"))
				y0 = y;
		}
		assert_true(y0 >= 0);
		mx = (int)(strstr(head, "MOUNT") - head); /* ASCII up to it */
		for (nx = mx + 5; nx < 80 && head[nx] == ' '; nx++) /* the next title */
			;
		for (int y = y0 + 1; y < 24; y++) {
			bool marked = false;
			int used[2] = { 0, 0 }; /* the mount's columns, narrow and wide */
			for (int x = 0; x < 80; x++) {
				if ((x < mx || x >= nx) && strcmp(narrow[y][x], wide[y][x]))
					fail_msg("path %zu, row %d: cell %d is \"%s\", \"%s\" with an ASCII mount", p, y, x,
						 wide[y][x], narrow[y][x]);
				if (x < mx || x >= nx)
					continue;
				marked = marked || !strcmp(wide[y][x], mark);
				used[0] += strcmp(narrow[y][x], " ") != 0;
				used[1] += strcmp(wide[y][x], " ") != 0; /* a wide character's right half is "" */
			}
			if (strcmp(narrow[y][mx], "/") && strcmp(narrow[y][mx], mark))
				continue; /* not a device's row */
			assert_true(marked == (p == 0)); /* the long path cut, marked */
			/* as many columns as the ASCII path's, but the half of a wide character */
			if (used[1] < used[0] - 1 || used[1] > used[0])
				fail_msg("path %zu, row %d: the mount takes %d columns, %d with an ASCII mount", p, y, used[1],
					 used[0]);
		}
	}
	grid_rig_close(&g, &grid, dir);
	setlocale(LC_CTYPE, was);
}

/* Clicks and the wheel (ui_mouse, as getmouse gives them): tab, title, row, scroll; any event is safe. */
static void mouse_events(void **st)
{
	char dir[] = "/tmp/wbtop-mouse-XXXXXX", cmd[64];
	struct rig g;
	MEVENT e = { 0 };
	struct wb_grid grid;
	int col;

	(void)st;
	assert_non_null(mkdtemp(dir));
	rig_open(&g, false, dir);
	wb_grid_init(&grid);
	assert_int_equal(wb_grid_resize(&grid, 160, 48), 0);
	g.u.grid = &grid; /* the title line's layout needs a width */
	ui_sort_defaults(&g.u);
	g.u.tab_y = 7;
	e.bstate = BUTTON1_CLICKED;
	e.y = 7, e.x = 13; /* " 1 Devices " " 2 Zones " */
	ui_mouse(&g.u, &e);
	assert_int_equal(g.u.pane, P_ZONES);
	e.x = 1;
	ui_mouse(&g.u, &e);
	assert_int_equal(g.u.pane, P_DEVICES);
	e.y = 8; /* the column titles: sorted by the one clicked, the other way when clicked again */
	for (e.x = 0; e.x < 300 && ui_dev_column_at(&g.u, e.x) <= 0; e.x++)
		;
	col = ui_dev_column_at(&g.u, e.x);
	assert_true(col > 0);
	e.x += 2; /* inside the title, not its first cell only */
	assert_int_equal(ui_dev_column_at(&g.u, e.x), col);
	ui_mouse(&g.u, &e);
	assert_int_equal(g.u.sort_col, col);
	{
		bool desc = g.u.sort_desc;
		ui_mouse(&g.u, &e);
		assert_int_equal(g.u.sort_col, col);
		assert_int_equal(g.u.sort_desc, !desc);
	}
	assert_int_equal(ui_dev_column_at(&g.u, 100000), -1);
	/* the Processes titles, by the catalogue's widths: PID (7) COMM (16) WRITE/s (8) */
	assert_int_equal(ui_proc_column_at(&g.u, 0), 0);
	assert_int_equal(ui_proc_column_at(&g.u, 8), 1);
	assert_int_equal(ui_proc_column_at(&g.u, 25), 2);
	assert_int_equal(g.u.proc_sort_col, 2); /* top writers first */
	assert_true(g.u.proc_sort_desc);
	e.x = 1;
	e.y = 11; /* the third row */
	ui_mouse(&g.u, &e);
	assert_int_equal(g.u.sel, 2);
	e.bstate = BUTTON4_PRESSED; /* wheel up */
	ui_mouse(&g.u, &e);
	assert_int_equal(g.u.sel, 1);
	g.u.pane = P_PROCS; /* a process row: the Processes pane's own cursor */
	e.bstate = BUTTON1_CLICKED;
	e.y = 9;
	g.u.proc_sel = 5;
	ui_mouse(&g.u, &e);
	assert_int_equal(g.u.proc_sel, ui_table_rows(&g.u) > 0 ? 0 : 5);
	g.u.pane = P_ZONES; /* a zone row: its first row is wherever the node lines left it */
	g.u.zone_y = 12;
	g.u.zone_sel = 0;
	g.u.zone_scroll = 0;
	e.y = 13;
	ui_mouse(&g.u, &e);
	assert_int_equal(g.u.zone_sel, ui_table_rows(&g.u) > 1 ? 1 : 0);
	g.u.pane = P_DEVICES;
	for (int k = 0; k < 64; k++) { /* anything else: no crash, selection in range */
		e.bstate = (mmask_t)1 << (k % 30);
		e.y = k * 37 % 200 - 20, e.x = k * 53 % 300 - 30;
		g.u.tab_y = k % 3 ? 7 : -1;
		ui_mouse(&g.u, &e);
		assert_true(g.u.sel >= 0 && g.u.sel < (g.u.nrows ? g.u.nrows : 1));
		assert_true(g.u.pane >= 0 && g.u.pane < P_COUNT);
	}
	g.u.grid = NULL;
	wb_grid_finish(&grid);
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* c opens the chooser; space hides the chosen column, W writes it, a new UI reads it back hidden. */
static void column_chooser(void **st)
{
	char dir[] = "/tmp/wbtop-cols-XXXXXX", cmd[64], msg[256];
	const struct wb_field *all[40], *shown[40];
	struct wb_config c;
	struct rig g;
	struct ui fresh = { 0 };
	size_t n, m;

	(void)st;
	assert_non_null(mkdtemp(dir));
	rig_open(&g, false, dir);
	rig_reset(&g, P_ZONES);
	n = wb_config_columns(WB_TABLE_ZONES, all, 40);
	ui_handle_key(&g.u, 'c');
	assert_true(g.u.choosing);
	ui_handle_key(&g.u, KEY_DOWN); /* from the first it may hide: the second column */
	ui_handle_key(&g.u, ' ');
	assert_non_null(strstr(g.u.status, "hidden"));
	ui_handle_key(&g.u, '\n');
	assert_false(g.u.choosing);
	m = ui_table_columns(&g.u, WB_TABLE_ZONES, shown, 40);
	assert_int_equal(m, n - 1);
	for (size_t k = 0; k < m; k++)
		assert_ptr_not_equal(shown[k], all[2]);
	ui_handle_key(&g.u, KEY_HOME); /* the chooser closed: keys move the table again */
	assert_int_equal(g.u.zone_sel, 0);
	rig_reset(&g, P_PROCS);
	ui_handle_key(&g.u, KEY_F(2));
	ui_handle_key(&g.u, ' ');
	ui_handle_key(&g.u, 27);
	ui_handle_key(&g.u, 'W');
	assert_int_equal(wb_config_load(&c, g.cfg, msg, sizeof(msg)), 0);
	assert_int_equal(c.nhidden, 2);
	assert_string_equal(c.hidden[0], "Zones:FREE");
	ui_columns_from_config(&fresh, &c);
	assert_memory_equal(fresh.hidden, g.u.hidden, sizeof(fresh.hidden));
	rig_reset(&g, P_PROCS); /* s passes over a hidden column (COMM) */
	g.u.proc_sort_col = 0;
	ui_handle_key(&g.u, 's');
	assert_int_equal(g.u.proc_sort_col, 2);
	rig_reset(&g, P_FLUSHER); /* no table: says so */
	ui_handle_key(&g.u, 'c');
	assert_false(g.u.choosing);
	assert_true(g.u.status[0]);
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * The chooser marks a column that is on but left out for width "[x] K-THRESH (no room)", and
 * only such a one: each entry against the Devices table as drawn at that size (it showed [x],
 * as if shown, for the ten columns 80 columns leave out). Enabling means what it did.
 */
static void chooser_marks_no_room(void **st)
{
	static const int sizes[][2] = { { 80, 24 }, { 120, 30 }, { 200, 60 } };
	char dir[] = "/tmp/wbtop-noroom-XXXXXX", cmd[64], titles[600], want[64];
	const struct wb_field *col[40];
	size_t n = wb_config_columns(WB_TABLE_DEVICES, col, 40);
	struct wb_grid grid;
	struct rig g;

	(void)st;
	assert_non_null(mkdtemp(dir));
	wb_grid_init(&grid);
	rig_open(&g, false, dir);
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		int absent = 0;
		assert_int_equal(wb_grid_resize(&grid, sizes[z][0], sizes[z][1]), 0);
		rig_reset(&g, P_DEVICES);
		g.u.grid = &grid;
		ui_render(&g.u);
		for (int y = 0; y < grid.h; y++) /* the table's titles, a blank either side of each */
			if (wb_grid_line(&grid, y, titles + 1, sizeof(titles) - 2) && strncmp(titles + 1, "DEVICE", 6) == 0)
				break;
		titles[0] = ' ';
		strcat(titles, " ");
		ui_handle_key(&g.u, 'c');
		ui_render(&g.u);
		for (size_t c = 1; c < n; c++) {
			bool drawn, marked;
			snprintf(want, sizeof(want), " %s ", col[c]->title);
			drawn = strstr(titles, want) != NULL;
			snprintf(want, sizeof(want), "[x] %s (no room)", col[c]->title);
			marked = grid_has(&grid, want);
			absent += marked;
			if (strcmp(col[c]->title, "IF-THRESH") == 0) /* without --set: says so, not "no room" */
				snprintf(want, sizeof(want), "[x] IF-THRESH (--set only)");
			else if (drawn == marked)
				fail_msg("%dx%d: %s %s, the chooser %s", grid.w, grid.h, col[c]->title,
					 drawn ? "drawn" : "left out", marked ? "says no room" : "shows it as shown");
			else
				snprintf(want, sizeof(want), "[x] %s", col[c]->title);
			if (!grid_has(&grid, want) || ui_column_hidden(&g.u, WB_TABLE_DEVICES, (int)c))
				fail_msg("%dx%d: no \"%s\" in the chooser, or hidden", grid.w, grid.h, want);
		}
		if (z == 0 && absent < 5) /* 80 columns leave many out: else this checked nothing */
			fail_msg("80x24: only %d columns marked no room", absent);
		ui_handle_key(&g.u, 27);
		g.u.grid = NULL;
	}
	rig_close(&g);
	wb_grid_finish(&grid);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* < and > stop at the shortest and the longest span and say so (< at 1 min went round to all). */
static void graph_zoom_ends(void **st)
{
	static const struct {
		int zoom, ch, to;
		const char *says;
	} steps[] = {
		{ 0, '<', 0, "already the shortest span (1 min)" },
		{ 0, '>', 1, "graph: 5 min" },
		{ 2, '>', 3, "graph: all" },
		{ WB_GRAPH_ZOOMS - 1, '>', WB_GRAPH_ZOOMS - 1, "already the longest span (all)" },
		{ 1, '<', 0, "graph: 1 min" },
	};
	char dir[] = "/tmp/wbtop-zoom-XXXXXX", cmd[64];
	struct rig g;

	(void)st;
	assert_non_null(mkdtemp(dir));
	rig_open(&g, true, dir);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		rig_reset(&g, P_GRAPH);
		g.u.graph_zoom = steps[i].zoom;
		ui_handle_key(&g.u, steps[i].ch);
		if (g.u.graph_zoom != steps[i].to || !strstr(g.u.status, steps[i].says))
			fail_msg("%c at zoom %d: zoom %d, \"%s\"; expected %d, \"%s\"", steps[i].ch, steps[i].zoom,
				 g.u.graph_zoom, g.u.status, steps[i].to, steps[i].says);
	}
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* An empty device list names what hides the rows: hide_idle kept in the settings file read "no device
 * matches the filter" on an idle machine, with no filter anywhere. */
static void no_rows_names_hiding(void **st)
{
	static const struct { bool idle, loop; const char *filter, *want; } c[] = {
		{ false, false, "x", "no device matches the filter" },
		{ true, false, "", "no device shown: idle devices hidden (i shows them)" },
		{ false, true, "", "no device shown: loop devices hidden (l shows them)" },
		{ true, true, "", "no device shown: idle and loop devices hidden (i, l show them)" },
		{ true, false, "x", "no device matches the filter; idle devices hidden (i shows them)" },
	};
	char buf[96];

	(void)st;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct ui u = { .hide_idle = c[i].idle, .hide_loop = c[i].loop };
		snprintf(u.filter, sizeof(u.filter), "%s", c[i].filter);
		assert_string_equal(ui_no_rows_note(&u, buf, sizeof(buf)), c[i].want);
	}
}

/* + after - takes effect at once: stepped to 60 s and back to 1 s, the next sample came 60 s after the last. */
static void rate_back_at_once(void **st)
{
	char dir[] = "/tmp/wbtop-rate-XXXXXX", cmd[64];
	double next = 100;
	struct rig g;

	(void)st;
	assert_non_null(mkdtemp(dir));
	rig_open(&g, false, dir);
	g.u.pane = P_DEVICES;
	assert_true(ui_tick(&g.u, 100, &next)); /* a sample at 100 s, the next due at 101 s */
	for (int k = 0; k < 5; k++)
		ui_handle_key(&g.u, '-');
	assert_true(g.u.delay == 60);
	assert_true(ui_tick(&g.u, 101, &next)); /* still at the old pace */
	assert_true(next == 161);
	for (int k = 0; k < 5; k++)
		ui_handle_key(&g.u, '+');
	assert_true(g.u.delay == 1);
	if (!ui_tick(&g.u, 102.5, &next) || next != 103.5)
		fail_msg("1 s after the last sample at the new 1 s delay: no sample, the next at %g s", next);
	for (int k = 0; k < 4; k++) /* 0.5, 0.25, 0.1, and once more at the end: it says so */
		ui_handle_key(&g.u, '+');
	assert_true(g.u.delay == 0.1);
	assert_string_equal(g.u.status, "sampling every 0.1s (no shorter step; -d sets any)");
	ui_handle_key(&g.u, '-');
	assert_string_equal(g.u.status, "sampling every 0.25s");
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Flusher: Up/Down select a device and leave the event log where it is; PgUp/PgDn scroll the log (one key did both). */
static void flusher_keys_apart(void **st)
{
	char dir[] = "/tmp/wbtop-flkeys-XXXXXX", cmd[64];
	double next = 100;
	struct rig g;

	(void)st;
	assert_non_null(mkdtemp(dir));
	rig_open(&g, false, dir);
	assert_true(ui_tick(&g.u, 100, &next));
	rig_reset(&g, P_FLUSHER);
	g.u.sel = 1;
	ui_handle_key(&g.u, KEY_UP);
	assert_int_equal(g.u.sel, 0);
	assert_int_equal(g.u.log_scroll, 0);
	ui_handle_key(&g.u, KEY_DOWN);
	assert_int_equal(g.u.sel, 1);
	assert_int_equal(g.u.log_scroll, 0);
	ui_handle_key(&g.u, KEY_PPAGE);
	assert_int_equal(g.u.sel, 1);
	assert_true(g.u.log_scroll > 0);
	ui_handle_key(&g.u, KEY_NPAGE);
	assert_int_equal(g.u.log_scroll, 0);
	ui_handle_key(&g.u, KEY_NPAGE); /* not below the newest */
	assert_int_equal(g.u.log_scroll, 0);
	rig_reset(&g, P_DEVICES); /* elsewhere PgDn pages the rows, not the log */
	g.u.sel = 0;
	ui_handle_key(&g.u, KEY_NPAGE);
	assert_int_equal(g.u.log_scroll, 0);
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* The keys a file W wrote sets ("delay = ...": "delay"), one a line; how many. */
static int written_keys(const char *path, char keys[][32], int max)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && n < max)
		if (sscanf(line, "%31[a-z_] =", keys[n]) == 1)
			n++;
	fclose(f);
	return n;
}

/* W in a replay writes the keys a live run writes (it left out delay, the replay's pace being no setting). */
static void write_same_keys(void **st)
{
	char dir[] = "/tmp/wbtop-write-XXXXXX", cmd[64], live[16][32], replay[16][32];
	int nl = 0, nr = 0; /* set in the loop; -O3 cannot tell */

	(void)st;
	assert_non_null(mkdtemp(dir));
	for (int mode = 0; mode < 2; mode++) {
		struct rig g;
		rig_open(&g, mode == 1, dir);
		rig_reset(&g, P_DEVICES);
		g.o.delay = 2.5; /* -d or the file's: not the recording's interval */
		ui_handle_key(&g.u, 'W');
		assert_non_null(strstr(g.u.status, "settings written"));
		if (mode == 0) {
			nl = written_keys(g.cfg, live, 16);
		} else {
			struct wb_config c;
			char msg[256];
			nr = written_keys(g.cfg, replay, 16);
			assert_int_equal(wb_config_load(&c, g.cfg, msg, sizeof(msg)), 0);
			assert_true(c.delay == 2.5);
		}
		rig_close(&g);
	}
	for (int k = 0; k < nl; k++) {
		bool found = false;
		for (int j = 0; j < nr; j++)
			found |= strcmp(live[k], replay[j]) == 0;
		if (!found)
			fail_msg("W live writes \"%s\", W in a replay does not", live[k]);
	}
	assert_int_equal(nl, nr);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* g takes the header's clock time as well as seconds. */
/*
 * A seek frees the samples the device rows pointed into; the Tune pane's
 * preview, made again from the next sample, read the selected device through
 * them (ASAN: heap-use-after-free in key_of_entry; a release build refused
 * "bdi..max_ratio"). Keys as a person presses them: pause, Tune, a per-device
 * knob, step on, preview, step back, and two keys in one read.
 */
static void tune_after_seek(void **st)
{
	char dir[] = "/tmp/wbtop-seek-XXXXXX", cmd[64];
	static const int keys[] = { ' ', '5', KEY_DOWN, KEY_DOWN, KEY_DOWN, KEY_DOWN, KEY_DOWN, KEY_DOWN, KEY_DOWN,
				    '.', '.', '-', ',', ',', '+', KEY_LEFT, '-', KEY_HOME, 'n', '+' };
	struct rig g;

	(void)st;
	assert_non_null(mkdtemp(dir));
	rig_open(&g, true, dir);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		ui_handle_key(&g.u, keys[k]);
		if (strstr(g.u.tune_err, "bdi..") || strstr(g.u.tune_err, "bdi.?."))
			fail_msg("key %zu: the device lost: \"%s\"", k, g.u.tune_err);
	}
	assert_true(g.u.tune_ok);
	assert_string_equal(g.u.tune_buf, "100"); /* max_ratio 100: -, +, -, + kept through the seeks */
	assert_string_equal(g.u.tune_err, "");
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void jump_to_clock(void **st)
{
	char dir[] = "/tmp/wbtop-jump-XXXXXX", cmd[64], tm[16];
	struct rig g;
	double t, t0, len;
	size_t i, n;

	(void)st;
	assert_non_null(mkdtemp(dir));
	rig_open(&g, true, dir);
	g.src.where(g.src.ctx, &t0, &len, &i, &n);
	wb_fmt_clock(ui_cur(&g.u)->wall, "%H:%M:%S", tm, sizeof(tm));
	g.src.seek(g.src.ctx, len - 1);
	ui_resync(&g.u);
	feed(&g, 1);
	ui_handle_key(&g.u, 'g');
	for (const char *p = tm; *p; p++)
		ui_handle_key(&g.u, *p);
	ui_handle_key(&g.u, '\n');
	g.src.where(g.src.ctx, &t, &len, &i, &n);
	if (fabs(t - t0) > 1.01)
		fail_msg("g %s: at %g s, the clock was shown at %g s (%s)", tm, t, t0, g.u.status);
	ui_handle_key(&g.u, 'g');
	for (const char *p = "12.5"; *p; p++)
		ui_handle_key(&g.u, *p);
	ui_handle_key(&g.u, '\n');
	g.src.where(g.src.ctx, &t, &len, &i, &n);
	assert_true(fabs(t - 12.5) < 1.01);
	ui_handle_key(&g.u, 'g'); /* past the end: at the last sample, and the status says that */
	for (const char *p = "99999"; *p; p++)
		ui_handle_key(&g.u, *p);
	ui_handle_key(&g.u, '\n');
	g.src.where(g.src.ctx, &t, &len, &i, &n);
	assert_true(t <= len);
	if (!strstr(g.u.status, "past the end") || strstr(g.u.status, "jumped to 99999"))
		fail_msg("g 99999 in a %g s recording: \"%s\"", len, g.u.status);
	ui_handle_key(&g.u, 'g');
	for (const char *p = "25:99"; *p; p++)
		ui_handle_key(&g.u, *p);
	ui_handle_key(&g.u, '\n');
	assert_non_null(strstr(g.u.status, "neither seconds nor a clock time"));
	/* decimal seconds only: strtod took nan ("jumped to nan s"), inf, 0x10 (16 s) and 1e1 */
	for (int k = 0; k < 4; k++) {
		static const char *const odd[] = { "nan", "inf", "0x10", "1e1" };
		ui_handle_key(&g.u, 'g');
		for (const char *p = odd[k]; *p; p++)
			ui_handle_key(&g.u, *p);
		ui_handle_key(&g.u, '\n');
		if (!strstr(g.u.status, "neither seconds nor a clock time"))
			fail_msg("g %s: \"%s\"", odd[k], g.u.status);
	}
	/* far past the end: the time as typed (15 digits, the field's most), not printed by %.1f */
	ui_handle_key(&g.u, 'g');
	for (const char *p = "999999999999999"; *p; p++)
		ui_handle_key(&g.u, *p);
	ui_handle_key(&g.u, '\n');
	if (!strstr(g.u.status, "999999999999999 s is past the end"))
		fail_msg("g 9...9: \"%s\"", g.u.status);
	rig_close(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* usb-stick.wbrec's first n samples into path, those from the k-th on with mono + dm and wall + dw. */
static void write_jumped(const char *path, int n, int k, double dm, double dw)
{
	char err[256], warn[256];
	struct wb_rec_reader *r = wb_rec_open(EXAMPLES "/usb-stick.wbrec", err, sizeof(err), warn, sizeof(warn));
	struct wb_replay *p = r ? wb_replay_create(r, 0, 0) : NULL;
	struct wb_rec_header h = r ? *wb_rec_header_of(r) : (struct wb_rec_header){ 0 };
	struct wb_rec_writer *w = wb_rec_create(path, &h, 0, err, sizeof(err));
	struct wb_source src;

	assert_non_null(p);
	assert_non_null(w);
	wb_replay_source(p, &src);
	for (int i = 0; i < n; i++) {
		struct wb_sample s;
		wb_sample_init(&s);
		assert_int_equal(src.read(src.ctx, &s), 0);
		if (i >= k) {
			s.mono += dm;
			s.wall += dw;
		}
		assert_int_equal(wb_rec_write(w, &s), 0);
		wb_sample_finish(&s);
	}
	wb_rec_close(w);
	wb_replay_destroy(p);
	wb_rec_close_reader(r);
}

/*
 * A recording whose clock jumped (its sample times 12 years on, or its wall
 * clock set years forward or back, as a hostile file may have them): the
 * title at 80 columns still has the states that change what the screen
 * means, the position in days (it was 400000024.0/400000039.0s, which pushed
 * [PAUSED] and [what-if] off the edge), the jumped sample's date beside its
 * clock. Live, -d 86400 reads "every 86400s", not "every 8.6e+04s".
 */
static void title_time_jump(void **st)
{
	static const struct { double dm, dw; const char *want; } jump[] = {
		{ 4e8, 0, "4629.6/4629.6d" }, { 9.9e8, 0, "d  x1" }, { 0, 4e8, NULL }, { 0, -1.7e9, NULL },
	};
	static const char *const sets[] = { "vm.dirty_ratio=30", NULL };
	char dir[] = "/tmp/wbtop-jump-XXXXXX", path[64], line[512], day[16];
	struct wb_grid grid;
	struct rig g;

	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/jump.wbrec", dir);
	wb_grid_init(&grid);
	assert_int_equal(wb_grid_resize(&grid, 80, 24), 0);
	for (size_t j = 0; j < sizeof(jump) / sizeof(jump[0]); j++) {
		write_jumped(path, 40, 20, jump[j].dm, jump[j].dw);
		rig_open_at(&g, true, dir, path, sets);
		g.u.grid = &grid;
		g.u.frozen = true;
		ui_render(&g.u);
		wb_grid_line(&grid, 0, line, sizeof(line));
		wb_fmt_clock(ui_cur(&g.u)->wall, "%Y-%m-%d", day, sizeof(day));
		if (!strstr(line, "[PAUSED]  [what-if]") || strstr(line, "e+") ||
		    (jump[j].want && !strstr(line, jump[j].want)) || (jump[j].dw && !strstr(line, day)))
			fail_msg("a clock jump of %g s (wall %g s): the title \"%s\"", jump[j].dm, jump[j].dw, line);
		g.u.grid = NULL;
		rig_close(&g);
	}
	/* the Graph pane over the whole of a recording 12 years long: dates under it, not times of day */
	write_jumped(path, 40, 20, 4e8, 0);
	rig_open_at(&g, true, dir, path, NULL);
	g.u.grid = &grid;
	rig_reset(&g, P_GRAPH);
	g.u.graph_zoom = WB_GRAPH_ZOOMS - 1; /* all */
	ui_render(&g.u);
	{
		bool dates = false;
		for (int y = 0; y < grid.h && !dates; y++) {
			int a, b, c;
			wb_grid_line(&grid, y, line, sizeof(line));
			for (const char *p = line; *p && !dates; p++)
				dates = sscanf(p, "%2d-%2d-%2d", &a, &b, &c) == 3 && b >= 1 && b <= 12 && p[8] == ' ';
		}
		if (!dates)
			fail_msg("the Graph pane over 12 years shows no dates on its axis");
	}
	g.u.grid = NULL;
	rig_close(&g);
	rig_open(&g, false, dir);
	g.u.grid = &grid;
	g.u.delay = 86400;
	ui_render(&g.u);
	wb_grid_line(&grid, 0, line, sizeof(line));
	if (!strstr(line, "every 86400s"))
		fail_msg("live, every 86400 s: the title \"%s\"", line);
	grid_rig_close(&g, &grid, dir);
}

/* At a replay's first sample the title reads 0.0 s, not -0.0: the index keeps whole microseconds, rounded,
 * a hair after a sample time whose fraction of a microsecond is half or more (each quarter tried). */
static void replay_start_not_negative(void **st)
{
	char dir[] = "/tmp/wbtop-start-XXXXXX", path[64], line[512];
	struct wb_grid grid;
	struct rig g;

	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/start.wbrec", dir);
	wb_grid_init(&grid);
	assert_int_equal(wb_grid_resize(&grid, 80, 24), 0);
	for (int q = 0; q < 4; q++) {
		write_jumped(path, 5, 0, q * 0.25e-6, 0);
		rig_open_at(&g, true, dir, path, NULL);
		g.src.seek(g.src.ctx, 0);
		ui_resync(&g.u);
		feed(&g, 1);
		g.u.grid = &grid;
		g.u.frozen = true;
		ui_render(&g.u);
		wb_grid_line(&grid, 0, line, sizeof(line));
		if (!strstr(line, " 0.0/4.0s") || strstr(line, "-0.0"))
			fail_msg("at the first sample, times %d/4 us on: the title \"%s\"", q, line);
		g.u.grid = NULL;
		rig_close(&g);
	}
	wb_grid_finish(&grid);
	snprintf(line, sizeof(line), "rm -rf %s", dir);
	assert_int_equal(system(line), 0);
}

/* The Graph pane draws the Tune pane's preview ("if changed") only while Tune shows it: after Up chose
 * another knob, Tune showed none and the Graph still drew the dropped one. */
static void graph_preview_follows_tune(void **st)
{
	char dir[] = "/tmp/wbtop-galt-XXXXXX";
	struct wb_grid grid;
	struct rig g;

	(void)st;
	grid_rig_open(&g, &grid, dir);
	assert_int_equal(wb_grid_resize(&grid, 120, 40), 0);
	g.u.frozen = false;
	rig_reset(&g, P_TUNE);
	g.u.tune_sel = 0;
	for (const char *k = "e30\n"; *k; k++)
		assert_true(ui_tune_key(&g.u, *k));
	assert_true(g.u.tune_ok && g.u.tune_fc_ok);
	ui_handle_key(&g.u, '6');
	ui_render(&g.u);
	if (!grid_has(&grid, "if changed"))
		fail_msg("the Graph pane does not draw the previewed vm.dirty_ratio=30");
	ui_handle_key(&g.u, '5');
	assert_true(ui_tune_key(&g.u, KEY_DOWN));
	assert_false(g.u.tune_ok);
	ui_handle_key(&g.u, '6');
	ui_render(&g.u);
	if (grid_has(&grid, "if changed"))
		fail_msg("the Graph pane draws a preview the Tune pane dropped");
	grid_rig_close(&g, &grid, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(columns_by_priority),
		cmocka_unit_test(fmt_rounds_first),
		cmocka_unit_test(fmt_as_printf),
		cmocka_unit_test(fmt_locale_point),
		cmocka_unit_test(pad_as_printf),
		cmocka_unit_test(devices_mount_wide),
		cmocka_unit_test(procs_row_wide_comm),
		cmocka_unit_test(theme_roles_distinct),
		cmocka_unit_test(colors),
		cmocka_unit_test(shipped_themes_load),
		cmocka_unit_test(bad_theme_named),
		cmocka_unit_test(long_theme_line),
		cmocka_unit_test(safe_text),
		cmocka_unit_test(json_utf8),
		cmocka_unit_test(clock_nan),
		cmocka_unit_test(level_hidden_any),
		cmocka_unit_test(level_why_live),
		cmocka_unit_test(event_dev_named),
		cmocka_unit_test(title_rec),
		cmocka_unit_test(man_keys),
		cmocka_unit_test(titles_marked),
		cmocka_unit_test(cut_marked),
		cmocka_unit_test(key_walk),
		cmocka_unit_test(tune_keys_in_table),
		cmocka_unit_test(graph_keys_in_table),
		cmocka_unit_test(pane_keys_in_footer),
		cmocka_unit_test(footer_keys_act),
		cmocka_unit_test(help_keys_act),
		cmocka_unit_test(footer_names_pairs),
		cmocka_unit_test(procs_missing_note),
		cmocka_unit_test(mouse_events),
		cmocka_unit_test(tune_preview_follows),
		cmocka_unit_test(tune_writes_live_only),
		cmocka_unit_test(help_fits),
		cmocka_unit_test(help_names_keys_left),
		cmocka_unit_test(sort_state_severity),
		cmocka_unit_test(flusher_io_fits),
		cmocka_unit_test(selection_follows_device),
		cmocka_unit_test(devices_mount_cut_whole),
		cmocka_unit_test(tune_after_seek), cmocka_unit_test(jump_to_clock),
		cmocka_unit_test(column_chooser),
		cmocka_unit_test(chooser_marks_no_room),
		cmocka_unit_test(write_same_keys),
		cmocka_unit_test(graph_zoom_ends),
		cmocka_unit_test(rate_back_at_once),
		cmocka_unit_test(flusher_keys_apart),
		cmocka_unit_test(no_rows_names_hiding),
		cmocka_unit_test(title_time_jump),
		cmocka_unit_test(replay_start_not_negative),
		cmocka_unit_test(graph_preview_follows_tune),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
