// SPDX-License-Identifier: GPL-2.0-or-later
/* Recording writer: header, then one frame per sample or note, append-only. */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "wbrec_internal.h"
#include "wbtop/record.h"
#include "wbtop/util.h"

struct wb_rec_writer {
	char *path;
	char shown[WB_QUOTE_LEN]; /* path as messages quote it (wb_quote) */
	int fd;
	struct wb_rec_header h;
	ZSTD_CCtx *cctx;
	struct wb_sample prev;
	struct wb_buf raw;
	uint8_t *out;
	size_t out_cap;
	unsigned since_key;
	bool have_prev;
	uint64_t bytes, max_bytes;
	int64_t prev_us;        /* the previous frame's time in this file, microseconds */
	uint64_t samples;       /* sample frames in this file */
	bool sized;             /* max_bytes was weighed against the first sample (cap_refused()) */
	uint64_t least;         /* max_bytes refused: the least that makes sense, bytes; 0 none */
	bool created;           /* this run made the file (discard() removes it again) */
	bool replace_pending;   /* --force on a recording: emptied at the first frame, not at the start */
	off_t start_size;       /* the file's size before this run wrote to it; -1 until it is locked */
	struct wb_bgwrite *q;   /* the frames' writer thread; NULL: written here */
	bool free_run;          /* the last sample found the kernel letting writers run free */
	uint64_t q_bytes, q_samples; /* the file's bytes and samples when q started on it */
	char err[512];          /* why writing stopped, or "" */
};

#define TREE_BOOT "tree:" /* a --root tree's boot id without one of its own; a kernel's is a UUID */

/*
 * The first line of a boot_id file into out (n bytes): 0, or -1 when it is
 * not a regular file (a tree may hold a FIFO there: never waited on) whose
 * first line is printable ASCII, 1 to n - 1 bytes.
 */
static int read_boot_id(const char *path, char *out, size_t n)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	char buf[64];
	struct stat st;
	ssize_t got;

	if (fd < 0)
		return -1;
	got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof(buf) - 1) : -1;
	close(fd);
	if (got <= 0)
		return -1;
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0] || strlen(buf) >= n)
		return -1;
	for (const char *c = buf; *c; c++)
		if (*c <= ' ' || *c > '~')
			return -1;
	memcpy(out, buf, strlen(buf) + 1);
	return 0;
}

void wb_rec_header_local(struct wb_rec_header *h, double interval)
{
	struct utsname u;

	memset(h, 0, sizeof(*h));
	h->major = WB_REC_MAJOR;
	h->minor = WB_REC_MINOR;
	if (uname(&u) == 0) {
		snprintf(h->host, sizeof(h->host), "%.63s", u.nodename);
		snprintf(h->kernel, sizeof(h->kernel), "%.63s", u.release);
	}
	read_boot_id("/proc/sys/kernel/random/boot_id", h->boot_id, sizeof(h->boot_id));
	snprintf(h->tool, sizeof(h->tool), "wbtop %s", WBTOP_VERSION);
	h->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	h->interval = interval;
	h->created = (double)time(NULL);
}

/* FNV-1a (64 bits) of n bytes at s, on from x. */
static uint64_t fnv1a(uint64_t x, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x = (x ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return x;
}

void wb_rec_header_root(struct wb_rec_header *h, double interval, const char *root)
{
	char real[4096], live[sizeof(h->boot_id)], *path;
	const char *tree;
	uint64_t x;

	wb_rec_header_local(h, interval);
	if (!root)
		return;
	tree = realpath(root, real) ? real : root;
	if (strcmp(tree, "/") == 0) /* --root / is the running kernel */
		return;
	path = wb_path_join(root, "/proc/sys/kernel/random/boot_id");
	if (path && read_boot_id(path, h->boot_id, sizeof(h->boot_id)) == 0) { /* the tree's own */
		free(path);
		return;
	}
	free(path);
	/*
	 * Not the running kernel's boot, but the clock of its samples is this
	 * boot's: the same tree recorded again in it goes on in one recording.
	 */
	memcpy(live, h->boot_id, sizeof(live));
	x = fnv1a(0xcbf29ce484222325ull, tree, strlen(tree) + 1); /* its NUL parts it from the boot id */
	x = fnv1a(x, live, strlen(live));
	snprintf(h->boot_id, sizeof(h->boot_id), TREE_BOOT "%016llx", (unsigned long long)x);
}

/* write_all for the synchronous path: 0, or -1 with errno */
static int write_all(int fd, const void *p, size_t n)
{
	int e = wb_write_all(fd, p, n);

	errno = e ? e : errno;
	return e ? -1 : 0;
}

static void tlv(struct wb_buf *b, uint8_t tag, const void *p, uint16_t n)
{
	uint8_t t[3] = { tag };
	le16(t + 1, n);
	/* the buffer helpers of format.c are static; use a small local append */
	size_t need = b->len + 3 + n;
	if (need > b->cap) {
		uint8_t *np = realloc(b->p, need + 256);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = need + 256;
	}
	memcpy(b->p + b->len, t, 3);
	memcpy(b->p + b->len + 3, p, n);
	b->len = need;
}

/* The header's fields as TLVs into b (b->oom out of memory). */
static void header_tlvs(const struct wb_rec_writer *w, struct wb_buf *b)
{
	uint8_t v8[8];

	tlv(b, H_HOST, w->h.host, (uint16_t)strlen(w->h.host));
	tlv(b, H_KERNEL, w->h.kernel, (uint16_t)strlen(w->h.kernel));
	tlv(b, H_BOOT_ID, w->h.boot_id, (uint16_t)strlen(w->h.boot_id));
	tlv(b, H_TOOL, w->h.tool, (uint16_t)strlen(w->h.tool));
	le32(v8, w->h.page_size);
	tlv(b, H_PAGE_SIZE, v8, 4);
	memcpy(v8, &w->h.interval, 8);
	tlv(b, H_INTERVAL, v8, 8);
	memcpy(v8, &w->h.created, 8);
	tlv(b, H_CREATED, v8, 8);
}

static int write_header(struct wb_rec_writer *w)
{
	struct wb_buf b = { 0 };
	uint8_t fixed[16];
	int rc;

	header_tlvs(w, &b);
	if (b.oom) {
		wb_buf_free(&b);
		return -1;
	}
	memcpy(fixed, WBREC_MAGIC, 8);
	le16(fixed + 8, WB_REC_MAJOR);
	le16(fixed + 10, WB_REC_MINOR);
	le32(fixed + 12, (uint32_t)b.len);
	if (w->q) { /* one frame for the thread */
		uint8_t *all = malloc(16 + b.len);
		rc = all ? 0 : -ENOMEM;
		if (all) {
			memcpy(all, fixed, 16);
			memcpy(all + 16, b.p, b.len);
			rc = wbrec_bgwrite_put(w->q, all, 16 + b.len, false);
			free(all);
		}
		if (rc)
			errno = -rc;
		rc = rc ? -1 : 0;
	} else {
		rc = write_all(w->fd, fixed, 16) || write_all(w->fd, b.p, b.len) ? -1 : 0;
	}
	w->bytes = 16 + b.len;
	wb_buf_free(&b);
	return rc;
}

/* A new file (or one emptied): the header; frame times start again. */
static int start_file(struct wb_rec_writer *w, char *err, size_t errlen)
{
	w->bytes = 0;
	if (w->q) { /* the thread writes to this file from its start */
		wbrec_bgwrite_rebase(w->q, w->fd);
		w->q_bytes = w->q_samples = 0;
	}
	if (write_header(w)) {
		snprintf(err, errlen, "%s: writing the header: %s", w->shown, strerror(errno));
		return -1;
	}
	w->have_prev = false;
	w->prev_us = 0; /* frame times are deltas within one file */
	w->samples = 0;
	return 0;
}

/*
 * The recording already in w->fd, to append to: it must be one of this boot
 * (its clock goes on), of this format and page size. Positions the writer
 * after its last whole frame (a torn tail is cut off). 0, or -1 with why not.
 */
static int continue_file(struct wb_rec_writer *w, char *err, size_t errlen)
{
	char proc[64], why[256], warn[256];  /* why it is not one: the message says it more simply */
	struct wb_rec_reader *r;
	const struct wb_rec_header *o;
	const char *other = NULL;
	struct timespec now;

	/* read what the fd is, not what the path may name by now */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", w->fd);
	if (!(r = wb_rec_open(proc, why, sizeof(why), warn, sizeof(warn)))) {
		snprintf(err, errlen, "%s: exists and %s: not overwritten (--force replaces it)", w->shown,
			 access(proc, F_OK) == 0 ? "is not a wbtop recording" : "cannot be checked (no /proc)");
		return -1;
	}
	o = wb_rec_header_of(r);
	w->bytes = wbrec_reader_end(r, &w->prev_us);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (o->major != WB_REC_MAJOR || o->minor != WB_REC_MINOR)
		other = "wbtop format version";
	else if ((strcmp(o->boot_id, w->h.boot_id) != 0 || !o->boot_id[0]) &&
		 (strncmp(o->boot_id, TREE_BOOT, strlen(TREE_BOOT)) == 0 ||
		  strncmp(w->h.boot_id, TREE_BOOT, strlen(TREE_BOOT)) == 0))
		other = "--root tree, or of a running kernel (samples of two sources in one recording)";
	else if (strcmp(o->boot_id, w->h.boot_id) != 0 || !o->boot_id[0])
		other = "boot (its clock does not go on here)";
	else if (o->page_size != w->h.page_size)
		other = "page size";
	else if (w->prev_us / 1000000 > (int64_t)now.tv_sec)
		other = "clock (its last frame is later than now)";
	if (other) {
		snprintf(err, errlen, "%s: a recording of another %s: not appended to (choose another name; --force "
			 "replaces it)", w->shown, other);
	} else {
		w->samples = wb_rec_count(r);
		w->have_prev = false; /* the first frame appended is a key frame */
		if (ftruncate(w->fd, (off_t)w->bytes) || lseek(w->fd, 0, SEEK_END) < 0) {
			snprintf(err, errlen, "%s: %s", w->shown, strerror(errno));
			other = "";
		} else if (w->q) { /* the thread appends from here */
			wbrec_bgwrite_rebase(w->q, w->fd);
			w->q_bytes = w->bytes;
			w->q_samples = w->samples;
		}
		w->start_size = (off_t)w->bytes; /* the torn tail cut off is no one's */
	}
	wb_rec_close_reader(r);
	return other ? -1 : 0;
}

/*
 * Why a rotation must not replace old (FILE.1), or NULL: absent, empty or a
 * finished recording (this rotation's older file, or another wbtop's) may
 * go; one a live wbtop holds (its flock, open_file()) would go on into an
 * unlinked file, and a file that took the name for something else, a
 * symbolic link or a directory is kept. A reason with an error is put in
 * why (n bytes). With held, a FILE.1 that may go stays locked in *held (the
 * caller closes it after the rename: no wbtop starts on it in between), -1
 * if there is none.
 */
static const char *old_kept(const char *old, char *why, size_t n, int *held)
{
	int fd = open(old, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), rec = 1;
	const char *r = NULL;
	struct stat st;

	if (held)
		*held = -1;
	if (fd < 0 && errno == ENOENT)
		return NULL;
	if (fd < 0 && errno == ELOOP)
		return "is a symbolic link";
	if (fd < 0) {
		snprintf(why, n, "cannot be read to check what it is (%s)", strerror(errno));
		return why;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		r = "is not a regular file";
	else if (st.st_size > 0 && (rec = wb_rec_is_recording(fd)) == 0)
		r = "is not a wbtop recording";
	else if (rec < 0) {
		snprintf(why, n, "cannot be read to check what it is (%s)", strerror(-rec));
		r = why;
	} else if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK)
			r = "is being recorded to by another wbtop";
		else {
			snprintf(why, n, "cannot be locked to check that no wbtop records to it (%s)", strerror(errno));
			r = why;
		}
	} else if (held) {
		*held = fd;
		return NULL;
	}
	close(fd);
	return r;
}

/*
 * What at path can never be a recording, and a hint, from a table: a pipe
 * or a socket (a recording is appended to, its size looked at every sample
 * (cut_short()), read back to go on after a restart and renamed by
 * --max-size: a stream has none of these), a directory, a device (found at
 * open time they were exit 1, a FIFO exit 2). NULL: absent, a regular file,
 * or what open_file() refuses itself (a symlink).
 */
static const struct { mode_t type; const char *kind, *hint; } unfit[] = {
	{ S_IFIFO, "a FIFO (named pipe)", "a stream of samples: --batch --json" },
	{ S_IFSOCK, "a socket", "a stream of samples: --batch --json" },
	{ S_IFDIR, "a directory", "name a file in it" },
	{ S_IFCHR, "a character device", "to keep nothing, leave --record out" },
	{ S_IFBLK, "a block device", "name a file on its file system" },
};

static int unfit_kind(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(unfit) / sizeof(unfit[0]); i++)
		if ((st.st_mode & S_IFMT) == unfit[i].type)
			return (int)i;
	return -1;
}

int wb_rec_check_path(const char *path, char *err, size_t errlen)
{
	int k = unfit_kind(path);
	char q[WB_QUOTE_LEN];
	const char *fs = wb_pseudo_fs(path);

	if (fs) {
		snprintf(err, errlen, "%s is on %s, the kernel's own files, not storage: nothing recorded (name a file "
			 "on a disk)", wb_quote(path, q, sizeof(q)), fs);
		return -EINVAL;
	}
	if (k < 0)
		return 0;
	snprintf(err, errlen, "%s is %s: a recording is a regular file, appended to, its size checked at every "
		 "sample and read back to go on after a restart; nothing recorded (%s)", wb_quote(path, q, sizeof(q)),
		 unfit[k].kind, unfit[k].hint);
	return -EINVAL;
}

/*
 * Open the file to record to, never through a symlink, never anything but a
 * regular file: new or empty, it gets a header; an existing recording is
 * appended to (continue_file); anything else is refused unless replace.
 */
static int open_file(struct wb_rec_writer *w, bool replace, char *err, size_t errlen)
{
	struct stat st;

	/* O_APPEND: a file cut short by another process is written at its new end, not past a hole */
	int flags = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;

	/* O_EXCL first: whether this run made the file, which a refused start removes (discard()) */
	w->fd = open(w->path, flags | O_EXCL, 0644);
	w->created = w->fd >= 0;
	if (w->fd < 0 && errno == EEXIST)
		w->fd = open(w->path, flags, 0644);
	if (w->fd < 0 || fstat(w->fd, &st) != 0) { /* ENXIO: a FIFO with no reader, a socket, made since the check */
		snprintf(err, errlen, "%s: %s", w->shown,
			 errno == ELOOP ? "a symbolic link: wbtop does not write through one"
			 : errno == ENXIO ? "not a regular file: not recorded to" : strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file: not recorded to", w->shown);
		return -1;
	}
	const char *fs = wb_pseudo_fs_fd(w->fd);

	if (fs) { /* before it is cut or written: a sysctl is a "regular file" of size 0 */
		snprintf(err, errlen, "%s: on %s, the kernel's own files: not recorded to", w->shown, fs);
		return -1;
	}
	/*
	 * One writer a file: a second wbtop appending (or --force) would cut
	 * the first one's newest frames off and interleave its own with them.
	 */
	if (flock(w->fd, LOCK_EX | LOCK_NB) != 0) {
		snprintf(err, errlen, "%s: %s", w->shown,
			 errno == EWOULDBLOCK ? "another wbtop is recording to it: not recorded to" : strerror(errno));
		return -1;
	}
	w->start_size = st.st_size;
	if (st.st_size > 0 && !replace)
		return continue_file(w, err, errlen);
	if (st.st_size > 0) { /* --force: emptied at the first frame, so that a start refused there leaves it whole */
		w->replace_pending = true;
		return 0;
	}
	return start_file(w, err, errlen);
}

/* --force's emptying, put off from the start to the first frame (open_file). 0, or -1 with w->err set. */
static int replace_now(struct wb_rec_writer *w)
{
	w->replace_pending = false;
	if (ftruncate(w->fd, 0) != 0) {
		snprintf(w->err, sizeof(w->err), "%s: %s", w->shown, strerror(errno));
		return -1;
	}
	return start_file(w, w->err, sizeof(w->err));
}

/*
 * A start refused (wb_rec_start failing after the open, or --max-size at the
 * first sample): the file as it was. Removed if this run made it, else cut
 * back to its size before this run (an empty file's header, the "recording
 * resumed" note); a file --force was to replace has not been touched yet.
 */
static void discard(struct wb_rec_writer *w)
{
	struct stat a, b;

	if (w->fd < 0)
		return;
	if (w->q)
		wbrec_bgwrite_drain(w->q); /* nothing of the thread's lands after the cut */
	if (w->replace_pending)
		return;
	if (!w->created) {
		/* not before the lock (another wbtop's); a failure leaves whole frames */
		if (w->start_size >= 0 && ftruncate(w->fd, w->start_size) != 0)
			w->start_size = -1;
		return;
	}
	/*
	 * Only once locked: a wbtop that opened the file this run made and
	 * took the lock first is recording to it (this run's flock failed),
	 * and only if the name is still this file (someone may have moved it
	 * and put another there)
	 */
	if (w->start_size >= 0 && fstat(w->fd, &a) == 0 && lstat(w->path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		unlink(w->path);
}

/* A note in the recording, now. */
static void note_now(struct wb_rec_writer *w, const char *text)
{
	struct timespec m, c;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &c);
	wb_rec_note(w, (double)m.tv_sec + m.tv_nsec / 1e9, (double)c.tv_sec + c.tv_nsec / 1e9, text);
}

/* Appending: a note at the time of the first new sample's start, "recording resumed". */
static void resumed_note(struct wb_rec_writer *w)
{
	char text[96];

	snprintf(text, sizeof(text), "recording resumed (wbtop started again, pid %d)", (int)getpid());
	note_now(w, text);
}

bool wb_rec_rotated_path(const char *path, char *out, size_t n)
{
	int k = snprintf(out, n, "%s.1", path);

	return k > 0 && (size_t)k < n;
}

/*
 * --max-size with a FILE.1 the first rotation must not replace: refused
 * before FILE is opened, so nothing is made or changed. 0, or -1 with why.
 */
static int refuse_rotation(const struct wb_rec_writer *w, char *err, size_t errlen)
{
	char old[4096], why[128], q[WB_QUOTE_LEN];
	const char *kept;

	wb_rec_rotated_path(w->path, old, sizeof(old));
	if (!(kept = old_kept(old, why, sizeof(why), NULL)))
		return 0;
	snprintf(err, errlen, "%s %s, and --max-size would move %s over it: not recorded (move it away or "
		 "choose another name)", wb_quote(old, q, sizeof(q)), kept, w->shown);
	return -1;
}

struct wb_rec_writer *wb_rec_create(const char *path, const struct wb_rec_header *h,
				    uint64_t max_bytes, char *err, size_t errlen)
{
	return wb_rec_start(path, h, max_bytes, WB_REC_REPLACE, err, errlen);
}

struct wb_rec_writer *wb_rec_start(const char *path, const struct wb_rec_header *h, uint64_t max_bytes,
				   unsigned flags, char *err, size_t errlen)
{
	struct wb_rec_writer *w;

	if (wb_rec_check_path(path, err, errlen)) /* before anything is made or opened */
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path)) || !(w->cctx = ZSTD_createCCtx())) {
		snprintf(err, errlen, "out of memory");
		wb_rec_close(w);
		return NULL;
	}
	w->fd = -1;
	w->start_size = -1;
	wb_quote(path, w->shown, sizeof(w->shown));
	w->h = *h;
	w->max_bytes = max_bytes;
	/*
	 * Level 3: on these small frames level 6 bought 4-5 % smaller files for
	 * twice zstd's instructions, and zstd was the recorder's largest user-space
	 * cost. The decoder is the same for every level.
	 */
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, 3);
	/*
	 * Small match tables: a key frame starts a new zstd frame, and level 6's
	 * own tables (MBs) were zeroed each time (a key frame comes with every
	 * change in the process list: 10 in 80 idle samples). A group of frames
	 * is a few hundred KB at most; with a 128 KB window and 4K-entry tables
	 * the files are the same size (330.7 -> 330.6 bytes a sample idle, 603.0
	 * -> 606.9 under load) and zstd costs half the instructions.
	 */
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_windowLog, 17);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_hashLog, 12);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_chainLog, 12);
	wb_sample_init(&w->prev);
	/* the header and the frames written by a thread (bgwrite.c), or here without one */
	w->q = wbrec_bgwrite_create(-1);
	if (max_bytes && refuse_rotation(w, err, errlen)) {
		wb_rec_close(w);
		return NULL;
	}
	if (open_file(w, flags & WB_REC_REPLACE, err, errlen)) {
		discard(w);
		wb_rec_close(w);
		return NULL;
	}
	if (w->samples) /* appended to: a note says where */
		resumed_note(w);
	return w;
}

/*
 * Writing failed with errno e: cut the file back to its last whole frame (a
 * partial write, e.g. at a size limit, leaves a torn one) and say so in
 * w->err, naming the file and the error. Every later write is refused.
 */
static void stopped_why(struct wb_rec_writer *w, const char *why)
{
	const char *cut = ftruncate(w->fd, (off_t)w->bytes) == 0 ? "" : " (and cutting off the torn frame failed)";
	/* the reason cut to what fits beside the quoted name (at most 159 bytes) and the rest */
	snprintf(w->err, sizeof(w->err), "%s: %.240s; it holds %llu whole samples%s", w->shown, why,
		 (unsigned long long)w->samples, cut);
}

/* stopped_why() for a failed call: what it was doing, the error and its number. */
static void stopped(struct wb_rec_writer *w, int e, const char *doing)
{
	char why[256];

	snprintf(why, sizeof(why), "%s: %s (errno %d)", doing, strerror(e), e);
	stopped_why(w, why);
}

/*
 * The writer thread's write failed (e < 0): what is in the file is its whole
 * frames, which stopped() keeps. Every later write is refused.
 */
static int async_failed(struct wb_rec_writer *w, int e)
{
	uint64_t bytes, samples;

	wbrec_bgwrite_done(w->q, &bytes, &samples);
	w->bytes = w->q_bytes + bytes;
	w->samples = w->q_samples + samples;
	stopped(w, -e, "writing");
	return e;
}

/*
 * The kernel lets a task dirty pages without a pause while the global dirty
 * + writeback count is under the freerun ceiling, halfway between the
 * background and the dirty threshold (balance_dirty_pages); under the
 * background threshold, with room to spare for the milliseconds to the write,
 * a frame is written here: waking the thread costs about 0.1 ms of CPU a
 * sample on this VM (340 -> 440 us/s for an idle recorder at 1 Hz).
 */
static bool free_running(const struct wb_sample *s)
{
	return WB_HAS(s->g.valid, WB_G_DIRTY) && WB_HAS(s->g.valid, WB_G_WRITEBACK) &&
	       WB_HAS(s->g.valid, WB_G_BG_THRESH) &&
	       s->g.v[WB_G_DIRTY] + s->g.v[WB_G_WRITEBACK] < s->g.v[WB_G_BG_THRESH];
}

/* Write one frame: header then payload, in one write() so a crash tears at most this frame. */
static int frame(struct wb_rec_writer *w, uint8_t type, double mono, const uint8_t *pay, size_t clen,
		 size_t rlen)
{
	uint8_t *buf = malloc(WBREC_FRAME2_MAX_HDR + clen + WBREC_FRAME2_CRC);
	int64_t us, d;
	size_t n = 0;
	int rc;

	if (!buf)
		return -ENOMEM;
	if (w->replace_pending && replace_now(w)) {
		free(buf);
		return -EIO;
	}
	us = llround(mono * 1e6), d = (int64_t)((uint64_t)us - (uint64_t)w->prev_us); /* wraps, never UB */
	buf[n++] = WBREC_FRAME2_M0;
	buf[n++] = WBREC_FRAME2_M1;
	buf[n++] = type;
	n += wbrec_put_uv(buf + n, clen);
	n += wbrec_put_uv(buf + n, rlen);
	n += wbrec_put_uv(buf + n, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63)); /* zigzag */
	memcpy(buf + n, pay, clen);
	n += clen;
	le32(buf + n, wbrec_crc32(buf, n));
	n += WBREC_FRAME2_CRC;
	bool queued = w->q && !(w->free_run && wbrec_bgwrite_idle(w->q));

	if (queued) /* a failure shows at a later frame or at wb_rec_flush() */
		rc = wbrec_bgwrite_put(w->q, buf, n, type != FR_NOTE);
	else
		rc = write_all(w->fd, buf, n) ? -errno : 0;
	free(buf);
	if (rc && queued)
		return async_failed(w, rc);
	if (rc == 0 && w->q && !queued) { /* in the file beside the thread's count: the base moves */
		w->q_bytes += n;
		w->q_samples += type != FR_NOTE;
	}
	if (rc == 0) {
		w->bytes += n;
		w->prev_us = us;
		w->samples += type != FR_NOTE;
	} else {
		stopped(w, -rc, "writing");
	}
	return rc;
}

/* Past the size cap: keep one old file (FILE.1) and start a new one. */
static int rotate(struct wb_rec_writer *w)
{
	char old[4096], why[128], msg[400];
	const char *kept;
	int e, held;

	wb_rec_rotated_path(w->path, old, sizeof(old));
	if (w->q && (e = wbrec_bgwrite_drain(w->q)))
		return async_failed(w, e);
	if ((kept = old_kept(old, why, sizeof(why), &held))) { /* it came since the start: stop, as on a write error */
		snprintf(msg, sizeof(msg), "not moved to %s.1 (--max-size), which %s and would be replaced", w->shown,
			 kept);
		stopped_why(w, msg);
		return -EEXIST;
	}
	e = rename(w->path, old) != 0 ? errno : 0;
	if (held >= 0)
		close(held);
	if (e) {
		stopped(w, e, "moving it to FILE.1 (--max-size)");
		return -e;
	}
	close(w->fd);
	w->fd = open(w->path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (w->fd < 0 || flock(w->fd, LOCK_EX | LOCK_NB) != 0) {
		e = errno;
		stopped(w, e, "creating it again after moving it to FILE.1 (--max-size)");
		return -e;
	}
	return start_file(w, w->err, sizeof(w->err)) ? -EIO : 0;
}

/*
 * Cut short by another process (logrotate's copytruncate, "> FILE"): smaller
 * than what was written to it. Frames written after that followed a hole of
 * zeros where the header had been, and the whole recording was unreadable.
 * Now it goes on: after its last whole frame if a recording is left, else
 * from a new header, with a note. 0, or an error as a failed write's.
 */
static int cut_short(struct wb_rec_writer *w)
{
	uint64_t written = w->bytes, b, n;
	struct stat st;
	char why[256];
	int e;

	if (w->q) {
		wbrec_bgwrite_done(w->q, &b, &n);
		written = w->q_bytes + b;
	}
	if (fstat(w->fd, &st) != 0 || (uint64_t)st.st_size >= written)
		return 0;
	if (w->q && (e = wbrec_bgwrite_drain(w->q)))
		return async_failed(w, e);
	if (fstat(w->fd, &st) != 0 || st.st_size == 0 || continue_file(w, why, sizeof(why))) {
		if (ftruncate(w->fd, 0) != 0) {
			stopped(w, errno, "starting it again after another process cut it short");
			return -EIO;
		}
		if (start_file(w, w->err, sizeof(w->err)))
			return -EIO;
	}
	note_now(w, "recording went on: another process cut the file short (copytruncate?)");
	return w->err[0] ? -EIO : 0;
}

/* Compress w->raw into w->out (a new zstd frame for a key frame); its length, or 0 on error. */
static size_t compress(struct wb_rec_writer *w, bool key)
{
	size_t need = ZSTD_compressBound(w->raw.len) + 64, r;
	ZSTD_inBuffer in;
	ZSTD_outBuffer out;

	if (key)
		ZSTD_CCtx_reset(w->cctx, ZSTD_reset_session_only);
	if (need > w->out_cap) {
		uint8_t *no = realloc(w->out, need);
		if (!no)
			return 0;
		w->out = no;
		w->out_cap = need;
	}
	in = (ZSTD_inBuffer){ w->raw.p, w->raw.len, 0 };
	out = (ZSTD_outBuffer){ w->out, w->out_cap, 0 };
	do { /* flush: this frame decodes on its own once its group's earlier frames are read */
		r = ZSTD_compressStream2(w->cctx, &out, &in, ZSTD_e_flush);
		if (ZSTD_isError(r))
			return 0;
	} while (r != 0 && out.pos < out.size);
	return out.pos;
}

/* The length of a frame of clen bytes (rlen raw) at time mono, the first of a file. */
static uint64_t first_frame_len(double mono, size_t clen, size_t rlen)
{
	uint8_t t[16];
	int64_t us = llround(mono * 1e6);

	return 3 + wbrec_put_uv(t, clen) + wbrec_put_uv(t, rlen) +
	       wbrec_put_uv(t, ((uint64_t)us << 1) ^ (uint64_t)(us >> 63)) + clen + WBREC_FRAME2_CRC;
}

/*
 * The first sample (a frame of frame bytes in a new file) against
 * max_bytes, before anything of it is written: a file starts with the header
 * and a key frame, so a cap under twice them moves the file to FILE.1 at
 * almost every sample, and FILE.1 holds one or a few (--max-size 1: one
 * each). Then nothing is recorded, the file is left as it was (discard()),
 * and the least that makes sense in KiB is in w->least: true. Only the
 * first: later key frames grow with the devices and processes, and a
 * recording under way goes on.
 */
static bool cap_refused(struct wb_rec_writer *w, uint64_t frame)
{
	struct wb_buf b = { 0 };
	uint64_t one;

	w->sized = true;
	header_tlvs(w, &b);
	one = 16 + b.len + frame;
	if (!w->max_bytes || b.oom || w->max_bytes >= 2 * one) {
		wb_buf_free(&b);
		return false;
	}
	wb_buf_free(&b);
	w->least = (2 * one + 1023) / 1024 * 1024;
	snprintf(w->err, sizeof(w->err), "%s: --max-size %llu: a file's header and first sample take %llu bytes, "
		 "FILE.1 would be replaced at almost every sample; %lluK is the least that makes sense (nothing "
		 "recorded)", w->shown, (unsigned long long)w->max_bytes, (unsigned long long)one,
		 (unsigned long long)(w->least / 1024));
	discard(w);
	return true;
}

int wb_rec_write(struct wb_rec_writer *w, const struct wb_sample *s)
{
	bool key;
	size_t clen;
	int rc;

	if (w->err[0])
		return -EIO;
	if (w->q && (rc = wbrec_bgwrite_error(w->q)))
		return async_failed(w, rc);
	if ((rc = cut_short(w)))
		return rc;
	w->free_run = free_running(s);
	key = !w->have_prev || w->since_key + 1 >= WB_REC_KEYEVERY || !wb_rec_same_structure(s, &w->prev);
	w->raw.len = 0;
	wb_rec_encode(s, key ? NULL : &w->prev, &w->raw);
	/* the compressor's stream is lost with a sample: later delta frames could not be decoded */
	if (w->raw.oom || w->raw.len > WB_REC_MAX_FRAME || !(clen = compress(w, key))) {
		stopped(w, w->raw.len > WB_REC_MAX_FRAME ? EFBIG : ENOMEM, "encoding a sample");
		return -EIO;
	}
	if (!w->sized && cap_refused(w, first_frame_len(s->mono, clen, w->raw.len)))
		return -EIO;
	if (w->max_bytes && w->bytes + WBREC_FRAME2_MAX_HDR + WBREC_FRAME2_CRC + clen > w->max_bytes &&
	    w->have_prev && !key) {
		if ((rc = rotate(w)))
			return rc;
		return wb_rec_write(w, s); /* as a key frame of the new file */
	}
	rc = frame(w, key ? FR_KEY : FR_DELTA, s->mono, w->out, clen, w->raw.len);
	if (rc)
		return rc;
	w->since_key = key ? 0 : w->since_key + 1;
	rc = wb_sample_copy(&w->prev, s);
	w->have_prev = rc == 0;
	return rc;
}

int wb_rec_note(struct wb_rec_writer *w, double mono, double wall, const char *text)
{
	size_t n = strlen(text);
	uint8_t *p;
	int rc;

	if (w->err[0])
		return -EIO;
	if (!(p = malloc(8 + n)))
		return -ENOMEM;
	memcpy(p, &wall, 8);
	memcpy(p + 8, text, n);
	rc = frame(w, FR_NOTE, mono, p, 8 + n, 8 + n);
	free(p);
	return rc;
}

int wb_rec_flush(struct wb_rec_writer *w)
{
	int e;

	if (!w || w->err[0])
		return w ? -EIO : 0;
	if (w->q && (e = wbrec_bgwrite_drain(w->q)))
		return async_failed(w, e);
	return 0;
}

const char *wb_rec_error(const struct wb_rec_writer *w)
{
	return w->err[0] ? w->err : NULL;
}

uint64_t wb_rec_least_size(const struct wb_rec_writer *w)
{
	return w ? w->least : 0;
}

uint64_t wb_rec_bytes(const struct wb_rec_writer *w)
{
	return w->bytes;
}

void wb_rec_close(struct wb_rec_writer *w)
{
	if (!w)
		return;
	wbrec_bgwrite_destroy(w->q); /* what is queued goes to the file first */
	if (w->fd >= 0)
		close(w->fd);
	ZSTD_freeCCtx(w->cctx);
	wb_sample_finish(&w->prev);
	wb_buf_free(&w->raw);
	free(w->out);
	free(w->path);
	free(w);
}
