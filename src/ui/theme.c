// SPDX-License-Identifier: GPL-2.0-or-later
/* Themes from INI files (inih): [roles] role = fg, bg, attrs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wbtop/theme.h"
#include "wbtop/util.h"

const char *const wb_role_names[WB_R_COUNT] = {
	[WB_R_NORMAL] = "normal", [WB_R_HEADER] = "header", [WB_R_TITLE] = "title",
	[WB_R_DIRTY] = "dirty", [WB_R_WRITEBACK] = "writeback", [WB_R_THRESHOLD] = "threshold",
	[WB_R_BACKGROUND] = "background", [WB_R_WARN] = "warn", [WB_R_CRITICAL] = "critical",
	[WB_R_IDLE] = "idle", [WB_R_SELECTED] = "selected", [WB_R_TAB] = "tab",
	[WB_R_TAB_ACTIVE] = "tab_active", [WB_R_HINT] = "hint", [WB_R_BAR_EMPTY] = "bar_empty",
	[WB_R_NA] = "na", [WB_R_GOOD] = "good",
};

static const char *const color_names[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

/* One colour: "default", a name, or a number (optionally "N|name" for 8-colour). */
static bool one_color(const char *s, short *c)
{
	char *end;
	long n;

	if (strcasecmp(s, "default") == 0) {
		*c = -1;
		return true;
	}
	for (int i = 0; i < 8; i++)
		if (strcasecmp(s, color_names[i]) == 0) {
			*c = (short)i;
			return true;
		}
	n = strtol(s, &end, 10);
	if (end == s || *end || n < 0 || n > 255)
		return false;
	*c = (short)n;
	return true;
}

bool wb_theme_parse_color(const char *s, short *c256, short *c8)
{
	char buf[64];
	char *bar;

	snprintf(buf, sizeof(buf), "%s", s);
	bar = strchr(buf, '|');
	if (bar) {
		*bar = '\0';
		return one_color(buf, c256) && one_color(bar + 1, c8) && *c8 < 8;
	}
	if (!one_color(buf, c256))
		return false;
	*c8 = *c256 < 8 ? *c256 : (short)(*c256 % 8);
	return true;
}

struct style_def { enum wb_role r; const char *fg, *bg; unsigned a; };

/* The compiled-in dark theme, also the base every file starts from. */
static const struct style_def dflt[] = {
	{ WB_R_NORMAL, "default", "default", 0 },
	{ WB_R_HEADER, "white", "blue", WB_A_BOLD },
	{ WB_R_TITLE, "cyan", "default", WB_A_BOLD },
	{ WB_R_DIRTY, "214|yellow", "default", 0 },
	{ WB_R_WRITEBACK, "39|blue", "default", 0 },
	{ WB_R_THRESHOLD, "red", "default", WB_A_BOLD },
	{ WB_R_BACKGROUND, "magenta", "default", 0 },
	{ WB_R_WARN, "black", "yellow", 0 },
	{ WB_R_CRITICAL, "white", "red", WB_A_BOLD },
	{ WB_R_IDLE, "244|white", "default", WB_A_DIM },
	{ WB_R_SELECTED, "black", "cyan", 0 },
	{ WB_R_TAB, "white", "default", 0 },
	{ WB_R_TAB_ACTIVE, "black", "green", WB_A_BOLD },
	{ WB_R_HINT, "black", "cyan", 0 },
	{ WB_R_BAR_EMPTY, "240|white", "default", WB_A_DIM },
	{ WB_R_NA, "244|white", "default", WB_A_DIM },
	{ WB_R_GOOD, "green", "default", 0 },
};

void wb_theme_default(struct wb_theme *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "default");
	for (size_t i = 0; i < sizeof(dflt) / sizeof(dflt[0]); i++) {
		struct wb_style *s = &t->role[dflt[i].r];
		wb_theme_parse_color(dflt[i].fg, &s->fg, &s->fg8);
		wb_theme_parse_color(dflt[i].bg, &s->bg, &s->bg8);
		s->attrs = dflt[i].a;
	}
}

/* The built-in mono theme: attributes only (also what NO_COLOR gets). */
static void theme_mono(struct wb_theme *t)
{
	static const unsigned a[WB_R_COUNT] = {
		[WB_R_HEADER] = WB_A_REVERSE, [WB_R_TITLE] = WB_A_BOLD, [WB_R_THRESHOLD] = WB_A_BOLD,
		[WB_R_WARN] = WB_A_UNDERLINE, [WB_R_CRITICAL] = WB_A_REVERSE | WB_A_BOLD,
		[WB_R_IDLE] = WB_A_DIM, [WB_R_SELECTED] = WB_A_REVERSE, [WB_R_TAB_ACTIVE] = WB_A_REVERSE,
		[WB_R_HINT] = WB_A_REVERSE, [WB_R_NA] = WB_A_DIM, [WB_R_DIRTY] = WB_A_BOLD,
	};
	wb_theme_default(t);
	snprintf(t->name, sizeof(t->name), "mono");
	t->mono = true;
	for (int i = 0; i < WB_R_COUNT; i++)
		t->role[i] = (struct wb_style){ -1, -1, -1, -1, a[i] };
}

/* A theme's text as inih reads it, a whole line at a time. */
struct load_ctx {
	struct wb_theme *t;
	char *err;
	size_t errlen;
	const struct wb_ini_lines *rd;
	int err_line; /* the line err's text is about */
	int role_on[WB_R_COUNT], name_on, mono_on; /* the line each was set on (0: not yet): once each */
};

static char *trim(char *s)
{
	char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

static unsigned parse_attrs(char *s, bool *ok)
{
	static const struct { const char *n; unsigned a; } tab[] = {
		{ "bold", WB_A_BOLD }, { "reverse", WB_A_REVERSE }, { "underline", WB_A_UNDERLINE },
		{ "dim", WB_A_DIM }, { "none", 0 },
	};
	unsigned a = 0;
	char *rest = s;

	/* each piece between +s a name: strtok_r took "bold+", "+" and "bold reverse" */
	while (rest) {
		char *w = trim(strsep(&rest, "+"));
		size_t i;
		for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
			if (strcasecmp(w, tab[i].n) == 0)
				break;
		if (i == sizeof(tab) / sizeof(tab[0])) {
			*ok = false;
			return 0;
		}
		a |= tab[i].a;
	}
	return a;
}

/*
 * A role's "fg, bg[, attrs]" over st; false if malformed. Empty fields count
 * (strtok_r made "red,,blue" two), and so does a fourth one or a value cut
 * short by buf, which would drop what follows unread.
 */
static bool parse_style(const char *value, struct wb_style *st)
{
	char buf[160], *f[4], *rest = buf;
	int nf = 0;
	bool ok = true;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", value) >= sizeof(buf))
		return false;
	while (rest && nf < 4)
		f[nf++] = trim(strsep(&rest, ","));
	if (rest || nf < 2 || nf > 3 || !wb_theme_parse_color(f[0], &st->fg, &st->fg8) ||
	    !wb_theme_parse_color(f[1], &st->bg, &st->bg8))
		return false;
	st->attrs = nf == 3 ? parse_attrs(f[2], &ok) : 0;
	return ok;
}

/*
 * Is this the first line to set what *on keeps the line of? A second one
 * was taken over the first without a word (one of two edits, a copied line
 * left behind): an error, as the file's other mistakes are (0 with c->err).
 */
static int once(struct load_ctx *c, int *on, const char *kind, const char *key)
{
	if (*on) {
		snprintf(c->err, c->errlen, "%s \"%s\" set again (first on line %d): a %s is set once", kind, key, *on,
			 kind);
		return 0;
	}
	*on = c->rd->line;
	return 1;
}

/* [theme] name/mono, [roles] role = fg, bg[, attrs]: 1, or 0 with c->err. */
static int take_entry(struct load_ctx *c, const char *section, const char *key, const char *value)
{
	int r;
	struct wb_style st;

	if (strcmp(section, "theme") == 0) {
		if (strcmp(key, "name") == 0) {
			if (!once(c, &c->name_on, "[theme] key", key))
				return 0;
			snprintf(c->t->name, sizeof(c->t->name), "%s", value);
			return 1;
		}
		if (strcmp(key, "mono") == 0) { /* anything else was false, silently */
			if (!once(c, &c->mono_on, "[theme] key", key))
				return 0;
			bool on = strcmp(value, "1") == 0 || strcasecmp(value, "true") == 0;
			if (!on && strcmp(value, "0") && strcasecmp(value, "false")) {
				snprintf(c->err, c->errlen, "mono = %.40s: expected true or false", value);
				return 0;
			}
			c->t->mono = on;
			return 1;
		}
	} else if (strcmp(section, "roles") == 0) {
		for (r = 0; r < WB_R_COUNT; r++)
			if (strcmp(key, wb_role_names[r]) == 0)
				break;
		if (r == WB_R_COUNT) {
			snprintf(c->err, c->errlen, "unknown role \"%s\"", key);
			return 0;
		}
		if (!once(c, &c->role_on[r], "role", key))
			return 0;
		st = c->t->role[r];
		if (!parse_style(value, &st)) {
			snprintf(c->err, c->errlen, "%s: expected \"fg, bg[, bold|reverse|underline|dim]\" "
				 "with colours as names, 0-255 or N|name", key);
			return 0;
		}
		c->t->role[r] = st;
		return 1;
	}
	snprintf(c->err, c->errlen, "unknown key \"%s\" in [%s]", key, section);
	return 0;
}

/*
 * inih's handler. inih goes on after an error but reports the first one's
 * line: keep the first text, and its line, for a syntax error before it
 * (which never reaches a handler) has no text of its own.
 */
static int on_entry(void *user, const char *section, const char *key, const char *value)
{
	struct load_ctx *c = user;

	if (c->err[0])
		return 0;
	if (take_entry(c, section, key, value))
		return 1;
	c->err_line = c->rd->line;
	return 0;
}

/*
 * inih as a distribution builds it (INI_ALLOW_MULTILINE) takes an indented
 * line as more of the value above: in a theme, "  header = white, blue"
 * under normal's line was "role normal set again". Themes have no value that
 * goes on over lines, so there an indented line is read as any other (flat).
 */
char *wb_ini_read_line(char *str, int num, void *stream)
{
	struct wb_ini_lines *r = stream;
	size_t len, text;

	if (r->flat && !r->too_long)
		r->p += strspn(r->p, " \t");
	len = strcspn(r->p, "\n"), text = len - (len && r->p[len - 1] == '\r');
	if (!*r->p || r->too_long)
		return NULL;
	r->line++;
	if (num < 3 || text > (size_t)num - 3) {
		r->too_long = r->line;
		r->max = num - 3;
		return NULL;
	}
	len += r->p[len] == '\n';
	memcpy(str, r->p, len);
	str[len] = '\0';
	r->p += len;
	return str;
}

int wb_theme_parse(struct wb_theme *t, const char *text, const char *label, char *err, size_t errlen)
{
	struct wb_ini_lines rd = { .p = text, .flat = true };
	struct load_ctx c = { t, err, errlen, &rd, 0, { 0 }, 0, 0 };
	const char *slash = strrchr(label, '/');
	char what[200], q[WB_QUOTE_LEN];
	int rc;

	wb_theme_default(t);
	snprintf(t->name, sizeof(t->name), "%.*s", (int)strcspn(slash ? slash + 1 : label, "."),
		 slash ? slash + 1 : label);
	err[0] = '\0';
	rc = ini_parse_stream(wb_ini_read_line, &rd, on_entry, &c);
	if (rc == 0 && rd.too_long) {
		snprintf(err, errlen, "%s:%d: line longer than %d characters", wb_quote(label, q, sizeof(q)), rd.too_long,
			 rd.max);
		return -1;
	}
	if (rc != 0) { /* inih returns the line of the first error */
		snprintf(what, sizeof(what), "%s", err[0] && c.err_line == rc ? err : "not INI syntax");
		snprintf(err, errlen, "%s:%d: %s", wb_quote(label, q, sizeof(q)), rc, what);
		return -1;
	}
	if (t->mono)
		for (int i = 0; i < WB_R_COUNT; i++)
			t->role[i].fg = t->role[i].bg = t->role[i].fg8 = t->role[i].bg8 = -1;
	return 0;
}

/* Read at most max bytes of fd into a NUL-terminated buffer (caller frees); NULL with errno. */
static char *read_bounded(int fd, size_t max, size_t *len)
{
	char *buf = malloc(max + 2);
	size_t n = 0;

	if (!buf)
		return NULL;
	while (n <= max) { /* one byte past the bound tells a file that grew */
		ssize_t r = read(fd, buf + n, max + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Check a theme file's text: bounded, text only; 0, or -1 with a message naming path (quoted). */
static int check_text(const char *path, const char *buf, size_t len, char *err, size_t errlen)
{
	size_t lines = 0;

	if (len > WB_THEME_MAX_BYTES) {
		snprintf(err, errlen, "theme %s: larger than %d KiB: not a theme", path, WB_THEME_MAX_BYTES >> 10);
		return -1;
	}
	if (memchr(buf, '\0', len)) {
		snprintf(err, errlen, "theme %s: has NUL bytes: not a text file", path);
		return -1;
	}
	for (const char *p = buf; (p = memchr(p, '\n', len - (size_t)(p - buf))); p++)
		lines++;
	if (lines > WB_THEME_MAX_LINES) {
		snprintf(err, errlen, "theme %s: more than %d lines: not a theme", path, WB_THEME_MAX_LINES);
		return -1;
	}
	return 0;
}

/*
 * Load a theme file: never block (O_NONBLOCK for FIFOs and devices), only a
 * regular file, bounded in size and lines, so that /dev/zero or a FIFO is
 * refused at once.
 */
static int load_file(struct wb_theme *t, const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), e = errno;
	struct stat st;
	size_t len = 0;
	char *buf, q[WB_QUOTE_LEN];
	int rc;

	wb_quote(path, q, sizeof(q)); /* for the messages */
	if (fd < 0) {
		snprintf(err, errlen, "theme %s: %s", q, strerror(e));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "theme %s: not a regular file", q);
		close(fd);
		return -1;
	}
	if (st.st_size > WB_THEME_MAX_BYTES) {
		snprintf(err, errlen, "theme %s: larger than %d KiB: not a theme", q, WB_THEME_MAX_BYTES >> 10);
		close(fd);
		return -1;
	}
	buf = read_bounded(fd, WB_THEME_MAX_BYTES, &len);
	if (!buf) {
		snprintf(err, errlen, "theme %s: %s", q, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	rc = check_text(q, buf, len, err, errlen) ? -1 : wb_theme_parse(t, buf, path, err, errlen);
	free(buf);
	return rc;
}

int wb_theme_load(struct wb_theme *t, const char *name, const char *const *dirs, char *err,
		  size_t errlen)
{
	size_t n = strlen(name);
	char path[512], q[WB_QUOTE_LEN];

	if (strchr(name, '/') || (n > 6 && strcmp(name + n - 6, ".theme") == 0))
		return load_file(t, name, err, errlen);
	for (int i = 0; dirs && dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s.theme", dirs[i], name);
		if (access(path, F_OK) == 0) /* not open(): a FIFO there would block */
			return load_file(t, path, err, errlen);
	}
	if (strcmp(name, "default") == 0) {
		wb_theme_default(t);
		return 0;
	}
	if (strcmp(name, "mono") == 0) {
		theme_mono(t);
		return 0;
	}
	/* the names there are, the shipped ones included (it named the two built in only) */
	char names[16][64], list[256] = "";
	int k = wb_theme_list(dirs, names, 16);
	for (int i = 0; i < k; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", names[i]);
	snprintf(err, errlen, "no theme \"%s\" (there are: %s)", wb_quote(name, q, sizeof(q)), list);
	return -1;
}

int wb_theme_list(const char *const *dirs, char names[][64], int max)
{
	int n = 0;

	for (int i = 0; dirs && dirs[i]; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;

		while (d && (e = readdir(d)) && n < max) {
			size_t l = strlen(e->d_name);
			bool dup = false;

			if (l <= 6 || strcmp(e->d_name + l - 6, ".theme") != 0 || l - 6 >= 64)
				continue;
			for (int j = 0; j < n; j++)
				dup |= strncmp(names[j], e->d_name, l - 6) == 0 && names[j][l - 6] == '\0';
			if (!dup)
				snprintf(names[n++], 64, "%.*s", (int)(l - 6), e->d_name);
		}
		if (d)
			closedir(d);
	}
	for (const char *b = "default"; b; b = strcmp(b, "default") == 0 ? "mono" : NULL) {
		bool dup = false;
		for (int j = 0; j < n; j++)
			dup |= strcmp(names[j], b) == 0;
		if (!dup && n < max)
			snprintf(names[n++], 64, "%s", b);
	}
	/* stable order for cycling */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char tmp[64];
			memcpy(tmp, names[j], 64);
			memcpy(names[j], names[j - 1], 64);
			memcpy(names[j - 1], tmp, 64);
		}
	return n;
}
