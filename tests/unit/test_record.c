// SPDX-License-Identifier: GPL-2.0-or-later
/* Recordings: notes, key frames, structure changes and seeking, in-process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	assert_int_not_equal(wb_rec_decode(junk, sizeof(junk), true, WB_REC_MINOR, NULL, &s, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "damaged"));
	assert_int_not_equal(wb_rec_decode(junk, 0, true, WB_REC_MINOR, NULL, &s, err, sizeof(err)), 0);
	assert_int_not_equal(wb_rec_decode(junk, sizeof(junk), false, WB_REC_MINOR, NULL, &s, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(notes_keys_and_seek),
		cmocka_unit_test(decode_rejects_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
