/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The on-disk layout shared by writer.c and reader.c (see wbrec(5)). Not installed. */
#ifndef WBTOP_WBREC_INTERNAL_H
#define WBTOP_WBREC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WBREC_MAGIC "WBREC\r\n\x1a"     /* 8 bytes: text-mode and EOF damage show */
#define WBREC_FRAME_MAGIC 0x52465742u   /* "BWFR" little-endian (format 1) */
#define WBREC_FRAME_HDR 28              /* format 1: fixed header */
/*
 * Format 2 frames: marker "WF", type, varint payload length, varint raw
 * length, varint zigzag time delta in microseconds from the previous frame
 * of the file, the payload, then a CRC-32 of everything before it.
 */
#define WBREC_FRAME2_M0 0x57
#define WBREC_FRAME2_M1 0x46
#define WBREC_FRAME2_MAX_HDR (3 + 3 * 10)  /* bound for size estimates */
#define WBREC_FRAME2_CRC 4

enum { FR_KEY = 1, FR_DELTA = 2, FR_NOTE = 3 };
enum { H_HOST = 1, H_KERNEL, H_BOOT_ID, H_TOOL, H_PAGE_SIZE, H_INTERVAL, H_CREATED };

static inline void le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* LEB128 varint into p (room for 10 bytes); returns its length. */
static inline size_t wbrec_put_uv(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			p[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

/* A varint from [p, end): its length, or 0 when cut short or over 10 bytes. */
static inline size_t wbrec_get_uv(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (size_t n = 0; n < 10 && p + n < end; n++) {
		*v |= (uint64_t)(p[n] & 0x7f) << (7 * n);
		if (!(p[n] & 0x80))
			return n + 1;
	}
	return 0;
}

/* Format 3: a key frame's number sections, which its delta frames refer to by position. */
#define WBREC_MAX_SECTIONS 64   /* sections in one frame (a delta frame's bitmap is a u64) */
struct wbrec_schema_sec {
	uint64_t id;
	uint8_t kind;           /* 0 the sample, 1 nodes, 2 zones, 3 BDIs, 4 counted */
	uint32_t fw;            /* fields the writer put in each item */
};
struct wbrec_schema {
	size_t n;
	struct wbrec_schema_sec sec[WBREC_MAX_SECTIONS];
};

/*
 * Tests only: n > 0, the encoder writes n more fields in every section (a
 * newer writer) and a section this wbtop does not know; n < 0, n fewer fields.
 */
extern int wbrec_test_extra;
/* Tests only: set, delta frames are encoded by the common walk alone (no fast path), to compare the two. */
extern int wbrec_test_generic;

/* CRC-32 (IEEE), table-driven (format.c). */
uint32_t wbrec_crc32(const uint8_t *p, size_t n);

/*
 * Frames written by a thread (bgwrite.c), so that a write throttled in
 * balance_dirty_pages does not hold the sampling loop. create: NULL if no
 * thread could be started (then write synchronously). put: copies the frame
 * and queues it; 0, or -errno of an earlier failed write (nothing is written
 * after one). drain: waits until everything queued is written; 0 or -errno.
 * done: the whole frames written since create or rebase (bytes, samples).
 * rebase: after the file was replaced, writes go to fd and count from 0.
 * idle: the queue is empty and nothing failed (a write of the caller's own
 * then keeps the order).
 * destroy: writes what is queued, then ends the thread (NULL: nothing).
 */
struct wb_bgwrite;
struct wb_bgwrite *wbrec_bgwrite_create(int fd);
int wbrec_bgwrite_put(struct wb_bgwrite *q, const uint8_t *frame, size_t n, bool sample);
int wbrec_bgwrite_error(struct wb_bgwrite *q);
/* Nothing queued or being written, and no failure: the caller may write itself. */
bool wbrec_bgwrite_idle(struct wb_bgwrite *q);
int wbrec_bgwrite_drain(struct wb_bgwrite *q);
void wbrec_bgwrite_done(struct wb_bgwrite *q, uint64_t *bytes, uint64_t *samples);
void wbrec_bgwrite_rebase(struct wb_bgwrite *q, int fd);
void wbrec_bgwrite_destroy(struct wb_bgwrite *q);

/* Where the last whole frame ends, and its time (format 2), for appending (reader.c). */
struct wb_rec_reader;
size_t wbrec_reader_end(const struct wb_rec_reader *r, int64_t *last_us);

#endif
