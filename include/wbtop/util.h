/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers every layer shares, so that the model, output, tune and UI code
 * include no collector header: diagnostics, path joining, number parsing,
 * byte formatting, access-level text, BDI name order, strings made safe for
 * a terminal and for JSON, and times that may not be numbers.
 */
#ifndef WBTOP_UTIL_H
#define WBTOP_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define WB_DIAG_MAX    16
#define WB_DIAG_LEN    256

/* Messages a collector wants a person to see; bounded, never fatal. */
struct wb_diag {
	char msg[WB_DIAG_MAX][WB_DIAG_LEN];
	int n;
	int dropped;
};
void wb_diag_clear(struct wb_diag *d);
/* Add a message, made safe to print (wb_quote: it may quote a file's text or name); cut to WB_DIAG_LEN. */
void wb_diag_add(struct wb_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Descriptors kept open past a read (kvfile.c's files, procs.c's /proc/PID
 * files) share one budget: half the descriptors the soft open-files limit
 * leaves free when first asked (after main() raised it), so that the rest
 * (a directory listed, a recording, the terminal, /metrics' connections, a
 * file read and closed) has room. A file refused a place is opened at each
 * read instead. wb_fd_keep() takes a place (false: none left),
 * wb_fd_unkeep() gives one back. wb_fd_starved(): an open failed for want
 * of a descriptor, so the budget shrinks to half of what is kept, and
 * wb_fd_over() tells a kept file to close after its read. wb_fd_keep_max()
 * is the budget, wb_fd_limit() the soft limit (0: none). One thread only:
 * the collectors'.
 */
bool wb_fd_keep(void);
void wb_fd_unkeep(void);
void wb_fd_starved(void);
bool wb_fd_over(void);
size_t wb_fd_keep_max(void);
unsigned long long wb_fd_limit(void);
/* Test hook: the budget as if limit descriptors were free (0: read the limit again). */
void wb_fd_keep_reset(unsigned long long limit);
/*
 * Hold fds 0-2 if closed (wbtop >&-): else the next file opened (a
 * recording, a kernel file) takes the number and stdio writes into it.
 * /dev/null is opened the other way round (0 for writing, 1 and 2 for
 * reading), so using it still fails with EBADF as on a closed one. First
 * thing in main(); the fds it held (bit fd: 1 << 1 for a closed stdout), or -errno.
 */
int wb_std_fds_hold(void);
/* Is fd the file path names (the same inode)? */
bool wb_fd_is_path(int fd, const char *path);
/* Do paths a and b name one file (one inode; for files not there yet, one name in one directory)? */
bool wb_paths_same(const char *a, const char *b);

/*
 * Start a thread (pthread_create) with every signal blocked but the faults
 * it may raise itself: a stop, a resize or a terminal signal goes to the main
 * thread, whose wait it ends. 0 or the error number.
 */
int wb_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);
/* write(2) all of n bytes (EINTR retried): 0, or the errno (EIO for no progress) */
int wb_write_all(int fd, const void *p, size_t n);

/* Join root and a path ("/" + "/proc/x"); the result is caller-freed. NULL on out of memory. */
char *wb_path_join(const char *root, const char *path);

/*
 * Copy src into dst of size n (> 0), cut to n - 1 bytes, always terminated.
 * For names copied per trace record or per sample, where snprintf's format
 * machinery is most of the cost.
 */
void wb_copy_str(char *dst, size_t n, const char *src);

/*
 * The whole of s as a finite decimal number (digits, a point, an exponent):
 * no sign, blank or hexadecimal, which strtod alone takes ("0x10" was 16).
 * For the numbers a person types (options, the settings file).
 */
bool wb_parse_decimal(const char *s, double *out);
/* The kernel file system (procfs, sysfs, debugfs...) path is on, or would be made on; NULL for storage. */
const char *wb_pseudo_fs(const char *path);
const char *wb_pseudo_fs_fd(int fd);

/* a + b, or UINT64_MAX where that wraps: sums of counts from files (a node's zones, a device's wbs). */
static inline uint64_t wb_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Parse one unsigned decimal number with overflow checks; end set past it. */
bool wb_parse_u64(const char *s, const char **end, uint64_t *out);

/*
 * "1.5G", "640K": bytes in IEC units (K = KiB, M = MiB, ...) into buf
 * (>= 16 bytes), rounded before the unit is chosen (never "1024K"); at most
 * 4 characters (and a sign) up to 1023 EiB; "-" for a non-finite value. Returns buf.
 */
const char *wb_fmt_bytes(char *buf, size_t len, double bytes);

/*
 * A path into buf (len >= 16) whole, or - longer than len - 1 bytes - as its start, "…" and
 * its end, both cut at UTF-8 character boundaries: a mount point of 150 bytes (a kubelet
 * volume's) keeps its last component, and no output shows a cut character. Returns buf.
 */
char *wb_path_fit(char *buf, size_t len, const char *path);

/* A count in at most 4 characters (powers of 1000: "950", "1.2k", "34k"); "-" if unknown. Returns buf. */
const char *wb_fmt_count(char *buf, size_t len, double v);

/*
 * What the missing access levels hide, one line each, for the level the
 * last sample reached, and why (enum wb_level_why: what to do about it):
 * writes at most n lines into lines[], returns count. Any int is a valid
 * level or why here (a damaged recording's included). events: the sample
 * has trace events (tracefs without debugfs: level 1, yet level 3's events
 * are there, and no line says they are hidden).
 */
int wb_level_hidden(int level, int why, bool events, const char **lines, int n);
/*
 * A live sample's enum wb_level_why from what the collector found: trace
 * (tracing wanted: no --no-trace), the level reached, the errno debugfs's
 * bdi folder gave (0: none said) and whether wbtop runs as root. Below
 * level 2 the hint then names what is missing (root, or the mount) rather
 * than both.
 */
int wb_level_why_live(bool trace, int level, int debugfs_err, bool root);

/* Order BDI names: "MAJ:MIN" numerically, then others by name; 0 only for the same name. */
int wb_bdi_name_cmp(const char *a, const char *b);

/*
 * s made safe for a terminal into buf (always terminated): control
 * characters (C0, DEL, C1) and bytes that are not valid UTF-8 become '?',
 * so no escape sequence passes. Returns buf.
 */
const char *wb_safe_text(const char *s, char *buf, size_t n);

/*
 * Text a person gave (an option's value, a file name, an environment
 * variable) made safe to quote in a message, into buf (n bytes, always
 * terminated): control characters, DEL, C1 controls, the bidirectional and
 * line-separator controls and bytes that are not UTF-8 become C-style
 * escapes (\e, \n, \t, \x7f, \u202e), so no escape sequence reaches the
 * terminal and no newline forges a second message. Longer than n - 1
 * bytes so, it is its start, "..." and its end (n > 8), never cutting an
 * escape or a character. A backslash stays as it is, so text quoted twice
 * reads the same. Returns buf.
 */
const char *wb_quote(const char *s, char *buf, size_t n);
#define WB_QUOTE_LEN 160 /* a quoted name's buffer: at most 159 bytes shown */

/* s as a JSON string (quotes included): valid UTF-8 always, invalid bytes as \ufffd. */
void wb_json_string(FILE *f, const char *s);

/*
 * A wall-clock time in seconds as local time with strftime's fmt, into buf;
 * "--:--:--" when it is not a finite time a time_t holds. Returns buf.
 */
const char *wb_fmt_clock(double wall, const char *fmt, char *buf, size_t n);

/*
 * A clock time "HH:MM" or "HH:MM:SS" (one or two digits a field) into
 * hms[3], seconds 0 when not given. 0; -1 when text is not of that form; 1
 * when a field is out of range (hours 0-23, minutes and seconds 0-59), why
 * (may be NULL) naming it.
 */
int wb_clock_parse(const char *text, int hms[3], char *why, size_t n);

/*
 * A clock time "HH:MM" or "HH:MM:SS" (local time) as seconds from a
 * recording's start: wall_ref is the wall clock at t_ref seconds in; of the
 * days before, of and after wall_ref's, the one that puts the time inside
 * [lo, hi], nearest t_ref if two do. 0 with *t_rel (not clamped); -1 when
 * text is not such a time, or no day puts it inside.
 */
int wb_clock_rel(const char *text, double wall_ref, double t_ref, double lo, double hi, double *t_rel);

#endif
