// SPDX-License-Identifier: GPL-2.0-or-later
/* Recordings: notes, key frames, structure changes and seeking, in-process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "wbtop/pipeline.h"
#include "wbtop/record.h"
#include "wbtop/source.h"
#include "../../src/record/wbrec_internal.h" /* the format's test hook and key-frame schema */

static void make(struct wb_sample *s, int i, size_t nbdis)
{
	wb_sample_init(s);
	s->mono = 100 + i;
	s->wall = 1.7e9 + i;
	s->page_size = 4096;
	s->g.v[WB_G_DIRTY] = (uint64_t)(1000 + i * 7);
	s->g.valid = WB_BIT(WB_G_DIRTY);
	s->bdis = calloc(nbdis, sizeof(*s->bdis));
	s->nbdis = nbdis;
	for (size_t b = 0; b < nbdis; b++) {
		snprintf(s->bdis[b].name, sizeof(s->bdis[b].name), "8:%zu", b * 16);
		s->bdis[b].st[WB_B_RECLAIMABLE] = (uint64_t)(i * 3 + (int)b);
		s->bdis[b].st[WB_B_THRESH] = 5000 - (uint64_t)i;
		s->bdis[b].st_valid = WB_BIT(WB_B_RECLAIMABLE) | WB_BIT(WB_B_THRESH);
		s->bdis[b].ev.pauses = (uint32_t)(i % 7);
		s->bdis[b].ev.dirtied_max = (uint32_t)(16 * (i % 5 + 1) + b); /* minor 1 */
	}
	s->ev_valid = true;
}

static void notes_keys_and_seek(void **st)
{
	char path[] = "/tmp/wbtop-rec-XXXXXX", err[256], warn[256];
	int fd = mkstemp(path);
	struct wb_rec_header h;
	struct wb_rec_writer *w;
	struct wb_rec_reader *r;
	struct wb_sample s, back;
	double t;
	(void)st;
	close(fd);
	wb_rec_header_local(&h, 1.0);
	w = wb_rec_create(path, &h, 0, err, sizeof(err));
	assert_non_null(w);
	for (int i = 0; i < 200; i++) {
		make(&s, i, i < 100 ? 2 : 3); /* a BDI appears half way: a key frame */
		assert_int_equal(wb_rec_write(w, &s), 0);
		wb_sample_finish(&s);
		if (i == 150)
			assert_int_equal(wb_rec_note(w, 100 + i + 0.5, 0, "set vm.dirty_ratio=10 (was 20)"), 0);
	}
	wb_rec_close(w);
	r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	assert_non_null(r);
	assert_string_equal(warn, "");
	assert_int_equal(wb_rec_count(r), 200);
	assert_int_equal(wb_rec_notes(r), 1);
	assert_string_equal(wb_rec_note_at(r, 0, &t), "set vm.dirty_ratio=10 (was 20)");
	assert_true(t == 250.5);
	assert_int_equal(wb_rec_seek_time(r, 150.2), 51);
	wb_sample_init(&back);
	/* out of order: middle, end, start, then on across a structure change */
	for (int k = 0; k < 6; k++) {
		int i = (int[]){ 120, 199, 0, 99, 100, 101 }[k];
		assert_int_equal(wb_rec_read(r, (size_t)i, &back, err, sizeof(err)), 0);
		make(&s, i, i < 100 ? 2 : 3);
		assert_true(back.mono == s.mono);
		assert_int_equal(back.nbdis, s.nbdis);
		assert_int_equal(back.bdis[back.nbdis - 1].st[WB_B_RECLAIMABLE], s.bdis[s.nbdis - 1].st[WB_B_RECLAIMABLE]);
		assert_int_equal(back.bdis[0].st[WB_B_THRESH], s.bdis[0].st[WB_B_THRESH]);
		assert_int_equal(back.bdis[0].ev.pauses, s.bdis[0].ev.pauses);
		assert_int_equal(back.bdis[1].ev.dirtied_max, s.bdis[1].ev.dirtied_max);
		wb_sample_finish(&s);
	}
	assert_int_not_equal(wb_rec_read(r, 200, &back, err, sizeof(err)), 0);
	wb_sample_finish(&back);
	wb_rec_close_reader(r);
	unlink(path);
}

static void decode_rejects_garbage(void **st)
{
	static const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
	struct wb_sample s;
	char err[256];
	(void)st;
	wb_sample_init(&s);
	assert_int_not_equal(wb_rec_decode(junk, sizeof(junk), true, WB_REC_MAJOR, WB_REC_MINOR, NULL, NULL, &s, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "damaged"));
	assert_int_not_equal(wb_rec_decode(junk, 0, true, WB_REC_MAJOR, WB_REC_MINOR, NULL, NULL, &s, err, sizeof(err)), 0);
	assert_int_not_equal(wb_rec_decode(junk, sizeof(junk), false, WB_REC_MAJOR, WB_REC_MINOR, NULL, NULL, &s, err, sizeof(err)), 0);
}

/* Write good samples 0..n-1 with sample k spoiled by spoil(); the reader's verdict on sample k. */
static int replay_spoiled(void (*spoil)(struct wb_sample *), int k, int n, char *err, size_t errlen,
			  size_t *count)
{
	char path[] = "/tmp/wbtop-rec-XXXXXX", warn[256];
	int fd = mkstemp(path), rc = 0;
	struct wb_rec_header h;
	struct wb_rec_writer *w;
	struct wb_rec_reader *r;
	struct wb_sample s;

	close(fd);
	wb_rec_header_local(&h, 1.0);
	w = wb_rec_create(path, &h, 0, err, errlen);
	assert_non_null(w);
	for (int i = 0; i < n; i++) {
		make(&s, i, 2);
		s.level = 1;
		if (i == k)
			spoil(&s);
		assert_int_equal(wb_rec_write(w, &s), 0); /* the encoder takes anything */
		wb_sample_finish(&s);
	}
	wb_rec_close(w);
	r = wb_rec_open(path, err, errlen, warn, sizeof(warn));
	unlink(path);
	if (!r)
		return -2;
	*count = wb_rec_count(r);
	wb_sample_init(&s);
	for (int i = 0; i < n && rc == 0; i++) /* in order: the earlier samples decode */
		rc = wb_rec_read(r, (size_t)i, &s, err, errlen) ? (i == k ? -1 : -3) : 0;
	wb_sample_finish(&s);
	wb_rec_close_reader(r);
	return rc;
}

static void level_max(struct wb_sample *s) { s->level = 2147483647; }
static void level_neg(struct wb_sample *s) { s->level = -3; }
static void level_4(struct wb_sample *s) { s->level = 4; }
static void mono_nan(struct wb_sample *s) { s->mono = NAN; }
static void mono_back(struct wb_sample *s) { s->mono -= 5; }
static void wall_inf(struct wb_sample *s) { s->wall = INFINITY; }
static void page_0(struct wb_sample *s) { s->page_size = 0; }
static void page_odd(struct wb_sample *s) { s->page_size = 3000; }
static void cpus_huge(struct wb_sample *s) { s->ncpus = 1u << 30; }
static void dirty_huge(struct wb_sample *s) { s->g.v[WB_G_DIRTY] = 1ULL << 63; }
/* under 2^62, but 2^52 pages of 4 KiB are 2^64 bytes: every output's bytes wrapped */
static void dirty_wraps(struct wb_sample *s) { s->g.v[WB_G_DIRTY] = UINT64_MAX / s->page_size + 1; }
static void st_huge(struct wb_sample *s) { s->bdis[1].st[WB_B_WRITEBACK] = 1ULL << 62; }
/* a setting no kernel holds (a recording of a hostile tree): the model took dirty_ratio 2^64-1 */
static void ratio_101(struct wb_sample *s)
{
	s->sys[WB_SYS_DIRTY_RATIO] = 101;
	s->sys_valid |= WB_BIT(WB_SYS_DIRTY_RATIO);
}
/* two devices of one name: the panes (by index) and the exports (by name) would disagree */
static void bdi_twice(struct wb_sample *s) { memcpy(s->bdis[1].name, s->bdis[0].name, sizeof(s->bdis[0].name)); }
static void strict_2(struct wb_sample *s)
{
	s->bdis[1].knob[WB_K_STRICT_LIMIT] = 2;
	s->bdis[1].knob_valid |= WB_BIT(WB_K_STRICT_LIMIT);
}

/* A sample with one event, spoiled by the caller. */
static struct wb_event *one_event(struct wb_sample *s)
{
	s->events = calloc(1, sizeof(*s->events));
	s->nevents = 1;
	s->events[0].t = s->mono - 0.5;
	return s->events;
}
static void ev_nan(struct wb_sample *s) { one_event(s)->t = NAN; }
static void ev_kind(struct wb_sample *s) { one_event(s)->kind = WB_EV_COUNT; }
static void ev_reason(struct wb_sample *s) { one_event(s)->reason = 200; }
static void ev_many(struct wb_sample *s)
{
	s->events = calloc(WB_EVLOG_MAX + 1, sizeof(*s->events));
	s->nevents = WB_EVLOG_MAX + 1;
}

/* Every value the rest of wbtop trusts is checked at the decoder: damage, named, never passed on. */
static void decoder_rejects_bad_values(void **st)
{
	static const struct {
		void (*spoil)(struct wb_sample *);
		const char *what;
	} cases[] = {
		{ level_max, "access level 2147483647, not 0..3" }, { level_neg, "access level -3, not 0..3" },
		{ level_4, "access level 4" }, { mono_nan, "sample time nan" },
		{ mono_back, "before the previous sample's" }, { wall_inf, "wall clock time inf" },
		{ page_0, "page size 0" }, { page_odd, "page size 3000" }, { cpus_huge, "CPU count" },
		{ dirty_huge, "global counter 5: 9223372036854775808" }, { dirty_wraps, "global counter 5: 4503599627370496" }, { st_huge, "BDI 1 stats value 0" },
		{ ev_nan, "event 0 time nan" }, { ev_kind, "event 0 kind 4" }, { ev_reason, "event 0 reason 200" },
		{ ev_many, "event count" }, { ratio_101, "vm.dirty_ratio 101" }, { strict_2, "BDI 1 strict_limit 2" },
		{ bdi_twice, "listed twice" },
	};
	char err[256];
	size_t count = 0;
	(void)st;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int k = 0; k < 10; k += 4) { /* the key frame, a delta frame, another */
			int rc = replay_spoiled(cases[c].spoil, k, 10, err, sizeof(err), &count);
			if (cases[c].spoil == mono_back && k == 0)
				continue; /* nothing before the first sample */
			if (rc == -2)
				fail_msg("case %zu: the file was refused: %s", c, err);
			if (count < 10 && count == (size_t)k)
				continue; /* the frame index stopped at it (the frame time is the sample's) */
			if (rc != -1 || !strstr(err, cases[c].what) || !strstr(err, "offset"))
				fail_msg("case %zu, sample %d: rc %d, %zu samples, \"%s\" (expected \"%s\")", c, k, rc,
					 count, err, cases[c].what);
		}
	/* the clean recording round-trips (the cases above fail for their value, not for the harness) */
	assert_int_equal(replay_spoiled(level_4, -1, 10, err, sizeof(err), &count), 0);
	assert_int_equal(count, 10);
}

/* A file cut short while it is open: damage with an offset, not SIGBUS (the reader used to mmap). */
static void truncated_while_open(void **st)
{
	char path[] = "/tmp/wbtop-rec-XXXXXX", err[256], warn[256];
	int fd = mkstemp(path);
	struct wb_rec_header h;
	struct wb_rec_writer *w;
	struct wb_rec_reader *r;
	struct wb_sample s;
	(void)st;
	close(fd);
	wb_rec_header_local(&h, 1.0);
	w = wb_rec_create(path, &h, 0, err, sizeof(err));
	for (int i = 0; i < 300; i++) { /* past one key-frame group */
		make(&s, i, 3);
		assert_int_equal(wb_rec_write(w, &s), 0);
		wb_sample_finish(&s);
	}
	wb_rec_close(w);
	r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	assert_non_null(r);
	assert_int_equal(wb_rec_count(r), 300);
	assert_int_equal(truncate(path, 200), 0);
	wb_sample_init(&s);
	assert_int_not_equal(wb_rec_read(r, 299, &s, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "offset"));
	assert_non_null(strstr(err, "cut short"));
	wb_sample_finish(&s);
	wb_rec_close_reader(r);
	unlink(path);
}

/*
 * Frames written by the caller (the kernel lets writers run free) and by the
 * writer's thread (it would not), in turns, until the file hits a size limit
 * (RLIMIT_FSIZE, in a child): the file is cut to its last whole frame, which
 * replays whole, and holds as many samples as the message says. The cut once
 * counted only the thread's bytes and fell short of the caller's frames.
 */
static void mixed_writes_cut_whole(void **st)
{
	char path[] = "/tmp/wbtop-rec-XXXXXX", msg[] = "/tmp/wbtop-msg-XXXXXX", err[512], warn[256], said[600];
	int fd = mkstemp(path), mfd = mkstemp(msg), status;
	unsigned long long holds = 0;
	struct wb_rec_reader *r;
	struct wb_sample s;
	pid_t pid;
	FILE *f;
	(void)st;
	close(fd);
	close(mfd);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 20000, 20000 };
		struct wb_rec_header h;
		struct wb_rec_writer *w;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		wb_rec_header_local(&h, 1.0);
		if (!(w = wb_rec_create(path, &h, 0, err, sizeof(err))))
			_exit(2);
		for (int i = 0; i < 5000 && !wb_rec_error(w); i++) {
			make(&s, i, 3);
			s.g.valid |= WB_BIT(WB_G_WRITEBACK) | WB_BIT(WB_G_BG_THRESH);
			s.g.v[WB_G_BG_THRESH] = i % 4 < 2 ? 1u << 20 : 0; /* two free, two over */
			wb_rec_write(w, &s);
			wb_sample_finish(&s);
			if (i % 4 == 3)
				wb_rec_flush(w); /* the thread's frames in the file before the caller's next */
		}
		wb_rec_flush(w);
		f = fopen(msg, "w");
		if (f) {
			fputs(wb_rec_error(w) ? wb_rec_error(w) : "", f);
			fclose(f);
		}
		wb_rec_close(w);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	f = fopen(msg, "r");
	assert_non_null(f);
	said[0] = '\0';
	assert_non_null(fgets(said, sizeof(said), f));
	fclose(f);
	unlink(msg);
	assert_non_null(strstr(said, "File too large"));
	assert_int_equal(sscanf(strstr(said, "it holds ") ? strstr(said, "it holds ") : "", "it holds %llu", &holds), 1);
	r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	assert_non_null(r);
	assert_string_equal(warn, "");
	assert_true(holds > 8);
	assert_int_equal(wb_rec_count(r), holds);
	wb_sample_init(&s);
	for (size_t i = 0; i < holds; i++)
		assert_int_equal(wb_rec_read(r, i, &s, err, sizeof(err)), 0);
	wb_sample_finish(&s);
	wb_rec_close_reader(r);
	unlink(path);
}

/* Write samples [from, to) to path with wb_rec_start(flags); the writer's verdict. */
static int record_range(const char *path, const struct wb_rec_header *h, unsigned flags, int from, int to,
			char *err, size_t errlen)
{
	struct wb_rec_writer *w = wb_rec_start(path, h, 0, flags, err, errlen);
	struct wb_sample s;

	if (!w)
		return -1;
	for (int i = from; i < to; i++) {
		make(&s, i, 2);
		assert_int_equal(wb_rec_write(w, &s), 0);
		wb_sample_finish(&s);
	}
	wb_rec_close(w);
	return 0;
}

static size_t count_of(const char *path, size_t *notes)
{
	char err[256], warn[256];
	struct wb_rec_reader *r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	struct wb_sample s;
	size_t n;

	assert_non_null(r);
	n = wb_rec_count(r);
	*notes = wb_rec_notes(r);
	wb_sample_init(&s);
	for (size_t i = 0; i < n; i++) /* all of it decodes, across the join */
		assert_int_equal(wb_rec_read(r, i, &s, err, sizeof(err)), 0);
	wb_sample_finish(&s);
	wb_rec_close_reader(r);
	return n;
}

/*
 * Cut short by another process while recording (logrotate's copytruncate, or
 * "> FILE"): the frames after went on at the old offset behind a hole of
 * zeros, and the whole file read as "bad magic at offset 0". Now the writer
 * goes on from the cut, with a note: after its last whole frame, or anew.
 */
static void cut_short_while_recording(void **st)
{
	char dir[] = "/tmp/wbtop-rec-XXXXXX", path[64], err[256];
	struct wb_rec_header h;
	struct wb_rec_writer *w;
	struct wb_sample s;
	struct stat sb;
	size_t notes;
	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.wbrec", dir);
	wb_rec_header_local(&h, 1.0);
	w = wb_rec_start(path, &h, 0, 0, err, sizeof(err));
	assert_non_null(w);
	for (int i = 0; i < 10; i++) {
		if (i == 4 || i == 7) { /* what was written is in the file: then cut it */
			assert_int_equal(wb_rec_flush(w), 0);
			assert_int_equal(stat(path, &sb), 0);
			assert_int_equal(truncate(path, i == 4 ? 0 : sb.st_size - 3), 0);
		}
		make(&s, i, 2);
		assert_int_equal(wb_rec_write(w, &s), 0);
		wb_sample_finish(&s);
	}
	wb_rec_close(w);
	/* emptied at 4: samples 4-9, less the one torn at 7 */
	assert_int_equal(count_of(path, &notes), 5);
	assert_int_equal(notes, 2);
	unlink(path);
	rmdir(dir);
}

/* --record on an existing file: a recording of this boot is appended to; others are refused unless replaced. */
static void start_appends_or_refuses(void **st)
{
	char dir[] = "/tmp/wbtop-rec-XXXXXX", path[64], link[80], txt[80], err[256];
	struct wb_rec_header h, other;
	struct stat sb;
	size_t notes;
	FILE *f;
	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.wbrec", dir);
	wb_rec_header_local(&h, 1.0);
	assert_int_equal(record_range(path, &h, 0, 0, 5, err, sizeof(err)), 0);
	assert_int_equal(record_range(path, &h, 0, 5, 10, err, sizeof(err)), 0);
	assert_int_equal(count_of(path, &notes), 10);
	assert_int_equal(notes, 1); /* "recording resumed" */
	/* an empty file is a new recording */
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(record_range(path, &h, 0, 0, 5, err, sizeof(err)), 0);
	assert_int_equal(count_of(path, &notes), 5);
	assert_int_equal(notes, 0);
	/* a torn tail (kill -9) is cut off before appending */
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(truncate(path, sb.st_size - 3), 0);
	assert_int_equal(record_range(path, &h, 0, 5, 7, err, sizeof(err)), 0);
	assert_int_equal(count_of(path, &notes), 4 + 2);
	/* another boot's recording: its clock does not go on */
	other = h;
	snprintf(other.boot_id, sizeof(other.boot_id), "another-boot");
	assert_int_equal(record_range(path, &other, 0, 7, 9, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "another boot"));
	assert_int_equal(count_of(path, &notes), 6);
	/* a symlink is never written through, even with REPLACE */
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(record_range(link, &h, WB_REC_REPLACE, 0, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(count_of(path, &notes), 6);
	/* a file that is not a recording: kept, unless REPLACE */
	snprintf(txt, sizeof(txt), "%s/notes.txt", dir);
	f = fopen(txt, "w");
	fputs("keep me\n", f);
	fclose(f);
	assert_int_equal(record_range(txt, &h, 0, 0, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a wbtop recording"));
	f = fopen(txt, "r");
	assert_non_null(fgets(err, sizeof(err), f));
	fclose(f);
	assert_string_equal(err, "keep me\n");
	assert_int_equal(record_range(txt, &h, WB_REC_REPLACE, 0, 2, err, sizeof(err)), 0);
	assert_int_equal(count_of(txt, &notes), 2);
	/* a directory */
	assert_int_equal(record_range(dir, &h, WB_REC_REPLACE, 0, 2, err, sizeof(err)), -1);
	unlink(link);
	unlink(txt);
	unlink(path);
	rmdir(dir);
}

/*
 * --root DIR: the header carried this boot's id, so a recording of a fixture
 * tree and one of the running kernel were appended to each other as one
 * boot. The tree's own boot_id now, else a "tree:" id of its path and this
 * boot: never a kernel's, the same for the same tree, refused by the other.
 */
static void root_boot_id(void **st)
{
	static const char *const sub[] = { "/a", "/b", "/a/proc", "/a/proc/sys", "/a/proc/sys/kernel",
					   "/a/proc/sys/kernel/random" };
	char dir[] = "/tmp/wbtop-boot-XXXXXX", p[6][80], other[80], idf[128], rec[80], err[256];
	struct wb_rec_header live, ta, ta2, tb, slash, tid;
	size_t notes;
	FILE *f;
	(void)st;
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 6; i++)
		snprintf(p[i], sizeof(p[i]), "%s%s", dir, sub[i]);
	assert_int_equal(mkdir(p[0], 0755) | mkdir(p[1], 0755), 0);
	snprintf(other, sizeof(other), "%s/b/../a", dir); /* the same tree by another name */
	wb_rec_header_local(&live, 1.0);
	wb_rec_header_root(&ta, 1.0, p[0]);
	wb_rec_header_root(&ta2, 1.0, other);
	wb_rec_header_root(&tb, 1.0, p[1]);
	wb_rec_header_root(&slash, 1.0, "/");
	assert_string_equal(slash.boot_id, live.boot_id);
	assert_string_not_equal(ta.boot_id, live.boot_id);
	assert_memory_equal(ta.boot_id, "tree:", 5);
	assert_string_equal(ta.boot_id, ta2.boot_id);
	assert_string_not_equal(ta.boot_id, tb.boot_id);
	/* the tree's own boot id, when it has one; a FIFO there is not waited on */
	for (int i = 2; i < 6; i++)
		assert_int_equal(mkdir(p[i], 0755), 0);
	snprintf(idf, sizeof(idf), "%s/boot_id", p[5]);
	assert_int_equal(mkfifo(idf, 0644), 0);
	wb_rec_header_root(&tid, 1.0, p[0]);
	assert_string_equal(tid.boot_id, ta.boot_id);
	unlink(idf);
	f = fopen(idf, "w");
	fputs("0f6e5c1b-4a2d-4e8f-9a7b-123456789abc\n", f);
	fclose(f);
	wb_rec_header_root(&tid, 1.0, p[0]);
	assert_string_equal(tid.boot_id, "0f6e5c1b-4a2d-4e8f-9a7b-123456789abc");
	unlink(idf);
	/* a live recording is not appended to by the tree's, nor the tree's by a live one or another tree's */
	snprintf(rec, sizeof(rec), "%s/x.wbrec", dir);
	assert_int_equal(record_range(rec, &live, 0, 0, 3, err, sizeof(err)), 0);
	assert_int_equal(record_range(rec, &ta, 0, 3, 5, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--root tree"));
	assert_int_equal(truncate(rec, 0), 0);
	assert_int_equal(record_range(rec, &ta, 0, 0, 3, err, sizeof(err)), 0);
	assert_int_equal(record_range(rec, &live, 0, 3, 5, err, sizeof(err)), -1);
	assert_int_equal(record_range(rec, &tb, 0, 3, 5, err, sizeof(err)), -1);
	assert_int_equal(record_range(rec, &ta2, 0, 3, 5, err, sizeof(err)), 0); /* the same tree goes on */
	assert_int_equal(count_of(rec, &notes), 5);
	unlink(rec);
	for (int i = 5; i >= 0; i--)
		rmdir(p[i]);
	rmdir(dir);
}

/* path's contents into buf (n bytes, NUL-terminated); buf. */
static const char *slurp(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t k = f ? fread(buf, 1, n - 1, f) : 0;

	if (f)
		fclose(f);
	buf[k] = '\0';
	return buf;
}

/* Write samples from *i on until the file rotates (its size falls) or writing fails; wb_rec_write's last. */
static int write_to_rotation(struct wb_rec_writer *w, int *i)
{
	struct wb_sample s;
	int rc = 0;

	for (int k = 0; k < 10000 && rc == 0; k++) {
		uint64_t before = wb_rec_bytes(w);
		make(&s, (*i)++, 2);
		rc = wb_rec_write(w, &s);
		wb_sample_finish(&s);
		if (rc == 0 && wb_rec_bytes(w) < before)
			break;
	}
	return rc;
}

/*
 * --max-size replaces FILE.1 only when it is a recording (an older one of
 * this rotation's or another's) or empty: a file of someone's that took the
 * name, or a symbolic link, is refused at the start (nothing made), and one
 * that came there since stops the recording at the rotation as a write
 * error does, FILE holding every sample written to it.
 */
static void rotation_keeps_other_files(void **st)
{
	char dir[] = "/tmp/wbtop-rec-XXXXXX", path[64], old[80], tmp[80], err[512], buf[64];
	struct wb_rec_header h;
	struct wb_rec_writer *w;
	struct stat sb;
	size_t notes;
	unsigned long long holds = 0;
	int i = 0, first;
	FILE *f;
	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.wbrec", dir);
	snprintf(old, sizeof(old), "%s.1", path);
	snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
	wb_rec_header_local(&h, 1.0);
	/* at the start: someone's file, a symbolic link; refused, FILE not made, FILE.1 as it was */
	f = fopen(old, "w");
	fputs("keep me\n", f);
	fclose(f);
	assert_null(wb_rec_start(path, &h, 4096, WB_REC_REPLACE, err, sizeof(err)));
	assert_non_null(strstr(err, "r.wbrec.1 is not a wbtop recording, and --max-size would move"));
	assert_int_equal(stat(path, &sb), -1);
	assert_string_equal(slurp(old, buf, sizeof(buf)), "keep me\n");
	assert_int_equal(rename(old, tmp), 0);
	assert_int_equal(symlink(tmp, old), 0);
	assert_null(wb_rec_start(path, &h, 4096, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "r.wbrec.1 is a symbolic link"));
	assert_int_equal(unlink(old), 0);
	/* an older recording at FILE.1 is replaced: what rotation is */
	assert_int_equal(record_range(old, &h, 0, 1000, 1005, err, sizeof(err)), 0);
	w = wb_rec_start(path, &h, 4096, 0, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(write_to_rotation(w, &i), 0);
	assert_int_equal(count_of(old, &notes), (size_t)i - 1); /* all but the sample that began FILE */
	/* someone's file at FILE.1 since: the next rotation stops, FILE kept whole */
	first = i - 1;
	f = fopen(tmp, "w");
	fputs("keep me\n", f);
	fclose(f);
	assert_int_equal(rename(tmp, old), 0);
	assert_int_not_equal(write_to_rotation(w, &i), 0);
	assert_non_null(wb_rec_error(w));
	assert_non_null(strstr(wb_rec_error(w), "not moved to"));
	assert_non_null(strstr(wb_rec_error(w), "r.wbrec.1 (--max-size), which is not a wbtop recording"));
	assert_int_equal(sscanf(strstr(wb_rec_error(w), "it holds "), "it holds %llu", &holds), 1);
	wb_rec_close(w);
	assert_string_equal(slurp(old, buf, sizeof(buf)), "keep me\n");
	assert_int_equal(holds, (unsigned long long)(i - 1 - first)); /* every sample but the refused one */
	assert_int_equal(count_of(path, &notes), holds);
	/* an empty FILE.1 holds nothing to lose */
	assert_int_equal(truncate(old, 0), 0);
	assert_int_equal(unlink(path), 0);
	w = wb_rec_start(path, &h, 4096, 0, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(write_to_rotation(w, &i), 0);
	wb_rec_close(w);
	assert_true(count_of(old, &notes) > 0);
	unlink(old);
	unlink(path);
	rmdir(dir);
}

/* The header says where it was recorded (issue #20: the replay header shows it), safely for a terminal. */
static void header_round_trip(void **st)
{
	char path[] = "/tmp/wbtop-rec-XXXXXX", err[256], warn[256];
	int fd = mkstemp(path);
	struct wb_rec_header h;
	struct wb_rec_writer *w;
	struct wb_rec_reader *r;
	const struct wb_rec_header *b;
	struct wb_sample s;
	(void)st;
	close(fd);
	wb_rec_header_local(&h, 0.5);
	assert_true(h.host[0] && h.kernel[0] && h.page_size >= 1024);
	snprintf(h.host, sizeof(h.host), "evil\033]0;owned\007host");
	snprintf(h.kernel, sizeof(h.kernel), "6.18.0-test");
	w = wb_rec_create(path, &h, 0, err, sizeof(err));
	assert_non_null(w);
	make(&s, 0, 1);
	assert_int_equal(wb_rec_write(w, &s), 0);
	wb_sample_finish(&s);
	assert_int_equal(wb_rec_note(w, 100.5, 0, "set \033[2Jvm.dirty_ratio=10"), 0);
	wb_rec_close(w);
	r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	assert_non_null(r);
	assert_string_equal(wb_rec_note_at(r, 0, NULL), "set ?[2Jvm.dirty_ratio=10"); /* notes too */
	b = wb_rec_header_of(r);
	assert_string_equal(b->host, "evil?]0;owned?host");
	assert_string_equal(b->kernel, "6.18.0-test");
	assert_int_equal(b->page_size, h.page_size);
	assert_true(b->interval == 0.5);
	assert_string_equal(b->boot_id, h.boot_id);
	wb_rec_close_reader(r);
	unlink(path);
}


/*
 * A sample with every field set, to values that move with i (a few stay,
 * as most do between samples), within what the decoder accepts.
 */
static void full(struct wb_sample *s, int i)
{
	uint64_t u = (uint64_t)i;

	wb_sample_init(s);
	s->mono = 1000 + i * 1.000123;
	s->wall = 1.7e9 + i + 0.25;
	s->page_size = 4096;
	s->ncpus = 8 + (i % 3);
	s->level = i % 4;
	for (int k = 0; k < WB_SYS_COUNT; k++)
		s->sys[k] = 10 * (uint64_t)k + (i % 2);
	s->sys_valid = (1u << WB_SYS_COUNT) - 1;
	for (int k = 0; k < WB_G_COUNT; k++)
		s->g.v[k] = 1000 * (uint64_t)k + u * u;
	s->g.valid = ~0ULL >> (i % 5);
	s->nnodes = 2;
	s->nodes = calloc(2, sizeof(*s->nodes));
	for (size_t n = 0; n < 2; n++) {
		s->nodes[n].id = (int)n * 3;
		for (int k = 0; k < WB_N_COUNT; k++)
			s->nodes[n].v[k] = 7 * (uint64_t)k + u + n;
		s->nodes[n].valid = 0xff - u;
	}
	s->nzones = 3;
	s->zones = calloc(3, sizeof(*s->zones));
	for (size_t z = 0; z < 3; z++) {
		s->zones[z].node = (int)z / 2;
		snprintf(s->zones[z].name, sizeof(s->zones[z].name), "Zone%zu", z);
		for (int k = 0; k < WB_Z_COUNT; k++)
			s->zones[z].v[k] = 3 * (uint64_t)k + u * z;
		s->zones[z].valid = 0x3fff;
	}
	s->nbdis = 3;
	s->bdis = calloc(3, sizeof(*s->bdis));
	for (size_t b = 0; b < 3; b++) {
		struct wb_bdi *x = &s->bdis[b];
		snprintf(x->name, sizeof(x->name), "7:%zu", b);
		snprintf(x->dev, sizeof(x->dev), "loop%zu", b);
		snprintf(x->fstype, sizeof(x->fstype), "ext4");
		x->nmounts = (int)b;
		for (int m = 0; m < x->nmounts; m++)
			snprintf(x->mounts[m], WB_PATH_LEN, "/mnt/%zu/%d", b, m);
		for (int k = 0; k < WB_K_COUNT; k++) /* strict_limit is a flag: 0 or 1 */
			x->knob[k] = k == WB_K_STRICT_LIMIT ? (b + u) % 2 : (uint64_t)k + b + (i > 5 ? 5 : 0);
		x->knob_valid = 0x7f;
		for (int k = 0; k < WB_B_COUNT; k++)
			x->st[k] = 100 * (uint64_t)k + u * (b + 1);
		x->st[WB_B_DIRTY_THRESH] = s->g.v[WB_G_DIRTY_THRESH];
		x->st_valid = 0xffff - b;
		for (int k = 0; k < WB_D_COUNT; k++)
			x->disk[k] = 512 * u + (uint64_t)k;
		x->disk_valid = 3;
		x->ev = (struct wb_bdi_events){ .wake_bg = (uint32_t)i, .pauses = (uint32_t)b, .pause_ms_total = u * 9,
						.pause_ms_max = 200, .task_ratelimit = 1000 + u, .dirty_ratelimit = 2000,
						.balanced_ratelimit = 3000 - u, .wb_dirty_at_wake = 4000 + b,
						.dirtied_max = 32 + (uint32_t)i };
		for (int r = 0; r < WB_REASONS; r++)
			x->ev.start[r] = (uint32_t)(r + i);
		x->stats_cost_us = 150 + (uint32_t)i;
		x->stats_skipped = i % 2;
	}
	s->nprocs = 2;
	s->procs = calloc(2, sizeof(*s->procs));
	s->procs[0] = (struct wb_proc){ .pid = 4242, .comm = "dd", .state = 'D', .throttled = true,
					.write_bytes = 1u << 30, .cancelled_write_bytes = 4096, .write_bytes_delta = u << 20,
					.cancelled_delta = 1 };
	s->procs[1] = (struct wb_proc){ .pid = -1, .comm = "kworker/u8:1", .state = 'R' };
	s->procs_valid = true;
	s->ev_valid = true;
	for (int r = 0; r < WB_REASONS; r++)
		snprintf(s->reason_names[r], sizeof(s->reason_names[r]), "reason%d", r);
	for (int r = 0; r < WB_RECLAIM_REASONS; r++) {
		snprintf(s->reclaim_names[r], sizeof(s->reclaim_names[r]), "rc%d", r);
		s->reclaim_throttled[r] = (uint32_t)(r * i);
	}
	s->reclaim_delay_us = 777 + u;
	s->dirty_limit_valid = true;
	s->dirty_limit = 123456 + u;
	s->ev_total = 10 * u;
	s->ev_dropped = u / 3;
	s->ev_lost_log = 1;
	s->nevents = 3;
	s->events = calloc(3, sizeof(*s->events));
	for (size_t e = 0; e < 3; e++)
		s->events[e] = (struct wb_event){ .t = 999.5 + i + e * 0.000000001, .kind = (uint8_t)e, .reason = 7,
						  .pid = 100 + (int32_t)e, .bdi = "7:1", .comm = "cp", .value = e * 5,
						  .extra = 9 };
	s->events[2].t = 1000 + i + 1.0 / 3; /* not a whole number of ns: kept as its bits */
}

/* Every field of a and b equal (minor 0 files have no dirtied_max: want_dm false). */
static void assert_same(const struct wb_sample *a, const struct wb_sample *b, bool want_dm)
{
	assert_memory_equal(&a->mono, &b->mono, sizeof(a->mono));
	assert_memory_equal(&a->wall, &b->wall, sizeof(a->wall));
	assert_int_equal(a->page_size, b->page_size);
	assert_int_equal(a->ncpus, b->ncpus);
	assert_int_equal(a->level, b->level);
	assert_memory_equal(a->sys, b->sys, sizeof(a->sys));
	assert_int_equal(a->sys_valid, b->sys_valid);
	assert_memory_equal(&a->g, &b->g, sizeof(a->g));
	assert_int_equal(a->nnodes, b->nnodes);
	assert_memory_equal(a->nodes, b->nodes, a->nnodes * sizeof(*a->nodes));
	assert_int_equal(a->nzones, b->nzones);
	assert_memory_equal(a->zones, b->zones, a->nzones * sizeof(*a->zones));
	assert_int_equal(a->nbdis, b->nbdis);
	for (size_t i = 0; i < a->nbdis; i++) {
		struct wb_bdi x = a->bdis[i];
		if (!want_dm)
			x.ev.dirtied_max = 0;
		assert_memory_equal(&x, &b->bdis[i], sizeof(x));
	}
	assert_int_equal(a->nprocs, b->nprocs);
	assert_memory_equal(a->procs, b->procs, a->nprocs * sizeof(*a->procs));
	assert_int_equal(a->procs_valid, b->procs_valid);
	assert_int_equal(a->ev_valid, b->ev_valid);
	assert_memory_equal(a->reason_names, b->reason_names, sizeof(a->reason_names));
	assert_memory_equal(a->reclaim_names, b->reclaim_names, sizeof(a->reclaim_names));
	assert_memory_equal(a->reclaim_throttled, b->reclaim_throttled, sizeof(a->reclaim_throttled));
	assert_int_equal(a->reclaim_delay_us, b->reclaim_delay_us);
	assert_int_equal(a->dirty_limit_valid, b->dirty_limit_valid);
	assert_int_equal(a->dirty_limit, b->dirty_limit);
	assert_int_equal(a->ev_total, b->ev_total);
	assert_int_equal(a->ev_dropped, b->ev_dropped);
	assert_int_equal(a->ev_lost_log, b->ev_lost_log);
	assert_int_equal(a->nevents, b->nevents);
	assert_memory_equal(a->events, b->events, a->nevents * sizeof(*a->events));
}

/* Zero what formats 1 and 2 cannot hold: array entries past the enums' lengths of their time. */
static void legacy_only(struct wb_sample *s)
{
	for (int k = 8; k < WB_SYS_COUNT; k++)
		s->sys[k] = 0;
	for (int k = 20; k < WB_G_COUNT; k++)
		s->g.v[k] = 0;
	for (size_t n = 0; n < s->nnodes; n++)
		for (int k = 8; k < WB_N_COUNT; k++)
			s->nodes[n].v[k] = 0;
	for (size_t z = 0; z < s->nzones; z++)
		for (int k = 14; k < WB_Z_COUNT; k++)
			s->zones[z].v[k] = 0;
	for (size_t b = 0; b < s->nbdis; b++) {
		for (int k = 7; k < WB_K_COUNT; k++)
			s->bdis[b].knob[k] = 0;
		for (int k = 16; k < WB_B_COUNT; k++)
			s->bdis[b].st[k] = 0;
		for (int k = 2; k < WB_D_COUNT; k++)
			s->bdis[b].disk[k] = 0;
	}
}

/*
 * Every field round-trips, in key and delta frames, in every format this
 * wbtop can write (formats 1 and 2: the fields they had; a new enum entry
 * is carried by format 3 only).
 */
static void every_field_every_format(void **st)
{
	static const unsigned fmts[][2] = { { 1, 0 }, { 2, 0 }, { 2, 1 }, { WB_REC_MAJOR, WB_REC_MINOR } };
	struct wbrec_schema sc;
	char err[256];
	(void)st;
	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
		struct wb_sample prev, cur, back, dec_prev;
		wb_sample_init(&dec_prev);
		for (int i = 0; i < 10; i++) {
			struct wb_buf b = { 0 };
			bool key = i == 0 || i == 6;
			full(&cur, i);
			if (i)
				full(&prev, i - 1);
			assert_int_equal(wb_rec_encode_as(&cur, key ? NULL : &prev, fmts[f][0], fmts[f][1], &b), 0);
			wb_sample_init(&back);
			if (wb_rec_decode(b.p, b.len, key, fmts[f][0], fmts[f][1], key ? NULL : &dec_prev, &sc, &back,
					  err, sizeof(err)))
				fail_msg("format %u.%u, sample %d: %s", fmts[f][0], fmts[f][1], i, err);
			if (fmts[f][0] < 3)
				legacy_only(&cur);
			assert_same(&cur, &back, fmts[f][0] > 2 || fmts[f][1] >= 1);
			wb_sample_finish(&dec_prev);
			dec_prev = back;
			wb_buf_free(&b);
			wb_sample_finish(&cur);
			if (i)
				wb_sample_finish(&prev);
		}
		wb_sample_finish(&dec_prev);
	}
}

/* d's delta frame against c, encoded with and without the encoder's fast path: the same bytes. */
static void same_delta_both_ways(const struct wb_sample *c, const struct wb_sample *d)
{
	struct wb_buf fast = { 0 }, slow = { 0 };

	assert_int_equal(wb_rec_encode_as(d, c, WB_REC_MAJOR, WB_REC_MINOR, &fast), 0);
	wbrec_test_generic = 1;
	assert_int_equal(wb_rec_encode_as(d, c, WB_REC_MAJOR, WB_REC_MINOR, &slow), 0);
	wbrec_test_generic = 0;
	assert_int_equal(fast.len, slow.len);
	assert_memory_equal(fast.p, slow.p, fast.len);
	wb_buf_free(&fast);
	wb_buf_free(&slow);
}

/*
 * The encoder's delta fast path writes what the common walk writes: for
 * samples whose values move, stay (all, or a BDI's), or keep their bytes
 * while a reference moves (the global threshold under a BDI's stats), with
 * the test hook's longer and shorter sections too.
 */
static void delta_fast_path_same_bytes(void **st)
{
	static const int extras[] = { 0, 2, -1 };
	struct wb_sample a, b;
	(void)st;
	for (size_t x = 0; x < sizeof(extras) / sizeof(extras[0]); x++) {
		wbrec_test_extra = extras[x];
		for (int i = 1; i < 9; i++) {
			full(&a, i - 1);
			full(&b, i);
			same_delta_both_ways(&a, &b); /* most values move */
			wb_sample_finish(&b);
			full(&b, i - 1);
			same_delta_both_ways(&a, &b); /* nothing moves */
			b.g.v[WB_G_DIRTY_THRESH] += (uint64_t)i; /* a reference moves, the BDIs' bytes do not */
			b.bdis[1].disk[0] += 3;                  /* and one BDI's counter */
			same_delta_both_ways(&a, &b);
			wb_sample_finish(&a);
			wb_sample_finish(&b);
		}
	}
	wbrec_test_extra = 0;
}

static void change_zone_name(struct wb_sample *s) { s->zones[1].name[0] = 'X'; }
static void change_zone_node(struct wb_sample *s) { s->zones[2].node = 7; }
static void change_node_id(struct wb_sample *s) { s->nodes[1].id = 4; }
static void change_bdi_name(struct wb_sample *s) { s->bdis[2].name[2] = '9'; }
static void change_dev(struct wb_sample *s) { s->bdis[0].dev[0] = '\0'; }
static void change_fstype(struct wb_sample *s) { strcpy(s->bdis[1].fstype, "xfs"); }
static void change_mount(struct wb_sample *s) { s->bdis[2].mounts[1][1] = 'x'; }
static void change_nmounts(struct wb_sample *s) { s->bdis[2].nmounts = 1; }
static void change_reason(struct wb_sample *s) { s->reason_names[3][0] = 'R'; }
static void change_reclaim(struct wb_sample *s) { s->reclaim_names[1][0] = 'R'; }
static void drop_bdi(struct wb_sample *s) { s->nbdis = 2; }
static void drop_zone(struct wb_sample *s) { s->nzones = 2; }
static void after_nul(struct wb_sample *s) { s->bdis[0].name[sizeof(s->bdis[0].name) - 1] = 'z'; } /* not written */
static void numbers_only(struct wb_sample *s) { s->g.v[0]++; s->bdis[0].st[0]++; s->zones[0].v[0]++; }

/* wb_rec_same_structure says what comparing wb_rec_structure()'s bytes says. */
static void same_structure_as_bytes(void **st)
{
	static void (*const change[])(struct wb_sample *) = {
		change_zone_name, change_zone_node, change_node_id, change_bdi_name, change_dev, change_fstype,
		change_mount, change_nmounts, change_reason, change_reclaim, drop_bdi, drop_zone, after_nul,
		numbers_only,
	};
	(void)st;
	for (size_t c = 0; c < sizeof(change) / sizeof(change[0]); c++) {
		struct wb_sample a, b;
		struct wb_buf x = { 0 }, y = { 0 };
		full(&a, 3);
		full(&b, 3);
		change[c](&b);
		wb_rec_structure(&a, &x);
		wb_rec_structure(&b, &y);
		bool bytes = x.len == y.len && memcmp(x.p, y.p, x.len) == 0;
		assert_int_equal(wb_rec_same_structure(&a, &b), bytes);
		assert_int_equal(wb_rec_same_structure(&b, &a), bytes);
		assert_int_equal(bytes, change[c] == after_nul || change[c] == numbers_only);
		assert_true(wb_rec_same_structure(&a, &a));
		b.nbdis = 3; /* drop_bdi: the array still holds 3 to free */
		b.nzones = 3;
		wb_buf_free(&x);
		wb_buf_free(&y);
		wb_sample_finish(&a);
		wb_sample_finish(&b);
	}
}

/* Write n full samples to path (a key frame every 256, so 300 crosses one) with the test hook at extra. */
static void write_full(const char *path, int n, int extra)
{
	struct wb_rec_header h;
	struct wb_rec_writer *w;
	struct wb_sample s;
	char err[256];

	wb_rec_header_local(&h, 1.0);
	wbrec_test_extra = extra;
	w = wb_rec_create(path, &h, 0, err, sizeof(err));
	assert_non_null(w);
	for (int i = 0; i < n; i++) {
		full(&s, i % 10 + (i / 10) * 10);
		assert_int_equal(wb_rec_write(w, &s), 0);
		wb_sample_finish(&s);
	}
	wb_rec_close(w);
	wbrec_test_extra = 0;
}

/* The test hook: a key frame with an unknown section (13) and every section two fields longer. */
static void hook_writes_what_it_says(void)
{
	struct wb_buf plain = { 0 }, more = { 0 };
	struct wbrec_schema a, b;
	struct wb_sample s, back;
	char err[256];

	full(&s, 1);
	wb_sample_init(&back);
	assert_int_equal(wb_rec_encode_as(&s, NULL, 3, 0, &plain), 0);
	wbrec_test_extra = 2;
	assert_int_equal(wb_rec_encode_as(&s, NULL, 3, 0, &more), 0);
	wbrec_test_extra = 0;
	assert_int_equal(wb_rec_decode(plain.p, plain.len, true, 3, 0, NULL, &a, &back, err, sizeof(err)), 0);
	assert_int_equal(wb_rec_decode(more.p, more.len, true, 3, 0, NULL, &b, &back, err, sizeof(err)), 0);
	assert_same(&s, &back, true);
	assert_int_equal(b.n, a.n + 1);
	for (size_t k = 0, j = 0; k < b.n; k++) {
		if (b.sec[k].id == 13)
			continue;
		assert_int_equal(b.sec[k].id, a.sec[j].id);
		assert_int_equal(b.sec[k].fw, a.sec[j++].fw + 2);
	}
	wb_sample_finish(&s);
	wb_sample_finish(&back);
	wb_buf_free(&plain);
	wb_buf_free(&more);
}

/*
 * A newer writer's fields (in every section) and section are skipped; an
 * older writer's shorter sections leave the fields it did not have unknown (0).
 */
static void unknown_fields_and_sections_skipped(void **st)
{
	char path[] = "/tmp/wbtop-rec-XXXXXX", err[256], warn[256];
	int fd = mkstemp(path);
	struct wb_rec_reader *r;
	struct wb_sample s, want;
	struct stat plain, more;
	(void)st;
	close(fd);
	hook_writes_what_it_says();
	write_full(path, 300, 0);
	assert_int_equal(stat(path, &plain), 0);
	for (int extra = 2; extra >= -1; extra -= 3) {
		write_full(path, 300, extra);
		assert_int_equal(stat(path, &more), 0);
		assert_true(more.st_size != plain.st_size);
		r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
		assert_non_null(r);
		assert_string_equal(warn, "");
		assert_int_equal(wb_rec_count(r), 300);
		wb_sample_init(&s);
		for (size_t i = 0; i < 300; i++) {
			if (wb_rec_read(r, i, &s, err, sizeof(err)))
				fail_msg("extra %d, sample %zu: %s", extra, i, err);
			full(&want, (int)(i % 10 + (i / 10) * 10));
			if (extra < 0) { /* each section's last field was not written */
				assert_int_equal(s.sys[WB_SYS_COUNT - 1], 0);
				assert_int_equal(s.g.v[WB_G_COUNT - 1], 0);
				assert_int_equal(s.bdis[1].st[WB_B_COUNT - 1], 0);
				assert_int_equal(s.bdis[1].ev.dirtied_max, 0);
				assert_int_equal(s.bdis[2].nmounts, 0);
				assert_int_equal(s.level, 0);
				assert_int_equal(s.nodes[1].v[WB_N_COUNT - 1], 0);
				assert_int_equal(s.bdis[1].st[WB_B_WRITEBACK], want.bdis[1].st[WB_B_WRITEBACK]);
				assert_int_equal(s.g.v[0], want.g.v[0]);
			} else {
				assert_same(&want, &s, true);
			}
			wb_sample_finish(&want);
		}
		wb_sample_finish(&s);
		wb_rec_close_reader(r);
	}
	unlink(path);
}

/* Two recordings hold the same samples (rec-format3.wbrec is rec-format1.wbrec re-recorded: bench_record --rewrite). */
static void same_samples(const char *pa, const char *pb)
{
	char err[256], warn[256];
	struct wb_rec_reader *a = wb_rec_open(pa, err, sizeof(err), warn, sizeof(warn)),
			     *b = wb_rec_open(pb, err, sizeof(err), warn, sizeof(warn));
	struct wb_sample x, y;

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(wb_rec_count(a), wb_rec_count(b));
	assert_int_equal(wb_rec_notes(a), wb_rec_notes(b));
	wb_sample_init(&x);
	wb_sample_init(&y);
	for (size_t i = 0; i < wb_rec_count(a); i++) {
		assert_int_equal(wb_rec_read(a, i, &x, err, sizeof(err)), 0);
		assert_int_equal(wb_rec_read(b, i, &y, err, sizeof(err)), 0);
		assert_same(&x, &y, true);
	}
	wb_sample_finish(&x);
	wb_sample_finish(&y);
	wb_rec_close_reader(a);
	wb_rec_close_reader(b);
}

/* The shipped recordings of each format version read whole (their exports are checked by record.sh). */
static void each_format_version_read(void **st)
{
	static const struct {
		const char *path;
		unsigned major, minor;
	} files[] = {
		{ FIXTURES "/rec-format1.wbrec", 1, 0 },
		{ FIXTURES "/../../examples/scenarios/cache-thrash.wbrec", 2, 0 },
		{ FIXTURES "/../../bench/forecast-runs/1m-run1.wbrec", 2, 1 },
		{ FIXTURES "/rec-format3.wbrec", 3, 0 },
	};
	char err[256], warn[256];
	struct wb_sample s;
	(void)st;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct wb_rec_reader *r = wb_rec_open(files[f].path, err, sizeof(err), warn, sizeof(warn));
		if (!r)
			fail_msg("%s: %s", files[f].path, err);
		assert_int_equal(wb_rec_header_of(r)->major, files[f].major);
		assert_int_equal(wb_rec_header_of(r)->minor, files[f].minor);
		assert_true(wb_rec_count(r) > 10);
		wb_sample_init(&s);
		for (size_t i = 0; i < wb_rec_count(r); i++)
			if (wb_rec_read(r, i, &s, err, sizeof(err)))
				fail_msg("%s, sample %zu: %s", files[f].path, i, err);
		assert_true(s.nbdis > 0 && s.page_size == 4096);
		wb_sample_finish(&s);
		wb_rec_close_reader(r);
	}
	same_samples(FIXTURES "/rec-format1.wbrec", FIXTURES "/rec-format3.wbrec");
}

/* A scripted source for the recorder: sample i of a knob story (see knob_changes_become_notes). */
static int story_read(void *ctx, struct wb_sample *s)
{
	int *i = ctx;
	struct wb_sample t;

	if (*i >= 5)
		return -1;
	make(&t, *i, 2);
	t.sys_valid = WB_BIT(WB_SYS_DIRTY_RATIO) | WB_BIT(WB_SYS_DIRTY_BYTES);
	t.sys[WB_SYS_DIRTY_RATIO] = *i >= 1 ? 10 : 20;  /* 1: someone else lowers vm.dirty_ratio */
	for (size_t b = 0; b < 2; b++) {
		t.bdis[b].knob_valid = (1u << WB_K_COUNT) - 1;
		t.bdis[b].knob[WB_K_MAX_RATIO] = 100;
		t.bdis[b].knob[WB_K_MAX_RATIO_FINE] = 1000000;
		/* read back from the ratio and the dirty limit: it moves with free memory, nobody wrote it */
		t.bdis[b].knob[WB_K_MAX_BYTES] = 1000000 * (b + 1) + 4096 * (uint64_t)*i;
	}
	if (*i >= 2) { /* 2: wbtop sets bdi.8:0.min_ratio=5 (the kernel reads min_ratio_fine back too) */
		t.bdis[0].knob[WB_K_MIN_RATIO] = 5;
		t.bdis[0].knob[WB_K_MIN_RATIO_FINE] = 50000;
	}
	if (*i >= 3) { /* 3: someone else sets max_bytes and strict_limit of 8:16 */
		t.bdis[1].knob[WB_K_MAX_BYTES] = 16u << 20;
		t.bdis[1].knob[WB_K_MAX_RATIO] = 1;
		t.bdis[1].knob[WB_K_MAX_RATIO_FINE] = 10000;
		t.bdis[1].knob[WB_K_STRICT_LIMIT] = 1;
	}
	if (*i >= 4) /* 4: a knob that cannot be read is not a change */
		t.bdis[1].knob_valid &= ~WB_BIT(WB_K_STRICT_LIMIT);
	wb_sample_finish(s);
	*s = t;
	(*i)++;
	return 0;
}

/*
 * Issue #20 item 8: a knob or sysctl change seen between two recorded
 * samples becomes a note, whoever made it; one wbtop made is noted once (its
 * own note); a replay's next-event key lands on the sample that shows it.
 */
static void knob_changes_become_notes(void **st)
{
	char path[] = "/tmp/wbtop-rec-XXXXXX", err[256], warn[256];
	int fd = mkstemp(path), i = 0;
	struct wb_source src = { .ctx = &i, .read = story_read }, rp;
	struct wb_rec_header h;
	struct wb_rec_writer *w;
	struct wb_recorder *rec;
	struct wb_pipeline_sink sink;
	struct wb_pipeline *pl;
	struct wb_rec_reader *r;
	struct wb_replay *p;
	struct wb_sample s;
	double t;
	(void)st;
	close(fd);
	wb_rec_header_local(&h, 1.0);
	w = wb_rec_create(path, &h, 0, err, sizeof(err));
	assert_non_null(w);
	rec = wb_recorder_create(w);
	assert_non_null(rec);
	wb_recorder_sink(rec, &sink);
	pl = wb_pipeline_create(&(struct wb_pipeline_opts){ .sinks = &sink, .nsinks = 1 });
	assert_non_null(pl);
	wb_sample_init(&s);
	for (int k = 0; k < 5; k++) { /* the recorder as a sink: what the pipeline takes is recorded */
		if (k == 2)
			wb_pipeline_annotate(pl, "bdi.8:0.min_ratio=5");
		assert_int_equal(src.read(src.ctx, &s), 0);
		assert_int_equal(wb_pipeline_push(pl, &s, err, sizeof(err)), 0);
		assert_int_equal(wb_pipeline_diag(pl)->n, 0);
	}
	wb_pipeline_destroy(pl);
	wb_recorder_destroy(rec);
	wb_rec_close(w);
	r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	assert_non_null(r);
	assert_int_equal(wb_rec_count(r), 5);
	assert_int_equal(wb_rec_notes(r), 3);
	assert_string_equal(wb_rec_note_at(r, 0, &t), "vm.dirty_ratio 20 -> 10");
	assert_true(t == 101);
	assert_string_equal(wb_rec_note_at(r, 1, NULL), "bdi.8:0.min_ratio=5"); /* and nothing more for it */
	assert_string_equal(wb_rec_note_at(r, 2, &t), "bdi 8:16 max_ratio 100 -> 1; bdi 8:16 max_ratio_fine 1000000 -> "
						      "10000; bdi 8:16 max_bytes 2008192 -> 16777216; bdi 8:16 "
						      "strict_limit 0 -> 1");
	assert_true(t == 103);
	/* replayed: from the first sample, "next event" lands on the one that shows the change */
	p = wb_replay_create(r, 0, 0);
	wb_replay_source(p, &rp);
	assert_int_equal(rp.read(rp.ctx, &s), 0);
	assert_int_equal(rp.next_event(rp.ctx), 0);
	assert_int_equal(rp.read(rp.ctx, &s), 0);
	assert_true(s.mono == 101);
	assert_string_equal(rp.note(rp.ctx, NULL), "vm.dirty_ratio 20 -> 10");
	wb_sample_finish(&s);
	wb_replay_destroy(p);
	wb_rec_close_reader(r);
	unlink(path);
}

/*
 * n (next event) stops where an episode of throttling starts: after a quiet sample, when a
 * device is throttled that was not the sample before, and every 30 s of throttling that goes
 * on (an episode that never ended had no next one).
 */
static void throttling_episodes(void **st)
{
	char path[] = "/tmp/wbtop-rec-XXXXXX", err[256], warn[256];
	int fd = mkstemp(path), got[8], n = 0;
	static const int want[] = { 5, 20, 50, 85 };
	struct wb_rec_header h;
	struct wb_rec_writer *w;
	struct wb_rec_reader *r;
	struct wb_replay *p;
	struct wb_source rp;
	struct wb_sample s;
	(void)st;
	close(fd);
	wb_rec_header_local(&h, 1.0);
	w = wb_rec_create(path, &h, 0, err, sizeof(err));
	assert_non_null(w);
	for (int i = 0; i < 100; i++) {
		make(&s, i, 2);
		s.bdis[0].ev.pauses = (i >= 5 && i < 80) || i >= 85; /* 8:0 from 5 to 79, again from 85 */
		s.bdis[1].ev.pauses = i >= 20 && i < 80;              /* 8:16 joins at 20 */
		assert_int_equal(wb_rec_write(w, &s), 0);
		wb_sample_finish(&s);
	}
	wb_rec_close(w);
	r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	assert_non_null(r);
	p = wb_replay_create(r, 0, 0);
	wb_replay_source(p, &rp);
	wb_sample_init(&s);
	assert_int_equal(rp.read(rp.ctx, &s), 0);
	while (n < 8 && rp.next_event(rp.ctx) == 0 && rp.read(rp.ctx, &s) == 0)
		got[n++] = (int)lround(s.mono - 100);
	assert_int_equal(n, 4);
	for (int k = 0; k < 4; k++)
		assert_int_equal(got[k], want[k]);
	wb_sample_finish(&s);
	wb_replay_destroy(p);
	wb_rec_close_reader(r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(notes_keys_and_seek),
		cmocka_unit_test(decode_rejects_garbage),
		cmocka_unit_test(decoder_rejects_bad_values),
		cmocka_unit_test(truncated_while_open),
		cmocka_unit_test(mixed_writes_cut_whole),
		cmocka_unit_test(start_appends_or_refuses),
		cmocka_unit_test(root_boot_id),
		cmocka_unit_test(cut_short_while_recording),
		cmocka_unit_test(rotation_keeps_other_files),
		cmocka_unit_test(header_round_trip),
		cmocka_unit_test(every_field_every_format),
		cmocka_unit_test(delta_fast_path_same_bytes),
		cmocka_unit_test(same_structure_as_bytes),
		cmocka_unit_test(unknown_fields_and_sections_skipped),
		cmocka_unit_test(each_format_version_read),
		cmocka_unit_test(knob_changes_become_notes),
		cmocka_unit_test(throttling_episodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
