/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading kernel text files cheaply and safely: a kept-open descriptor
 * re-read with pread() (open/close dominates the cost of small sysfs files),
 * a hard size cap, and a table-driven "key value [kB]" parser that matches
 * by key name, tolerates unknown keys and reports bad values by line.
 */
#ifndef WBTOP_KVFILE_H
#define WBTOP_KVFILE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wbtop/util.h"  /* struct wb_diag, wb_parse_u64 */
#define WB_KVFILE_RETRY 30         /* reads answered from a failed open before it is tried again */

#define WB_KVFILE_MAX  (4u << 20)  /* larger files are refused as damaged */

/*
 * What one poll() before a sample said of a nonblocking descriptor (an
 * inotify, a uevent socket, a trace buffer): nothing there, so its read
 * (which would fail with EAGAIN) is skipped; something; or it was not
 * polled (read as before). A module takes the hint for one sample only.
 */
enum wb_polled { WB_POLL_NONE, WB_POLL_QUIET, WB_POLL_READY };

/* The hint of one polled descriptor. */
static inline enum wb_polled wb_polled_of(short revents)
{
	return revents ? WB_POLL_READY : WB_POLL_QUIET;
}

struct wb_kvfile {
	char *path;   /* owned */
	int fd;       /* -1 when closed */
	char *buf;    /* owned; NUL-terminated contents after a read */
	size_t cap, len;
	/*
	 * Set by the caller when the kernel makes the file in one piece (a sysfs
	 * attribute, a single_open seq_file such as /proc/meminfo or a debugfs
	 * stats file, a sysctl): a short read is then the end, so one pread
	 * reads it instead of two. Multi-record seq_files (/proc/vmstat,
	 * /proc/zoneinfo) return a page at a time and must not set it.
	 */
	bool one_shot;
	/*
	 * For a multi-record seq_file whose records are at most this many bytes
	 * (0: unknown). The kernel fills a read with whole records until one
	 * would overflow its buffer, which is at least a page (fs/seq_file.c,
	 * seq_read_iter()), so a first read that left room in a page for one
	 * more record got them all: no second pread that returns 0.
	 */
	unsigned max_record;
	/*
	 * For a multi-record seq_file whose last record starts with this text
	 * ("": unknown). A short read ends on a whole record (the kernel copies
	 * a part of one only to fill the reader's buffer), so a short read with
	 * the last record in it got them all: no second pread that returns 0.
	 */
	char last_mark[32];
	int fail;       /* errno of the last failed open, 0 if none */
	bool kept;      /* fd holds a place in wb_fd_keep()'s budget */
	bool unkept;    /* the last read found no place: the file was opened and closed again */
	/*
	 * Set by the caller for one of many files alike (a device's): running
	 * out of descriptors (EMFILE, ENFILE) is then not reported per file,
	 * the caller says which devices could not be read.
	 */
	bool many;
	unsigned retry; /* reads left that repeat that failure without trying */
};

/* Remember path (copied); nothing is opened yet. 0 or -ENOMEM. */
int wb_kvfile_init(struct wb_kvfile *f, const char *path);
/* Did the last open of f fail for want of a descriptor (EMFILE, ENFILE)? */
static inline bool wb_kvfile_starved(const struct wb_kvfile *f)
{
	return f->fail == EMFILE || f->fail == ENFILE;
}
/*
 * Read the whole file (opening it on first use, then pread from 0; kept
 * open when wb_fd_keep() has a place for it, else closed after the read).
 * Returns 0, or -errno (-ENOENT, -EACCES, -EFBIG for a file over
 * WB_KVFILE_MAX). Problems other than ENOENT are added to d when d != NULL.
 * A failed open (a root-only debugfs file read unprivileged, a file this
 * kernel lacks) is not retried for the next WB_KVFILE_RETRY reads: they
 * return the same error (and message) without a system call.
 */
int wb_kvfile_read(struct wb_kvfile *f, struct wb_diag *d);
/* wb_kvfile_read() without messages; *starved set when it failed for want of a descriptor. */
static inline int wb_kvfile_read_starved(struct wb_kvfile *f, bool *starved)
{
	int rc = wb_kvfile_read(f, NULL);

	*starved |= rc != 0 && wb_kvfile_starved(f);
	return rc;
}
/* Read a file holding one unsigned number (sysfs/sysctl style). */
int wb_kvfile_u64(struct wb_kvfile *f, struct wb_diag *d, uint64_t *out);
void wb_kvfile_close(struct wb_kvfile *f);  /* keep path, drop fd */
void wb_kvfile_finish(struct wb_kvfile *f); /* free everything */

enum wb_kv_unit {
	WB_KV_NUM,   /* plain number, stored as is */
	WB_KV_KB,    /* "N kB" -> pages */
	WB_KV_KBPS,  /* "N kBps" -> pages/s */
	WB_KV_HEX,   /* hexadecimal number */
};

struct wb_kv_key {
	const char *key;     /* exact key, or a prefix when sum is set */
	int index;           /* where the value goes in v[] */
	enum wb_kv_unit unit;
	bool sum;            /* add every key starting with `key` */
	bool required;       /* its absence is reported */
	uint8_t len;         /* strlen(key) (WB_KV() fills it), or 0: computed */
};

/* A table row with its key's length: WB_KV("nr_dirty", index, unit, sum, required). */
#define WB_KV(k, ...) { k, __VA_ARGS__, sizeof(k) - 1 }

/*
 * A table's index: its keys of four bytes or more chained by a hash of their
 * first four bytes (a line whose first four bytes hash to an empty bucket is
 * no key's, without looking for its end), the shorter ones in a list. Built
 * once per table and thread (wb_kv_index_of); a table has at most
 * WB_KV_INDEX_MAX keys (the rest are not looked for), each under 256 bytes.
 */
#define WB_KV_BUCKET_BITS 8
#define WB_KV_INDEX_MAX 255
#define WB_KV_INDEXES 8 /* tables indexed at once a thread: more are rebuilt as used */

struct wb_kv_index {
	const struct wb_kv_key *tab;
	size_t ntab;
	uint8_t head[1u << WB_KV_BUCKET_BITS]; /* entry + 1 heading each bucket's chain, 0: none */
	uint8_t next[WB_KV_INDEX_MAX];         /* entry + 1 after each one in its chain */
	uint8_t len[WB_KV_INDEX_MAX];          /* each entry's key length */
	uint8_t shorts[WB_KV_INDEX_MAX];       /* entries of keys under four bytes */
	uint8_t nshort;
};

/* tab's index (built on first use in this thread, then kept). */
const struct wb_kv_index *wb_kv_index_of(const struct wb_kv_key *tab, size_t ntab);
/*
 * The entry for the key at k, in a line ending at eol (its '\n' or the
 * string's NUL): the key runs up to a blank, ':' or eol; a sum entry's key
 * is a prefix of it. The first in table order; NULL if none. *klen: the
 * key's length when an entry was found.
 */
const struct wb_kv_key *wb_kv_find(const struct wb_kv_index *ix, const char *k, const char *eol, size_t *klen);

/*
 * Parse "key[:] value [unit]" lines; a leading "Node N " is skipped (node
 * meminfo). Fills v[index] and sets its bit in *valid for every key found.
 * Bad values and missing required keys are reported to d, naming `what`
 * (usually the path) and the line. Returns the number of keys stored.
 */
int wb_kv_parse(const char *buf, const struct wb_kv_key *tab, size_t ntab,
		uint32_t page_size, uint64_t *v, uint64_t *valid,
		const char *what, struct wb_diag *d);

#endif
