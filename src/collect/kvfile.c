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
	f->fd = -1;
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
		f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
		if (f->fd >= 0) {
			f->fail = 0;
			return 0;
		}
		f->fail = errno ? errno : EIO;
		f->retry = WB_KVFILE_RETRY;
	}
	if (f->fail != ENOENT)
		wb_diag_add(d, "%s: %s", f->path, strerror(f->fail));
	return -1;
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
			return -ENOMEM;
		if (len >= WB_KVFILE_MAX) {
			if (pread(f->fd, &probe, 1, (off_t)len) <= 0)
				break;
			wb_diag_add(d, "%s: larger than %u bytes, not a kernel file as expected; skipped",
				    f->path, WB_KVFILE_MAX);
			return -EFBIG;
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
		len += (size_t)n;
		if (f->one_shot && (size_t)n < f->cap - 1 - (len - (size_t)n))
			break; /* made in one piece: a short read is the end */
		if (f->max_record && len == (size_t)n && len < f->cap - 1 && len + f->max_record <= page_size())
			break; /* room for another record was left: there is none */
	}
	f->buf[len] = '\0';
	f->len = len;
	return 0;
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

/* Find the table entry for a key; NULL if unknown. */
static const struct wb_kv_key *lookup(const struct wb_kv_key *tab, size_t ntab,
				      const char *key, size_t klen)
{
	for (size_t i = 0; i < ntab; i++) {
		size_t tl;

		if (tab[i].key[0] != key[0]) /* cheap rejects: most lines match no key */
			continue;
		tl = tab[i].len ? tab[i].len : strlen(tab[i].key);
		if (tab[i].sum ? klen < tl : klen != tl)
			continue;
		if (memcmp(key, tab[i].key, tl) == 0)
			return &tab[i];
	}
	return NULL;
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
	bool first[256] = { false };

	for (size_t i = 0; i < ntab; i++)
		first[(unsigned char)tab[i].key[0]] = true;
	first[0] = false;

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
		/* most lines match no key: look the key's end up only for a known first letter */
		klen = first[(unsigned char)*k] ? strcspn(k, " \t\n\v\f\r:") : 0;
		q = k + klen;
		e = klen ? lookup(tab, ntab, k, klen) : NULL;
		if (e) {
			if (*q == ':')
				q++;
			while (q < eol && (*q == ' ' || *q == '\t'))
				q++;
			ok = e->unit == WB_KV_HEX ? parse_hex(q, &end, &val)
						  : wb_parse_u64(q, &end, &val);
			if (ok && end < eol && !isspace((unsigned char)*end))
				ok = false;
			if (ok)
				ok = convert(e->unit, page_size, &val);
			if (!ok) {
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
