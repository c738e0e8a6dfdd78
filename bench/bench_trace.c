// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event throughput of the trace collector: its instance, plus (for load)
 * writeback:writeback_dirty_folio, which fires for every page dirtied, while
 * the caller runs writers. Drains every 100 ms for SEC seconds and prints
 * the records read a second (the ring buffer's own count, every CPU), how
 * many of them were wbtop's events, CPU per 1,000 records and the kernel's
 * dropped count. The load events' formats are not parsed - wbtop never
 * enables them - so their records are read and skipped.
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

/* The records read from the instance so far: "read events" of every CPU. */
static unsigned long long records_read(const char *inst)
{
	unsigned long long sum = 0, v;
	char path[700], line[128];

	for (int cpu = 0;; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", inst, cpu);
		f = fopen(path, "r");
		if (!f)
			return sum;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "read events: %llu", &v) == 1)
				sum += v;
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10, t0, c0, end;
	char err[256], path[600];
	struct wb_trace *t = wb_trace_create(NULL, 8192, err, sizeof(err));
	struct wb_sample s;
	struct wb_diag d = { 0 };
	unsigned long long total = 0, dropped = 0, r0;
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
	r0 = records_read(wb_trace_instance_path(t));
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
		double recs = (double)(records_read(wb_trace_instance_path(t)) - r0);

		printf("trace: %.0f records/s read over %.1f s (%.0f/s of them wbtop's events), "
		       "%.1f us CPU per 1,000 records, %llu dropped\n",
		       recs / wall, wall, total / wall, recs ? cpu * 1e6 / (recs / 1000.0) : 0, dropped);
	}
	wb_sample_finish(&s);
	wb_trace_destroy(t);
	return 0;
}
