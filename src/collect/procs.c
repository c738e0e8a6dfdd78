// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Process table (top writers) and /proc/diskstats, incrementally: /proc is
 * listed only when a task was created since the last sample (the last PID in
 * /proc/loadavg moved), and then only from the last PID handed out before on
 * (kernel threads are skipped for good); the /proc/PID/io of every user process is kept open
 * and re-read with one pread; /proc/PID/stat is read only for the tasks that
 * wrote since the last sample (their state, name and wchan).
 *
 * A process whose write counters have not moved for a while (asleep, or
 * reading only) is read less often, down to every 8th sample after half a
 * minute; each /proc/PID/io read costs a few microseconds of kernel time,
 * cold, and most processes sleep. What it wrote meanwhile is never lost (the
 * counters are cumulative): it is listed in the sample it is read in.
 * When the kernel dirtied more pages than the processes read explain
 * (/proc/vmstat nr_dirtied), every process is read in the same sample, so a
 * heavy writer is seen at once; a sleeper that wakes to write a little is
 * seen within 8 samples.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wbtop/procs.h"
#include "wbtop/util.h"

#define PF_KTHREAD_FLAG 0x00200000u /* include/linux/sched.h PF_KTHREAD */
#define MAX_KEPT_FDS 4096           /* above this (or wb_fd_keep()'s budget), /proc/PID/io is opened each sample */
#define LIST_EVERY 64               /* /proc is listed whole at least every LIST_EVERY times */
#define UNEXPLAINED (4u << 20)      /* bytes dirtied that no process read explains: read them all */
#define RECENT 30                   /* samples a writer is watched for after it last wrote */
#define FD_SCAN_MAX 256             /* descriptors looked at for O_DIRECT (fd_kind()) */

/* How often a process is read after its write counters stood still for `idle` samples. */
static const struct {
	unsigned idle, every;
} backoff[] = { { 28, 8 }, { 12, 4 }, { 4, 2 } };

/* One process as last seen. */
struct task {
	int pid;
	int io_fd;      /* kept /proc/PID/io, -1 when not kept */
	int stat_fd;    /* kept /proc/PID/stat while it wrote lately (RECENT), else -1 */
	bool skip;      /* a kernel thread, or its io is not readable to us */
	bool unreadable; /* skipped because its io is not readable to us */
	bool have;      /* wb and cb hold a reading */
	uint64_t wb, cb;
	unsigned wrote; /* the sample it last wrote in (wb_procs.tick), 0 never */
	unsigned still; /* the sample its write counters last moved in (or it was first read) */
	unsigned read;  /* the sample it was last read in */
	uint64_t delta; /* what it wrote in that sample (all of it, first read) */
	enum { W_UNKNOWN, W_BUFFERED, W_DIRECT, W_MIXED } kind; /* do its writes dirty pages? (judge(), when it first writes) */
};

struct wb_procs {
	DIR *proc;            /* /proc, rewound each sample */
	struct task *t;       /* sorted by pid */
	size_t nt;
	unsigned kept;        /* io descriptors open */
	struct wb_kvfile diskstats;
	struct wb_kvfile loadavg;  /* its last field: the last PID handed out */
	long last_pid;             /* at the last listing of /proc, -1 unknown */
	unsigned probed;           /* listings from top_pos since the last whole one */
	long top_pid;              /* the highest PID listed that was handed out by then (<= last_pid) */
	long top_pos;              /* telldir() at its entry (it and those after), -1 unknown */
	bool have_prev;
	bool restarted;       /* the next read only takes new counters: rates unknown */
	unsigned tick;        /* samples read */
	uint64_t dirtied;     /* nr_dirtied at the last sample, bytes; 0 unknown */
	uint64_t explained;   /* bytes this sample's reads saw dirtied (judge()) */
	bool sweep;           /* read every process in this sample */
};

struct wb_procs *wb_procs_create(struct wb_diag *d)
{
	struct wb_procs *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->proc = opendir("/proc");
	if (!p->proc)
		wb_diag_add(d, "/proc: %s: top writers unknown", strerror(errno));
	if (wb_kvfile_init(&p->diskstats, "/proc/diskstats") || wb_kvfile_init(&p->loadavg, "/proc/loadavg")) {
		wb_procs_destroy(p);
		return NULL;
	}
	p->loadavg.one_shot = true; /* a single_open seq file */
	p->diskstats.max_record = 1024; /* a line: 2 numbers, a name (32 bytes at most), 17 u64s; twice that */
	p->last_pid = -1;
	p->top_pos = -1;
	return p;
}

/* Close a kept descriptor (*fd = -1 after). */
static void fd_drop(struct wb_procs *p, int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		p->kept--;
		wb_fd_unkeep();
	}
	*fd = -1;
}

static void task_drop(struct wb_procs *p, struct task *t)
{
	fd_drop(p, &t->io_fd);
	fd_drop(p, &t->stat_fd);
}

void wb_procs_destroy(struct wb_procs *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nt; i++)
		task_drop(p, &p->t[i]);
	free(p->t);
	if (p->proc)
		closedir(p->proc);
	wb_kvfile_finish(&p->diskstats);
	wb_kvfile_finish(&p->loadavg);
	free(p);
}

/* Read a small /proc/PID file into buf (NUL-terminated); bytes read or -1. */
static ssize_t read_small(int pid, const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int err = errno; /* why, for the caller: gone or denied */

		close(fd);
		errno = err;
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	return n;
}

/* Name, state and flags from /proc/PID/stat text; false if it is not that. */
static bool parse_stat(char *buf, char *comm, size_t clen, char *state, unsigned long *flags)
{
	char *open_p, *close_p, *q;

	open_p = strchr(buf, '(');
	close_p = strrchr(buf, ')'); /* the name may hold ')' itself */
	if (!open_p || !close_p || close_p < open_p || close_p[1] != ' ')
		return false;
	if (comm)
		wb_copy_str(comm, (size_t)(close_p - open_p) < clen ? (size_t)(close_p - open_p) : clen, open_p + 1);
	*state = close_p[2];
	q = close_p + 3;
	for (int field = 4; field < 9 && q; field++) /* ppid pgrp session tty_nr tpgid */
		q = strchr(q + 1, ' ');
	*flags = q ? strtoul(q + 1, NULL, 10) : 0;
	return true;
}

/* Name, state and flags from /proc/PID/stat; false if it cannot be read. */
static bool read_stat(int pid, char *comm, size_t clen, char *state, unsigned long *flags)
{
	char buf[512];

	return read_small(pid, "stat", buf, sizeof(buf)) > 0 && parse_stat(buf, comm, clen, state, flags);
}

/*
 * The same for a task that wrote lately: its /proc/PID/stat is kept open and
 * re-read with one pread while it stays a writer (writers are looked at
 * every sample). False if it cannot be read (the task has gone).
 */
static bool task_stat(struct wb_procs *p, struct task *t, char *comm, size_t clen, char *state,
		      unsigned long *flags)
{
	char buf[512], path[64];
	ssize_t n;

	if (t->stat_fd < 0 && p->kept < MAX_KEPT_FDS && wb_fd_keep()) {
		snprintf(path, sizeof(path), "/proc/%d/stat", t->pid);
		t->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
		p->kept += t->stat_fd >= 0;
		if (t->stat_fd < 0)
			wb_fd_unkeep();
	}
	if (t->stat_fd < 0)
		return read_stat(t->pid, comm, clen, state, flags);
	n = pread(t->stat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		fd_drop(p, &t->stat_fd);
		return false;
	}
	buf[n] = '\0';
	return parse_stat(buf, comm, clen, state, flags);
}

/* write_bytes and cancelled_write_bytes from /proc/PID/io text. */
static bool parse_io(const char *buf, uint64_t *wb, uint64_t *cb)
{
	const char *w = strstr(buf, "\nwrite_bytes: "), *c = strstr(buf, "\ncancelled_write_bytes: ");

	return w && c && wb_parse_u64(w + 14, NULL, wb) && wb_parse_u64(c + 24, NULL, cb);
}

/*
 * Read a task's io counters (kept descriptor, else open/read/close). Only its
 * write counters, the two wbtop reports, wake it from the sleepers' back-off:
 * htop, atop, sadc and tmux read every second (and wchar moves with a
 * terminal's or a pipe's writes) but write nothing to a disk, and were read
 * every sample for their moving read counters.
 */
static bool read_io(struct wb_procs *p, struct task *t, uint64_t *wb, uint64_t *cb)
{
	char buf[256];
	ssize_t n;

	if (t->io_fd >= 0) {
		n = pread(t->io_fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0) {
			int err = n < 0 ? errno : 0; /* why, for task_probe(): gone or denied */

			task_drop(p, t);
			errno = err;
			return false;
		}
		buf[n] = '\0';
	} else if ((n = read_small(t->pid, "io", buf, sizeof(buf))) <= 0) {
		return false;
	}
	if (!parse_io(buf, wb, cb))
		return false;
	if (!t->have || *wb != t->wb || *cb != t->cb)
		t->still = p->tick;
	t->read = p->tick;
	return true;
}

/*
 * Is this /proc/PID/stat text a thread's other than its group leader? Its
 * exit_signal (field 38) is -1 (kernel/fork.c: CLONE_THREAD); a process's
 * is a signal number or 0. /proc/TID is there for any thread, unlisted.
 */
static bool stat_is_thread(const char *buf)
{
	const char *q = strrchr(buf, ')');

	for (int field = 2; field < 38 && q; field++) /* q: the blank before field + 1 */
		q = strchr(q + 1, ' ');
	return q && strncmp(q + 1, "-1 ", 3) == 0;
}

/* A new process's io: kept open (budget allowing) and read; skipped for good if it cannot be. */
static void probe_io(struct wb_procs *p, struct task *t)
{
	char path[64];

	if (p->kept < MAX_KEPT_FDS && wb_fd_keep()) {
		snprintf(path, sizeof(path), "/proc/%d/io", t->pid);
		t->io_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (t->io_fd >= 0)
			p->kept++;
		else
			wb_fd_unkeep();
	}
	t->have = false; /* a new task: read_io starts its idle clock (t->still) from this read */
	errno = 0;
	t->have = read_io(p, t, &t->wb, &t->cb);
	t->skip = !t->have && t->io_fd < 0;
	/* not ours to read (unprivileged); not one that ended since its stat was read (ENOENT, ESRCH) */
	t->unreadable = t->skip && (errno == EACCES || errno == EPERM);
}

/* First look at a new PID: skip kernel threads, other threads and unreadable tasks for good. */
static void task_probe(struct wb_procs *p, struct task *t)
{
	char state, buf[1024];
	unsigned long flags;

	t->io_fd = -1;
	t->unreadable = false;
	if (read_small(t->pid, "stat", buf, sizeof(buf)) <= 0 || !parse_stat(buf, NULL, 0, &state, &flags) ||
	    (flags & PF_KTHREAD_FLAG) || stat_is_thread(buf)) {
		t->skip = true;
		return;
	}
	probe_io(p, t);
}

static int pid_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Append pid to *v (n used of *cap); false if out of memory. */
static bool pid_push(int **v, size_t *n, size_t *cap, int pid)
{
	if (*n == *cap) {
		int *nv = realloc(*v, (*cap = *cap ? *cap * 2 : 256) * sizeof(**v));
		if (!nv)
			return false;
		*v = nv;
	}
	(*v)[(*n)++] = pid;
	return true;
}

/*
 * This sample's PIDs, ascending, without repeats; NULL (n = 0) if none,
 * NULL with n = SIZE_MAX if out of memory. Caller frees. Whole: /proc listed
 * from its start. Tail: the table's PIDs and /proc listed from top_pid on
 * (seekdir to the position telldir gave at its entry), the highest PID
 * listed among those handed out by the last look (lp then): /proc lists
 * PIDs in ascending order and resumes at the first PID at or above a
 * position (fs/proc/base.c, proc_pid_readdir), and a new task takes a PID
 * above the last one handed out (but on a wrap, when the caller lists
 * whole), so every task created since is there. PIDs above lp listed then
 * are tasks from before a wrap: listed again each time, and merged. The
 * position is the directory's own cookie, not worked out.
 */
static int *list_pids(struct wb_procs *p, bool tail, long lp, size_t *n)
{
	struct dirent *e;
	int *v = NULL;
	size_t cap = 0, k = 0;
	bool sorted = true;

	*n = 0;
	for (size_t i = 0; tail && i < p->nt; i++)
		if (!pid_push(&v, &k, &cap, p->t[i].pid))
			goto nomem;
	if (tail) {
		seekdir(p->proc, p->top_pos);
	} else {
		rewinddir(p->proc);
		p->top_pid = 0;
		p->top_pos = -1;
	}
	for (;;) {
		long pos = telldir(p->proc); /* where this entry is: it is listed again from there */
		int pid;

		if (!(e = readdir(p->proc)))
			break;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid = atoi(e->d_name);
		if (!pid_push(&v, &k, &cap, pid))
			goto nomem;
		sorted = sorted && (k == 1 || v[k - 2] < pid);
		if (pid <= lp && pid >= p->top_pid) {
			p->top_pid = pid;
			p->top_pos = pos;
		}
	}
	if (!sorted && k > 1) {
		size_t w = 1;
		qsort(v, k, sizeof(*v), pid_cmp);
		for (size_t i = 1; i < k; i++) /* the table's top PID is listed again */
			if (v[i] != v[w - 1])
				v[w++] = v[i];
		k = w;
	}
	*n = k;
	return v;
nomem:
	free(v);
	p->top_pos = -1;
	*n = SIZE_MAX;
	return NULL;
}

/*
 * Carry the tasks still listed over to a table of this sample's PIDs (new
 * ones zeroed, pid set, io_fd -1); close the descriptors of those gone.
 */
static bool merge(struct wb_procs *p, const int *pids, size_t n, bool *fresh)
{
	struct task *nt = calloc(n + 1, sizeof(*nt));
	size_t i = 0;

	if (!nt)
		return false;
	for (size_t k = 0; k < n; k++) {
		while (i < p->nt && p->t[i].pid < pids[k])
			task_drop(p, &p->t[i++]);
		fresh[k] = !(i < p->nt && p->t[i].pid == pids[k]);
		if (!fresh[k])
			nt[k] = p->t[i++];
		else
			nt[k] = (struct task){ .pid = pids[k], .io_fd = -1, .stat_fd = -1 };
	}
	while (i < p->nt)
		task_drop(p, &p->t[i++]);
	free(p->t);
	p->t = nt;
	p->nt = n;
	return true;
}

/* Is the task asleep in balance_dirty_pages? Only asked of D-state tasks. */
static bool in_bdp(int pid)
{
	char buf[64];

	return read_small(pid, "wchan", buf, sizeof(buf)) > 0 &&
	       strcmp(buf, "balance_dirty_pages") == 0;
}

static int proc_cmp(const void *a, const void *b)
{
	const struct wb_proc *x = a, *y = b;

	if (x->write_bytes_delta != y->write_bytes_delta)
		return x->write_bytes_delta < y->write_bytes_delta ? 1 : -1;
	if (x->throttled != y->throttled)
		return x->throttled ? -1 : 1;
	return x->pid - y->pid;
}

/*
 * New counters of a known task into *out; true if it wrote (or had writes
 * cancelled) since the last sample. A task whose io cannot be read any more
 * is a reused PID or gone: it is looked at again as a new one.
 */
static bool task_update(struct wb_procs *p, struct task *t, struct wb_proc *out)
{
	uint64_t wb, cb;

	if (t->skip)
		return false;
	if (!read_io(p, t, &wb, &cb)) {
		/* a new one: nothing of the old process carries over (its judgement, its last delta) */
		int pid = t->pid;

		task_drop(p, t);
		*t = (struct task){ .pid = pid, .io_fd = -1, .stat_fd = -1 };
		task_probe(p, t);
		t->delta = t->have ? t->wb : 0; /* all of it, as a new PID's in scan() */
		return false;
	}
	*out = (struct wb_proc){ .pid = t->pid, .write_bytes = wb, .cancelled_write_bytes = cb };
	if (t->have && wb >= t->wb)
		out->write_bytes_delta = wb - t->wb;
	if (t->have && cb >= t->cb)
		out->cancelled_delta = cb - t->cb;
	t->delta = out->write_bytes_delta;
	t->wb = wb;
	t->cb = cb;
	t->have = true;
	return out->write_bytes_delta || out->cancelled_delta;
}

/* Is the task read in this sample? Writers and new ones always; the others less often. */
static bool due(const struct wb_procs *p, const struct task *t)
{
	unsigned idle = p->tick - t->still;

	if (p->sweep || !t->have || (t->wrote && p->tick - t->wrote <= RECENT))
		return true;
	for (size_t k = 0; k < sizeof(backoff) / sizeof(backoff[0]); k++)
		if (idle >= backoff[k].idle) /* staggered by PID: a few of them each sample */
			return (p->tick + (unsigned)t->pid) % backoff[k].every == 0;
	return true;
}

/*
 * A task that wrote lately (RECENT samples) but not in this one may be held in
 * balance_dirty_pages for seconds: it is listed while it is, with no writes.
 */

static bool held_writer(struct wb_procs *p, struct task *t, struct wb_proc *x)
{
	unsigned long flags;

	if (t->skip || !t->wrote || p->tick - t->wrote > RECENT) {
		fd_drop(p, &t->stat_fd); /* no longer a writer */
		return false;
	}
	*x = (struct wb_proc){ .pid = t->pid, .write_bytes = t->wb, .cancelled_write_bytes = t->cb };
	if (!task_stat(p, t, x->comm, sizeof(x->comm), &x->state, &flags) || x->state != 'D')
		return false;
	x->throttled = in_bdp(x->pid);
	return x->throttled;
}

/* Name, state and throttling of a writer; false if it has gone meanwhile. */
static bool writer_details(struct wb_procs *p, struct task *t, struct wb_proc *x)
{
	unsigned long flags;

	if (!task_stat(p, t, x->comm, sizeof(x->comm), &x->state, &flags))
		return false;
	x->throttled = x->state == 'D' && in_bdp(x->pid);
	return true;
}

/* The last PID the kernel handed out (/proc/loadavg's last field), or -1. */
static long last_pid(struct wb_procs *p)
{
	const char *sp;
	uint64_t v;

	if (wb_kvfile_read(&p->loadavg, NULL) != 0)
		return -1;
	sp = strrchr(p->loadavg.buf, '/');
	sp = sp ? strchr(sp, ' ') : NULL;
	return sp && wb_parse_u64(sp + 1, NULL, &v) && v <= 0x7fffffff ? (long)v : -1;
}

/*
 * Bring the table up to date when a task was created since the last look (a
 * new task takes a new PID: the last PID handed out moves). PIDs are handed
 * out upwards, so /proc is listed from the last one handed out before; after
 * a wrap, or every LIST_EVERY times, it is listed whole. Tasks that ended
 * meanwhile fail their next read (or wait in the table, skipped, for the next
 * whole listing). *fresh marks the new ones, NULL when none (the caller frees it).
 * False if out of memory.
 */
static bool relist(struct wb_procs *p, bool **fresh)
{
	long lp = last_pid(p), from = p->last_pid;
	bool tail = lp > from && from >= 0 && p->top_pos >= 0 && p->probed < LIST_EVERY;
	size_t n;
	int *pids;

	*fresh = NULL;
	if (lp >= 0 && lp == from)
		return true;
	pids = list_pids(p, tail, lp, &n);
	*fresh = n != SIZE_MAX ? calloc(n + 1, sizeof(**fresh)) : NULL;
	if (!*fresh || !merge(p, pids, n, *fresh)) {
		free(pids);
		free(*fresh);
		*fresh = NULL;
		p->last_pid = -1;
		return false;
	}
	for (size_t k = 0; from >= 0 && lp > from && k < n; k++)
		if (pids[k] > from && pids[k] <= lp && !(*fresh)[k]) { /* a PID handed out anew: its old task went */
			task_drop(p, &p->t[k]);
			p->t[k] = (struct task){ .pid = pids[k], .io_fd = -1, .stat_fd = -1 };
			(*fresh)[k] = true;
		}
	p->probed = tail ? p->probed + 1 : 0;
	free(pids);
	p->last_pid = lp;
	return true;
}

/* Read the table's tasks due into w: writers since the last sample, then tasks held; how many. */
static size_t scan(struct wb_procs *p, const bool *fresh, struct wb_proc *w, size_t nw)
{
	for (size_t i = 0; i < p->nt; i++) {
		struct task *t = &p->t[i];
		if (fresh && fresh[i]) {
			task_probe(p, t);
			t->delta = t->have ? t->wb : 0; /* new since the last sample: all of it */
		} else if (t->skip || t->read == p->tick || !due(p, t)) {
			continue;
		} else if (task_update(p, t, &w[nw])) {
			t->wrote = p->tick;
			nw += p->have_prev && writer_details(p, t, &w[nw]);
		} else if (p->have_prev && held_writer(p, t, &w[nw])) {
			nw++;
		}
	}
	return nw;
}

/* The top writers of w (n of them, w freed or kept) into s, and how many tasks we may not read. */
static void publish(struct wb_procs *p, struct wb_sample *s, struct wb_proc *w, size_t nw)
{
	uint64_t unreadable = 0;

	if (nw > 1)
		qsort(w, nw, sizeof(*w), proc_cmp);
	if (nw > WB_TOP_PROCS)
		nw = WB_TOP_PROCS;
	s->procs = nw ? realloc(w, nw * sizeof(*w)) : NULL;
	if (!s->procs)
		free(w);
	s->nprocs = s->procs ? nw : 0;
	s->procs_valid = true;
	for (size_t i = 0; i < p->nt; i++)
		unreadable += p->t[i].unreadable;
	s->g.v[WB_G_PROCS_UNREADABLE] = unreadable;
	s->g.valid |= WB_BIT(WB_G_PROCS_UNREADABLE);
}

/* What a writable descriptor's writes do to write_bytes: none, dirty pages, go around them. */
enum { FD_NONE = 0, FD_BUFFERED = 1, FD_DIRECT = 2 };

/* A process's kind by the FD_ bits of its descriptors (none of either: writes it closed, buffered). */
static const int kind_by_fds[] = {
	[0] = W_BUFFERED,
	[FD_BUFFERED] = W_BUFFERED,
	[FD_DIRECT] = W_DIRECT,
	[FD_BUFFERED | FD_DIRECT] = W_MIXED,
};

/*
 * One descriptor of the task (its fdinfo name): FD_DIRECT or FD_BUFFERED
 * when it is open for writing on a file or a block device (the writes
 * write_bytes counts); FD_NONE for others - a pipe, a terminal or a socket
 * (a packet-mode pipe is O_DIRECT too); -1 if it cannot be seen.
 */
static int fd_writes(int pid, const char *name)
{
	char rel[40], path[64], buf[256]; /* rel: read_small()'s /proc/PID/ and it fit its 64 bytes */
	const char *f;
	unsigned long fl;
	struct statx st;

	snprintf(rel, sizeof(rel), "fdinfo/%.24s", name);
	if (read_small(pid, rel, buf, sizeof(buf)) <= 0 || !(f = strstr(buf, "flags:")) ||
	    sscanf(f + 6, "%lo", &fl) != 1)
		return -1;
	if ((fl & O_ACCMODE) == O_RDONLY)
		return FD_NONE;
	/* followed to the file; its type only, as cached: a stat() of a file on NFS being written
	 * waits for its dirty pages to be flushed (nfs_getattr), and a dead server's forever */
	snprintf(path, sizeof(path), "/proc/%d/fd/%.24s", pid, name);
	if (statx(AT_FDCWD, path, AT_STATX_DONT_SYNC, STATX_TYPE, &st) != 0 ||
	    !(S_ISREG(st.stx_mode) || S_ISBLK(st.stx_mode)))
		return FD_NONE;
	return fl & O_DIRECT ? FD_DIRECT : FD_BUFFERED;
}

/*
 * Do the task's writes go around the page cache (/proc/PID/fdinfo's flags)?
 * With a file open for writing with O_DIRECT its write_bytes count writes
 * that dirty no pages: W_DIRECT; W_MIXED with a file open for buffered
 * writes as well (their share unknown); W_BUFFERED else. At most
 * FD_SCAN_MAX descriptors are looked at. W_UNKNOWN when its files cannot be
 * seen: gone since its io was read, or exiting (a zombie has no descriptors
 * left) - a direct writer that had just ended read as buffered, and its
 * bytes explained another's pages.
 */
static int fd_kind(int pid)
{
	char path[64];
	struct dirent *e;
	int has = 0;
	bool seen = false;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	if (!(d = opendir(path)))
		return W_UNKNOWN;
	while (has != (FD_BUFFERED | FD_DIRECT) && n < FD_SCAN_MAX && (e = readdir(d))) {
		int w;

		if (e->d_name[0] == '.') /* "." and "..": not descriptors, not counted */
			continue;
		n++;
		if ((w = fd_writes(pid, e->d_name)) >= 0) {
			seen = true;
			has |= w;
		}
	}
	closedir(d);
	return seen ? kind_by_fds[has] : W_UNKNOWN;
}

/*
 * Which of the tasks read in this sample explain what the kernel dirtied
 * (moved: nr_dirtied's move; known: it is): those whose writes dirty pages.
 * write_bytes also counts writes that go around the page cache (O_DIRECT:
 * the direct I/O paths account them, folio_account_dirtied() is never
 * reached); counted as explaining, a dd with oflag=direct hid a 32 MiB
 * buffered write from the sweep for 2-6 samples (procs_sleepers in a CI run,
 * then reproduced beside the dd). A writer is judged when first seen writing,
 * by its open files; from the counts alone a new direct writer and a buffered
 * one nobody read dirtying as much in the same sample look alike (judged
 * that way, the dd that had just started explained the sleeper's 32 MiB). A
 * writer judged buffered that writes alone, 4 MiB or more, while nr_dirtied
 * moves by under a quarter of it is taken as direct from then on (a file
 * opened later, more descriptors than looked at); never the other way, which
 * could explain another's pages. A mixed writer (files open both ways)
 * explains nothing either: its write_bytes cannot be split, and its direct
 * share would explain another's pages as a direct writer's would.
 */
static void judge(struct wb_procs *p, uint64_t moved, bool known)
{
	size_t writers = 0, lone = 0;

	p->explained = 0;
	for (size_t i = 0; i < p->nt; i++) {
		struct task *t = &p->t[i];

		if (t->read != p->tick || !t->delta)
			continue;
		writers++;
		lone = i;
		/* not while the move is unknown (the first sample, whose first reads
		 * take every task's lifetime writes: nothing explains then anyway);
		 * one whose files cannot be seen explains nothing, and is judged again
		 * when it next writes */
		if (t->kind == W_UNKNOWN && known)
			t->kind = fd_kind(t->pid);
	}
	if (writers == 1 && known && p->t[lone].kind == W_BUFFERED && p->t[lone].delta >= UNEXPLAINED &&
	    moved < p->t[lone].delta / 4)
		p->t[lone].kind = W_DIRECT;
	for (size_t i = 0; i < p->nt; i++)
		if (p->t[i].read == p->tick && p->t[i].kind == W_BUFFERED)
			p->explained += p->t[i].delta;
	/*
	 * More written than the kernel dirtied: some of it is not this
	 * sample's dirtying, so none of it explains. A shell's write_bytes take
	 * its reaped children's at once (the kernel adds a child's counts to
	 * its parent's at wait()): procs_sleepers' dd loop showed 64 MiB each
	 * time it reaped a dd, and that explained the sleeper's 32 MiB.
	 */
	if (known && p->explained > moved + UNEXPLAINED)
		p->explained = 0;
}

/*
 * Did the kernel dirty more than the processes read in this sample wrote?
 * nr_dirtied counts each page a task dirties (folio_account_dirtied, with
 * its write_bytes); /proc/vmstat lags the per-CPU counts by up to a second,
 * hence the margin. Unknown nr_dirtied: yes, every time.
 */
static bool unexplained(struct wb_procs *p, const struct wb_sample *s)
{
	uint64_t now = WB_HAS(s->g.valid, WB_G_DIRTIED) ? s->g.v[WB_G_DIRTIED] * s->page_size : 0, then = p->dirtied;
	bool known = now && then && now >= then;

	p->dirtied = now;
	judge(p, known ? now - then : 0, known);
	return !known || now - then > p->explained + UNEXPLAINED;
}

void wb_procs_read(struct wb_procs *p, struct wb_sample *s, struct wb_diag *d)
{
	bool *fresh = NULL;
	struct wb_proc *w = NULL;
	size_t nw;

	free(s->procs);
	s->procs = NULL;
	s->nprocs = 0;
	s->procs_valid = false;
	if (!p->proc)
		return;
	if (!relist(p, &fresh) || !(w = calloc(p->nt + 1, sizeof(*w)))) {
		wb_diag_add(d, "out of memory reading the process table: top writers unknown");
		free(fresh);
		return;
	}
	p->tick++;
	p->explained = 0;
	p->sweep = p->restarted; /* after a pause every counter is stale: take them all anew */
	nw = scan(p, fresh, w, 0);
	if (unexplained(p, s) && !p->sweep) { /* somebody we did not read wrote: read them all now */
		p->sweep = true;
		nw = scan(p, NULL, w, nw); /* the new ones were looked at */
	}
	free(fresh);
	p->have_prev = true;
	if (p->restarted) { /* after a pause: no rates yet, and none is not "no writer" */
		p->restarted = false;
		free(w);
		return;
	}
	publish(p, s, w, nw);
}

void wb_procs_restart(struct wb_procs *p)
{
	p->have_prev = false;
	p->restarted = true;
}

/* Past the next blank-separated word of a line (and the blanks after it). */
static const char *skip_word(const char *p)
{
	while (*p && *p != ' ' && *p != '\n')
		p++;
	while (*p == ' ')
		p++;
	return p;
}

/* Fill the BDIs' device-side figures from one /proc/diskstats line. */
static void disk_line(const char *line, struct wb_sample *s)
{
	const char *p = line, *name;
	size_t nlen;
	uint64_t wsect, inflight;

	/* maj min name, reads merged sectors ms, writes merged SECTORS ms, IN-FLIGHT */
	while (*p == ' ')
		p++;
	name = skip_word(skip_word(p));
	nlen = strcspn(name, " \n");
	p = name;
	for (int i = 0; i < 7; i++)
		p = skip_word(p);
	if (!nlen || !wb_parse_u64(p, NULL, &wsect) || !wb_parse_u64(skip_word(skip_word(p)), NULL, &inflight) ||
	    wsect >= WB_MAX_COUNT || inflight >= WB_MAX_COUNT) /* damage (a replay refuses it), as a line cut short */
		return;
	for (size_t b = 0; b < s->nbdis; b++) {
		struct wb_bdi *x = &s->bdis[b];

		if (strncmp(x->dev, name, nlen) != 0 || x->dev[nlen] != '\0')
			continue;
		x->disk[WB_D_WRITE_SECTORS] = wsect;
		x->disk[WB_D_INFLIGHT] = inflight;
		x->disk_valid = WB_BIT(WB_D_WRITE_SECTORS) | WB_BIT(WB_D_INFLIGHT);
	}
}

void wb_procs_read_disks(struct wb_procs *p, struct wb_sample *s, struct wb_diag *d)
{
	const char *line;

	if (wb_kvfile_read(&p->diskstats, d) != 0) {
		wb_diag_add(d, "/proc/diskstats unreadable: device-side figures unknown");
		return;
	}
	for (line = p->diskstats.buf; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
		disk_line(line, s);
}
