// SPDX-License-Identifier: GPL-2.0-or-later
/* The live source: runs the collectors in order and settles the access level. */
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wbtop/bdi.h"
#include "wbtop/live.h"
#include "wbtop/procfs.h"
#include "wbtop/procs.h"
#include "wbtop/trace.h"
#include "wbtop/tracebuf.h"
#include "wbtop/util.h"
#include "wbtop/zoneinfo.h"

struct wb_live {
	struct wb_procfs procfs;
	struct wb_zoneinfo zones;
	struct wb_bdis bdis;
	struct wb_procs *procs;
	bool procs_off;        /* the process table is not wanted now */
	int why;               /* enum wb_level_why of every sample: a fixture tree (-1: live, per sample) */
	bool trace_on, root;   /* live: tracing wanted (no --no-trace); running as root */
	struct wb_trace *trace;
	struct wb_diag diag, notes;
	bool mounted_debugfs, mounted_tracefs;
	/* each BDI's reclaimable pages at the previous sample (UINT64_MAX: unknown) */
	struct prev_recl { char name[WB_NAME_LEN]; uint64_t pages; } *prev;
	size_t nprev;
	double prev_mono;
	struct pollfd *pf;     /* poll_quiet()'s set */
	size_t pf_cap;
};

/* The trace instance's directory, for removal from a fatal-signal handler. */
static char crash_path[512];

void wb_live_crash_cleanup(void)
{
	if (crash_path[0])
		rmdir(crash_path);
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Mount debugfs (and tracefs) when asked and absent; only ever on the real root. */
static int maybe_mount_debugfs(struct wb_live *l, const struct wb_live_opts *o, char *err,
			       size_t errlen)
{
	if (!o->mount_debugfs || strcmp(o->root, "/") != 0)
		return 0;
	if (!is_dir("/sys/kernel/debug/bdi")) {
		if (mount("none", "/sys/kernel/debug", "debugfs", 0, NULL) != 0) {
			snprintf(err, errlen, "--mount-debugfs: mount debugfs on /sys/kernel/debug: %s%s",
				 strerror(errno), geteuid() ? " (needs root)" : "");
			return -1;
		}
		l->mounted_debugfs = true;
	}
	if (o->trace && !is_dir("/sys/kernel/tracing/instances") &&
	    mount("none", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		l->mounted_tracefs = true;
	return 0;
}

/* Tracing: clear instances left by killed wbtops, then make our own. */
static void start_trace(struct wb_live *l)
{
	char msg[512], err[256];

	/* unprivileged, nothing to trace: not even a look into debugfs's tracing/ */
	if (geteuid() != 0) {
		wb_diag_add(&l->notes, "tracepoints off: tracepoints need root");
		return;
	}
	if (wb_trace_remove_stale(NULL, msg, sizeof(msg)) > 0)
		wb_diag_add(&l->notes, "%s", msg);
	l->trace = wb_trace_create(NULL, 4096, err, sizeof(err));
	if (!l->trace) {
		wb_diag_add(&l->notes, "tracepoints off: %s", err);
		return;
	}
	snprintf(crash_path, sizeof(crash_path), "%s", wb_trace_instance_path(l->trace));
}

static int global_again(void *ctx, uint32_t page_size, struct wb_global *g)
{
	return wb_procfs_vmstat_again(&((struct wb_live *)ctx)->procfs, page_size, g);
}

struct wb_live *wb_live_create(const struct wb_live_opts *o, char *err, size_t errlen)
{
	struct wb_live *l = calloc(1, sizeof(*l));
	const char *root = o->root ? o->root : "/";
	struct wb_live_opts eff = *o;

	eff.root = root;
	/*
	 * A sample allocates and frees the same few tens of KiB each time; by
	 * default glibc gives the top of the heap back past 128 KiB free (and
	 * moves that bound as large blocks come and go), so the next sample
	 * grows it again and takes fresh pages' faults (do_anonymous_page
	 * was ~2% of the recorder's CPU). Keep up to 8 MiB.
	 */
	mallopt(M_TRIM_THRESHOLD, 8 << 20);
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (wb_procfs_open(&l->procfs, root) || wb_zoneinfo_open(&l->zones, root) ||
	    wb_bdis_open(&l->bdis, root)) {
		snprintf(err, errlen, "out of memory");
		wb_live_destroy(l);
		return NULL;
	}
	if (strcmp(root, "/") == 0) {
		l->bdis.global_again = global_again;
		l->bdis.global_ctx = l;
	}
	if (maybe_mount_debugfs(l, &eff, err, errlen)) {
		wb_live_destroy(l);
		return NULL;
	}
	if (o->procs && strcmp(root, "/") == 0)
		l->procs = wb_procs_create(&l->diag);
	if (o->trace && strcmp(root, "/") == 0)
		start_trace(l);
	l->why = strcmp(root, "/") != 0 ? WB_WHY_FIXTURE : -1;
	l->trace_on = o->trace;
	l->root = geteuid() == 0;
	/* poll_quiet()'s set: three for the BDIs, one for the sysctls, one a CPU */
	l->pf_cap = 4 + (size_t)(sysconf(_SC_NPROCESSORS_CONF) > 0 ? sysconf(_SC_NPROCESSORS_CONF) : 1);
	l->pf = malloc(l->pf_cap * sizeof(*l->pf));
	return l;
}

void wb_live_destroy(struct wb_live *l)
{
	if (!l)
		return;
	wb_procfs_close(&l->procfs);
	wb_zoneinfo_close(&l->zones);
	wb_bdis_close(&l->bdis);
	wb_procs_destroy(l->procs);
	wb_trace_destroy(l->trace);
	free(l->prev);
	free(l->pf);
	crash_path[0] = '\0';
	if (l->mounted_tracefs)
		umount2("/sys/kernel/tracing", MNT_DETACH);
	if (l->mounted_debugfs)
		umount2("/sys/kernel/debug", MNT_DETACH);
	free(l);
}

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t reclaimable(const struct wb_bdi *b)
{
	return b && WB_HAS(b->st_valid, WB_B_RECLAIMABLE) ? b->st[WB_B_RECLAIMABLE] : UINT64_MAX;
}

/*
 * The wakeup event carries no page count, and this kernel has no kprobe
 * events to read one: estimate the device's reclaimable pages at the event's
 * time from debugfs at the samples on either side of it, linearly.
 */
static void wake_reclaimable(const struct wb_live *l, struct wb_sample *s)
{
	for (size_t i = 0; i < s->nevents; i++) {
		struct wb_event *e = &s->events[i];
		uint64_t now, then = UINT64_MAX;

		if (e->kind != WB_EV_WAKE_BG)
			continue;
		now = reclaimable(wb_sample_bdi(s, e->bdi));
		for (size_t k = 0; k < l->nprev; k++)
			if (strcmp(l->prev[k].name, e->bdi) == 0)
				then = l->prev[k].pages;
		e->extra = now == UINT64_MAX || then == UINT64_MAX
			   ? now : wb_lerp_count(then, l->prev_mono, now, s->mono, e->t);
	}
}

static void keep_reclaimable(struct wb_live *l, const struct wb_sample *s)
{
	struct prev_recl *p = s->nbdis > l->nprev ? realloc(l->prev, s->nbdis * sizeof(*p)) : l->prev;

	if (!p) { /* no memory: estimates fall back to the sample's value */
		l->nprev = 0;
		return;
	}
	l->prev = p;
	l->nprev = s->nbdis;
	for (size_t i = 0; i < s->nbdis; i++) {
		wb_copy_str(p[i].name, sizeof(p[i].name), s->bdis[i].name);
		p[i].pages = reclaimable(&s->bdis[i]);
	}
	l->prev_mono = s->mono;
}

/*
 * One poll() over the nonblocking descriptors the collectors would each
 * read to find nothing there most of the time (the sysctl and knob
 * watches, the uevent socket, mountinfo's change, each CPU's trace
 * buffer): those found quiet are not read in this sample, one system call
 * instead of one each. Something that comes after the poll is read in the
 * next sample, as it would be if it came after the read.
 */
static void poll_quiet(struct wb_live *l)
{
	struct wb_tracebuf *tb = wb_trace_buffers(l->trace);
	size_t n, np, nb;

	if (!l->pf)
		return; /* no memory for it: each is read, as without the poll */
	np = wb_procfs_pollfds(&l->procfs, l->pf, l->pf_cap);
	nb = wb_bdis_pollfds(&l->bdis, l->pf + np, l->pf_cap - np);
	n = np + nb + wb_tracebuf_pollfds(tb, l->pf + np + nb, l->pf_cap - np - nb);
	if (n == 0 || poll(l->pf, n, 0) < 0)
		return;
	wb_procfs_polled(&l->procfs, l->pf, np);
	wb_bdis_polled(&l->bdis, l->pf + np, nb);
	/* a CPU put on or off line comes as a uevent (device_online()): any uevent, the CPUs are read again */
	l->procfs.cpus_changed |= l->bdis.uevent_poll == WB_POLL_READY;
	wb_tracebuf_polled(tb, l->pf + np + nb, n - np - nb);
}

/* Counts of n no kernel has (wb_count_ok()) made unknown (and 0: the reader checks every value); how many. */
static int drop_over(uint64_t *v, uint64_t *valid, int n, uint64_t unit)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (!wb_count_ok(v[i], unit)) {
			k += WB_HAS(*valid, i);
			*valid &= ~WB_BIT(i);
			v[i] = 0;
		}
	return k;
}

/*
 * Counts no kernel reaches (wb_count_ok(): 2^62, or 16 EiB as bytes), as
 * sums of values each below the cap can be (a node's zones folded, a
 * device's wbs): unknown, as a recording's reader would refuse the sample
 * that held them and the outputs' bytes would wrap. Single values past
 * 2^62 are named where they are parsed.
 */
static void drop_impossible(struct wb_sample *s, struct wb_diag *d)
{
	uint64_t P = s->page_size;
	int k = drop_over(s->g.v, &s->g.valid, WB_G_COUNT, P);

	for (size_t i = 0; i < s->nnodes; i++)
		k += drop_over(s->nodes[i].v, &s->nodes[i].valid, WB_N_COUNT, P);
	for (size_t i = 0; i < s->nzones; i++)
		k += drop_over(s->zones[i].v, &s->zones[i].valid, WB_Z_COUNT, P);
	for (size_t i = 0; i < s->nbdis; i++) {
		k += drop_over(s->bdis[i].st, &s->bdis[i].st_valid, WB_B_COUNT, P);
		k += drop_over(s->bdis[i].disk, &s->bdis[i].disk_valid, WB_D_COUNT, 512);
	}
	if (k)
		wb_diag_add(d, "%d figures past what a kernel counts (2^62, or 16 EiB in bytes; as read or "
			    "summed): unknown", k);
}

void wb_live_read(struct wb_live *l, struct wb_sample *s)
{
	poll_quiet(l);
	wb_sample_finish(s);
	wb_diag_clear(&l->diag);
	s->mono = clock_s(CLOCK_MONOTONIC);
	s->wall = clock_s(CLOCK_REALTIME);
	s->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	wb_procfs_read(&l->procfs, s, &l->diag);
	wb_zoneinfo_read(&l->zones, s, &l->diag);
	wb_bdis_read(&l->bdis, s, &l->diag);
	if (l->procs) {
		if (!l->procs_off)
			wb_procs_read(l->procs, s, &l->diag);
		wb_procs_read_disks(l->procs, s, &l->diag);
	}
	if (l->trace && wb_trace_drain(l->trace, s, &l->diag) >= 0)
		wake_reclaimable(l, s);
	if (l->trace) /* only the wakeups' estimates need the last sample's figures */
		keep_reclaimable(l, s);
	drop_impossible(s, &l->diag);
	/* A damaged file degrades its own figures only; -1 = nothing at all. */
	s->level = s->g.valid || s->nzones ? WB_LEVEL_PROC : -1;
	if (l->bdis.sysfs_ok && s->nbdis > 0) {
		s->level = WB_LEVEL_SYSFS;
		if (l->bdis.debugfs_ok)
			s->level = WB_LEVEL_DEBUGFS;
		if (s->level == WB_LEVEL_DEBUGFS && s->ev_valid)
			s->level = WB_LEVEL_TRACE;
	}
	/* live, the hint follows what the BDI collector found of debugfs in this sample */
	s->level_why = l->why >= 0 ? l->why : wb_level_why_live(l->trace_on, s->level, l->bdis.dir_fail, l->root);
}

void wb_live_need_procs(struct wb_live *l, bool on)
{
	if (l->procs && l->procs_off && on)
		wb_procs_restart(l->procs); /* its counters are stale */
	l->procs_off = !on;
}

bool wb_live_has_procs(const struct wb_live *l)
{
	return l->procs != NULL;
}

const struct wb_diag *wb_live_notes(const struct wb_live *l)
{
	return &l->notes;
}

const struct wb_diag *wb_live_diag(const struct wb_live *l)
{
	return &l->diag;
}
