// SPDX-License-Identifier: GPL-2.0-or-later
/* The settings file (wbtoprc): one table of keys, read with inih, written atomically. */
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wbtop/catalog.h"
#include "wbtop/config.h"
#include "wbtop/theme.h"
#include "wbtop/ui.h"
#include "wbtop/util.h"

#define MAX_FILE (64 * 1024)

enum kind { K_STR, K_NUM, K_BOOL, K_LIST };

/* Every key of [display], once: how it is read, where it goes, its range and help. */
static const struct key {
	const char *name;
	enum kind kind;
	size_t off, len;        /* K_STR: buffer size */
	double min, max;        /* K_NUM */
	const char *help;
} keys[] = {
	{ "theme", K_STR, offsetof(struct wb_config, theme), sizeof(((struct wb_config *)0)->theme), 0, 0,
	  "colour theme: a name or a .theme path" },
	{ "warn", K_NUM, offsetof(struct wb_config, warn), 0, 0.01, 1000, "highlight from this % of a threshold" },
	{ "crit", K_NUM, offsetof(struct wb_config, crit), 0, 0.01, 1000, "critical from this % of a threshold" },
	{ "delay", K_NUM, offsetof(struct wb_config, delay), 0, 0.05, 86400, "seconds between samples" },
	{ "sort", K_STR, offsetof(struct wb_config, sort), WB_CONFIG_NAME, 0, 0, "Devices column to sort by" },
	{ "sort_desc", K_BOOL, offsetof(struct wb_config, sort_desc), 0, 0, 0, "largest first" },
	{ "hide_idle", K_BOOL, offsetof(struct wb_config, hide_idle), 0, 0, 0, "hide idle devices" },
	{ "hide_loop", K_BOOL, offsetof(struct wb_config, hide_loop), 0, 0, 0, "hide loop devices" },
	{ "hidden_columns", K_LIST, 0, 0, 0, 0, "columns not shown, comma-separated: Devices titles; Zones:TITLE, Processes:TITLE" },
};

void wb_config_init(struct wb_config *c)
{
	memset(c, 0, sizeof(*c));
	c->sort_desc = c->hide_idle = c->hide_loop = -1;
}

int wb_config_path(char *buf, size_t n)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		snprintf(buf, n, "%s/wbtop/wbtoprc", xdg);
	else if (home && *home)
		snprintf(buf, n, "%s/.config/wbtop/wbtoprc", home);
	else
		return -1;
	return 0;
}

/* The tables' names in hidden_columns (Devices' columns go bare). */
static const char *const table_names[WB_TABLE_COUNT] = { "Devices", "Zones", "Processes" };

size_t wb_config_columns(enum wb_table t, const struct wb_field **col, size_t max)
{
	const struct wb_field *f;
	size_t n;

	switch (t) {
	case WB_TABLE_DEVICES: return wb_ui_dev_columns(col, max);
	case WB_TABLE_ZONES: f = wb_catalog_zone(&n); break;
	case WB_TABLE_PROCS: f = wb_catalog_proc(&n); break;
	default: return 0;
	}
	return wb_catalog_columns(f, n, WB_SINK_UI, col, max);
}

int wb_config_column(const char *name, enum wb_table *t, int *c)
{
	const struct wb_field *col[40];
	const char *colon = strchr(name, ':'), *title = colon ? colon + 1 : name;

	*t = WB_TABLE_DEVICES;
	if (colon) {
		int k = 0;
		while (k < WB_TABLE_COUNT && (strlen(table_names[k]) != (size_t)(colon - name) ||
					      strncasecmp(table_names[k], name, (size_t)(colon - name))))
			k++;
		if (k == WB_TABLE_COUNT)
			return -ENOENT;
		*t = (enum wb_table)k;
	}
	size_t m = wb_config_columns(*t, col, 40);
	for (size_t k = 0; k < m; k++)
		if (strcasecmp(col[k]->title, title) == 0) {
			*c = (int)k;
			return k ? 0 : -EPERM; /* the first column names the rows */
		}
	return -ENOENT;
}

const char *wb_config_column_name(enum wb_table t, int c, char *buf, size_t n)
{
	const struct wb_field *col[40];
	size_t m = wb_config_columns(t, col, 40);
	const char *title = c >= 0 && (size_t)c < m ? col[c]->title : "?";

	if (t == WB_TABLE_DEVICES)
		snprintf(buf, n, "%s", title);
	else
		snprintf(buf, n, "%s:%s", table_names[t], title);
	return buf;
}

struct ctx {
	struct wb_config *c;
	char what[160];
	const char *text;       /* the file, for the line of a warning */
	char warn[256];         /* names left out: "PATH:LINE: ..." after the parse */
	char fixed[128];        /* names of columns that cannot be hidden, left out too */
	int warn_line;
	unsigned seen;          /* keys set so far, a bit each */
	const char *again;      /* the first key set twice (the last value is used) */
};

/* The line number of the first line of text that sets key; 0 if none. */
static int key_line(const char *text, const char *key)
{
	size_t kl = strlen(key);
	int line = 1;

	for (const char *p = text; p && *p; line++) {
		const char *q = p + strspn(p, " \t");
		if (strncmp(q, key, kl) == 0 && strchr(" \t=:", q[kl]))
			return line;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

/* One name of hidden_columns into c (as the file spells it), or into the warning. */
static void add_hidden(struct ctx *x, const char *t)
{
	struct wb_config *c = x->c;
	enum wb_table tb;
	int col;
	char name[WB_CONFIG_NAME + 8];
	int rc = wb_config_column(t, &tb, &col);
	char *list = rc == -EPERM ? x->fixed : x->warn;
	size_t size = rc == -EPERM ? sizeof(x->fixed) : sizeof(x->warn), l = strlen(list);

	if (rc) { /* unknown, or a first column: "no column DEVICE" read as a misspelling */
		if (!x->warn_line)
			x->warn_line = key_line(x->text, "hidden_columns");
		snprintf(list + l, size - l, "%s\"%.40s\"", l ? ", " : "", t);
		return;
	}
	wb_config_column_name(tb, col, name, sizeof(name));
	for (int i = 0; i < c->nhidden; i++)
		if (strcmp(c->hidden[i], name) == 0)
			return;
	if (c->nhidden < WB_CONFIG_MAX_HIDDEN && strlen(name) < WB_CONFIG_NAME)
		strcpy(c->hidden[c->nhidden++], name);
}

/*
 * The hidden columns from "A, B,C", added to those before: a long list goes
 * on indented lines after the first (inih reads lines of under 200 bytes and
 * hands each such line over as the same key). Unknown names are left out,
 * with a warning.
 */
static bool parse_list(struct ctx *x, const char *v)
{
	char buf[2048], *save = NULL;

	if (strlen(v) >= sizeof(buf))
		return false;
	strcpy(buf, v);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		size_t l = strlen(t);
		while (l && t[l - 1] == ' ')
			t[--l] = '\0';
		if (l)
			add_hidden(x, t);
	}
	return true;
}

/* One value of key k into c; false with a reason in x->what. */
static bool set_value(struct ctx *x, const struct key *k, const char *v)
{
	double d;

	switch (k->kind) {
	case K_STR:
		if (strlen(v) >= k->len || strpbrk(v, "\t\r\n")) {
			snprintf(x->what, sizeof(x->what), "%s: too long or not one line", k->name);
			return false;
		}
		strcpy((char *)x->c + k->off, v);
		return true;
	case K_NUM:
		if (!wb_parse_decimal(v, &d) || d < k->min || d > k->max) { /* decimal: delay = 0x10 was 16 s */
			snprintf(x->what, sizeof(x->what), "%s = %.40s: expected a number from %g to %g", k->name, v,
				 k->min, k->max);
			return false;
		}
		*(double *)((char *)x->c + k->off) = d;
		return true;
	case K_BOOL:
		if (strcmp(v, "true") && strcmp(v, "false") && strcmp(v, "1") && strcmp(v, "0")) {
			snprintf(x->what, sizeof(x->what), "%s = %.40s: expected true or false", k->name, v);
			return false;
		}
		*(int *)((char *)x->c + k->off) = !strcmp(v, "true") || !strcmp(v, "1");
		return true;
	case K_LIST:
		if (!parse_list(x, v)) {
			snprintf(x->what, sizeof(x->what), "%s: a line of under 2048 characters", k->name);
			return false;
		}
		return true;
	}
	return false;
}

/* inih handler: [display] key = value; anything else is an error naming it. */
static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct ctx *x = user;

	if (x->what[0]) /* inih goes on after an error but reports the first one's line: keep its text */
		return 0;
	if (strcmp(section, "display") != 0) {
		snprintf(x->what, sizeof(x->what), "unknown section [%.40s] (only [display])", section);
		return 0;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, name) == 0) {
			/* hidden_columns goes on over lines; a value given twice is kept, and said */
			if (keys[i].kind != K_LIST && (x->seen & (1u << i)) && !x->again)
				x->again = keys[i].name;
			x->seen |= 1u << i;
			return set_value(x, &keys[i], value);
		}
	snprintf(x->what, sizeof(x->what), "unknown key \"%.40s\"", name);
	return 0;
}

/* The file's text, bounded; NULL with errno (ENOENT: no file). Caller frees. */
static char *read_small(const char *path, char *msg, size_t n)
{
	char q[WB_QUOTE_LEN], *buf = NULL;
	struct stat st;
	ssize_t got;
	int fd;

	wb_quote(path, q, sizeof(q)); /* for the messages */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (errno != ENOENT)
			snprintf(msg, n, "%s: %s", q, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE) { /* which of the two, as a theme's */
		if (S_ISREG(st.st_mode))
			snprintf(msg, n, "%s: larger than %d KiB: not a settings file", q, MAX_FILE / 1024);
		else
			snprintf(msg, n, "%s: not a regular file", q);
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	got = buf ? pread(fd, buf, (size_t)st.st_size, 0) : -1;
	close(fd);
	if (got < 0) {
		snprintf(msg, n, "%s: %s", q, strerror(errno));
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	if (memchr(buf, '\0', (size_t)got)) {
		snprintf(msg, n, "%s: not a text file", q);
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	return buf;
}

int wb_config_load(struct wb_config *c, const char *path, char *msg, size_t n)
{
	struct ctx x = { .c = c };
	struct wb_ini_lines rd = { 0 };
	char *text, q[WB_QUOTE_LEN];
	int line;

	wb_config_init(c);
	wb_quote(path, q, sizeof(q)); /* for the messages */
	msg[0] = '\0';
	text = read_small(path, msg, n);
	if (!text)
		return errno == ENOENT && !msg[0] ? 0 : -1;
	x.text = rd.p = text;
	line = ini_parse_stream(wb_ini_read_line, &rd, on_entry, &x);
	if (line != 0 || rd.too_long) { /* a line over inih's buffer: its number, not a piece's */
		free(text);
		if (line != 0)
			snprintf(msg, n, "%s:%d: %s; settings file ignored", q, line,
				 x.what[0] ? x.what : "not an INI line");
		else
			snprintf(msg, n, "%s:%d: line longer than %d characters (hidden_columns goes on over "
				 "indented lines); settings file ignored", q, rd.too_long, rd.max);
		wb_config_init(c);
		return -1;
	}
	if (x.warn[0] || x.fixed[0])
		snprintf(msg, n, "%s:%d: hidden_columns: %s%s%s%s%s; ignored (c or F2 lists them)", q, x.warn_line,
			 x.warn[0] ? "no column " : "", x.warn, x.warn[0] && x.fixed[0] ? "; " : "", x.fixed,
			 x.fixed[0] ? " cannot be hidden (a table's first column names its rows)" : "");
	if (x.again) {
		size_t l = strlen(msg);
		snprintf(msg + l, n - l, "%s%s:%d: %s is set more than once; the last one is used", l ? "; " : "",
			 q, key_line(text, x.again), x.again);
	}
	free(text);
	return msg[0] ? 1 : 0;
}

/* mkdir -p of path's folder, 0700 for the parts it makes. */
static void make_parent(const char *path)
{
	char d[4096];

	if (strlen(path) >= sizeof(d))
		return;
	strcpy(d, path);
	for (char *p = d + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(d, 0700);
			*p = '/';
		}
}

static void write_value(FILE *f, const struct wb_config *c, const struct key *k)
{
	const char *base = (const char *)c + k->off;

	switch (k->kind) {
	case K_STR:
		if (base[0])
			fprintf(f, "%s = %s\n", k->name, base);
		break;
	case K_NUM:
		if (*(const double *)base > 0)
			fprintf(f, "%s = %g\n", k->name, *(const double *)base);
		break;
	case K_BOOL:
		if (*(const int *)base >= 0)
			fprintf(f, "%s = %s\n", k->name, *(const int *)base ? "true" : "false");
		break;
	case K_LIST: { /* lines of under 100 bytes: the rest on indented lines */
		int col = fprintf(f, "%s = ", k->name);
		for (int i = 0; i < c->nhidden; i++) {
			if (i && col + strlen(c->hidden[i]) + 2 > 100)
				col = fprintf(f, ",\n    ") - 2;
			else if (i)
				col += fprintf(f, ", ");
			col += fprintf(f, "%s", c->hidden[i]);
		}
		fputc('\n', f);
		break;
	}
	}
}

int wb_config_save(const struct wb_config *c, const char *path, char *msg, size_t n)
{
	char tmp[4200], q[WB_QUOTE_LEN];
	int fd;
	FILE *f;
	bool ok;

	wb_quote(path, q, sizeof(q)); /* for the messages */
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		snprintf(msg, n, "%s: path too long", q);
		return -1;
	}
	make_parent(path);
	fd = mkostemp(tmp, O_CLOEXEC); /* O_EXCL: a new file, never one a link points to */
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		snprintf(msg, n, "cannot write %s: %s", q, strerror(errno));
		if (fd >= 0)
			close(fd), unlink(tmp);
		return -1;
	}
	fprintf(f, "; wbtop settings, written by W in the UI (wbtop(1), FILES)\n[display]\n");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		fprintf(f, "; %s\n", keys[i].help);
		write_value(f, c, &keys[i]);
	}
	ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		snprintf(msg, n, "cannot write %s: %s", q, strerror(errno));
		unlink(tmp);
		return -1;
	}
	snprintf(msg, n, "settings written to %s", q);
	return 0;
}
