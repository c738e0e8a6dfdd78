// SPDX-License-Identifier: GPL-2.0-or-later
/* Knob values at the kernel's edges, and the journal reader on damaged and hostile journals. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "wbtop/tune.h"
#include "wbtop/whatif.h"

static struct wb_bdi bdis[2] = { { .name = "7:0", .dev = "loop0" }, { .name = "8:16", .dev = "sdb" } };
static struct wb_sample sample;
static char dir[64], root[128], err[1024];

#define GOOD "wbtop-journal 2\npid 7\nvm.dirty_ratio\t20\t15\n"

/* Parse only: the per-knob range. */
static int parse_op(const char *arg, struct wb_setop *op)
{
	err[0] = '\0';
	return wb_setop_parse(arg, &sample, op, err, sizeof(err));
}

static int parse(const char *arg)
{
	struct wb_setop op;

	return parse_op(arg, &op);
}

/* Parse, then apply in order to k as the kernel would (the rules between knobs). */
static int parse_apply(struct wb_settings *k, const char *arg)
{
	static const struct wb_limits cur = { .valid = true, .thresh = 100000, .dirtyable = 500000 };
	struct wb_setop op;
	int rc = parse_op(arg, &op);

	return rc ? rc : wb_settings_apply(k, &cur, 4096, &op, err, sizeof(err));
}

static void sysctl_edges(void **st)
{
	static const struct { const char *arg; bool ok; } cases[] = {
		{ "vm.dirty_ratio=0", true }, { "vm.dirty_ratio=100", true }, { "vm.dirty_ratio=101", false },
		{ "vm.dirty_ratio=500", false }, { "vm.dirty_background_ratio=100%", true },
		{ "vm.dirty_background_ratio=101", false },
		{ "vm.dirty_bytes=8192", true }, { "vm.dirty_bytes=8191", false }, { "vm.dirty_bytes=1", false },
		{ "vm.dirty_bytes=0", false }, /* the kernel's minimum is two pages: 0 is refused too */
		{ "vm.dirty_bytes=17592186040320", true },  /* 2^32-1 pages */
		{ "vm.dirty_bytes=16T", false },            /* 2^32 pages: ERANGE */
		{ "vm.dirty_background_bytes=1", true }, { "vm.dirty_background_bytes=0", false },
		{ "vm.dirty_expire_centisecs=0", true }, { "vm.dirty_expire_centisecs=2147483647", true },
		{ "vm.dirty_expire_centisecs=2147483648", false },
		{ "vm.dirty_expire_centisecs=18446744073709551615", false },
		{ "vm.dirty_expire_centisecs=18446744073709551616", false },
		{ "vm.dirty_writeback_centisecs=4294967296", false },
		{ "vm.dirty_writeback_centisecs=2147483647", true },
		{ "vm.dirty_writeback_centisecs=-1", false },
	};
	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = parse(cases[i].arg);
		if ((rc == 0) != cases[i].ok)
			fail_msg("%s: %s (%s)", cases[i].arg, rc ? "refused" : "accepted", err);
		if (rc && !strstr(err, "vm.dirty_"))
			fail_msg("%s: the message does not name the knob: %s", cases[i].arg, err);
	}
	parse("vm.dirty_ratio=500");
	assert_non_null(strstr(err, "vm.dirty_ratio=500"));
	assert_non_null(strstr(err, "100"));
}

static void bdi_edges(void **st)
{
	static const struct { const char *arg; bool ok; } cases[] = {
		{ "bdi.loop0.min_ratio=100", true }, { "bdi.loop0.min_ratio=101", false },
		{ "bdi.7:0.max_ratio=0", true }, { "bdi.7:0.max_ratio=101", false },
		{ "bdi.loop0.min_ratio_fine=1000000", true }, { "bdi.loop0.min_ratio_fine=1000001", false },
		{ "bdi.sdb.max_ratio_fine=1000001", false },
		{ "bdi.sdb.strict_limit=0", true }, { "bdi.sdb.strict_limit=1", true },
		{ "bdi.sdb.strict_limit=7", false }, { "bdi.sdb.max_bytes=18446744073709551615", true },
	};
	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = parse(cases[i].arg);
		if ((rc == 0) != cases[i].ok)
			fail_msg("%s: %s (%s)", cases[i].arg, rc ? "refused" : "accepted", err);
	}
}

/* Every catalogue entry is found by its name, takes 1 (but dirty_bytes: two pages) and refuses 2^64-1 (but bytes). */
static void every_knob_bounded(void **st)
{
	(void)st;
	for (size_t i = 0; i < wb_knob_count(); i++) {
		const char *name, *range, *help;
		bool is_bdi;
		int knob;

		wb_knob_info(i, &name, &is_bdi, &knob, &range, &help);
		assert_int_equal(wb_knob_find(name, is_bdi), (int)i);
		assert_true(range[0] && help[0]);
		assert_int_equal(wb_knob_check(i, name, 1, 4096, err, sizeof(err)),
				 strcmp(name, "dirty_bytes") == 0 ? -EINVAL : 0);
		/* 2^64-1: the bytes knobs take it (the vm ones as the kernel does, its page check wrapping) */
		assert_int_equal(wb_knob_check(i, name, UINT64_MAX, 4096, err, sizeof(err)),
				 strstr(name, "_bytes") ? 0 : -EINVAL);
		if (!strstr(name, "_bytes"))
			assert_non_null(strstr(err, name));
		/* 2^64-4096: past the wrap, the kernel's ERANGE */
		if (strstr(name, "_bytes") && !is_bdi) {
			assert_int_equal(wb_knob_check(i, name, UINT64_MAX - 4095, 4096, err, sizeof(err)), -ERANGE);
			assert_non_null(strstr(err, name));
		}
	}
	assert_int_equal(wb_knob_find("dirty_ratio", true), -1);
	assert_int_equal(wb_knob_find("../dirty_ratio", false), -1);
}

static void cross_knob_rules(void **st)
{
	struct wb_settings k;
	(void)st;
	assert_int_equal(wb_settings_from_sample(&k, &sample), 0);
	assert_int_equal(parse_apply(&k, "bdi.loop0.max_ratio=10"), 0);
	assert_int_not_equal(parse_apply(&k, "bdi.loop0.min_ratio=20"), 0); /* min above max */
	assert_non_null(strstr(err, "max"));
	assert_int_equal(parse_apply(&k, "bdi.loop0.max_ratio=100"), 0);
	assert_int_equal(parse_apply(&k, "bdi.loop0.min_ratio=60"), 0);
	assert_int_not_equal(parse_apply(&k, "bdi.sdb.min_ratio=40"), 0); /* the sum would reach 100 % */
	assert_int_equal(parse_apply(&k, "bdi.sdb.min_ratio=39"), 0);
	wb_settings_finish(&k);
}

/* A file under dir with text (len bytes). */
static void put(const char *name, const char *text, size_t len)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/* Read the journal "j" under dir against the fixture root; the rc, the message in err. */
static int read_j(struct wb_tune *t)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/j", dir);
	err[0] = '\0';
	return wb_tune_read(t, p, root, err, sizeof(err));
}

static int journal_setup(void **st)
{
	char p[512];

	(void)st;
	snprintf(dir, sizeof(dir), "/tmp/wbtop-tune-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(p, sizeof(p), "mkdir -p %s/proc/sys/vm %s/sys/class/bdi/7:0 && echo 20 > %s/proc/sys/vm/dirty_ratio",
		 root, root, root);
	return system(p);
}

static int journal_teardown(void **st)
{
	char p[512];

	(void)st;
	snprintf(p, sizeof(p), "rm -rf %s", dir);
	return system(p);
}

static void journal_good(void **st)
{
	static struct wb_tune t;
	static const char v2[] = "wbtop-journal 2\npid 12345\nvm.dirty_ratio\t20\t15\nbdi.7:0.max_ratio_fine\t1000000\t400000\n";
	static const char v1[] = "wbtop-journal 1\npid 7\n/proc/sys/vm/dirty_bytes\t0\t8192\n";
	static const char v3[] = "wbtop-journal 3\npid 7\nvm.dirty_ratio\t20\t15\t15\nvm.dirty_bytes\t0\t0\t\n";
	(void)st;
	put("j", v2, sizeof(v2) - 1);
	assert_int_equal(read_j(&t), 1);
	assert_int_equal(t.pid, 12345);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.e[0].key, "vm.dirty_ratio");
	assert_string_equal(t.e[0].orig, "20");
	assert_string_equal(t.e[0].want, "15");
	assert_non_null(strstr(t.e[1].path, "/root/sys/class/bdi/7:0/max_ratio_fine"));
	assert_true(strncmp(t.e[0].path, root, strlen(root)) == 0);
	put("j", v1, sizeof(v1) - 1); /* the version before keys: its paths mapped back to keys */
	assert_int_equal(read_j(&t), 1);
	assert_string_equal(t.e[0].key, "vm.dirty_bytes");
	assert_string_equal(t.e[0].after, ""); /* versions 1 and 2 do not know it */
	/* version 3: what each knob read after the change, for a recovery to leave one changed since */
	put("j", v3, sizeof(v3) - 1);
	assert_int_equal(read_j(&t), 1);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.e[0].want, "15");
	assert_string_equal(t.e[0].after, "15");
	assert_string_equal(t.e[1].key, "vm.dirty_bytes");
	assert_string_equal(t.e[1].after, ""); /* died before the record: unknown */
	put("j", "wbtop-journal 2\npid 7\n", 22);
	assert_int_equal(read_j(&t), 0);
	unlink(t.journal);
	assert_int_equal(read_j(&t), 0); /* none */
}

static void journal_hostile(void **st)
{
	static const struct { const char *what, *text, *says; } cases[] = {
		{ "a path outside the knobs", "wbtop-journal 1\npid 7\n/tmp/canary\t0\t1\n", "j:3: \"/tmp/canary\" is not a knob" },
		{ "a knob path with ..", "wbtop-journal 1\npid 7\n/proc/sys/vm/../../../tmp/c\t0\t1\n", "j:3:" },
		{ "a BDI named ..", "wbtop-journal 2\npid 7\nbdi....max_ratio\t0\t1\n", "j:3: \"..\" is not a backing device" },
		{ "a BDI with a slash", "wbtop-journal 2\npid 7\nbdi.7:0/../../x.max_ratio\t0\t1\n", "j:3:" },
		{ "a BDI named with a dot first", "wbtop-journal 1\npid 7\n/sys/class/bdi/..0/min_ratio\t0\t5\n",
		  "j:3: \"..0\" is not a backing device" },
		{ "an unknown knob", "wbtop-journal 2\npid 7\nvm.overcommit_memory\t0\t1\n", "not a knob" },
		{ "a value out of range", "wbtop-journal 2\npid 7\nvm.dirty_ratio\t500\t20\n", "vm.dirty_ratio=500" },
		{ "a value that is not a number", "wbtop-journal 2\npid 7\nvm.dirty_ratio\t20\n\t15\n", "j:3:" },
		{ "a value with a sign", "wbtop-journal 2\npid 7\nvm.dirty_ratio\t-1\t15\n", "not a whole number" },
		{ "four fields", "wbtop-journal 2\npid 7\nvm.dirty_ratio\t20\t15\tx\n", "three fields" },
		{ "a duplicate", "wbtop-journal 2\npid 7\nvm.dirty_ratio\t20\t15\nvm.dirty_ratio\t20\t15\n", "j:4: vm.dirty_ratio appears twice" },
		{ "a cut last line", "wbtop-journal 2\npid 7\nvm.dirty_ratio\t20\t15", "j:3: cut short" },
		{ "no pid", "wbtop-journal 2\n", "no pid" },
		{ "pid 0", "wbtop-journal 2\npid 0\n", "j:2:" },
		{ "another header", "wbtop-journal 4\npid 7\n", "j:1: not a wbtop journal" },
		{ "version 3, three fields", "wbtop-journal 3\npid 7\nvm.dirty_ratio\t20\t15\n", "four fields" },
		{ "version 3, five fields", "wbtop-journal 3\npid 7\nvm.dirty_ratio\t20\t15\t15\t1\n", "four fields" },
		{ "version 3, after out of range", "wbtop-journal 3\npid 7\nvm.dirty_ratio\t20\t15\t500\n",
		  "vm.dirty_ratio=500" },
		{ "empty", "", "empty" },
	};
	static struct wb_tune t;
	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put("j", cases[i].text, strlen(cases[i].text));
		if (read_j(&t) != -1 || t.n != 0 || !strstr(err, cases[i].says) || !strstr(err, "nothing written"))
			fail_msg("%s: not refused as expected: %s", cases[i].what, err);
	}
}

/*
 * A device removed during a trial (a loop device, a stick pulled) took its knobs along: the
 * revert puts the rest back, names it, and removes the journal; a journal left naming it reads
 * with its entry marked gone. Both were failures: "could not put back", and at every later start
 * "no backing device ...; a damaged or foreign journal, nothing written" - the other knobs of
 * that journal never put back.
 */
static void journal_device_gone(void **st)
{
	static const char v3[] = "wbtop-journal 3\npid 7\nvm.dirty_ratio\t20\t15\t15\n"
				 "bdi.7:1.max_ratio_fine\t1000000\t500000\t500000\n";
	static struct wb_tune t;
	char p[600], now[16] = "";
	FILE *f;
	(void)st;
	snprintf(p, sizeof(p), "mkdir -p %s/sys/class/bdi/7:1 && echo 500000 > %s/sys/class/bdi/7:1/max_ratio_fine && "
		 "echo 15 > %s/proc/sys/vm/dirty_ratio", root, root, root);
	assert_int_equal(system(p), 0);
	put("j", v3, sizeof(v3) - 1);
	assert_int_equal(read_j(&t), 1);
	assert_false(t.e[1].gone);
	snprintf(p, sizeof(p), "rm -r %s/sys/class/bdi/7:1", root); /* the device goes mid-trial */
	assert_int_equal(system(p), 0);
	assert_int_equal(wb_tune_revert(&t, err, sizeof(err)), 0);
	assert_string_equal(t.gone, "7:1");
	snprintf(p, sizeof(p), "%s/proc/sys/vm/dirty_ratio", root);
	assert_non_null(f = fopen(p, "r"));
	assert_non_null(fgets(now, sizeof(now), f));
	fclose(f);
	assert_string_equal(now, "20\n"); /* the rest put back */
	snprintf(p, sizeof(p), "%s/j", dir);
	assert_int_equal(access(p, F_OK), -1); /* and the journal removed */
	/* a journal left by a wbtop killed before: read, the entry marked, the device named once */
	put("j", v3, sizeof(v3) - 1);
	assert_int_equal(read_j(&t), 1);
	assert_int_equal(t.n, 2);
	assert_false(t.e[0].gone);
	assert_true(t.e[1].gone);
	assert_int_equal(wb_tune_revert(&t, err, sizeof(err)), 0);
	assert_string_equal(t.gone, "7:1");
	/* a name that is no BDI's is still refused */
	{
		static const char bad[] = "wbtop-journal 2\npid 7\nbdi.7:1/...max_ratio\t0\t1\n";
		put("j", bad, sizeof(bad) - 1);
		assert_int_equal(read_j(&t), -1);
	}
}

static void journal_long_line_and_nul(void **st)
{
	static const char nul[] = "wbtop-journal 2\npid 7\nvm.dirty_ratio\t20\0x\t15\n";
	static struct wb_tune t;
	char text[800];
	int n = snprintf(text, sizeof(text), "wbtop-journal 2\npid 7\nvm.dirty_ratio\t20\t");
	(void)st;
	/* a 600-byte line: damage, never read as two entries (the tail here would be a valid one) */
	memset(text + n, '0', 600 - 40);
	n += 600 - 40;
	n += snprintf(text + n, sizeof(text) - (size_t)n, "vm.dirty_bytes\t0\t8192\n");
	put("j", text, (size_t)n);
	assert_int_equal(read_j(&t), -1);
	assert_non_null(strstr(err, "j:3: longer than 511 bytes"));
	assert_int_equal(t.n, 0);
	put("j", nul, sizeof(nul) - 1);
	assert_int_equal(read_j(&t), -1);
	assert_non_null(strstr(err, "NUL"));
}

static void journal_not_a_file(void **st)
{
	static struct wb_tune t;
	char p[256], q[256];
	(void)st;
	snprintf(p, sizeof(p), "%s/j", dir);
	snprintf(q, sizeof(q), "%s/target", dir);
	put("target", GOOD, strlen(GOOD));
	unlink(p);
	assert_int_equal(symlink(q, p), 0);
	assert_int_equal(read_j(&t), -1);
	assert_non_null(strstr(err, "symbolic link"));
	unlink(p);
	assert_int_equal(mkfifo(p, 0600), 0); /* must not block */
	assert_int_equal(read_j(&t), -1);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(p);
	put("j", GOOD, strlen(GOOD));
	assert_int_equal(chmod(p, 0666), 0);
	assert_int_equal(read_j(&t), -1);
	assert_non_null(strstr(err, "not trusted"));
	unlink(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sysctl_edges),
		cmocka_unit_test(bdi_edges),
		cmocka_unit_test(every_knob_bounded),
		cmocka_unit_test(cross_knob_rules),
		cmocka_unit_test(journal_good),
		cmocka_unit_test(journal_hostile),
		cmocka_unit_test(journal_device_gone),
		cmocka_unit_test(journal_long_line_and_nul),
		cmocka_unit_test(journal_not_a_file),
	};

	wb_sample_init(&sample);
	sample.page_size = 4096;
	sample.sys[WB_SYS_DIRTY_RATIO] = 20;
	sample.sys[WB_SYS_BG_RATIO] = 10;
	sample.bdis = bdis;
	sample.nbdis = 2;
	return cmocka_run_group_tests(tests, journal_setup, journal_teardown);
}
