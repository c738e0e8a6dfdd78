// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The screen as a grid of cells (include/wbtop/grid.h): text in, clipped to
 * the grid, a code point a cell; no terminal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "wbtop/grid.h"
#include "wbtop/theme.h"

static const struct wb_cell blank = { .ch = " ", .role = WB_R_NORMAL };

void wb_grid_init(struct wb_grid *g)
{
	*g = (struct wb_grid){ 0 };
}

void wb_grid_finish(struct wb_grid *g)
{
	free(g->cell);
	wb_grid_init(g);
}

int wb_grid_resize(struct wb_grid *g, int w, int h)
{
	struct wb_cell *c;

	w = w > 0 ? w : 0;
	h = h > 0 ? h : 0;
	if (w != g->w || h != g->h || !g->cell) {
		c = calloc((size_t)w * (size_t)h + 1, sizeof(*c));
		if (!c)
			return -ENOMEM;
		free(g->cell);
		g->cell = c;
		g->w = w;
		g->h = h;
	}
	wb_grid_erase(g);
	return 0;
}

void wb_grid_erase(struct wb_grid *g)
{
	for (size_t i = 0, n = (size_t)g->w * (size_t)g->h; i < n; i++)
		g->cell[i] = blank;
	g->attrs = 0;
}

void wb_grid_attrs(struct wb_grid *g, unsigned attrs)
{
	g->attrs = attrs;
}

const struct wb_cell *wb_grid_at(const struct wb_grid *g, int y, int x)
{
	if (y < 0 || y >= g->h || x < 0 || x >= g->w)
		return NULL;
	return &g->cell[(size_t)y * (size_t)g->w + (size_t)x];
}

static struct wb_cell *cell_at(struct wb_grid *g, int y, int x)
{
	return (struct wb_cell *)wb_grid_at(g, y, x);
}

/*
 * The code point at s and its length in bytes (1 for a stray byte, taken as
 * is). Only well-formed UTF-8 is a character: an overlong form, a surrogate
 * or a code point past U+10FFFF is a stray byte a byte, as wb_safe_text()
 * reads it ("?" each), or a cell counted here as one became three on screen.
 */
static unsigned decode(const unsigned char *s, int *len)
{
	static const unsigned least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned c = s[0];
	int n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;

	*len = 1;
	if (n == 0)
		return c;
	c = n == 1 ? c : c & (0x7Fu >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return s[0];
		c = c << 6 | (s[i] & 0x3F);
	}
	if (c < least[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return s[0];
	*len = n;
	return c;
}

/* Columns code point c takes: 2 wide, 0 a combining mark, else 1 (unknown included). */
static int cols_of(unsigned c)
{
	/* box drawing, block elements and braille (the meters, sparklines and plots): one column */
	bool narrow = c < 0x80 || (c >= 0x2500 && c <= 0x259F) || (c >= 0x2800 && c <= 0x28FF);
	int w = narrow ? 1 : wcwidth((wchar_t)c);

	return w == 2 ? 2 : w == 0 ? 0 : 1;
}

int wb_text_char(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;
	int n, w = *p < 0x80 ? (n = 1, 1) : cols_of(decode(p, &n));

	*len = (size_t)n;
	return w;
}

/*
 * Text s as wb_grid_put() lays it out: the columns it takes, and in *fit the
 * bytes of its longest start within w columns (a combining mark stays with
 * its character, a wide character that only half fits is left out).
 */
static int layout(const char *s, int w, size_t *fit)
{
	size_t at = 0, len;
	int cols = 0;
	bool full = false;

	*fit = 0;
	while (s[at]) {
		int cw = (unsigned char)s[at] < 0x80 ? (len = 1, 1) : wb_text_char(s + at, &len);
		full = full || cols + cw > w;
		cols += cw;
		at += len;
		if (!full)
			*fit = at;
	}
	return cols;
}

int wb_text_cols(const char *s)
{
	int cols = 0;
	size_t len;

	while (*s) {
		if ((unsigned char)*s < 0x80) { /* most text: no decoding */
			cols++;
			s++;
			continue;
		}
		cols += wb_text_char(s, &len);
		s += len;
	}
	return cols;
}

size_t wb_text_fit(const char *s, int w)
{
	size_t fit;

	layout(s, w, &fit);
	return fit;
}

/* Put one cell (y, x inside g); a wide character's halves that this splits become blanks in their role. */
static void set_cell(struct wb_grid *g, int y, int x, int role, const char *ch, size_t len)
{
	struct wb_cell *row = &g->cell[(size_t)y * (size_t)g->w], *c = &row[x];

	if (!c->ch[0] && x > 0) /* the right half of a wide character: its left half goes */
		memcpy(row[x - 1].ch, " ", 2);
	else if (x + 1 < g->w && !row[x + 1].ch[0]) /* a wide character here loses its right half */
		memcpy(row[x + 1].ch, " ", 2);
	if (len == 1) /* most cells: no call to memcpy */
		c->ch[0] = ch[0];
	else
		memcpy(c->ch, ch, len);
	c->ch[len] = '\0';
	c->role = (unsigned char)role;
	c->attrs = (unsigned char)g->attrs;
}

int wb_grid_put(struct wb_grid *g, int y, int x, int role, const char *s, int maxw)
{
	const unsigned char *p = (const unsigned char *)s;
	int end = maxw < 0 || x + maxw > g->w ? g->w : x + maxw, x0 = x, len;

	if (y < 0 || y >= g->h)
		return 0;
	while (*p && x < end) {
		unsigned c = *p < 0x80 ? (len = 1, *p) : decode(p, &len);
		int w = c < 0x80 ? 1 : cols_of(c);
		if (w == 0) { /* a combining mark joins the cell before it */
			struct wb_cell *prev = cell_at(g, y, x - 1);
			if (prev && !prev->ch[0]) /* after a wide character: its left half holds it */
				prev = cell_at(g, y, x - 2);
			if (prev && x > x0 && strlen(prev->ch) + (size_t)len < sizeof(prev->ch))
				strncat(prev->ch, (const char *)p, (size_t)len);
		} else if (x + w > end) {
			break;
		} else if (x >= 0) {
			set_cell(g, y, x, role, (const char *)p, (size_t)len);
			if (w == 2)
				set_cell(g, y, x + 1, role, "", 0);
		}
		x += w;
		p += len;
	}
	return x - x0;
}

void wb_grid_hline(struct wb_grid *g, int y, int x, int role, int n)
{
	for (int i = x < 0 ? 0 : x; i < x + n && i < g->w && y >= 0 && y < g->h; i++)
		set_cell(g, y, i, role, " ", 1);
}

void wb_grid_clear_eol(struct wb_grid *g, int y, int x)
{
	int i = x < 0 ? 0 : x;

	if (y >= 0 && y < g->h && i > 0 && i < g->w && !cell_at(g, y, i)->ch[0])
		i--; /* from a wide character's right half: its left half goes too, as set_cell() does */
	for (; y >= 0 && y < g->h && i < g->w; i++)
		*cell_at(g, y, i) = blank;
}

size_t wb_grid_line(const struct wb_grid *g, int y, char *buf, size_t n)
{
	size_t len = 0, keep = 0;

	if (n == 0)
		return 0;
	for (int x = 0; y >= 0 && y < g->h && x < g->w; x++) {
		const char *ch = g->cell[(size_t)y * (size_t)g->w + (size_t)x].ch;
		size_t l = ch[0] && !ch[1] ? 1 : strlen(ch); /* mostly one byte: the UI looks for its tab row in every frame */
		if (len + l >= n)
			break;
		memcpy(buf + len, ch, l);
		len += l;
		if (l && (l > 1 || ch[0] != ' '))
			keep = len;
	}
	buf[keep] = '\0';
	return keep;
}
