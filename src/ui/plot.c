// SPDX-License-Identifier: GPL-2.0-or-later
/* The plotting canvas: dots in data coordinates, cells as glyphs and roles. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/plot.h"

enum kind { K_NONE, K_LINE, K_DASH, K_HLINE, K_HDASH, K_VLINE, K_BAND };

struct wb_plot {
	int cols, rows, dx, dy, w, h;
	enum wb_plot_glyphs g;
	double x0, x1, y0, y1;
	uint8_t *dot;    /* w x h: set or not */
	int16_t *role;   /* per cell: the role of the last drawing, -1 none */
	uint8_t *kind;   /* per cell: the last drawing's kind (enum kind) */
	char glyph[8];
};

/* Dots per cell for each glyph set. */
static const int dots_x[] = { [WB_PLOT_BRAILLE] = 2, [WB_PLOT_BLOCK] = 1, [WB_PLOT_ASCII] = 1 };
static const int dots_y[] = { [WB_PLOT_BRAILLE] = 4, [WB_PLOT_BLOCK] = 2, [WB_PLOT_ASCII] = 1 };

struct wb_plot *wb_plot_create(int cols, int rows, enum wb_plot_glyphs g)
{
	struct wb_plot *p;

	if (cols < 1 || rows < 1 || cols > 4096 || rows > 4096 || (unsigned)g > WB_PLOT_ASCII)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	*p = (struct wb_plot){ .cols = cols, .rows = rows, .dx = dots_x[g], .dy = dots_y[g], .g = g,
			       .x0 = 0, .x1 = 1, .y0 = 0, .y1 = 1 };
	p->w = cols * p->dx;
	p->h = rows * p->dy;
	p->dot = calloc((size_t)p->w * (size_t)p->h, 1);
	p->role = malloc((size_t)cols * (size_t)rows * sizeof(*p->role));
	p->kind = calloc((size_t)cols * (size_t)rows, 1);
	if (!p->dot || !p->role || !p->kind) {
		wb_plot_destroy(p);
		return NULL;
	}
	for (int i = 0; i < cols * rows; i++)
		p->role[i] = -1;
	return p;
}

void wb_plot_destroy(struct wb_plot *p)
{
	if (!p)
		return;
	free(p->dot);
	free(p->role);
	free(p->kind);
	free(p);
}

void wb_plot_window(struct wb_plot *p, double x0, double x1, double y0, double y1)
{
	if (!(x1 > x0) || !(y1 > y0) || !isfinite(x0) || !isfinite(x1) || !isfinite(y0) || !isfinite(y1))
		return;
	p->x0 = x0;
	p->x1 = x1;
	p->y0 = y0;
	p->y1 = y1;
}

/* Data to dot coordinates (may fall outside the canvas). */
static double dot_x(const struct wb_plot *p, double x)
{
	return (x - p->x0) / (p->x1 - p->x0) * (p->w - 1);
}

static double dot_y(const struct wb_plot *p, double y)
{
	return (p->y1 - y) / (p->y1 - p->y0) * (p->h - 1);
}

static void set_dot(struct wb_plot *p, long x, long y, int role, enum kind k)
{
	if (x < 0 || y < 0 || x >= p->w || y >= p->h)
		return;
	size_t c = (size_t)(y / p->dy) * (size_t)p->cols + (size_t)(x / p->dx);
	p->dot[(size_t)y * (size_t)p->w + (size_t)x] = 1;
	p->role[c] = (int16_t)role;
	p->kind[c] = (uint8_t)k;
}

/* Bresenham from (xa, ya) to (xb, yb); *n counts dots for dashing. */
static void segment(struct wb_plot *p, long xa, long ya, long xb, long yb, int role, enum kind k, long *n)
{
	long dx = labs(xb - xa), dy = -labs(yb - ya), sx = xa < xb ? 1 : -1, sy = ya < yb ? 1 : -1;
	long err = dx + dy;

	for (long guard = 0; guard <= 2 * (p->w + p->h) + dx - dy; guard++) {
		if (k != K_DASH || (*n / 2) % 2 == 0)
			set_dot(p, xa, ya, role, k);
		(*n)++;
		if (xa == xb && ya == yb)
			break;
		long e2 = 2 * err;
		if (e2 >= dy) {
			err += dy;
			xa += sx;
		}
		if (e2 <= dx) {
			err += dx;
			ya += sy;
		}
	}
}

/* Clamp a dot coordinate so lines off the top or bottom run along the edge. */
static long clampl(double v, long hi)
{
	if (!(v > 0))
		return 0;
	return v > (double)hi ? hi : lround(v);
}

void wb_plot_line(struct wb_plot *p, const double *x, const double *y, size_t n, int role, bool dashed)
{
	long count = 0, px = 0, py = 0;
	bool have = false;

	for (size_t i = 0; i < n; i++) {
		double fx = dot_x(p, x[i]);
		/* above the window: left out, not drawn along the top edge */
		if (!isfinite(y[i]) || !isfinite(fx) || fx < -1 || fx > p->w || y[i] > p->y1) {
			have = false;
			continue;
		}
		long cx = lround(fx), cy = clampl(dot_y(p, y[i]), p->h - 1);
		if (have)
			segment(p, px, py, cx, cy, role, dashed ? K_DASH : K_LINE, &count);
		else
			set_dot(p, cx, cy, role, dashed ? K_DASH : K_LINE);
		px = cx;
		py = cy;
		have = true;
	}
}

void wb_plot_hline(struct wb_plot *p, double y, int role, bool dashed)
{
	if (!isfinite(y) || y < p->y0 || y > p->y1)
		return;
	long r = clampl(dot_y(p, y), p->h - 1);
	for (long x = 0; x < p->w; x++)
		if (!dashed || (x / 2) % 2 == 0)
			set_dot(p, x, r, role, dashed ? K_HDASH : K_HLINE);
}

void wb_plot_vline(struct wb_plot *p, double x, int role)
{
	double fx = dot_x(p, x);

	if (!isfinite(fx) || fx < 0 || fx > p->w - 1)
		return;
	for (long y = 0; y < p->h; y++)
		set_dot(p, lround(fx), y, role, K_VLINE);
}

void wb_plot_band(struct wb_plot *p, const double *x, const double *lo, const double *hi, size_t n, int role)
{
	for (size_t i = 0; i + 1 < n; i++) {
		double xa = dot_x(p, x[i]), xb = dot_x(p, x[i + 1]);
		if (!isfinite(lo[i] + hi[i] + lo[i + 1] + hi[i + 1]) || !isfinite(xa) || !isfinite(xb) || xb <= xa)
			continue;
		for (long c = lround(ceil(xa)); c <= lround(floor(xb)); c++) {
			double f = (c - xa) / (xb - xa);
			long top = clampl(dot_y(p, hi[i] + f * (hi[i + 1] - hi[i])), p->h - 1);
			long bot = clampl(dot_y(p, lo[i] + f * (lo[i + 1] - lo[i])), p->h - 1);
			/* a light shade: every other dot row, so lines over it stay readable */
			for (long r = top; r <= bot; r++)
				if (p->g != WB_PLOT_BRAILLE || r % 2 == 0)
					set_dot(p, c, r, role, K_BAND);
		}
	}
}

/* The UTF-8 encoding of a code point below U+10000 into buf. */
static const char *utf8(char *buf, unsigned cp)
{
	if (cp < 0x80) {
		buf[0] = (char)cp;
		buf[1] = '\0';
	} else if (cp < 0x800) {
		buf[0] = (char)(0xC0 | (cp >> 6));
		buf[1] = (char)(0x80 | (cp & 0x3F));
		buf[2] = '\0';
	} else {
		buf[0] = (char)(0xE0 | (cp >> 12));
		buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		buf[2] = (char)(0x80 | (cp & 0x3F));
		buf[3] = '\0';
	}
	return buf;
}

/* The braille bit of the dot at (dx, dy) within a cell. */
static const unsigned braille_bit[4][2] = { { 0x01, 0x08 }, { 0x02, 0x10 }, { 0x04, 0x20 }, { 0x40, 0x80 } };
/* ASCII glyph of each kind. */
static const char ascii_of[] = { [K_NONE] = ' ', [K_LINE] = '*', [K_DASH] = '.', [K_HLINE] = '-',
				 [K_HDASH] = '-', [K_VLINE] = '|', [K_BAND] = ':' };

const char *wb_plot_cell(const struct wb_plot *p, int c, int r, int *role)
{
	struct wb_plot *q = (struct wb_plot *)p; /* the glyph buffer only */
	unsigned bits = 0;
	size_t i;

	*role = -1;
	if (c < 0 || r < 0 || c >= p->cols || r >= p->rows)
		return " ";
	i = (size_t)r * (size_t)p->cols + (size_t)c;
	for (int y = 0; y < p->dy; y++)
		for (int x = 0; x < p->dx; x++)
			if (p->dot[(size_t)(r * p->dy + y) * (size_t)p->w + (size_t)(c * p->dx + x)])
				bits |= p->g == WB_PLOT_BRAILLE ? braille_bit[y][x] : 1u << y;
	if (!bits)
		return " ";
	*role = p->role[i];
	switch (p->g) {
	case WB_PLOT_BRAILLE:
		return utf8(q->glyph, 0x2800 + bits);
	case WB_PLOT_BLOCK:
		if (p->kind[i] == K_BAND)
			return utf8(q->glyph, 0x2591);
		return utf8(q->glyph, bits == 1 ? 0x2580 : bits == 2 ? 0x2584 : 0x2588);
	default:
		q->glyph[0] = ascii_of[p->kind[i]];
		q->glyph[1] = '\0';
		return q->glyph;
	}
}

/*
 * The steps of an axis top within a power of ten, one rule for every plot: the
 * level plots had 1, 2, 2.5 and 5 beside the rate plot's finer ones, so a
 * 128M threshold sat under a 200M axis while its device's rates filled theirs.
 */
static const double steps[] = { 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 };

double wb_plot_nice_max(double v, bool binary)
{
	double unit = 1, m;

	if (!(v > 0) || !isfinite(v))
		return 1;
	if (binary)
		while (v / unit >= 1024)
			unit *= 1024;
	m = pow(10, floor(log10(v / unit)));
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * m * unit >= v * (1 - 1e-12))
			return steps[i] * m * unit;
	return 10 * m * unit;
}
