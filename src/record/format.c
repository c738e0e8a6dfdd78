// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The recording codec: one description of a sample (a table of sections,
 * one per entity, each a table of fields) and one walk over it that either
 * encodes or decodes, so the two directions cannot disagree. Numbers are
 * zigzag varints, in delta frames as differences from the previous sample
 * (most are 0: one byte each, and zstd folds the runs); strings are
 * length-prefixed. Format 3 puts each entity in a section: a key frame
 * gives each one's id, length and field count, so that a reader skips a
 * section or fields it does not know; its delta frames name the sections
 * they carry by a bitmap (wbrec(5)). Formats 1 and 2 are the same fields in
 * their historic order (wbrec_fields.h: legacy groups). Every read is
 * bounds-checked: a hostile file makes decoding fail, never overrun or
 * allocate from an unchecked size.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wbrec_fields.h"
#include "wbrec_internal.h"
#include "wbtop/record.h"

#define MAX_CPUS (1u << 16)
#define MAX_MONO 1e9    /* seconds since boot: 31 years (and t * 1e9 fits an int64 for llround) */
#define MAX_WALL 1e11   /* seconds since 1970: the year 5138 */
#define MAX_SECTIONS WBREC_MAX_SECTIONS

int wbrec_test_extra;
int wbrec_test_generic;

uint32_t wbrec_crc32(const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	uint32_t c = 0xffffffffu;

	if (!table[1]) /* built on first use; idempotent if raced */
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t v = i;
			for (int k = 0; k < 8; k++)
				v = (v >> 1) ^ (0xedb88320u & (uint32_t)-(int32_t)(v & 1));
			table[i] = v;
		}
	for (size_t i = 0; i < n; i++)
		c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

void wb_buf_free(struct wb_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Room for n more bytes in b (false when out of memory: b->oom set). */
static bool reserve(struct wb_buf *b, size_t n)
{
	if (b->oom)
		return false;
	if (b->len + n > b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 1024;
		uint8_t *np;
		while (nc < b->len + n)
			nc *= 2;
		np = realloc(b->p, nc);
		if (!np) {
			b->oom = true;
			return false;
		}
		b->p = np;
		b->cap = nc;
	}
	return true;
}

static void put(struct wb_buf *b, const void *p, size_t n)
{
	if (n == 0 || !reserve(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_uv(struct wb_buf *b, uint64_t v)
{
	uint8_t t[10];

	put(b, t, wbrec_put_uv(t, v));
}

/* ---- the description (wbrec_fields.h) ---- */

static const struct section *section_of(unsigned id)
{
	for (size_t k = 0; k < NSECTIONS; k++)
		if (sections[k].id == id)
			return &sections[k];
	return NULL;
}

/* Slots of a section: one per field element. */
static size_t slots_of(const struct section *sec)
{
	size_t n = 0;

	for (size_t k = 0; k < sec->nf; k++)
		n += sec->f[k].n;
	return n;
}

/* ---- the walk ---- */

/* One pass over the description: encoding s into b, or decoding [p, end) into s. */
struct walk {
	bool enc, delta, bad, nonzero;
	struct wb_buf *b;
	const uint8_t *p, *end;
	size_t fw;                      /* decoding: slots the writer put in this section */
	uint64_t prev_ns;               /* event times: the previous event's, in ns (wraps, never overflows) */
	struct wb_sample *s;            /* read when encoding, filled when decoding */
	const struct wb_sample *prev;   /* deltas are against it; NULL in a key frame */
	const char *what;               /* the first thing that did not fit */
	char msg[96];
};

/* Damage: the first thing named wins. */
static void fail(struct walk *w, const char *what)
{
	if (!w->bad)
		w->what = what;
	w->bad = true;
}

/* A decoded value out of its range: damage, named with the value. */
static void reject(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	if (w->bad)
		return;
	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
	va_end(ap);
	fail(w, w->msg);
}

static uint64_t get_uv(struct walk *w)
{
	uint64_t v = 0;
	size_t n = w->bad ? 0 : wbrec_get_uv(w->p, w->end, &v);

	if (!n) {
		w->bad = true;
		return 0;
	}
	w->p += n;
	return v;
}

/* One varint, zigzag (signed) or plain: v written, or one read and returned. */
static uint64_t code_uv(struct walk *w, uint64_t v, bool zz)
{
	uint64_t z;

	if (w->enc) {
		w->nonzero |= v != 0;
		put_uv(w->b, zz ? (v << 1) ^ (uint64_t)((int64_t)v >> 63) : v);
		return v;
	}
	z = get_uv(w);
	return zz ? (z >> 1) ^ (uint64_t)-(int64_t)(z & 1) : z;
}

static uint64_t dbits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	return u;
}

static double bitsd(uint64_t u)
{
	double d;
	memcpy(&d, &u, sizeof(d));
	return d;
}

/* Bytes of one element of a number field. */
static size_t elem_size(const struct field *f)
{
	switch (f->type) {
	case T_U64: case T_DBL: return 8;
	case T_U32: case T_I32: return 4;
	case T_U8: case T_CHAR: return 1;
	case T_BOOL: return sizeof(bool);
	case T_INT: case T_UVI: return sizeof(int);
	default: return f->sz;
	}
}

/* A number field's element as 64 bits (signed ones sign-extended, doubles as their bits). */
static uint64_t load(const struct field *f, const void *p)
{
	uint64_t v = 0;
	uint32_t u32;

	switch (f->type) {
	case T_U64: case T_DBL: memcpy(&v, p, 8); return v;
	case T_U32: memcpy(&u32, p, 4); return u32;
	case T_U8: return *(const uint8_t *)p;
	case T_CHAR: return (uint8_t)*(const char *)p;
	case T_BOOL: return *(const bool *)p;
	case T_INT: case T_UVI: return (uint64_t)(int64_t)*(const int *)p;
	case T_I32: return (uint64_t)(int64_t)*(const int32_t *)p;
	default: return 0;
	}
}

/* Store v into a number field's element; false (nothing stored) when it does not fit. */
static bool store(const struct field *f, void *p, uint64_t v)
{
	int64_t sv = (int64_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (f->type) {
	case T_U64: case T_DBL: memcpy(p, &v, 8); return true;
	case T_U32: if (v > UINT32_MAX) return false; memcpy(p, &u32, 4); return true;
	case T_U8: if (v > UINT8_MAX) return false; *(uint8_t *)p = (uint8_t)v; return true;
	case T_CHAR: if (v > UINT8_MAX) return false; *(char *)p = (char)(uint8_t)v; return true;
	case T_BOOL: if (v > 1) return false; *(bool *)p = v != 0; return true;
	case T_INT: case T_UVI: case T_I32:
		if (sv < INT32_MIN || sv > INT32_MAX)
			return false;
		if (f->type == T_I32)
			*(int32_t *)p = (int32_t)sv;
		else
			*(int *)p = (int)sv;
		return true;
	default: return false;
	}
}

/* The item i of a kind in s (the sample itself for K_SAMPLE). */
static void *item_of(const struct wb_sample *s, int kind, size_t i)
{
	switch (kind) {
	case K_NODE: return &s->nodes[i];
	case K_ZONE: return &s->zones[i];
	case K_BDI: return &s->bdis[i];
	case K_PROC: return &s->procs[i];
	case K_EVENT: return &s->events[i];
	default: return (void *)s;
	}
}

static size_t count_of(const struct wb_sample *s, int kind)
{
	switch (kind) {
	case K_NODE: return s->nnodes;
	case K_ZONE: return s->nzones;
	case K_BDI: return s->nbdis;
	case K_PROC: return s->nprocs;
	case K_EVENT: return s->nevents;
	default: return 1;
	}
}

/* An array of n zeroed items of size sz into *arr (freeing what was there): 0, or -1 out of memory. */
static int items_alloc(void **arr, size_t *cnt, size_t n, size_t sz)
{
	free(*arr);
	*arr = n ? calloc(n, sz) : NULL;
	*cnt = *arr ? n : 0;
	return n && !*arr ? -1 : 0;
}

/* A counted section's item count: written, or read (bounded, never trusted) and the array made. */
static int code_count(struct walk *w, int kind)
{
	struct wb_sample *s = w->s;
	void *a;
	size_t n = count_of(s, kind);
	int rc;

	if (w->enc) {
		code_uv(w, n, false);
		return 0;
	}
	n = (size_t)code_uv(w, 0, false);
	if (n > kinds[kind].max || w->bad) {
		fail(w, kinds[kind].count);
		n = 0;
	}
	switch (kind) { /* through a void *: each array keeps its own type */
	case K_NODE: a = s->nodes; rc = items_alloc(&a, &s->nnodes, n, sizeof(*s->nodes)); s->nodes = a; break;
	case K_ZONE: a = s->zones; rc = items_alloc(&a, &s->nzones, n, sizeof(*s->zones)); s->zones = a; break;
	case K_BDI: a = s->bdis; rc = items_alloc(&a, &s->nbdis, n, sizeof(*s->bdis)); s->bdis = a; break;
	case K_PROC: a = s->procs; rc = items_alloc(&a, &s->nprocs, n, sizeof(*s->procs)); s->procs = a; break;
	case K_EVENT: a = s->events; rc = items_alloc(&a, &s->nevents, n, sizeof(*s->events)); s->events = a; break;
	default: rc = 0;
	}
	return rc;
}

/* A string field of cap bytes: length and bytes (a string as long as its field is damage). */
static void code_str(struct walk *w, char *str, size_t cap, const char *what)
{
	uint64_t n;

	if (w->enc) {
		n = strnlen(str, cap);
		code_uv(w, n, false);
		put(w->b, str, (size_t)n);
		return;
	}
	n = get_uv(w);
	if (w->bad || n >= cap || n > (uint64_t)(w->end - w->p)) {
		fail(w, what);
		str[0] = '\0';
		return;
	}
	memcpy(str, w->p, (size_t)n);
	str[n] = '\0';
	w->p += n;
}

/* A BDI's mount points: their count, then each. */
static void code_mounts(struct walk *w, struct wb_bdi *x)
{
	uint64_t n = code_uv(w, (uint64_t)x->nmounts, false);

	if (!w->enc) {
		if (n > WB_MAX_MOUNTS)
			fail(w, "mount count");
		x->nmounts = w->bad ? 0 : (int)n;
	}
	for (int m = 0; m < x->nmounts && m < WB_MAX_MOUNTS && !w->bad; m++)
		code_str(w, x->mounts[m], WB_PATH_LEN, "mount point");
}

/*
 * An event time. Trace-clock times are whole nanoseconds (t = ns / 1e9), so
 * they are kept as nanosecond deltas from the previous event: a few bytes
 * instead of a double, and ns recovers t exactly. Other times: the bits.
 */
static void code_evtime(struct walk *w, double *t)
{
	int64_t ns = w->enc ? llround(*t * 1e9) : 0;
	bool exact = w->enc && (double)ns / 1e9 == *t;

	if (code_uv(w, exact, true)) {
		w->prev_ns += code_uv(w, (uint64_t)ns - w->prev_ns, true);
		if (!w->enc)
			*t = (double)(int64_t)w->prev_ns / 1e9;
	} else {
		uint64_t b = code_uv(w, dbits(*t), true);
		if (!w->enc)
			*t = bitsd(b);
	}
}

/*
 * What a BDI figure is stored relative to: the global thresholds every stats
 * file repeats, an idle device's floor shared by all idle devices (the
 * previous device's), the root wb's share of its BDI's. Relative to these,
 * they are 0 sample after sample.
 */
static uint64_t ref_of(const struct field *f, const struct wb_sample *s, size_t i, size_t k)
{
	if (f->ref != R_BDI_ST)
		return 0;
	switch (k) {
	case WB_B_DIRTY_THRESH: return s->g.v[WB_G_DIRTY_THRESH];
	case WB_B_BG_THRESH: return s->g.v[WB_G_BG_THRESH];
	case WB_B_THRESH: return i > 0 ? s->bdis[i - 1].st[WB_B_THRESH] : 0;
	case WB_B_WB_THRESH: return s->bdis[i].st[WB_B_THRESH];
	default: return 0;
	}
}

/* A number: its difference from the previous sample's (delta) or itself, less its reference. */
static void code_num(struct walk *w, const struct field *f, size_t i, size_t e, uint8_t *cur, const uint8_t *prv,
		     bool absent)
{
	uint64_t ref = ref_of(f, w->s, i, e), base = prv ? load(f, prv) - ref_of(f, w->prev, i, e) : 0, v;
	bool zz = f->type != T_UVI;

	if (w->enc) {
		code_uv(w, load(f, cur) - ref - base, zz);
		return;
	}
	v = base + (absent ? 0 : code_uv(w, 0, zz)) + ref;
	if (w->bad)
		return;
	if (f->lo < f->hi && ((int64_t)v < f->lo || (int64_t)v > f->hi))
		reject(w, "%s %lld, not %lld..%lld", f->name, (long long)(int64_t)v, (long long)f->lo,
		       (long long)f->hi);
	else if (!store(f, cur, v))
		reject(w, "%s %llu does not fit its field", f->name, (unsigned long long)v);
}

/* Element e of field f of item i (slot `slot` of its section), one way or the other. */
static void walk_slot(struct walk *w, const struct section *sec, const struct field *f, size_t e, size_t i,
		      size_t slot)
{
	uint8_t *it = item_of(w->s, sec->kind, i), *cur = it + f->off + e * elem_size(f);
	const uint8_t *prv = w->delta ? (const uint8_t *)item_of(w->prev, sec->kind, i) + (cur - (uint8_t *)it) : NULL;
	bool absent = !w->enc && slot >= w->fw; /* an older writer's section: not in it */

	if (f->type >= T_STR && absent)
		return;
	switch (f->type) {
	case T_STR: code_str(w, (char *)cur, f->sz, f->name); break;
	case T_MOUNTS: code_mounts(w, (struct wb_bdi *)it); break;
	case T_EVTIME: code_evtime(w, (double *)(void *)cur); break;
	default: code_num(w, f, i, e, cur, prv, absent); break;
	}
}

/* Slots [from, to) of a section for items [lo, hi), field by field: the one walk both directions take. */
static void walk_fields(struct walk *w, const struct section *sec, size_t lo, size_t hi, size_t from, size_t to)
{
	size_t slot = 0;

	for (size_t k = 0; k < sec->nf && !w->bad; k++)
		for (size_t e = 0; e < sec->f[k].n; e++, slot++)
			if (slot >= from && slot < to)
				for (size_t i = lo; i < hi && !w->bad; i++)
					walk_slot(w, sec, &sec->f[k], e, i, slot);
}

/* ---- formats 1 and 2 ---- */

/* One legacy group, item by item. 0, or -1 out of memory. */
static int walk_group(struct walk *w, const struct group *g)
{
	const struct section *s0 = section_of(g->st[0].sec);
	size_t n;

	w->delta = w->prev && !(s0->flags & S_ABS);
	w->prev_ns = 0;
	w->fw = SIZE_MAX;
	if ((s0->flags & S_COUNTED) && code_count(w, s0->kind))
		return -1;
	n = count_of(w->s, s0->kind);
	for (size_t i = 0; i < n && !w->bad; i++)
		for (size_t k = 0; k < g->n; k++)
			walk_fields(w, section_of(g->st[k].sec), i, i + 1, g->st[k].from, g->st[k].to);
	return 0;
}

/* A whole legacy frame (minor: what the file's minor version appended). */
static int walk_legacy(struct walk *w, bool key, unsigned minor)
{
	for (size_t k = 0; key && k < sizeof(legacy_structure) / sizeof(legacy_structure[0]); k++)
		if (walk_group(w, &legacy_structure[k]))
			return -1;
	for (size_t k = 0; k < sizeof(legacy_numbers) / sizeof(legacy_numbers[0]); k++)
		if (walk_group(w, &legacy_numbers[k]))
			return -1;
	if (minor >= 1 && walk_group(w, &legacy_minor1))
		return -1;
	if (!w->enc && minor > 1) /* a newer minor's appended fields */
		w->p = w->end;
	return 0;
}

/* ---- format 3: sections ---- */

/*
 * Format 3. A key frame holds every section: id, length, then the kind of
 * its items (0 the sample, 1 nodes, 2 zones, 3 BDIs, 4 counted: the item
 * count comes first), its field count, and the items, field by field. A
 * delta frame holds a bitmap of the key frame's number sections it carries
 * (one whose every value is 0 is left out: a reader takes it as zeros),
 * then those sections' items (a counted section: its length, then its count
 * and items). A field a reader does not know (after the ones it knows) is
 * one varint; a section it does not know is skipped, by its length, or as
 * items times fields varints.
 */
enum { FK_SAMPLE, FK_NODE, FK_ZONE, FK_BDI, FK_COUNTED, FK_COUNT };

static unsigned file_kind(int kind)
{
	return kind >= K_PROC ? FK_COUNTED : (unsigned)kind;
}


/*
 * Encoding a delta frame, slots [0, upto) of item i: what walk_fields()
 * writes, byte for byte, without its per-slot steps (in a recording most
 * values did not move). A number field whose bytes equal the previous
 * sample's and that has no reference is a run of zeros; the others are
 * worked out element by element as code_num() does, straight into the
 * buffer. A field that is not a number goes the common way.
 */
static void enc_delta_item(struct walk *w, const struct section *sec, size_t i, size_t upto)
{
	const uint8_t *it = item_of(w->s, sec->kind, i), *pv = item_of(w->prev, sec->kind, i);
	struct wb_buf *b = w->b;
	size_t slot = 0;

	if (!reserve(b, upto * 10)) /* ten bytes the longest varint */
		return;
	for (size_t k = 0; k < sec->nf && slot < upto; k++) {
		const struct field *f = &sec->f[k];
		size_t n = f->n < upto - slot ? f->n : upto - slot, es = elem_size(f);
		const uint8_t *cur = it + f->off, *prv = pv + f->off;
		bool zz = f->type != T_UVI;

		if (f->type > T_UVI) {
			for (size_t e = 0; e < n && !w->bad; e++)
				walk_slot(w, sec, f, e, i, slot + e);
			slot += n;
			if (!reserve(b, (upto - slot) * 10))
				return;
			continue;
		}
		if (f->ref == R_NONE && memcmp(cur, prv, n * es) == 0) {
			memset(b->p + b->len, 0, n); /* a zero is one byte, zigzag or not */
			b->len += n;
		} else if (es == 8 && f->ref == R_NONE) { /* T_U64, T_DBL (zigzag): most slots, without load()'s switch */
			for (size_t e = 0; e < n; e++) {
				uint64_t c, a, v;
				memcpy(&c, cur + 8 * e, 8);
				memcpy(&a, prv + 8 * e, 8);
				v = c - a;
				if (!v) {
					b->p[b->len++] = 0;
					continue;
				}
				w->nonzero = true;
				b->len += wbrec_put_uv(b->p + b->len, (v << 1) ^ (uint64_t)((int64_t)v >> 63));
			}
		} else {
			for (size_t e = 0; e < n; e++) {
				uint64_t v = load(f, cur + e * es) - ref_of(f, w->s, i, e) -
					     (load(f, prv + e * es) - ref_of(f, w->prev, i, e));
				w->nonzero |= v != 0;
				b->len += wbrec_put_uv(b->p + b->len, zz ? (v << 1) ^ (uint64_t)((int64_t)v >> 63) : v);
			}
		}
		slot += n;
	}
}

/*
 * A section's n items, item by item, field by field. The fields a newer
 * writer added after the ones this wbtop knows are skipped (tests write them as 42).
 */
static void walk_items(struct walk *w, const struct section *sec, size_t n, size_t slots)
{
	int x = w->enc ? wbrec_test_extra : 0; /* tests: < 0, an older writer's section (fewer fields) */
	size_t extra = x > 0 ? (size_t)x : w->fw > slots ? w->fw - slots : 0, upto = x < 0 ? slots - (size_t)-x : slots;
	bool fast = w->enc && w->delta && !wbrec_test_generic;

	for (size_t i = 0; i < n && !w->bad; i++) {
		if (fast)
			enc_delta_item(w, sec, i, upto);
		else
			walk_fields(w, sec, i, i + 1, 0, upto);
		for (size_t x = 0; x < extra && !w->bad; x++)
			code_uv(w, 42, true);
	}
}

/* A section's body (key: with its kind and field count) into tmp; false when every value is 0. */
static bool enc_body(struct walk *w, const struct section *sec, struct wb_buf *tmp, bool key)
{
	size_t slots = slots_of(sec);

	tmp->len = 0;
	w->b = tmp;
	w->nonzero = false;
	w->delta = w->prev && !(sec->flags & S_ABS);
	w->prev_ns = 0;
	if (key) {
		put_uv(tmp, file_kind(sec->kind));
		put_uv(tmp, (size_t)((long)slots + wbrec_test_extra));
	}
	if (sec->flags & S_COUNTED)
		code_count(w, sec->kind);
	walk_items(w, sec, count_of(w->s, sec->kind), slots);
	return w->nonzero;
}

/* Tests: a number section this wbtop does not know, of one item and two fields (after the sysctls). */
static void enc_unknown(struct wb_buf *out, bool key, uint64_t *bits, unsigned *bit)
{
	static const uint8_t sec[] = { SEC_SYSCTL + 1, 4, FK_SAMPLE, 2, 0x54, 0x54 };

	if (wbrec_test_extra <= 0)
		return;
	if (key) {
		put(out, sec, sizeof(sec));
	} else {
		put(out, sec + 4, 2);
		*bits |= 1ull << *bit;
	}
	(*bit)++;
}

/* The frame: key, every section with its header; delta, a bitmap and the sections that are not all 0. */
static void enc_sections(struct walk *w, struct wb_buf *out, bool key, bool structure_only)
{
	struct wb_buf tmp = { 0 }, body = { 0 };
	uint64_t bits = 0;
	unsigned bit = 0;

	for (size_t k = 0; k < NSECTIONS; k++) {
		const struct section *sec = &sections[k];
		bool st = sec->flags & S_STRUCT, any;
		if (st ? !key : structure_only)
			continue;
		any = enc_body(w, sec, &tmp, key);
		if (key) {
			put_uv(&body, sec->id);
			put_uv(&body, tmp.len);
		} else if (any) {
			bits |= 1ull << bit;
			if (sec->flags & S_COUNTED)
				put_uv(&body, tmp.len);
		}
		if (key || any)
			put(&body, tmp.p, tmp.len);
		bit += !st;
		if (sec->id == SEC_SYSCTL && !structure_only)
			enc_unknown(&body, key, &bits, &bit);
	}
	if (!key)
		put_uv(out, bits);
	put(out, body.p, body.len);
	out->oom |= tmp.oom || body.oom;
	wb_buf_free(&tmp);
	wb_buf_free(&body);
}

struct span {
	uint64_t id;
	const uint8_t *p, *end;
};

/* Split a key frame into its sections: ids strictly growing, lengths inside the frame. */
static size_t split_sections(struct walk *w, struct span *sp)
{
	size_t n = 0;

	while (w->p < w->end && !w->bad) {
		uint64_t id = get_uv(w), len = get_uv(w);
		if (w->bad)
			break;
		if (n == MAX_SECTIONS)
			reject(w, "more than %d sections", MAX_SECTIONS);
		else if (n && id <= sp[n - 1].id)
			reject(w, "section %llu after section %llu", (unsigned long long)id,
			       (unsigned long long)sp[n - 1].id);
		else if (len > (uint64_t)(w->end - w->p))
			reject(w, "section %llu of %llu bytes runs past the frame", (unsigned long long)id,
			       (unsigned long long)len);
		else
			sp[n++] = (struct span){ id, w->p, w->p + len };
		w->p = w->bad ? w->p : w->p + len;
	}
	return n;
}

/*
 * A known section's items from [p, end) (fw fields each), or as zeros when
 * it is absent (p NULL). whole: the section must end at end.
 */
static int dec_body(struct walk *w, const struct section *sec, const uint8_t *p, const uint8_t *end, size_t fw,
		    bool whole)
{
	w->delta = w->prev && !(sec->flags & S_ABS);
	w->prev_ns = 0;
	w->fw = p ? fw : 0;
	if (p) {
		w->p = p;
		w->end = end;
	}
	if ((sec->flags & S_COUNTED) && p && code_count(w, sec->kind))
		return -1;
	if (p || !(sec->flags & S_COUNTED))
		walk_items(w, sec, count_of(w->s, sec->kind), slots_of(sec));
	if (p && whole && w->p != end)
		reject(w, "section %u: %zu bytes left over", sec->id, (size_t)(end - w->p));
	return 0;
}

/* A key frame: the sections' headers (the number sections' into the schema), then the known ones. */
static int dec_key(struct walk *w, struct wbrec_schema *sc)
{
	struct span sp[MAX_SECTIONS];
	uint64_t fw[MAX_SECTIONS];
	const uint8_t *end = w->end;
	size_t n = split_sections(w, sp), j = 0;

	sc->n = 0;
	for (size_t k = 0; k < n && !w->bad; k++) {
		const struct section *sec = section_of((unsigned)sp[k].id);
		uint64_t kind;
		w->p = sp[k].p;
		w->end = sp[k].end;
		kind = get_uv(w);
		fw[k] = get_uv(w);
		if (!w->bad && (kind >= FK_COUNT || fw[k] > (1u << 20) || (sec && kind != file_kind(sec->kind))))
			reject(w, "section %llu: kind %llu, %llu fields", (unsigned long long)sp[k].id,
			       (unsigned long long)kind, (unsigned long long)fw[k]);
		sp[k].p = w->p;
		if (!sec || !(sec->flags & S_STRUCT))
			sc->sec[sc->n++] = (struct wbrec_schema_sec){ sp[k].id, (uint8_t)kind, (uint32_t)fw[k] };
	}
	for (size_t k = 0; k < NSECTIONS && !w->bad; k++) { /* in this wbtop's order: references first */
		bool at;
		while (j < n && sp[j].id < sections[k].id)
			j++;
		at = j < n && sp[j].id == sections[k].id;
		if (dec_body(w, &sections[k], at ? sp[j].p : NULL, at ? sp[j].end : NULL, at ? fw[j] : 0, true))
			return -1;
	}
	w->p = w->end = end;
	return 0;
}

/* A counted section of a delta frame: its length, then [p, p + length). NULL when it overruns. */
static const uint8_t *counted_span(struct walk *w, const uint8_t **end)
{
	uint64_t len = get_uv(w);
	const uint8_t *p = w->p;

	if (!w->bad && len > (uint64_t)(w->end - w->p))
		reject(w, "a section of %llu bytes runs past the frame", (unsigned long long)len);
	if (w->bad)
		return NULL;
	*end = p + len;
	w->p = *end;
	return p;
}

/* A section of the key frame's that this wbtop does not know: skipped, if this delta frame has it. */
static void skip_unknown(struct walk *w, const struct wbrec_schema_sec *e)
{
	static const int kind_of[] = { [FK_SAMPLE] = K_SAMPLE, [FK_NODE] = K_NODE, [FK_ZONE] = K_ZONE,
				       [FK_BDI] = K_BDI };
	const uint8_t *end;

	if (e->kind == FK_COUNTED) {
		counted_span(w, &end);
		return;
	}
	for (size_t i = 0, n = count_of(w->s, kind_of[e->kind]) * e->fw; i < n && !w->bad; i++)
		get_uv(w);
}

/* A delta frame: the bitmap of the key frame's number sections it has, then those, in order. */
static int dec_delta(struct walk *w, const struct wbrec_schema *sc)
{
	uint64_t bits = get_uv(w);
	size_t j = 0;

	if (!w->bad && sc->n < 64 && bits >> sc->n)
		reject(w, "section bitmap %#llx: the key frame has %zu sections", (unsigned long long)bits, sc->n);
	for (size_t k = 0; k <= NSECTIONS && !w->bad; k++) {
		const struct section *sec = k < NSECTIONS ? &sections[k] : NULL;
		const uint8_t *p = NULL, *end = w->end, *fend = w->end;
		bool known;
		if (sec && (sec->flags & S_STRUCT))
			continue;
		for (; j < sc->n && (!sec || sc->sec[j].id < sec->id); j++)
			if (bits >> j & 1)
				skip_unknown(w, &sc->sec[j]);
		if (!sec)
			break;
		known = j < sc->n && sc->sec[j].id == sec->id;
		if (known && (bits >> j & 1))
			p = (sec->flags & S_COUNTED) ? counted_span(w, &end) : w->p;
		if (!w->bad && dec_body(w, sec, p, end, known ? sc->sec[j].fw : 0, sec->flags & S_COUNTED))
			return -1;
		if (p && (sec->flags & S_COUNTED)) {
			w->p = end;
			w->end = fend;
		}
		j += known;
	}
	return 0;
}

/* ---- the interface ---- */

void wb_rec_structure(const struct wb_sample *s, struct wb_buf *out)
{
	struct walk w = { .enc = true, .s = (struct wb_sample *)s }; /* only read when encoding */

	enc_sections(&w, out, true, true);
}

/* Do the structure fields of item i of a section read the same in a and b (as their bytes would)? */
static bool same_struct_item(const struct section *sec, const struct wb_sample *a, const struct wb_sample *b,
			     size_t i)
{
	const uint8_t *x = item_of(a, sec->kind, i), *y = item_of(b, sec->kind, i);

	for (size_t k = 0; k < sec->nf; k++) {
		const struct field *f = &sec->f[k];
		for (size_t e = 0; e < f->n; e++) {
			const uint8_t *p = x + f->off + e * elem_size(f), *q = y + f->off + e * elem_size(f);
			switch (f->type) {
			case T_STR: /* written as strnlen(cap) bytes */
				if (strncmp((const char *)p, (const char *)q, f->sz) != 0)
					return false;
				break;
			case T_MOUNTS: {
				const struct wb_bdi *m = (const void *)x, *n = (const void *)y;
				if (m->nmounts != n->nmounts)
					return false;
				for (int j = 0; j < m->nmounts && j < WB_MAX_MOUNTS; j++)
					if (strncmp(m->mounts[j], n->mounts[j], WB_PATH_LEN) != 0)
						return false;
				break;
			}
			case T_EVTIME: /* in no structure section; compared as written to be safe */
				if (memcmp(p, q, sizeof(double)) != 0)
					return false;
				break;
			default:
				if (load(f, p) != load(f, q))
					return false;
			}
		}
	}
	return true;
}

bool wb_rec_same_structure(const struct wb_sample *a, const struct wb_sample *b)
{
	for (size_t k = 0; k < NSECTIONS; k++) {
		const struct section *sec = &sections[k];
		size_t n;

		if (!(sec->flags & S_STRUCT))
			continue;
		n = count_of(a, sec->kind);
		if (n != count_of(b, sec->kind))
			return false;
		for (size_t i = 0; i < n; i++)
			if (!same_struct_item(sec, a, b, i))
				return false;
	}
	return true;
}

void wb_rec_encode(const struct wb_sample *s, const struct wb_sample *prev, struct wb_buf *out)
{
	wb_rec_encode_as(s, prev, WB_REC_MAJOR, WB_REC_MINOR, out);
}

int wb_rec_encode_as(const struct wb_sample *s, const struct wb_sample *prev, unsigned major, unsigned minor,
		     struct wb_buf *out)
{
	struct walk w = { .enc = true, .b = out, .s = (struct wb_sample *)s, .prev = prev };

	if (major < 1 || major > WB_REC_MAJOR || (major < 3 && minor > 1))
		return -1;
	if (major >= 3)
		enc_sections(&w, out, !prev, false);
	else
		walk_legacy(&w, !prev, major == 1 ? 0 : minor);
	return out->oom ? -1 : 0;
}
/* A page size a kernel can have: a power of two from 1 KiB (the model divides by it). */
static bool page_size_ok(uint32_t v)
{
	return v >= 1024 && v <= (1u << 20) && (v & (v - 1)) == 0;
}

/* The event log: times the sinks turn into clock times, kinds and reasons they look up. */
static void check_events(struct walk *d, const struct wb_sample *s)
{
	for (size_t i = 0; i < s->nevents; i++) {
		const struct wb_event *e = &s->events[i];
		if (!(isfinite(e->t) && fabs(e->t) <= MAX_MONO))
			reject(d, "event %zu time %g", i, e->t);
		else if (e->kind >= WB_EV_COUNT)
			reject(d, "event %zu kind %u", i, e->kind);
		else if (e->reason >= WB_REASONS)
			reject(d, "event %zu reason %u", i, e->reason);
	}
}

/* The first of n counters no kernel has (wb_count_ok(), in things of unit bytes), or -1. */
static int over(const uint64_t *v, int n, uint64_t unit)
{
	for (int k = 0; k < n; k++)
		if (!wb_count_ok(v[k], unit))
			return k;
	return -1;
}

/* The vm.dirty_* settings and the devices' knobs a kernel can hold (wb_sysctl_max, wb_knob_max). */
static void check_settings(struct walk *d, const struct wb_sample *s)
{
	for (int k = 0; k < WB_SYS_COUNT; k++)
		if (WB_HAS(s->sys_valid, k) && s->sys[k] > wb_sysctl_max[k])
			reject(d, "vm.%s %llu", wb_sysctl_names[k], (unsigned long long)s->sys[k]);
	for (size_t i = 0; i < s->nbdis; i++)
		for (int k = 0; k < WB_K_COUNT; k++)
			if (WB_HAS(s->bdis[i].knob_valid, k) && s->bdis[i].knob[k] > wb_knob_max[k])
				reject(d, "BDI %zu %s %llu", i, wb_knob_names[k],
				       (unsigned long long)s->bdis[i].knob[k]);
}

/*
 * Page and sector counts: no kernel has 2^62 of them (the model computes
 * with them as int64), nor more than 64 bits of bytes (the outputs' unit).
 */
static void check_counts(struct walk *d, const struct wb_sample *s)
{
	uint64_t P = page_size_ok(s->page_size) ? s->page_size : 0; /* a bad one is rejected already */
	int k;

	if ((k = over(s->g.v, WB_G_COUNT, P)) >= 0)
		reject(d, "global counter %d: %llu", k, (unsigned long long)s->g.v[k]);
	for (size_t i = 0; i < s->nnodes; i++)
		if ((k = over(s->nodes[i].v, WB_N_COUNT, P)) >= 0)
			reject(d, "node %zu counter %d: %llu", i, k, (unsigned long long)s->nodes[i].v[k]);
	for (size_t i = 0; i < s->nzones; i++)
		if ((k = over(s->zones[i].v, WB_Z_COUNT, P)) >= 0)
			reject(d, "zone %zu counter %d: %llu", i, k, (unsigned long long)s->zones[i].v[k]);
	for (size_t i = 0; i < s->nbdis; i++) {
		const struct wb_bdi *b = &s->bdis[i];
		if ((k = over(b->st, WB_B_COUNT, P)) >= 0)
			reject(d, "BDI %zu stats value %d: %llu", i, k, (unsigned long long)b->st[k]);
		else if ((k = over(b->disk, WB_D_COUNT, 512)) >= 0)
			reject(d, "BDI %zu disk counter %d: %llu", i, k, (unsigned long long)b->disk[k]);
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct wb_bdi *const *)a)->name, (*(const struct wb_bdi *const *)b)->name);
}

/*
 * A device listed twice in one sample: the panes find a device's limits at
 * its index and the exports by its name, and the two would tell different
 * stories (the collector never lists one twice).
 */
static void check_names(struct walk *d, const struct wb_sample *s)
{
	const struct wb_bdi **k = s->nbdis > 1 ? malloc(s->nbdis * sizeof(*k)) : NULL;

	if (!k) /* one device, or no memory for the check: the frame is not damaged for that */
		return;
	for (size_t i = 0; i < s->nbdis; i++)
		k[i] = &s->bdis[i];
	qsort(k, s->nbdis, sizeof(*k), by_name);
	for (size_t i = 1; i < s->nbdis; i++)
		if (strcmp(k[i - 1]->name, k[i]->name) == 0) {
			reject(d, "BDI %s listed twice", k[i]->name);
			break;
		}
	free(k);
}

/*
 * What the rest of wbtop relies on without checking: finite times that do
 * not go backwards, a page size to divide by, a CPU count. Checked here,
 * once, so that a hostile file is damage and not a crash further on.
 */
static void check_sample(struct walk *d, const struct wb_sample *s, const struct wb_sample *prev)
{
	if (!(isfinite(s->mono) && s->mono >= 0 && s->mono <= MAX_MONO))
		reject(d, "sample time %g", s->mono);
	else if (prev && s->mono < prev->mono)
		reject(d, "sample time %.6f before the previous sample's %.6f", s->mono, prev->mono);
	else if (!(isfinite(s->wall) && s->wall >= 0 && s->wall <= MAX_WALL))
		reject(d, "wall clock time %g", s->wall);
	else if (!page_size_ok(s->page_size))
		reject(d, "page size %u", s->page_size);
	else if (s->ncpus > MAX_CPUS)
		reject(d, "CPU count %u", s->ncpus);
	check_counts(d, s);
	if (!prev) /* names come in key frames only: a delta frame keeps its key frame's */
		check_names(d, s);
	check_settings(d, s);
	check_events(d, s);
}

/* Copy the structure of prev into s (a delta frame has none of its own). */
static int copy_structure(struct wb_sample *s, const struct wb_sample *prev)
{
	struct wb_sample t;

	wb_sample_init(&t);
	if (wb_sample_copy(&t, prev))
		return -1;
	free(t.procs);
	free(t.events);
	t.procs = NULL;
	t.events = NULL;
	t.nprocs = t.nevents = 0;
	*s = t;
	return 0;
}

int wb_rec_decode(const uint8_t *p, size_t len, bool key, unsigned major, unsigned minor,
		  const struct wb_sample *prev, struct wbrec_schema *sc, struct wb_sample *s, char *err,
		  size_t errlen)
{
	struct walk w;
	struct wbrec_schema own;
	struct wb_sample t;
	int rc;

	if (!p || len == 0) { /* before p + len: an empty frame may come with no buffer at all */
		snprintf(err, errlen, "damaged frame (empty)");
		return -1;
	}
	w = (struct walk){ .p = p, .end = p + len, .prev = key ? NULL : prev };
	if (!key && (!prev || (major >= 3 && !sc))) {
		snprintf(err, errlen, "a delta frame without the frame before it");
		return -1;
	}
	wb_sample_init(&t);
	w.s = &t;
	rc = key ? 0 : copy_structure(&t, prev);
	if (rc == 0)
		rc = major < 3 ? walk_legacy(&w, key, major == 1 ? 0 : minor) : key ? dec_key(&w, sc ? sc : &own)
										    : dec_delta(&w, sc);
	if (rc == 0 && !w.bad)
		check_sample(&w, &t, w.prev);
	if (rc || w.bad || w.p != w.end) {
		if (rc)
			snprintf(err, errlen, "out of memory");
		else if (w.bad)
			snprintf(err, errlen, "damaged frame (%s)", w.what ? w.what : "truncated numbers");
		else
			snprintf(err, errlen, "damaged frame (%zu bytes left over)", (size_t)(w.end - w.p));
		wb_sample_finish(&t);
		return -1;
	}
	wb_sample_finish(s);
	*s = t;
	return 0;
}
