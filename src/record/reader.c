// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Recording reader: read the file through a window (pread, never mmap: a
 * file cut short under us is damage, not SIGBUS), validate the header,
 * index the frames (stopping at a torn or damaged one), decode samples on
 * demand from the nearest key frame, keeping the decoder's place for
 * sequential reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "wbrec_internal.h"
#include "wbtop/record.h"

struct frame_ix {
	uint64_t off;   /* payload offset */
	uint32_t clen, rlen;
	double mono;
	uint32_t key;   /* index (into samples) of this sample's key frame */
	bool is_key;
};

struct note_ix {
	double mono;
	char *text;
};

#define WINDOW (1u << 20)  /* bytes read at a time */
#define MAX_MONO 1e10      /* seconds since boot: a frame time past it is damage */

struct wb_rec_reader {
	int fd;
	size_t size;            /* as it was when opened; later growth is not read */
	uint8_t *win;           /* bytes [win_off, win_off + win_len) of the file */
	size_t win_off, win_len, win_cap;
	struct wb_rec_header h;
	size_t end;             /* after the last whole frame */
	int64_t last_us;        /* that frame's time (format 2), microseconds */
	struct frame_ix *f;     /* sample frames only */
	size_t n, cap;
	struct note_ix *notes;
	size_t nnotes, notes_cap;
	ZSTD_DCtx *dctx;
	struct wbrec_schema schema; /* the current key frame's (format 3) */
	struct wb_sample cur;   /* last decoded sample */
	size_t cur_i;
	bool have_cur;
	uint8_t *raw;
	size_t raw_cap;
};

/*
 * Bytes [off, off + n) of the file, valid until the next call; NULL when the
 * file ends before them (errno set: 0 when it was cut short since it was opened).
 */
static const uint8_t *view(struct wb_rec_reader *r, size_t off, size_t n)
{
	size_t want = n > WINDOW ? n : WINDOW, got = 0;
	int e = 0;

	if (off >= r->win_off && n <= r->win_len && off - r->win_off <= r->win_len - n)
		return r->win + (off - r->win_off);
	if (want > r->win_cap) {
		uint8_t *nw = realloc(r->win, want);
		if (!nw)
			return NULL;
		r->win = nw;
		r->win_cap = want;
	}
	r->win_len = 0;
	while (got < want) {
		ssize_t k = pread(r->fd, r->win + got, want - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			e = k < 0 ? errno : 0;
			break;
		}
		got += (size_t)k;
	}
	r->win_off = off;
	r->win_len = got;
	errno = e;
	return got < n ? NULL : r->win;
}

const struct wb_rec_header *wb_rec_header_of(const struct wb_rec_reader *r)
{
	return &r->h;
}

size_t wb_rec_count(const struct wb_rec_reader *r)
{
	return r->n;
}

double wb_rec_time(const struct wb_rec_reader *r, size_t i)
{
	return i < r->n ? r->f[i].mono : 0;
}

size_t wb_rec_notes(const struct wb_rec_reader *r)
{
	return r->nnotes;
}

const char *wb_rec_note_at(const struct wb_rec_reader *r, size_t k, double *mono)
{
	if (k >= r->nnotes)
		return NULL;
	if (mono)
		*mono = r->notes[k].mono;
	return r->notes[k].text;
}

/* The header's numbers that a replay uses: damage when out of range (0 is "not recorded"). */
static int check_header(const struct wb_rec_header *h, const size_t *at, char *err, size_t errlen)
{
	if (h->page_size && (h->page_size < 1024 || h->page_size > (1u << 20) ||
			     (h->page_size & (h->page_size - 1))))
		snprintf(err, errlen, "damaged header: page size %u (offset %zu)", h->page_size, at[H_PAGE_SIZE]);
	/* 0 is "not recorded"; below -d's 0.05 s a replay would go sample after sample with no pause */
	else if (!(isfinite(h->interval) && (h->interval == 0 || (h->interval >= 0.05 - 1e-9 && h->interval <= 86400))))
		snprintf(err, errlen, "damaged header: sampling interval %g s (offset %zu)", h->interval, at[H_INTERVAL]);
	else if (!(isfinite(h->created) && h->created >= 0 && h->created <= 1e11))
		snprintf(err, errlen, "damaged header: creation time %g (offset %zu)", h->created, at[H_CREATED]);
	else
		return 0;
	return -1;
}

/*
 * A header string into its field: cut at its size or a NUL, control bytes
 * (a terminal's escape sequences) made '?': the replay header shows these.
 */
static void hstr(char *dst, size_t cap, const uint8_t *v, size_t n)
{
	size_t k;

	for (k = 0; k < n && k + 1 < cap && v[k]; k++)
		dst[k] = v[k] < 0x20 || v[k] == 0x7f ? '?' : (char)v[k];
	dst[k] = '\0';
}

/*
 * The first n bytes of a file (all of it when under 8) begin a recording:
 * its magic, or as much of it as a file cut short there holds.
 */
static bool magic_ok(const uint8_t *p, size_t n)
{
	return n > 0 && memcmp(p, WBREC_MAGIC, n < 8 ? n : 8) == 0;
}

int wb_rec_is_recording(int fd)
{
	uint8_t b[8];
	ssize_t k;

	do
		k = pread(fd, b, sizeof(b), 0);
	while (k < 0 && errno == EINTR);
	return k < 0 ? -errno : magic_ok(b, (size_t)k);
}

/* Header TLVs: known tags filled in, unknown ones (newer minors) skipped. */
static int parse_header(struct wb_rec_reader *r, char *err, size_t errlen, size_t *end)
{
	const uint8_t *p = r->size >= 16 ? view(r, 0, 16) : NULL;
	size_t o, at[H_CREATED + 1] = { 0 }; /* where each known field is, for messages */
	uint32_t hlen;

	if (!p) { /* the magic's first bytes in a short file: a recording cut short, not some other file */
		const uint8_t *q = r->size ? view(r, 0, r->size) : NULL;
		if (q && magic_ok(q, r->size))
			snprintf(err, errlen, "a recording cut short in its header (a truncated copy?): "
				 "%zu bytes, where a header has at least 16", r->size);
		else
			snprintf(err, errlen, r->size ? "not a wbtop recording (bad magic at offset 0)"
					 : "an empty file, not a recording");
		return -1;
	}
	if (!magic_ok(p, 8)) {
		snprintf(err, errlen, "not a wbtop recording (bad magic at offset 0)");
		return -1;
	}
	r->h.major = rd16(p + 8);
	r->h.minor = rd16(p + 10);
	if (r->h.major < 1 || r->h.major > WB_REC_MAJOR) {
		snprintf(err, errlen, "recording format %u.%u: this wbtop reads 1.x to %u.x only (offset 8)",
			 r->h.major, r->h.minor, WB_REC_MAJOR);
		return -1;
	}
	hlen = rd32(p + 12);
	if (hlen > 65536) {
		snprintf(err, errlen, "header length %u over the 65536 bytes a header may have (offset 12)", hlen);
		return -1;
	}
	if (hlen > r->size - 16) { /* said as the header's length only, it read as damage, not a cut copy */
		snprintf(err, errlen, "a recording cut short in its header (a truncated copy?): %zu bytes, where "
			 "the header alone is %zu (header length %u at offset 12)", r->size, 16 + (size_t)hlen, hlen);
		return -1;
	}
	if (!(p = view(r, 0, 16 + (size_t)hlen))) {
		snprintf(err, errlen, "reading the header: %s", errno ? strerror(errno) : "the file was cut short");
		return -1;
	}
	for (o = 16; o + 3 <= 16 + (size_t)hlen;) {
		uint8_t tag = p[o];
		uint16_t n = rd16(p + o + 1);
		const uint8_t *v = p + o + 3;

		if (o + 3 + n > 16 + (size_t)hlen) {
			snprintf(err, errlen, "header field %u overruns the header (offset %zu)", tag, o);
			return -1;
		}
		if (tag <= H_CREATED)
			at[tag] = o;
		switch (tag) {
		case H_HOST: hstr(r->h.host, sizeof(r->h.host), v, n); break;
		case H_KERNEL: hstr(r->h.kernel, sizeof(r->h.kernel), v, n); break;
		case H_BOOT_ID: hstr(r->h.boot_id, sizeof(r->h.boot_id), v, n); break;
		case H_TOOL: hstr(r->h.tool, sizeof(r->h.tool), v, n); break;
		case H_PAGE_SIZE: if (n == 4) r->h.page_size = rd32(v); break;
		case H_INTERVAL: if (n == 8) memcpy(&r->h.interval, v, 8); break;
		case H_CREATED: if (n == 8) memcpy(&r->h.created, v, 8); break;
		default: break; /* a newer minor version's field */
		}
		o += 3 + n;
	}
	*end = 16 + hlen;
	return check_header(&r->h, at, err, errlen);
}

static int add_frame(struct wb_rec_reader *r, const struct frame_ix *fx)
{
	if (r->n == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 1024;
		struct frame_ix *nf = realloc(r->f, nc * sizeof(*nf));
		if (!nf)
			return -1;
		r->f = nf;
		r->cap = nc;
	}
	r->f[r->n++] = *fx;
	return 0;
}

static int add_note(struct wb_rec_reader *r, const uint8_t *p, uint32_t len, double mono)
{
	struct note_ix *nn;

	if (len < 8)
		return 0;
	/* room doubled, not one more at a time: 80,000 notes took 56 s under ASAN */
	if (r->nnotes == r->notes_cap) {
		size_t cap = r->notes_cap ? r->notes_cap * 2 : 16;
		nn = realloc(r->notes, cap * sizeof(*nn));
		if (!nn)
			return -1;
		r->notes = nn;
		r->notes_cap = cap;
	}
	nn = r->notes;
	nn[r->nnotes].mono = mono;
	nn[r->nnotes].text = malloc(len - 8 + 1);
	if (!nn[r->nnotes].text)
		return -1;
	hstr(nn[r->nnotes].text, len - 8 + 1, p + 8, len - 8); /* the UI shows it: no escapes */
	r->nnotes++;
	return 0;
}

/* What a frame reader returns when pread failed: frame_at() names errno instead. */
static const char read_failed[] = "a read error";

/* Format 1: a fixed 28-byte header with the time as a double, CRC of the payload. */
static const char *frame1_at(struct wb_rec_reader *r, size_t o, uint8_t *type, struct frame_ix *fx,
			     size_t *next)
{
	const uint8_t *p = r->size - o >= WBREC_FRAME_HDR ? view(r, o, WBREC_FRAME_HDR) : NULL;
	uint32_t clen;

	if (!p)
		return errno ? read_failed : "a frame header cut short";
	if (rd32(p) != WBREC_FRAME_MAGIC)
		return "no frame marker";
	if (rd32(p + 8) > WB_REC_MAX_FRAME || rd32(p + 12) > WB_REC_MAX_FRAME)
		return "an impossible frame length";
	if ((clen = rd32(p + 8)) > r->size - o - WBREC_FRAME_HDR)
		return "a frame cut short";
	*type = p[4];
	fx->off = o + WBREC_FRAME_HDR;
	fx->clen = clen;
	fx->rlen = rd32(p + 12);
	memcpy(&fx->mono, p + 20, 8);
	if (!(p = view(r, o, WBREC_FRAME_HDR + (size_t)clen)))
		return errno ? read_failed : "a frame cut short";
	if (wbrec_crc32(p + WBREC_FRAME_HDR, clen) != rd32(p + 16))
		return "a checksum mismatch";
	*next = o + WBREC_FRAME_HDR + clen;
	return NULL;
}

/*
 * A format 2 frame's header at o: its type, lengths, time delta and the
 * header's length, checked to fit the file. NULL when it is fine, else why not.
 */
static const char *frame2_header(struct wb_rec_reader *r, size_t o, uint8_t *type, uint64_t *clen, uint64_t *rlen,
				 uint64_t *zd, size_t *hlen)
{
	size_t avail = r->size - o, hn = avail < WBREC_FRAME2_MAX_HDR ? avail : WBREC_FRAME2_MAX_HDR, k;
	const uint8_t *p = avail >= 3 + 3 + WBREC_FRAME2_CRC ? view(r, o, hn) : NULL, *end, *q;

	if (!p)
		return errno ? read_failed : "a frame header cut short";
	end = p + hn;
	if (p[0] != WBREC_FRAME2_M0 || p[1] != WBREC_FRAME2_M1)
		return "no frame marker";
	q = p + 3;
	if (!(k = wbrec_get_uv(q, end, clen)))
		return "a frame header cut short";
	q += k;
	if (!(k = wbrec_get_uv(q, end, rlen)))
		return "a frame header cut short";
	q += k;
	if (!(k = wbrec_get_uv(q, end, zd)))
		return "a frame header cut short";
	q += k;
	if (*clen > WB_REC_MAX_FRAME || *rlen > WB_REC_MAX_FRAME)
		return "an impossible frame length";
	*hlen = (size_t)(q - p);
	if (*clen + WBREC_FRAME2_CRC > avail - *hlen)
		return "a frame cut short";
	*type = p[2];
	return NULL;
}

/* Format 2: marker, type, varint lengths and time delta, payload, CRC of it all. */
static const char *frame2_at(struct wb_rec_reader *r, size_t o, int64_t *prev_us, uint8_t *type,
			     struct frame_ix *fx, size_t *next)
{
	const uint8_t *p;
	uint64_t clen, rlen, zd, d;
	size_t k;
	const char *why = frame2_header(r, o, type, &clen, &rlen, &zd, &k);

	if (why)
		return why;
	if (!(p = view(r, o, k + (size_t)clen + WBREC_FRAME2_CRC)))
		return errno ? read_failed : "a frame cut short";
	if (wbrec_crc32(p, k + (size_t)clen) != rd32(p + k + clen))
		return "a checksum mismatch";
	d = (zd >> 1) ^ (uint64_t)-(int64_t)(zd & 1); /* zigzag; added unsigned: wraps, never overflows */
	*prev_us = (int64_t)((uint64_t)*prev_us + d);
	fx->off = o + k;
	fx->clen = (uint32_t)clen;
	fx->rlen = (uint32_t)rlen;
	fx->mono = (double)*prev_us / 1e6;
	*next = fx->off + clen + WBREC_FRAME2_CRC;
	return NULL;
}

/*
 * One frame at offset o: type, payload position and lengths, time. NULL
 * when it is fine, else why it does not check out. Sample frames' times
 * must not go backwards (seeking searches them): last is the previous one's.
 */
static const char *frame_at(struct wb_rec_reader *r, size_t o, int64_t *prev_us, double last, uint8_t *type,
			    struct frame_ix *fx, size_t *next)
{
	const char *why = r->h.major == 1 ? frame1_at(r, o, type, fx, next)
					  : frame2_at(r, o, prev_us, type, fx, next);

	if (why)
		return why == read_failed ? strerror(errno) : why;
	if (!(isfinite(fx->mono) && fx->mono >= 0 && fx->mono <= MAX_MONO))
		return "an impossible frame time";
	if ((*type == FR_KEY || *type == FR_DELTA) && fx->mono < last)
		return "a sample frame time before the previous one's";
	return NULL;
}

static int decode_one(struct wb_rec_reader *r, size_t i, char *err, size_t errlen);

/*
 * A key frame at o that checks out whole and decodes, after damage: its
 * time is the decoded sample's (a format 2 frame's is a delta from the
 * frame before, which is lost). Indexed when it is fine (returns 0).
 */
static int key_at(struct wb_rec_reader *r, size_t o, int64_t *us, double last, struct frame_ix *fx, size_t *next)
{
	uint8_t type = 0;
	int64_t u = *us;
	char err[256];
	const char *why = r->h.major == 1 ? frame1_at(r, o, &type, fx, next) : frame2_at(r, o, &u, &type, fx, next);

	if (why || type != FR_KEY)
		return -1;
	fx->is_key = true;
	fx->key = (uint32_t)r->n;
	if (add_frame(r, fx))
		return -1;
	r->have_cur = false;
	if (decode_one(r, r->n - 1, err, sizeof(err)) || !(r->cur.mono >= last && r->cur.mono <= MAX_MONO)) {
		r->n--;
		r->have_cur = false;
		return -1;
	}
	r->f[r->n - 1].mono = r->cur.mono;
	*us = llround(r->cur.mono * 1e6);
	return 0;
}

/*
 * A format 2 key frame's header at o, before its checksum is worked out: the
 * type a key's, lengths that fit, and - for one over a megabyte, which a
 * sample rarely is - the next frame's marker or the file's end after it.
 * Damage that repeats a marker with a 16 MiB length had every candidate
 * read and checksummed 16 MiB: a 4 KiB run of them took 30 s, 1 MiB hours.
 */
static bool key_plausible(struct wb_rec_reader *r, size_t o)
{
	uint64_t clen, rlen, zd;
	uint8_t type = 0;
	size_t k, nx;
	const uint8_t *p;

	if (r->h.major == 1)
		return true;
	if (frame2_header(r, o, &type, &clen, &rlen, &zd, &k) || type != FR_KEY)
		return false;
	nx = o + k + (size_t)clen + WBREC_FRAME2_CRC;
	if (clen <= (1u << 20) || nx == r->size)
		return true;
	return r->size - nx >= 2 && (p = view(r, nx, 2)) && p[0] == WBREC_FRAME2_M0 && p[1] == WBREC_FRAME2_M1;
}

/*
 * After damage at o, the next key frame that checks out (a frame marker,
 * then lengths, checksum and payload all good), indexed; 0 when none.
 * Delta frames before it cannot be decoded without the samples they follow.
 */
static size_t resync(struct wb_rec_reader *r, size_t o, int64_t *us, size_t *next)
{
	static const uint8_t m1[] = { 'B', 'W', 'F', 'R' }, m2[] = { WBREC_FRAME2_M0, WBREC_FRAME2_M1 };
	const uint8_t *mk = r->h.major == 1 ? m1 : m2;
	size_t mlen = r->h.major == 1 ? sizeof(m1) : sizeof(m2);
	double last = r->n ? r->f[r->n - 1].mono : 0;

	for (size_t at = o + 1; at + mlen <= r->size;) {
		size_t n = r->size - at < WINDOW ? r->size - at : WINDOW, cand;
		const uint8_t *p = view(r, at, n), *hit;
		struct frame_ix fx;

		if (!p)
			return 0;
		if (!(hit = memmem(p, n, mk, mlen))) {
			at += n - mlen + 1;
			continue;
		}
		cand = at + (size_t)(hit - p);
		memset(&fx, 0, sizeof(fx));
		if (key_plausible(r, cand) && key_at(r, cand, us, last, &fx, next) == 0)
			return cand;
		at = cand + 1;
	}
	return 0;
}

/*
 * Walk the frames. A frame that does not check out is skipped up to the
 * next good key frame (the samples in between are lost, and said so);
 * with none after it, the recording ends there.
 */
static int index_frames(struct wb_rec_reader *r, size_t o, char *warn, size_t warnlen)
{
	uint32_t key = 0;
	bool have_key = false;
	int64_t us = 0;
	size_t spans = 0, first_len = 0;

	r->end = o;
	while (o < r->size) {
		struct frame_ix fx;
		uint8_t type = 0;
		size_t next = o, at, before = r->n;
		const char *why;

		memset(&fx, 0, sizeof(fx));
		why = frame_at(r, o, &us, r->n ? r->f[r->n - 1].mono : 0, &type, &fx, &next);
		if (why && (at = resync(r, o, &us, &next)) != 0) {
			double gap = r->f[r->n - 1].mono - (before ? r->f[before - 1].mono : r->f[r->n - 1].mono);
			if (!spans++) {
				snprintf(warn, warnlen, "offset %zu: %s; skipped %zu bytes to the next key frame "
					 "(%.0f s of samples lost)", o, why, at - o, gap);
				first_len = strlen(warn);
			} else if (first_len + 40 < warnlen) { /* the count after the first span's words, once */
				warn[first_len] = '\0';
				snprintf(warn + first_len, warnlen - first_len, "; %zu damaged spans", spans);
			}
			key = (uint32_t)before;
			have_key = true;
			o = next;
			r->end = o;
			r->last_us = us;
			continue;
		}
		if (why) {
			char m[160];
			snprintf(m, sizeof(m), "offset %zu: %s; replaying the %zu samples before it", o, why, r->n);
			if (spans && strlen(warn) + strlen(m) + 3 < warnlen)
				snprintf(strchr(warn, '\0'), warnlen - strlen(warn), "; %s", m);
			else if (!spans)
				snprintf(warn, warnlen, "%s", m);
			return 0;
		}
		if (type == FR_NOTE) {
			const uint8_t *pay = view(r, fx.off, fx.clen); /* just read: no I/O */
			if (!pay || add_note(r, pay, fx.clen, fx.mono))
				return -1;
		} else if (type == FR_KEY || (type == FR_DELTA && have_key)) {
			if (type == FR_KEY) {
				key = (uint32_t)r->n;
				have_key = true;
			}
			fx.is_key = type == FR_KEY;
			fx.key = key;
			if (add_frame(r, &fx))
				return -1;
		} /* unknown frame types (a newer minor) are skipped */
		o = next;
		r->end = o;
		r->last_us = us;
	}
	return 0;
}

size_t wbrec_reader_end(const struct wb_rec_reader *r, int64_t *last_us)
{
	*last_us = r->last_us;
	return r->end;
}

/*
 * Open path for reading if it is a regular file: O_NONBLOCK so that a FIFO
 * cannot block the open, then fstat. The fd and the file's size, or -1 with a message (without
 * the path: the caller names it).
 */
static int open_regular(const char *path, size_t *size, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s", strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "is a directory, not a recording");
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file (a %s), not a recording",
			 S_ISFIFO(st.st_mode) ? "FIFO" : S_ISCHR(st.st_mode) ? "character device"
			 : S_ISBLK(st.st_mode) ? "block device" : "socket or other special file");
	} else {
		*size = (size_t)st.st_size;
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

struct wb_rec_reader *wb_rec_open(const char *path, char *err, size_t errlen, char *warn, size_t warnlen)
{
	struct wb_rec_reader *r = calloc(1, sizeof(*r));
	char wbuf[256] = "";
	size_t o;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	wb_sample_init(&r->cur);
	if ((r->fd = open_regular(path, &r->size, err, errlen)) < 0)
		goto fail;
	if (parse_header(r, err, errlen, &o))
		goto fail;
	if (!(r->dctx = ZSTD_createDCtx()) || index_frames(r, o, wbuf, sizeof(wbuf))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	r->win_len = 0; /* decoding reads the file afresh: a cut since now is seen as one */
	r->have_cur = false; /* a key frame decoded while indexing is not the decoder's place */
	if (warn && warnlen)
		snprintf(warn, warnlen, "%s", wbuf);
	return r;
fail:
	wb_rec_close_reader(r);
	return NULL;
}

void wb_rec_close_reader(struct wb_rec_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->win);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i].text);
	free(r->notes);
	free(r->f);
	free(r->raw);
	ZSTD_freeDCtx(r->dctx);
	wb_sample_finish(&r->cur);
	free(r);
}

/* Decode sample frame i on top of the current decoder state. */
static int decode_one(struct wb_rec_reader *r, size_t i, char *err, size_t errlen)
{
	const struct frame_ix *fx = &r->f[i];
	const uint8_t *pay = view(r, fx->off, fx->clen);
	ZSTD_inBuffer in = { pay, fx->clen, 0 };
	ZSTD_outBuffer out;
	struct wb_sample next;
	int rc;

	if (!pay) { /* it was there when the file was indexed */
		snprintf(err, errlen, "offset %llu: %s", (unsigned long long)fx->off,
			 errno ? strerror(errno) : "the file was cut short while it was open");
		r->have_cur = false;
		return -1;
	}

	if (fx->is_key)
		ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
	if (fx->rlen > r->raw_cap) {
		uint8_t *nr = realloc(r->raw, fx->rlen);
		if (!nr) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		r->raw = nr;
		r->raw_cap = fx->rlen;
	}
	out = (ZSTD_outBuffer){ r->raw, fx->rlen, 0 };
	/* consume the whole frame: a flushed block may end in bytes that produce no output */
	for (;;) {
		size_t ip = in.pos, op = out.pos, z = ZSTD_decompressStream(r->dctx, &out, &in);
		if (ZSTD_isError(z)) {
			snprintf(err, errlen, "offset %llu: %s", (unsigned long long)fx->off, ZSTD_getErrorName(z));
			r->have_cur = false;
			return -1;
		}
		if ((in.pos == in.size && out.pos == out.size) || (in.pos == ip && out.pos == op))
			break;
	}
	if (out.pos != fx->rlen || in.pos != in.size) {
		snprintf(err, errlen, "offset %llu: frame decodes to %zu bytes, not %u",
			 (unsigned long long)fx->off, out.pos, fx->rlen);
		r->have_cur = false;
		return -1;
	}
	wb_sample_init(&next);
	rc = wb_rec_decode(r->raw, fx->rlen, fx->is_key, r->h.major, r->h.minor,
			   r->have_cur ? &r->cur : NULL, &r->schema, &next, err, errlen);
	/* a key frame's time against the sample before it (wb_rec_decode checks a delta frame's) */
	if (rc == 0 && r->have_cur && r->cur_i + 1 == i && next.mono < r->cur.mono) {
		snprintf(err, errlen, "damaged frame (sample time %.6f before the previous sample's %.6f)",
			 next.mono, r->cur.mono);
		wb_sample_finish(&next);
		rc = -1;
	}
	if (rc) {
		char m[200];
		snprintf(m, sizeof(m), "%s", err);
		snprintf(err, errlen, "offset %llu: %s", (unsigned long long)fx->off, m);
		r->have_cur = false;
		return -1;
	}
	wb_sample_finish(&r->cur);
	r->cur = next;
	r->cur_i = i;
	r->have_cur = true;
	return 0;
}

int wb_rec_read(struct wb_rec_reader *r, size_t i, struct wb_sample *s, char *err, size_t errlen)
{
	size_t from;

	if (i >= r->n) {
		snprintf(err, errlen, "sample %zu: the recording has %zu", i, r->n);
		return -1;
	}
	/* continue from where the decoder is if that is on the way, else from the key frame */
	if (r->have_cur && r->cur_i <= i && r->f[i].key <= r->cur_i)
		from = r->cur_i + 1;
	else
		from = r->f[i].key;
	if (r->have_cur && r->cur_i == i)
		from = i + 1;
	for (size_t k = from; k <= i; k++)
		if (decode_one(r, k, err, errlen))
			return -1;
	if (wb_sample_copy(s, &r->cur))
		return -1;
	s->level_why = WB_WHY_RECORDING;
	return 0;
}

size_t wb_rec_next_key(const struct wb_rec_reader *r, size_t i)
{
	size_t j = i + 1;

	while (j < r->n && !r->f[j].is_key)
		j++;
	return j < r->n ? j : r->n;
}

size_t wb_rec_seek_time(const struct wb_rec_reader *r, double t)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->f[mid].mono < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
