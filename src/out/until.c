// SPDX-License-Identifier: GPL-2.0-or-later
/* --until-clean: follow one device until it is clean, with the model's ETA. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "wbtop/bdi.h"

#include "wbtop/forecast.h"
#include "wbtop/model.h"
#include "wbtop/out.h"
#include "wbtop/pipeline.h"
#include "wbtop/signals.h"
#include "wbtop/until.h"
#include "wbtop/util.h"

#define ETA_HORIZON_S 900.0 /* the forecast looks this far for "clean" */
#define ETA_FIRST_S 60.0    /* and first this far */
#define ETA_AFTER 3         /* samples before the first ETA, */
#define ETA_AFTER_S 2.5     /* and seconds watched: a slow device completes in lumps (a 5 MB/s stick's
			     * first 2 s read 4 MB/s: 15 s forecast, clean in 12) */
#define BAR_CELLS 24
#define GONE_AFTER 2        /* samples in a row without the device before it is taken as gone */

/*
 * A BDI's name, a block device (the BDI whose device it is; when a file
 * system with a BDI of its own sits on it, as btrfs does, that one: its
 * dirty pages are there) or a mount point.
 */
int wb_until_find(const struct wb_sample *s, const char *dev)
{
	const char *base = strncmp(dev, "/dev/", 5) == 0 ? dev + 5 : dev;
	int found = -1;

	for (size_t i = 0; i < s->nbdis; i++)
		if (strcmp(s->bdis[i].name, dev) == 0)
			return (int)i;
	for (size_t i = 0; i < s->nbdis; i++) {
		const struct wb_bdi *b = &s->bdis[i];
		/* a file system's own BDI (btrfs-N: no MAJ:MIN name) before the device's, mounted or not */
		bool fs = !strchr(b->name, ':'), was_fs = found >= 0 && !strchr(s->bdis[found].name, ':');
		if (b->dev[0] && strcmp(b->dev, base) == 0 &&
		    (found < 0 || fs > was_fs || (fs == was_fs && b->nmounts > s->bdis[found].nmounts)))
			found = (int)i;
	}
	if (found >= 0)
		return found;
	for (size_t i = 0; dev[0] == '/' && i < s->nbdis; i++)
		for (int m = 0; m < s->bdis[i].nmounts && m < WB_MAX_MOUNTS; m++)
			if (strcmp(s->bdis[i].mounts[m], dev) == 0)
				return (int)i;
	return -1;
}

bool wb_mount_of(char *mountinfo, const char *majmin, const char *path, char *mnt, size_t mntlen, char *src,
		 size_t srclen)
{
	size_t best = 0;
	bool found = false;

	for (char *p = mountinfo, *eol; p && *p; p = eol ? eol + 1 : NULL) {
		char *f[7], *sep, *save = NULL, *tok;
		int nf = 0;

		if ((eol = strchr(p, '\n')))
			*eol = '\0';
		/* id parent maj:min root mountpoint opts [optional...] - fstype source super */
		if (!(sep = strstr(p, " - ")))
			continue;
		*sep = '\0';
		for (tok = strtok_r(p, " ", &save); tok && nf < 5; tok = strtok_r(NULL, " ", &save))
			f[nf++] = tok;
		save = NULL;
		for (tok = strtok_r(sep + 3, " ", &save); tok && nf < 7; tok = strtok_r(NULL, " ", &save))
			f[nf++] = tok;
		if (nf < 7 || strcmp(f[2], majmin) != 0)
			continue;
		wb_mountinfo_unescape(f[4]);
		wb_mountinfo_unescape(f[6]);
		size_t n = strlen(f[4]);
		/* a prefix as a path: "/" or "/mnt" of "/mnt/x", not "/mn"; a later equal one stacks on top */
		bool under = strcmp(f[4], "/") == 0 ||
			     (strncmp(path, f[4], n) == 0 && (path[n] == '\0' || path[n] == '/'));
		if (!under || (found && n < best))
			continue;
		best = n;
		found = true;
		wb_path_fit(mnt, mntlen, f[4]); /* as the BDIs' mounts are kept: a long one still matches */
		snprintf(src, srclen, "%s", f[6]);
	}
	return found;
}

/* The whole disk of a partition ("vda1" -> "vda", by sysfs), or false if name is not a partition. */
static bool disk_of(const char *sysdir, char *disk, size_t n)
{
	char p[PATH_MAX], *real, *slash;
	bool ok = false;

	snprintf(p, sizeof(p), "%s/partition", sysdir);
	if (access(p, F_OK) != 0 || !(real = realpath(sysdir, NULL)))
		return false;
	if ((slash = strrchr(real, '/'))) {
		*slash = '\0'; /* .../block/vda/vda1 -> .../block/vda */
		if ((slash = strrchr(real, '/')))
			ok = snprintf(disk, n, "%s", slash + 1) < (int)n;
	}
	free(real);
	return ok;
}

/*
 * The btrfs BDI (btrfs-N) of the file system that device name is a member
 * of (/sys/fs/btrfs/UUID/devices/NAME): its BDI shows one member as its
 * device, the mount's source, and a file system may have several.
 */
static bool btrfs_of(const char *name, char *bdi, size_t n)
{
	DIR *dh = opendir("/sys/fs/btrfs");
	struct dirent *e;
	bool ok = false;

	while (dh && !ok && (e = readdir(dh))) {
		char p[PATH_MAX], link[256];
		ssize_t len;
		const char *slash;

		snprintf(p, sizeof(p), "/sys/fs/btrfs/%s/devices/%s", e->d_name, name);
		if (e->d_name[0] == '.' || access(p, F_OK) != 0)
			continue;
		snprintf(p, sizeof(p), "/sys/fs/btrfs/%s/bdi", e->d_name);
		if ((len = readlink(p, link, sizeof(link) - 1)) <= 0)
			continue;
		link[len] = '\0';
		slash = strrchr(link, '/');
		ok = snprintf(bdi, n, "%s", slash ? slash + 1 : link) < (int)n;
	}
	if (dh)
		closedir(dh);
	return ok;
}

/*
 * What a device name dev that no BDI has (live) stands for, by the
 * kernel's files: a partition is its disk's (the disk holds the BDI); any
 * other path is its file system's, as df finds it: the mount of its
 * st_dev in /proc/self/mountinfo (the longest mount point above it),
 * then that file system's BDI (its MAJ:MIN), the disk of that partition,
 * or the mount's source. Candidates into cand (up to max); how many.
 */
static int resolve_candidates(const char *dev, char cand[][WB_PATH_LEN], int max)
{
	char sys[PATH_MAX], majmin[32], mnt[WB_PATH_LEN], src[WB_PATH_LEN] = "", *real, *buf = NULL;
	const char *base = strncmp(dev, "/dev/", 5) == 0 ? dev + 5 : dev;
	struct stat st;
	size_t cap = 0;
	FILE *f;
	int n = 0;

	snprintf(sys, sizeof(sys), "/sys/class/block/%s", base);
	if (!strchr(base, '/') && disk_of(sys, cand[n], WB_PATH_LEN))
		n++;
	if (!strchr(base, '/') && n < max && btrfs_of(base, cand[n], WB_PATH_LEN))
		n++;
	/* a path on the device: absolute, or relative with a slash or as . and .. (a bare name is a device's) */
	bool path = dev[0] == '/' || strchr(dev, '/') || strcmp(dev, ".") == 0 || strcmp(dev, "..") == 0;
	if (!path || stat(dev, &st) != 0 || S_ISBLK(st.st_mode) || !(real = realpath(dev, NULL)))
		return n;
	snprintf(majmin, sizeof(majmin), "%u:%u", major(st.st_dev), minor(st.st_dev));
	if ((f = fopen("/proc/self/mountinfo", "re"))) {
		ssize_t len = getdelim(&buf, &cap, '\0', f);
		fclose(f);
		if (len > 0 && wb_mount_of(buf, majmin, real, mnt, sizeof(mnt), src, sizeof(src)) && n < max)
			snprintf(cand[n++], WB_PATH_LEN, "%s", mnt);
	}
	if (n < max)
		snprintf(cand[n++], WB_PATH_LEN, "%s", majmin);
	snprintf(sys, sizeof(sys), "/sys/dev/block/%s", majmin);
	if (n < max && disk_of(sys, cand[n], WB_PATH_LEN))
		n++;
	if (n < max && strncmp(src, "/dev/", 5) == 0)
		snprintf(cand[n++], WB_PATH_LEN, "%s", src);
	free(buf);
	free(real);
	return n;
}

int wb_until_resolve(const struct wb_sample *s, const char *dev, char *name, size_t n)
{
	char cand[5][WB_PATH_LEN];
	const char *base = strncmp(dev, "/dev/", 5) == 0 ? dev + 5 : dev;
	int idx = wb_until_find(s, dev), nc = idx < 0 ? resolve_candidates(dev, cand, 5) : 0, fs;

	/* a btrfs member the file system's BDI does not show as its device: its pages are there, as for the one it shows */
	if (idx >= 0 && strcmp(s->bdis[idx].name, dev) != 0 && strchr(s->bdis[idx].name, ':') && !strchr(base, '/') &&
	    btrfs_of(base, cand[0], WB_PATH_LEN) && (fs = wb_until_find(s, cand[0])) >= 0)
		idx = fs;
	for (int i = 0; idx < 0 && i < nc; i++)
		idx = wb_until_find(s, cand[i]);
	if (idx >= 0)
		snprintf(name, n, "%s", s->bdis[idx].name);
	return idx;
}

static bool has_stats(const struct wb_bdi *b)
{
	return WB_HAS(b->st_valid, WB_B_WRITEBACK) && WB_HAS(b->st_valid, WB_B_RECLAIMABLE);
}

/*
 * Clean for a person's purpose: no page dirty or under writeback. An inode
 * may stay on the dirty lists with no page (its times or size): that is the
 * file system's business, not data left to write, so the lists do not count.
 * The page counts may keep a few pages of per-CPU slack for good: at most
 * that much, with no I/O in flight and unchanged since the last sample, is
 * clean too (the line says so).
 */
static bool clean_enough(const struct wb_sample *s, const struct wb_bdi *b, uint64_t last, bool *slack)
{
	uint64_t pages = b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK];

	*slack = false;
	if (pages == 0)
		return true;
	if (pages > wb_counter_slack(s) || pages != last)
		return false;
	if (WB_HAS(b->disk_valid, WB_D_INFLIGHT) && b->disk[WB_D_INFLIGHT])
		return false;
	*slack = true;
	return true;
}

/* Seconds until the forecast first has the device clean; < 0 not within the horizon. */
static double clean_at(const struct wb_sample *cur, const struct wb_limits *lim, const struct wb_forecast_in *in,
		       int idx)
{
	struct wb_settings k;
	struct wb_forecast fc;
	double t = -1;

	if (wb_settings_from_sample(&k, cur) != 0)
		return -1;
	/* most devices are clean within a minute: the whole horizon only when not
	 * (its 18,000 steps a run, four runs a sample, cost 50 ms a sample) */
	for (int h = 0; h < 2 && t < 0; h++) {
		struct wb_forecast_in hin = *in;

		hin.horizon_s = h == 0 ? fmin(ETA_FIRST_S, in->horizon_s) : in->horizon_s;
		if (h == 1 && hin.horizon_s <= ETA_FIRST_S)
			break;
		memset(&fc, 0, sizeof(fc));
		if (wb_forecast_run(cur, lim, &k, &hin, &fc) == 0 && (size_t)idx < fc.nbdis)
			t = fc.bdis[idx].clean_at_s;
		wb_forecast_finish(&fc);
	}
	wb_settings_finish(&k);
	return t;
}

/*
 * When the device will be clean, as a range: the flusher writes what is
 * below the background threshold only once it is dirty_expire_centisecs
 * old, and how old it is shows only as far back as wbtop has watched. lo
 * takes it as due now, hi as just dirtied when the watched span does not
 * reach the device's last clean moment (else lo = hi). writing: someone
 * dirtied pages on it since the last sample; the range is then for the
 * moment that stops. Both < 0 when not clean within the horizon.
 */
struct eta { double lo, hi; bool writing; double stalled_s; bool unmeasured; bool no_periodic; };

/* The kernel's bandwidth estimate is still its starting value (INIT_BW, 100 MiB/s): never measured. */
static bool bw_unmeasured(const struct wb_sample *s, const struct wb_bdi *b)
{
	uint64_t bw;

	return wb_bdi_write_bw(b, &bw) && wb_bw_unmeasured((double)bw, s->page_size);
}

static struct eta eta(const struct wb_view *v, const struct wb_ring *hist, int idx)
{
	const struct wb_sample *cur = v->cur;
	struct eta e = { -1, -1, false, 0, false, false };
	struct wb_forecast_in in;
	size_t n = cur->nbdis;
	double *buf, *x, span = 0, age0, bw, done, secs;

	/*
	 * What it completed with writeback in flight throughout (the model's
	 * measure, as the Devices pane's CLEAN-IN): the kernel's own estimate
	 * moves only while someone dirties pages, so after a copy it can be far
	 * off (a new device's starts at 100 MiB/s), and a slow device completing
	 * big requests may show nothing completed for seconds.
	 */
	wb_model_completed(cur, hist, cur->bdis[idx].name, &done, &secs);
	bw = secs >= 1 ? done / secs : 0;

	/* no rate to go by: say so rather than forecast with a figure nobody measured */
	if (secs >= 2 && done == 0)
		e.stalled_s = secs;
	else if (bw == 0 && bw_unmeasured(cur, &cur->bdis[idx]))
		e.unmeasured = true;
	if (!v->lim)
		return e;
	/* periodic writeback off: below the background thresholds nothing but sync or reclaim writes
	 * (said only where the forecast, which knows it, finds the device not clean) */
	e.no_periodic = cur->sys_valid & WB_BIT(WB_SYS_WRITEBACK_CS) && cur->sys[WB_SYS_WRITEBACK_CS] == 0;
	buf = wb_forecast_prepare(cur, hist, ETA_HORIZON_S, 1.0, &in);
	in.members = 0; /* the point forecast's clean moment only: no band (the ensemble made a sample cost 0.1 s) */
	x = calloc(3 * (n ? n : 1), sizeof(*x));
	if (buf && x && in.age) {
		/* x: demands, ages, writers asleep; the watched span bounds what age can show */
		memcpy(x, in.dirty_rate, n * sizeof(*x));
		memcpy(x + n, in.age, n * sizeof(*x));
		if (in.tasks)
			memcpy(x + 2 * n, in.tasks, n * sizeof(*x));
		for (size_t i = 0; i < wb_ring_len(hist); i++)
			span = fmax(span, cur->mono - wb_ring_get(hist, i)->mono);
		/* the pipeline's rate: someone dirtied pages on it since the last sample */
		e.writing = v->bdi && v->bdi[idx].dirtied_ok && v->bdi[idx].dirtied > 0;
		if (!e.writing)
			x[idx] = x[2 * n + idx] = 0; /* nothing dirtied in the last sample: the writer is done */
		in.dirty_rate = x;
		in.age = x + n;
		if (in.tasks)
			in.tasks = x + 2 * n;
		if (bw > 0)
			((double *)in.bw)[idx] = bw; /* in.bw lives in buf, which is ours */
		age0 = x[n + idx];
		/*
		 * hi: an expired page waits for the flusher's next periodic run,
		 * dirty_writeback_centisecs apart at a phase nobody sees: as if
		 * the pages were that much younger (CI: the stick paused 3 s at
		 * 10M, clean 15.6 s after a first ETA of ~12 s)
		 */
		if (cur->sys_valid & WB_BIT(WB_SYS_WRITEBACK_CS))
			x[n + idx] = fmax(0, age0 - (double)cur->sys[WB_SYS_WRITEBACK_CS] / 100.0);
		e.hi = clean_at(cur, v->lim, &in, idx);
		if (e.hi < 0 && e.writing) {
			x[idx] = 0; /* when the writer stops now */
			in.tasks = NULL;
			e.hi = clean_at(cur, v->lim, &in, idx);
		}
		x[n + idx] = age0;
		e.lo = clean_at(cur, v->lim, &in, idx);
		if (age0 >= span - 0.5 && cur->sys_valid & WB_BIT(WB_SYS_EXPIRE_CS)) {
			x[n + idx] = fmax(age0, (double)cur->sys[WB_SYS_EXPIRE_CS] / 100.0);
			e.lo = clean_at(cur, v->lim, &in, idx);
		}
		if (e.lo < 0 || (e.hi >= 0 && e.lo > e.hi))
			e.lo = e.hi;
	}
	free(x);
	free(buf);
	return e;
}

static void fmt_secs(char *buf, size_t n, double t)
{
	if (t < 120)
		snprintf(buf, n, "%.0fs", t);
	else
		snprintf(buf, n, "%.0fm%02.0fs", floor(t / 60), fmod(t, 60));
}

static void fmt_eta(char *buf, size_t n, const struct eta *e, bool measuring)
{
	char a[32], b[32], r[112];

	if (measuring) {
		snprintf(buf, n, "clean in: measuring");
		return;
	}
	if (e->stalled_s > 0) {
		snprintf(buf, n, "clean in: unknown (nothing completed in the last %.0fs)", e->stalled_s);
		return;
	}
	if (e->unmeasured) {
		snprintf(buf, n, "clean in: unknown (the kernel has not measured the device's speed yet)");
		return;
	}
	if ((e->hi < 0 || e->lo < 0) && e->no_periodic) {
		snprintf(buf, n, "clean in: not by itself (vm.dirty_writeback_centisecs 0: periodic writeback off, "
				 "pages below the background thresholds wait for sync or reclaim)%s",
			 e->writing ? " (still written to)" : "");
		return;
	}
	if (e->hi < 0 || e->lo < 0) {
		snprintf(buf, n, "clean in: over %.0f min%s", ETA_HORIZON_S / 60, e->writing ? " (still written to)" : "");
		return;
	}
	fmt_secs(a, sizeof(a), e->lo);
	fmt_secs(b, sizeof(b), e->hi);
	if (e->hi - e->lo < fmax(2, 0.2 * e->hi))
		snprintf(r, sizeof(r), "~%s", b);
	else
		snprintf(r, sizeof(r), "%s-%s (its pages' age is not known)", a, b);
	snprintf(buf, n, e->writing ? "still written to; clean %s after that stops" : "clean in %s", r);
}

static void bar(char *buf, size_t n, double done)
{
	int full = (int)lround(fmax(0, fmin(1, done)) * BAR_CELLS), k = 0;

	if (n < BAR_CELLS + 3)
		return;
	buf[k++] = '[';
	for (int i = 0; i < BAR_CELLS; i++)
		buf[k++] = i < full ? '#' : '.';
	buf[k++] = ']';
	buf[k] = '\0';
}

/* One progress line for the device at sample s. */
static void print_line(FILE *out, const struct wb_until_opts *o, const struct wb_sample *s,
		       const struct wb_bdi *b, uint64_t first, const char *etabuf)
{
	uint64_t pages = b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK];
	char lv[16], wbk[16], bb[BAR_CELLS + 4] = "", clock[16], who[WB_NAME_LEN + 40];
	time_t w = isfinite(s->wall) && fabs(s->wall) < 1e12 ? (time_t)s->wall : 0;
	struct tm tm;

	if (!localtime_r(&w, &tm) || !strftime(clock, sizeof(clock), "%H:%M:%S", &tm))
		snprintf(clock, sizeof(clock), "--:--:--");
	/* the device, and its file system's BDI when that is not the device's own (btrfs-N) */
	if (b->dev[0] && !strchr(b->name, ':'))
		snprintf(who, sizeof(who), "%s (%s)", b->dev, b->name);
	else
		snprintf(who, sizeof(who), "%s", b->dev[0] ? b->dev : b->name);
	wb_fmt_bytes(lv, sizeof(lv), (double)wb_pages_to_bytes(s, pages));
	wb_fmt_bytes(wbk, sizeof(wbk), (double)wb_pages_to_bytes(s, b->st[WB_B_WRITEBACK]));
	if (o->bar) {
		bar(bb, sizeof(bb), first ? 1.0 - (double)pages / (double)first : 1.0);
		fprintf(out, "\r\033[K%s %s %6s left (%s writeback) %s %s", clock, who, lv, wbk, bb, etabuf);
	} else {
		fprintf(out, "%s %s %s left (%s writeback) %s\n", clock, who, lv, wbk, etabuf);
	}
	fflush(out);
}

/* Memory-only file systems: no BDI, nothing is ever written back (btrfs too has a 0:N st_dev: not by that). */
static bool no_writeback(long type)
{
	static const unsigned long magic[] = {
		0x01021994, /* tmpfs, devtmpfs */ 0x858458f6, /* ramfs */ 0x958458f6, /* hugetlbfs */
		0x9fa0,     /* proc */            0x62656572, /* sysfs */ 0x1cd1,     /* devpts */
	};

	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if ((unsigned long)type == magic[i])
			return true;
	return false;
}

/* Checks that dev names a device whose dirty pages this sample can see; dev: o->dev quoted for messages. */
static int check_device(const struct wb_until_opts *o, const char *dev, const struct wb_sample *s, int idx)
{
	struct statfs st;

	if (idx < 0 && o->dev[0] == '/' && statfs(o->dev, &st) == 0 && no_writeback(st.f_type)) {
		fprintf(stderr, "wbtop: --until-clean: %s is on a file system with no backing device (tmpfs, "
			"ramfs, proc...): its pages are never written back\n", dev);
		return WB_UNTIL_BAD;
	}
	if (idx < 0) {
		fprintf(stderr, "wbtop: --until-clean: no device \"%s\" (a name from /sys/class/bdi, " /* '' shows */
			"a block device or a path on a file system)\n", dev);
		return WB_UNTIL_BAD;
	}
	if (!has_stats(&s->bdis[idx])) {
		fprintf(stderr, "wbtop: --until-clean %s: the device's dirty and writeback pages need "
			"level 2 (root and debugfs: --mount-debugfs)\n", dev);
		return WB_UNTIL_BAD;
	}
	return 0;
}

int wb_until_clean(const struct wb_until_opts *o, struct wb_source *src, FILE *out)
{
	struct wb_pipeline_opts po = { .window = WB_FORECAST_HIST };
	struct wb_pipeline *pl = wb_pipeline_create(&po); /* the model and the rates, as every sink has them */
	struct wb_sample cur;
	uint64_t first = 0, last = UINT64_MAX;
	int rc = WB_UNTIL_NOT_CLEAN, seen = 0;
	char name[WB_NAME_LEN] = "", err[256], dev[WB_QUOTE_LEN];
	bool confirm = false; /* within the counters' slack once: look again soon, not a whole interval later */
	int missing = 0;      /* samples in a row without the device once found */
	struct timespec next; /* the last tick: one sample a delay, whatever a sample costs */
	double mono0 = 0;     /* the first sample's time */

	wb_sample_init(&cur);
	wb_quote(o->dev, dev, sizeof(dev));
	if (!pl)
		fprintf(stderr, "wbtop: out of memory\n");
	long i;

	for (i = 0; pl && !wb_stop && (o->count == 0 || i < o->count); i++) {
		if (i == 0)
			clock_gettime(CLOCK_MONOTONIC, &next);
		else if (!src->replay)
			wb_sleep_until(&next, confirm ? fmin(o->delay, 0.25) : o->delay);
		if (wb_stop || src->read(src->ctx, &cur) != 0 || wb_pipeline_push(pl, &cur, err, sizeof(err)) == -ENOMEM)
			break;
		/* the BDI is looked up by the name found first: a mount may go */
		int idx = name[0] ? wb_until_find(&cur, name)
			  : o->live ? wb_until_resolve(&cur, o->dev, name, sizeof(name)) : wb_until_find(&cur, o->dev);
		if (i == 0 && (rc = check_device(o, dev, &cur, idx)) != 0)
			break;
		rc = WB_UNTIL_NOT_CLEAN;
		/*
		 * Its BDI gone (a loop device removed, a stick pulled): nothing will ever read
		 * clean - say so and stop, not wait in silence. What became of its pages no
		 * counter shows: the kernel writes them as it removes a device, or drops them
		 * with a device unplugged.
		 */
		missing = idx < 0 && name[0] ? missing + 1 : 0;
		if (missing >= GONE_AFTER) {
			if (o->bar && seen)
				fputc('\n', out);
			fprintf(stderr, "wbtop: --until-clean %s: the device (%s) has gone%s, with %s dirty or under "
				"writeback at the last look (no counter shows whether the kernel wrote them as it "
				"removed the device)\n", dev, name, src->replay ? " from the recording" : " from /sys/class/bdi",
				wb_fmt_bytes(err, sizeof(err), (double)wb_pages_to_bytes(&cur, last)));
			seen = 0; /* the line is ended, and no "not clean after" */
			rc = WB_UNTIL_BAD;
			break;
		}
		if (idx < 0 || !has_stats(&cur.bdis[idx]))
			continue; /* gone for a sample: say nothing until it returns */
		const struct wb_bdi *b = &cur.bdis[idx];
		uint64_t pages = b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK];
		bool slack, done = clean_enough(&cur, b, last, &slack);
		char etabuf[200];
		struct eta e = eta(wb_pipeline_view(pl), wb_pipeline_history(pl), idx);

		memcpy(name, b->name, sizeof(name));
		confirm = !done && pages <= wb_counter_slack(&cur);
		if (!seen)
			mono0 = cur.mono;
		if (!first)
			first = pages;
		seen++;
		last = pages;
		if (done && src->replay && seen == 1) /* a replay's start is before its copy, often: say how to see it */
			snprintf(etabuf, sizeof(etabuf), "clean at the first sample replayed (--from SECONDS starts later)");
		else if (done)
			snprintf(etabuf, sizeof(etabuf), slack ? "clean (what is left is the kernel "
				 "counters' per-CPU slack)" : "clean");
		else
			fmt_eta(etabuf, sizeof(etabuf), &e, seen < ETA_AFTER || cur.mono - mono0 < ETA_AFTER_S);
		print_line(out, o, &cur, b, first, etabuf);
		if (done) {
			rc = WB_UNTIL_CLEAN;
			break;
		}
	}
	if (o->bar && seen)
		fputc('\n', out);
	if (rc == WB_UNTIL_NOT_CLEAN && seen && !wb_stop) /* exit 1 says it; so does a line */
		fprintf(stderr, "wbtop: --until-clean %s: not clean after %ld sample%s%s\n", dev, i,
			i == 1 ? "" : "s", o->count && i >= o->count ? " (-n)" : ": the source ended");
	wb_sample_finish(&cur);
	wb_pipeline_destroy(pl);
	return rc;
}
