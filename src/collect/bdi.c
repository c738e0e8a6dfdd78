// SPDX-License-Identifier: GPL-2.0-or-later
/* Backing devices: enumeration, knobs, names, mounts, debugfs stats. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wbtop/bdi.h"
#include "wbtop/env.h"
#include "wbtop/kvfile.h"
#include "wbtop/procfs.h"
#include "wbtop/util.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Per-BDI collector state: kept-open files, cached names, back-off. */
struct wb_bdi_files {
	char name[WB_NAME_LEN];
	char dev[WB_NAME_LEN];
	bool dev_known;
	bool seen;
	struct wb_kvfile knob[WB_K_COUNT];
	struct wb_kvfile stats, wb_stats;
	uint64_t st[WB_B_COUNT];   /* last debugfs figures, for back-off */
	uint64_t st_valid;
	uint32_t cost_us;
	unsigned skip;             /* samples left before the next stats read */
	bool from_wb;              /* the last read took every figure from wb_stats (one wb) */
	unsigned idle_reads;       /* reads in a row that found it idle (idle_at(), floor_at_read()) */
	unsigned idle_prev;        /* idle_reads before the last read */
	uint64_t floor_then;       /* its threshold's floor at the last read, pages */
	uint64_t floor_now;        /* the floor this sample, when not due (idle_due()) */
	unsigned turn;             /* hash of the name: its turn among the idle reads */
	bool due;                  /* its figures are read this sample (fill_all()) */
	bool fresh;                /* its figures were read in this sample (not kept) */
	uint64_t dirtied;          /* WB_B_DIRTIED at the last read, pages (have_dirtied) */
	bool have_dirtied;
	/* the least threshold read with nothing completed since (least_since()), pages, with the
	 * global threshold of its sample and WB_B_WRITTEN then */
	uint64_t least_k, least_t, least_written, least_max, least_summin;
	bool least_ok;
	bool starved;              /* a file of it could not be opened this sample: no descriptor free */
	int stats_fail;            /* errno its stats were last found unreadable with, said once (0: none) */
	bool stats_new;            /* ... found so in this sample, to be said (stats_report()) */
	int wd[WB_K_COUNT];        /* inotify watches on the knob files, -1 none */
	bool knobs_known;          /* kval[] below is what the files hold (no write since) */
	unsigned kept_for;         /* samples kval[] has been used for */
	uint64_t kval[WB_K_COUNT], kval_valid;
	bool mounts_known;         /* the fields below hold this BDI's mounts */
	char fstype[16];
	char mounts[WB_MAX_MOUNTS][WB_PATH_LEN];
	int nmounts;
};

static const struct wb_kv_key stats_keys[] = {
	WB_KV("BdiWriteback", WB_B_WRITEBACK, WB_KV_KB, false, true),
	WB_KV("BdiReclaimable", WB_B_RECLAIMABLE, WB_KV_KB, false, true),
	WB_KV("BdiDirtyThresh", WB_B_THRESH, WB_KV_KB, false, true),
	WB_KV("DirtyThresh", WB_B_DIRTY_THRESH, WB_KV_KB, false, false),
	WB_KV("BackgroundThresh", WB_B_BG_THRESH, WB_KV_KB, false, false),
	WB_KV("BdiDirtied", WB_B_DIRTIED, WB_KV_KB, false, false),
	WB_KV("BdiWritten", WB_B_WRITTEN, WB_KV_KB, false, false),
	WB_KV("BdiWriteBandwidth", WB_B_BDI_BW, WB_KV_KBPS, false, false),
	WB_KV("b_dirty", WB_B_B_DIRTY, WB_KV_NUM, false, false),
	WB_KV("b_io", WB_B_B_IO, WB_KV_NUM, false, false),
	WB_KV("b_more_io", WB_B_B_MORE_IO, WB_KV_NUM, false, false),
	WB_KV("b_dirty_time", WB_B_B_DIRTY_TIME, WB_KV_NUM, false, false),
	WB_KV("state", WB_B_STATE, WB_KV_HEX, false, false),
};

/*
 * wb_stats keys of one wb block; indices are local (WS_*). The kernel's
 * stats file prints the same per-wb figures summed over the BDI's wbs
 * (mm/backing-dev.c: bdi_debug_stats_show() and cgwb_debug_stats_show()
 * both fill them with collect_wb_stats()); ws_sums says which.
 */
enum {
	WS_CGINO, WS_BW, WS_THRESH, WS_WRITEBACK, WS_RECLAIMABLE, WS_DIRTIED, WS_WRITTEN,
	WS_B_DIRTY, WS_B_IO, WS_B_MORE_IO, WS_B_DIRTY_TIME, WS_STATE, WS_COUNT
};
static const struct wb_kv_key wb_stats_keys[] = {
	WB_KV("WbCgIno", WS_CGINO, WB_KV_NUM, false, false),
	WB_KV("WbWriteBandwidth", WS_BW, WB_KV_KBPS, false, false),
	WB_KV("WbDirtyThresh", WS_THRESH, WB_KV_KB, false, false),
	WB_KV("WbWriteback", WS_WRITEBACK, WB_KV_KB, false, false),
	WB_KV("WbReclaimable", WS_RECLAIMABLE, WB_KV_KB, false, false),
	WB_KV("WbDirtied", WS_DIRTIED, WB_KV_KB, false, false),
	WB_KV("WbWritten", WS_WRITTEN, WB_KV_KB, false, false),
	WB_KV("b_dirty", WS_B_DIRTY, WB_KV_NUM, false, false),
	WB_KV("b_io", WS_B_IO, WB_KV_NUM, false, false),
	WB_KV("b_more_io", WS_B_MORE_IO, WB_KV_NUM, false, false),
	WB_KV("b_dirty_time", WS_B_DIRTY_TIME, WB_KV_NUM, false, false),
	WB_KV("state", WS_STATE, WB_KV_HEX, false, false),
};

/* stats figures that are the sum of one wb_stats figure over the wbs */
static const int ws_sums[][2] = {
	{ WS_WRITEBACK, WB_B_WRITEBACK },  { WS_RECLAIMABLE, WB_B_RECLAIMABLE },
	{ WS_DIRTIED, WB_B_DIRTIED },      { WS_WRITTEN, WB_B_WRITTEN },
	{ WS_B_DIRTY, WB_B_B_DIRTY },      { WS_B_IO, WB_B_B_IO },
	{ WS_B_MORE_IO, WB_B_B_MORE_IO },  { WS_B_DIRTY_TIME, WB_B_B_DIRTY_TIME },
};

/* A wb's state bit WB_has_dirty_io (include/linux/backing-dev-defs.h: bit 2). */
#define WS_HAS_DIRTY_IO 0x4

static const char *const knob_files[WB_K_COUNT] = {
	[WB_K_MIN_RATIO] = "min_ratio",
	[WB_K_MAX_RATIO] = "max_ratio",
	[WB_K_MIN_RATIO_FINE] = "min_ratio_fine",
	[WB_K_MAX_RATIO_FINE] = "max_ratio_fine",
	[WB_K_MIN_BYTES] = "min_bytes",
	[WB_K_MAX_BYTES] = "max_bytes",
	[WB_K_STRICT_LIMIT] = "strict_limit",
};

/* \040 (a space), \011, \012, \134: as the kernel escapes a mount point in mountinfo */
void wb_mountinfo_unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/*
 * The kernel's uevents (what udev hears): a BDI is a device of class bdi
 * (mm/backing-dev.c, device_create), so its add and remove come as uevents
 * of SUBSYSTEM=bdi (device_add, device_del). Any user may listen. -1 if
 * no socket can be had: /sys/class/bdi is then listed every sample.
 */
static int uevent_open(void)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Did a BDI come or go since the last look? True on a bdi uevent, and when
 * some may have been lost (the socket's buffer overflowed: ENOBUFS).
 */
static bool uevent_bdi(int fd)
{
	static const char key[] = "SUBSYSTEM=bdi"; /* with its NUL: a whole field */
	char buf[8192];
	bool bdi = false;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		if (n < 0)
			return bdi || errno != EAGAIN;
		if ((size_t)n >= sizeof(buf)) /* cut: cannot tell */
			bdi = true;
		for (ssize_t i = 0; !bdi && i + (ssize_t)sizeof(key) <= n; i++)
			bdi = (i == 0 || buf[i - 1] == '\0') && memcmp(buf + i, key, sizeof(key)) == 0;
	}
	return true;
}

/*
 * The cost past which a BDI's stats read backs off. WBTOP_BDI_SLOW_US
 * lowers it for tests: every read then backs off, as on a loaded machine
 * under the sanitizers, and the figures kept between reads are judged.
 */
static unsigned slow_us(void)
{
	unsigned v = WB_BDI_STATS_SLOW_US;

	wb_env_uint(WB_ENV_BDI_SLOW_US, &v); /* a value it does not take is said at the start (wb_env_warn) */
	return v;
}

int wb_bdis_open(struct wb_bdis *b, const char *root)
{
	char *mi;
	int err;

	memset(b, 0, sizeof(*b));
	b->knob_watch = b->uevent = -1;
	b->root = strdup(root);
	b->debugfs = wb_path_join(root, "/sys/kernel/debug/bdi");
	mi = wb_path_join(root, "/proc/self/mountinfo");
	if (!b->root || !b->debugfs || !mi) {
		free(mi);
		wb_bdis_close(b);
		return -ENOMEM;
	}
	err = wb_kvfile_init(&b->mountinfo, mi);
	free(mi);
	b->mounts_live = strcmp(root, "/") == 0;
	b->slow_us = slow_us();
	b->knob_watch = b->mounts_live ? inotify_init1(IN_NONBLOCK | IN_CLOEXEC) : -1;
	b->uevent = b->mounts_live ? uevent_open() : -1;
	return err;
}

static void state_finish(struct wb_bdis *b, struct wb_bdi_files *st)
{
	for (int k = 0; k < WB_K_COUNT && b->knob_watch >= 0; k++)
		if (st->wd[k] >= 0)
			inotify_rm_watch(b->knob_watch, st->wd[k]);
	for (int k = 0; k < WB_K_COUNT; k++)
		wb_kvfile_finish(&st->knob[k]);
	wb_kvfile_finish(&st->stats);
	wb_kvfile_finish(&st->wb_stats);
}

void wb_bdis_close(struct wb_bdis *b)
{
	for (size_t i = 0; i < b->nst; i++)
		state_finish(b, &b->st[i]);
	if (b->knob_watch >= 0)
		close(b->knob_watch);
	if (b->uevent >= 0)
		close(b->uevent);
	free(b->st);
	free(b->rank);
	free(b->root);
	free(b->debugfs);
	wb_kvfile_finish(&b->mountinfo);
	memset(b, 0, sizeof(*b));
	b->knob_watch = -1;
	b->uevent = -1;
}

/* Set up the files of a newly seen BDI. */
static int state_init(struct wb_bdis *b, struct wb_bdi_files *st, const char *name)
{
	char rel[160], *p;

	memset(st, 0, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", name);
	for (const char *q = st->name; *q; q++)
		st->turn = st->turn * 31 + (unsigned char)*q;
	for (int k = 0; k < WB_K_COUNT; k++)
		st->wd[k] = -1;
	for (int k = 0; k < WB_K_COUNT; k++) {
		snprintf(rel, sizeof(rel), "/sys/class/bdi/%s/%s", name, knob_files[k]);
		p = wb_path_join(b->root, rel);
		if (!p || wb_kvfile_init(&st->knob[k], p))
			goto nomem;
		free(p);
	}
	if (asprintf(&p, "%s/%s/stats", b->debugfs, name) < 0 || wb_kvfile_init(&st->stats, p))
		goto nomem;
	free(p);
	if (asprintf(&p, "%s/%s/wb_stats", b->debugfs, name) < 0 || wb_kvfile_init(&st->wb_stats, p))
		goto nomem;
	free(p);
	/* sysfs attributes and single_open debugfs files: one pread each; out of descriptors: fd_report() */
	for (int k = 0; k < WB_K_COUNT; k++)
		st->knob[k].one_shot = st->knob[k].many = true;
	st->stats.one_shot = st->wb_stats.one_shot = true;
	st->stats.many = st->wb_stats.many = true;
	return 0;
nomem:
	free(p);
	state_finish(b, st);
	return -ENOMEM;
}

/*
 * Add the state of a BDI not followed yet. NULL on out of memory, or when
 * WB_MAX_ITEMS are followed already (*full set): a recording's frame holds
 * no more, and a sample with more was written and then refused as damage.
 */
static struct wb_bdi_files *state_add(struct wb_bdis *b, const char *name, bool *full)
{
	struct wb_bdi_files *ns;

	if (b->nst >= WB_MAX_ITEMS) {
		*full = true;
		return NULL;
	}
	if (b->nst == b->st_cap) { /* doubling: one more each time copied 4096 states 4096 times (~6 MB) */
		size_t cap = b->st_cap ? b->st_cap * 2 : 16;
		if (!(ns = realloc(b->st, cap * sizeof(*ns))))
			return NULL;
		b->st = ns;
		b->st_cap = cap;
	}
	ns = b->st;
	if (state_init(b, &ns[b->nst], name))
		return NULL;
	return &ns[b->nst++];
}

/* Drop the states of BDIs that vanished (closing their files). */
static void state_prune(struct wb_bdis *b)
{
	size_t w = 0;

	for (size_t i = 0; i < b->nst; i++) {
		if (!b->st[i].seen) {
			state_finish(b, &b->st[i]);
			continue;
		}
		b->st[w++] = b->st[i];
	}
	b->nst = w;
}

/* Block device name of a "MAJ:MIN" BDI from the /sys/dev/block link. */
static void resolve_dev(struct wb_bdis *b, struct wb_bdi_files *st)
{
	char rel[96], link[512], *p;
	ssize_t n;

	st->dev_known = true;
	st->dev[0] = '\0';
	snprintf(rel, sizeof(rel), "/sys/dev/block/%s", st->name);
	p = wb_path_join(b->root, rel);
	if (!p)
		return;
	n = readlink(p, link, sizeof(link) - 1);
	free(p);
	if (n > 0) {
		const char *base;

		link[n] = '\0';
		base = strrchr(link, '/');
		snprintf(st->dev, sizeof(st->dev), "%.31s", base ? base + 1 : link);
	}
}

/*
 * Of a btrfs's member devices, the one a btrfs mount names as its source
 * (mountinfo shows one member, whichever was named at mount time), so that
 * the BDI's mounts attach by it; else the first listed. A file system of
 * several devices lists them in no particular order.
 */
static void btrfs_pick_member(struct wb_bdis *b, const char *devdir, char *dev, size_t len)
{
	char *mi = wb_path_join(b->root, "/proc/self/mountinfo"), line[4096];
	DIR *devs = opendir(devdir);
	/* as kvfile reads it: never blocking on a FIFO, never past WB_KVFILE_MAX (a --root tree's /dev/zero) */
	int fd = mi ? open(mi, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	struct stat fst;
	FILE *f = fd >= 0 && fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode) ? fdopen(fd, "r") : NULL;
	struct dirent *de;
	size_t total = 0;
	bool whole = true; /* the last piece read ended its line */

	if (fd >= 0 && !f)
		close(fd);
	dev[0] = '\0';
	while (devs && (de = readdir(devs)))
		if (de->d_name[0] != '.' && !dev[0])
			snprintf(dev, len, "%.31s", de->d_name);
	/* "... - btrfs /dev/NAME super": a member named as a mount's source wins */
	while (devs && f && total < WB_KVFILE_MAX && fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		bool start = whole; /* the rest of a longer line is not one of its own */
		char *sep, *name, *end;
		struct stat st;
		int dfd = dirfd(devs);

		total += n;
		whole = n > 0 && line[n - 1] == '\n';
		if (!start || !whole || !(sep = strstr(line, " - btrfs /dev/")))
			continue;
		name = sep + 14;
		end = strchr(name, ' ');
		if (!end || end == name || (size_t)(end - name) >= len)
			continue;
		*end = '\0';
		wb_mountinfo_unescape(name);
		if (!strchr(name, '/') && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			snprintf(dev, len, "%s", name);
			break;
		}
	}
	if (f)
		fclose(f);
	if (devs)
		closedir(devs);
	free(mi);
}

/* btrfs registers one BDI per mount: find its device via /sys/fs/btrfs. */
static void resolve_btrfs(struct wb_bdis *b, struct wb_bdi_files *st)
{
	char *dir = wb_path_join(b->root, "/sys/fs/btrfs");
	DIR *dh = dir ? opendir(dir) : NULL;
	struct dirent *e;

	st->dev_known = true;
	while (dh && (e = readdir(dh))) {
		char path[600], link[256];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/bdi", dir, e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(strrchr(link, '/') ? strrchr(link, '/') + 1 : link, st->name) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/devices", dir, e->d_name);
		btrfs_pick_member(b, path, st->dev, sizeof(st->dev));
		break;
	}
	if (dh)
		closedir(dh);
	free(dir);
}

/*
 * Can the mounts kept for each BDI be used again? Only for the live
 * mountinfo, whose poll() reports any mount or unmount in our namespace
 * since the last poll as POLLPRI (fs/proc_namespace.c), and only when
 * every BDI has them (a new BDI has none).
 */
static bool mounts_unchanged(struct wb_bdis *b)
{
	struct pollfd p = { .fd = b->mountinfo.fd, .events = POLLPRI };
	enum wb_polled polled = b->mount_poll;

	b->mount_poll = WB_POLL_NONE;
	if (!b->mounts_live || b->mountinfo.fd < 0)
		return false;
	for (size_t i = 0; i < b->nst; i++)
		if (!b->st[i].mounts_known)
			return false;
	if (polled != WB_POLL_NONE) /* the sample's poll() took the change: its answer */
		return polled == WB_POLL_QUIET;
	return poll(&p, 1, 0) == 0; /* POLLIN is not asked: a change (POLLPRI) or an error returns 1 */
}

/* Copy a BDI's mounts between the sample and its state (to_state: keep them). */
static void mounts_copy(struct wb_bdi_files *st, struct wb_bdi *x, bool to_state)
{
	if (to_state) {
		memcpy(st->mounts, x->mounts, sizeof(st->mounts));
		memcpy(st->fstype, x->fstype, sizeof(st->fstype));
		st->nmounts = x->nmounts;
		st->mounts_known = true;
	} else {
		memcpy(x->mounts, st->mounts, sizeof(x->mounts));
		memcpy(x->fstype, st->fstype, sizeof(x->fstype));
		x->nmounts = st->nmounts;
	}
}

/* Attach mount points and fs type from mountinfo to each BDI (kept from the last sample when no mount changed). */
static void attach_mounts(struct wb_bdis *b, struct wb_sample *s, struct wb_diag *d)
{
	bool same = mounts_unchanged(b);

	if (!same && wb_kvfile_read(&b->mountinfo, d) != 0)
		return;
	if (!same)
		wb_mountinfo_attach(b->mountinfo.buf, s);
	for (size_t i = 0; i < s->nbdis; i++)
		for (size_t k = 0; k < b->nst; k++)
			if (strcmp(b->st[k].name, s->bdis[i].name) == 0)
				mounts_copy(&b->st[k], &s->bdis[i], !same);
}

void wb_mountinfo_attach(char *p, struct wb_sample *s)
{
	while (*p) {
		char *eol = strchr(p, '\n'), *f[10], *sep, *save = NULL, *tok;
		int nf = 0;

		if (eol)
			*eol = '\0';
		/* id parent maj:min root mountpoint opts [optional...] - fstype source super */
		sep = strstr(p, " - ");
		if (sep) {
			*sep = '\0';
			for (tok = strtok_r(p, " ", &save); tok && nf < 5; tok = strtok_r(NULL, " ", &save))
				f[nf++] = tok;
			save = NULL;
			for (tok = strtok_r(sep + 3, " ", &save); tok && nf < 7; tok = strtok_r(NULL, " ", &save))
				f[nf++] = tok;
		}
		if (nf == 7) {
			bool unescaped = false; /* f[4], for the first BDI it is attached to */
			const char *src = f[6];
			const char *srcdev = strncmp(src, "/dev/", 5) == 0 ? src + 5 : "";

			for (size_t i = 0; i < s->nbdis; i++) {
				struct wb_bdi *x = &s->bdis[i];
				bool match = strcmp(x->name, f[2]) == 0 ||
					     (strncmp(x->name, "btrfs-", 6) == 0 && x->dev[0] &&
					      strcmp(f[5], "btrfs") == 0 && strcmp(srcdev, x->dev) == 0);
				if (!match || x->nmounts >= WB_MAX_MOUNTS)
					continue;
				/* decoded whole, then fitted: a long one was cut at 127 bytes, its end (the
				 * part that tells mounts apart) lost and maybe a character or an escape cut */
				if (!unescaped) {
					wb_mountinfo_unescape(f[4]);
					unescaped = true;
				}
				wb_path_fit(x->mounts[x->nmounts], WB_PATH_LEN, f[4]);
				x->nmounts++;
				if (!x->fstype[0])
					snprintf(x->fstype, sizeof(x->fstype), "%s", f[5]);
			}
		}
		if (!eol)
			break;
		p = eol + 1;
	}
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

void wb_bdi_parse_wb_stats(char *p, uint32_t page_size, uint64_t *stv, uint64_t *st_valid, struct wb_bdi_wbsum *sum,
			   const char *what, struct wb_diag *d)
{
	uint64_t nwbs = 0, all = ~UINT64_C(0);

	memset(sum, 0, sizeof(*sum));
	while (*p) {
		char *end = strstr(p, "\n\n");
		uint64_t v[WS_COUNT] = { 0 }, valid = 0;

		if (end)
			*end = '\0';
		wb_kv_parse(p, wb_stats_keys, NELEM(wb_stats_keys), page_size, v, &valid, what, d);
		if (WB_HAS(valid, WS_CGINO)) {
			nwbs++;
			all &= valid;
			for (size_t m = 0; m < NELEM(ws_sums); m++) /* saturated: drop_impossible() takes it out */
				sum->v[ws_sums[m][1]] = wb_sat_add(sum->v[ws_sums[m][1]], v[ws_sums[m][0]]);
			if (v[WS_STATE] & WS_HAS_DIRTY_IO)
				sum->v[WB_B_BDI_BW] = wb_sat_add(sum->v[WB_B_BDI_BW], v[WS_BW]);
			if (v[WS_CGINO] == 1) {
				static const int map[][2] = { { WS_BW, WB_B_WB_BW },
							      { WS_THRESH, WB_B_WB_THRESH } };
				for (size_t m = 0; m < NELEM(map); m++)
					if (WB_HAS(valid, map[m][0])) {
						stv[map[m][1]] = v[map[m][0]];
						*st_valid |= WB_BIT(map[m][1]);
					}
				sum->root = true;
				sum->v[WB_B_THRESH] = v[WS_THRESH];
				sum->v[WB_B_STATE] = v[WS_STATE];
				sum->root_valid = valid;
			}
		}
		if (!end)
			break;
		p = end + 2;
	}
	if (nwbs) {
		stv[WB_B_NR_WBS] = nwbs;
		*st_valid |= WB_BIT(WB_B_NR_WBS);
	}
	sum->nwbs = nwbs;
	for (size_t m = 0; nwbs && m < NELEM(ws_sums); m++)
		if (WB_HAS(all, ws_sums[m][0]))
			sum->valid |= WB_BIT(ws_sums[m][1]);
	if (nwbs && WB_HAS(all, WS_STATE) && WB_HAS(all, WS_BW))
		sum->valid |= WB_BIT(WB_B_BDI_BW);
	if (sum->root && WB_HAS(sum->root_valid, WS_STATE))
		sum->valid |= WB_BIT(WB_B_STATE);
	/* BdiDirtyThresh sums the wbs' global-domain thresholds; a cgroup wb's WbDirtyThresh may be its memcg's, lower */
	if (nwbs == 1 && sum->root && WB_HAS(sum->root_valid, WS_THRESH))
		sum->valid |= WB_BIT(WB_B_THRESH);
}

bool wb_bdi_stats_from_wb(const struct wb_bdi_wbsum *sum, const struct wb_sample *s, uint64_t *stv,
			  uint64_t *st_valid)
{
	static const int g[][2] = { { WB_G_DIRTY_THRESH, WB_B_DIRTY_THRESH }, { WB_G_BG_THRESH, WB_B_BG_THRESH } };
	const uint64_t need = WB_BIT(WB_B_WRITEBACK) | WB_BIT(WB_B_RECLAIMABLE) | WB_BIT(WB_B_THRESH) |
			      WB_BIT(WB_B_DIRTIED) | WB_BIT(WB_B_WRITTEN) | WB_BIT(WB_B_BDI_BW) |
			      WB_BIT(WB_B_B_DIRTY) | WB_BIT(WB_B_B_IO) | WB_BIT(WB_B_B_MORE_IO) |
			      WB_BIT(WB_B_B_DIRTY_TIME) | WB_BIT(WB_B_STATE);

	if ((sum->valid & need) != need)
		return false;
	for (size_t i = 0; i < NELEM(g); i++)
		if (!WB_HAS(s->g.valid, g[i][0]))
			return false;
	for (int k = 0; k < WB_B_COUNT; k++)
		if (need & WB_BIT(k))
			stv[k] = sum->v[k];
	/* DirtyThresh and BackgroundThresh are /proc/vmstat's, from the same global_dirty_limits() */
	for (size_t i = 0; i < NELEM(g); i++)
		stv[g[i][1]] = s->g.v[g[i][0]];
	*st_valid |= need | WB_BIT(WB_B_DIRTY_THRESH) | WB_BIT(WB_B_BG_THRESH);
	return true;
}

void wb_bdi_parse_stats(const char *buf, uint32_t page_size, uint64_t *stv, uint64_t *st_valid, const char *what,
			struct wb_diag *d)
{
	wb_kv_parse(buf, stats_keys, NELEM(stats_keys), page_size, stv, st_valid, what, d);
}

/*
 * Idle BDIs (live): a BDI whose wb_stats showed nothing dirty and nothing
 * under writeback for IDLE_AFTER reads in a row is read every IDLE_EVERY
 * samples only (staggered by name), as sleeping processes are (procs.c).
 * Its figures cannot move unseen: pages must be dirtied (/proc/vmstat
 * nr_dirtied, counted in folio_account_dirtied() with the wb's
 * WB_DIRTIED) before any can be reclaimable, under writeback or written,
 * and the bandwidth estimate moves only while pages are dirtied. Pages
 * dirtied that no BDI read since the last sweep explains (its WbDirtied
 * grew by them) - past IDLE_UNEXPLAINED - have every BDI read in the same
 * sample; fewer (a small write to an idle device) are seen at its next
 * read, at most IDLE_EVERY - 1 samples late, the counters whole.
 * Its threshold does move: with no writeout share (the fraction decayed
 * to nothing) the kernel gives an idle wb the floor (thresh - dirty) / 8
 * (mm/page-writeback.c __wb_calc_thresh(): thresh the global dirty
 * threshold, dirty nr_dirty + nr_writeback, capped by max_ratio), which is
 * worked out from each sample's /proc/vmstat instead. A BDI is taken as
 * idle only when its threshold read was that floor (to 1/128) and it has
 * neither min_ratio nor strict_limit (other formulas), and it is read
 * again if the floor fell by more than 1/128 since (then a share left
 * over could be above it).
 */
#define IDLE_AFTER 4
#define IDLE_EVERY 4
#define IDLE_UNEXPLAINED 1024 /* pages (4 MiB), as the processes' check */

/* The kernel's threshold for a wb without writeout share (see above), at the global figures g; false if g lacks one. */
static bool floor_of(const struct wb_global *g, const struct wb_bdi *x, uint64_t *floor)
{
	static const int need[] = { WB_G_DIRTY_THRESH, WB_G_BG_THRESH, WB_G_DIRTY, WB_G_WRITEBACK };
	uint64_t t, dirty, cap;

	for (size_t i = 0; i < NELEM(need); i++)
		if (!WB_HAS(g->valid, need[i]))
			return false;
	if (!WB_HAS(x->knob_valid, WB_K_MAX_RATIO_FINE))
		return false;
	t = g->v[WB_G_DIRTY_THRESH];
	dirty = g->v[WB_G_DIRTY] + g->v[WB_G_WRITEBACK];
	*floor = t > dirty ? (t - dirty) / 8 : 0;
	cap = t * x->knob[WB_K_MAX_RATIO_FINE] / (100 * 10000);
	if (*floor > cap)
		*floor = cap;
	return true;
}

/* The floor as of the sample s */
static bool idle_floor(const struct wb_sample *s, const struct wb_bdi *x, uint64_t *floor)
{
	return floor_of(&s->g, x, floor);
}

/* a and b within 1/128 of the larger (or 8 pages) */
static bool near(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a, m = a > b ? a : b;

	return d <= 8 || d <= m / 128;
}

/* Did the read just made find the BDI idle (see above)? Its floor is then kept in st. */
static bool idle_at(struct wb_bdi_files *st, const struct wb_sample *s, const struct wb_bdi *x)
{
	static const int zero[] = { WB_B_RECLAIMABLE, WB_B_WRITEBACK, WB_B_B_DIRTY, WB_B_B_IO, WB_B_B_MORE_IO };
	uint64_t floor;

	if (!st->from_wb || st->st[WB_B_NR_WBS] != 1 || !WB_HAS(st->st_valid, WB_B_WB_THRESH))
		return false;
	for (size_t i = 0; i < NELEM(zero); i++)
		if (!WB_HAS(st->st_valid, zero[i]) || st->st[zero[i]])
			return false;
	if (!WB_HAS(x->knob_valid, WB_K_MIN_RATIO_FINE) || x->knob[WB_K_MIN_RATIO_FINE] ||
	    !WB_HAS(x->knob_valid, WB_K_STRICT_LIMIT) || x->knob[WB_K_STRICT_LIMIT])
		return false;
	if (!idle_floor(s, x, &floor) || !near(floor, st->st[WB_B_WB_THRESH]))
		return false;
	st->floor_then = floor;
	return true;
}

/* Is this idle BDI's read due in this sample (its staggered turn, or its floor fell)? If not, its floor is kept. */
static bool idle_due(const struct wb_bdis *b, struct wb_bdi_files *st, const struct wb_sample *s,
		     const struct wb_bdi *x)
{
	if (st->idle_reads < IDLE_AFTER || st->skip > 0)
		return true;
	if (!idle_floor(s, x, &st->floor_now))
		return true;
	if (st->floor_now < st->floor_then && !near(st->floor_now, st->floor_then))
		return true;
	return (b->idle_tick + st->turn) % IDLE_EVERY == 0;
}

/* An idle BDI not read: its last figures, its threshold (both wb's and BDI's) the floor now, the global ones now. */
/*
 * x's threshold is the floor as of s: with s's global thresholds beside it,
 * which the floor is of (the model inverts the threshold against them: with
 * a skipped read's older ones, the floor was taken for a share of ~1/8).
 */
static void set_floor(struct wb_bdi *x, const struct wb_sample *s, uint64_t floor)
{
	x->st[WB_B_WB_THRESH] = x->st[WB_B_THRESH] = floor;
	x->st[WB_B_DIRTY_THRESH] = s->g.v[WB_G_DIRTY_THRESH];
	x->st[WB_B_BG_THRESH] = s->g.v[WB_G_BG_THRESH];
}

static void idle_keep(const struct wb_bdi_files *st, const struct wb_sample *s, struct wb_bdi *x)
{
	memcpy(x->st, st->st, sizeof(x->st));
	x->st_valid = st->st_valid;
	x->stats_cost_us = st->cost_us;
	set_floor(x, s, st->floor_now);
}

/* After a read: the pages it saw dirtied since its last, and whether it is idle now. */
static void idle_account(struct wb_bdis *b, struct wb_bdi_files *st, const struct wb_sample *s,
			 const struct wb_bdi *x)
{
	if (WB_HAS(st->st_valid, WB_B_DIRTIED)) {
		if (st->have_dirtied && st->st[WB_B_DIRTIED] >= st->dirtied)
			b->explained += st->st[WB_B_DIRTIED] - st->dirtied;
		st->dirtied = st->st[WB_B_DIRTIED];
		st->have_dirtied = true;
	} else {
		st->have_dirtied = false;
	}
	st->idle_prev = st->idle_reads;
	st->idle_reads = idle_at(st, s, x) ? st->idle_reads + 1 : 0;
}

/*
 * debugfs stats, with back-off: reading them walks the BDI's dirty inode
 * lists under its list lock, so an expensive read is repeated less often.
 * Live, wb_stats alone where it gives every stats figure (one wb, the
 * root's: wb_bdi_stats_from_wb()): each file walks those lists, so one
 * read instead of two. A fixture tree's files need not agree: both read.
 */
static int read_debugfs(struct wb_bdis *b, struct wb_bdi_files *st, const struct wb_sample *s, struct wb_diag *d)
{
	struct wb_bdi_wbsum sum = { 0 };
	bool have_wb = false;
	double t0;
	int rc;

	if (st->skip > 0) {
		st->skip--;
		return 0;
	}
	t0 = now_us();
	st->st_valid = 0;
	if (b->mounts_live && wb_kvfile_read_starved(&st->wb_stats, &st->starved) == 0) {
		wb_bdi_parse_wb_stats(st->wb_stats.buf, s->page_size, st->st, &st->st_valid, &sum,
				      st->wb_stats.path, d);
		have_wb = true;
	}
	st->from_wb = have_wb && wb_bdi_stats_from_wb(&sum, s, st->st, &st->st_valid);
	if (!st->from_wb) {
		if ((rc = wb_kvfile_read_starved(&st->stats, &st->starved)) != 0)
			return rc;
		wb_bdi_parse_stats(st->stats.buf, s->page_size, st->st, &st->st_valid, st->stats.path, d);
		if (!have_wb && wb_kvfile_read_starved(&st->wb_stats, &st->starved) == 0)
			wb_bdi_parse_wb_stats(st->wb_stats.buf, s->page_size, st->st, &st->st_valid, &sum,
					      st->wb_stats.path, d);
	}
	st->cost_us = (uint32_t)(now_us() - t0);
	if (st->cost_us > b->slow_us) {
		unsigned k = st->cost_us / b->slow_us;
		st->skip = k > 30 ? 30 : k;
	}
	return 0;
}

struct bdi_key {
	const char *name;
	size_t i;
};

static int bdi_cmp(const void *a, const void *b)
{
	return wb_bdi_name_cmp(((const struct bdi_key *)a)->name, ((const struct bdi_key *)b)->name);
}

/* The states from index from on, as (name, index) in name order; NULL out of memory. Caller frees. */
static struct bdi_key *states_sorted(const struct wb_bdis *b, size_t from)
{
	struct bdi_key *k = malloc((b->nst - from + 1) * sizeof(*k));

	if (!k)
		return NULL;
	for (size_t i = from; i < b->nst; i++)
		k[i - from] = (struct bdi_key){ b->st[i].name, i };
	qsort(k, b->nst - from, sizeof(*k), bdi_cmp);
	return k;
}

/*
 * Each state's place in name order (the sample's order), or NULL out of
 * memory. Sorting the names, not the filled BDIs: qsort moved ~900-byte
 * structures around every sample. Names are unique: one order.
 */
static size_t *bdi_ranks(const struct wb_bdis *b)
{
	struct bdi_key *k = states_sorted(b, 0);
	size_t *rank = malloc(b->nst * sizeof(*rank));

	if (!k || !rank) {
		free(k);
		free(rank);
		return NULL;
	}
	for (size_t j = 0; j < b->nst; j++)
		rank[k[j].i] = j;
	free(k);
	return rank;
}

/*
 * Knobs the kernel shows as another knob's value in other units
 * (mm/backing-dev.c, mm/page-writeback.c, since the _fine knobs came in 6.2):
 * min_ratio is min_ratio_fine / BDI_RATIO_SCALE (10000), max_ratio likewise,
 * and min_bytes is 0 when min_ratio_fine is (it is that ratio of the dirty
 * threshold). Where the source knob was read, the file is not: exact, and
 * three files fewer a BDI on most devices. Read in this order.
 */
static const struct derived_knob {
	enum wb_knob k, from;
	uint64_t div;   /* k = from / div */
	bool zero_only; /* only when from is 0 (then k is 0) */
} derived_knobs[] = {
	{ WB_K_MIN_RATIO, WB_K_MIN_RATIO_FINE, 10000, false },
	{ WB_K_MAX_RATIO, WB_K_MAX_RATIO_FINE, 10000, false },
	{ WB_K_MIN_BYTES, WB_K_MIN_RATIO_FINE, 1, true },
};

/*
 * min_bytes and max_bytes are worked out by the kernel at each read from
 * the _fine ratio and the dirty threshold (bdi_get_bytes(): dirty_thresh *
 * PAGE_SIZE * ratio / BDI_RATIO_SCALE / 100, in unsigned long), the very
 * threshold /proc/vmstat shows as nr_dirty_threshold (both from
 * global_dirty_limits()). Live, they are worked out the same way from the
 * sample's: the figures as at the sample's vmstat read (the file, read
 * later, follows the threshold as it moves with free memory). Not from a
 * fixture tree, whose files need not agree, nor by a 32-bit wbtop (on a
 * 32-bit kernel the product wraps at 32 bits).
 */
static const struct thresh_knob {
	enum wb_knob k, ratio;
} thresh_knobs[] = {
	{ WB_K_MIN_BYTES, WB_K_MIN_RATIO_FINE },
	{ WB_K_MAX_BYTES, WB_K_MAX_RATIO_FINE },
};

/*
 * Kept knobs are read again after this many samples anyway: a write made
 * through another mount of sysfs (a container's, with its own network
 * namespace, has inodes of its own) reaches no watch of ours.
 */
#define KNOB_REFRESH 16

static const enum wb_knob knob_order[WB_K_COUNT] = {
	WB_K_MIN_RATIO_FINE, WB_K_MAX_RATIO_FINE, WB_K_MAX_BYTES, WB_K_STRICT_LIMIT,
	WB_K_MIN_RATIO, WB_K_MAX_RATIO, WB_K_MIN_BYTES,
};

/* Knob k's value from a knob already read (derived_knobs, thresh_knobs); false if it must be read. */
static bool derive_knob(const struct wb_bdis *b, const struct wb_sample *s, const struct wb_bdi *x,
			enum wb_knob k, uint64_t *v)
{
	bool thresh = sizeof(unsigned long) == 8 && b->knob_watch >= 0 && WB_HAS(s->g.valid, WB_G_DIRTY_THRESH);

	for (size_t i = 0; thresh && i < NELEM(thresh_knobs); i++) {
		const struct thresh_knob *r = &thresh_knobs[i];
		if (r->k != k || !WB_HAS(x->knob_valid, r->ratio))
			continue;
		*v = s->g.v[WB_G_DIRTY_THRESH] * s->page_size * x->knob[r->ratio] / 10000 / 100;
		return true;
	}
	for (size_t i = 0; i < NELEM(derived_knobs); i++) {
		const struct derived_knob *r = &derived_knobs[i];
		if (r->k != k || !WB_HAS(x->knob_valid, r->from) || (r->zero_only && x->knob[r->from]))
			continue;
		*v = x->knob[r->from] / r->div;
		return true;
	}
	return false;
}

/* min_bytes and max_bytes: the kernel works them out from the dirty threshold at each read, so they move without a write. */
static bool knob_follows_thresh(enum wb_knob k)
{
	return k == WB_K_MIN_BYTES || k == WB_K_MAX_BYTES;
}

/*
 * Watch a BDI's knob files for writes: the VFS reports every write(2) to a
 * file, sysfs attributes included, as IN_MODIFY (fsnotify_modify()). A
 * file this kernel lacks needs no watch. False if one could not be set.
 */
static bool knobs_watch(struct wb_bdis *b, struct wb_bdi_files *st)
{
	bool ok = true;

	for (int k = 0; k < WB_K_COUNT; k++) {
		if (st->wd[k] < 0)
			st->wd[k] = inotify_add_watch(b->knob_watch, st->knob[k].path, IN_MODIFY);
		ok &= st->wd[k] >= 0 || errno == ENOENT;
	}
	return ok;
}

/* A watch's event: that BDI's kept knobs are stale (every BDI's if events were lost). */
static void knobs_forget(struct wb_bdis *b, int wd, uint32_t mask)
{
	for (size_t i = 0; i < b->nst; i++)
		for (int k = 0; k < WB_K_COUNT; k++) {
			if (b->st[i].wd[k] != wd && !(mask & IN_Q_OVERFLOW))
				continue;
			b->st[i].knobs_known = false;
			if (b->st[i].wd[k] == wd && (mask & IN_IGNORED)) /* the file went (the BDI did) */
				b->st[i].wd[k] = -1;
		}
}

/* Take the writes to knob files since the last sample. */
static void knobs_drain(struct wb_bdis *b)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(b->knob_watch, buf, sizeof(buf))) > 0)
		for (char *q = buf; q + sizeof(struct inotify_event) <= buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)(void *)q;
			knobs_forget(b, ev->wd, ev->mask);
			q += sizeof(*ev) + ev->len;
		}
	if (n < 0 && errno != EAGAIN)
		knobs_forget(b, -1, IN_Q_OVERFLOW); /* cannot tell: read them all */
}

/* Was a file of this BDI opened and closed again at its last read (no place to keep it)? */
static bool files_unkept(const struct wb_bdi_files *st)
{
	bool any = st->stats.unkept || st->wb_stats.unkept;

	for (int k = 0; k < WB_K_COUNT; k++)
		any |= st->knob[k].unkept;
	return any;
}

/*
 * A BDI's knobs: each read from its file, or derived from one read. Live,
 * a knob no one wrote since it was read is kept, not read again (its file
 * is watched), but for the two that follow the threshold.
 */
static void read_knobs(struct wb_bdis *b, struct wb_bdi_files *st, const struct wb_sample *s, struct wb_bdi *x,
		       struct wb_diag *d)
{
	bool kept = b->knob_watch >= 0 && st->knobs_known && ++st->kept_for < KNOB_REFRESH, watched = false;

	if (kept) {
		memcpy(x->knob, st->kval, sizeof(x->knob));
		x->knob_valid = st->kval_valid;
	} else if (b->knob_watch >= 0) {
		watched = knobs_watch(b, st); /* before reading: a write after this is seen next time */
	}
	for (int i = 0; i < WB_K_COUNT; i++) {
		enum wb_knob k = knob_order[i];
		uint64_t v;
		if (kept && !knob_follows_thresh(k))
			continue;
		x->knob_valid &= ~WB_BIT(k);
		int rc = derive_knob(b, s, x, k, &v) ? 0 : wb_kvfile_u64(&st->knob[k], d, &v);
		if (rc == 0 && v > wb_knob_max[k]) { /* no kernel holds it: the model took it (MAX% 1844674407370955) */
			wb_diag_add(d, "%s: %llu is out of the kernel's range 0-%llu (ignored)", st->knob[k].path,
				    (unsigned long long)v, (unsigned long long)wb_knob_max[k]);
			rc = -ERANGE;
		}
		if (rc == 0) {
			x->knob[k] = v;
			x->knob_valid |= WB_BIT(k);
		} else {
			st->starved |= wb_kvfile_starved(&st->knob[k]);
		}
		watched &= x->knob_valid >> k & 1 || st->wd[k] < 0; /* keep only what was read */
	}
	/* the files gone or hidden (an empty directory mounted over it): said, not just "-";
	 * for want of descriptors, fd_report() says it */
	if (!x->knob_valid && !st->starved)
		wb_diag_add(d, "BDI %s: none of its knobs in /sys/class/bdi/%s could be read: its limits are "
			    "computed with the defaults (min_ratio 0, max_ratio 100, no strict_limit)", st->name, st->name);
	if (watched) {
		memcpy(st->kval, x->knob, sizeof(st->kval));
		st->kval_valid = x->knob_valid;
		st->knobs_known = true;
		st->kept_for = 0;
	}
}

/* Fill one sample BDI from its state. */
static void fill_bdi(struct wb_bdis *b, struct wb_bdi_files *st, const struct wb_sample *s, struct wb_bdi *x,
		     struct wb_diag *d)
{
	memset(x, 0, sizeof(*x));
	st->starved = false;
	wb_copy_str(x->name, sizeof(x->name), st->name);
	if (!st->dev_known) {
		if (strncmp(st->name, "btrfs-", 6) == 0)
			resolve_btrfs(b, st);
		else
			resolve_dev(b, st);
	}
	wb_copy_str(x->dev, sizeof(x->dev), st->dev);
	read_knobs(b, st, s, x, d);
}

/*
 * Is the threshold read (or kept by the back-off) the kernel's floor for
 * a wb without writeout share, as this sample's vmstat gives it? Then the
 * sample shows that floor: the kernel's figure is the floor at the moment
 * of the read, with the dirty pages then, which a writer moves between
 * the vmstat read and the BDI's (by tens of pages in a sample of 50 BDIs;
 * kept by the back-off, by all it moved since). The model's inversion
 * allows the floor 2 pages, so it took the drift for a share of ~1/8: with
 * 50 BDIs and two writers on two of them, the shares summed to 1.3-5.0 on
 * the samples that read idle BDIs (0.88-0.99 on the others). At the
 * floor: within near() of it (a share there is within 1/128 of the floor,
 * so the threshold is the floor's either way), or found idle at its last
 * read (idle_at(): then its dirty pages cannot have grown unseen), one
 * wb, neither min_ratio nor strict_limit (other formulas).
 */
static bool at_floor(const struct wb_bdi_files *st, const struct wb_sample *s, const struct wb_bdi *x,
		     uint64_t *floor)
{
	if (!WB_HAS(x->st_valid, WB_B_THRESH) || (WB_HAS(x->st_valid, WB_B_NR_WBS) && x->st[WB_B_NR_WBS] != 1) ||
	    !WB_HAS(x->knob_valid, WB_K_MIN_RATIO_FINE) || x->knob[WB_K_MIN_RATIO_FINE] ||
	    !WB_HAS(x->knob_valid, WB_K_STRICT_LIMIT) || x->knob[WB_K_STRICT_LIMIT] || !idle_floor(s, x, floor))
		return false;
	return st->idle_reads > 0 || near(*floor, x->st[WB_B_THRESH]);
}

/* One sample BDI's debugfs figures: read (or kept by the back-off), or kept as an idle BDI's (idle: not read). */
static void fill_stats(struct wb_bdis *b, struct wb_bdi_files *st, const struct wb_sample *s, struct wb_bdi *x,
		       bool idle, struct wb_diag *d)
{
	bool skipped = st->skip > 0;
	uint64_t floor;
	int rc;

	if (idle) {
		b->debugfs_ok = true;
		idle_keep(st, s, x);
		return;
	}
	rc = read_debugfs(b, st, s, d);
	/* unreadable: said once a cause (out of descriptors: fd_report() says it) */
	st->stats_new = rc && !st->starved && st->stats_fail != -rc;
	st->stats_fail = st->starved ? st->stats_fail : -rc;
	if (rc == 0) {
		b->debugfs_ok = true;
		memcpy(x->st, st->st, sizeof(x->st));
		x->st_valid = st->st_valid;
		x->stats_cost_us = st->cost_us;
		x->stats_skipped = skipped;
		if (!skipped && b->mounts_live)
			idle_account(b, st, s, x);
		st->fresh = !skipped;
		if (b->mounts_live && at_floor(st, s, x, &floor))
			set_floor(x, s, floor);
	} else {
		st->idle_reads = 0;
		st->have_dirtied = false;
	}
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* One wb, neither min_ratio nor strict_limit: its threshold is max(share, floor) (idle_floor()). */
static bool floor_formula(const struct wb_bdi *x)
{
	return WB_HAS(x->st_valid, WB_B_THRESH) && WB_HAS(x->st_valid, WB_B_NR_WBS) && x->st[WB_B_NR_WBS] == 1 &&
	       WB_HAS(x->knob_valid, WB_K_MIN_RATIO_FINE) && !x->knob[WB_K_MIN_RATIO_FINE] &&
	       WB_HAS(x->knob_valid, WB_K_STRICT_LIMIT) && !x->knob[WB_K_STRICT_LIMIT];
}

/*
 * A device floor_at_read() found at the floor was idle at its read, as
 * idle_at() would have found it but for the pages moved meanwhile: counted
 * so. Else the figures kept while its reads back off (a loaded machine:
 * each read over slow_us) kept the threshold of that read, the floor at a
 * dirty level since gone, taken for a share: 12 idle devices at 0.038 each
 * in one sample of a CI run (kernel_share_sum, the shares summing to 1.46).
 * Only with no page dirty or under writeback and its inode lists empty,
 * as idle_at() asks: the idle back-off relies on it.
 */
static void idle_found(struct wb_bdi_files *st, uint64_t floor)
{
	static const int zero[] = { WB_B_B_DIRTY, WB_B_B_IO, WB_B_B_MORE_IO };

	if (st->idle_reads || !st->from_wb || !WB_HAS(st->st_valid, WB_B_RECLAIMABLE) ||
	    !WB_HAS(st->st_valid, WB_B_WRITEBACK) || st->st[WB_B_RECLAIMABLE] || st->st[WB_B_WRITEBACK])
		return;
	for (size_t i = 0; i < NELEM(zero); i++)
		if (!WB_HAS(st->st_valid, zero[i]) || st->st[zero[i]])
			return;
	st->idle_reads = st->idle_prev + 1;
	st->floor_then = floor;
}

/* The global figures once more, after the reads: asked for once a sample, when needed (floor_between()) */
struct floor_after {
	struct wb_global g;
	bool asked, ok;
};

/* x's floor at /proc/vmstat read again after the sweep (once a sample, on the first ask); false if unread */
static bool floor_after(struct wb_bdis *b, const struct wb_sample *s, const struct wb_bdi *x, struct floor_after *a,
			uint64_t *now)
{
	if (!a->asked) {
		a->asked = true;
		a->ok = b->global_again && b->global_again(b->global_ctx, s->page_size, &a->g) == 0;
	}
	return a->ok && floor_of(&a->g, x, now);
}

/*
 * Was K the floor at some moment of this sample's reads: within 1/16 of the
 * sample's floor (*floor, set), or else between it and the floor of
 * /proc/vmstat read again now, widened by 1/16 at each end? The dirty pages
 * can move far in the milliseconds between the sample's /proc/vmstat and
 * the reads: with vm.dirty_bytes 200M and two writers at memory speed, 40
 * idle devices read at floors 1.17-1.27x the sample's (a CI machine set so,
 * kernel_share_sum: the shares summed to 1.25-3.7).
 */
static bool floor_between(struct wb_bdis *b, const struct wb_sample *s, const struct wb_bdi *x, uint64_t K,
			  struct floor_after *a, uint64_t *floor)
{
	uint64_t now, lo, hi;

	if (!idle_floor(s, x, floor))
		return false;
	if (K <= *floor + *floor / 16 && K + *floor / 16 >= *floor)
		return true;
	if (!floor_after(b, s, x, a, &now))
		return false;
	lo = now < *floor ? now : *floor;
	hi = now < *floor ? *floor : now;
	return K + lo / 16 >= lo && K <= hi + hi / 16;
}

/*
 * Above the least threshold it read since it last completed a page (scaled
 * by the global thresholds of those samples), by more than 1/16: a floor.
 * The writeout fraction grows only with the device's own completions
 * (__wb_writeout_add()) and otherwise only shrinks as periods pass, so its
 * share of the threshold was at most that least figure since; a read above
 * it was the floor of its moment. Caught so: idle devices written before
 * (not BdiWritten 0) whose group missed floor_between() (vm.dirty_bytes
 * 200M: groups of 2-3 at 0.04-0.08 each). Then the least is updated.
 */
static bool least_since(struct wb_bdi_files *st, const struct wb_sample *s, const struct wb_bdi *x, uint64_t summin)
{
	uint64_t K = st->st[WB_B_THRESH], T = s->g.v[WB_G_DIRTY_THRESH], W = st->st[WB_B_WRITTEN];
	uint64_t M = x->knob[WB_K_MAX_RATIO_FINE];
	bool above = false;

	if (!WB_HAS(st->st_valid, WB_B_WRITTEN) || !WB_HAS(s->g.valid, WB_G_DIRTY_THRESH) || !T) {
		st->least_ok = false;
		return false;
	}
	/* the same completions, max_ratio and sum of min_ratios: a share can only have shrunk since */
	if (st->least_ok && W == st->least_written && M == st->least_max && summin == st->least_summin &&
	    st->least_t) {
		/* the least scaled to this sample's threshold, in 128-bit: pages times pages */
		unsigned __int128 m = (unsigned __int128)st->least_k * T / st->least_t;
		above = (unsigned __int128)K > m + m / 16 + 8;
		if ((unsigned __int128)K < m) {
			st->least_k = K;
			st->least_t = T;
		}
	} else {
		st->least_k = K;
		st->least_t = T;
		st->least_written = W;
		st->least_max = M;
		st->least_summin = summin;
		st->least_ok = true;
	}
	return above;
}

/*
 * Could K be the floor of a moment of this sample's reads at all: no more
 * than a floor ever is (an eighth of the threshold: dirty 0) and no less
 * than 3/4 of the lower of the sample's floor and that of /proc/vmstat read
 * again (floor_between()'s). Kernels before the floor moved into
 * __wb_calc_thresh() (6.14) show an idle device's threshold near 0, and a
 * fraction read just after an idle spell can be whole (fprop_fraction_percpu()
 * takes den = num): neither is a floor.
 */
static bool floor_plausible(struct wb_bdis *b, const struct wb_sample *s, const struct wb_bdi *x, uint64_t K,
			    struct floor_after *a, uint64_t *floor)
{
	uint64_t T = s->g.v[WB_G_DIRTY_THRESH], now;

	if (!idle_floor(s, x, floor) || K > T / 8 + T / 128 + 8)
		return false;
	if (K >= *floor - *floor / 4)
		return true;
	return floor_after(b, s, x, a, &now) && K >= now - now / 4;
}

/* No page dirty or under writeback, by a read of this sample, under the floor formula */
static bool read_idle(const struct wb_bdi_files *st, const struct wb_bdi *x)
{
	return st->fresh && floor_formula(x) && WB_HAS(x->st_valid, WB_B_RECLAIMABLE) &&
	       WB_HAS(x->st_valid, WB_B_WRITEBACK) && !x->st[WB_B_RECLAIMABLE] && !x->st[WB_B_WRITEBACK];
}

/*
 * The floor as the BDIs read in this sample saw it: the dirty pages can
 * move further between the vmstat read and theirs than at_floor() allows
 * (a sweep of 50 BDIs under two writers copying at memory speed: the
 * floor 1/128 off). Two devices or more with no page dirty or under
 * writeback whose thresholds agree (to 1/128) are at the floor: the
 * writeout shares of idle devices are not equal, the floor is common
 * (one figure for each moment of the sweep the dirty count held still).
 * Every device read in this sample at such a figure, if it is the floor
 * of a moment of the reads (floor_between()), is at the floor: the
 * sample's, as at_floor() gives it. So is a device that never finished a
 * page's writeback (BdiWritten 0): its writeout fraction, counted with
 * that figure in __wb_writeout_add(), is 0, whatever its threshold; and
 * one read above the least it read since its last completion
 * (least_since()); and one alone at a floor of the reads' moments
 * (floor_between()). Not caught: a device not idle in this read (pages
 * dirty or under writeback) at the floor (kernel_share_sum: 2 runs of 6,
 * 1 and 8 samples of 25, sums to 1.10: a device read every sample, not
 * found idle, at 0.104-0.114).
 */
static void floor_at_read(struct wb_bdis *b, const struct wb_sample *s, struct wb_bdi *out, const size_t *rank)
{
	uint64_t *k = malloc(b->nst * sizeof(*k)), floor;
	bool *in = calloc(b->nst, sizeof(*in));
	struct floor_after after = { 0 };
	size_t n = 0;
	uint64_t summin = 0; /* the min ratios' sum: a change moves every share (least_since()) */

	if (!k || !in) {
		free(k);
		free(in);
		return;
	}
	for (size_t i = 0; i < b->nst; i++)
		summin += out[rank[i]].knob[WB_K_MIN_RATIO_FINE];
	for (size_t i = 0; i < b->nst; i++) {
		struct wb_bdi *x = &out[rank[i]];
		if (!read_idle(&b->st[i], x)) {
			b->st[i].least_ok &= !b->st[i].fresh; /* pages: the least starts again at its next idle read */
			continue;
		}
		/* the figure read, for the groups below, before set_floor() replaces it */
		k[n++] = x->st[WB_B_THRESH];
		/*
		 * Alone in its sample at a floor of the reads' moments, an idle
		 * device is at the floor too: a device written before, at its
		 * least since, was taken for a share when the dirty count moved
		 * during the sweep (kernel_share_sum, vm.dirty_bytes 200M: two idle
		 * devices at 0.043 and 0.039 of the threshold, not a group, summed
		 * the shares to 1.08). An idle device's real share that close to
		 * the floor differs from it by no more than the bracket.
		 */
		if ((((WB_HAS(x->st_valid, WB_B_WRITTEN) && x->st[WB_B_WRITTEN] == 0) |
		      least_since(&b->st[i], s, x, summin)) &&
		     floor_plausible(b, s, x, b->st[i].st[WB_B_THRESH], &after, &floor)) ||
		    floor_between(b, s, x, b->st[i].st[WB_B_THRESH], &after, &floor)) {
			in[i] = true;
			set_floor(x, s, floor);
			idle_found(&b->st[i], floor);
		}
	}
	qsort(k, n, sizeof(*k), u64_cmp);
	/*
	 * Every group of two or more within near() of its lowest, not only the
	 * largest: those read before the dirty count moved (or set to the floor
	 * by at_floor()) make one group, those read after it another (a CI run:
	 * 20 idle devices at 1.012x the floor beside a larger group at it, taken
	 * for shares of 0.105 each).
	 */
	for (size_t g = 0, e; g < n; g = e) {
		for (e = g + 1; e < n && near(k[g], k[e]); e++)
			;
		if (e - g < 2)
			continue;
		for (size_t i = 0; i < b->nst; i++) {
			struct wb_bdi *x = &out[rank[i]];
			uint64_t K = x->st[WB_B_THRESH];
			/*
			 * any device read at that figure, pages or not (only the idle
			 * counted as found idle), if that figure is a floor of the
			 * reads' moments: devices made alike (loop devices formatted
			 * alike) hold equal writeout shares and agree too
			 * (kernel_bdi_idle: two at 1285900 kB, 2.1x the floor, were
			 * set to it). An idle one also if the figure could be a floor
			 * at all (floor_plausible()): with vm.dirty_bytes 200M a group
			 * of 4 at 0.046 each missed the bracket, the dirty count having
			 * moved past both reads of it
			 */
			if (!in[i] && b->st[i].fresh && floor_formula(x) &&
			    ((K >= k[g] && K <= k[e - 1]) || near(k[g], K) || near(k[e - 1], K)) &&
			    (floor_between(b, s, x, K, &after, &floor) ||
			     (read_idle(&b->st[i], x) && floor_plausible(b, s, x, K, &after, &floor)))) {
				in[i] = true;
				set_floor(x, s, floor);
				idle_found(&b->st[i], floor);
			}
		}
	}
	free(k);
	free(in);
}

/*
 * /sys/class/bdi is listed again after this many samples without a bdi
 * uevent anyway: uevents of devices of no network namespace reach only
 * sockets of the first one (lib/kobject_uevent.c), so in a container
 * with its own, a BDI's coming and going is seen by the listing alone.
 */
#define BDI_RELIST 16

/*
 * The states' indices in name order, from b->rank (which, when there, is
 * theirs); NULL when there is none or out of memory. Caller frees.
 */
static size_t *states_by_name(const struct wb_bdis *b)
{
	size_t *order = b->rank && b->nst ? malloc(b->nst * sizeof(*order)) : NULL;

	for (size_t i = 0; order && i < b->nst; i++)
		order[b->rank[i]] = i;
	return order;
}

/*
 * The state of a BDI by name among the first n (those of the last listing):
 * by halves through order (states_by_name()), one by one without it. 4096
 * BDIs listed one by one were 8 M name comparisons a listing (every sample
 * of a --root tree, which has no uevents).
 */
static struct wb_bdi_files *state_find(struct wb_bdis *b, const size_t *order, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	if (!order) {
		for (size_t i = 0; i < n; i++)
			if (strcmp(b->st[i].name, name) == 0)
				return &b->st[i];
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = wb_bdi_name_cmp(name, b->st[order[mid]].name);
		if (c == 0)
			return &b->st[order[mid]];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/*
 * A name readdir gave twice (a directory changing under it) has two of the
 * states added from index from on: the later is dropped, as one state was
 * all a search of every state left. Out of memory: both kept.
 */
static void drop_twice_listed(struct wb_bdis *b, size_t from)
{
	struct bdi_key *k = b->nst > from ? states_sorted(b, from) : NULL;

	for (size_t j = 1; k && j < b->nst - from; j++)
		if (strcmp(k[j - 1].name, k[j].name) == 0)
			b->st[k[j].i > k[j - 1].i ? k[j].i : k[j - 1].i].seen = false;
	free(k);
}

/* List /sys/class/bdi into b's states (seen set on those present); false if it cannot be listed. */
static bool bdis_list(struct wb_bdis *b, struct wb_diag *d)
{
	char *dir = wb_path_join(b->root, "/sys/class/bdi");
	DIR *dh = dir ? opendir(dir) : NULL;
	struct dirent *e;
	size_t skipped = 0, long_names = 0, known = b->nst, *order;

	if (!dh && (errno == EMFILE || errno == ENFILE) && b->nst) {
		/* no descriptor to list it with: the devices of the last listing are still read */
		wb_diag_add(d, "%s: %s: the devices listed before are kept", dir, strerror(errno));
		free(dir);
		return true;
	}
	if (!dh) {
		wb_diag_add(d, "%s: %s: per-device figures unknown", dir ? dir : "/sys/class/bdi",
			    strerror(errno));
		free(dir);
		return false;
	}
	for (size_t i = 0; i < b->nst; i++)
		b->st[i].seen = false;
	order = states_by_name(b);
	while ((e = readdir(dh))) {
		struct wb_bdi_files *st;
		bool full = false;

		if (e->d_name[0] == '.')
			continue;
		if (strlen(e->d_name) >= WB_NAME_LEN) { /* no kernel names one so (a tree can): said, not dropped unseen */
			long_names++;
			continue;
		}
		if ((st = state_find(b, order, known, e->d_name)) || (st = state_add(b, e->d_name, &full)))
			st->seen = true;
		skipped += full;
	}
	closedir(dh);
	free(order);
	drop_twice_listed(b, known);
	/* the states moved and grew: their order is sorted again (wb_bdis_read) */
	free(b->rank);
	b->rank = NULL;
	if (skipped) /* those followed already stay: the rest are the ones listed last */
		wb_diag_add(d, "%s: %zu more devices than the %d wbtop follows (what a recording holds): left out",
			    dir, skipped, WB_MAX_ITEMS);
	if (long_names)
		wb_diag_add(d, "%s: %zu device names of %d bytes or more (none a kernel makes): left out", dir,
			    long_names, WB_NAME_LEN);
	free(dir);
	state_prune(b);
	return true;
}

/* The order of the descriptors wb_bdis_pollfds() hands out (those that are open). */
static int *poll_fd(struct wb_bdis *b, int i, short *events)
{
	*events = i == 2 ? POLLPRI : POLLIN; /* mountinfo: a change is POLLPRI; it is always readable */
	return i == 0 ? &b->knob_watch : i == 1 ? &b->uevent : b->mounts_live ? &b->mountinfo.fd : NULL;
}

static enum wb_polled *poll_hint(struct wb_bdis *b, int i)
{
	return i == 0 ? &b->knob_poll : i == 1 ? &b->uevent_poll : &b->mount_poll;
}

size_t wb_bdis_pollfds(const struct wb_bdis *b, struct pollfd *pf, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < 3; i++) {
		short ev;
		int *fd = poll_fd((struct wb_bdis *)b, i, &ev);
		if (fd && *fd >= 0 && n < max)
			pf[n++] = (struct pollfd){ .fd = *fd, .events = ev };
	}
	return n;
}

void wb_bdis_polled(struct wb_bdis *b, const struct pollfd *pf, size_t n)
{
	size_t k = 0;

	for (int i = 0; i < 3; i++) {
		short ev;
		int *fd = poll_fd(b, i, &ev);
		if (fd && *fd >= 0 && k < n && pf[k].fd == *fd)
			*poll_hint(b, i) = wb_polled_of(pf[k++].revents);
	}
}

/*
 * Every BDI (knobs, then debugfs figures), each into its place: the
 * figures of those due read first (busy ones, idle ones in their turn),
 * then the idle rest's - read too when the pages dirtied since the last
 * sweep are not explained by what the reads saw. The number filled.
 */
static size_t fill_all(struct wb_bdis *b, const struct wb_sample *s, struct wb_bdi *out, const size_t *rank,
		       struct wb_diag *d)
{
	bool live = b->mounts_live && WB_HAS(s->g.valid, WB_G_DIRTIED), sweep;
	uint64_t vm;
	size_t nidle = 0;

	if (!out)
		return 0;
	b->idle_tick++;
	for (size_t i = 0; i < b->nst; i++) {
		struct wb_bdi_files *st = &b->st[i];

		st->fresh = st->stats_new = false;
		fill_bdi(b, st, s, &out[rank[i]], d);
		if ((st->due = !live || idle_due(b, st, s, &out[rank[i]])))
			fill_stats(b, st, s, &out[rank[i]], false, d);
	}
	vm = live ? s->g.v[WB_G_DIRTIED] : 0;
	sweep = !b->have_base || vm < b->vm_base || vm - b->vm_base > b->explained + IDLE_UNEXPLAINED;
	for (size_t i = 0; i < b->nst; i++)
		if (!b->st[i].due) {
			fill_stats(b, &b->st[i], s, &out[rank[i]], !sweep, d);
			nidle++;
		}
	if (live)
		floor_at_read(b, s, out, rank);
	if (live && (sweep || nidle == 0)) { /* every BDI read: what they saw dirtied from here on */
		b->vm_base = vm;
		b->explained = 0;
		b->have_base = true;
	}
	return b->nst;
}

/*
 * Past the open-files limit: which devices could not be read at all
 * (named, as many as fit), and how many are read by opening their files
 * each time because the budget of kept descriptors is spent (wb_fd_keep()).
 */
static void fd_report(const struct wb_bdis *b, struct wb_diag *d)
{
	char names[120] = "";
	size_t starved = 0, unkept = 0, len = 0;

	for (size_t i = 0; i < b->nst; i++) {
		if (!b->st[i].starved) {
			unkept += files_unkept(&b->st[i]);
			continue;
		}
		if (starved++ < 8 && len + strlen(b->st[i].name) + 2 < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", len ? " " : "",
						b->st[i].name);
	}
	if (starved)
		wb_diag_add(d, "out of file descriptors (open-files limit %llu): %zu of %zu devices not read, or only in "
			    "part: %s%s; raise the limit (ulimit -n, -Hn)", wb_fd_limit(), starved, b->nst, names,
			    starved > 8 ? " ..." : "");
	if (unkept)
		wb_diag_add(d, "open-files limit %llu: %zu of %zu devices read by opening their files each sample "
			    "(no descriptors left to keep them open)", wb_fd_limit(), unkept, b->nst);
}

/*
 * Devices whose debugfs stats turned unreadable in this sample (their
 * dirty, writeback, thresholds and bandwidth then "-"), said once a cause
 * (stats_fail), at most 6 named. None read and the folder itself not
 * there or not open to us (debugfs not mounted, not root): the folder and
 * why instead, once; when it is back, the devices still unread.
 */
static void stats_report(struct wb_bdis *b, struct wb_diag *d)
{
	char names[200] = "";
	size_t n = 0, len = 0;
	bool back = b->debugfs_ok && b->dir_fail; /* the folder said missing is back: those still unread said now */
	int e;

	for (size_t i = 0; i < b->nst; i++) {
		const struct wb_bdi_files *st = &b->st[i];
		if ((st->stats_new || (back && st->stats_fail)) && n++ < 6 &&
		    len + strlen(st->name) + 40 < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s (%s)", len ? ", " : "", st->name,
						strerror(st->stats_fail));
	}
	if (b->debugfs_ok)
		b->dir_fail = 0;
	if (!n)
		return;
	if (!b->debugfs_ok && access(b->debugfs, R_OK | X_OK) != 0) {
		if ((e = errno) != b->dir_fail)
			wb_diag_add(d, "debugfs stats unread: %s: %s%s", b->debugfs, strerror(e),
				    !b->mounts_live ? "" : e == ENOENT ? " (debugfs not mounted: as root, --mount-debugfs "
				    "mounts it)" : e == EACCES ? " (debugfs is root's)" : "");
		b->dir_fail = e;
		return;
	}
	wb_diag_add(d, "debugfs stats unread for %zu of %zu devices: %s%s; their dirty, writeback, thresholds "
		    "and bandwidth are unknown", n, b->nst, names, n > 6 ? ", ..." : "");
}

void wb_bdis_read(struct wb_bdis *b, struct wb_sample *s, struct wb_diag *d)
{
	struct wb_bdi *out = NULL;
	size_t n = 0, *rank = NULL;
	/* live, the BDIs of the last listing stand until a uevent says one came or went */
	bool came_or_went = b->uevent >= 0 && b->uevent_poll != WB_POLL_QUIET &&
			    uevent_bdi(b->uevent); /* drained in any case */
	bool knobs_quiet = b->knob_poll == WB_POLL_QUIET; /* no write to a knob file since the last drain */
	bool list = b->uevent < 0 || !b->listed || ++b->listed_for >= BDI_RELIST || came_or_went;

	b->uevent_poll = b->knob_poll = WB_POLL_NONE;
	free(s->bdis);
	s->bdis = NULL;
	s->nbdis = 0;
	b->debugfs_ok = false;
	if (list) {
		b->sysfs_ok = b->listed = bdis_list(b, d);
		b->listed_for = 0;
	}
	if (!b->sysfs_ok)
		return;
	if (b->knob_watch >= 0 && !knobs_quiet)
		knobs_drain(b);
	/* the order changes only with the states: sorted again after a listing (which drops it) */
	if (b->nst && !b->rank) {
		free(b->rank);
		b->rank = bdi_ranks(b);
	}
	rank = b->rank;
	if (b->nst && (!(out = malloc(b->nst * sizeof(*out))) || !rank)) {
		wb_diag_add(d, "out of memory: per-device figures unknown");
		free(out);
		out = NULL;
	}
	/* read in the states' order, each filled straight into its place in name order */
	n = fill_all(b, s, out, rank, d);
	fd_report(b, d);
	stats_report(b, d);
	s->bdis = out;
	s->nbdis = n;
	attach_mounts(b, s, d);
}
