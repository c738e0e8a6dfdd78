/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Global counters and sysctls: /proc/vmstat, /proc/meminfo, /proc/sys/vm. */
#ifndef WBTOP_PROCFS_H
#define WBTOP_PROCFS_H

#include <poll.h>

#include "wbtop/kvfile.h"
#include "wbtop/sample.h"

struct wb_procfs {
	struct wb_kvfile vmstat, meminfo, online;
	struct wb_kvfile sysctl[WB_SYS_COUNT];
	int sys_watch;          /* inotify on the live sysctl files (-1: none, read every sample) */
	enum wb_polled sys_poll; /* what a poll() said of sys_watch for the next read */
	bool sys_known;         /* sys[] below is what the files hold (no write since) */
	unsigned sys_kept_for;  /* samples sys[] has been used for */
	uint64_t sys[WB_SYS_COUNT], sys_valid;
	bool live;              /* root is "/" */
	unsigned ncpus;         /* the online CPUs last read (0: none read) */
	unsigned ncpus_kept_for; /* samples ncpus has been used for */
	bool cpus_changed;      /* set by the caller on a uevent: read the online CPUs again */
};

/* Prepare the files under root (default "/"). 0 or -ENOMEM. */
int wb_procfs_open(struct wb_procfs *p, const char *root);
/* Fill s->g, s->sys, s->ncpus; problems go to d. */
void wb_procfs_read(struct wb_procfs *p, struct wb_sample *s, struct wb_diag *d);
void wb_procfs_close(struct wb_procfs *p);
/*
 * /proc/vmstat alone, again, into g (what the BDIs' floor check needs of the
 * moment after their reads: bdi.c floor_at_read()). 0, or -1 unreadable.
 */
int wb_procfs_vmstat_again(struct wb_procfs *p, uint32_t page_size, struct wb_global *g);

/*
 * The descriptors to poll() (POLLIN) before the next read: at most max
 * into pf, their count. Their revents go back through wb_procfs_polled().
 */
size_t wb_procfs_pollfds(const struct wb_procfs *p, struct pollfd *pf, size_t max);
void wb_procfs_polled(struct wb_procfs *p, const struct pollfd *pf, size_t n);

/* Count CPUs in a cpulist ("0-3,8"); 0 if malformed. */
unsigned wb_cpulist_count(const char *s);

#endif
