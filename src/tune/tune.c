// SPDX-License-Identifier: GPL-2.0-or-later
/* Apply, journal, read back and revert writeback knobs. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wbtop/util.h"
#include "wbtop/tune.h"

#define JOURNAL_MAX_BYTES 65536 /* 64 entries are under 16 KiB */
#define LINE_MAX_BYTES 511      /* an entry longer than this is damage */

void wb_tune_journal_path(char *buf, size_t len)
{
	const char *env = getenv("WBTOP_JOURNAL"), *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	const struct passwd *pw = home && *home ? NULL : getpwuid(geteuid());

	if (geteuid() == 0) /* root trusts no environment with the names of files it writes */
		snprintf(buf, len, "%s/journal", WB_TUNE_ROOT_DIR);
	else if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (xdg && *xdg)
		snprintf(buf, len, "%s/wbtop/journal", xdg);
	else
		snprintf(buf, len, "%s/.local/state/wbtop/journal", home && *home ? home : pw ? pw->pw_dir : "/");
}

/* Read a knob's value (one line, no newline); never through a symbolic link. */
static int read_value(const char *path, char *out, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, out, len - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* Write a knob; never through a symbolic link, never creating a file. */
static int write_value(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	ssize_t n;
	int e;

	if (fd < 0)
		return -errno;
	n = write(fd, v, strlen(v));
	e = n < 0 ? -errno : 0;
	close(fd);
	return e;
}

/* A BDI name as sysfs makes them: one path component, printable, no "." or "..". */
static bool bdi_name_ok(const char *name, size_t len)
{
	/*
	 * No backing device's name starts with a dot (the kernel names them
	 * MAJ:MIN or driver-N): refused, "." and ".." and all that look like
	 * them stay out of a path, also now that a journal's entry for a
	 * device that has gone is taken, not refused (fuzz_journal: "..0")
	 */
	if (len == 0 || len >= WB_NAME_LEN || name[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isgraph((unsigned char)name[i]) || name[i] == '/')
			return false;
	return true;
}

/* root + "/" + rel into path; -ENAMETOOLONG if it does not fit. */
static int join(const char *root, const char *rel, char *path, size_t len)
{
	size_t rl = strlen(root);

	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	return snprintf(path, len, "%.*s/%s", (int)rl, root, rel) < (int)len ? 0 : -ENAMETOOLONG;
}

/*
 * The file behind a knob key ("vm.dirty_ratio", "bdi.7:0.max_ratio") under
 * root: only knobs of the catalogue, only BDIs that exist - but with gone
 * non-NULL (a journal's entry), a BDI that has gone since sets *gone and is
 * no error: its knobs went with it, and a write never creates a file. The
 * catalogue index in *idx. 0, or -EINVAL with the reason in why.
 */
static int key_path(const char *key, const char *root, char *path, size_t len, int *idx, bool *gone, char *why,
		    size_t wlen)
{
	char rel[160];
	const char *dot = strrchr(key, '.');
	struct stat st;

	*idx = -1;
	if (strncmp(key, "vm.", 3) == 0 && dot == key + 2) {
		*idx = wb_knob_find(key + 3, false);
		snprintf(rel, sizeof(rel), "proc/sys/vm/%s", key + 3);
	} else if (strncmp(key, "bdi.", 4) == 0 && dot > key + 3) {
		size_t n = (size_t)(dot - key - 4);
		if (!bdi_name_ok(key + 4, n)) {
			snprintf(why, wlen, "\"%.*s\" is not a backing device's name", (int)(n > 40 ? 40 : n), key + 4);
			return -EINVAL;
		}
		*idx = wb_knob_find(dot + 1, true);
		snprintf(rel, sizeof(rel), "sys/class/bdi/%.*s", (int)n, key + 4);
		if (*idx >= 0) {
			int rc = join(root, rel, path, len) ? -ENAMETOOLONG : stat(path, &st) != 0 ? -errno : 0;
			if (rc == -ENOENT && gone) {
				*gone = true;
			} else if (rc || !S_ISDIR(st.st_mode)) {
				snprintf(why, wlen, "no backing device %s in /sys/class/bdi", rel + 14);
				return -EINVAL;
			}
		}
		snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/%s", dot + 1);
	}
	if (*idx < 0) {
		snprintf(why, wlen, "\"%.60s\" is not a knob wbtop writes", key);
		return -EINVAL;
	}
	if (join(root, rel, path, len)) {
		snprintf(why, wlen, "%s: the path is too long", key);
		return -EINVAL;
	}
	return 0;
}

/* A journaled key's catalogue index (the key was checked by key_path()). */
static int knob_idx(const char *key)
{
	const char *dot = strrchr(key, '.');

	return strncmp(key, "vm.", 3) == 0 ? wb_knob_find(key + 3, false) : wb_knob_find(dot ? dot + 1 : key, true);
}

/* A value as the kernel reads it back: digits, within the knob's range (0: a pair's member that is off). */
static int value_ok(const char *v, int idx, const char *key, char *why, size_t wlen)
{
	const char *end;
	uint64_t x;

	if (!wb_parse_u64(v, &end, &x) || *end) {
		snprintf(why, wlen, "%s: \"%.32s\" is not a whole number", key, v);
		return -EINVAL;
	}
	if (x != 0 && wb_knob_check((size_t)idx, key, x, (uint32_t)sysconf(_SC_PAGESIZE), why, wlen))
		return -EINVAL;
	return 0;
}

/* Find the entry for key in t, or -1. */
static int find_entry(const struct wb_tune *t, const char *key)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->e[i].key, key) == 0)
			return i;
	return -1;
}

/* The journal's folder: made if missing (mode 0700), and only ours, a real directory, writable by no one else. */
static int journal_dir(const char *journal, char *err, size_t errlen)
{
	char d[512], q[WB_QUOTE_LEN];
	char *slash;
	struct stat st;

	snprintf(d, sizeof(d), "%s", journal);
	slash = strrchr(d, '/');
	if (!slash || slash == d) {
		snprintf(err, errlen, "%s: the journal needs a folder of its own", wb_quote(journal, q, sizeof(q)));
		return -EINVAL;
	}
	*slash = '\0';
	for (char *p = d + 1; geteuid() != 0 && *p; p++) /* a user's state folder: mkdir -p */
		if (*p == '/') {
			*p = '\0';
			mkdir(d, 0700);
			*p = '/';
		}
	if (mkdir(d, 0700) != 0 && errno != EEXIST) {
		int e = errno;

		snprintf(err, errlen, "cannot make %s: %s; nothing changed", wb_quote(d, q, sizeof(q)), strerror(e));
		return -e;
	}
	if (lstat(d, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(err, errlen, "%s: the journal's folder must be a directory of uid %d writable by no one else "
			 "(chown, chmod 700); nothing changed", wb_quote(d, q, sizeof(q)), (int)geteuid());
		return -EPERM;
	}
	return 0;
}

/* Flush the folder holding path, so a rename in it survives a crash. */
static void sync_dir(const char *path)
{
	char d[512];
	char *slash;
	int fd;

	snprintf(d, sizeof(d), "%s", path);
	slash = strrchr(d, '/');
	if (!slash)
		return;
	*slash = '\0';
	fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/*
 * Journal: "wbtop-journal 3", "pid N", then "key<TAB>orig<TAB>want<TAB>after"
 * lines (after: what the knob read once the whole change was written, empty
 * until then; a recovery leaves a knob that reads otherwise alone, as a live
 * revert does); a new file made O_EXCL next to it, synced, renamed over it.
 * Versions 1 and 2 (no after) are still read.
 */
static int save_journal(const struct wb_tune *t, char *err, size_t errlen)
{
	char tmp[600], q[WB_QUOTE_LEN];
	FILE *f;
	int fd, ok;

	if (journal_dir(t->journal, err, errlen))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", t->journal);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		int e = errno;

		snprintf(err, errlen, "cannot write the journal %s: %s; nothing changed",
			 wb_quote(t->journal, q, sizeof(q)), strerror(e));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -1;
	}
	fprintf(f, "wbtop-journal 3\npid %d\n", t->pid);
	for (int i = 0; i < t->n; i++)
		fprintf(f, "%s\t%s\t%s\t%s\n", t->e[i].key, t->e[i].orig, t->e[i].want, t->e[i].after);
	ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
	ok &= fclose(f) == 0;
	if (!ok || rename(tmp, t->journal) != 0) {
		int e = errno;

		snprintf(err, errlen, "cannot write the journal %s: %s; nothing changed",
			 wb_quote(t->journal, q, sizeof(q)), strerror(e));
		unlink(tmp);
		return -1;
	}
	sync_dir(t->journal);
	return 0;
}

/* Journal one knob (once) with its current value; a key already there only takes the new want. */
static int journal_key(struct wb_tune *t, const char *root, const char *key, const char *want, char *err,
		       size_t errlen)
{
	struct wb_tune_entry *e;
	int i = find_entry(t, key), idx;

	if (i >= 0) {
		if (want)
			snprintf(t->e[i].want, sizeof(t->e[i].want), "%s", want);
		return 0;
	}
	if (t->n >= WB_TUNE_MAX) {
		snprintf(err, errlen, "more than %d knobs in one change", WB_TUNE_MAX);
		return -E2BIG;
	}
	e = &t->e[t->n];
	if (key_path(key, root, e->path, sizeof(e->path), &idx, NULL, err, errlen))
		return -EINVAL;
	if (read_value(e->path, e->orig, sizeof(e->orig))) {
		snprintf(err, errlen, "%s: no such knob on this kernel (or the device has gone)", e->path);
		return -ENOENT;
	}
	if (value_ok(e->orig, idx, key, err, errlen))
		return -EINVAL; /* a value we could not put back as read */
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->want, sizeof(e->want), "%s", want ? want : e->orig);
	t->n++;
	return 0;
}

/* The other member of a ratio/bytes pair, which the kernel changes too: its key, or NULL. */
static const char *twin_of(const char *key, char *out, size_t len)
{
	static const char *const pairs[][2] = {
		{ "dirty_ratio", "dirty_bytes" }, { "dirty_background_ratio", "dirty_background_bytes" },
		{ "min_ratio", "min_ratio_fine" }, { "max_ratio", "max_ratio_fine" },
		{ "min_bytes", "min_ratio_fine" }, { "max_bytes", "max_ratio_fine" },
	};
	const char *base = strrchr(key, '.');

	base = base ? base + 1 : key;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		for (int k = 0; k < 2; k++)
			if (strcmp(base, pairs[i][k]) == 0) {
				snprintf(out, len, "%.*s%s", (int)(base - key), key, pairs[i][!k]);
				return out;
			}
	return NULL;
}

/* The key of a setop: "vm.NAME" or "bdi.<sysfs name>.ATTR". */
static void op_key(const struct wb_setop *op, char *buf, size_t len)
{
	const char *dot = strrchr(op->key, '.');

	if (op->is_bdi)
		snprintf(buf, len, "bdi.%s.%s", op->bdi, dot ? dot + 1 : "");
	else
		snprintf(buf, len, "%s", op->key);
}

/* Refuse to start over a journal that holds another wbtop's unconfirmed changes, or damage. */
static int journal_free(const struct wb_tune *t, const char *root, char *err, size_t errlen)
{
	struct wb_tune *old = malloc(sizeof(*old));
	char why[400], q[WB_QUOTE_LEN];
	int rc;

	if (!old)
		return -ENOMEM;
	rc = wb_tune_read(old, t->journal, root, why, sizeof(why));
	if (rc < 0) {
		snprintf(err, errlen, "%s", why);
	} else if (rc > 0 && old->pid != t->pid) {
		snprintf(err, errlen, "%s holds unconfirmed changes of wbtop pid %d: run wbtop --recover revert "
			 "(or keep) first; nothing changed", wb_quote(t->journal, q, sizeof(q)), old->pid);
		rc = -1;
	}
	free(old);
	return rc < 0 ? -EBUSY : 0;
}

/* Journal every op's knob and its pair's twin, with the values they have now. */
static int journal_ops(struct wb_tune *t, const char *root, const struct wb_setop *ops, int nops, char *err,
		       size_t errlen)
{
	for (int i = 0; i < nops; i++) {
		char key[sizeof(t->e[0].key)], tkey[sizeof(key)], val[32], p[192], why[8];
		const char *tw;
		int idx;

		op_key(&ops[i], key, sizeof(key));
		snprintf(val, sizeof(val), "%llu", (unsigned long long)ops[i].value);
		if (journal_key(t, root, key, val, err, errlen))
			return -1;
		tw = twin_of(key, tkey, sizeof(tkey));
		/* older kernels have no *_fine: a missing twin is not an error */
		if (tw && key_path(tw, root, p, sizeof(p), &idx, NULL, why, sizeof(why)) == 0 && access(p, F_OK) == 0 &&
		    journal_key(t, root, tw, NULL, err, errlen))
			return -1;
	}
	return 0;
}

int wb_tune_apply(struct wb_tune *t, const char *root, const struct wb_setop *ops, int nops, char *err,
		  size_t errlen)
{
	int written = 0;
	char q[WB_QUOTE_LEN];

	memset(t, 0, sizeof(*t));
	wb_tune_journal_path(t->journal, sizeof(t->journal));
	t->pid = (int)getpid();
	if (strcmp(root, "/") != 0) { /* the journal names knobs, not trees: its revert is on "/" */
		snprintf(err, errlen, "knobs are written on the running kernel only, not under --root %s; nothing changed",
			 wb_quote(root, q, sizeof(q)));
		return -1;
	}
	if (journal_free(t, root, err, errlen) || journal_ops(t, root, ops, nops, err, errlen) ||
	    save_journal(t, err, errlen))
		return -1;
	for (int i = 0; i < nops; i++) {
		char key[sizeof(t->e[0].key)], val[32];
		const struct wb_tune_entry *e;
		int rc;

		op_key(&ops[i], key, sizeof(key));
		e = &t->e[find_entry(t, key)];
		snprintf(val, sizeof(val), "%llu", (unsigned long long)ops[i].value);
		rc = write_value(e->path, val);
		if (rc) {
			char why[256];
			snprintf(why, sizeof(why), "%s=%s refused by the kernel: %s%s", ops[i].key, val, strerror(-rc),
				 rc == -EACCES || rc == -EROFS || rc == -EPERM ? " (needs root and a writable /proc/sys)" : "");
			if (written)
				wb_tune_revert(t, err, errlen);
			else
				wb_tune_confirm(t); /* nothing written: just drop the journal */
			snprintf(err, errlen, "%s; %s", why, written ? "the values written before it were put back" : "nothing changed");
			return -1;
		}
		written++;
	}
	/* what the kernel shows once everything is written (twins too): a revert compares with it */
	for (int i = 0; i < t->n; i++)
		if (read_value(t->e[i].path, t->e[i].after, sizeof(t->e[i].after)) ||
		    value_ok(t->e[i].after, knob_idx(t->e[i].key), t->e[i].key, err, errlen))
			t->e[i].after[0] = '\0'; /* unknown: a recovery reverts it unconditionally */
	/*
	 * ... and the journal says it too, for a recovery after a crash. Not
	 * written: the journal as it was stands (every knob reverted as it
	 * was before this record existed), which is no reason to undo the change.
	 */
	if (save_journal(t, err, errlen))
		fprintf(stderr, "wbtop: %s; a recovery would revert even knobs changed by another since\n", err);
	err[0] = '\0';
	return 0;
}

/* Restore order: a bytes/ratio pair's non-zero member last; for min/max, the loosening one first. */
static int restore_rank(const struct wb_tune *t, int i)
{
	const char *base = strrchr(t->e[i].path, '/');

	base = base ? base + 1 : t->e[i].path;
	if (strstr(base, "max_ratio"))
		return 1; /* max before min: a raised max never blocks the min */
	if (strstr(base, "min_ratio"))
		return 2;
	if (strcmp(t->e[i].orig, "0") == 0)
		return 0; /* the zero member of a sysctl pair first ... */
	return 3;         /* ... the member that was in force last, so its mode wins */
}

/* Per-BDI percent and bytes forms are views of the exact _fine ppm: only that is restored. */
static bool is_view(const struct wb_tune_entry *e)
{
	const char *base = strrchr(e->path, '/');

	base = base ? base + 1 : e->path;
	return strstr(e->path, "/bdi/") && (!strcmp(base, "min_ratio") || !strcmp(base, "max_ratio") ||
					    !strcmp(base, "min_bytes") || !strcmp(base, "max_bytes"));
}

/* The knobs one write can change together: "vm.dirty" for dirty_ratio/_bytes, "bdi.7:0.max" for max_*. */
static void group_of(const char *key, char *out, size_t len)
{
	const char *base = strrchr(key, '.');
	size_t n = strlen(key), b = base ? (size_t)(base + 1 - key) : 0;

	if (!strncmp(key + b, "min_", 4) || !strncmp(key + b, "max_", 4))
		n = b + 3;
	else if (n - b > 6 && (!strcmp(key + n - 6, "_ratio") || !strcmp(key + n - 6, "_bytes")))
		n -= 6;
	snprintf(out, len, "%.*s", (int)n, key);
}

/*
 * Mark the entries whose group another process changed since this one wrote it (a
 * restored member reads other than it did after the apply); name them in t->left.
 */
static void find_changed(struct wb_tune *t, bool *keep)
{
	t->left[0] = '\0';
	/* all cleared first: an entry marks its group's later members too */
	for (int i = 0; i < t->n; i++)
		keep[i] = false;
	for (int i = 0; i < t->n; i++) {
		char now[32], g[96], h[96];
		size_t l = strlen(t->left);

		if (!t->e[i].after[0] || is_view(&t->e[i]) || read_value(t->e[i].path, now, sizeof(now)) ||
		    !strcmp(now, t->e[i].after))
			continue;
		group_of(t->e[i].key, g, sizeof(g));
		for (int j = 0; j < t->n; j++) {
			group_of(t->e[j].key, h, sizeof(h));
			keep[j] |= !strcmp(g, h);
		}
		snprintf(t->left + l, sizeof(t->left) - l, "%s%s is %s, not the %s wbtop left", l ? "; " : "",
			 t->e[i].key, now, t->e[i].after);
	}
}

/* Is name one of the ", "-separated names in list? */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

/*
 * Mark the entries whose device has gone (its /sys/class/bdi folder with it: unplugged, a loop
 * device removed) and name those devices in t->gone: nothing is left there to put back, and a
 * device made again under the name starts at the kernel's defaults.
 */
static void find_gone(struct wb_tune *t)
{
	t->gone[0] = '\0';
	for (int i = 0; i < t->n; i++) {
		struct wb_tune_entry *e = &t->e[i];
		const char *slash = strrchr(e->path, '/'), *dot = strrchr(e->key, '.');
		char dir[sizeof(e->path)], name[WB_NAME_LEN];
		struct stat st;
		size_t l = strlen(t->gone);

		if (strncmp(e->key, "bdi.", 4) != 0 || !slash || !dot || dot <= e->key + 4)
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - e->path), e->path);
		e->gone |= stat(dir, &st) != 0 && errno == ENOENT;
		snprintf(name, sizeof(name), "%.*s", (int)(dot - e->key - 4), e->key + 4);
		if (!e->gone || listed(t->gone, name)) /* each device named once */
			continue;
		snprintf(t->gone + l, sizeof(t->gone) - l, "%s%s", l ? ", " : "", name);
	}
}

int wb_tune_revert(struct wb_tune *t, char *err, size_t errlen)
{
	int bad = 0;
	bool keep[WB_TUNE_MAX];

	find_gone(t);
	find_changed(t, keep);
	/* min_ratio could sit above the max being restored: lower mins to 0 first */
	for (int i = 0; i < t->n; i++)
		if (strstr(t->e[i].path, "min_ratio_fine") && !keep[i])
			write_value(t->e[i].path, "0");
	for (int rank = 0; rank <= 3; rank++)
		for (int i = 0; i < t->n; i++) {
			char now[32];
			if (restore_rank(t, i) != rank || keep[i] || is_view(&t->e[i]) || t->e[i].gone)
				continue;
			if (strcmp(t->e[i].orig, "0") == 0 && (strstr(t->e[i].path, "dirty_bytes") ||
							      strstr(t->e[i].path, "dirty_background_bytes")))
				continue; /* bytes cannot be written 0: the ratio write zeroes it */
			/* a ratio write of the value in force does not switch modes back */
			if (read_value(t->e[i].path, now, sizeof(now)) == 0 && strcmp(now, t->e[i].orig) == 0 &&
			    strstr(t->e[i].path, "_ratio") && !strstr(t->e[i].path, "/bdi/"))
				write_value(t->e[i].path, strcmp(now, "1") ? "1" : "2");
			if (write_value(t->e[i].path, t->e[i].orig)) {
				bad++;
				snprintf(err, errlen, "%s: could not put back %s", t->e[i].path, t->e[i].orig);
			}
		}
	if (!bad)
		unlink(t->journal);
	return bad ? -1 : 0;
}

void wb_tune_confirm(struct wb_tune *t)
{
	unlink(t->journal);
}

/* A zombie, or a process past its end, cannot come back to finish its trial. */
static bool dead(int pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false; /* no /proc to ask: trust kill() */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the state follows the command name, which may hold anything */
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* Open a journal for reading: a regular file of ours, writable by no one else, not too large. */
static FILE *open_journal(const char *path, char *why, size_t wlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		snprintf(why, wlen, "%s", errno == ELOOP ? "a symbolic link, not a journal" : strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		snprintf(why, wlen, "not a regular file");
	else if (st.st_uid != geteuid() || (st.st_mode & 022))
		snprintf(why, wlen, "owned by uid %d or writable by others: not trusted", (int)st.st_uid);
	else if (st.st_size > JOURNAL_MAX_BYTES)
		snprintf(why, wlen, "%lld bytes: too large for a journal", (long long)st.st_size);
	else if ((f = fdopen(fd, "r")))
		return f;
	else
		snprintf(why, wlen, "%s", strerror(errno));
	close(fd);
	return NULL;
}

/* A version-1 entry named the file: back to its key ("/proc/sys/vm/X" -> "vm.X", "/sys/class/bdi/B/A" -> "bdi.B.A"). */
static int v1_key(const char *path, char *key, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (strncmp(path, "/proc/sys/vm/", 13) == 0 && slash == path + 12)
		return snprintf(key, len, "vm.%s", slash + 1) < (int)len ? 0 : -1;
	if (strncmp(path, "/sys/class/bdi/", 15) == 0 && slash > path + 15)
		return snprintf(key, len, "bdi.%.*s.%s", (int)(slash - path - 15), path + 15, slash + 1) < (int)len ? 0 : -1;
	return -1;
}

/*
 * Check one entry line ("key<TAB>orig<TAB>want\n", or a path for the key in
 * version 1; version 3 adds "<TAB>after", which may be empty) into t.
 */
static int read_entry(struct wb_tune *t, char *line, int version, const char *root, char *why, size_t wlen)
{
	struct wb_tune_entry *e = &t->e[t->n];
	char *f1 = line, *f2, *f3, *f4 = NULL, *nl = strchr(line, '\n');
	int idx;

	*nl = '\0';
	f2 = strchr(f1, '\t');
	f3 = f2 ? strchr(f2 + 1, '\t') : NULL;
	if (version >= 3 && f3 && (f4 = strchr(f3 + 1, '\t')))
		*f4++ = '\0';
	if (!f3 || strchr(f3 + 1, '\t') || (version >= 3 && (!f4 || strchr(f4, '\t')))) {
		snprintf(why, wlen, "expected %s fields separated by tabs", version >= 3 ? "four" : "three");
		return -EINVAL;
	}
	*f2++ = '\0';
	*f3++ = '\0';
	if (t->n >= WB_TUNE_MAX) {
		snprintf(why, wlen, "more than %d entries", WB_TUNE_MAX);
		return -E2BIG;
	}
	if (version == 1 ? v1_key(f1, e->key, sizeof(e->key)) : snprintf(e->key, sizeof(e->key), "%s", f1) >= (int)sizeof(e->key)) {
		snprintf(why, wlen, "\"%.60s\" is not a knob wbtop writes", f1);
		return -EINVAL;
	}
	if (key_path(e->key, root, e->path, sizeof(e->path), &idx, &e->gone, why, wlen) || value_ok(f2, idx, e->key, why, wlen) ||
	    value_ok(f3, idx, e->key, why, wlen) || (f4 && *f4 && value_ok(f4, idx, e->key, why, wlen)))
		return -EINVAL;
	if (find_entry(t, e->key) >= 0) {
		snprintf(why, wlen, "%s appears twice", e->key);
		return -EINVAL;
	}
	snprintf(e->orig, sizeof(e->orig), "%s", f2);
	snprintf(e->want, sizeof(e->want), "%s", f3);
	snprintf(e->after, sizeof(e->after), "%s", f4 ? f4 : "");
	t->n++;
	return 0;
}

/* Check one line of the journal: header, pid, or an entry. */
static int read_line(struct wb_tune *t, char *line, ssize_t n, int lineno, int *version, const char *root,
		     char *why, size_t wlen)
{
	const char *end;
	uint64_t pid;

	if (n > LINE_MAX_BYTES) {
		snprintf(why, wlen, "longer than %d bytes", LINE_MAX_BYTES);
		return -EINVAL;
	}
	if ((size_t)n != strlen(line) || line[n - 1] != '\n') {
		snprintf(why, wlen, "%s", line[n - 1] != '\n' ? "cut short (no newline)" : "holds a NUL byte");
		return -EINVAL;
	}
	if (lineno == 1) {
		*version = strcmp(line, "wbtop-journal 3\n") == 0   ? 3
			   : strcmp(line, "wbtop-journal 2\n") == 0 ? 2
			   : strcmp(line, "wbtop-journal 1\n") == 0 ? 1 : 0;
		if (!*version)
			snprintf(why, wlen, "not a wbtop journal");
		return *version ? 0 : -EINVAL;
	}
	if (lineno == 2) {
		if (strncmp(line, "pid ", 4) || !wb_parse_u64(line + 4, &end, &pid) || *end != '\n' || pid == 0 ||
		    pid > 0x7fffffff) {
			snprintf(why, wlen, "expected \"pid N\"");
			return -EINVAL;
		}
		t->pid = (int)pid;
		return 0;
	}
	return read_entry(t, line, *version, root, why, wlen);
}

int wb_tune_read(struct wb_tune *t, const char *path, const char *root, char *err, size_t errlen)
{
	char why[300], q[WB_QUOTE_LEN], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, version = 0, rc = 0;
	struct stat st;
	FILE *f;

	memset(t, 0, sizeof(*t));
	snprintf(t->journal, sizeof(t->journal), "%s", path);
	if (lstat(path, &st) != 0 && errno == ENOENT)
		return 0;
	f = open_journal(path, why, sizeof(why));
	if (!f) {
		snprintf(err, errlen, "%s: %s; left alone, nothing written", wb_quote(path, q, sizeof(q)), why);
		return -1;
	}
	while (rc == 0 && (n = getline(&line, &cap, f)) > 0)
		rc = read_line(t, line, n, ++lineno, &version, root, why, sizeof(why));
	if (rc == 0 && lineno < 2) {
		rc = -EINVAL;
		snprintf(why, sizeof(why), "%s", lineno ? "no pid line" : "empty");
		lineno++;
	}
	free(line);
	fclose(f);
	if (rc) {
		char qw[sizeof(why) + 64];

		/* why may hold the file's own text (a key, a value, a name): never raw to a terminal */
		snprintf(err, errlen, "%s:%d: %s; a damaged or foreign journal, nothing written (look at it, then "
			 "remove it)", wb_quote(path, q, sizeof(q)), lineno, wb_quote(why, qw, sizeof(qw)));
		t->n = 0;
		return -1;
	}
	return t->n > 0 ? 1 : 0;
}

int wb_tune_find_stale(struct wb_tune *t, char *err, size_t errlen)
{
	char path[512];
	int rc;

	wb_tune_journal_path(path, sizeof(path));
	rc = wb_tune_read(t, path, "/", err, errlen);
	if (rc <= 0)
		return rc;
	if (t->pid != getpid() && (kill(t->pid, 0) == 0 || errno != ESRCH) && !dead(t->pid))
		return 0; /* its wbtop is still running (in a trial) */
	return 1;
}
