// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the BDI collector costs as the BDIs grow to the 4096 it follows. A
 * --root tree of N BDIs (their knob files) is made in /tmp; a tree has no
 * uevents, so every sample lists /sys/class/bdi again and finds each BDI's
 * state: a listing that grows faster than N shows as a cost per BDI that
 * grows with N. Prints the first sample (every state made) and the median
 * of runs of samples after it, CPU time and its user part (the kernel's part
 * grows past the open-files limit: files opened each sample, not kept).
 *   bench_bdis [N ...]   (default 256 1024 4096)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"
#include "wbtop/bdi.h"

/* The knob files a 6.18 kernel shows under each /sys/class/bdi entry. */
static const char *const knobs[][2] = {
	{ "min_ratio", "0" }, { "max_ratio", "100" }, { "min_ratio_fine", "0" },
	{ "max_ratio_fine", "1000000" }, { "min_bytes", "0" }, { "max_bytes", "4991930368" },
	{ "strict_limit", "0" },
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* A tree under dir with n BDIs named 9:0 .. 9:n-1, created in the order readdir may not keep. */
static void make_tree(const char *dir, int n)
{
	char p[512];

	snprintf(p, sizeof(p), "mkdir -p %s/sys/class/bdi", dir);
	if (system(p) != 0)
		exit(1);
	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/sys/class/bdi/9:%d", dir, i);
		mkdir(p, 0755);
		for (size_t k = 0; k < sizeof(knobs) / sizeof(knobs[0]); k++) {
			snprintf(p, sizeof(p), "%s/sys/class/bdi/9:%d/%s", dir, i, knobs[k][0]);
			put(p, knobs[k][1]);
		}
	}
}

static double user_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
}

__attribute__((noinline)) void one_read(struct wb_bdis *b, struct wb_sample *s, struct wb_diag *d)
{
	wb_diag_clear(d);
	wb_bdis_read(b, s, d);
}

static void bench(int n, int runs, int iters)
{
	char dir[] = "/tmp/bench_bdis.XXXXXX", cmd[64];
	struct wb_bdis b;
	struct wb_sample s;
	struct wb_diag d = { 0 };
	double first, t[9], u[9];

	if (!mkdtemp(dir))
		exit(1);
	make_tree(dir, n);
	wb_sample_init(&s);
	s.page_size = 4096;
	if (wb_bdis_open(&b, dir)) {
		fprintf(stderr, "%s: cannot open\n", dir);
		exit(1);
	}
	first = bench_cpu_s();
	one_read(&b, &s, &d);
	first = bench_cpu_s() - first;
	for (int r = 0; r < runs; r++) {
		double t0 = bench_cpu_s(), u0 = user_s();
		for (int i = 0; i < iters; i++)
			one_read(&b, &s, &d);
		t[r] = (bench_cpu_s() - t0) / iters;
		u[r] = (user_s() - u0) / iters;
	}
	qsort(t, (size_t)runs, sizeof(t[0]), bench_cmp);
	qsort(u, (size_t)runs, sizeof(u[0]), bench_cmp);
	printf("%5d BDIs (%zu read): first sample %7.2f ms, then %6.2f ms a sample (user %6.2f ms), "
	       "%5.2f us a BDI (user %5.2f us)\n", n, s.nbdis, first * 1e3, t[runs / 2] * 1e3, u[runs / 2] * 1e3,
	       t[runs / 2] * 1e6 / n, u[runs / 2] * 1e6 / n);
	wb_bdis_close(&b);
	wb_sample_finish(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "%s: not removed\n", dir);
}

int main(int argc, char **argv)
{
	static const int dflt[] = { 256, 1024, 4096 };
	struct rlimit rl;

	/* as wbtop does: room to keep every knob file open */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (int i = 1; i < (argc > 1 ? argc : 1 + (int)(sizeof(dflt) / sizeof(dflt[0]))); i++) {
		int n = argc > 1 ? atoi(argv[i]) : dflt[i - 1];
		n = n < 1 ? 1 : n > 8192 ? 8192 : n;
		bench(n, 9, 20); /* 9 runs of 20 samples: the median run's figure a sample */
	}
	return 0;
}
