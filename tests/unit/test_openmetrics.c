// SPDX-License-Identifier: GPL-2.0-or-later
/* The OpenMetrics sink in-process: escaping, unknown values, counters, both formats, backfill. */
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

#include "wbtop/http.h"
#include "wbtop/openmetrics.h"

/* A sample at time i with the named BDIs; "7:0" has debugfs figures, the others none. */
static void make(struct wb_sample *s, int i, const char *const *names, size_t n, uint32_t pauses)
{
	wb_sample_init(s);
	s->mono = 100 + i;
	s->wall = 1.7e9 + i + 0.25;
	s->page_size = 4096;
	s->level = 3;
	s->g.v[WB_G_DIRTY] = 1000;
	s->g.valid = WB_BIT(WB_G_DIRTY);
	s->bdis = calloc(n, sizeof(*s->bdis));
	s->nbdis = n;
	for (size_t b = 0; b < n; b++) {
		snprintf(s->bdis[b].name, sizeof(s->bdis[b].name), "%s", names[b]);
		if (strcmp(names[b], "7:0"))
			continue;
		s->bdis[b].st[WB_B_RECLAIMABLE] = 10 + (uint64_t)i;
		s->bdis[b].st_valid = WB_BIT(WB_B_RECLAIMABLE);
		s->bdis[b].ev.pauses = pauses;
		s->bdis[b].ev.pause_ms_total = 500ULL * pauses;
	}
	s->ev_valid = true;
}

/* The whole rendering of m in fmt (test frees). */
static char *render(const struct wb_om *m, enum wb_om_fmt fmt)
{
	size_t len;
	char *t = wb_om_render(m, fmt, &len);

	assert_non_null(t);
	assert_int_equal(strlen(t), len);
	return t;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void escaping(void **st)
{
	char out[64];
	(void)st;
	wb_om_escape(out, sizeof(out), "/mnt/a\\b\"c\nd\x01" "e\tf\x7f");
	assert_string_equal(out, "/mnt/a\\\\b\\\"c\\nd" "ef");
	wb_om_escape(out, sizeof(out), "caf\xc3\xa9 \xff\xc3");   /* valid é kept, broken bytes dropped */
	assert_string_equal(out, "caf\xc3\xa9 ");
	wb_om_escape(out, 6, "ab\"cd");                          /* no room: cut before a whole escape */
	assert_string_equal(out, "ab\\\"c");
	wb_om_escape(out, 5, "ab\"cd");
	assert_string_equal(out, "ab\\\"");
	wb_om_escape(out, 4, "ab\"cd");
	assert_string_equal(out, "ab");
}

static void unknown_is_absent(void **st)
{
	static const char *const names[] = { "7:0", "8:0" };
	struct wb_om *m = wb_om_create(false);
	struct wb_sample s;
	struct wb_view v;
	char *t;
	(void)st;
	make(&s, 0, names, 2, 0);
	s.ev_valid = false;
	v = (struct wb_view){ .cur = &s }; /* no model */
	assert_int_equal(wb_om_add(m, &v), 0);
	t = render(m, WB_OM_TEXT);
	assert_non_null(strstr(t, "\nwbtop_dirty_bytes 4096000\n"));
	assert_non_null(strstr(t, "\nwbtop_bdi_dirty_bytes{bdi=\"7:0\"} 40960\n"));
	assert_null(strstr(t, "wbtop_bdi_dirty_bytes{bdi=\"8:0\"}"));   /* no debugfs figures: absent */
	assert_null(strstr(t, "source=\"model\""));                     /* no model: absent */
	assert_null(strstr(t, "\nwbtop_writeback_bytes "));               /* invalid: absent, not 0 */
	assert_null(strstr(t, "wbtop_throttle_pauses_total{"));          /* no tracepoints */
	assert_non_null(strstr(t, "# TYPE wbtop_throttle_pauses_total counter\n"));
	assert_non_null(strstr(t, "# TYPE wbtop_bdi_state gauge\n"));
	assert_null(strstr(t, "# EOF"));
	free(t);
	t = render(m, WB_OM_OPENMETRICS);
	assert_non_null(strstr(t, "# TYPE wbtop_throttle_pauses counter\n"));
	assert_non_null(strstr(t, "# TYPE wbtop_throttle_pause_seconds counter\n# UNIT wbtop_throttle_pause_seconds seconds\n"));
	assert_non_null(strstr(t, "# TYPE wbtop_bdi_state stateset\n"));
	assert_non_null(strstr(t, "# TYPE wbtop_build info\n"));
	assert_non_null(strstr(t, "\nwbtop_build_info{version=\"" WBTOP_VERSION "\"} 1\n"));
	assert_int_equal(count(t, "# EOF\n"), 1);
	assert_string_equal(t + strlen(t) - 6, "# EOF\n");
	free(t);
	wb_sample_finish(&s);
	wb_om_destroy(m);
}

/* Event counters grow from the deltas; a BDI that goes and returns continues its count. */
static void counters_continue(void **st)
{
	static const char *const both[] = { "7:0", "8:0" }, *const other[] = { "8:0" };
	struct wb_om *m = wb_om_create(false);
	struct wb_sample s;
	char *t;
	(void)st;
	for (int i = 0; i < 3; i++) {
		struct wb_view v = { .cur = &s };
		if (i == 1)
			make(&s, i, other, 1, 0); /* 7:0 gone */
		else
			make(&s, i, both, 2, i == 0 ? 2 : 1);
		wb_om_clear(m);
		assert_int_equal(wb_om_add(m, &v), 0);
		t = render(m, WB_OM_TEXT);
		if (i == 1)
			assert_null(strstr(t, "bdi=\"7:0\""));
		if (i == 2) {
			assert_non_null(strstr(t, "\nwbtop_throttle_pauses_total{bdi=\"7:0\"} 3\n"));
			assert_non_null(strstr(t, "\nwbtop_throttle_pause_seconds_total{bdi=\"7:0\"} 1.5\n"));
			assert_non_null(strstr(t, "\nwbtop_throttle_pauses_total{bdi=\"8:0\"} 0\n"));
		}
		free(t);
		wb_sample_finish(&s);
	}
	wb_om_destroy(m);
}

/* Backfill: samples accumulate, each family's series together, times in seconds, one EOF. */
static void backfill_grouped(void **st)
{
	static const char *const names[] = { "7:0" };
	struct wb_om *m = wb_om_create(true);
	struct wb_sample s;
	char *t, *a, *b, *c;
	(void)st;
	for (int i = 0; i < 3; i++) {
		struct wb_view v = { .cur = &s };
		make(&s, i, names, 1, 0);
		assert_int_equal(wb_om_add(m, &v), 0);
		wb_sample_finish(&s);
	}
	t = render(m, WB_OM_OPENMETRICS);
	a = strstr(t, "\nwbtop_dirty_bytes 4096000 1700000000.250\n");
	b = strstr(t, "\nwbtop_dirty_bytes 4096000 1700000001.250\n");
	c = strstr(t, "\nwbtop_dirty_bytes 4096000 1700000002.250\n");
	assert_true(a && b && c && a < b && b < c);
	assert_null(memchr(a + 1, '#', (size_t)(c - a))); /* nothing of another family between */
	assert_int_equal(count(t, "# TYPE wbtop_dirty_bytes "), 1);
	assert_int_equal(count(t, "# EOF\n"), 1);
	assert_non_null(strstr(t, "\nwbtop_sample_timestamp_seconds 1700000002.25 1700000002.250\n"));
	free(t);
	wb_om_destroy(m);
}

/* Descriptors open in this process (a spill file is one more). */
static int open_fds(void)
{
	char path[64];
	int n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += access(path, F_OK) == 0;
	}
	return n;
}

/*
 * A backfill spilled to a temporary file renders byte for byte as one held in
 * memory, into a buffer and into a stream, and leaves no file in its directory
 * (the whole exposition used to stay in memory: 945 MB for 22,500 samples).
 */
static void backfill_spilled(void **st)
{
	static const char *const names[] = { "7:0", "8:0", "btrfs-1" };
	struct wb_om *mem = wb_om_create(true), *sp = wb_om_create(true);
	char dir[] = "/tmp/wbtop-om-XXXXXX", *a, *b, *c = NULL;
	size_t clen = 0;
	int fds;
	FILE *f;
	(void)st;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(wb_om_spill_to(sp, dir), 0);
	fds = open_fds();
	for (int i = 0; i < 3000; i++) { /* ~150 KB of wbtop_dirty_bytes alone: past 64 KiB, spilled twice */
		struct wb_sample s;
		struct wb_view v = { .cur = &s };
		make(&s, i, names, 3, (uint32_t)i % 3);
		assert_int_equal(wb_om_add(mem, &v), 0);
		assert_int_equal(wb_om_add(sp, &v), 0);
		wb_sample_finish(&s);
	}
	assert_int_equal(open_fds(), fds + 1); /* it did spill */
	a = render(mem, WB_OM_OPENMETRICS);
	b = render(sp, WB_OM_OPENMETRICS);
	assert_string_equal(a, b);
	f = open_memstream(&c, &clen);
	assert_non_null(f);
	assert_int_equal(wb_om_write(sp, WB_OM_OPENMETRICS, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(clen, strlen(a));
	assert_memory_equal(c, a, clen);
	assert_int_equal(rmdir(dir), 0); /* nothing left in it, even while the file is open */
	free(a);
	free(b);
	free(c);
	wb_om_destroy(mem);
	wb_om_destroy(sp);
	assert_int_equal(open_fds(), fds); /* and closed with it */
}

/*
 * A spill file that cannot be read back: wb_om_write() says so, and what it
 * wrote of the exposition does not end in "# EOF" - with it, a backfill cut
 * short read as a whole one (promtool takes it; the exit status alone told).
 */
static void backfill_cut_short(void **st)
{
	static const char *const names[] = { "7:0" };
	struct wb_om *sp = wb_om_create(true);
	char dir[] = "/tmp/wbtop-om-XXXXXX", path[64], link[256], *c = NULL;
	size_t clen = 0, dl;
	int spill = -1, null;
	FILE *f;
	(void)st;
	assert_non_null(mkdtemp(dir));
	dl = strlen(dir);
	assert_int_equal(wb_om_spill_to(sp, dir), 0);
	for (int i = 0; i < 3000; i++) {
		struct wb_sample s;
		struct wb_view v = { .cur = &s };
		make(&s, i, names, 1, 0);
		assert_int_equal(wb_om_add(sp, &v), 0);
		wb_sample_finish(&s);
	}
	for (int fd = 3; fd < 1024; fd++) { /* the spill file: ours, named in dir (and deleted) */
		ssize_t n;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if ((n = readlink(path, link, sizeof(link) - 1)) > 0 && (size_t)n > dl && strncmp(link, dir, dl) == 0 &&
		    link[dl] == '/')
			spill = fd;
	}
	assert_true(spill >= 0);
	null = open("/dev/null", O_RDWR | O_CLOEXEC); /* read back, it gives nothing: cut short */
	assert_true(null >= 0);
	assert_int_equal(dup2(null, spill), spill);
	close(null);
	f = open_memstream(&c, &clen);
	assert_non_null(f);
	assert_int_equal(wb_om_write(sp, WB_OM_OPENMETRICS, f), -EIO);
	assert_int_equal(fclose(f), 0);
	assert_null(strstr(c, "# EOF"));
	free(c);
	wb_om_destroy(sp);
	assert_int_equal(rmdir(dir), 0);
}

/* The longest labels (every mount byte escaped, a reason added) make whole lines. */
static void long_labels(void **st)
{
	static const char *const names[] = { "7:0" };
	struct wb_om *m = wb_om_create(false);
	struct wb_sample s;
	struct wb_view v = { .cur = &s };
	char *t, *line, want[2 * WB_PATH_LEN + 8] = "";
	(void)st;
	make(&s, 0, names, 1, 1);
	memset(s.bdis[0].mounts[0], '"', WB_PATH_LEN - 1);
	memset(s.bdis[0].dev, '\\', WB_NAME_LEN - 1);
	s.bdis[0].nmounts = 1;
	snprintf(s.reason_names[0], sizeof(s.reason_names[0]), "background");
	s.bdis[0].ev.start[0] = 7;
	assert_int_equal(wb_om_add(m, &v), 0);
	t = render(m, WB_OM_OPENMETRICS);
	line = strstr(t, "\nwbtop_writeback_starts_total{");
	assert_non_null(line);
	line = strchr(line + 1, '\n');
	assert_non_null(line);
	assert_memory_equal(line - 24, "\",reason=\"background\"} 7", 24);
	for (size_t i = 0; i < WB_PATH_LEN - 1; i++)
		memcpy(want + 2 * i, "\\\"", 2);
	memcpy(want + 2 * (WB_PATH_LEN - 1), "\",", 3);
	assert_non_null(strstr(t, want)); /* every byte of the mount point, escaped */
	free(t);
	wb_sample_finish(&s);
	wb_om_destroy(m);
}

static void textfile_atomic(void **st)
{
	char dir[] = "/tmp/wbtop-om-XXXXXX", path[64], err[256], buf[16] = "";
	FILE *f;
	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.prom", dir);
	assert_int_equal(wb_om_write_file(path, "one\n", 4, err, sizeof(err)), 0);
	assert_int_equal(wb_om_write_file(path, "two\n", 4, err, sizeof(err)), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "two\n");
	unlink(path);
	assert_int_equal(rmdir(dir), 0); /* no temporary file left beside it */
	snprintf(path, sizeof(path), "%s/x.prom", dir);
	assert_int_equal(wb_om_write_file(path, "x", 1, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, dir));
}

/* /metrics content negotiation: q-values honoured, q=0 not acceptable, text the default. */
static void accept_q(void **st)
{
	static const struct { const char *accept; int om; } cases[] = {
		{ NULL, 0 },
		{ "", 0 },
		{ "*/*", 0 },
		{ "text/plain", 0 },
		{ "application/openmetrics-text", 1 },
		{ "application/openmetrics-text; version=1.0.0", 1 },
		{ "application/openmetrics-text;q=0", 0 },           /* not acceptable */
		{ "application/openmetrics-text; q=0.0, */*", 0 },
		{ "application/openmetrics-text;version=1.0.0;q=0, text/plain;q=0.5", 0 },
		{ "Application/OpenMetrics-Text;Q=0.000", 0 },
		{ "application/openmetrics-text;q=0.2, text/plain;q=0.9", 0 }, /* the highest q */
		{ "text/plain;q=0.2, application/openmetrics-text;q=0.9", 1 },
		{ "application/openmetrics-text, text/plain", 0 },    /* a tie: the default */
		{ "application/openmetrics-text, */*;q=0.1", 1 },
		{ "application/*", 1 },                                /* text not acceptable */
		{ "application/*;q=0.9, text/*;q=0.1", 1 },
		{ "application/*;q=0.9, application/openmetrics-text;q=0", 0 }, /* the exact entry decides */
		{ "application/openmetrics-text;q=2", 0 },            /* malformed q: entry ignored */
		{ "application/openmetrics-text;q=-1", 0 },
		{ "application/openmetrics-textual", 0 },
		/* Prometheus 2 and 3 */
		{ "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
		  "text/plain;version=0.0.4;q=0.5,*/*;q=0.1", 1 },
		{ "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;"
		  "version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;"
		  "q=0.3,*/*;q=0.2", 1 },
		{ "text/plain;version=0.0.4;q=1,*/*;q=0.1", 0 },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (wb_http_wants_om(cases[i].accept) != cases[i].om)
			fail_msg("Accept: %s: %s", cases[i].accept ? cases[i].accept : "(none)",
				 cases[i].om ? "OpenMetrics expected" : "text expected");
	assert_true(wb_http_takes_gzip("gzip"));
	assert_true(wb_http_takes_gzip("deflate, gzip;q=0.5"));
	assert_true(wb_http_takes_gzip("*"));
	assert_false(wb_http_takes_gzip("gzip;q=0"));
	assert_false(wb_http_takes_gzip("*;q=0.5, gzip;q=0"));
	assert_false(wb_http_takes_gzip("x-gzipped"));
	assert_false(wb_http_takes_gzip(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escaping),
		cmocka_unit_test(accept_q),
		cmocka_unit_test(unknown_is_absent),
		cmocka_unit_test(counters_continue),
		cmocka_unit_test(backfill_grouped),
		cmocka_unit_test(backfill_spilled),
		cmocka_unit_test(backfill_cut_short),
		cmocka_unit_test(long_labels),
		cmocka_unit_test(textfile_atomic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
