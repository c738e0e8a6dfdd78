// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What one live sample costs, beside merely reading the same files with
 * open/read/close. Prints CPU time per sample (user+system, median of runs);
 * run under callgrind with --toggle-collect=one_* for instruction counts
 * (bench/run-bench does both).
 *   bench_collect sample|bare|procs [iterations]
 */
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench_util.h"
#include "wbtop/live.h"

/* The files a sample reads (without the process table). */
static void list_files(void)
{
	static const char *const pat[] = {
		"/proc/vmstat", "/proc/meminfo", "/proc/zoneinfo", "/proc/self/mountinfo",
		"/sys/devices/system/cpu/online", "/sys/devices/system/node/node*/meminfo",
		"/proc/sys/vm/dirty_*", "/proc/sys/vm/dirtytime_expire_seconds", "/proc/sys/vm/laptop_mode",
		"/sys/class/bdi/*/m*_ratio", "/sys/class/bdi/*/m*_ratio_fine", "/sys/class/bdi/*/m*_bytes",
		"/sys/class/bdi/*/strict_limit", "/sys/kernel/debug/bdi/*/stats",
		"/sys/kernel/debug/bdi/*/wb_stats",
	};
	bench_glob("", pat, sizeof(pat) / sizeof(pat[0]));
}

__attribute__((noinline)) void one_sample(struct wb_live *l, struct wb_sample *s)
{
	wb_live_read(l, s);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sample";
	int iters = argc > 2 ? atoi(argv[2]) : 200, runs = 9;
	bool procs = strcmp(mode, "procs") == 0;
	struct wb_live_opts o = { .root = "/", .procs = procs };
	char err[256];
	struct wb_live *l = wb_live_create(&o, err, sizeof(err));
	struct wb_sample s;
	double t[9], wmax = 0;

	if (!l) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	list_files();
	wb_sample_init(&s);
	one_sample(l, &s); /* open the kept descriptors once */
	for (int r = 0; r < runs; r++) {
		double t0 = bench_cpu_s();
		for (int i = 0; i < iters; i++) {
			double w0 = bench_wall_s(), w;
			if (strcmp(mode, "bare") == 0)
				one_bare();
			else
				one_sample(l, &s);
			w = bench_wall_s() - w0;
			wmax = w > wmax ? w : wmax;
		}
		t[r] = (bench_cpu_s() - t0) / iters;
	}
	qsort(t, runs, sizeof(t[0]), bench_cmp);
	/* the UI reads keys between samples: the longest sample bounds a key's wait */
	printf("%-7s %zu BDIs, %d files: median CPU %.1f us per sample (%d runs x %d), longest %.2f ms wall\n",
	       mode, s.nbdis, bench_npaths, t[runs / 2] * 1e6, runs, iters, wmax * 1e3);
	wb_sample_finish(&s);
	wb_live_destroy(l);
	return 0;
}
