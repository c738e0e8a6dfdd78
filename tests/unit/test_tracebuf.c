// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * wbtop's sub-buffer walker against libtraceevent's kbuffer on the same
 * sub-buffers: every record at the same place, with the same time and
 * length, over random mixes of short and long records, time extends,
 * absolute time stamps, padding and a commit word with its flag bits set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <kbuffer.h>

#include "wbtop/tracebuf.h"

#define SUB 65536
#define HDR (8 + sizeof(long))

static uint32_t rng = 12345;
static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

/* The kernel's event header on this machine: type_len:5, time_delta:27. */
static uint32_t hdr(uint32_t type, uint32_t delta)
{
	const int le = *(const unsigned char *)&(const int){ 1 };
	return le ? type | delta << 5 : type << 27 | delta;
}

static size_t put4(unsigned char *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, 4);
	return off + 4;
}

/* A sub-buffer of random records up to about fill bytes; returns its committed size. */
static uint32_t make_sub(unsigned char *p, size_t fill, unsigned long flags)
{
	uint64_t ts = 1000000000ULL + rnd(1000000);
	size_t off = HDR;
	unsigned long commit;

	memset(p, 0, SUB);
	memcpy(p, &ts, 8);
	while (off + 128 < fill) { /* the longest record below is 116 bytes */
		uint32_t k = rnd(100), delta = rnd(1u << 27), n;

		if (k < 70) { /* short record: type_len 1..28 words of data */
			n = 1 + rnd(28);
			off = put4(p, off, hdr(n, delta));
			for (uint32_t i = 0; i < n; i++)
				off = put4(p, off, rnd(65536));
		} else if (k < 80) { /* long record: length (itself included) in array[0] */
			n = 4 * (1 + rnd(15));
			off = put4(p, off, hdr(0, delta));
			off = put4(p, off, n + 4);
			for (uint32_t i = 0; i < n / 4; i++)
				off = put4(p, off, rnd(65536));
		} else if (k < 88) { /* time extend */
			off = put4(p, off, hdr(30, delta));
			off = put4(p, off, rnd(1u << 20));
		} else if (k < 93) { /* absolute time stamp */
			off = put4(p, off, hdr(31, delta));
			off = put4(p, off, rnd(1u << 30));
		} else { /* padding (a discarded record): length after the header in array[0] */
			n = 4 * rnd(12);
			off = put4(p, off, hdr(29, 1 + rnd(100)));
			off = put4(p, off, n + 4);
			off += n;
		}
	}
	commit = (unsigned long)(off - HDR) | flags;
	memcpy(p + 8, &commit, sizeof(long));
	return (uint32_t)(off - HDR);
}

static void same_as_kbuffer(void **state)
{
	unsigned char *p = malloc(SUB);
	struct kbuffer *kb = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					   *(const unsigned char *)&(const int){ 1 } ? KBUFFER_ENDIAN_LITTLE
										     : KBUFFER_ENDIAN_BIG);
	unsigned long flags[] = { 0, 1ul << 31, 3ul << 30 };
	size_t total = 0;
	(void)state;

	assert_non_null(p);
	assert_non_null(kb);
	for (int round = 0; round < 600; round++) {
		struct wb_subbuf w;
		unsigned long long kts = 0;
		uint32_t len = 0;
		const void *mine, *theirs;
		size_t fill = round % 3 == 0 ? SUB : HDR + rnd(SUB - HDR);

		make_sub(p, fill, flags[round % 3]);
		assert_int_equal(kbuffer_load_subbuffer(kb, p), 0);
		wb_subbuf_load(&w, p, SUB);
		theirs = kbuffer_read_event(kb, &kts);
		for (;;) {
			mine = wb_subbuf_next(&w, &len);
			assert_ptr_equal(mine, theirs);
			if (!mine)
				break;
			assert_int_equal(w.ts, kts);
			assert_int_equal(len, kbuffer_event_size(kb));
			total++;
			theirs = kbuffer_next_event(kb, &kts);
		}
	}
	assert_true(total > 100000);
	kbuffer_free(kb);
	free(p);
}

/* A sub-buffer shorter than its header, or empty, has no records. */
static void short_and_empty(void **state)
{
	unsigned char p[64] = { 0 };
	struct wb_subbuf w;
	uint32_t len;
	(void)state;

	wb_subbuf_load(&w, p, 4);
	assert_null(wb_subbuf_next(&w, &len));
	wb_subbuf_load(&w, p, sizeof(p));
	assert_null(wb_subbuf_next(&w, &len));
	/* a commit beyond what was read stops at the end of the read */
	unsigned long commit = 1000;
	memcpy(p + 8, &commit, sizeof(long));
	put4(p, HDR, hdr(2, 5));
	wb_subbuf_load(&w, p, HDR + 12);
	assert_non_null(wb_subbuf_next(&w, &len));
	assert_int_equal(len, 8);
	assert_null(wb_subbuf_next(&w, &len));
}

/* Lost events: overwritten, lost to a nested writer, refused when full; the byte count is not one. */
static void lost_counts(void **state)
{
	(void)state;
	assert_int_equal(wb_rb_lost("entries: 949\noverrun: 7\ncommit overrun: 2\nbytes: 51596\n"
				    "oldest event ts:   860.451322\nnow ts: 55607.096655\ndropped events: 3\n"
				    "read events: 40\n"),
			 12);
	assert_int_equal(wb_rb_lost("entries: 1\noverrun: 0\ncommit overrun: 0\n"), 0);
	assert_int_equal(wb_rb_lost(""), 0);
	assert_int_equal(wb_rb_lost(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_as_kbuffer),
		cmocka_unit_test(short_and_empty),
		cmocka_unit_test(lost_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
