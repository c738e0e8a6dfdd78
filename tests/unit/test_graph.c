// SPDX-License-Identifier: GPL-2.0-or-later
/* The Graph pane's parts without a terminal: the plotting canvas and the timeline. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "wbtop/graph.h"
#include "wbtop/plot.h"
#include "wbtop/timeline.h"

static void braille_dots(void **st)
{
	struct wb_plot *p = wb_plot_create(2, 1, WB_PLOT_BRAILLE);
	double x[] = { 0 }, y[] = { 1 }, x2[] = { 3 }, y2[] = { 0 };
	int role;
	(void)st;
	wb_plot_window(p, 0, 3, 0, 1);
	/* top-left dot of cell 0: U+2801; bottom-right dot of cell 1: U+2880 */
	wb_plot_line(p, x, y, 1, 3, false);
	wb_plot_line(p, x2, y2, 1, 4, false);
	assert_string_equal(wb_plot_cell(p, 0, 0, &role), "\xe2\xa0\x81");
	assert_int_equal(role, 3);
	assert_string_equal(wb_plot_cell(p, 1, 0, &role), "\xe2\xa2\x80");
	assert_int_equal(role, 4);
	assert_string_equal(wb_plot_cell(p, 5, 0, &role), " ");
	assert_int_equal(role, -1);
	wb_plot_destroy(p);
	assert_null(wb_plot_create(0, 5, WB_PLOT_ASCII));
	wb_plot_destroy(NULL);
}

static void lines_and_limits(void **st)
{
	struct wb_plot *p = wb_plot_create(10, 5, WB_PLOT_ASCII);
	double x[] = { 0, 9 }, y[] = { 0, 4 }, hi[] = { 1, 100 };
	int role, stars = 0;
	(void)st;
	wb_plot_window(p, 0, 9, 0, 4);
	wb_plot_line(p, x, y, 2, 1, false);
	for (int c = 0; c < 10; c++)
		for (int r = 0; r < 5; r++)
			stars += strcmp(wb_plot_cell(p, c, r, &role), "*") == 0;
	assert_int_equal(stars, 10); /* one dot per column on a shallow line */
	assert_string_equal(wb_plot_cell(p, 0, 4, &role), "*");
	assert_string_equal(wb_plot_cell(p, 9, 0, &role), "*");
	/* above the window: left out, not drawn along the top edge */
	wb_plot_line(p, x, hi, 2, 2, true);
	assert_string_equal(wb_plot_cell(p, 9, 0, &role), "*");
	assert_int_equal(role, 1);
	wb_plot_hline(p, 2, 5, false);
	assert_string_equal(wb_plot_cell(p, 4, 2, &role), "-");
	wb_plot_vline(p, 5, 6);
	assert_string_equal(wb_plot_cell(p, 5, 0, &role), "|");
	assert_int_equal(role, 6);
	wb_plot_destroy(p);
}

static void nice_axis(void **st)
{
	(void)st;
	assert_true(wb_plot_nice_max(0, false) == 1);
	assert_true(wb_plot_nice_max(3, false) == 3);
	assert_true(wb_plot_nice_max(3.1, false) == 4);
	assert_true(wb_plot_nice_max(20, false) == 20);
	assert_true(wb_plot_nice_max(21, false) == 25);
	assert_true(wb_plot_nice_max(80.0 * (1 << 20), true) == 80.0 * (1 << 20));
	assert_true(wb_plot_nice_max(4.6 * (1 << 30), true) == 5.0 * (1 << 30));
	assert_true(wb_plot_nice_max(NAN, true) == 1);
	/* one rule for the levels and the rates, in fine steps: 110 is 150, not 200; 26 is 30, not 50 */
	assert_true(wb_plot_nice_max(110.0 * (1 << 20), true) == 150.0 * (1 << 20));
	assert_true(wb_plot_nice_max(128.0 * (1 << 20), true) == 150.0 * (1 << 20)); /* a threshold: not 200M */
	assert_true(wb_plot_nice_max(26.0 * (1 << 20), true) == 30.0 * (1 << 20));
	assert_true(wb_plot_nice_max(5.2 * (1 << 20), true) == 6.0 * (1 << 20));
	assert_true(wb_plot_nice_max(7, false) == 8);
	assert_true(wb_plot_nice_max(9, false) == 10);
	assert_true(wb_plot_nice_max(0, true) == 1);
}

/* A sample with one BDI of `dirty` pages and `pauses` throttling pauses. */
static void sample(struct wb_sample *s, double t, const char *bdi, uint64_t dirty, uint32_t pauses)
{
	wb_sample_init(s);
	s->mono = t;
	s->wall = 1000 + t;
	s->page_size = 4096;
	s->g.v[WB_G_DIRTY] = dirty;
	s->g.valid = WB_BIT(WB_G_DIRTY) | WB_BIT(WB_G_WRITEBACK);
	s->ev_valid = true;
	s->bdis = calloc(1, sizeof(*s->bdis));
	s->nbdis = 1;
	snprintf(s->bdis[0].name, WB_NAME_LEN, "%s", bdi);
	s->bdis[0].st[WB_B_RECLAIMABLE] = dirty;
	s->bdis[0].st_valid = WB_BIT(WB_B_RECLAIMABLE) | WB_BIT(WB_B_WRITEBACK);
	s->bdis[0].ev.pauses = pauses;
}

static void timeline_merges(void **st)
{
	struct wb_timeline *t = wb_timeline_create(16);
	struct wb_sample s;
	(void)st;
	for (int i = 0; i < 16; i++) {
		sample(&s, i, i < 4 ? "7:0" : "7:1", (uint64_t)i, 1);
		assert_int_equal(wb_timeline_push(t, &(struct wb_view){ .cur = &s }), 0);
		wb_sample_finish(&s);
	}
	assert_int_equal(wb_timeline_len(t), 16);
	const double *d1 = wb_timeline_bdi(t, "7:1", WB_TL_B_DIRTY);
	assert_true(isnan(d1[0]) && d1[4] == 4 * 4096.0); /* unknown before it appeared */
	assert_null(wb_timeline_bdi(t, "7:9", WB_TL_B_DIRTY));
	sample(&s, 15, "7:1", 99, 0); /* not newer: ignored */
	wb_timeline_push(t, &(struct wb_view){ .cur = &s });
	wb_sample_finish(&s);
	assert_int_equal(wb_timeline_len(t), 16);
	sample(&s, 16, "7:1", 16, 1); /* full: the older half merges pairwise */
	wb_timeline_push(t, &(struct wb_view){ .cur = &s });
	wb_sample_finish(&s);
	assert_int_equal(wb_timeline_len(t), 4 + 8 + 1);
	const double *m = wb_timeline_mono(t), *g = wb_timeline_global(t, WB_TL_G_DIRTY);
	const double *p0 = wb_timeline_bdi(t, "7:0", WB_TL_B_PAUSES);
	assert_true(m[0] == 1 && m[3] == 7 && m[4] == 8 && m[12] == 16);
	assert_true(g[0] == 0.5 * 4096 && g[3] == 6.5 * 4096); /* levels: the mean */
	assert_true(p0[0] == 2 && p0[1] == 2 && isnan(p0[2]));   /* counts: the sum */
	wb_timeline_clear(t);
	assert_int_equal(wb_timeline_len(t), 0);
	wb_timeline_destroy(t);
}

/* A text grid the pane draws into: a code point a cell (at most 4 bytes). */
#define GW 80
#define GH 30
struct tgrid {
	char cell[GH][GW][5];
};

static void tput(void *ctx, int y, int x, int role, const char *s)
{
	struct tgrid *g = ctx;
	(void)role;
	while (*s && y >= 0 && y < GH) {
		int len = (*s & 0x80) == 0 ? 1 : (*s & 0xE0) == 0xC0 ? 2 : (*s & 0xF0) == 0xE0 ? 3 : 4;
		if (x >= 0 && x < GW) {
			memcpy(g->cell[y][x], s, (size_t)len);
			g->cell[y][x][len] = '\0';
		}
		s += len;
		x++;
	}
}

/* A pause and a flusher wakeup in one sample: both marks show, each on its row (the pause hid the wakeup). */
static void marks_both_kinds(void **st)
{
	struct wb_timeline *t = wb_timeline_create(256);
	struct tgrid *g = calloc(1, sizeof(*g));
	struct wb_sample s;
	int row = -1, col = -1, both = 0;
	(void)st;
	for (int i = 0; i < 60; i++) {
		sample(&s, i, "7:0", 10, i == 30 || i == 50 ? 1 : 0);
		s.bdis[0].ev.start[0] = i == 30 || i == 40 ? 1 : 0;
		assert_int_equal(wb_timeline_push(t, &(struct wb_view){ .cur = &s }), 0);
		wb_sample_finish(&s);
	}
	wb_graph_draw(&(struct wb_graph_in){ .tl = t, .bdi = "7:0", .label = "loop0", .now = 59, .page_size = 4096,
					     .glyphs = WB_PLOT_BRAILLE },
		      0, 0, GW, GH, tput, g);
	for (int y = 0; y < GH; y++)
		if (strcmp(g->cell[y][0], "m") == 0 && strcmp(g->cell[y][1], "a") == 0)
			row = y;
	assert_true(row >= 0 && row + 1 < GH);
	for (int x = 7; x < GW; x++) {
		bool pause = strcmp(g->cell[row][x], "\u25bc") == 0, wake = strcmp(g->cell[row + 1][x], "\u2022") == 0;
		both += pause && wake;
		if (pause && col < 0)
			col = x;
	}
	assert_int_equal(both, 1);  /* sample 30: both */
	assert_true(col >= 7);      /* and the first pause is there */
	assert_string_equal(g->cell[row + 1][col], "\u2022");
	free(g);
	wb_timeline_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(braille_dots),
		cmocka_unit_test(lines_and_limits),
		cmocka_unit_test(nice_axis),
		cmocka_unit_test(timeline_merges),
		cmocka_unit_test(marks_both_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
