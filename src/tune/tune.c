// SPDX-License-Identifier: GPL-2.0-or-later
/* Apply, journal, read back and revert writeback knobs. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wbtop/util.h"
#include "wbtop/tune.h"

void wb_tune_journal_path(char *buf, size_t len)
{
	const char *env = getenv("WBTOP_JOURNAL"), *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (geteuid() == 0)
		snprintf(buf, len, "/var/lib/wbtop/journal");
	else if (xdg && *xdg)
		snprintf(buf, len, "%s/wbtop/journal", xdg);
	else
		snprintf(buf, len, "%s/.local/state/wbtop/journal", home ? home : "/tmp");
}

static int read_value(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(out, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

static int write_value(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -errno;
	n = write(fd, v, strlen(v));
	e = n < 0 ? -errno : 0;
	close(fd);
	return e;
}

/* mkdir -p of the journal's folder. */
static void make_dirs(const char *file)
{
	char d[512];

	snprintf(d, sizeof(d), "%s", file);
	for (char *p = d + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(d, 0700);
			*p = '/';
		}
}

/* Journal: "pid N", then "path<TAB>orig<TAB>want" lines; written and synced before any change. */
static int save_journal(const struct wb_tune *t)
{
	char tmp[600];
	FILE *f;
	int ok;

	make_dirs(t->journal);
	snprintf(tmp, sizeof(tmp), "%s.new", t->journal);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "wbtop-journal 1\npid %d\n", t->pid);
	for (int i = 0; i < t->n; i++)
		fprintf(f, "%s\t%s\t%s\n", t->e[i].path, t->e[i].orig, t->e[i].want);
	ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
	ok &= fclose(f) == 0;
	if (!ok || rename(tmp, t->journal) != 0)
		return -EIO;
	return 0;
}

/* Journal one file (once) with its current value. */
static int journal_file(struct wb_tune *t, const char *path, const char *want)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->e[i].path, path) == 0) {
			if (want)
				snprintf(t->e[i].want, sizeof(t->e[i].want), "%s", want);
			return 0;
		}
	if (t->n >= WB_TUNE_MAX)
		return -E2BIG;
	snprintf(t->e[t->n].path, sizeof(t->e[t->n].path), "%s", path);
	if (read_value(path, t->e[t->n].orig, sizeof(t->e[t->n].orig)))
		return -ENOENT;
	snprintf(t->e[t->n].want, sizeof(t->e[t->n].want), "%s", want ? want : t->e[t->n].orig);
	t->n++;
	return 0;
}

/* The other member of a ratio/bytes pair, which the kernel zeroes: journal it too. */
static const char *twin_of(const char *path)
{
	static const char *const pairs[][2] = {
		{ "dirty_ratio", "dirty_bytes" }, { "dirty_background_ratio", "dirty_background_bytes" },
		{ "min_ratio", "min_ratio_fine" }, { "max_ratio", "max_ratio_fine" },
		{ "min_bytes", "min_ratio_fine" }, { "max_bytes", "max_ratio_fine" },
	};
	const char *base = strrchr(path, '/');
	static char out[192];

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		for (int k = 0; k < 2; k++)
			if (strcmp(base, pairs[i][k]) == 0) {
				snprintf(out, sizeof(out), "%.*s%s", (int)(base - path), path, pairs[i][!k]);
				return out;
			}
	return NULL;
}

int wb_tune_apply(struct wb_tune *t, const char *root, const struct wb_setop *ops, int nops, char *err,
		  size_t errlen)
{
	int written = 0;

	memset(t, 0, sizeof(*t));
	wb_tune_journal_path(t->journal, sizeof(t->journal));
	t->pid = (int)getpid();
	for (int i = 0; i < nops; i++) {
		char rel[192], *path, val[32];
		const char *tw;
		int rc;

		wb_setop_path(&ops[i], rel, sizeof(rel));
		path = wb_path_join(root, rel);
		snprintf(val, sizeof(val), "%llu", (unsigned long long)ops[i].value);
		rc = path ? journal_file(t, path, val) : -ENOMEM;
		tw = path ? twin_of(path) : NULL;
		if (rc == 0 && tw && access(tw, F_OK) == 0)
			rc = journal_file(t, tw, NULL);
		if (rc) {
			snprintf(err, errlen, "%s: %s", path ? path : rel,
				 rc == -ENOENT ? "no such knob on this kernel (or the device has gone)" : strerror(-rc));
			free(path);
			return -1;
		}
		free(path);
	}
	if (save_journal(t)) {
		snprintf(err, errlen, "cannot write the journal %s: %s; nothing changed", t->journal, strerror(errno));
		return -1;
	}
	for (int i = 0; i < nops; i++) {
		char rel[192], *path = NULL, val[32];
		int rc;

		wb_setop_path(&ops[i], rel, sizeof(rel));
		path = wb_path_join(root, rel);
		snprintf(val, sizeof(val), "%llu", (unsigned long long)ops[i].value);
		rc = path ? write_value(path, val) : -ENOMEM;
		if (rc) {
			char why[256];
			snprintf(why, sizeof(why), "%s=%s refused by the kernel: %s%s", ops[i].key, val, strerror(-rc),
				 rc == -EACCES || rc == -EROFS || rc == -EPERM ? " (needs root and a writable /proc/sys)" : "");
			free(path);
			if (written)
				wb_tune_revert(t, err, errlen);
			else
				wb_tune_confirm(t); /* nothing written: just drop the journal */
			snprintf(err, errlen, "%s; %s", why, written ? "the values written before it were put back" : "nothing changed");
			return -1;
		}
		written++;
		free(path);
	}
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

int wb_tune_revert(struct wb_tune *t, char *err, size_t errlen)
{
	int bad = 0;

	/* min_ratio could sit above the max being restored: lower mins to 0 first */
	for (int i = 0; i < t->n; i++)
		if (strstr(t->e[i].path, "min_ratio_fine"))
			write_value(t->e[i].path, "0");
	for (int rank = 0; rank <= 3; rank++)
		for (int i = 0; i < t->n; i++) {
			char now[32];
			const char *base = strrchr(t->e[i].path, '/');
			base = base ? base + 1 : t->e[i].path;
			if (restore_rank(t, i) != rank)
				continue;
			/* per-BDI: the exact _fine ppm is restored; percent and bytes forms are views of it */
			if (strstr(t->e[i].path, "/bdi/") && (!strcmp(base, "min_ratio") || !strcmp(base, "max_ratio") ||
							      !strcmp(base, "min_bytes") || !strcmp(base, "max_bytes")))
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

int wb_tune_find_stale(struct wb_tune *t, char *err, size_t errlen)
{
	FILE *f;
	char line[512];

	memset(t, 0, sizeof(*t));
	wb_tune_journal_path(t->journal, sizeof(t->journal));
	f = fopen(t->journal, "r");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f) || strncmp(line, "wbtop-journal 1", 15) != 0 ||
	    !fgets(line, sizeof(line), f) || sscanf(line, "pid %d", &t->pid) != 1) {
		fclose(f);
		snprintf(err, errlen, "%s: not a wbtop journal; left alone", t->journal);
		return -1;
	}
	while (t->n < WB_TUNE_MAX && fgets(line, sizeof(line), f)) {
		struct wb_tune_entry *e = &t->e[t->n];
		char *a = strtok(line, "\t\n"), *b = strtok(NULL, "\t\n"), *c = strtok(NULL, "\t\n");
		if (!a || !b || !c)
			continue;
		snprintf(e->path, sizeof(e->path), "%s", a);
		snprintf(e->orig, sizeof(e->orig), "%s", b);
		snprintf(e->want, sizeof(e->want), "%s", c);
		t->n++;
	}
	fclose(f);
	if (t->pid > 0 && t->pid != getpid() && (kill(t->pid, 0) == 0 || errno != ESRCH) && !dead(t->pid))
		return 0; /* its wbtop is still running (in a trial) */
	return t->n > 0 ? 1 : 0;
}
