/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the benchmarks share: CPU time, medians, and bare reads of a file list. */
#ifndef WBTOP_BENCH_UTIL_H
#define WBTOP_BENCH_UTIL_H

#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define BENCH_MAX_FILES 4096

static char *bench_paths[BENCH_MAX_FILES];
static int bench_npaths;

/* Add the files matching each pattern (prefixed with root) to the list. */
static inline void bench_glob(const char *root, const char *const *pat, size_t n)
{
	char p[1024];

	for (size_t i = 0; i < n; i++) {
		glob_t g;
		snprintf(p, sizeof(p), "%s%s", root, pat[i]);
		if (glob(p, 0, NULL, &g) == 0)
			for (size_t j = 0; j < g.gl_pathc && bench_npaths < BENCH_MAX_FILES; j++)
				bench_paths[bench_npaths++] = strdup(g.gl_pathv[j]);
		globfree(&g);
	}
}

/* What merely reading the same files costs: open, read, close each. */
__attribute__((noinline)) void one_bare(void)
{
	static char buf[65536];
	for (int i = 0; i < bench_npaths; i++) {
		int fd = open(bench_paths[i], O_RDONLY);
		if (fd < 0)
			continue;
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
}

static inline double bench_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static inline double bench_wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#endif
