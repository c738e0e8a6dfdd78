// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event throughput of the trace collector: its instance, plus (for load)
 * writeback:writeback_dirty_folio, which fires for every page dirtied, while
 * the caller runs writers. Drains every 100 ms for SEC seconds and prints
 * events/s handled, CPU per 1,000 events and the kernel's dropped count.
 *   bench_trace SEC      (root, tracefs mounted)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <tracefs.h>

#include "wbtop/trace.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10, t0, c0, end;
	char err[256], path[600];
	struct wb_trace *t = wb_trace_create(NULL, 8192, err, sizeof(err));
	struct wb_sample s;
	struct wb_diag d = { 0 };
	unsigned long long total = 0, dropped = 0;
	FILE *f;

	if (!t) {
		fprintf(stderr, "bench_trace: %s\n", err);
		return 1;
	}
	/* per-page and per-inode events: far more than wbtop ever enables */
	for (const char *const *e = (const char *const[]){ "writeback_dirty_folio", "writeback_mark_inode_dirty",
							   "writeback_dirty_inode_start", "writeback_dirty_inode", NULL };
	     *e; e++) {
		snprintf(path, sizeof(path), "%s/events/writeback/%s/enable", wb_trace_instance_path(t), *e);
		f = fopen(path, "w");
		if (f)
			fputs("1", f);
		if (!f || fclose(f)) {
			fprintf(stderr, "bench_trace: cannot enable %s for load\n", *e);
			wb_trace_destroy(t);
			return 1;
		}
	}
	wb_sample_init(&s);
	wb_trace_drain(t, &s, &d);
	t0 = now();
	c0 = cpu_s();
	end = t0 + secs;
	while (now() < end) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		if (wb_trace_drain(t, &s, &d) < 0)
			break;
		total += s.ev_total;
		dropped += s.ev_dropped;
	}
	{
		double wall = now() - t0, cpu = cpu_s() - c0;
		printf("trace: %.0f events/s handled over %.1f s, %.1f us CPU per 1,000 events, %llu dropped\n",
		       total / wall, wall, total ? cpu * 1e6 / (total / 1000.0) : 0, dropped);
	}
	wb_sample_finish(&s);
	wb_trace_destroy(t);
	return 0;
}
