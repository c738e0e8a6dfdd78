// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A synthetic day: 86,400 samples at 1 Hz built from a fixture sample with
 * every counter moving (dirty levels wander, cumulative counters grow, a
 * few processes), written to FILE; then the time to open it and read the
 * sample in the middle, and bytes per sample.
 *   bench_record FIXTURE_ROOT FILE [samples]
 * Or: re-record an existing recording in the current format (every sample
 * and note, lossless), and print both sizes per sample:
 *   bench_record --rewrite IN OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "wbtop/live.h"
#include "wbtop/record.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* IN's samples and notes, in order, written to OUT in the current format; sizes printed. */
static int rewrite(const char *in, const char *out)
{
	char err[256], warn[256];
	struct wb_rec_reader *r = wb_rec_open(in, err, sizeof(err), warn, sizeof(warn));
	struct wb_rec_header h;
	struct wb_rec_writer *w;
	struct wb_sample s;
	struct stat a, b;
	size_t n, k = 0;
	double t;

	if (!r) {
		fprintf(stderr, "%s: %s\n", in, err);
		return 1;
	}
	h = *wb_rec_header_of(r);
	h.major = WB_REC_MAJOR;
	h.minor = WB_REC_MINOR;
	if (!(w = wb_rec_create(out, &h, 0, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	n = wb_rec_count(r);
	wb_sample_init(&s);
	for (size_t i = 0; i < n; i++) {
		if (wb_rec_read(r, i, &s, err, sizeof(err)) || wb_rec_write(w, &s)) {
			fprintf(stderr, "%s: sample %zu: %s\n", in, i, err);
			return 1;
		}
		for (const char *note; (note = wb_rec_note_at(r, k, &t)) && (i + 1 == n || t < wb_rec_time(r, i + 1)); k++)
			wb_rec_note(w, t, 0, note);
	}
	wb_sample_finish(&s);
	wb_rec_close(w);
	stat(in, &a);
	stat(out, &b);
	printf("%s: %zu samples, %.1f -> %.1f bytes per sample (format %u.%u -> %u.%u)\n", in, n,
	       n ? (double)a.st_size / n : 0, n ? (double)b.st_size / n : 0, wb_rec_header_of(r)->major,
	       wb_rec_header_of(r)->minor, WB_REC_MAJOR, WB_REC_MINOR);
	wb_rec_close_reader(r);
	return 0;
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : "tests/fixtures/6.18-writing";
	const char *path = argc > 2 ? argv[2] : "/tmp/day.wbrec";
	long n = argc > 3 ? atol(argv[3]) : 86400;
	struct wb_live_opts lo = { .root = root };
	char err[256], warn[256];
	struct wb_live *l = wb_live_create(&lo, err, sizeof(err));
	struct wb_sample s, r;
	struct wb_rec_header h;
	struct wb_rec_writer *w;
	struct wb_rec_reader *rd;
	struct wb_proc procs[3] = { { .pid = 100, .comm = "dd", .state = 'D' }, { .pid = 200, .comm = "cp", .state = 'R' },
				    { .pid = 300, .comm = "kworker/u8:1" } };
	struct stat st;
	double t0, t1;

	if (argc == 4 && strcmp(argv[1], "--rewrite") == 0) {
		wb_live_destroy(l);
		return rewrite(argv[2], argv[3]);
	}
	if (!l)
		return 1;
	wb_sample_init(&s);
	wb_sample_init(&r);
	wb_live_read(l, &s);
	wb_rec_header_local(&h, 1.0);
	w = wb_rec_create(path, &h, 0, err, sizeof(err));
	if (!w)
		return 1;
	srand(1);
	s.procs = procs;
	s.nprocs = 3;
	s.procs_valid = true;
	for (long i = 0; i < n; i++) {
		s.mono = 1000 + i;
		s.wall = 1.7e9 + i;
		s.g.v[WB_G_DIRTIED] += 2000 + rand() % 500;
		s.g.v[WB_G_WRITTEN] += 2000 + rand() % 500;
		s.g.v[WB_G_DIRTY] = 50000 + rand() % 20000;
		s.g.v[WB_G_WRITEBACK] = rand() % 5000;
		s.g.v[WB_G_MEMFREE] -= rand() % 3;
		for (size_t b = 0; b < s.nbdis; b++) {
			struct wb_bdi *x = &s.bdis[b];
			if (b % 3) /* most devices idle, as on a workstation */
				continue;
			x->st[WB_B_RECLAIMABLE] = rand() % 20000;
			x->st[WB_B_WRITEBACK] = rand() % 3000;
			x->st[WB_B_DIRTIED] += 500 + rand() % 100;
			x->st[WB_B_WRITTEN] += 500 + rand() % 100;
			x->st[WB_B_THRESH] = 100000 + rand() % 1000;
		}
		for (int p = 0; p < 3; p++) {
			procs[p].write_bytes_delta = (uint64_t)(rand() % 4) << 20;
			procs[p].write_bytes += procs[p].write_bytes_delta;
		}
		if (wb_rec_write(w, &s))
			return 1;
	}
	wb_rec_close(w);
	s.procs = NULL;
	s.nprocs = 0;
	stat(path, &st);
	t0 = now();
	rd = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	if (!rd || wb_rec_read(rd, wb_rec_count(rd) / 2, &r, err, sizeof(err)))
		return 1;
	t1 = now();
	printf("record: %ld samples, %.0f bytes per sample (%s, %zu BDIs); open + seek to the middle %.1f ms\n", n,
	       (double)st.st_size / n, path, s.nbdis, (t1 - t0) * 1e3);
	wb_rec_close_reader(rd);
	wb_sample_finish(&r);
	wb_sample_finish(&s);
	wb_live_destroy(l);
	return 0;
}
