// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsers: the key/value table parser, kept-open files, zoneinfo shapes. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"

#include "wbtop/bdi.h"
#include "wbtop/kvfile.h"
#include "wbtop/procfs.h"
#include "wbtop/util.h"
#include "wbtop/zoneinfo.h"

enum { K_A, K_B, K_SUM, K_HEX };
static const struct wb_kv_key tab[] = { /* keys with their length, and without (0: computed) */
	WB_KV("alpha", K_A, WB_KV_NUM, false, true),
	{ "Beta", K_B, WB_KV_KB, false, true, 0 },
	WB_KV("pgscan_", K_SUM, WB_KV_NUM, true, false),
	{ "state", K_HEX, WB_KV_HEX, false, false, 0 },
};

static void kv_units_and_sums(void **st)
{
	uint64_t v[4] = { 0 }, valid = 0;
	struct wb_diag d = { 0 };
	(void)st;
	int n = wb_kv_parse("unknown 5\nalpha 42\nNode 0 Beta:  8 kB\npgscan_a 3\npgscan_b 4\nstate: 1f\n",
			    tab, 4, 4096, v, &valid, "t", &d);
	assert_int_equal(n, 5);
	assert_int_equal(d.n, 0);
	assert_int_equal(v[K_A], 42);
	assert_int_equal(v[K_B], 2);          /* 8 kB = 2 pages of 4 KiB */
	assert_int_equal(v[K_SUM], 7);
	assert_int_equal(v[K_HEX], 0x1f);
	assert_int_equal(valid, 0xf);
}

static void kv_bad_values_named(void **st)
{
	uint64_t v[4] = { 0 }, valid = 0;
	struct wb_diag d = { 0 };
	(void)st;
	wb_kv_parse("alpha 12x\nBeta 99999999999999999999999 kB\n", tab, 4, 4096, v, &valid, "f.txt", &d);
	assert_true(diag_has(&d, "f.txt:1: alpha: bad value"));
	assert_true(diag_has(&d, "f.txt:2: Beta: bad value"));
	assert_true(diag_has(&d, "no usable \"alpha\""));
	assert_int_equal(valid, 0);
}

static void kv_truncated_and_empty(void **st)
{
	uint64_t v[4] = { 0 }, valid = 0;
	struct wb_diag d = { 0 };
	(void)st;
	wb_kv_parse("alpha 1\nBe", tab, 4, 4096, v, &valid, "t", &d);
	assert_int_equal(valid, 1);
	assert_true(diag_has(&d, "no usable \"Beta\""));
	wb_diag_clear(&d);
	valid = 0;
	assert_int_equal(wb_kv_parse("", tab, 4, 4096, v, &valid, "t", &d), 0);
	assert_int_equal(d.n, 2);
}

/*
 * The index's edges: keys under four bytes (not hashed), a key that starts
 * another (same first four bytes: one chain), one ending the string, one cut
 * short by the string's end, and a line that shares a key's first four bytes
 * only.
 */
static void kv_index_edges(void **st)
{
	enum { X_MIN, X_LOW, X_DIRTY, X_DIRTIED, X_DIRTY_T, X_SUM, X_N };
	static const struct wb_kv_key t2[] = {
		WB_KV("min", X_MIN, WB_KV_NUM, false, false), WB_KV("lo", X_LOW, WB_KV_NUM, false, false),
		WB_KV("nr_dirty", X_DIRTY, WB_KV_NUM, false, false),
		WB_KV("nr_dirtied", X_DIRTIED, WB_KV_NUM, false, false),
		WB_KV("nr_dirty_threshold", X_DIRTY_T, WB_KV_NUM, false, false),
		WB_KV("nr_d", X_SUM, WB_KV_NUM, true, false), /* after the exact ones: they win */
	};
	uint64_t v[X_N] = { 0 }, valid = 0;
	struct wb_diag d = { 0 };
	(void)st;
	assert_int_equal(wb_kv_parse("mi 9\nmin 1\nminimum 9\nlo: 2\nnr_dirty 3\nnr_dirtied 4\n"
				     "nr_dirty_threshold 5\nnr_dirty_x 6\nnr_dx 7\nnr_e 9\nnr_",
				     t2, X_N, 4096, v, &valid, "t", &d), 7);
	assert_int_equal(d.n, 0);
	assert_int_equal(v[X_MIN], 1);
	assert_int_equal(v[X_LOW], 2);
	assert_int_equal(v[X_DIRTY], 3);
	assert_int_equal(v[X_DIRTIED], 4);
	assert_int_equal(v[X_DIRTY_T], 5);
	assert_int_equal(v[X_SUM], 13); /* nr_dirty_x and nr_dx */
	valid = 0;
	assert_int_equal(wb_kv_parse("lo 8", t2, X_N, 4096, v, &valid, "t", &d), 1); /* no newline */
	assert_int_equal(v[X_LOW], 8);
	assert_int_equal(wb_kv_parse("nr_dirty", t2, X_N, 4096, v, &valid, "t", &d), 0); /* key, no value */
	assert_true(diag_has(&d, "t:1: nr_dirty: bad value"));
}

static void kvfile_refuses_huge_file(void **st)
{
	char path[] = "/tmp/wbtop-huge-XXXXXX";
	int fd = mkstemp(path);
	struct wb_kvfile f;
	struct wb_diag d = { 0 };
	(void)st;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 10 << 20), 0); /* a 10 MB "kernel file" */
	close(fd);
	assert_int_equal(wb_kvfile_init(&f, path), 0);
	assert_int_equal(wb_kvfile_read(&f, &d), -EFBIG);
	assert_true(diag_has(&d, "larger than"));
	wb_kvfile_finish(&f);
	unlink(path);
}

static void kvfile_rereads_with_kept_fd(void **st)
{
	char path[] = "/tmp/wbtop-kv-XXXXXX";
	int fd = mkstemp(path);
	struct wb_kvfile f;
	uint64_t v;
	(void)st;
	assert_int_equal(write(fd, "17\n", 3), 3);
	assert_int_equal(wb_kvfile_init(&f, path), 0);
	assert_int_equal(wb_kvfile_u64(&f, NULL, &v), 0);
	assert_int_equal(v, 17);
	assert_int_equal(pwrite(fd, "23\n", 3, 0), 3);
	assert_int_equal(wb_kvfile_u64(&f, NULL, &v), 0);
	assert_int_equal(v, 23);
	assert_int_equal(pwrite(fd, "zz\n", 3, 0), 3);
	assert_int_equal(wb_kvfile_u64(&f, NULL, &v), -EINVAL);
	close(fd);
	wb_kvfile_finish(&f);
	unlink(path);
	assert_int_equal(wb_kvfile_init(&f, "/nonexistent/wbtop"), 0);
	assert_int_equal(wb_kvfile_read(&f, NULL), -ENOENT);
	wb_kvfile_finish(&f);
}

/* A file made in one piece is read whole with one pread a time, and re-read whole when it shrinks. */
static void kvfile_one_shot_reads_whole_file(void **st)
{
	char path[] = "/tmp/wbtop-kv1-XXXXXX", big[10000];
	int fd = mkstemp(path);
	struct wb_kvfile f;
	(void)st;
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = i % 50 == 49 ? '\n' : (char)('a' + i % 26);
	assert_int_equal(write(fd, big, sizeof(big)), (ssize_t)sizeof(big));
	for (int one = 0; one <= 1; one++) {
		assert_int_equal(wb_kvfile_init(&f, path), 0);
		f.one_shot = one;
		assert_int_equal(wb_kvfile_read(&f, NULL), 0); /* larger than the first 4 KiB buffer */
		assert_int_equal(f.len, sizeof(big));
		assert_memory_equal(f.buf, big, sizeof(big));
		assert_int_equal(wb_kvfile_read(&f, NULL), 0); /* the kept descriptor, from 0 again */
		assert_int_equal(f.len, sizeof(big));
		wb_kvfile_finish(&f);
	}
	assert_int_equal(wb_kvfile_init(&f, path), 0);
	f.one_shot = true;
	assert_int_equal(wb_kvfile_read(&f, NULL), 0);
	assert_int_equal(ftruncate(fd, 100), 0);
	assert_int_equal(wb_kvfile_read(&f, NULL), 0);
	assert_int_equal(f.len, 100);
	assert_memory_equal(f.buf, big, 100);
	close(fd);
	wb_kvfile_finish(&f);
	unlink(path);
}

/* A failed open is repeated from memory for WB_KVFILE_RETRY reads, then tried again. */
static void kvfile_failed_open_retried_later(void **st)
{
	char dir[] = "/tmp/wbtop-kv2-XXXXXX", path[64];
	struct wb_kvfile f;
	uint64_t v;
	int fd;
	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/late", dir);
	assert_int_equal(wb_kvfile_init(&f, path), 0);
	assert_int_equal(wb_kvfile_read(&f, NULL), -ENOENT);
	fd = open(path, O_CREAT | O_WRONLY, 0644); /* the file appears */
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "5\n", 2), 2);
	close(fd);
	for (unsigned i = 0; i < WB_KVFILE_RETRY; i++)
		assert_int_equal(wb_kvfile_read(&f, NULL), -ENOENT);
	assert_int_equal(wb_kvfile_u64(&f, NULL, &v), 0);
	assert_int_equal(v, 5);
	wb_kvfile_finish(&f);
	unlink(path);
	rmdir(dir);
}

static void cpulist(void **st)
{
	(void)st;
	assert_int_equal(wb_cpulist_count("0-1\n"), 2);
	assert_int_equal(wb_cpulist_count("0-3,8,10-11"), 7);
	assert_int_equal(wb_cpulist_count("x"), 0);
	assert_int_equal(wb_cpulist_count("3-1"), 0);
}

static void path_join(void **st)
{
	char *p;
	(void)st;
	p = wb_path_join("/", "/proc/vmstat");
	assert_string_equal(p, "/proc/vmstat");
	free(p);
	p = wb_path_join("fix/", "/proc/vmstat");
	assert_string_equal(p, "fix/proc/vmstat");
	free(p);
}

/*
 * Text a person gave, quoted in a message: escapes for what a terminal would
 * act on or hide, cut in the middle when long, never inside an escape.
 */
static void quote_text(void **st)
{
	char b[WB_QUOTE_LEN], small[24], big[600];
	(void)st;
	assert_string_equal(wb_quote("\x1b[2J5", b, sizeof(b)), "\\e[2J5");
	assert_string_equal(wb_quote("a\nb\tc\rd\x7f\x01", b, sizeof(b)), "a\\nb\\tc\\rd\\x7f\\x01");
	assert_string_equal(wb_quote("\xc2\x9b" "31m", b, sizeof(b)), "\\u009b31m");           /* C1 CSI */
	assert_string_equal(wb_quote("txt\xe2\x80\xae" "exe", b, sizeof(b)), "txt\\u202eexe"); /* RLO */
	assert_string_equal(wb_quote("\xff\xc0\xaf", b, sizeof(b)), "\\xff\\xc0\\xaf");        /* not UTF-8 */
	assert_string_equal(wb_quote("caf\xc3\xa9 \xe2\x80\xa6 /a b", b, sizeof(b)), "caf\xc3\xa9 \xe2\x80\xa6 /a b");
	/* quoting twice reads the same: a backslash is kept */
	assert_string_equal(wb_quote("\\e[2J", b, sizeof(b)), "\\e[2J");
	assert_string_equal(wb_quote(wb_quote("x\ny", small, sizeof(small)), b, sizeof(b)), "x\\ny");
	/* long: its start, "...", its end, within the buffer, no escape cut */
	assert_string_equal(wb_quote("/a/very/long/path/to/the/file.wbrec", small, sizeof(small)),
			    "/a/very/lo...file.wbrec");
	memset(big, '\x1b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	wb_quote(big, small, sizeof(small));
	assert_true(strlen(small) <= sizeof(small) - 1);
	assert_non_null(strstr(small, "..."));
	for (char *c = small; *c; c++)
		assert_true(*c >= 0x20 && *c < 0x7f);
	assert_string_equal(wb_quote(big, small, 6), "\\e\\e"); /* too small for the marker: cut */
	assert_string_equal(wb_quote("", b, sizeof(b)), "");
}

/* Clock times: one or two digits a field, digits only, each field in its range (no :60). */
/* BDI names in order: MAJ:MIN by number, the rest by name after them; 0 only for one name. */
static void bdi_name_order(void **st)
{
	(void)st;
	assert_true(wb_bdi_name_cmp("7:2", "7:10") < 0);
	assert_true(wb_bdi_name_cmp("259:0", "btrfs-1") < 0);
	assert_true(wb_bdi_name_cmp("btrfs-1", "btrfs-2") < 0);
	assert_int_equal(wb_bdi_name_cmp("7:1", "7:1"), 0);
	/* one number, two names: a search by this order told them apart by chance */
	assert_true(wb_bdi_name_cmp("7:01", "7:1") < 0);
	assert_true(wb_bdi_name_cmp("7:1", "7:01") > 0);
}

static void clock_fields(void **st)
{
	static const char *const bad_form[] = { "12", "12:", ":30", "123:00", "12:5:", "12: 5", "12:+5", "1:-0",
						"12:00:00:00", "1::2", "12:00x", "" };
	int hms[3];
	char why[64];

	(void)st;
	assert_int_equal(wb_clock_parse("7:05", hms, why, sizeof(why)), 0);
	assert_true(hms[0] == 7 && hms[1] == 5 && hms[2] == 0);
	assert_int_equal(wb_clock_parse("23:59:59", hms, why, sizeof(why)), 0);
	assert_true(hms[0] == 23 && hms[1] == 59 && hms[2] == 59);
	for (size_t i = 0; i < sizeof(bad_form) / sizeof(bad_form[0]); i++)
		if (wb_clock_parse(bad_form[i], hms, why, sizeof(why)) != -1)
			fail_msg("'%s' taken as a clock time", bad_form[i]);
	assert_int_equal(wb_clock_parse("12:00:60", hms, why, sizeof(why)), 1);
	assert_string_equal(why, "seconds 60 out of range 0-59");
	assert_int_equal(wb_clock_parse("12:60", hms, why, sizeof(why)), 1);
	assert_string_equal(why, "minutes 60 out of range 0-59");
	assert_int_equal(wb_clock_parse("24:00", hms, NULL, 0), 1);
}

static char *slurp(const char *rel)
{
	char path[512];
	FILE *f;
	char *buf = calloc(1, 1 << 20);
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static const struct wb_zone *zone(const struct wb_zone *z, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(z[i].name, name) == 0)
			return &z[i];
	return NULL;
}

static void zoneinfo_618(void **st)
{
	char *buf = slurp("6.18-idle/proc/zoneinfo");
	struct wb_node *nodes;
	struct wb_zone *zones;
	size_t nn, nz;
	struct wb_diag d = { 0 };
	(void)st;
	assert_int_equal(wb_zoneinfo_parse(buf, "z", &nodes, &nn, &zones, &nz, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(nn, 1);
	assert_int_equal(nz, 5);
	const struct wb_zone *dma = zone(zones, nz, "DMA");
	assert_non_null(dma);
	assert_int_equal(dma->v[WB_Z_HIGH], 85);      /* values as in the captured file */
	assert_int_equal(dma->v[WB_Z_MANAGED], 3840);
	assert_int_equal(dma->v[WB_Z_PROTECTION], 4426);
	assert_true(WB_HAS(nodes[0].valid, WB_N_DIRTY));
	assert_true(WB_HAS(zone(zones, nz, "Normal")->valid, WB_Z_WRITE_PENDING));
	free(nodes);
	free(zones);
	free(buf);
}

static void zoneinfo_44_sums_zone_counters(void **st)
{
	char *buf = slurp("4.4-handmade/proc/zoneinfo");
	struct wb_node *nodes;
	struct wb_zone *zones;
	size_t nn, nz;
	struct wb_diag d = { 0 };
	(void)st;
	assert_int_equal(wb_zoneinfo_parse(buf, "z", &nodes, &nn, &zones, &nz, &d), 0);
	assert_int_equal(nz, 3);
	assert_int_equal(nodes[0].v[WB_N_DIRTY], 4000);      /* 0 + 1200 + 2800 */
	assert_int_equal(nodes[0].v[WB_N_WRITEBACK], 400);
	assert_int_equal(nodes[0].v[WB_N_INACTIVE_FILE], 300000);
	assert_int_equal(zone(zones, nz, "DMA")->v[WB_Z_PROTECTION], 7885);
	free(nodes);
	free(zones);
	free(buf);
}

/* Zone header lines in the kernel's shape and in others sscanf reads alike: the same zones. */
static void zoneinfo_zone_heads(void **st)
{
	static const struct {
		const char *line;
		int node;
		const char *name;
	} heads[] = {
		{ "Node 0, zone      DMA", 0, "DMA" },
		{ "Node 1, zone Normal", 1, "Normal" },
		{ "Node 007, zone Movable", 7, "Movable" },
		{ "Node 2, zone ABCDEFGHIJKLMNOPQRSTUVWXYZ", 2, "ABCDEFGHIJKLMNO" }, /* cut to 15 */
		{ "Node  3, zone X", 3, "X" },                                     /* two blanks */
		{ "Node 4,zone\tY trailing", 4, "Y" },                              /* sscanf's shapes */
		{ "Node 5, zone ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 5, "ABCDEFGHIJKLMNO" },
	};
	struct wb_node *nodes;
	struct wb_zone *zones;
	size_t nn, nz;
	struct wb_diag d = { 0 };
	char buf[1024] = "";
	(void)st;
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		strcat(buf, heads[i].line);
		strcat(buf, "\n        min 3\n");
	}
	assert_int_equal(wb_zoneinfo_parse(buf, "z", &nodes, &nn, &zones, &nz, &d), 0);
	assert_int_equal(nz, sizeof(heads) / sizeof(heads[0]));
	for (size_t i = 0; i < nz; i++) {
		assert_int_equal(zones[i].node, heads[i].node);
		assert_string_equal(zones[i].name, heads[i].name);
		assert_int_equal(zones[i].v[WB_Z_MIN], 3);
	}
	free(nodes);
	free(zones);
}

/*
 * More zones than a recording's frame holds (a tree's, 5000 in one node): the
 * first WB_MAX_ITEMS, the rest named as ignored. The recorder wrote all of
 * them and its reader refused the sample as damage ("zone count").
 */
static void zoneinfo_too_many_zones(void **st)
{
	struct wb_node *nodes;
	struct wb_zone *zones;
	size_t nn, nz, len = 0, cap = 5000 * 40;
	struct wb_diag d = { 0 };
	char *buf = malloc(cap);
	(void)st;
	assert_non_null(buf);
	for (int i = 0; i < 5000; i++)
		len += (size_t)snprintf(buf + len, cap - len, "Node 0, zone Z%d\n        min 3\n", i);
	assert_int_equal(wb_zoneinfo_parse(buf, "z", &nodes, &nn, &zones, &nz, &d), 0);
	assert_int_equal(nz, WB_MAX_ITEMS);
	assert_true(diag_has(&d, "more than 4096 zones; rest ignored"));
	free(nodes);
	free(zones);
	free(buf);
}

/* The last node of a sysfs node list: zoneinfo's last record (one pread a sample, not two). */
static void node_list_last(void **st)
{
	(void)st;
	assert_int_equal(wb_node_list_last("0\n"), 0);
	assert_int_equal(wb_node_list_last("0-3\n"), 3);
	assert_int_equal(wb_node_list_last("0-1,4,6-7"), 7);
	assert_int_equal(wb_node_list_last(""), -1);
	assert_int_equal(wb_node_list_last("\n"), -1);
	assert_int_equal(wb_node_list_last("x"), -1);
	assert_int_equal(wb_node_list_last("0-"), -1);
	assert_int_equal(wb_node_list_last("3-1"), -1);
	assert_int_equal(wb_node_list_last("0-64"), -1); /* past WB_MAX_NODES: unknown */
	assert_int_equal(wb_node_list_last("0 1"), -1);
}

static void zoneinfo_garbage(void **st)
{
	struct wb_node *nodes;
	struct wb_zone *zones;
	size_t nn, nz;
	struct wb_diag d = { 0 };
	(void)st;
	assert_int_equal(wb_zoneinfo_parse("junk\n\n\xff\xfe\nNode 9999, zone X\n", "z", &nodes, &nn,
					   &zones, &nz, &d), 0);
	assert_int_equal(nz, 0);
	assert_true(diag_has(&d, "out of range"));
	wb_diag_clear(&d);
	assert_int_equal(wb_zoneinfo_parse("Node 0, zone DMA\n  pages free zz\n protection: (1, x\n",
					   "z", &nodes, &nn, &zones, &nz, &d), 0);
	assert_int_equal(nz, 1);
	assert_true(diag_has(&d, "bad \"pages free\""));
	assert_true(diag_has(&d, "bad protection"));
	free(nodes);
	free(zones);
	/* a bad counter is named with its line */
	wb_diag_clear(&d);
	assert_int_equal(wb_zoneinfo_parse("Node 0, zone DMA\n  pages free 1\n        min 5\n  nr_zone_write_pending 7x\n",
					   "z", &nodes, &nn, &zones, &nz, &d), 0);
	assert_int_equal(nz, 1);
	assert_int_equal(zones[0].v[WB_Z_MIN], 5);
	assert_false(WB_HAS(zones[0].valid, WB_Z_WRITE_PENDING));
	assert_true(diag_has(&d, "z:4: nr_zone_write_pending: bad value \"7x\""));
	free(nodes);
	free(zones);
}

/*
 * debugfs stats and wb_stats of one BDI, read one after the other on 6.18
 * (254:0: its one wb, the root's, with dirty inodes, state 5; 7:0: none,
 * state 1, so BdiWriteBandwidth is 0 while WbWriteBandwidth is not).
 */
static const char stats_254[] =
	"BdiWriteback:               12 kB\nBdiReclaimable:           1768 kB\n"
	"BdiDirtyThresh:        4840836 kB\nDirtyThresh:           4840836 kB\n"
	"BackgroundThresh:      2417460 kB\nBdiDirtied:            3967664 kB\n"
	"BdiWritten:            3246944 kB\nBdiWriteBandwidth:         272 kBps\n"
	"b_dirty:                   465\nb_io:                        0\nb_more_io:                   0\n"
	"b_dirty_time:                0\nbdi_list:                    1\nstate:                       5\n";
static const char wb_254[] =
	"WbCgIno:                    1\nWbWriteback:               12 kB\nWbReclaimable:           1768 kB\n"
	"WbDirtyThresh:        4840836 kB\nWbDirtied:            3967664 kB\nWbWritten:            3246944 kB\n"
	"WbWriteBandwidth:         272 kBps\nb_dirty:                  465\nb_io:                       0\n"
	"b_more_io:                  0\nb_dirty_time:               0\nstate:                      5\n\n";
static const char stats_70[] =
	"BdiWriteback:                0 kB\nBdiReclaimable:              0 kB\n"
	"BdiDirtyThresh:         604872 kB\nDirtyThresh:           4840820 kB\n"
	"BackgroundThresh:      2417456 kB\nBdiDirtied:            2176172 kB\n"
	"BdiWritten:            2118792 kB\nBdiWriteBandwidth:           0 kBps\n"
	"b_dirty:                     0\nb_io:                        0\nb_more_io:                   0\n"
	"b_dirty_time:                0\nbdi_list:                    1\nstate:                       1\n";
static const char wb_70[] =
	"WbCgIno:                    1\nWbWriteback:                0 kB\nWbReclaimable:              0 kB\n"
	"WbDirtyThresh:         604872 kB\nWbDirtied:            2176172 kB\nWbWritten:            2118792 kB\n"
	"WbWriteBandwidth:       10796 kBps\nb_dirty:                    0\nb_io:                       0\n"
	"b_more_io:                  0\nb_dirty_time:               0\nstate:                      1\n\n";

/* wb_stats (and vmstat's thresholds) give stats' every figure; both pages sizes. */
static void wb_stats_stand_for_stats(void **st)
{
	static const struct { const char *stats, *wb; } pairs[] = { { stats_254, wb_254 }, { stats_70, wb_70 } };
	(void)st;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		for (uint32_t ps = 4096; ps <= 65536; ps *= 16) {
			uint64_t a[WB_B_COUNT] = { 0 }, b[WB_B_COUNT] = { 0 }, av = 0, bv = 0;
			struct wb_bdi_wbsum sum;
			struct wb_sample s;
			struct wb_diag d = { 0 };
			char *wb = strdup(pairs[i].wb);

			wb_bdi_parse_stats(pairs[i].stats, ps, a, &av, "stats", &d);
			wb_sample_init(&s);
			s.page_size = ps;
			s.g.v[WB_G_DIRTY_THRESH] = a[WB_B_DIRTY_THRESH]; /* vmstat's, as read at the same moment */
			s.g.v[WB_G_BG_THRESH] = a[WB_B_BG_THRESH];
			s.g.valid = WB_BIT(WB_G_DIRTY_THRESH) | WB_BIT(WB_G_BG_THRESH);
			wb_bdi_parse_wb_stats(wb, ps, b, &bv, &sum, "wb_stats", &d);
			assert_true(wb_bdi_stats_from_wb(&sum, &s, b, &bv));
			assert_int_equal(d.n, 0);
			for (int k = 0; k < WB_B_COUNT; k++) {
				if (!WB_HAS(av, k))
					continue;
				if (!WB_HAS(bv, k) || a[k] != b[k])
					fail_msg("pair %zu page %u field %d: stats %llu wb_stats %llu", i, ps, k,
						 (unsigned long long)a[k], (unsigned long long)b[k]);
			}
			assert_int_equal(b[WB_B_NR_WBS], 1);
			assert_int_equal(b[WB_B_WB_BW], i == 0 ? 272 * 1024 / ps : 10796 * 1024 / ps);
			free(wb);
			wb_sample_finish(&s);
		}
}

/* Where wb_stats cannot stand for stats: it says so and stats is read. */
static void wb_stats_not_enough(void **st)
{
	uint64_t v[WB_B_COUNT] = { 0 }, valid = 0;
	struct wb_bdi_wbsum sum;
	struct wb_sample s;
	struct wb_diag d = { 0 };
	char two[2048], *p;
	(void)st;
	wb_sample_init(&s);
	s.page_size = 4096;
	s.g.valid = WB_BIT(WB_G_DIRTY_THRESH) | WB_BIT(WB_G_BG_THRESH);
	/* a cgroup's wb too: its WbDirtyThresh may be its memcg's, so BdiDirtyThresh is not the sum */
	snprintf(two, sizeof(two), "%s%s", wb_254, wb_70);
	p = strstr(two + strlen(wb_254), "WbCgIno:                    1");
	assert_non_null(p);
	memcpy(p, "WbCgIno:                 4284", 29);
	wb_bdi_parse_wb_stats(two, 4096, v, &valid, &sum, "wb_stats", &d);
	assert_int_equal(sum.nwbs, 2);
	assert_false(wb_bdi_stats_from_wb(&sum, &s, v, &valid));
	assert_false(WB_HAS(valid, WB_B_THRESH));
	assert_int_equal(sum.v[WB_B_DIRTIED], (3967664 + 2176172) / 4);  /* the sums are right */
	assert_int_equal(sum.v[WB_B_BDI_BW], 272 / 4);                   /* only the wb with dirty inodes */
	assert_int_equal(sum.v[WB_B_B_DIRTY], 465);
	/* no thresholds from vmstat */
	snprintf(two, sizeof(two), "%s", wb_254);
	s.g.valid = 0;
	wb_bdi_parse_wb_stats(two, 4096, v, &valid, &sum, "wb_stats", &d);
	assert_false(wb_bdi_stats_from_wb(&sum, &s, v, &valid));
	/* a key missing (another kernel's shape) */
	s.g.valid = WB_BIT(WB_G_DIRTY_THRESH) | WB_BIT(WB_G_BG_THRESH);
	snprintf(two, sizeof(two), "%s", wb_254);
	p = strstr(two, "b_dirty_time");
	memcpy(p, "x_", 2);
	wb_bdi_parse_wb_stats(two, 4096, v, &valid, &sum, "wb_stats", &d);
	assert_false(wb_bdi_stats_from_wb(&sum, &s, v, &valid));
	wb_sample_finish(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kv_units_and_sums),
		cmocka_unit_test(kv_bad_values_named),
		cmocka_unit_test(kv_truncated_and_empty),
		cmocka_unit_test(kv_index_edges),
		cmocka_unit_test(kvfile_refuses_huge_file),
		cmocka_unit_test(kvfile_rereads_with_kept_fd),
		cmocka_unit_test(kvfile_one_shot_reads_whole_file),
		cmocka_unit_test(kvfile_failed_open_retried_later),
		cmocka_unit_test(cpulist),
		cmocka_unit_test(path_join),
		cmocka_unit_test(quote_text),
		cmocka_unit_test(clock_fields),
		cmocka_unit_test(zoneinfo_618),
		cmocka_unit_test(node_list_last),
		cmocka_unit_test(zoneinfo_44_sums_zone_counters),
		cmocka_unit_test(zoneinfo_zone_heads),
		cmocka_unit_test(zoneinfo_too_many_zones),
		cmocka_unit_test(zoneinfo_garbage),
		cmocka_unit_test(wb_stats_stand_for_stats),
		cmocka_unit_test(wb_stats_not_enough),
		cmocka_unit_test(bdi_name_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
