// SPDX-License-Identifier: GPL-2.0-or-later
/* The cell grid the UI draws into: clipping, wide and combining characters, roles, lines as text. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "wbtop/grid.h"
#include "wbtop/theme.h"
#include "wbtop/util.h"

static const char *line(const struct wb_grid *g, int y)
{
	static char buf[512];

	wb_grid_line(g, y, buf, sizeof(buf));
	return buf;
}

/* Text is clipped at the grid's right edge, at maxw, and off the grid; roles stay per cell. */
static void put_clips(void **st)
{
	struct wb_grid g;

	(void)st;
	wb_grid_init(&g);
	assert_int_equal(wb_grid_resize(&g, 10, 3), 0);
	assert_int_equal(wb_grid_put(&g, 0, 6, WB_R_TITLE, "abcdef", -1), 4);
	assert_string_equal(line(&g, 0), "      abcd");
	assert_int_equal(wb_grid_put(&g, 1, 0, WB_R_WARN, "abcdef", 3), 3);
	assert_string_equal(line(&g, 1), "abc");
	assert_int_equal(wb_grid_put(&g, 3, 0, WB_R_WARN, "x", -1), 0); /* below the grid */
	assert_int_equal(wb_grid_put(&g, -1, 0, WB_R_WARN, "x", -1), 0);
	wb_grid_put(&g, 2, -2, WB_R_NORMAL, "xyz", -1); /* left of it: what is on it shows */
	assert_string_equal(line(&g, 2), "z");
	assert_int_equal(wb_grid_at(&g, 0, 6)->role, WB_R_TITLE);
	assert_int_equal(wb_grid_at(&g, 0, 5)->role, WB_R_NORMAL);
	assert_null(wb_grid_at(&g, 0, 10));
	wb_grid_attrs(&g, WB_A_BOLD);
	wb_grid_put(&g, 2, 0, WB_R_NORMAL, "q", -1);
	assert_int_equal(wb_grid_at(&g, 2, 0)->attrs, WB_A_BOLD);
	wb_grid_erase(&g);
	assert_string_equal(line(&g, 0), "");
	assert_int_equal(g.attrs, 0);
	wb_grid_finish(&g);
}

/* A wide character takes two cells, or none at the edge; overwriting half of one blanks the other. */
static void wide_and_combining(void **st)
{
	struct wb_grid g;

	(void)st;
	wb_grid_init(&g);
	assert_int_equal(wb_grid_resize(&g, 5, 2), 0);
	assert_int_equal(wb_grid_put(&g, 0, 0, WB_R_NORMAL, "\u6f22\u5b57x", -1), 5);
	assert_string_equal(line(&g, 0), "\u6f22\u5b57x");
	assert_string_equal(wb_grid_at(&g, 0, 1)->ch, "");
	wb_grid_put(&g, 0, 1, WB_R_NORMAL, "a", -1); /* the right half of the first */
	assert_string_equal(line(&g, 0), " a\u5b57x");
	wb_grid_put(&g, 0, 2, WB_R_NORMAL, "b", -1); /* the left half of the second */
	assert_string_equal(line(&g, 0), " ab x");
	assert_int_equal(wb_grid_put(&g, 1, 4, WB_R_NORMAL, "\u6f22", -1), 0); /* one cell left */
	assert_int_equal(wb_grid_put(&g, 1, 0, WB_R_NORMAL, "e\u0301f", -1), 2);
	assert_string_equal(line(&g, 1), "e\u0301f");
	wb_grid_put(&g, 1, 0, WB_R_NORMAL, "\u6f22\u0301", -1); /* a mark after a wide character */
	assert_string_equal(wb_grid_at(&g, 1, 0)->ch, "\u6f22\u0301");
	assert_string_equal(wb_grid_at(&g, 1, 1)->ch, "");
	wb_grid_put(&g, 1, 0, WB_R_NORMAL, "\u6f22y", -1);
	wb_grid_clear_eol(&g, 1, 1); /* from the right half: the whole character goes */
	assert_string_equal(line(&g, 1), "");
	assert_string_equal(wb_grid_at(&g, 1, 0)->ch, " ");
	wb_grid_finish(&g);
}

/*
 * Text that is not UTF-8 takes a column a byte, as wb_safe_text() shows it
 * ("?" a byte): an overlong "/", a surrogate, a code point past U+10FFFF, a
 * sequence cut short. A cell cut to 12 columns by one count and drawn by the
 * other ran 24 columns past it.
 */
static void invalid_utf8_a_column_a_byte(void **st)
{
	static const struct {
		const char *s;
		int cols;
	} t[] = {
		{ "\xc0\xaf", 2 }, { "\xc1\xbf", 2 }, { "\xe0\x80\xaf", 3 }, { "\xf0\x80\x80\xaf", 4 },
		{ "\xed\xa0\x80", 3 }, { "\xed\xbf\xbf", 3 }, { "\xf4\x90\x80\x80", 4 }, { "\xf7\xbf\xbf\xbf", 4 },
		{ "\xe6\x95", 2 }, { "\xe6\x95x", 3 }, { "\x80\xbf", 2 }, { "\xff", 1 },
		{ "\xc2\x80", 1 }, { "\xc3\xa4", 1 }, { "\xed\x9f\xbf", 1 }, { "\xf4\x8f\xbf\xbf", 1 },
	};
	struct wb_grid g;
	char safe[64];

	(void)st;
	wb_grid_init(&g);
	assert_int_equal(wb_grid_resize(&g, 20, 1), 0);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t len;
		wb_safe_text(t[i].s, safe, sizeof(safe));
		if (wb_text_cols(t[i].s) != t[i].cols || wb_text_cols(safe) != t[i].cols)
			fail_msg("case %zu: %d columns, %d shown (\"%s\"), expected %d", i, wb_text_cols(t[i].s),
				 wb_text_cols(safe), safe, t[i].cols);
		assert_int_equal(wb_text_char(t[i].s, &len), 1);
		assert_int_equal(len, t[i].cols == 1 ? strlen(t[i].s) : 1);
		assert_int_equal(wb_grid_put(&g, 0, 0, WB_R_NORMAL, t[i].s, -1), t[i].cols);
	}
	wb_grid_finish(&g);
}

/* hline paints blanks in a role; clear_eol gives the normal blank back; resize blanks. */
static void lines_and_resize(void **st)
{
	struct wb_grid g;

	(void)st;
	wb_grid_init(&g);
	assert_int_equal(wb_grid_resize(&g, 6, 2), 0);
	wb_grid_hline(&g, 0, 2, WB_R_HEADER, 10);
	assert_int_equal(wb_grid_at(&g, 0, 5)->role, WB_R_HEADER);
	assert_int_equal(wb_grid_at(&g, 0, 1)->role, WB_R_NORMAL);
	wb_grid_put(&g, 0, 0, WB_R_NORMAL, "abcdef", -1);
	wb_grid_clear_eol(&g, 0, 3);
	assert_string_equal(line(&g, 0), "abc");
	assert_int_equal(wb_grid_at(&g, 0, 4)->role, WB_R_NORMAL);
	assert_int_equal(wb_grid_resize(&g, 3, 1), 0);
	assert_int_equal(g.w * g.h, 3);
	assert_string_equal(line(&g, 0), "");
	assert_int_equal(wb_grid_resize(&g, -4, 2), 0); /* nothing to draw on: puts write nothing */
	assert_int_equal(wb_grid_put(&g, 0, 0, WB_R_NORMAL, "x", -1), 0);
	wb_grid_finish(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(put_clips),
		cmocka_unit_test(wide_and_combining),
		cmocka_unit_test(invalid_utf8_a_column_a_byte),
		cmocka_unit_test(lines_and_resize),
	};
	setlocale(LC_ALL, "C.UTF-8"); /* character widths */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
