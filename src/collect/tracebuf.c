// SPDX-License-Identifier: GPL-2.0-or-later
/* Kept-open per-CPU raw trace buffers, merged by timestamp (see tracebuf.h). */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wbtop/kvfile.h"
#include "wbtop/tracebuf.h"

/* Sub-buffers read from one CPU in one drain at most: a writer faster than the reader ends it. */
#define MAX_BYTES (16u << 20) /* 4096 pages of 4 KiB, whatever the sub-buffer size */
/* The pipe the full sub-buffers are spliced through: 256 of them a call (pipe-max-size's default) */
#define PIPE_BYTES (1 << 20)
/* Drains in a row that spliced nothing where read() then found full sub-buffers: a CPU given up */
#define SPLICE_MISSES 8

/* The ring buffer's page header: u64 time stamp, long commit (flags on top). */
#define SUB_HDR (8 + sizeof(long))
#define COMMIT_MASK ((1u << 27) - 1)
/* Event header type_len values (kernel/trace/ring_buffer.c) */
enum { RB_PADDING = 29, RB_TIME_EXTEND = 30, RB_TIME_STAMP = 31 };
#define TS_MSB (0xf8ULL << 56)

/*
 * The mapped ring buffer of Linux 6.10+ (include/uapi/linux/trace_mmap.h,
 * not in Debian 12's headers): a meta page, then every sub-buffer by id.
 * The ioctl hands the reader sub-buffer to user space, marking what it
 * holds read; the reader keeps its own place in it.
 */
struct rb_meta {
	uint32_t meta_page_size, meta_struct_len, subbuf_size, nr_subbufs;
	struct {
		uint64_t lost_events;
		uint32_t id, read;
	} reader;
	uint64_t flags, entries, overrun, read;
};
#define RB_GET_READER _IO('R', 0x20)

void wb_subbuf_load(struct wb_subbuf *w, const void *sub, size_t len)
{
	uint64_t ts;
	unsigned long commit;

	memset(w, 0, sizeof(*w));
	if (len < SUB_HDR)
		return;
	memcpy(&ts, sub, 8);
	memcpy(&commit, (const char *)sub + 8, sizeof(long));
	w->data = (const unsigned char *)sub + SUB_HDR;
	w->size = (uint32_t)(commit & COMMIT_MASK);
	if (w->size > len - SUB_HDR)
		w->size = (uint32_t)(len - SUB_HDR);
	w->ts = ts;
}

static uint32_t rd4(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

const void *wb_subbuf_next(struct wb_subbuf *w, uint32_t *len)
{
	/* struct ring_buffer_event { u32 type_len:5, time_delta:27; u32 array[]; } */
	const bool be = !*(const unsigned char *)&(const int){ 1 };

	while (w->next + 4 <= w->size) {
		const unsigned char *p = w->data + w->next;
		uint32_t h = rd4(p), type = be ? h >> 27 : h & 31, delta = be ? h & 0x7ffffff : h >> 5, a0;

		if (type >= 1 && type <= 28) { /* the common case: data of type * 4 bytes */
			w->ts += delta;
			*len = type * 4;
			w->next += 4 + *len;
			return p + 4;
		}
		if (w->next + 8 > w->size)
			break;
		a0 = rd4(p + 4);
		switch (type) {
		case 0: /* a long record: its length (itself included) in array[0] */
			w->ts += delta;
			*len = ((a0 - 4) + 3) & ~3u;
			w->next += 8 + *len;
			return p + 8;
		case RB_PADDING:
			w->ts += delta;
			w->next += 4 + a0;
			break;
		case RB_TIME_EXTEND:
			w->ts += ((unsigned long long)a0 << 27) + delta;
			w->next += 8;
			break;
		default: /* RB_TIME_STAMP: absolute, its top bits from the time so far */
			w->ts = (((unsigned long long)a0 << 27) + delta) | (w->ts & TS_MSB);
			w->next += 8;
			break;
		}
	}
	w->next = w->size;
	return NULL;
}

/* One CPU: its buffer, the sub-buffers read this drain, and a cursor. */
struct cpubuf {
	struct tracefs_cpu *tcpu;
	int fd;               /* its trace_pipe_raw (ours: tcpu is made on it), -1 none */
	enum wb_polled poll;  /* what a poll() said of fd for the next drain */
	struct wb_subbuf sub; /* the sub-buffer being walked */
	struct wb_kvfile stats;
	char *pages;          /* npages sub-buffers of psize bytes */
	size_t npages, cap, next;
	const void *data;     /* the current record, NULL when done */
	uint32_t len;         /* its length */
	unsigned long long ts;
	unsigned long long overrun; /* its stats' overrun count when last read */
	bool have_overrun;
	/* mapped (meta non-NULL): the sub-buffers are walked where they are */
	const volatile struct rb_meta *meta;
	size_t maplen;
	const unsigned char *subs; /* sub-buffer 0 */
	uint32_t msize, nsub;      /* sub-buffer size (header included), count */
	long id;                   /* the reader sub-buffer being walked, -1 none */
	size_t loads;              /* sub-buffers loaded this drain */
	bool quiet;                /* empty at this drain's poll(): no ioctl */
	size_t spliced;            /* sub-buffers spliced, in all */
	unsigned splice_misses;    /* drains in a row that spliced none where read() found full ones */
	bool map_err;              /* an ioctl failed this drain */
};

struct wb_tracebuf {
	struct tep_handle *tep;
	struct cpubuf *c;
	int ncpu;
	size_t psize;
	int subbuf;           /* the instance's sub-buffer size, bytes (0: libtracefs's read size) */
	bool pollable;        /* poll() says when a buffer holds anything (buffer_percent 0) */
	/* WB_TB_SPLICE: full sub-buffers spliced in here, then read out at once; -1 none */
	int pipe[2];
	size_t pipe_slots;    /* buffers the pipe holds */
	/*
	 * The event types tep knows (the ones wbtop reads), by id: a record of
	 * any other is passed over where it is found, before the merge.
	 */
	uint8_t want[65536 / 8];
	int type_off, type_size; /* common_type in a record */
};

/* The record's event type (common_type), or -1. */
static int rec_type(const struct wb_tracebuf *b, const void *data)
{
	uint16_t t16;
	uint32_t t32;

	if (b->type_size == 2) {
		memcpy(&t16, (const char *)data + b->type_off, 2);
		return t16;
	}
	if (b->type_size == 4) {
		memcpy(&t32, (const char *)data + b->type_off, 4);
		return (int)t32;
	}
	return -1;
}

static bool wanted(const struct wb_tracebuf *b, const void *data)
{
	int t = rec_type(b, data);

	if (t < 0) /* an unusual common_type: leave it to tep */
		return true;
	return t < 65536 && (b->want[t / 8] & (1u << (t % 8)));
}

/*
 * A CPU's buffer on a descriptor of our own, for poll() (libtracefs keeps
 * its own private) and for a read size of the instance's sub-buffer
 * (libtracefs 1.6 reads a page). subbuf 0: the size libtracefs would use.
 */
static struct tracefs_cpu *cpu_open_fd(struct tracefs_instance *inst, int cpu, int subbuf, int *fd)
{
	struct tracefs_cpu *tcpu = NULL;
	char rel[64];
	int size = subbuf;

	if (size <= 0) {
		struct tracefs_cpu *probe = tracefs_cpu_open(inst, cpu, true);
		size = probe ? tracefs_cpu_read_size(probe) : -1;
		if (probe)
			tracefs_cpu_close(probe);
	}
	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	*fd = size > 0 ? tracefs_instance_file_open(inst, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	if (*fd >= 0 && !(tcpu = tracefs_cpu_alloc_fd(*fd, size, true))) {
		close(*fd);
		*fd = -1;
	}
	return tcpu;
}

/* Re-read the walked sub-buffer's commit: true if it now holds more than walked. */
static bool map_refresh(struct cpubuf *c)
{
	const unsigned long *commit = (const unsigned long *)(c->subs + (size_t)c->id * c->msize + 8);
	/* acquire: the records below the commit are read after it */
	unsigned long v = __atomic_load_n(commit, __ATOMIC_ACQUIRE) & COMMIT_MASK;

	if (v > c->msize - SUB_HDR)
		v = c->msize - SUB_HDR;
	if (v > c->sub.size)
		c->sub.size = (uint32_t)v;
	return c->sub.next < c->sub.size;
}

/* Start walking reader sub-buffer id from its beginning. */
static void map_load(struct cpubuf *c, long id)
{
	c->id = id;
	wb_subbuf_load(&c->sub, c->subs + (size_t)id * c->msize, c->msize);
	c->loads++;
}

/*
 * The next records of a mapped CPU once the walked sub-buffer is done:
 * more committed to it since (the writer may still be on it), or the next
 * reader sub-buffer from the kernel. False when there is nothing now.
 */
static bool map_next(struct cpubuf *c)
{
	long id;

	if (c->id >= 0 && map_refresh(c))
		return true;
	if (c->quiet || c->map_err || c->loads >= MAX_BYTES / c->msize)
		return false;
	/*
	 * The walked one is done: the kernel may now give it back to the
	 * writer. If it still had records the kernel had not seen read, the
	 * ioctl only marks them read and keeps it: then ask again, or the
	 * sub-buffers behind it would wait for the next drain, after the
	 * other CPUs' later records.
	 */
	for (int tries = 0; tries < 2; tries++) {
		if (ioctl(c->fd, RB_GET_READER) < 0) {
			c->map_err = true;
			return false;
		}
		id = (long)c->meta->reader.id;
		if (id < 0 || id >= (long)c->nsub) {
			c->map_err = true;
			return false;
		}
		if (id != c->id) {
			map_load(c, id);
			return true;
		}
		if (map_refresh(c)) /* written on meanwhile */
			return true;
	}
	return false;
}

/*
 * Map one CPU's ring buffer (Linux 6.10+; not a snapshot's, nor one
 * resized meanwhile). False, and nothing mapped, where the kernel will not:
 * the CPU is then read() as before.
 */
static bool cpu_map(struct cpubuf *c)
{
	long pg = sysconf(_SC_PAGESIZE);
	const struct rb_meta *m;
	void *p, *all;
	size_t len;
	uint32_t skip;

	if (c->fd < 0 || pg <= 0)
		return false;
	p = mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED, c->fd, 0);
	if (p == MAP_FAILED)
		return false;
	m = p;
	if (m->meta_struct_len < offsetof(struct rb_meta, read) + 8 || m->meta_page_size < sizeof(*m) ||
	    m->subbuf_size <= SUB_HDR || m->nr_subbufs < 2) {
		munmap(p, (size_t)pg);
		return false;
	}
	len = m->meta_page_size + (size_t)m->subbuf_size * m->nr_subbufs;
	all = mmap(NULL, len, PROT_READ, MAP_SHARED, c->fd, 0);
	munmap(p, (size_t)pg);
	if (all == MAP_FAILED)
		return false;
	c->meta = all;
	c->maplen = len;
	c->msize = c->meta->subbuf_size;
	c->nsub = c->meta->nr_subbufs;
	c->subs = (const unsigned char *)all + c->meta->meta_page_size;
	c->id = -1;
	if (c->meta->reader.id >= c->nsub) {
		munmap(all, len);
		c->meta = NULL;
		return false;
	}
	/*
	 * Start where the kernel's reader is: its sub-buffer, past what was
	 * read of it before the mapping (walked to keep the time stamps).
	 */
	skip = c->meta->reader.read;
	map_load(c, (long)c->meta->reader.id);
	map_refresh(c);
	while (c->sub.next < skip && c->sub.next < c->sub.size) {
		uint32_t l;
		if (!wb_subbuf_next(&c->sub, &l))
			break;
	}
	return true;
}

/* Open one CPU's buffer and stats file. 0 or -1. */
static int cpu_open(struct wb_tracebuf *b, struct tracefs_instance *inst, int cpu, bool map)
{
	struct cpubuf *c = &b->c[cpu];
	char *dir = tracefs_instance_get_dir(inst), *path = NULL;
	int err = -1;

	c->fd = -1;
	c->id = -1;
	c->tcpu = cpu_open_fd(inst, cpu, b->subbuf, &c->fd);
	if (map && c->tcpu)
		cpu_map(c);
	if (!c->tcpu && b->subbuf <= 0) /* libtracefs's read size fits only a page */
		c->tcpu = tracefs_cpu_open(inst, cpu, true);
	if (dir && asprintf(&path, "%s/per_cpu/cpu%d/stats", dir, cpu) >= 0 &&
	    wb_kvfile_init(&c->stats, path) == 0 && c->tcpu) {
		c->stats.one_shot = true;
		if ((size_t)tracefs_cpu_read_size(c->tcpu) > b->psize)
			b->psize = (size_t)tracefs_cpu_read_size(c->tcpu);
		err = 0;
	}
	free(path);
	tracefs_put_tracing_file(dir);
	return err;
}

/*
 * The instance's sub-buffer size in bytes from buffer_subbuf_size_kb
 * (Linux 6.8+); 0 when the file is absent (a page, libtracefs's size).
 */
static int subbuf_size(struct tracefs_instance *inst)
{
	char *txt = tracefs_instance_file_read(inst, "buffer_subbuf_size_kb", NULL);
	long kb = txt ? strtol(txt, NULL, 10) : 0;

	free(txt);
	return kb > 0 && kb <= 1024 ? (int)kb * 1024 : 0;
}

/* The ids of every event tep parsed, and where a record keeps its type. */
static void want_types(struct wb_tracebuf *b)
{
	struct tep_event **ev = tep_list_events(b->tep, TEP_EVENT_SORT_ID);
	struct tep_format_field *f = ev && ev[0] ? tep_find_common_field(ev[0], "common_type") : NULL;

	b->type_off = f ? f->offset : 0;
	b->type_size = f ? f->size : 0; /* 0: every record goes to tep */
	for (int i = 0; ev && ev[i]; i++)
		if (ev[i]->id >= 0 && ev[i]->id < 65536)
			b->want[ev[i]->id / 8] |= (uint8_t)(1u << (ev[i]->id % 8));
}

/* No more splicing on b: a kernel or pipe that will not (read() goes on). */
static void splice_off(struct wb_tracebuf *b)
{
	close(b->pipe[0]);
	close(b->pipe[1]);
	b->pipe[0] = b->pipe[1] = -1;
}

struct wb_tracebuf *wb_tracebuf_create(struct tracefs_instance *inst, struct tep_handle *tep, bool pollable,
				       enum wb_tb_path path)
{
	struct wb_tracebuf *b = calloc(1, sizeof(*b));
	long n = sysconf(_SC_NPROCESSORS_CONF), pg = sysconf(_SC_PAGESIZE);
	bool map = path == WB_TB_MAP;

	if (!b)
		return NULL;
	b->pipe[0] = b->pipe[1] = -1;
	if (path == WB_TB_SPLICE && pg > 0 && pipe2(b->pipe, O_CLOEXEC | O_NONBLOCK) == 0) {
		int sz = fcntl(b->pipe[1], F_SETPIPE_SZ, PIPE_BYTES);
		if (sz <= 0) /* pipe-max-size below 1 MiB: the default 16 buffers */
			sz = fcntl(b->pipe[1], F_GETPIPE_SZ);
		b->pipe_slots = sz > 0 ? (size_t)sz / (size_t)pg : 0;
		if (!b->pipe_slots)
			splice_off(b);
	}
	b->tep = tep;
	b->pollable = pollable;
	b->subbuf = subbuf_size(inst);
	want_types(b);
	b->ncpu = n > 0 && n < 4096 ? (int)n : 1;
	b->c = calloc((size_t)b->ncpu, sizeof(*b->c));
	if (!b->c) {
		wb_tracebuf_destroy(b);
		return NULL;
	}
	for (int i = 0; i < b->ncpu; i++)
		if (cpu_open(b, inst, i, map)) {
			wb_tracebuf_destroy(b);
			return NULL;
		}
	/*
	 * Only page-sized sub-buffers are spliced: a larger one is a read()
	 * call per 64 KiB already, and each one spliced has the kernel
	 * allocate and zero a new one of that size for the writer
	 */
	if (b->pipe[0] >= 0 && b->psize > (size_t)pg)
		splice_off(b);
	return b;
}

void wb_tracebuf_destroy(struct wb_tracebuf *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->ncpu && b->c; i++) {
		if (b->c[i].meta) /* before its descriptor closes */
			munmap((void *)b->c[i].meta, b->c[i].maplen);
		if (b->c[i].tcpu && b->c[i].fd >= 0) {
			tracefs_cpu_free_fd(b->c[i].tcpu);
			close(b->c[i].fd);
		} else if (b->c[i].tcpu) {
			tracefs_cpu_close(b->c[i].tcpu);
		}
		wb_kvfile_finish(&b->c[i].stats);
		free(b->c[i].pages);
	}
	if (b->pipe[0] >= 0)
		splice_off(b);
	free(b->c);
	free(b);
}

/* Room in c->pages for n more sub-buffers. 0 or -1. */
static int room_for(struct wb_tracebuf *b, struct cpubuf *c, size_t n)
{
	size_t nc = c->cap ? c->cap : 4;
	char *np;

	while (nc < c->npages + n)
		nc *= 2;
	if (nc == c->cap)
		return 0;
	np = realloc(c->pages, nc * b->psize);
	if (!np)
		return -1;
	c->pages = np;
	c->cap = nc;
	return 0;
}

/*
 * The full sub-buffers one CPU holds, as many as the pipe takes, spliced
 * into the pipe and read out of it in one call each: the kernel hands them
 * over whole, where read() takes a call a sub-buffer (a 4 KiB page where
 * the sub-buffer size cannot be set; a call cost ~1 us on the development
 * VM, 375 of them a second under load). The sub-buffer the writer is on
 * is never spliced: read() takes it after. 1 spliced some, 0 none (EAGAIN:
 * no full one), -1 out of memory.
 */
static int cpu_splice(struct wb_tracebuf *b, struct cpubuf *c)
{
	size_t want = MAX_BYTES / b->psize - c->npages;
	ssize_t n, got = 0;

	/* c->pages grows by doubling as the drains need it, not to the pipe's 256 at once */
	if (c->cap - c->npages < 4 && room_for(b, c, c->npages > 4 ? c->npages : 4))
		return -1;
	if (want > b->pipe_slots)
		want = b->pipe_slots;
	if (want > c->cap - c->npages)
		want = c->cap - c->npages;
	n = splice(c->fd, NULL, b->pipe[1], NULL, want * b->psize, SPLICE_F_NONBLOCK);
	if (n <= 0) {
		/* a kernel that splices no trace buffer; EAGAIN (no full one),
		 * ENOMEM, EINTR: read() this time */
		if (n < 0 && (errno == EINVAL || errno == ENOSYS || errno == EBADF || errno == EOPNOTSUPP))
			splice_off(b);
		return 0;
	}
	while (got < n) {
		ssize_t r = read(b->pipe[0], c->pages + c->npages * b->psize + (size_t)got, (size_t)(n - got));
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			break;
		}
		got += r;
	}
	c->npages += (size_t)got / b->psize;
	c->spliced += (size_t)got / b->psize;
	/*
	 * whole sub-buffers only; a short read (never seen: the pipe holds
	 * whole pages) would leave the pipe in doubt, and what it kept lost
	 */
	if (got != n || got % (ssize_t)b->psize) {
		splice_off(b);
		return 0;
	}
	/* fewer than asked: no full sub-buffer was left */
	return (size_t)n == want * b->psize ? 1 : 0;
}

/* Read every sub-buffer one CPU holds now (MAX_BYTES at most). 0 or -1. */
static int cpu_fill(struct wb_tracebuf *b, struct cpubuf *c)
{
	enum wb_polled polled = c->poll;

	c->data = NULL;
	c->poll = WB_POLL_NONE;
	if (c->meta) { /* walked where it is as the merge reaches it (cpu_advance), no copy */
		c->loads = 0;
		c->map_err = false;
		c->quiet = polled == WB_POLL_QUIET; /* then no ioctl either */
		return 0;
	}
	c->npages = c->next = 0;
	memset(&c->sub, 0, sizeof(c->sub));
	if (polled == WB_POLL_QUIET) /* empty at the sample's poll(): its read would fail with EAGAIN */
		return 0;
	bool spl = b->pipe[0] >= 0 && c->fd >= 0 && c->splice_misses < SPLICE_MISSES;
	size_t spliced;
	int rc = 0;

	while (spl && b->pipe[0] >= 0 && c->npages < MAX_BYTES / b->psize) {
		int r = cpu_splice(b, c);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
	}
	spliced = c->npages;
	while (c->npages < MAX_BYTES / b->psize) {
		int n;

		if (room_for(b, c, 1))
			return -1;
		n = tracefs_cpu_read(c->tcpu, c->pages + c->npages * b->psize, true);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n <= 0) {
			rc = n == 0 ? 0 : -1;
			break;
		}
		c->npages++;
	}
	/*
	 * Nothing spliced where read() then found full sub-buffers (two or
	 * more: the last one is the writer's): a kernel that will not splice
	 * a reader page once part of it was read (without the ring buffer's
	 * 2022 fix "allow splice to read previous partially read pages", in
	 * the stable trees since), which every drain leaves. After a few
	 * drains in a row, this CPU is read() only.
	 */
	if (spliced)
		c->splice_misses = 0;
	else if (spl && c->npages >= 2)
		c->splice_misses++;
	return rc;
}

/*
 * Move one CPU's cursor to its next record of a wanted event (loading its
 * next sub-buffers), passing over the others here: under load most records
 * are events wbtop never enabled, and they need no merging nor tep lookup.
 */
static void cpu_advance(struct wb_tracebuf *b, struct cpubuf *c)
{
	for (;;) {
		while ((c->data = wb_subbuf_next(&c->sub, &c->len)) && !wanted(b, c->data))
			;
		if (c->meta && !c->data) {
			if (map_next(c))
				continue;
			return;
		}
		if (c->data || c->next >= c->npages) {
			c->ts = c->sub.ts;
			return;
		}
		wb_subbuf_load(&c->sub, c->pages + c->next++ * b->psize, b->psize);
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
		r.data = (void *)b->c[j].data;
		r.size = (int)b->c[j].len;
		r.cpu = j;
		ev = tep_find_event_by_record(b->tep, &r);
		if (ev)
			fn(ev, &r, j, ctx);
		cpu_advance(b, &b->c[j]);
	}
	for (int i = 0; i < b->ncpu; i++)
		if (b->c[i].map_err)
			rc = -1;
	return rc;
}

size_t wb_tracebuf_pollfds(const struct wb_tracebuf *b, struct pollfd *pf, size_t max)
{
	size_t n = 0;

	for (int i = 0; b && b->pollable && i < b->ncpu; i++)
		if (b->c[i].fd >= 0 && n < max)
			pf[n++] = (struct pollfd){ .fd = b->c[i].fd, .events = POLLIN };
	return n;
}

void wb_tracebuf_polled(struct wb_tracebuf *b, const struct pollfd *pf, size_t n)
{
	size_t k = 0;

	for (int i = 0; b && b->pollable && i < b->ncpu; i++)
		if (b->c[i].fd >= 0 && k < n && pf[k].fd == b->c[i].fd)
			b->c[i].poll = wb_polled_of(pf[k++].revents);
}

unsigned long long wb_rb_lost(const char *stats)
{
	static const char *const key[] = { "\noverrun:", "\ncommit overrun:", "\ndropped events:" };
	unsigned long long sum = 0;
	const char *p;

	for (size_t i = 0; stats && i < sizeof(key) / sizeof(key[0]); i++)
		if ((p = strstr(stats, key[i])))
			sum += strtoull(p + strlen(key[i]), NULL, 10);
	return sum;
}

unsigned long long wb_tracebuf_overruns(struct wb_tracebuf *b)
{
	unsigned long long sum = 0;

	for (int i = 0; i < b->ncpu; i++) {
		struct cpubuf *c = &b->c[i];

		/*
		 * A buffer the last drain found empty has lost nothing since its
		 * stats were read: an overrun overwrites unread pages, and those
		 * would have been there to read. Its count stands.
		 */
		if (c->meta) { /* as of this drain's last ioctl: what the stats file says */
			sum += c->meta->overrun;
			continue;
		}
		if (!c->have_overrun || c->npages > 0) {
			c->have_overrun = wb_kvfile_read(&c->stats, NULL) == 0;
			c->overrun = c->have_overrun ? wb_rb_lost(c->stats.buf) : 0;
		}
		sum += c->overrun;
	}
	return sum;
}

int wb_tracebuf_mapped(const struct wb_tracebuf *b)
{
	int n = 0;

	for (int i = 0; b && i < b->ncpu; i++)
		n += b->c[i].meta != NULL;
	return n;
}

int wb_tracebuf_ncpu(const struct wb_tracebuf *b)
{
	return b ? b->ncpu : 0;
}

bool wb_tracebuf_splicing(const struct wb_tracebuf *b)
{
	return b && b->pipe[0] >= 0;
}

size_t wb_tracebuf_spliced(const struct wb_tracebuf *b)
{
	size_t n = 0;

	for (int i = 0; b && i < b->ncpu; i++)
		n += b->c[i].spliced;
	return n;
}
