// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Global counters and sysctls. /proc/vmstat and /proc/meminfo are parsed by
 * key name here rather than through libproc2's meminfo/vmstat APIs: those
 * read a hard-wired /proc (no fixture trees) and know only the keys of the
 * kernel they were built for (libproc2 4.0.2 predates nr_throttled_written).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "wbtop/procfs.h"

static const struct wb_kv_key vmstat_keys[] = {
	WB_KV("nr_free_pages", WB_G_FREE_PAGES, WB_KV_NUM, false, false),
	WB_KV("nr_active_file", WB_G_ACTIVE_FILE, WB_KV_NUM, false, true),
	WB_KV("nr_inactive_file", WB_G_INACTIVE_FILE, WB_KV_NUM, false, true),
	WB_KV("nr_dirty", WB_G_DIRTY, WB_KV_NUM, false, true),
	WB_KV("nr_writeback", WB_G_WRITEBACK, WB_KV_NUM, false, true),
	WB_KV("nr_writeback_temp", WB_G_WRITEBACK_TEMP, WB_KV_NUM, false, false),
	WB_KV("nr_dirtied", WB_G_DIRTIED, WB_KV_NUM, false, false),
	WB_KV("nr_written", WB_G_WRITTEN, WB_KV_NUM, false, false),
	WB_KV("nr_dirty_threshold", WB_G_DIRTY_THRESH, WB_KV_NUM, false, true),
	WB_KV("nr_dirty_background_threshold", WB_G_BG_THRESH, WB_KV_NUM, false, true),
	WB_KV("nr_zone_write_pending", WB_G_ZONE_WRITE_PENDING, WB_KV_NUM, false, false),
	WB_KV("nr_vmscan_write", WB_G_VMSCAN_WRITE, WB_KV_NUM, false, false),
	WB_KV("nr_vmscan_immediate_reclaim", WB_G_VMSCAN_IMMEDIATE, WB_KV_NUM, false, false),
	WB_KV("nr_throttled_written", WB_G_THROTTLED_WRITTEN, WB_KV_NUM, false, false),
	WB_KV("pgrotated", WB_G_PGROTATED, WB_KV_NUM, false, false),
	WB_KV("pgscan_", WB_G_PGSCAN, WB_KV_NUM, true, false),
	WB_KV("pgsteal_", WB_G_PGSTEAL, WB_KV_NUM, true, false),
	WB_KV("allocstall", WB_G_ALLOCSTALL, WB_KV_NUM, true, false), /* < 4.x: one counter */
};

static const struct wb_kv_key meminfo_keys[] = {
	WB_KV("MemTotal", WB_G_MEMTOTAL, WB_KV_KB, false, true),
	WB_KV("MemFree", WB_G_MEMFREE, WB_KV_KB, false, true),
};

/* Relative to /proc/sys/vm; the order is enum wb_sysctl. */
static const char *const sysctl_files[WB_SYS_COUNT] = {
	[WB_SYS_DIRTY_RATIO] = "dirty_ratio",
	[WB_SYS_DIRTY_BYTES] = "dirty_bytes",
	[WB_SYS_BG_RATIO] = "dirty_background_ratio",
	[WB_SYS_BG_BYTES] = "dirty_background_bytes",
	[WB_SYS_EXPIRE_CS] = "dirty_expire_centisecs",
	[WB_SYS_WRITEBACK_CS] = "dirty_writeback_centisecs",
	[WB_SYS_DIRTYTIME_EXPIRE] = "dirtytime_expire_seconds",
	[WB_SYS_LAPTOP_MODE] = "laptop_mode",
};

/* Init f with root+rel. */
static int init_at(struct wb_kvfile *f, const char *root, const char *rel)
{
	char *p = wb_path_join(root, rel);
	int err;

	if (!p)
		return -ENOMEM;
	err = wb_kvfile_init(f, p);
	free(p);
	return err;
}

/*
 * Live, the vm sysctls are kept until one of their files is written: the
 * VFS reports every write(2) to a /proc/sys file as IN_MODIFY
 * (vfs_write(), fsnotify_modify()), and our descriptors keep the files'
 * inodes those that every writer through this /proc reaches. Writing one
 * can change another (dirty_bytes zeroes dirty_ratio): any write rereads
 * them all. A write through another /proc (a container's with its own PID
 * namespace) reaches no watch of ours: they are read again every
 * SYSCTL_REFRESH samples anyway, as the BDI knobs are.
 */
#define SYSCTL_REFRESH 16

/*
 * Live, the online CPU count is kept until a uevent (the caller's
 * cpus_changed: a CPU put on or off line sends one, drivers/base/core.c
 * device_online()) and read again every CPU_REFRESH samples anyway:
 * uevents do not reach a socket of another network namespace than the
 * first (lib/kobject_uevent.c), so in such a container a CPU put on or
 * off line is seen up to CPU_REFRESH samples late.
 */
#define CPU_REFRESH 16

/* Watch the sysctl files (before their first read); -1 if any cannot be watched. */
static int sysctl_watch(struct wb_procfs *p)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	for (int i = 0; fd >= 0 && i < WB_SYS_COUNT; i++)
		if (inotify_add_watch(fd, p->sysctl[i].path, IN_MODIFY) < 0 && errno != ENOENT) {
			close(fd);
			fd = -1;
		}
	return fd;
}

/* Was a sysctl file written since the last look (or cannot it be told)? */
static bool sysctl_written(int fd)
{
	char buf[1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		any = true;
	return any || (n < 0 && errno != EAGAIN);
}

int wb_procfs_open(struct wb_procfs *p, const char *root)
{
	char rel[96];
	int err = 0;

	memset(p, 0, sizeof(*p));
	p->sys_watch = -1;
	err |= init_at(&p->vmstat, root, "/proc/vmstat");
	err |= init_at(&p->meminfo, root, "/proc/meminfo");
	err |= init_at(&p->online, root, "/sys/devices/system/cpu/online");
	for (int i = 0; i < WB_SYS_COUNT; i++) {
		snprintf(rel, sizeof(rel), "/proc/sys/vm/%s", sysctl_files[i]);
		err |= init_at(&p->sysctl[i], root, rel);
	}
	if (err) {
		wb_procfs_close(p);
		return -ENOMEM;
	}
	/* made in one piece (vmstat is a page at a time: it is not) */
	p->meminfo.one_shot = p->online.one_shot = true;
	/*
	 * "name value\n": names under 64 bytes (30 at most in 6.18), a u64 in 20
	 * digits: 86. With 128 a file of 3,969-4,096 bytes (6.18 here: 3,967-3,974)
	 * took a second pread that returned 0.
	 */
	p->vmstat.max_record = 64 + 1 + 20 + 1;
	for (int i = 0; i < WB_SYS_COUNT; i++)
		p->sysctl[i].one_shot = true;
	p->live = strcmp(root, "/") == 0;
	if (p->live)
		p->sys_watch = sysctl_watch(p);
	return 0;
}

void wb_procfs_close(struct wb_procfs *p)
{
	wb_kvfile_finish(&p->vmstat);
	wb_kvfile_finish(&p->meminfo);
	wb_kvfile_finish(&p->online);
	for (int i = 0; i < WB_SYS_COUNT; i++)
		wb_kvfile_finish(&p->sysctl[i]);
	if (p->sys_watch >= 0)
		close(p->sys_watch);
	p->sys_watch = -1;
}

unsigned wb_cpulist_count(const char *s)
{
	unsigned n = 0;
	const char *p = s;

	while (*p && *p != '\n') {
		uint64_t a, b;
		const char *e;

		if (!wb_parse_u64(p, &e, &a))
			return 0;
		b = a;
		if (*e == '-' && !wb_parse_u64(e + 1, &e, &b))
			return 0;
		if (b < a || b - a > 65535)
			return 0;
		n += (unsigned)(b - a + 1);
		p = e;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return 0;
	}
	return n;
}

/* The vm sysctls into s: kept (live, no write since), else read. */
static void read_sysctls(struct wb_procfs *p, struct wb_sample *s, struct wb_diag *d)
{
	/* a watch poll() found quiet has nothing to read: no read that fails with EAGAIN */
	bool written = p->sys_watch >= 0 && p->sys_poll != WB_POLL_QUIET && sysctl_written(p->sys_watch), quiet = true;

	p->sys_poll = WB_POLL_NONE;

	if (p->sys_watch >= 0 && p->sys_known && !written && ++p->sys_kept_for < SYSCTL_REFRESH) {
		memcpy(s->sys, p->sys, sizeof(s->sys));
		s->sys_valid = p->sys_valid;
		return;
	}
	for (int i = 0; i < WB_SYS_COUNT; i++) {
		uint64_t v;
		/* laptop_mode and dirtytime may be absent on odd kernels: quiet; the four the thresholds
		 * come from are in every kernel, and without them the model cannot run */
		int rc = wb_kvfile_u64(&p->sysctl[i], d, &v);
		if (rc == -ENOENT && i <= WB_SYS_BG_BYTES)
			wb_diag_add(d, "%s: not there: the thresholds cannot be computed", p->sysctl[i].path);
		if (rc == 0 && v > wb_sysctl_max[i]) {
			wb_diag_add(d, "%s: %llu is out of the kernel's range 0-%llu (ignored)", p->sysctl[i].path,
				    (unsigned long long)v, (unsigned long long)wb_sysctl_max[i]);
			rc = -ERANGE;
		}
		if (rc == 0) {
			s->sys[i] = v;
			s->sys_valid |= WB_BIT(i);
		}
		quiet &= rc == 0 || (rc == -ENOENT && i > WB_SYS_BG_BYTES);
	}
	/* kept only when nothing was said about them: a problem is said every sample */
	p->sys_known = p->sys_watch >= 0 && quiet;
	p->sys_kept_for = 0;
	memcpy(p->sys, s->sys, sizeof(p->sys));
	p->sys_valid = s->sys_valid & (WB_BIT(WB_SYS_COUNT) - 1);
}

size_t wb_procfs_pollfds(const struct wb_procfs *p, struct pollfd *pf, size_t max)
{
	if (p->sys_watch < 0 || max < 1)
		return 0;
	pf[0] = (struct pollfd){ .fd = p->sys_watch, .events = POLLIN };
	return 1;
}

void wb_procfs_polled(struct wb_procfs *p, const struct pollfd *pf, size_t n)
{
	if (n == 1)
		p->sys_poll = wb_polled_of(pf[0].revents);
}

/*
 * Live, MemTotal and MemFree by sysinfo(2): /proc/meminfo shows them from
 * the same si_meminfo() (fs/proc/meminfo.c, kernel/sys.c do_sysinfo()),
 * equal in 200 of 200 back-to-back reads here (lazy deferred init and
 * all), for a third of the cost of formatting the file's 50-odd lines.
 * False if it fails or a figure is not a whole number of pages.
 */
static bool meminfo_sysinfo(struct wb_sample *s)
{
	static const int k[] = { WB_G_MEMTOTAL, WB_G_MEMFREE };
	struct sysinfo si;
	uint64_t v[2];

	if (sysinfo(&si) != 0 || si.mem_unit == 0 || s->page_size == 0)
		return false;
	v[0] = (uint64_t)si.totalram * si.mem_unit;
	v[1] = (uint64_t)si.freeram * si.mem_unit;
	for (int i = 0; i < 2; i++)
		if (v[i] % s->page_size)
			return false;
	for (int i = 0; i < 2; i++) {
		s->g.v[k[i]] = v[i] / s->page_size;
		s->g.valid |= WB_BIT(k[i]);
	}
	return true;
}

int wb_procfs_vmstat_again(struct wb_procfs *p, uint32_t page_size, struct wb_global *g)
{
	g->valid = 0;
	if (wb_kvfile_read(&p->vmstat, NULL))
		return -1;
	wb_kv_parse(p->vmstat.buf, vmstat_keys, sizeof(vmstat_keys) / sizeof(vmstat_keys[0]), page_size, g->v,
		    &g->valid, p->vmstat.path, NULL);
	return 0;
}

void wb_procfs_read(struct wb_procfs *p, struct wb_sample *s, struct wb_diag *d)
{
	if (wb_kvfile_read(&p->vmstat, d) == 0)
		wb_kv_parse(p->vmstat.buf, vmstat_keys, sizeof(vmstat_keys) / sizeof(vmstat_keys[0]),
			    s->page_size, s->g.v, &s->g.valid, p->vmstat.path, d);
	else
		wb_diag_add(d, "%s: unreadable: global dirty counters unknown", p->vmstat.path);
	if (p->live && meminfo_sysinfo(s))
		; /* the file is not read */
	else if (wb_kvfile_read(&p->meminfo, d) == 0)
		wb_kv_parse(p->meminfo.buf, meminfo_keys, sizeof(meminfo_keys) / sizeof(meminfo_keys[0]),
			    s->page_size, s->g.v, &s->g.valid, p->meminfo.path, d);
	read_sysctls(p, s, d);
	if (p->live && p->ncpus && !p->cpus_changed && ++p->ncpus_kept_for < CPU_REFRESH) {
		s->ncpus = p->ncpus;
		return;
	}
	p->cpus_changed = false;
	p->ncpus_kept_for = 0;
	p->ncpus = 0;
	if (wb_kvfile_read(&p->online, NULL) == 0)
		p->ncpus = s->ncpus = wb_cpulist_count(p->online.buf);
}
