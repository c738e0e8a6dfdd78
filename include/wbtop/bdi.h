/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Backing devices: /sys/class/bdi knobs, device names (/sys/dev/block,
 * btrfs's own BDIs through /sys/fs/btrfs), mounts (/proc/self/mountinfo),
 * and, at access level 2, debugfs stats and wb_stats.
 */
#ifndef WBTOP_BDI_H
#define WBTOP_BDI_H

#include <poll.h>

#include "wbtop/kvfile.h"
#include "wbtop/sample.h"

/* debugfs stats cost above which a BDI's stats are read less often. */
#define WB_BDI_STATS_SLOW_US 1000

struct wb_bdi_files;

struct wb_bdis {
	char *root;                   /* owned */
	char *debugfs;                /* root + /sys/kernel/debug/bdi, owned */
	struct wb_kvfile mountinfo;
	bool mounts_live;             /* mountinfo is the live one: poll() says when it changed */
	int knob_watch;               /* inotify on the live knob files (-1: none, read every sample) */
	int uevent;                   /* kernel uevents, live (-1: none, /sys/class/bdi listed every sample) */
	unsigned listed_for;          /* samples since /sys/class/bdi was last listed */
	bool listed;                  /* the states below are those of a listing */
	struct wb_bdi_files *st;      /* one per known BDI, owned */
	size_t nst, st_cap;
	size_t *rank;                 /* each state's place in name order, owned; NULL: to be sorted */
	bool debugfs_ok;              /* last sample read some debugfs stats */
	int dir_fail;                 /* errno debugfs's bdi folder was said to fail with (0: none said) */
	bool sysfs_ok;                /* /sys/class/bdi was listable */
	/* idle BDIs (bdi.c): nr_dirtied at the last sample every BDI was read in, pages the reads saw dirtied since */
	uint64_t vm_base, explained;
	bool have_base;
	unsigned idle_tick;           /* samples read, for the idle BDIs' turns */
	unsigned slow_us;             /* a stats read this slow backs off (WB_BDI_STATS_SLOW_US; env WBTOP_BDI_SLOW_US) */
	/* the global figures again, after the reads (live.c: /proc/vmstat), for floor_at_read(); NULL: none */
	int (*global_again)(void *ctx, uint32_t page_size, struct wb_global *g);
	void *global_ctx;
	/* what a poll() said of knob_watch, uevent and mountinfo (POLLPRI) for the next read */
	enum wb_polled knob_poll, uevent_poll, mount_poll;
};

int wb_bdis_open(struct wb_bdis *b, const char *root);
/* Replace s->bdis with the BDIs present now. */
void wb_bdis_read(struct wb_bdis *b, struct wb_sample *s, struct wb_diag *d);
void wb_bdis_close(struct wb_bdis *b);
/*
 * The descriptors to poll() before the next read (the knob watch and the
 * uevent socket for POLLIN, the live mountinfo for POLLPRI): at most max
 * into pf, their count. Their revents go back through wb_bdis_polled().
 */
size_t wb_bdis_pollfds(const struct wb_bdis *b, struct pollfd *pf, size_t max);
void wb_bdis_polled(struct wb_bdis *b, const struct pollfd *pf, size_t n);


/*
 * The parsers, pure, for tests and fuzzing: debugfs stats and wb_stats text
 * into stv[WB_B_COUNT] (bits set in *st_valid; wb_stats text is cut in
 * place), and mountinfo text (cut in place) onto s's BDIs' mounts.
 */
void wb_bdi_parse_stats(const char *buf, uint32_t page_size, uint64_t *stv, uint64_t *st_valid, const char *what,
			struct wb_diag *d);
/* wb_stats figures summed over the wbs as the kernel's stats file sums them (WB_B_* indices). */
struct wb_bdi_wbsum {
	uint64_t v[WB_B_COUNT];
	uint64_t valid;       /* bits of v[] that are what stats would show */
	uint64_t nwbs;
	bool root;            /* a WbCgIno 1 block was seen */
	uint64_t root_valid;  /* its keys (local indices) */
};
void wb_bdi_parse_wb_stats(char *buf, uint32_t page_size, uint64_t *stv, uint64_t *st_valid,
			   struct wb_bdi_wbsum *sum, const char *what, struct wb_diag *d);
/*
 * Every stats figure wbtop uses from wb_stats sums and /proc/vmstat's
 * thresholds (s->g): true and stored into stv/st_valid if all are had.
 */
bool wb_bdi_stats_from_wb(const struct wb_bdi_wbsum *sum, const struct wb_sample *s, uint64_t *stv,
			  uint64_t *st_valid);
void wb_mountinfo_attach(char *buf, struct wb_sample *s);
/* Decode mountinfo's octal escapes (\040) in place. */
void wb_mountinfo_unescape(char *s);

#endif
