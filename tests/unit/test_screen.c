// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ui_flush() writes only what changed since the last flush: after any
 * sequence of frames, curses holds exactly what one full repaint of the last
 * frame gives (text, wide and combining characters, roles, attributes).
 */
#include <curses.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ui_internal.h"

#define W 40
#define H 8

/* Every cell of stdscr: characters and attributes as curses holds them. */
static void snapshot(cchar_t *out)
{
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			mvin_wch(y, x, &out[y * W + x]);
}

static void assert_same_screen(const cchar_t *a, const cchar_t *b, int frame)
{
	for (int i = 0; i < W * H; i++) {
		wchar_t wa[CCHARW_MAX + 1], wb[CCHARW_MAX + 1];
		attr_t aa, ab;
		short pa, pb;
		getcchar(&a[i], wa, &aa, &pa, NULL);
		getcchar(&b[i], wb, &ab, &pb, NULL);
		if (wcscmp(wa, wb) != 0 || aa != ab || pa != pb)
			fail_msg("frame %d: cell %d,%d differs from a full repaint: U+%04X attrs %lx pair %d, "
				 "repainted U+%04X attrs %lx pair %d", frame, i / W, i % W, (unsigned)wa[0],
				 (unsigned long)aa, pa, (unsigned)wb[0], (unsigned long)ab, pb);
	}
}

/* Small random edits: text (wide, combining, blank) in random roles, some attributes, clears. */
static void edit(struct wb_grid *g, unsigned *seed)
{
	static const char *const text[] = { "abc", "12.5M", " ", "   ", "漢字", "e\xcc\x81", "▁▂█",
					    "x漢", "-", "⠿⠇", "wide漢漢漢", "" };
	int n = 1 + rand_r(seed) % 6;

	for (int i = 0; i < n; i++) {
		int y = rand_r(seed) % H, x = rand_r(seed) % W - 1, r = rand_r(seed) % 10;
		wb_grid_attrs(g, r == 0 ? WB_A_BOLD : r == 1 ? WB_A_REVERSE : 0);
		if (r == 2)
			wb_grid_clear_eol(g, y, x);
		else if (r == 3)
			wb_grid_hline(g, y, x, rand_r(seed) % WB_R_COUNT, rand_r(seed) % 6);
		else
			wb_grid_put(g, y, x, rand_r(seed) % WB_R_COUNT,
				    text[rand_r(seed) % (sizeof(text) / sizeof(text[0]))], -1);
	}
	wb_grid_attrs(g, 0);
}

static void changes_equal_repaint(void **st)
{
	struct wb_grid g;
	struct ui u = { .grid = &g, .utf8 = true };
	static cchar_t diffed[W * H], full[W * H];
	unsigned seed = 22;
	FILE *null = fopen("/dev/null", "w");

	(void)st;
	assert_non_null(null);
	setenv("TERM", "xterm-256color", 1);
	assert_non_null(newterm(NULL, null, stdin));
	resizeterm(H, W);
	start_color();
	use_default_colors();
	wb_theme_default(&u.theme);
	wb_grid_init(&g);
	assert_int_equal(wb_grid_resize(&g, W, H), 0);
	ui_apply_theme(&u);
	ui_flush(&u);
	for (int f = 0; f < 2000; f++) {
		edit(&g, &seed);
		if (f % 97 == 0) /* now and then a frame drawn from blank, as ui_render does */
			wb_grid_erase(&g);
		ui_flush(&u);
		snapshot(diffed);
		ui_apply_theme(&u); /* forgets what was shown: the next flush repaints all */
		ui_flush(&u);
		snapshot(full);
		assert_same_screen(diffed, full, f);
	}
	endwin();
	wb_grid_finish(&g);
	fclose(null);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(changes_equal_repaint),
	};

	setlocale(LC_ALL, "C.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
