// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers every layer shares (see util.h). */
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <langinfo.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "wbtop/sample.h"
#include "wbtop/util.h"

void wb_diag_clear(struct wb_diag *d)
{
	d->n = 0;
	d->dropped = 0;
}

/*
 * The message made safe as a whole (wb_quote): it names files under --root,
 * whose path the user typed, and quotes what those files hold.
 */
void wb_diag_add(struct wb_diag *d, const char *fmt, ...)
{
	char raw[4 * WB_DIAG_LEN];
	va_list ap;

	if (!d)
		return;
	if (d->n >= WB_DIAG_MAX) {
		d->dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	wb_quote(raw, d->msg[d->n++], WB_DIAG_LEN);
}

static size_t fd_kept, fd_max;
static unsigned long long fd_soft;
static bool fd_known;

/* Descriptors this process has open now (inherited ones included); 0 if /proc/self/fd cannot be listed. */
static size_t fds_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n > 3 ? n - 3 : 0; /* ".", ".." and the listing's own */
}

static void fd_budget(void)
{
	struct rlimit rl;
	size_t used;

	if (fd_known)
		return;
	fd_known = true;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) {
		fd_soft = 0;
		fd_max = SIZE_MAX;
		return;
	}
	fd_soft = (unsigned long long)rl.rlim_cur;
	used = fds_open();
	fd_max = rl.rlim_cur > used ? (size_t)((rl.rlim_cur - used) / 2) : 0;
}

bool wb_fd_keep(void)
{
	fd_budget();
	if (fd_kept >= fd_max)
		return false;
	fd_kept++;
	return true;
}

void wb_fd_unkeep(void)
{
	if (fd_kept)
		fd_kept--;
}

bool wb_fd_over(void)
{
	return fd_kept > fd_max;
}

void wb_fd_starved(void)
{
	fd_budget();
	if (fd_max > fd_kept / 2)
		fd_max = fd_kept / 2;
}

size_t wb_fd_keep_max(void)
{
	fd_budget();
	return fd_max;
}

unsigned long long wb_fd_limit(void)
{
	fd_budget();
	return fd_soft;
}

void wb_fd_keep_reset(unsigned long long limit)
{
	fd_known = limit != 0;
	fd_soft = limit;
	fd_max = (size_t)(limit / 2);
}

bool wb_fd_is_path(int fd, const char *path)
{
	struct stat a, b;

	/* a regular file only: /dev/null, a FIFO or a terminal is refused by its own check, one message */
	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && S_ISREG(b.st_mode) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

bool wb_paths_same(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	char da[4096], db[4096];
	struct stat x, y;
	int ea = stat(a, &x) ? errno : 0, eb = stat(b, &y) ? errno : 0;

	if (!ea && !eb)
		return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
	if (ea != ENOENT || eb != ENOENT || strcmp(sa ? sa + 1 : a, sb ? sb + 1 : b))
		return false;
	/* neither there yet: one name in one directory, however each path spells the directory */
	snprintf(da, sizeof(da), "%.*s", sa ? (int)(sa - a) + (sa == a) : 1, sa ? a : ".");
	snprintf(db, sizeof(db), "%.*s", sb ? (int)(sb - b) + (sb == b) : 1, sb ? b : ".");
	return stat(da, &x) == 0 && stat(db, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int wb_std_fds_hold(void)
{
	static const int mode[3] = { O_WRONLY, O_RDONLY, O_RDONLY }; /* the other way round: use fails, EBADF */
	int held = 0;

	for (int fd = 0; fd < 3; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if ((n = open("/dev/null", mode[fd])) < 0) /* the lowest free: fd itself, those below are open */
			return -errno;
		if (n != fd) { /* never, but a wrong guess must not leave fd free */
			int e = dup2(n, fd) < 0 ? -errno : 0;

			close(n);
			if (e)
				return e;
		}
		held |= 1 << fd;
	}
	return held;
}

void wb_copy_str(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);

	memcpy(dst, src, l);
	dst[l] = '\0';
}

bool wb_parse_decimal(const char *s, double *out)
{
	char *end;
	double v;

	/* digits and a point: not strtod's hexadecimal, nor its exponent (-d 1e-1 was taken) */
	if (!(isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1]))) || strpbrk(s, "xXpPeE"))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool wb_parse_u64(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	/* '0'..'9' by arithmetic: isdigit() is a call into the locale tables per digit */
	if ((unsigned)(*p - '0') > 9)
		return false;
	for (; (unsigned)(*p - '0') <= 9; p++) {
		unsigned dgt = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - dgt) / 10)
			return false;
		v = v * 10 + dgt;
	}
	*out = v;
	if (end)
		*end = p;
	return true;
}

char *wb_path_join(const char *root, const char *path)
{
	size_t rl = strlen(root);
	char *out;

	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	if (asprintf(&out, "%.*s%s%s", (int)rl, root, path[0] == '/' ? "" : "/", path) < 0)
		return NULL;
	return out;
}

/* v as it will print in unit u: whole numbers, or one decimal below 9.95. */
static double shown_as(double v, int u)
{
	return u == 0 || v >= 9.95 ? round(v) : round(v * 10) / 10;
}

/*
 * printf's "%.0f" (tenths 0) or "%.1f" (tenths 1) of v >= 0 then the suffix, without printf: a frame
 * shows a few hundred figures and printf's floating-point path was a tenth of it. Exact as printf
 * is: v is m * 2^e, so v * 10 rounds (half to even) in integers. Anything else goes to snprintf.
 */
static void fmt_fixed(char *buf, size_t len, const char *pre, double v, int tenths, const char *suf)
{
	char d[32];
	int e, k = (int)sizeof(d);
	uint64_t m, q;

	if (!(v >= 0) || v >= 0x1p52 || signbit(v)) {
		snprintf(buf, len, "%s%.*f%s", pre, tenths, v, suf);
		return;
	}
	m = (uint64_t)ldexp(frexp(v, &e), 53); /* v = m * 2^(e - 53), m < 2^53, e - 53 < 0 as v < 2^52 */
	e = 53 - e;
	m *= tenths ? 10 : 1; /* < 2^57 */
	if (e > 60) {
		q = 0; /* v < 2^-8 */
	} else {
		uint64_t r = m & ((UINT64_C(1) << e) - 1), half = UINT64_C(1) << (e - 1);
		q = m >> e;
		q += r > half || (r == half && (q & 1));
	}
	d[--k] = '\0';
	if (tenths) {
		/* printf's point is LC_NUMERIC's: the UI runs in the user's locale ("1,5K" beside "0,3s") */
		const char *dp = nl_langinfo(RADIXCHAR); /* localeconv() is not thread-safe */
		d[--k] = (char)('0' + q % 10);
		for (size_t i = strlen(dp); i > 0 && k > 2; i--)
			d[--k] = dp[i - 1];
		q /= 10;
	}
	do
		d[--k] = (char)('0' + q % 10);
	while ((q /= 10) && k > 1);
	if (len) { /* pre, digits, suf: as much as fits, as snprintf would */
		const char *part[] = { pre, d + k, suf };
		size_t o = 0;
		for (int i = 0; i < 3; i++)
			for (const char *c = part[i]; *c && o + 1 < len; c++)
				buf[o++] = *c;
		buf[o] = '\0';
	}
}

char *wb_path_fit(char *buf, size_t len, const char *path)
{
	static const char mark[] = "\u2026";
	size_t n = strlen(path), room, head, tail;

	if (n < len || len < 16) {
		snprintf(buf, len, "%s", path); /* whole, or (too small a buf for the mark) cut */
		return buf;
	}
	room = len - 1 - (sizeof(mark) - 1);
	head = room / 2;
	tail = room - head;
	/* back off from a cut inside a character: a continuation byte is 10xxxxxx */
	while (head > 0 && ((unsigned char)path[head] & 0xc0) == 0x80)
		head--;
	while (tail > 0 && ((unsigned char)path[n - tail] & 0xc0) == 0x80)
		tail--;
	memcpy(buf, path, head);
	memcpy(buf + head, mark, sizeof(mark) - 1);
	memcpy(buf + head + sizeof(mark) - 1, path + n - tail, tail);
	buf[head + sizeof(mark) - 1 + tail] = '\0';
	return buf;
}

/* The unit is chosen after rounding, so 1023.6 KiB is "1.0M", never "1024K". */
const char *wb_fmt_bytes(char *buf, size_t len, double b)
{
	static const char unit[] = "BKMGTPE";
	int u = 0;
	const char *sign = b < 0 ? "-" : "";

	if (!isfinite(b)) {
		snprintf(buf, len, "-");
		return buf;
	}
	b = fabs(b);
	while (u < 6 && shown_as(b, u) >= 1024) {
		b /= 1024;
		u++;
	}
	fmt_fixed(buf, len, sign, b, u && b < 9.95, (char[]){ unit[u], '\0' });
	return buf;
}

/* A count shortened like a byte figure but in powers of 1000: "950", "1.2k", "34k", "2.0M". */
const char *wb_fmt_count(char *buf, size_t len, double v)
{
	static const char unit[] = " kMGT";
	int u = 0;

	if (!isfinite(v) || v < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	while (u < 4 && shown_as(v, u) >= 1000) {
		v /= 1000;
		u++;
	}
	fmt_fixed(buf, len, "", v, u && v < 9.95, u ? (char[]){ unit[u], '\0' } : "");
	return buf;
}

/* One line per level that is missing and why: [why][the level it would add]. */
#define L0 "level 0 missing: global dirty state unknown "
#define L1 "level 1 hidden: per-device knobs and names "
#define L2 "level 2 hidden: per-device dirty, writeback, thresholds, bandwidth "
#define L3 "level 3 hidden: flusher wakeups, throttling and reclaim events "
#define L3_OFF "level 3 off: flusher wakeups, throttling and reclaim events (--no-trace)"
#define L0_KERNEL L0 "(/proc/vmstat unreadable)"
#define L1_KERNEL L1 "(/sys/class/bdi unreadable)"
/* debugfs is there, only root reads it: --mount-debugfs would change nothing */
#define L2_ROOT L2 "(need root: debugfs is mounted, but root's; run as root)"
#define L3_ROOT L3 "(need root: run as root)"
/* as root, the mount alone is missing (tracefs too, when tracing could not start) */
#define L2_MOUNT L2 "(debugfs not mounted: run with --mount-debugfs)"
#define L3_MOUNT L3 "(no tracefs mounted: run with --mount-debugfs)"
static const char *const hidden_text[WB_WHY_COUNT][WB_LEVEL_TRACE + 1] = {
	[WB_WHY_KERNEL] = { /* the cause not known: all it may take */
		L0_KERNEL,
		L1_KERNEL,
		L2 "(need root and debugfs: run as root with --mount-debugfs)",
		L3 "(need root and tracefs: run as root with --mount-debugfs)",
	},
	[WB_WHY_NO_TRACE] = { /* only level 3 is the option's doing */
		L0_KERNEL,
		L1_KERNEL,
		L2 "(need root and debugfs: run as root with --mount-debugfs)",
		L3_OFF,
	},
	[WB_WHY_FIXTURE] = {
		L0 "(not in the fixture tree)",
		L1 "(not in the fixture tree)",
		L2 "(not in the fixture tree)",
		L3 "(a fixture tree has no trace events)",
	},
	[WB_WHY_RECORDING] = {
		L0 "(not in the recording)",
		L1 "(not in the recording)",
		L2 "(not in the recording: made without root or debugfs)",
		L3 "(not in the recording: made without tracefs or with --no-trace)",
	},
	[WB_WHY_NEED_ROOT] = { L0_KERNEL, L1_KERNEL, L2_ROOT, L3_ROOT },
	[WB_WHY_NEED_MOUNT] = { L0_KERNEL, L1_KERNEL, L2_MOUNT, L3_MOUNT },
	[WB_WHY_NEED_ROOT_NO_TRACE] = { L0_KERNEL, L1_KERNEL, L2_ROOT, L3_OFF },
	[WB_WHY_NEED_MOUNT_NO_TRACE] = { L0_KERNEL, L1_KERNEL, L2_MOUNT, L3_OFF },
};
#undef L0
#undef L1
#undef L2
#undef L3
#undef L3_OFF
#undef L0_KERNEL
#undef L1_KERNEL
#undef L2_ROOT
#undef L3_ROOT
#undef L2_MOUNT
#undef L3_MOUNT

int wb_level_hidden(int level, int why, bool events, const char **lines, int n)
{
	int k = 0;

	if (why < 0 || why >= WB_WHY_COUNT)
		why = WB_WHY_KERNEL;
	/* a level from a damaged recording may be anything: never index outside the table */
	for (int l = level < 0 ? 0 : level >= WB_LEVEL_TRACE ? WB_LEVEL_TRACE + 1 : level + 1;
	     l <= WB_LEVEL_TRACE && k < n; l++)
		if (l < WB_LEVEL_TRACE || !events)
			lines[k++] = hidden_text[why][l];
	return k;
}

int wb_level_why_live(bool trace, int level, int debugfs_err, bool root)
{
	/* [--no-trace][the cause below level 2: not known, root's debugfs, no debugfs] */
	static const int why[2][3] = {
		{ WB_WHY_KERNEL, WB_WHY_NEED_ROOT, WB_WHY_NEED_MOUNT },
		{ WB_WHY_NO_TRACE, WB_WHY_NEED_ROOT_NO_TRACE, WB_WHY_NEED_MOUNT_NO_TRACE },
	};
	/* debugfs's folder (mode 0700) refuses others when mounted; unmounted, its empty mount point has no bdi/ */
	int cause = level >= WB_LEVEL_DEBUGFS ? 0 : !root && debugfs_err == EACCES ? 1
		    : root && debugfs_err == ENOENT ? 2 : 0;

	return why[!trace][cause];
}

static bool majmin(const char *s, uint64_t *maj, uint64_t *min)
{
	const char *e;

	return wb_parse_u64(s, &e, maj) && *e == ':' && wb_parse_u64(e + 1, &e, min) && !*e;
}

int wb_bdi_name_cmp(const char *a, const char *b)
{
	uint64_t am, an, bm, bn;
	bool ha = majmin(a, &am, &an), hb = majmin(b, &bm, &bn);

	if (ha && hb) {
		if (am != bm)
			return am < bm ? -1 : 1;
		if (an != bn)
			return an < bn ? -1 : 1;
		return strcmp(a, b); /* 7:01 and 7:1: two names, one order (bdis_list searches by it) */
	}
	if (ha != hb)
		return ha ? -1 : 1;
	return strcmp(a, b);
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

/* A C1 control (U+0080..U+009F) encoded at s (2 bytes). */
static bool is_c1(const unsigned char *s)
{
	return s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F;
}

/*
 * Characters that move or break the text around them: the bidirectional
 * embeddings, overrides and isolates, the direction marks, and the line and
 * paragraph separators (a device name with U+202E read backwards on a
 * terminal that reorders).
 */
static uint32_t utf8_cp(const unsigned char *s, size_t len);

static bool reorders(const unsigned char *s, size_t len)
{
	uint32_t cp;

	if (len < 2)
		return false;
	cp = utf8_cp(s, len);
	return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

const char *wb_safe_text(const char *s, char *buf, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (n == 0)
		return buf;
	while (*p && o + 1 < n) {
		size_t len = utf8_len(p);
		if (len == 0 || *p < 0x20 || *p == 0x7F || (len == 2 && is_c1(p)) || reorders(p, len)) {
			buf[o++] = '?';
			p += len ? len : 1;
			continue;
		}
		if (o + len >= n)
			break;
		memcpy(buf + o, p, len);
		o += len;
		p += len;
	}
	buf[o] = '\0';
	return buf;
}

/* The code point of the valid len-byte UTF-8 sequence at s. */
static uint32_t utf8_cp(const unsigned char *s, size_t len)
{
	static const unsigned char lead[5] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
	uint32_t cp = s[0] & lead[len];

	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3F);
	return cp;
}

/*
 * Characters a terminal shows as something else: the bidirectional
 * controls (U+202E turns "txt.exe" round), the line and paragraph
 * separators, the zero-width no-break space.
 */
static bool invisible(uint32_t cp)
{
	return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
}

/* The unit of text at p as wb_quote() shows it into out (no NUL): its length there; *adv: bytes taken. */
static size_t quote_unit(const unsigned char *p, char out[8], size_t *adv)
{
	static const char named[0x20] = { ['\a'] = 'a', ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
					  ['\v'] = 'v', ['\f'] = 'f', ['\r'] = 'r', [0x1B] = 'e' };
	size_t len = utf8_len(p);
	uint32_t cp = len ? utf8_cp(p, len) : 0;

	*adv = len ? len : 1;
	if (*p < 0x20 && named[*p]) {
		out[0] = '\\';
		out[1] = named[*p];
		return 2;
	}
	if (!len || *p < 0x20 || *p == 0x7F)
		return (size_t)snprintf(out, 8, "\\x%02x", *p);
	if ((cp >= 0x80 && cp <= 0x9F) || invisible(cp))
		return (size_t)snprintf(out, 8, "\\u%04x", (unsigned)cp);
	memcpy(out, p, len);
	return len;
}

const char *wb_quote(const char *s, char *buf, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *q;
	size_t total = 0, o = 0, done = 0, k, adv, room;
	char u[8];

	if (n == 0)
		return buf;
	for (q = p; *q; q += adv)
		total += quote_unit(q, u, &adv);
	/* whole; or its start, "..." and its end, each half the room (a path's end tells it apart) */
	room = total < n ? n - 1 : n > 8 ? (n - 1 - 3) / 2 : n - 1;
	for (q = p; *q && (k = quote_unit(q, u, &adv)) <= room - o; q += adv, done += k) {
		memcpy(buf + o, u, k);
		o += k;
	}
	if (*q && n > 8) {
		memcpy(buf + o, "...", 3);
		o += 3;
		room = n - 1 - o;
		for (; *q && total - done > room; q += adv) /* the first unit from which the rest fits */
			done += quote_unit(q, u, &adv);
		for (; *q; q += adv) {
			k = quote_unit(q, u, &adv);
			memcpy(buf + o, u, k);
			o += k;
		}
	}
	buf[o] = '\0';
	return buf;
}

/* Bytes at p that JSON takes as they are: printable ASCII but '"' and '\\', whole UTF-8 characters
 * but the C1 controls and those invisible() names. */
static size_t json_run(const unsigned char *p)
{
	size_t n = 0, len;

	for (;;) {
		if (p[n] >= 0x20 && p[n] < 0x80 && p[n] != '"' && p[n] != '\\') {
			n++;
			continue;
		}
		if (p[n] < 0x80 || (len = utf8_len(p + n)) == 0 || (len == 2 && is_c1(p + n)) ||
		    invisible(utf8_cp(p + n, len)))
			return n;
		n += len;
	}
}

void wb_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc_unlocked('"', f);
	while (*p) {
		size_t run = json_run(p);
		if (run) {
			fwrite_unlocked(p, 1, run, f);
			p += run;
		} else if (*p == '"' || *p == '\\') {
			fputc_unlocked('\\', f);
			fputc_unlocked(*p++, f);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else if (utf8_len(p) == 2 && is_c1(p)) { /* C1 controls: escaped too, for terminals */
			fprintf(f, "\\u%04x", p[1]);
			p += 2;
		} else if (utf8_len(p)) { /* a line break or bidi control JSON allows raw, not its readers */
			size_t len = utf8_len(p);
			fprintf(f, "\\u%04x", (unsigned)utf8_cp(p, len));
			p += len;
		} else {
			fputs("\\ufffd", f);
			p++;
		}
	}
	fputc_unlocked('"', f);
}

const char *wb_fmt_clock(double wall, const char *fmt, char *buf, size_t n)
{
	struct tm tmv;
	time_t t;

	/* (time_t)NaN or out of range is undefined: check before converting */
	if (!isfinite(wall) || wall < -9e15 || wall > 9e15) {
		snprintf(buf, n, "--:--:--");
		return buf;
	}
	t = (time_t)wall;
	if (!localtime_r(&t, &tmv) || strftime(buf, n, fmt, &tmv) == 0)
		snprintf(buf, n, "--:--:--");
	return buf;
}

int wb_clock_parse(const char *text, int hms[3], char *why, size_t n)
{
	/* no leap second: mktime() would make 23:59:60 the next day's 00:00:00 */
	static const struct { const char *name; int max; } field[3] = {
		{ "hours", 23 }, { "minutes", 59 }, { "seconds", 59 },
	};
	const char *p = text;
	int k = 0;

	hms[2] = 0;
	for (;;) { /* digits only: sscanf's %d took " 5", "+5" and "-0" */
		int digits = 0, v = 0;
		for (; isdigit((unsigned char)*p) && digits < 3; p++, digits++)
			v = v * 10 + (*p - '0');
		if (!digits || digits > 2)
			return -1;
		hms[k++] = v;
		if (!*p)
			break;
		if (*p++ != ':' || k == 3)
			return -1;
	}
	if (k < 2)
		return -1;
	for (k = 0; k < 3; k++)
		if (hms[k] > field[k].max) {
			if (why)
				snprintf(why, n, "%s %d out of range 0-%d", field[k].name, hms[k], field[k].max);
			return 1;
		}
	return 0;
}

int wb_clock_rel(const char *text, double wall_ref, double t_ref, double lo, double hi, double *t_rel)
{
	int hms[3], h, m, sec;
	double best = NAN;

	if (wb_clock_parse(text, hms, NULL, 0) || !isfinite(wall_ref) || fabs(wall_ref) > 1e15)
		return -1;
	h = hms[0], m = hms[1], sec = hms[2];
	for (int day = -1; day <= 1; day++) { /* the wall clock at t_ref, moved to h:m:s on that day and the next/last */
		time_t w = (time_t)wall_ref;
		struct tm tm;
		if (!localtime_r(&w, &tm))
			return -1;
		tm.tm_hour = h, tm.tm_min = m, tm.tm_sec = sec, tm.tm_mday += day, tm.tm_isdst = -1;
		double cand = t_ref + difftime(mktime(&tm), w) - (wall_ref - (double)w);
		if (cand >= lo && cand <= hi && (isnan(best) || fabs(cand - t_ref) < fabs(best - t_ref)))
			best = cand;
	}
	if (isnan(best))
		return -1;
	*t_rel = best;
	return 0;
}

int wb_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS };
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&all, faults[i]);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(t, NULL, fn, arg); /* the thread starts with this mask */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int wb_write_all(int fd, const void *p, size_t n)
{
	const char *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w == 0 ? EIO : errno; /* no progress and no reason given: EIO */
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * The kernel's own file systems, by statfs magic: files there are knobs and
 * views, not storage (--record /proc/self/comm truncated it and wrote a
 * recording's header into it; as root /proc/sys/vm/... is a sysctl).
 */
static const struct { long magic; const char *name; } pseudo_fs[] = {
	{ PROC_SUPER_MAGIC, "procfs" },    { SYSFS_MAGIC, "sysfs" },
	{ DEBUGFS_MAGIC, "debugfs" },      { TRACEFS_MAGIC, "tracefs" },
	{ CGROUP_SUPER_MAGIC, "cgroupfs" }, { CGROUP2_SUPER_MAGIC, "cgroup2fs" },
	{ SECURITYFS_MAGIC, "securityfs" }, { BPF_FS_MAGIC, "bpffs" },
	{ EFIVARFS_MAGIC, "efivarfs" },    { PSTOREFS_MAGIC, "pstore" },
	{ 0x62656570, "configfs" },        { DEVPTS_SUPER_MAGIC, "devpts" },
};

static const char *pseudo_fs_name(const struct statfs *f)
{
	for (size_t i = 0; i < sizeof(pseudo_fs) / sizeof(pseudo_fs[0]); i++)
		if ((long)f->f_type == pseudo_fs[i].magic)
			return pseudo_fs[i].name;
	return NULL;
}

const char *wb_pseudo_fs(const char *path)
{
	struct statfs f;
	char dir[4096];
	const char *slash;

	if (statfs(path, &f) != 0) {
		if (errno != ENOENT)
			return NULL;
		/* not there yet: the directory it would be made in */
		slash = strrchr(path, '/');
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
		if (statfs(dir, &f) != 0)
			return NULL;
	}
	return pseudo_fs_name(&f);
}

const char *wb_pseudo_fs_fd(int fd)
{
	struct statfs f;

	return fstatfs(fd, &f) == 0 ? pseudo_fs_name(&f) : NULL;
}
