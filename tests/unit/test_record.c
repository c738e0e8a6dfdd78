// SPDX-License-Identifier: GPL-2.0-or-later
/* Recordings: notes, key frames, structure changes and seeking, in-process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "wbtop/record.h"

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
static void st_huge(struct wb_sample *s) { s->bdis[1].st[WB_B_WRITEBACK] = 1ULL << 62; }

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
		{ dirty_huge, "global counter 5: 9223372036854775808" }, { st_huge, "BDI 1 stats value 0" },
		{ ev_nan, "event 0 time nan" }, { ev_kind, "event 0 kind 4" }, { ev_reason, "event 0 reason 200" },
		{ ev_many, "event count" },
	};
	char err[256];
	size_t count;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(notes_keys_and_seek),
		cmocka_unit_test(decode_rejects_garbage),
		cmocka_unit_test(decoder_rejects_bad_values),
		cmocka_unit_test(truncated_while_open),
		cmocka_unit_test(start_appends_or_refuses),
		cmocka_unit_test(header_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
