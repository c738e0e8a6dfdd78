// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One UI frame: sample + model + full redraw at 200x60 (ncurses writing to
 * /dev/null), against merely reading the same kernel files; "graph" is the
 * frame with the Graph pane shown (the timeline, a 60 s forecast each sample
 * and the plots).
 *   bench_frame ROOT frame|graph|bare [iterations] [COLSxROWS (200x60)]
 * Prints the median CPU time per frame; run-bench adds instruction counts.
 */
#include <curses.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../src/ui/ui_internal.h"
#include "bench_util.h"
#include "wbtop/live.h"

static void list_files(const char *root)
{
	static const char *const sub[] = { "/proc/*", "/proc/sys/vm/*", "/proc/self/mountinfo",
					   "/sys/class/bdi/*/*", "/sys/kernel/debug/bdi/*/*",
					   "/sys/devices/system/node/node*/meminfo", "/sys/devices/system/cpu/online" };
	bench_glob(root, sub, sizeof(sub) / sizeof(sub[0]));
}

__attribute__((noinline)) void one_frame(struct ui *u, struct wb_live *l)
{
	struct wb_sample s;

	wb_sample_init(&s);
	wb_live_read(l, &s);
	ui_push(u, &s); /* the pipeline: window, model, derived figures */
	wb_sample_finish(&s);
	ui_build_rows(u);
	ui_render(u); /* into the grid, then the grid to curses */
	ui_flush(u);
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : "/", *mode = argc > 2 ? argv[2] : "frame";
	int iters = argc > 3 ? atoi(argv[3]) : 100;
	struct wb_ui_opts o = { .delay = 1, .warn_pct = 75, .crit_pct = 95 };
	struct wb_grid g = { 0 };
	struct ui u = { .o = &o, .delay = 1, .utf8 = true, .grid = &g };
	struct wb_live_opts lo = { .root = root };
	char err[256];
	struct wb_live *l = wb_live_create(&lo, err, sizeof(err));
	FILE *null = fopen("/dev/null", "w");
	double t[9];

	if (!l || !null)
		return 1;
	setenv("TERM", "xterm-256color", 1);
	newterm(NULL, null, stdin);
	{
		int cols = 200, rows = 60;
		if (argc > 4 && (sscanf(argv[4], "%dx%d", &cols, &rows) != 2 || cols < 20 || rows < 10))
			return 2;
		resizeterm(rows, cols);
		if (wb_grid_resize(&g, cols, rows))
			return 1;
	}
	start_color();
	use_default_colors();
	wb_theme_default(&u.theme);
	ui_apply_theme(&u);
	u.pl = wb_pipeline_create(&(struct wb_pipeline_opts){ .window = 600, .timeline = 4096 });
	if (!u.pl)
		return 1;
	if (strcmp(mode, "graph") == 0) {
		u.pane = P_GRAPH;
		ui_graph_shown(&u, true);
	}
	u.ring = wb_pipeline_history(u.pl);
	list_files(root);
	one_frame(&u, l);
	for (int r = 0; r < 9; r++) {
		double t0 = bench_cpu_s();
		for (int i = 0; i < iters; i++) {
			if (strcmp(mode, "bare") == 0)
				one_bare();
			else
				one_frame(&u, l);
		}
		t[r] = (bench_cpu_s() - t0) / iters;
	}
	endwin();
	qsort(t, 9, sizeof(t[0]), bench_cmp);
	fprintf(stderr, "%-5s %zu BDIs at %dx%d, %d files: median CPU %.1f us per frame\n", mode,
		wb_ring_get(u.ring, 0)->nbdis, COLS, LINES, bench_npaths, t[4] * 1e6);
	return 0;
}
