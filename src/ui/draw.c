// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The screen's frame and widgets, drawn into the grid: safe text, meters,
 * sparklines, the header, tabs, help and footer (each pane is in its own
 * *_pane.c). Everything drawn comes from the pipeline's view.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ui_internal.h"
#include "wbtop/layout.h"
#include "wbtop/out.h"
#include "wbtop/util.h"

/* The header's global meter leaves this much of its row to its figure: a blank, "1130%  OVER", a blank. */
#define GLOBAL_FIGURE_W 13

/* Every string drawn goes through here: made safe for the terminal first
 * (a mount point, device or process name from a recording may hold escapes). */
void ui_put(const struct ui *u, int y, int x, enum wb_role r, const char *s)
{
	char safe[2048];

	wb_safe_text(s, safe, sizeof(safe));
	wb_grid_put(u->grid, y, x, r, safe, -1);
}

/* ---- formatting ---- */

/* k bytes of src (NULL: spaces) at buf + o, as many as fit with the terminating NUL; the new end. */
static size_t put_bytes(char *buf, size_t n, size_t o, const char *src, size_t k)
{
	k = k < n - 1 - o ? k : n - 1 - o;
	if (src)
		memcpy(buf + o, src, k);
	else
		memset(buf + o, ' ', k);
	return o + k;
}

/* printf's "%s%-*.*s%*s" without its parsing: the Devices pane pads ~300 cells a frame. */
size_t ui_pad(char *buf, size_t n, const char *lead, const char *v, int w, int trail)
{
	size_t o, len = strlen(v), room = (size_t)(w < 0 ? -(long)w : w);

	if (n == 0)
		return 0;
	if (len > room) /* back to the start of the character the cut falls in */
		for (len = room; len > 0 && ((unsigned char)v[len] & 0xC0) == 0x80; len--)
			;
	o = put_bytes(buf, n, 0, lead, strlen(lead));
	if (w < 0)
		o = put_bytes(buf, n, o, NULL, room - len);
	o = put_bytes(buf, n, o, v, len);
	if (w >= 0)
		o = put_bytes(buf, n, o, NULL, room - len);
	o = put_bytes(buf, n, o, NULL, trail > 0 ? (size_t)trail : 0);
	buf[o] = '\0';
	return o;
}

const char *ui_bytes(char *buf, size_t n, bool ok, double v)
{
	if (!ok)
		return "-";
	return wb_fmt_bytes(buf, n, v);
}

/* A device's label: its block device, or a filesystem's own BDI with what it sits on. */
const char *ui_dev_label(const struct wb_bdi *b, char *buf, size_t n)
{
	if (b->dev[0] && !strchr(b->name, ':'))
		snprintf(buf, n, "%s:%s", b->name, b->dev);
	else
		snprintf(buf, n, "%s", b->dev[0] ? b->dev : b->name);
	return buf;
}

/* ---- meters ---- */

/*
 * [dirty|writeback|....b....f...T] with threshold markers. Its scale is the limit's (5 % past it),
 * or past the limit the level's, so the limit's marker stands where the limit is and the filled
 * cells past it are critical: drawn full with the marker near its end, it said nothing of how far.
 */
void ui_meter(const struct ui *u, int y, int x, int w, double dirty, double wb,
		  const struct ui_mark *m, int nm, double lim, bool over)
{
	double max = fmax(lim, dirty + wb) * 1.05;
	int d = wb_layout_meter_pos(dirty, max, w), e = wb_layout_meter_pos(dirty + wb, max, w);
	int o = over && lim > 0 ? wb_layout_meter_pos(lim, max, w) : w;
	const char *full = u->utf8 ? "\u2588" : "#", *half = u->utf8 ? "\u2592" : "=";
	const char *empty = u->utf8 ? "\u00b7" : ".";

	ui_put(u, y, x, WB_R_NORMAL, "[");
	for (int i = 0; i < w; i++) {
		enum wb_role r = i < e && i >= o ? WB_R_CRITICAL : i < d ? WB_R_DIRTY : i < e ? WB_R_WRITEBACK
				 : WB_R_BAR_EMPTY;
		const char *ch = i < d ? full : i < e ? half : empty;
		for (int k = 0; k < nm; k++)
			if (wb_layout_meter_pos(m[k].v, max, w) == i && m[k].v > 0) {
				static char s[2];
				s[0] = m[k].c;
				s[1] = '\0';
				ch = s;
				r = m[k].role;
			}
		ui_put(u, y, x + 1 + i, r, ch);
	}
	ui_put(u, y, x + 1 + w, WB_R_NORMAL, "]");
}

enum wb_role ui_limit_figure(const struct ui *u, double level, double lim, bool over, char *buf, size_t n)
{
	double pct = lim > 0 ? 100 * level / lim : -1;

	snprintf(buf, n, pct >= 0 ? "%.0f%%%s" : "-", pct, over ? "  OVER" : "");
	/* as a device row: warn from --warn percent, critical from --crit or over the limit */
	return pct >= 0 && (over || pct >= u->o->crit_pct) ? WB_R_CRITICAL
	       : pct >= 0 && pct >= u->o->warn_pct ? WB_R_WARN : WB_R_NORMAL;
}

const struct wb_sample *ui_cur(const struct ui *u)
{
	return u->view ? u->view->cur : NULL;
}

/* A global figure as the catalogue shows it ("-" unknown), by its JSON key; buf >= 16 bytes. */
static const char *gshow(const struct ui *u, const char *key, char *buf)
{
	size_t n;

	snprintf(buf, 16, "-");
	const struct wb_field *t = wb_catalog_global(&n);
	struct wb_fctx c;

	wb_catalog_ctx(&c, u->view, u->view->lim, SIZE_MAX);
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].key, key) == 0) {
			struct wb_value x = t[i].get(&c);
			return wb_catalog_show(&t[i], &x, buf, 16); /* "-" is a constant: buf stays "-" */
		}
	return buf;
}

/* Join items with sep while the line fits in cols: a whole item or none, never a piece. */
static const char *join_fit(char *line, size_t n, const char *const *item, int k, const char *sep, int cols)
{
	size_t len = 0;

	line[0] = '\0';
	for (int i = 0; i < k; i++) {
		size_t add = strlen(item[i]) + (len ? strlen(sep) : 0);
		if (len + add > (size_t)(cols > 0 ? cols : 0) || len + add >= n)
			break;
		memcpy(line + len, len ? sep : "", len ? strlen(sep) : 0);
		memcpy(line + len + (len ? strlen(sep) : 0), item[i], strlen(item[i]) + 1);
		len += add;
	}
	return line;
}

/* text cut at the last whole word that fits in cols, ending in the cut marker (ui_cut's) when cut. */
static const char *words_fit(char *line, size_t n, const char *text, int cols, bool utf8)
{
	const char *mark = ui_cut_mark(utf8);
	size_t len;
	char *sp;

	snprintf(line, n, "%s", text);
	len = strlen(line);
	if (cols <= 1 || len <= (size_t)cols)
		return line;
	line[cols - 1] = '\0'; /* the marker takes one column */
	sp = strrchr(line, ' ');
	if (sp)
		*sp = '\0';
	if (strlen(line) + strlen(mark) >= n)
		mark = ui_cut_mark(false);
	strcat(line, mark);
	return line;
}

/*
 * A hidden level's line in cols: whole where it fits, else without the list of
 * what the level hides ("level 2 hidden (need root: ...; run as root)"), so that
 * what to do stays on screen (at 80 columns it was cut before "(need root").
 */
static const char *hidden_fit(char *line, size_t n, const char *text, int cols, bool utf8)
{
	const char *colon = strchr(text, ':'), *why = strrchr(text, '(');
	char short_text[256];

	if ((int)wb_text_cols(text) <= cols || !colon || !why || why < colon)
		return words_fit(line, n, text, cols, utf8);
	snprintf(short_text, sizeof(short_text), "%.*s %s", (int)(colon - text), text, why);
	return words_fit(line, n, short_text, cols, utf8);
}

/*
 * The title's items joined with two spaces, in their order, leaving out the
 * one with the lowest keep[] until the line fits in cols (99: never left
 * out). A figure that grew (a recording whose clock jumped years) must not
 * push [PAUSED] or [what-if] off the right edge, as the grid's cut of the
 * whole line did.
 */
static const char *title_fit(char *line, size_t n, const char *const *item, const int *keep, int k, int cols)
{
	bool out[8] = { false };

	for (;;) {
		size_t len = 0;
		int low = -1;
		line[0] = '\0';
		for (int i = 0; i < k && i < 8; i++)
			if (!out[i] && item[i][0] && len < n)
				len += (size_t)snprintf(line + len, n - len, "%s%s", len ? "  " : " ", item[i]);
		if (len <= (size_t)(cols > 0 ? cols : 0) && len < n)
			return line;
		for (int i = 0; i < k && i < 8; i++)
			if (!out[i] && item[i][0] && keep[i] < 99 && (low < 0 || keep[i] < keep[low]))
				low = i;
		if (low < 0) /* only what always stays: the grid cuts it at the edge */
			return line;
		out[low] = true;
	}
}

/* A replay's position and length in the length's unit: seconds, days from a
 * million seconds on (a file's sample times may jump by up to 10^9 s). */
static const char *replay_where(char *buf, size_t n, double t, double len)
{
	if (!isfinite(t) || !isfinite(len))
		snprintf(buf, n, "-");
	else if (len < 1e6)
		snprintf(buf, n, "%.1f/%.1fs", t, len);
	else
		snprintf(buf, n, "%.1f/%.1fd", t / 86400, len / 86400);
	return buf;
}

/* The sample's clock; with its date when that is not the day of the first
 * sample shown (a session past midnight, a clock set years off). */
static const char *title_clock(const struct ui *u, double wall, char *buf, size_t n)
{
	char day[16];

	wb_fmt_clock(wall, "%Y-%m-%d", day, sizeof(day)); /* a damaged wall time may be NaN */
	return wb_fmt_clock(wall, u->day0[0] && strcmp(day, u->day0) && strcmp(day, "--:--:--")
				  ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", buf, n);
}

/* The --record file's last component into name, safe for a terminal; its columns (0: not recording). */
static int rec_name(const struct ui *u, char *name, size_t n)
{
	const char *path = ui_recording(u), *base = path ? strrchr(path, '/') : NULL;

	name[0] = '\0';
	if (path)
		wb_safe_text(base && base[1] ? base + 1 : path, name, n); /* a file's name: no escapes */
	return wb_text_cols(name);
}

/*
 * REC's item into buf: "REC" alone while the room the other items leave is
 * unknown (room < 0) or holds less than 4 columns of the name (of cols, in
 * nn bytes) and not all of it; else "REC" and the name cut (marked) to
 * room. The bytes past its columns.
 */
static int rec_item(const struct ui *u, char *name, size_t nn, int cols, char *buf, size_t n, int room)
{
	int extra;

	if (room < 0 || (room < 4 && cols > room)) {
		snprintf(buf, n, "REC");
		return 0;
	}
	extra = ui_cut(name, nn, room, u->utf8);
	snprintf(buf, n, "REC %s", name);
	return extra;
}

/* The header's first line: what runs, when, and the states that change what the screen means. */
const char *ui_title(const struct ui *u, const struct wb_sample *s, char *line, size_t n)
{
	char ver[32], tm[32], when[48], pos[48], speed[24], lvl[16], every[24], rec[280];
	const char *flag = u->frozen ? (u->src && u->src->replay ? "[PAUSED]" : "[FROZEN]") : "";
	const char *wi = u->whatif_ok ? "[what-if]" : "";

	snprintf(ver, sizeof(ver), "wbtop %s", WBTOP_VERSION);
	title_clock(u, s->wall, tm, sizeof(tm));
	snprintf(lvl, sizeof(lvl), "level %d", s->level);
	if (u->src && u->src->replay) {
		/* too long: the version goes first, then the speed, the position, the level */
		static const int keep[] = { 1, 99, 4, 2, 5, 99, 99 };
		const char *item[] = { ver, when, pos, speed, lvl, flag, wi };
		double tr, len;
		size_t i, k;
		u->src->where(u->src->ctx, &tr, &len, &i, &k);
		snprintf(when, sizeof(when), "REPLAY %s", tm);
		replay_where(pos, sizeof(pos), tr, len);
		snprintf(speed, sizeof(speed), "x%g", u->speed);
		title_fit(line, n, item, keep, 7, ui_cols(u));
		/* the version gives the recorded host and kernel its room before they are cut (at 80
		 * columns "wbtop 0.1.0" stayed and the kernel read "6.18.44-fc...") */
		if (ui_origin(u) && strstr(line, ver) &&
		    (int)strlen(line) + 2 + wb_text_cols(ui_origin(u)) > ui_cols(u)) {
			ver[0] = '\0';
			title_fit(line, n, item, keep, 7, ui_cols(u));
		}
		if (ui_origin(u)) /* the recorded host and kernel: last, marked where the screen cuts it */
			snprintf(line + strlen(line), n - strlen(line), "  %s", ui_origin(u));
		ui_cut(line, n, ui_cols(u), u->utf8);
	} else {
		/* REC goes after the version, the interval and the level: a state, yet left out before
		 * the time or one in brackets is cut at the edge */
		static const int keep[] = { 1, 99, 3, 2, 4, 99, 99 };
		const char *item[] = { ver, tm, lvl, every, rec, flag, wi };
		char name[256];
		int name_cols = rec_name(u, name, sizeof(name)), room, extra;
		/* %.2g alone reads 86400 (-d's longest) as 8.6e+04 */
		snprintf(every, sizeof(every), u->delay < 100 ? "every %.2gs" : "every %.0fs", u->delay);
		if (name[0])
			rec_item(u, name, sizeof(name), name_cols, rec, sizeof(rec), -1);
		else
			rec[0] = '\0';
		title_fit(line, n, item, keep, 7, ui_cols(u));
		/*
		 * The file's name takes the room the rest leaves, the version's too
		 * (the first to go in any case): the items that stay are those that
		 * stayed, REC grows into exactly that room.
		 */
		if (rec[0] && strstr(line, " REC")) {
			room = ui_cols(u) - (int)strlen(line) - 1;
			if (room < name_cols && strstr(line, ver)) {
				room += (int)strlen(ver) + 2;
				ver[0] = '\0';
			}
			extra = rec_item(u, name, sizeof(name), name_cols, rec, sizeof(rec), room);
			title_fit(line, n, item, keep, 7, ui_cols(u) + extra);
		}
	}
	return line;
}

/* Header: title line, global meter, numbers, settings, hidden levels. */
static int draw_header(struct ui *u)
{
	const struct wb_sample *s = ui_cur(u);
	const struct wb_limits *l = u->lim_ok ? &u->lim : NULL;
	char line[512], a[16], b[16], c[16], d[16], e[16], f[16];
	uint64_t P = s->page_size;
	int y = 0;

	ui_title(u, s, line, sizeof(line));
	wb_grid_hline(u->grid, y, 0, WB_R_HEADER, ui_cols(u));
	ui_put(u, y++, 0, WB_R_HEADER, line);
	if (u->src && u->src->replay) { /* the time bar, with the newest note */
		double tr, len, nt;
		size_t i, n;
		const char *note = u->src->note ? u->src->note(u->src->ctx, &nt) : NULL;
		u->src->where(u->src->ctx, &tr, &len, &i, &n);
		int w = ui_cols(u) / 3, pos = wb_layout_meter_pos(tr, len > 0 ? len : 1, w);
		ui_put(u, y, 0, WB_R_TITLE, "Time");
		for (int k = 0; k < w; k++)
			ui_put(u, y, 5 + k, k == pos ? WB_R_THRESHOLD : k < pos ? WB_R_DIRTY : WB_R_BAR_EMPTY,
			    k == pos ? "|" : k < pos ? "=" : "-");
		if (note) {
			char full[512];
			snprintf(full, sizeof(full), "  at %.1f%s: %s", len < 1e6 ? nt : nt / 86400, len < 1e6 ? "s" : "d",
				 note); /* in the title's unit */
			/* cut at a word, marked: cut at the edge, "max_bytes 316669952 -> 15" read as a value */
			ui_put(u, y, 6 + w, WB_R_WARN, words_fit(line, sizeof(line), full, ui_cols(u) - 6 - w, u->utf8));
		}
		y++;
	}

	bool dok = WB_HAS(s->g.valid, WB_G_DIRTY), wok = WB_HAS(s->g.valid, WB_G_WRITEBACK);
	double dirty = dok ? (double)s->g.v[WB_G_DIRTY] * P : 0, wb = wok ? (double)s->g.v[WB_G_WRITEBACK] * P : 0;
	ui_put(u, y, 0, WB_R_TITLE, "Global");
	if (l) {
		struct ui_mark m[] = {
			{ (double)l->bg * P, 'b', WB_R_BACKGROUND },
			{ (double)l->freerun * P, 'f', WB_R_BACKGROUND },
			{ (double)l->thresh * P, 'T', WB_R_THRESHOLD },
		};
		double lim = (double)l->thresh * P;
		bool over = dirty + wb > lim;
		/* how far from T, or past it, as a node's figure (the meter was full past T, "how far" unsaid) */
		enum wb_role r = ui_limit_figure(u, dirty + wb, dok && wok ? lim : 0, over, line, sizeof(line));
		ui_meter(u, y, 7, ui_cols(u) - 9 - GLOBAL_FIGURE_W, dirty, wb, m, 3, lim, over);
		ui_put(u, y, ui_cols(u) + 1 - GLOBAL_FIGURE_W, r, line);
	} else {
		ui_put(u, y, 7, WB_R_NA, "n/a: the model needs vmstat, meminfo, zoneinfo and vm.dirty_*");
	}
	y++;
	snprintf(line, sizeof(line), "dirty %s  writeback %s  bg %s  freerun %s  thresh %s (kernel %s)",
		 gshow(u, "dirty", a), gshow(u, "writeback", b), gshow(u, "bg_thresh", c), gshow(u, "freerun", d),
		 gshow(u, "thresh", e), gshow(u, "kernel_thresh", f));
	ui_put(u, y++, 1, WB_R_NORMAL, line);
	gshow(u, "dirtied_rate", b); /* rates: "/s" when known */
	gshow(u, "written_rate", c);
	{ /* the note cut at a word, marked, as the hidden level's below ("from the kernel" read whole) */
		char full[512];
		snprintf(full, sizeof(full), "dirtyable %s  dirtied %s%s  written %s%s%s", gshow(u, "dirtyable", a), b,
			 strcmp(b, "-") ? "/s" : "", c, strcmp(c, "-") ? "/s" : "",
			 l && l->calibrated ? "  (dirtyable recovered from the kernel's thresholds)" : "");
		ui_put(u, y++, 1, WB_R_NORMAL, words_fit(line, sizeof(line), full, ui_cols(u) - 2, u->utf8));
	}
	if (u->whatif_ok) {
		const struct wb_limits *w = &u->whatif;
		snprintf(line, sizeof(line), "what-if: bg %s  freerun %s  thresh %s  (IF-THRESH per device)",
			 ui_bytes(a, 16, true, w->bg * P), ui_bytes(b, 16, true, w->freerun * P),
			 ui_bytes(c, 16, true, w->thresh * P));
		ui_put(u, y++, 1, WB_R_THRESHOLD, line);
	}
	{
		char it[6][48];
		const char *item[6] = { it[0], it[1], it[2], it[3], it[4], it[5] };
		snprintf(it[0], 48, "vm: dirty_ratio %llu", (unsigned long long)s->sys[WB_SYS_DIRTY_RATIO]);
		snprintf(it[1], 48, "dirty_bytes %s", wb_fmt_bytes(a, 16, (double)s->sys[WB_SYS_DIRTY_BYTES]));
		snprintf(it[2], 48, "background_ratio %llu", (unsigned long long)s->sys[WB_SYS_BG_RATIO]);
		snprintf(it[3], 48, "background_bytes %s", wb_fmt_bytes(b, 16, (double)s->sys[WB_SYS_BG_BYTES]));
		snprintf(it[4], 48, "expire %.0fs", s->sys[WB_SYS_EXPIRE_CS] / 100.0);
		snprintf(it[5], 48, "writeback %.0fs", s->sys[WB_SYS_WRITEBACK_CS] / 100.0);
		ui_put(u, y++, 1, WB_R_NORMAL, join_fit(line, sizeof(line), item, 6, "  ", ui_cols(u) - 2));
	}
	{
		const char *h[4];
		int nh = wb_level_hidden(s->level, s->level_why, s->ev_valid, h, 4);
		if (nh)
			ui_put(u, y++, 1, WB_R_NA, hidden_fit(line, sizeof(line), h[0], ui_cols(u) - 2, u->utf8));
	}
	return y;
}

/* The panes whose device rows the filter, i and l thin out (Zones has none; Processes its own filter). */
static bool device_rows_pane(enum pane p)
{
	return p == P_DEVICES || p == P_FLUSHER || p == P_TUNE || p == P_GRAPH;
}

/*
 * The devices the rows leave out, and the keys that show them, the longest
 * form that fits in room columns ("" none hidden, or no form fits): a
 * settings file's hide_idle hid devices with nothing on screen to say so.
 */
static const char *hidden_note(const struct ui *u, char *buf, size_t n, int room)
{
	const struct wb_sample *s = ui_cur(u);
	int hidden = s ? (int)s->nbdis - u->nrows : 0;
	const char *keys_long = u->hide_idle && u->hide_loop ? "i idle, l loop" : u->hide_idle ? "i idle"
				: u->hide_loop ? "l loop" : NULL;
	const char *keys = u->hide_idle && u->hide_loop ? "i, l" : u->hide_idle ? "i" : u->hide_loop ? "l" : NULL;

	buf[0] = '\0';
	if (hidden <= 0)
		return buf;
	/* longest first; the filter itself is named beside it, so its devices are only counted */
	if (keys && snprintf(buf, n, "%d of %zu devices hidden: %s", hidden, s->nbdis, keys_long) <= room)
		return buf;
	if (!keys && snprintf(buf, n, "%d of %zu devices hidden", hidden, s->nbdis) <= room)
		return buf;
	if (keys && snprintf(buf, n, "%d hidden: %s", hidden, keys) <= room)
		return buf;
	if (snprintf(buf, n, "%d hidden", hidden) <= room)
		return buf;
	buf[0] = '\0';
	return buf;
}

/*
 * The tabs, then the filter applied (cut to the room left) and how many
 * devices the rows leave out (htop names its filter in the same way): the
 * filter first where both do not fit.
 */
static void draw_tabs(struct ui *u, int y)
{
	static const char *const names[P_COUNT] = { "1 Devices", "2 Zones", "3 Flusher", "4 Processes",
						     "5 Tune", "6 Graph" };
	int x = 0, room;
	char f[96] = "", h[64] = "";

	for (int i = 0; i < P_COUNT; i++) {
		char b[32];
		snprintf(b, sizeof(b), " %s ", names[i]);
		ui_put(u, y, x, i == (int)u->pane ? WB_R_TAB_ACTIVE : WB_R_TAB, b);
		x += (int)strlen(b) + 1;
	}
	room = ui_cols(u) - x - 1;
	if (ui_filter(u)[0] && u->pane != P_ZONES && !u->filtering) /* Zones: no rows it filters */
		snprintf(f, sizeof(f), " filter: %s", ui_filter(u));
	if (device_rows_pane(u->pane)) /* two blanks after the filter, as its own leading one and the tabs' gap */
		hidden_note(u, h, sizeof(h), f[0] ? room - wb_text_cols(f) - 2 : room - 1);
	if (h[0]) {
		ui_put(u, y, x + 1, WB_R_TITLE, f);
		ui_put(u, y, x + 1 + wb_text_cols(f) + (f[0] ? 2 : 1), WB_R_TITLE, h);
	} else if (f[0]) {
		ui_cut(f, sizeof(f), room, u->utf8); /* "stick" read "sti" at 80 columns */
		ui_put(u, y, x + 1, WB_R_TITLE, f);
	}
}

/*
 * What is being typed (g's time, /'s filter) with its keys, or NULL. It takes a row of its
 * own, as a message does: after the tabs, 12 cells at 80 columns, "jump to (s" hid the time
 * typed and a filter showed its first 3 characters.
 */
static const char *typing_line(struct ui *u, char *buf, size_t n)
{
	if (u->jumping)
		snprintf(buf, n, "jump to (s or HH:MM:SS; Enter goes, Esc cancels): %s_", u->jump);
	else if (u->filtering && (int)strlen(ui_filter(u)) + 36 < ui_cols(u))
		snprintf(buf, n, "filter (Enter keeps, Esc clears): %s_", ui_filter(u));
	else if (u->filtering)
		snprintf(buf, n, "filter: %s_", ui_filter(u));
	else
		return NULL;
	return buf;
}

/* A sparkline over the ring (newest right), one sample a column: one BDI's
 * dirty+writeback, or (wakes) its background wakeups in each interval; full
 * height is its peak or top, whichever is higher (a device's threshold: 20K
 * held steady beside a 1.6M threshold drew full bars, as a device at its limit). */
void ui_sparkline(const struct ui *u, const char *bdi, bool wakes, double top, char *out, size_t n, int w)
{
	static const char *const blocks[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585",
					      "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = " .:-=+*#@";
	double v[256], max = 1;
	int k = 0;
	size_t len = 0;

	if (w > 256)
		w = 256;
	if (w < 0)
		w = 0;
	wb_pipeline_strip(u->pl, bdi, wakes, v, w);
	if (top > max)
		max = top;
	for (k = 0; k < w; k++)
		if (v[k] > max)
			max = v[k];
	out[0] = '\0';
	for (int i = 0; i < k && len + 4 < n; i++) {
		int lv = v[i] < 0 ? 0 : (int)ceil(v[i] / max * 8);
		if (u->utf8) {
			size_t bl = strlen(blocks[lv]);
			memcpy(out + len, blocks[lv], bl);
			len += bl;
		} else {
			out[len++] = ascii[lv];
		}
	}
	out[len] = '\0';
}

/* ---- help ---- */

/*
 * The key table's bindings, two to a line when both fit: the replay's own (replay), or
 * the others that work in this source (a replay listed space and + / - as freezing the
 * display and sampling faster, which they do not there). Of the general keys only those
 * that act on the pane under the help (the Zones pane's listed i and l, which only say it
 * has no device rows); the Graph's and Tune's own are listed everywhere, their help says
 * which pane.
 */
static int help_keys(struct ui *u, int y, bool replay)
{
	const struct ui_binding *b;
	size_t n = ui_bindings(&b);
	unsigned mode = ui_key_mode(u);
	char line[200], one[2][96], lb[32];
	int k = 0;

	for (size_t i = 0; i <= n && y < ui_lines(u); i++) {
		bool last = i == n;
		/* the keys the pane's own leave (over the Graph < and > zoom, not the replay's speed) */
		const char *label = last ? "" : ui_binding_label(u, &b[i], lb, sizeof(lb));
		if (!last && (!(b[i].when & (UI_K_LIVE | UI_K_TREE)) != replay || !(b[i].when & mode) ||
			      !ui_binding_acts(&b[i], u->pane) || !label[0]))
			continue;
		if (!last)
			/* the key column as wide as the longest label ("+/- or >/<"): at 13 an item of 37
			 * cells left one blank before the next ("write the settings file e") */
			snprintf(one[k++], sizeof(one[0]), "%-10s %s", label, b[i].help);
		if (k == 2 && (strlen(one[0]) > 38 || strlen(one[1]) > 38)) { /* the first alone */
			snprintf(line, sizeof(line), "  %s", one[0]);
			ui_put(u, y++, 2, WB_R_NORMAL, line);
			memmove(one[0], one[1], sizeof(one[0]));
			k = 1;
		}
		if (k == 2 || (last && k == 1)) {
			snprintf(line, sizeof(line), "  %-38s%s", one[0], k == 2 ? one[1] : "");
			ui_put(u, y++, 2, WB_R_NORMAL, line);
			k = 0;
		}
	}
	return y;
}

/* Paragraphs of notes (a first line and the indented ones after it) from row y, each whole or none; the next row. */
static int help_notes(struct ui *u, int y, const char *const *notes, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = 1;
		while (i + k < n && notes[i + k][0] == ' ')
			k++;
		if (y + (int)k > ui_lines(u))
			break;
		for (size_t j = 0; j < k; j++)
			ui_put(u, y++, 2, WB_R_NORMAL, notes[i + j]);
		i += k;
	}
	return y;
}

/*
 * The keys and the notes, every line of them at 80x24 on every pane, live and in a
 * replay: there the n/N note pushed the Devices legend out. So the hint shares the
 * title's row, the notes take a line fewer each (the n/N note one), and the rows
 * go to the screen's last.
 */
static void draw_help(struct ui *u)
{
	static const char *const notes[] = {
		/* CLEAN-IN is not at BW/s, the kernel's estimate: at what the device completed lately */
		"Devices: DIRTY reclaimable, WRITEBK under writeback, THRESH / BG its share of",
		"  the dirty / background threshold, %LIM = (DIRTY+WRITEBK)/THRESH, CLEAN-IN =",
		"  time to write it all at its recent rate (1.3s+: once expired); '-' unknown.",
		"Rows: warn at the warn % or past BG, critical at the critical % or throttled.",
		"Meter: b background, f freerun, T dirty threshold, % of T. K = KiB, M = MiB.",
	};
	/* over the Flusher its own columns and rows, in as many lines: its FLUSHER's words (a user
	 * read "idle" beside 40M under writeback as wrong: the flusher had submitted it and returned) */
	static const char *const flusher_notes[] = {
		"Flusher: FLUSHER running: it is writing back; io 44M: it is not, but 44M it",
		"  submitted is still under writeback in the device; waiting: dirty, none under",
		"  writeback (expiry or the background threshold wakes it); idle: neither.",
		"Rows: in the writeback colour while the flusher runs, warn past BG.",
		"Meter: b background, f freerun, T dirty threshold, % of T. K = KiB, M = MiB.",
	};
	static const struct {
		const char *const *l;
		size_t n;
	} pane_notes[P_COUNT] = {
		[P_FLUSHER] = { flusher_notes, sizeof(flusher_notes) / sizeof(flusher_notes[0]) },
	};
	/* what n/N call an episode: continuous throttling had none after its first sample */
	static const char *const replay_notes[] = {
		"n/N stop where throttling starts or a device joins it, and every 30 s of it.",
	};
	static const char hint[] = "Press any key to return.";
	int y = 1;

	wb_grid_erase(u->grid);
	ui_put(u, 0, 2, WB_R_TITLE, "wbtop - top for Linux writeback");
	/* at the right of the keys' 80 columns, not of a wide screen's */
	ui_put(u, 0, (ui_cols(u) < WB_MIN_COLS ? ui_cols(u) : WB_MIN_COLS) - 1 - (int)strlen(hint), WB_R_HINT, hint);
	y = help_keys(u, y, false);
	if (u->src && u->src->replay) { /* the replay's own keys only where they work */
		ui_put(u, y++, 2, WB_R_NORMAL, "Replay:");
		y = help_keys(u, y, true);
		y = help_notes(u, y, replay_notes, sizeof(replay_notes) / sizeof(replay_notes[0]));
	}
	if (pane_notes[u->pane].l)
		help_notes(u, y, pane_notes[u->pane].l, pane_notes[u->pane].n);
	else
		help_notes(u, y, notes, sizeof(notes) / sizeof(notes[0]));
}

/*
 * Is binding b in the footer here? A pane's own keys (Graph, Tune) take the places of
 * the general ones at their foot_pos, and of those they take the first key of (Tune's
 * + and - step the value, not the rate).
 */
static bool in_footer(const struct ui *u, const struct ui_binding *b, unsigned mode)
{
	const struct ui_binding *t;
	size_t n = ui_bindings(&t);

	if (!b->foot || !(b->when & mode) || !ui_binding_here(b, u->pane) || !ui_binding_acts(b, u->pane))
		return false;
	if (b->when & UI_K_PANE)
		return true;
	for (size_t i = 0; i < n; i++)
		if (t[i].foot && (t[i].when & mode) && (t[i].when & UI_K_PANE) && ui_binding_here(&t[i], u->pane) &&
		    (t[i].foot_pos == b->foot_pos || t[i].keys[0] == b->keys[0]))
			return false;
	return true;
}

/* The cells binding b takes in the footer ("F1Help"). */
static int foot_w(const struct ui_binding *b)
{
	return (int)(strlen(b->foot_key) + strlen(b->foot));
}

/* The cells the footer's entries on take, a space between them. */
static int foot_width(const struct ui_binding *const *e, const bool *on, int n)
{
	int w = -1;

	for (int i = 0; i < n; i++)
		w += on[i] ? foot_w(e[i]) + 1 : 0;
	return w < 0 ? 0 : w;
}

/*
 * The footer: the key table's footer words for this source and pane, in their
 * order. When they do not all fit, the lowest foot_prio go first (the latest
 * of equals): a pane's own keys and a replay's seek keys stay, where at 80
 * columns the Graph's keys took the room of Seek and Jump. An entry for two
 * actions names both keys ("f/F"): an entry that fits is never cut.
 */
static void draw_footer(struct ui *u)
{
	unsigned mode = ui_key_mode(u);
	const struct ui_binding *b, *e[32];
	bool on[32];
	size_t nb = ui_bindings(&b);
	int n = 0, x = 0, room = ui_cols(u) - 1; /* the last column stays blank */

	wb_grid_clear_eol(u->grid, ui_lines(u) - 1, 0);
	for (int pos = 1; pos <= 10; pos++)
		for (size_t i = 0; i < nb && n < 32; i++)
			if (b[i].foot_pos == pos && in_footer(u, &b[i], mode)) {
				on[n] = true;
				e[n++] = &b[i];
			}
	while (foot_width(e, on, n) > room) {
		int lo = -1;
		for (int i = 0; i < n; i++)
			if (on[i] && (lo < 0 || e[i]->foot_prio <= e[lo]->foot_prio))
				lo = i;
		if (lo < 0)
			break;
		on[lo] = false;
	}
	for (int i = 0; i < n; i++) {
		if (!on[i])
			continue;
		ui_put(u, ui_lines(u) - 1, x, WB_R_NORMAL, e[i]->foot_key);
		x += (int)strlen(e[i]->foot_key);
		ui_put(u, ui_lines(u) - 1, x, WB_R_HINT, e[i]->foot);
		x += (int)strlen(e[i]->foot) + 1;
	}
}

int ui_put_wrapped(const struct ui *u, const char *text, int y, int x, int end, enum wb_role r,
		   void (*put)(const struct ui *, int, int, enum wb_role, const char *))
{
	int cols = ui_cols(u) - x, rows = 0;
	char row[256];

	while (*text && cols > 0) {
		int len = (int)strlen(text), k = len <= cols ? len : cols;
		if (k < len) { /* back to the last gap between items (two blanks) past a third of the row, else a blank */
			int sp = k, gap = k;
			while (gap > cols / 3 && !(text[gap] == ' ' && text[gap - 1] == ' '))
				gap--;
			while (sp > 0 && text[sp] != ' ')
				sp--;
			k = gap > cols / 3 ? gap - 1 : sp > 0 ? sp : k;
		}
		if (put && y + rows < end) {
			snprintf(row, sizeof(row), "%.*s", k < (int)sizeof(row) - 1 ? k : (int)sizeof(row) - 1, text);
			put(u, y + rows, x, r, row);
		}
		rows++;
		text += k;
		while (*text == ' ')
			text++;
	}
	return rows;
}

/*
 * The status message on row y, a row of its own above the footer: in the
 * footer's place it hid the keys until the next key, for good when a sink
 * had stopped (its message is set again each sample). A longer message is
 * cut at a word, marked: not "(access level 2147483647, n".
 */
static void draw_status(struct ui *u, int y)
{
	char line[sizeof(u->status) + 4];

	wb_grid_clear_eol(u->grid, y, 0);
	words_fit(line, sizeof(line), u->status, ui_cols(u) - 1, u->utf8);
	ui_put(u, y, 0, WB_R_WARN, line);
}

/* The whole screen into the grid: frame, the pane shown, status, footer; or help, or why there is nothing. */
void ui_render(struct ui *u)
{
	int y, end, lines = ui_lines(u);
	char prompt[160];
	const char *typing;

	wb_grid_erase(u->grid);
	if (!wb_layout_fits(ui_cols(u), lines)) {
		char m[96], need[32];
		int r;

		snprintf(m, sizeof(m), "terminal too small (%dx%d):", ui_cols(u), lines);
		snprintf(need, sizeof(need), "wbtop needs %dx%d", WB_MIN_COLS, WB_MIN_LINES);
		/* one line where it fits, else broken between the two halves (40 columns cut "80x24" off alone) */
		if ((int)(strlen(m) + 1 + strlen(need)) <= ui_cols(u)) {
			strncat(m, " ", sizeof(m) - strlen(m) - 1);
			strncat(m, need, sizeof(m) - strlen(m) - 1);
			need[0] = '\0';
		}
		r = ui_put_wrapped(u, m, 0, 0, lines, WB_R_NORMAL, ui_put);
		if (need[0] && r < lines)
			r += ui_put_wrapped(u, need, r, 0, lines, WB_R_NORMAL, ui_put);
		if (r < lines) /* what to do: the screen said what was wrong, not how out of it */
			ui_put_wrapped(u, "enlarge it, or q quits", r, 0, lines, WB_R_HINT, ui_put);
		return;
	}
	if (!ui_cur(u)) {
		wb_grid_put(u->grid, 0, 0, WB_R_NORMAL, "waiting for the first sample...", -1);
		return;
	}
	if (u->help) {
		draw_help(u);
		return;
	}
	y = draw_header(u);
	draw_tabs(u, y++);
	typing = typing_line(u, prompt, sizeof(prompt));
	end = lines - 1 - (typing || u->status[0] != '\0'); /* a prompt or message takes the pane's last row */
	switch (u->pane) {
	case P_DEVICES: ui_draw_devices(u, y, end - y); break;
	case P_ZONES: ui_draw_zones(u, y, end - y); break;
	case P_FLUSHER: ui_draw_flusher(u, y, end - y); break;
	case P_PROCS: ui_draw_procs(u, y, end - y); break;
	case P_TUNE: ui_draw_tune(u, y, end - y, ui_put); break;
	case P_GRAPH: ui_draw_graph(u, y, end - y); break;
	default: break;
	}
	if (typing) {
		wb_grid_clear_eol(u->grid, end, 0);
		ui_put(u, end, 0, WB_R_TITLE, typing);
	} else if (u->status[0]) {
		draw_status(u, end);
	}
	draw_footer(u);
}
