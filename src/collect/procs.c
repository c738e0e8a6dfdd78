// SPDX-License-Identifier: GPL-2.0-or-later
/* Process table and diskstats through libproc2. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libproc2/diskstats.h>
#include <libproc2/pids.h>

#include "wbtop/procs.h"

enum { P_PID, P_CMD, P_STATE, P_WBYTES, P_CBYTES };
static enum pids_item pid_items[] = {
	PIDS_ID_PID, PIDS_CMD, PIDS_STATE, PIDS_IO_WRITE_BYTES, PIDS_IO_WRITE_CBYTES,
};
enum { D_NAME, D_WSECT, D_INFLIGHT };
static enum diskstats_item disk_items[] = {
	DISKSTATS_NAME, DISKSTATS_WRITE_SECTORS, DISKSTATS_IO_INPROGRESS,
};

struct prev { int pid; uint64_t wb, cb; };

struct wb_procs {
	struct pids_info *pids;
	struct diskstats_info *disks;
	struct prev *prev;   /* sorted by pid: last sample's cumulative bytes */
	size_t nprev;
	bool have_prev;
};

struct wb_procs *wb_procs_create(struct wb_diag *d)
{
	struct wb_procs *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (procps_pids_new(&p->pids, pid_items, sizeof(pid_items) / sizeof(pid_items[0])) < 0) {
		wb_diag_add(d, "libproc2: cannot set up the process table: top writers unknown");
		p->pids = NULL;
	}
	if (procps_diskstats_new(&p->disks) < 0) {
		wb_diag_add(d, "libproc2: /proc/diskstats unreadable: device-side figures unknown");
		p->disks = NULL;
	}
	return p;
}

void wb_procs_destroy(struct wb_procs *p)
{
	if (!p)
		return;
	if (p->pids)
		procps_pids_unref(&p->pids);
	if (p->disks)
		procps_diskstats_unref(&p->disks);
	free(p->prev);
	free(p);
}

static int prev_cmp(const void *a, const void *b)
{
	const struct prev *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
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

/* Is the task asleep in balance_dirty_pages? Only asked of D-state tasks. */
static bool in_bdp(int pid)
{
	char path[64], buf[64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, "balance_dirty_pages") == 0;
}

void wb_procs_read(struct wb_procs *p, struct wb_sample *s, struct wb_diag *d)
{
	struct pids_fetch *f;
	struct wb_proc *all;
	struct prev *cur;
	size_t n = 0, keep;

	free(s->procs);
	s->procs = NULL;
	s->nprocs = 0;
	s->procs_valid = false;
	if (!p->pids || !(f = procps_pids_reap(p->pids, PIDS_FETCH_TASKS_ONLY))) {
		if (p->pids)
			wb_diag_add(d, "libproc2: reading the process table failed");
		return;
	}
	size_t total = f->counts->total > 0 ? (size_t)f->counts->total : 0;
	all = calloc(total + 1, sizeof(*all));
	cur = calloc(total + 1, sizeof(*cur));
	if (!all || !cur) {
		free(all);
		free(cur);
		return;
	}
	for (size_t i = 0; i < total; i++) {
		struct pids_stack *st = f->stacks[i];
		struct wb_proc *x = &all[n];
		struct prev key, *old;

		x->pid = PIDS_VAL(P_PID, s_int, st, p->pids);
		snprintf(x->comm, sizeof(x->comm), "%s", PIDS_VAL(P_CMD, str, st, p->pids));
		x->state = PIDS_VAL(P_STATE, s_ch, st, p->pids);
		x->write_bytes = PIDS_VAL(P_WBYTES, ul_int, st, p->pids);
		x->cancelled_write_bytes = PIDS_VAL(P_CBYTES, ul_int, st, p->pids);
		cur[n] = (struct prev){ x->pid, x->write_bytes, x->cancelled_write_bytes };
		key.pid = x->pid;
		old = p->have_prev ? bsearch(&key, p->prev, p->nprev, sizeof(key), prev_cmp) : NULL;
		if (old && x->write_bytes >= old->wb)
			x->write_bytes_delta = x->write_bytes - old->wb;
		if (old && x->cancelled_write_bytes >= old->cb)
			x->cancelled_delta = x->cancelled_write_bytes - old->cb;
		if (x->state == 'D')
			x->throttled = in_bdp(x->pid);
		n++;
	}
	qsort(cur, n, sizeof(*cur), prev_cmp);
	free(p->prev);
	p->prev = cur;
	p->nprev = n;
	p->have_prev = true;
	qsort(all, n, sizeof(*all), proc_cmp);
	/* keep writers and throttled tasks only, at most WB_TOP_PROCS */
	keep = 0;
	while (keep < n && keep < WB_TOP_PROCS &&
	       (all[keep].write_bytes_delta || all[keep].cancelled_delta || all[keep].throttled))
		keep++;
	s->procs = keep ? realloc(all, keep * sizeof(*all)) : NULL;
	if (!keep || !s->procs)
		free(all);
	s->nprocs = s->procs ? keep : 0;
	s->procs_valid = true;
}

void wb_procs_read_disks(struct wb_procs *p, struct wb_sample *s, struct wb_diag *d)
{
	struct diskstats_reaped *r;

	if (!p->disks)
		return;
	r = procps_diskstats_reap(p->disks, disk_items, sizeof(disk_items) / sizeof(disk_items[0]));
	if (!r) {
		wb_diag_add(d, "libproc2: /proc/diskstats: read failed");
		return;
	}
	for (int i = 0; i < r->total; i++) {
		struct diskstats_stack *st = r->stacks[i];
		const char *name = DISKSTATS_VAL(D_NAME, str, st, p->disks);

		for (size_t b = 0; b < s->nbdis; b++) {
			struct wb_bdi *x = &s->bdis[b];
			if (!x->dev[0] || strcmp(x->dev, name) != 0)
				continue;
			x->disk[WB_D_WRITE_SECTORS] = DISKSTATS_VAL(D_WSECT, ul_int, st, p->disks);
			x->disk[WB_D_INFLIGHT] = (uint64_t)DISKSTATS_VAL(D_INFLIGHT, s_int, st, p->disks);
			x->disk_valid = WB_BIT(WB_D_WRITE_SECTORS) | WB_BIT(WB_D_INFLIGHT);
		}
	}
}
