// SPDX-License-Identifier: GPL-2.0-or-later
/* Kept-open kernel text files and the table-driven key/value parser. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wbtop/kvfile.h"
#include "wbtop/sample.h"

int wb_kvfile_init(struct wb_kvfile *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = strdup(path);
	return f->path ? 0 : -ENOMEM;
}

void wb_kvfile_close(struct wb_kvfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->kept)
		wb_fd_unkeep();
	f->fd = -1;
	f->kept = false;
}

void wb_kvfile_finish(struct wb_kvfile *f)
{
	wb_kvfile_close(f);
	free(f->path);
	free(f->buf);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

/* Make room for at least want+1 bytes; false past the cap or on ENOMEM. */
static bool grow(struct wb_kvfile *f, size_t want)
{
	size_t ncap = f->cap ? f->cap : 4096;
	char *nb;

	if (want + 1 <= f->cap)
		return true;
	while (ncap < want + 1)
		ncap *= 2;
	if (ncap > WB_KVFILE_MAX + 1)
		ncap = WB_KVFILE_MAX + 1;
	if (ncap < want + 1)
		return false;
	nb = realloc(f->buf, ncap);
	if (!nb)
		return false;
	f->buf = nb;
	f->cap = ncap;
	return true;
}

/*
 * Open the file to keep; a failure is remembered and repeated (without a
 * system call) for the next WB_KVFILE_RETRY reads. 0 or -1 (f->fail set).
 */
static int open_kept(struct wb_kvfile *f, struct wb_diag *d)
{
	if (f->retry > 0) {
		f->retry--;
	} else {
		f->fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO in a --root tree: no wait for a writer */
		if (f->fd >= 0) {
			f->fail = 0;
			f->kept = wb_fd_keep();
			return 0;
		}
		f->fail = errno ? errno : EIO;
		f->retry = WB_KVFILE_RETRY;
		if (wb_kvfile_starved(f)) { /* kept files give theirs back: the next read may find one */
			wb_fd_starved();
			f->retry = 0;
		}
	}
	if (f->fail != ENOENT && !(f->many && wb_kvfile_starved(f)))
		wb_diag_add(d, "%s: %s", f->path, strerror(f->fail));
	return -1;
}

/* A file with no place in the budget (or over it, since it shrank) is closed after each read. */
static int read_done(struct wb_kvfile *f, int rc)
{
	f->unkept = f->fd >= 0 && (!f->kept || wb_fd_over());
	if (f->unkept)
		wb_kvfile_close(f);
	return rc;
}

static size_t page_size(void)
{
	static size_t ps;

	if (!ps) {
		long v = sysconf(_SC_PAGESIZE);
		ps = v > 0 ? (size_t)v : 4096;
	}
	return ps;
}

int wb_kvfile_read(struct wb_kvfile *f, struct wb_diag *d)
{
	size_t len = 0;

	if (f->fd < 0 && open_kept(f, d) != 0)
		return -f->fail;
	for (;;) {
		size_t want = len + 4096 > WB_KVFILE_MAX ? WB_KVFILE_MAX : len + 4096;
		ssize_t n;
		char probe;

		if (!grow(f, want))
			return read_done(f, -ENOMEM);
		if (len >= WB_KVFILE_MAX) {
			if (pread(f->fd, &probe, 1, (off_t)len) <= 0)
				break;
			wb_diag_add(d, "%s: larger than %u bytes, not a kernel file as expected; skipped",
				    f->path, WB_KVFILE_MAX);
			return read_done(f, -EFBIG);
		}
		n = pread(f->fd, f->buf + len, f->cap - 1 - len, (off_t)len);
		if (n < 0) {
			int e = errno;
			if (e == EINTR)
				continue;
			wb_diag_add(d, "%s: read: %s", f->path, strerror(e));
			/* A BDI or node may have gone: reopen next time. */
			wb_kvfile_close(f);
			return -e;
		}
		if (n == 0)
			break;
		bool shrt = (size_t)n < f->cap - 1 - len;
		len += (size_t)n;
		if (f->one_shot && shrt)
			break; /* made in one piece: a short read is the end */
		if (shrt && f->last_mark[0] && memmem(f->buf, len, f->last_mark, strlen(f->last_mark)))
			break; /* the last record came whole */
		if (f->max_record && len == (size_t)n && len < f->cap - 1 && len + f->max_record <= page_size())
			break; /* room for another record was left: there is none */
	}
	f->buf[len] = '\0';
	f->len = len;
	return read_done(f, 0);
}

static bool parse_hex(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	if (!isxdigit((unsigned char)*p))
		return false;
	for (; isxdigit((unsigned char)*p); p++) {
		unsigned dgt = isdigit((unsigned char)*p) ? (unsigned)(*p - '0')
			     : (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
		if (v > (UINT64_MAX >> 4))
			return false;
		v = (v << 4) | dgt;
	}
	*out = v;
	*end = p;
	return true;
}

int wb_kvfile_u64(struct wb_kvfile *f, struct wb_diag *d, uint64_t *out)
{
	const char *p, *end;
	int err = wb_kvfile_read(f, d);

	if (err)
		return err;
	p = f->buf;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!wb_parse_u64(p, &end, out) || (*end && !isspace((unsigned char)*end))) {
		wb_diag_add(d, "%s: expected a number, found \"%.*s\"", f->path,
			    (int)strcspn(f->buf, "\n") > 24 ? 24 : (int)strcspn(f->buf, "\n"), f->buf);
		return -EINVAL;
	}
	return 0;
}

/* Bucket of a key by its first four bytes (keys of four or more bytes only). */
static unsigned bucket_of(const char *k)
{
	uint32_t w;

	memcpy(&w, k, 4);
	return (w * 0x9e3779b1u) >> (32 - WB_KV_BUCKET_BITS);
}

static size_t key_len(const struct wb_kv_key *e)
{
	return e->len ? e->len : strlen(e->key);
}

/*
 * Each table's index, built on its first use in this thread (a handful of
 * tables exist: a small cache keyed by the table's address, no locking).
 */
const struct wb_kv_index *wb_kv_index_of(const struct wb_kv_key *tab, size_t ntab)
{
	static _Thread_local struct wb_kv_index cache[WB_KV_INDEXES];
	static _Thread_local unsigned used;
	struct wb_kv_index *ix;

	for (unsigned i = 0; i < used; i++)
		if (cache[i].tab == tab && cache[i].ntab == ntab)
			return &cache[i];
	ix = &cache[used < WB_KV_INDEXES ? used++ : (unsigned)(ntab % WB_KV_INDEXES)];
	memset(ix, 0, sizeof(*ix));
	ix->tab = tab;
	ix->ntab = ntab > WB_KV_INDEX_MAX ? WB_KV_INDEX_MAX : ntab;
	/* backwards, so that each chain lists its keys in table order (the first match wins, as before) */
	for (size_t i = ix->ntab; i-- > 0;) {
		ix->len[i] = (uint8_t)key_len(&tab[i]);
		if (ix->len[i] < 4) {
			ix->shorts[ix->nshort++] = (uint8_t)i;
			continue;
		}
		unsigned b = bucket_of(tab[i].key);
		ix->next[i] = ix->head[b];
		ix->head[b] = (uint8_t)(i + 1);
	}
	return ix;
}

/* Does a key end at c: a blank, ':', a line end or the string's end (the set strcspn was given)? */
static bool key_end(char c)
{
	return c == ' ' || c == ':' || (c >= '\t' && c <= '\r') || c == '\0';
}

/*
 * Entry i, if the key at k (in a line ending at eol) is its key, or starts
 * with it for a sum key: compared as a whole (the line holds it), then the
 * key's end.
 */
static const struct wb_kv_key *match(const struct wb_kv_index *ix, size_t i, const char *k, const char *eol,
				     size_t *klen)
{
	const struct wb_kv_key *e = &ix->tab[i];
	size_t tl = ix->len[i];

	if ((size_t)(eol - k) < tl || memcmp(k, e->key, tl) != 0)
		return NULL;
	if (e->sum)
		*klen = tl + strcspn(k + tl, " \t\n\v\f\r:");
	else if (key_end(k[tl]))
		*klen = tl;
	else
		return NULL;
	return e;
}

const struct wb_kv_key *wb_kv_find(const struct wb_kv_index *ix, const char *k, const char *eol, size_t *klen)
{
	const struct wb_kv_key *e;

	/*
	 * Most lines match no key: their first four bytes (in the line) hash to
	 * an empty bucket, decided without looking for the key's end. A key of
	 * three bytes or less is a short one.
	 */
	if (eol - k >= 4)
		for (unsigned h = ix->head[bucket_of(k)]; h; h = ix->next[h - 1])
			if ((e = match(ix, h - 1, k, eol, klen)))
				return e;
	for (unsigned i = 0; i < ix->nshort; i++)
		if (ix->tab[ix->shorts[i]].key[0] == k[0] && (e = match(ix, ix->shorts[i], k, eol, klen)))
			return e;
	return NULL;
}

/* Past the blanks (spaces, tabs) at q, up to eol: meminfo and wb_stats align values with runs of spaces. */
static const char *skip_blanks(const char *q, const char *eol)
{
	static const uint64_t spaces = 0x2020202020202020ull;
	uint64_t w;

	while (eol - q >= 8 && (memcpy(&w, q, 8), w == spaces))
		q += 8;
	while (q < eol && (*q == ' ' || *q == '\t'))
		q++;
	return q;
}

/* Convert a value to the sample's units; false when it cannot be. */
static bool convert(enum wb_kv_unit u, uint32_t page_size, uint64_t *val)
{
	uint64_t kb_per_page = page_size / 1024;

	if (u != WB_KV_KB && u != WB_KV_KBPS)
		return true;
	if (kb_per_page == 0)
		return false;
	*val /= kb_per_page;
	return true;
}

int wb_kv_parse(const char *buf, const struct wb_kv_key *tab, size_t ntab,
		uint32_t page_size, uint64_t *v, uint64_t *valid,
		const char *what, struct wb_diag *d)
{
	uint64_t seen = 0;
	int stored = 0, line = 0;
	const char *p = buf;
	const struct wb_kv_index *ix = wb_kv_index_of(tab, ntab);

	while (*p) {
		const char *eol = strchr(p, '\n'), *k, *q, *end;
		const struct wb_kv_key *e;
		uint64_t val;
		size_t klen;
		bool ok;

		if (!eol)
			eol = p + strlen(p);
		line++;
		q = p;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == 'N' && strncmp(q, "Node ", 5) == 0) { /* node meminfo prefix */
			q += 5;
			while (isdigit((unsigned char)*q))
				q++;
			while (*q == ' ')
				q++;
		}
		k = q;
		e = wb_kv_find(ix, k, eol, &klen);
		if (e) {
			q = k + klen;
			if (*q == ':')
				q++;
			q = skip_blanks(q, eol);
			ok = e->unit == WB_KV_HEX ? parse_hex(q, &end, &val) : wb_parse_u64(q, &end, &val);
			if (ok && end < eol && !isspace((unsigned char)*end))
				ok = false;
			if (ok)
				ok = convert(e->unit, page_size, &val);
			/* a count (or its sum) no kernel reaches: recorded, a replay refused the sample */
			if (ok && (val >= WB_MAX_COUNT ||
				   (e->sum && WB_HAS(seen, e->index) && val >= WB_MAX_COUNT - v[e->index]))) {
				wb_diag_add(d, "%s:%d: %.*s: %.*s is more than a kernel counts (ignored)", what, line,
					    (int)klen, k, (int)((eol - q) > 24 ? 24 : (eol - q)), q);
			} else if (!ok) {
				wb_diag_add(d, "%s:%d: %.*s: bad value \"%.*s\" (ignored)", what, line,
					    (int)klen, k, (int)((eol - q) > 24 ? 24 : (eol - q)), q);
			} else {
				if (e->sum && WB_HAS(seen, e->index))
					v[e->index] += val;
				else
					v[e->index] = val;
				seen |= WB_BIT(e->index);
				stored++;
			}
		}
		p = *eol ? eol + 1 : eol;
	}
	*valid |= seen;
	for (size_t i = 0; i < ntab; i++)
		if (tab[i].required && !WB_HAS(seen, tab[i].index))
			wb_diag_add(d, "%s: no usable \"%s\" (file damaged or kernel differs)", what,
				    tab[i].key);
	return stored;
}
