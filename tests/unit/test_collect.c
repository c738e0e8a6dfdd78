// SPDX-License-Identifier: GPL-2.0-or-later
/* The live source on fixture trees captured from real kernels (and damaged ones). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "test_util.h"

#include "wbtop/bdi.h"
#include "wbtop/live.h"
#include "wbtop/model.h"
#include "wbtop/until.h"

static struct wb_live *open_fixture(const char *name)
{
	static char root[512];
	char err[256];
	struct wb_live_opts o = { .root = root };
	struct wb_live *l;

	snprintf(root, sizeof(root), "%s/%s", FIXTURES, name);
	l = wb_live_create(&o, err, sizeof(err));
	assert_non_null(l);
	return l;
}

/* Captured on 6.18 while dd wrote to ext4, xfs and btrfs loop devices. */
static void writing_618(void **st)
{
	struct wb_live *l = open_fixture("6.18-writing");
	struct wb_sample s;
	struct wb_limits m;
	const struct wb_bdi *b;
	(void)st;
	wb_sample_init(&s);
	wb_live_read(l, &s);
	assert_int_equal(wb_live_diag(l)->n, 0);
	assert_int_equal(s.level, WB_LEVEL_DEBUGFS);
	b = wb_sample_bdi(&s, "btrfs-1");
	assert_non_null(b);                         /* btrfs's own BDI, mapped to its device */
	assert_string_equal(b->dev, "loop2");
	assert_string_equal(b->fstype, "btrfs");
	assert_int_equal(b->nmounts, 1);
	assert_true(b->st[WB_B_RECLAIMABLE] > 0);
	b = wb_sample_bdi(&s, "7:0");
	assert_string_equal(b->dev, "loop0");
	assert_string_equal(b->fstype, "ext4");
	assert_true(b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK] > 0);
	assert_true(WB_HAS(b->st_valid, WB_B_WB_BW));
	/* the model reproduces the kernel's global thresholds from the same files */
	assert_int_equal(wb_limits_compute(&s, NULL, NULL, &m), 0);
	assert_false(m.calibrated);
	assert_int_equal(m.thresh, s.g.v[WB_G_DIRTY_THRESH]);
	assert_int_equal(m.bg, s.g.v[WB_G_BG_THRESH]);
	/*
	 * and every BDI's threshold within the per-CPU counter error (32 pages),
	 * plus what the global threshold moved between the capture's reads of
	 * /proc/vmstat and of that BDI's debugfs file (a writer was running)
	 */
	for (size_t i = 0; i < s.nbdis; i++) {
		int64_t diff = (int64_t)m.bdis[i].thresh - (int64_t)s.bdis[i].st[WB_B_THRESH];
		int64_t moved = llabs((int64_t)s.bdis[i].st[WB_B_DIRTY_THRESH] - (int64_t)m.thresh);
		if (diff < -32 - moved || diff > 32 + moved)
			fail_msg("%s: model %llu kernel %llu", s.bdis[i].name,
				 (unsigned long long)m.bdis[i].thresh,
				 (unsigned long long)s.bdis[i].st[WB_B_THRESH]);
	}
	wb_limits_finish(&m);
	wb_sample_finish(&s);
	wb_live_destroy(l);
}

static void old_kernel_shapes(void **st)
{
	struct wb_live *l = open_fixture("4.4-handmade");
	struct wb_sample s;
	struct wb_limits m;
	const struct wb_bdi *b;
	(void)st;
	wb_sample_init(&s);
	wb_live_read(l, &s);
	assert_int_equal(s.level, WB_LEVEL_DEBUGFS);
	b = wb_sample_bdi(&s, "8:0");
	assert_non_null(b);
	assert_string_equal(b->dev, "sda");
	assert_string_equal(b->mounts[0], "/mnt/whole disk"); /* \040 decoded */
	assert_false(WB_HAS(b->st_valid, WB_B_DIRTIED));      /* absent, not 0 */
	assert_false(WB_HAS(b->knob_valid, WB_K_MIN_RATIO_FINE));
	assert_int_equal(s.ncpus, 4);
	assert_int_equal(s.g.v[WB_G_ALLOCSTALL], 3);
	assert_int_equal(wb_limits_compute(&s, NULL, NULL, &m), 0);
	assert_true(m.calibrated);                        /* old arithmetic: recovered avail */
	assert_int_equal(m.thresh, 360048);
	wb_limits_finish(&m);
	wb_sample_finish(&s);
	wb_live_destroy(l);
}

static void damaged_files_named(void **st)
{
	struct wb_live *l = open_fixture("damaged");
	const struct wb_diag *d;
	struct wb_sample s;
	(void)st;
	wb_sample_init(&s);
	wb_live_read(l, &s);
	d = wb_live_diag(l);
	assert_true(diag_has(d, "proc/vmstat: no usable \"nr_dirty\""));
	assert_true(diag_has(d, "proc/meminfo:2: MemFree: bad value"));
	assert_true(diag_has(d, "proc/zoneinfo: no \"Node N, zone X\""));
	assert_true(diag_has(d, "7:0/stats:2: BdiReclaimable: bad value"));
	assert_true(diag_has(d, "7:1/max_ratio: expected a number"));
	/* the rest still works */
	assert_true(s.nbdis >= 10);
	assert_true(WB_HAS(wb_sample_bdi(&s, "7:3")->st_valid, WB_B_THRESH));
	assert_false(WB_HAS(s.g.valid, WB_G_DIRTY));
	wb_sample_finish(&s);
	wb_live_destroy(l);
}

/*
 * Out of descriptors: nothing kept (a budget of 0), then a soft limit with
 * none free. The devices listed before stay, those not read are named in
 * one line (not seven "Too many open files" and a "none of its knobs" each),
 * and with descriptors again every device is read.
 */
static void out_of_descriptors(void **st)
{
	struct wb_live *l = open_fixture("6.18-writing");
	struct rlimit was, low;
	struct wb_sample s;
	size_t n;
	int fd;

	(void)st;
	wb_fd_keep_reset(1); /* no place to keep a file: each is opened at each read */
	wb_sample_init(&s);
	wb_live_read(l, &s);
	n = s.nbdis;
	assert_true(n >= 10);
	assert_true(diag_has(wb_live_diag(l), "devices read by opening their files each sample"));
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	fd = dup(0); /* the lowest free descriptor: as the limit, none is free */
	assert_true(fd >= 0);
	close(fd);
	low = (struct rlimit){ .rlim_cur = (rlim_t)fd, .rlim_max = was.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	wb_live_read(l, &s);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	assert_int_equal(s.nbdis, n);
	assert_true(diag_has(wb_live_diag(l), "the devices listed before are kept"));
	assert_true(diag_has(wb_live_diag(l), "out of file descriptors (open-files limit 1): "));
	assert_true(diag_has(wb_live_diag(l), "devices not read, or only in part: "));
	assert_false(diag_has(wb_live_diag(l), "none of its knobs"));
	assert_false(diag_has(wb_live_diag(l), "7:0/max_ratio: Too many open files"));
	wb_live_read(l, &s);
	assert_int_equal(s.nbdis, n);
	assert_false(diag_has(wb_live_diag(l), "out of file descriptors"));
	assert_true(WB_HAS(wb_sample_bdi(&s, "7:0")->st_valid, WB_B_THRESH));
	wb_fd_keep_reset(0);
	wb_sample_finish(&s);
	wb_live_destroy(l);
}

/* Run a shell command on the tree in dir (cp, mv, rm); fails the test if it fails. */
static void in_tree(const char *dir, const char *cmd)
{
	char c[2048];

	snprintf(c, sizeof(c), "cd '%s' && %s", dir, cmd);
	assert_int_equal(system(c), 0);
}

/*
 * BDIs that come and go between listings (a tree is listed every sample):
 * each found again by name (by halves through the name order since the
 * last listing), the new ones added, the gone ones dropped, every name
 * once and in name order. 7:01 is a name of its own, not 7:1's.
 */
static void listing_follows_changes(void **st)
{
	char root[] = "/tmp/test_collect.XXXXXX", err[256], cmd[600];
	struct wb_live_opts o = { .root = root };
	static const char *const want[] = { "7:0", "7:01", "7:1", "7:3", "7:4", "7:5", "7:6", "7:7", "7:9",
					    "253:0", "254:0", "btrfs-1" };
	struct wb_live *l;
	struct wb_sample s;

	(void)st;
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -a '%s/6.18-writing/.' .", FIXTURES);
	in_tree(root, cmd);
	assert_non_null(l = wb_live_create(&o, err, sizeof(err)));
	wb_sample_init(&s);
	wb_live_read(l, &s);
	assert_int_equal(s.nbdis, 11);
	in_tree(root, "cd sys/class/bdi && cp -a 7:1 7:01 && cp -a 7:1 7:9 && rm -r 7:2 && "
		      "cd ../../kernel/debug/bdi && cp -a 7:1 7:01 && cp -a 7:1 7:9");
	for (int round = 0; round < 2; round++) { /* the first finds the change, the second the same again */
		wb_live_read(l, &s);
		assert_int_equal(s.nbdis, sizeof(want) / sizeof(want[0]));
		for (size_t i = 0; i < s.nbdis; i++)
			assert_string_equal(s.bdis[i].name, want[i]);
		assert_true(WB_HAS(wb_sample_bdi(&s, "7:01")->st_valid, WB_B_THRESH));
		assert_string_equal(wb_sample_bdi(&s, "7:0")->dev, "loop0");
	}
	wb_sample_finish(&s);
	wb_live_destroy(l);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/*
 * debugfs stats missing (the folder: debugfs not mounted; or some devices'
 * files) while sysfs is there: the cause said in the first sample, not in
 * every one; a device with none that comes later is said then.
 */
static void stats_unread_said_once(void **st)
{
	char root[] = "/tmp/test_collect.XXXXXX", err[256], cmd[600];
	struct wb_live_opts o = { .root = root };
	struct wb_live *l;
	struct wb_sample s;

	(void)st;
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -a '%s/6.18-idle/.' . && mv sys/kernel/debug sys/kernel/debug.off", FIXTURES);
	in_tree(root, cmd);
	assert_non_null(l = wb_live_create(&o, err, sizeof(err)));
	wb_sample_init(&s);
	wb_live_read(l, &s);
	assert_int_equal(s.level, WB_LEVEL_SYSFS);
	assert_true(diag_has(wb_live_diag(l), "debugfs stats unread: "));
	assert_true(diag_has(wb_live_diag(l), "/sys/kernel/debug/bdi: No such file or directory"));
	wb_live_read(l, &s);
	assert_false(diag_has(wb_live_diag(l), "debugfs stats unread"));
	/* debugfs back but two devices' files gone: those two, once */
	in_tree(root, "mv sys/kernel/debug.off sys/kernel/debug && rm sys/kernel/debug/bdi/7:3/stats && "
		      "rm -r sys/kernel/debug/bdi/7:5");
	for (int i = 0; i <= WB_KVFILE_RETRY && s.level != WB_LEVEL_DEBUGFS; i++) { /* a failed open waits */
		wb_live_read(l, &s);
		assert_false(s.level != WB_LEVEL_DEBUGFS && diag_has(wb_live_diag(l), "debugfs stats unread"));
	}
	assert_int_equal(s.level, WB_LEVEL_DEBUGFS);
	assert_true(diag_has(wb_live_diag(l), "debugfs stats unread for 2 of 10 devices: 7:3 (No such file or "
					      "directory), 7:5 (No such file or directory); their dirty"));
	wb_live_read(l, &s);
	assert_false(diag_has(wb_live_diag(l), "debugfs stats unread"));
	in_tree(root, "cp -a sys/class/bdi/7:1 sys/class/bdi/7:9"); /* a device with no stats comes */
	wb_live_read(l, &s);
	assert_true(diag_has(wb_live_diag(l), "debugfs stats unread for 1 of 11 devices: 7:9 (No such file"));
	wb_sample_finish(&s);
	wb_live_destroy(l);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void ring_and_rates(void **st)
{
	struct wb_ring *r = wb_ring_create(3);
	struct wb_sample a, b;
	struct wb_bdi ba = { .name = "7:0" }, bb = { .name = "7:0" };
	double rate;
	(void)st;
	wb_sample_init(&a);
	wb_sample_init(&b);
	a.mono = 10;
	b.mono = 12;
	a.g.v[WB_G_DIRTIED] = 100;
	b.g.v[WB_G_DIRTIED] = 300;
	a.g.valid = b.g.valid = WB_BIT(WB_G_DIRTIED);
	assert_true(wb_rate_global(&a, &b, WB_G_DIRTIED, &rate));
	assert_true(rate == 100.0);
	assert_false(wb_rate_global(&b, &a, WB_G_DIRTIED, &rate)); /* backwards: no rate */
	ba.st[WB_B_WRITTEN] = 50;
	bb.st[WB_B_WRITTEN] = 10; /* a re-created BDI */
	ba.st_valid = bb.st_valid = WB_BIT(WB_B_WRITTEN);
	a.bdis = &ba;
	a.nbdis = 1;
	b.bdis = &bb;
	b.nbdis = 1;
	assert_false(wb_rate_bdi(&a, &b, "7:0", WB_B_WRITTEN, &rate));
	for (int i = 0; i < 5; i++) {
		a.mono = i;
		assert_int_equal(wb_ring_push(r, &a), 0);
	}
	assert_int_equal(wb_ring_len(r), 3);
	assert_true(wb_ring_get(r, 0)->mono == 4);
	assert_true(wb_ring_get(r, 2)->mono == 2);
	assert_null(wb_ring_get(r, 3));
	assert_string_equal(wb_ring_get(r, 1)->bdis[0].name, "7:0"); /* deep copy */
	wb_ring_destroy(r);
}

/* A copy into a sample whose arrays are the same length (reused) or not (replaced): a deep copy each time. */
static void copy_reuses_or_replaces(void **st)
{
	struct wb_sample src, dst;
	struct wb_bdi *kept;
	(void)st;
	wb_sample_init(&src);
	wb_sample_init(&dst);
	for (size_t n = 1; n <= 3; n++) {
		for (int round = 0; round < 2; round++) { /* the second round: same lengths */
			src.nbdis = n;
			src.bdis = calloc(n, sizeof(*src.bdis));
			src.nzones = 3 - n;
			src.zones = src.nzones ? calloc(src.nzones, sizeof(*src.zones)) : NULL;
			for (size_t i = 0; i < n; i++)
				snprintf(src.bdis[i].name, sizeof(src.bdis[i].name), "%zu:%d", i, round);
			src.mono = (double)n + round;
			kept = dst.bdis;
			assert_int_equal(wb_sample_copy(&dst, &src), 0);
			if (round)
				assert_ptr_equal(dst.bdis, kept); /* same length: reused */
			assert_ptr_not_equal(dst.bdis, src.bdis);
			assert_int_equal(dst.nbdis, n);
			assert_int_equal(dst.nzones, 3 - n);
			assert_true(dst.mono == (double)n + round);
			for (size_t i = 0; i < n; i++)
				assert_memory_equal(&dst.bdis[i], &src.bdis[i], sizeof(src.bdis[i]));
			wb_sample_finish(&src);
			assert_string_equal(dst.bdis[0].name, round ? "0:1" : "0:0"); /* still there: not src's */
		}
	}
	wb_sample_finish(&dst);
}

/* Reclaimable pages at a wakeup, between two samples (hand-computed). */
static void lerp_between_samples(void **st)
{
	(void)st;
	assert_int_equal(wb_lerp_count(100, 10.0, 300, 11.0, 10.25), 150);
	assert_int_equal(wb_lerp_count(300, 10.0, 100, 11.0, 10.5), 200);  /* falling */
	assert_int_equal(wb_lerp_count(100, 10.0, 300, 11.0, 9.0), 100);   /* before: first */
	assert_int_equal(wb_lerp_count(100, 10.0, 300, 11.0, 12.0), 300);  /* after: second */
	assert_int_equal(wb_lerp_count(100, 11.0, 300, 11.0, 11.0), 300);  /* no interval */
	assert_int_equal(wb_lerp_count(0, 0, UINT64_C(1) << 52, 1.0, 0.5), UINT64_C(1) << 51);
}

/* Is s valid UTF-8 (no cut character)? */
static bool utf8_whole(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
		if (!n)
			return false;
		for (int i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return false;
		p += n;
	}
	return true;
}

/*
 * A mount point past WB_PATH_LEN - 1 bytes (a kubelet CSI volume's is ~150): kept as its start,
 * "…" and its end, decoded before it is fitted. It was cut at 127 bytes: JSON, CSV, the metrics'
 * mount label and the MOUNT column (its tail) showed a path that is not there, its last
 * component lost, here with a 2-byte character cut in two.
 */
static void long_mount_point(void **st)
{
	char mi[1024], want_end[] = "/pvc-0f3b2c1e-aaaa-bbbb-cccc-1234567890ab/mount", full[512], pad[200];
	struct wb_bdi b[1];
	struct wb_sample s;
	size_t n;

	(void)st;
	memset(pad, 'x', 120);
	pad[120] = '\0';
	/* an "é" across the start's cut (byte 62) and one across the end's (62 bytes from the end);
	 * \040 (a space) decodes to one byte */
	snprintf(full, sizeof(full), "/var/lib/kubelet/pods/%.39s\303\251 %.100s\303\251%.15s%s", pad, pad, pad, want_end);
	snprintf(mi, sizeof(mi), "36 25 7:5 / /var/lib/kubelet/pods/%.39s\303\251\\040%.100s\303\251%.15s%s rw,relatime "
		 "shared:1 - ext4 /dev/loop5 rw\n", pad, pad, pad, want_end);
	memset(b, 0, sizeof(b));
	memset(&s, 0, sizeof(s));
	snprintf(b[0].name, sizeof(b[0].name), "7:5");
	s.bdis = b;
	s.nbdis = 1;
	wb_mountinfo_attach(mi, &s);
	assert_int_equal(b[0].nmounts, 1);
	n = strlen(b[0].mounts[0]);
	assert_true(n < WB_PATH_LEN);
	assert_true(n > WB_PATH_LEN - 8); /* the room used */
	assert_true(utf8_whole(b[0].mounts[0]));
	assert_non_null(strstr(b[0].mounts[0], "\u2026"));
	assert_int_equal(strncmp(b[0].mounts[0], full, 61), 0);                                 /* its start */
	assert_string_equal(b[0].mounts[0] + n - strlen(want_end), want_end);                   /* its end */
	assert_null(strchr(b[0].mounts[0], '\\'));                                             /* decoded */
	/* one that fits is kept whole */
	snprintf(mi, sizeof(mi), "36 25 7:5 / /mnt/a\\040b rw - ext4 /dev/loop5 rw\n");
	b[0].nmounts = 0;
	wb_mountinfo_attach(mi, &s);
	assert_string_equal(b[0].mounts[0], "/mnt/a b");
}

/*
 * --until-clean's device: a block device a btrfs BDI writes for is that BDI, even with no
 * mount attached to it (a two-device btrfs mounted by its other member): the device's own
 * BDI, clean, said "clean" while btrfs-30 held 40M.
 */
static void until_find_prefers_fs_bdi(void **st)
{
	struct wb_bdi b[3];
	struct wb_sample s;

	(void)st;
	memset(b, 0, sizeof(b));
	memset(&s, 0, sizeof(s));
	snprintf(b[0].name, sizeof(b[0].name), "7:340"), snprintf(b[0].dev, sizeof(b[0].dev), "loop340");
	snprintf(b[1].name, sizeof(b[1].name), "7:341"), snprintf(b[1].dev, sizeof(b[1].dev), "loop341");
	snprintf(b[2].name, sizeof(b[2].name), "btrfs-30"), snprintf(b[2].dev, sizeof(b[2].dev), "loop341");
	s.bdis = b;
	s.nbdis = 3;
	assert_int_equal(wb_until_find(&s, "/dev/loop341"), 2);
	assert_int_equal(wb_until_find(&s, "loop341"), 2);
	assert_int_equal(wb_until_find(&s, "7:341"), 1); /* a BDI named is that BDI */
	assert_int_equal(wb_until_find(&s, "loop340"), 0);
	b[1].nmounts = 1; /* the device's own BDI mounted (not this btrfs): still the btrfs */
	assert_int_equal(wb_until_find(&s, "loop341"), 2);
}

/*
 * --until-clean PATH: the mount of the path's file system as df finds it:
 * st_dev's entries only, the longest mount point above the path (as a
 * path: /mnt is not above /mntx), of equal ones the last (stacked on top).
 */
static void mount_of_path(void **st)
{
	static const char mi[] =
		"26 1 254:0 / / rw - ext4 /dev/vda rw\n"
		"30 26 0:27 / /tmp rw - tmpfs tmpfs rw\n"
		"40 26 7:1 / /mnt rw - ext4 /dev/loop1 rw\n"
		"41 26 254:0 /srv /mntx rw - ext4 /dev/vda rw\n"
		"42 26 254:0 /srv /my\\040dir rw - ext4 /dev/vda rw\n"
		"43 40 7:2 / /mnt/in rw - xfs /dev/loop2 rw\n"
		"44 40 7:3 / /mnt/in rw - xfs /dev/loop3 rw\n"
		"garbage line\n";
	/* device, path: found?, the mount point and source wanted (NULL: not checked) */
	static const struct { const char *dev, *path; bool found; const char *mnt, *src; } c[] = {
		{ "254:0", "/tmp/x", true, "/", "/dev/vda" },      /* not tmpfs's /tmp: st_dev's only */
		{ "254:0", "/mntx/a", true, "/mntx", NULL },
		{ "254:0", "/my dir/f", true, "/my dir", NULL },   /* \040 decoded */
		{ "7:1", "/mnt/a/b", true, "/mnt", "/dev/loop1" },
		{ "7:3", "/mnt/in", true, NULL, "/dev/loop3" },    /* stacked: the last */
		{ "7:1", "/mntx", false, NULL, NULL },             /* /mnt is not above /mntx */
		{ "9:9", "/", false, NULL, NULL },
	};
	char buf[sizeof(mi)], mnt[WB_PATH_LEN], src[WB_PATH_LEN];

	(void)st;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		memcpy(buf, mi, sizeof(mi)); /* cut in place */
		assert_int_equal(wb_mount_of(buf, c[i].dev, c[i].path, mnt, sizeof(mnt), src, sizeof(src)), c[i].found);
		if (c[i].mnt)
			assert_string_equal(mnt, c[i].mnt);
		if (c[i].src)
			assert_string_equal(src, c[i].src);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writing_618),
		cmocka_unit_test(old_kernel_shapes),
		cmocka_unit_test(damaged_files_named),
		cmocka_unit_test(out_of_descriptors),
		cmocka_unit_test(listing_follows_changes),
		cmocka_unit_test(stats_unread_said_once),
		cmocka_unit_test(ring_and_rates),
		cmocka_unit_test(copy_reuses_or_replaces),
		cmocka_unit_test(lerp_between_samples),
		cmocka_unit_test(until_find_prefers_fs_bdi),
		cmocka_unit_test(long_mount_point),
		cmocka_unit_test(mount_of_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
