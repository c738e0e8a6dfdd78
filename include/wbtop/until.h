/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --until-clean: follow one device until nothing on it is dirty or under
 * writeback ("is my USB copy really finished?"), printing its level and the
 * model's time until clean each sample.
 */
#ifndef WBTOP_UNTIL_H
#define WBTOP_UNTIL_H

#include <stdbool.h>
#include <stdio.h>

#include "wbtop/sample.h"
#include "wbtop/source.h"

struct wb_until_opts {
	const char *dev;   /* "7:0", "loop0", "/dev/loop0", a BDI name, a mount point or (live) any path */
	double delay;      /* seconds between samples (live) */
	long count;        /* stop after this many samples (0: until clean) */
	bool bar;          /* rewrite one line with a progress bar (a terminal) */
	bool live;         /* the samples are this machine's now: dev may be resolved by its files */
};

/* Exit codes, as the man page gives them. */
enum { WB_UNTIL_CLEAN = 0, WB_UNTIL_NOT_CLEAN = 1, WB_UNTIL_BAD = 2 };

/*
 * Index of the BDI that dev names in s (see wb_until_opts.dev), or -1.
 * A mount point matches the BDI it is mounted from.
 */
int wb_until_find(const struct wb_sample *s, const char *dev);

/*
 * The mount in mountinfo's text (changed: cut into fields) of the file
 * system with st_dev majmin ("254:0") that holds the absolute, resolved
 * path (the longest mount point above it; of equal ones the last, on
 * top): its mount point and source into mnt and src. False if none.
 */
bool wb_mount_of(char *mountinfo, const char *majmin, const char *path, char *mnt, size_t mntlen, char *src,
		 size_t srclen);

/*
 * wb_until_find(), and when that finds nothing and dev is a partition or
 * a path on this machine (stat, /proc/self/mountinfo, sysfs), the BDI
 * that holds its file system's dirty pages, as df finds the file system;
 * the BDI's name into name. Index or -1.
 */
int wb_until_resolve(const struct wb_sample *s, const char *dev, char *name, size_t n);

/*
 * Run the loop on src, printing to out. Returns WB_UNTIL_CLEAN when the
 * device became clean, WB_UNTIL_NOT_CLEAN when the source ended, a signal
 * stopped it or count ran out first, WB_UNTIL_BAD (with a message on
 * stderr) for an unknown device, an access level that cannot see it, or a
 * device that has gone (its BDI missing from two samples in a row).
 */
int wb_until_clean(const struct wb_until_opts *o, struct wb_source *src, FILE *out);

#endif
