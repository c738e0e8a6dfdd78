// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Root: records lost to overrun grow the trace buffer. A wbtop trace
 * instance made with 256 KiB a CPU is fed ~2 MiB of trace_marker records on
 * one CPU between two drains: the drain must count records lost, say so,
 * and double the buffer (the instance's buffer_size_kb reads 512, or a
 * little more: the kernel rounds up to whole sub-buffers). Then 300 KiB
 * of text (~360 KiB as records: more than the old buffer held, less than
 * the new one less the sub-buffer being read) must come through with none
 * lost. The instance is removed at the end, also on a
 * failed check. Exit 77 (skipped) without root or tracefs.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wbtop/sample.h"
#include "wbtop/trace.h"
#include "wbtop/util.h"
#include "check.h"


/* bytes of 100-byte records into the instance's trace_marker */
static void feed(const char *dir, size_t bytes)
{
	char path[4096], rec[101];
	int fd;

	snprintf(path, sizeof(path), "%s/trace_marker", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		perror(path);
		fails++;
		return;
	}
	memset(rec, 'x', sizeof(rec));
	for (size_t n = 0; n < bytes; n += 100)
		if (write(fd, rec, 100) != 100)
			break;
	close(fd);
}

static long buffer_kb(const char *dir)
{
	char path[4096];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/buffer_size_kb", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &kb) != 1)
		kb = -1;
	fclose(f);
	return kb;
}

/* kb as set: the kernel rounds up to whole sub-buffers (64 KiB) */
static int about(long got, long kb)
{
	return got >= kb && got < kb + 64;
}

static int has_diag(const struct wb_diag *d, const char *what)
{
	for (int i = 0; i < d->n; i++)
		if (strstr(d->msg[i], what))
			return 1;
	return 0;
}

int main(void)
{
	char err[256];
	struct wb_trace *t;
	struct wb_sample s;
	struct wb_diag d;
	cpu_set_t one;
	const char *dir;

	if (geteuid() != 0) {
		fprintf(stderr, "skip: needs root\n");
		return 77;
	}
	t = wb_trace_create(NULL, 256, err, sizeof(err));
	if (!t) {
		fprintf(stderr, "skip: %s\n", err);
		return 77;
	}
	dir = wb_trace_instance_path(t);
	/* one CPU: its buffer alone takes the records */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	wb_sample_init(&s);
	wb_diag_clear(&d);
	wb_trace_drain(t, &s, &d); /* what was there before */
	CHECK(about(buffer_kb(dir), 256), "buffer_size_kb %ld at the start, not 256", buffer_kb(dir));

	feed(dir, 2 << 20);
	wb_diag_clear(&d);
	wb_trace_drain(t, &s, &d);
	CHECK(s.ev_dropped > 0, "2 MiB into a 256 KiB buffer, no record counted lost");
	CHECK(has_diag(&d, "buffer grown from 256 to 512 KiB"), "no diagnostic of the growth (%d messages%s%s)", d.n,
	      d.n ? ": " : "", d.n ? d.msg[0] : "");
	CHECK(about(buffer_kb(dir), 512), "buffer_size_kb %ld after the loss, not 512", buffer_kb(dir));

	feed(dir, 300 << 10);
	wb_diag_clear(&d);
	wb_trace_drain(t, &s, &d);
	CHECK(s.ev_dropped == 0, "300 KiB into the grown 512 KiB buffer: %llu lost", (unsigned long long)s.ev_dropped);
	CHECK(about(buffer_kb(dir), 512), "buffer_size_kb %ld without a loss, not 512", buffer_kb(dir));

	wb_sample_finish(&s);
	wb_trace_destroy(t);
	if (fails)
		return 1;
	printf("ok: 2 MiB lost records and grew the buffer to 512 KiB; 300 KiB then came through whole\n");
	return 0;
}
