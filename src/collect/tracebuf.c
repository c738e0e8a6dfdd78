// SPDX-License-Identifier: GPL-2.0-or-later
/* Kept-open per-CPU raw trace buffers, merged by timestamp (see tracebuf.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kbuffer.h>

#include "wbtop/kvfile.h"
#include "wbtop/tracebuf.h"

/* Sub-buffers read from one CPU in one drain at most: a writer faster than the reader ends it. */
#define MAX_PAGES 4096

/* One CPU: its buffer, the sub-buffers read this drain, and a cursor. */
struct cpubuf {
	struct tracefs_cpu *tcpu;
	struct kbuffer *kbuf;
	struct wb_kvfile stats;
	char *pages;          /* npages sub-buffers of psize bytes */
	size_t npages, cap, next;
	void *data;           /* the current record, NULL when done */
	unsigned long long ts;
	unsigned long long overrun; /* its stats' overrun count when last read */
	bool have_overrun;
};

struct wb_tracebuf {
	struct tep_handle *tep;
	struct cpubuf *c;
	int ncpu;
	size_t psize;
};

/* Open one CPU's buffer and stats file. 0 or -1. */
static int cpu_open(struct wb_tracebuf *b, struct tracefs_instance *inst, int cpu)
{
	struct cpubuf *c = &b->c[cpu];
	char *dir = tracefs_instance_get_dir(inst), *path = NULL;
	int err = -1;

	c->tcpu = tracefs_cpu_open(inst, cpu, true);
	/* this machine's own buffers: its long size and byte order */
	c->kbuf = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				*(const unsigned char *)&(const int){ 1 } ? KBUFFER_ENDIAN_LITTLE
									  : KBUFFER_ENDIAN_BIG);
	if (dir && asprintf(&path, "%s/per_cpu/cpu%d/stats", dir, cpu) >= 0 &&
	    wb_kvfile_init(&c->stats, path) == 0 && c->tcpu && c->kbuf) {
		c->stats.one_shot = true;
		if ((size_t)tracefs_cpu_read_size(c->tcpu) > b->psize)
			b->psize = (size_t)tracefs_cpu_read_size(c->tcpu);
		err = 0;
	}
	free(path);
	tracefs_put_tracing_file(dir);
	return err;
}

struct wb_tracebuf *wb_tracebuf_create(struct tracefs_instance *inst, struct tep_handle *tep)
{
	struct wb_tracebuf *b = calloc(1, sizeof(*b));
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (!b)
		return NULL;
	b->tep = tep;
	b->ncpu = n > 0 && n < 4096 ? (int)n : 1;
	b->c = calloc((size_t)b->ncpu, sizeof(*b->c));
	if (!b->c) {
		free(b);
		return NULL;
	}
	for (int i = 0; i < b->ncpu; i++)
		if (cpu_open(b, inst, i)) {
			wb_tracebuf_destroy(b);
			return NULL;
		}
	return b;
}

void wb_tracebuf_destroy(struct wb_tracebuf *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->ncpu && b->c; i++) {
		if (b->c[i].tcpu)
			tracefs_cpu_close(b->c[i].tcpu);
		if (b->c[i].kbuf)
			kbuffer_free(b->c[i].kbuf);
		wb_kvfile_finish(&b->c[i].stats);
		free(b->c[i].pages);
	}
	free(b->c);
	free(b);
}

/* Read every sub-buffer one CPU holds now (MAX_PAGES at most). 0 or -1. */
static int cpu_fill(struct wb_tracebuf *b, struct cpubuf *c)
{
	c->npages = c->next = 0;
	c->data = NULL;
	while (c->npages < MAX_PAGES) {
		int n;

		if (c->npages == c->cap) {
			size_t nc = c->cap ? c->cap * 2 : 4;
			char *np = realloc(c->pages, nc * b->psize);
			if (!np)
				return -1;
			c->pages = np;
			c->cap = nc;
		}
		n = tracefs_cpu_read(c->tcpu, c->pages + c->npages * b->psize, true);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0)
			return n == 0 ? 0 : -1;
		c->npages++;
	}
	return 0;
}

/* Move one CPU's cursor to its next record (loading its next sub-buffer). */
static void cpu_advance(struct wb_tracebuf *b, struct cpubuf *c)
{
	if (c->data)
		c->data = kbuffer_next_event(c->kbuf, &c->ts);
	while (!c->data && c->next < c->npages) {
		if (kbuffer_load_subbuffer(c->kbuf, c->pages + c->next++ * b->psize) == 0)
			c->data = kbuffer_read_event(c->kbuf, &c->ts);
	}
}

int wb_tracebuf_drain(struct wb_tracebuf *b, wb_tracebuf_fn fn, void *ctx)
{
	int rc = 0;

	for (int i = 0; i < b->ncpu; i++) {
		if (cpu_fill(b, &b->c[i]))
			rc = -1;
		cpu_advance(b, &b->c[i]);
	}
	for (;;) { /* oldest first; on equal times the lower CPU, as libtracefs */
		struct tep_record r = { 0 };
		struct tep_event *ev;
		int j = -1;

		for (int i = 0; i < b->ncpu; i++)
			if (b->c[i].data && (j < 0 || b->c[i].ts < b->c[j].ts))
				j = i;
		if (j < 0)
			break;
		r.ts = b->c[j].ts;
		r.data = b->c[j].data;
		r.size = kbuffer_event_size(b->c[j].kbuf);
		r.cpu = j;
		ev = tep_find_event_by_record(b->tep, &r);
		if (ev)
			fn(ev, &r, j, ctx);
		cpu_advance(b, &b->c[j]);
	}
	return rc;
}

unsigned long long wb_tracebuf_overruns(struct wb_tracebuf *b)
{
	unsigned long long sum = 0;

	for (int i = 0; i < b->ncpu; i++) {
		struct cpubuf *c = &b->c[i];
		const char *p;

		/*
		 * A buffer the last drain found empty has lost nothing since its
		 * stats were read: an overrun overwrites unread pages, and those
		 * would have been there to read. Its count stands.
		 */
		if (!c->have_overrun || c->npages > 0) {
			c->have_overrun = wb_kvfile_read(&c->stats, NULL) == 0 && (p = strstr(c->stats.buf, "overrun:"));
			c->overrun = c->have_overrun ? strtoull(p + 8, NULL, 10) : 0;
		}
		sum += c->overrun;
	}
	return sum;
}
