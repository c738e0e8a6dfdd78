// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The UI loop: sample, model, draw; keys from one table. The terminal is
 * restored on every exit path (q, signals, fatal errors).
 */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ui_internal.h"
#include "wbtop/signals.h"
#include "wbtop/whatif.h"

#define RING_SAMPLES 600   /* 10 minutes at 1 Hz for sparklines and rates */

static bool ui_stop;          /* q: quit (signals set wb_stop) */
static volatile sig_atomic_t curses_on;

/* A crash must not leave the terminal raw (wb_signals_install's handler calls this). */
static void restore_terminal(void)
{
	if (curses_on)
		endwin();
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Re-run the model on the newest sample (and the what-if, if asked). */
static void run_model(struct ui *u)
{
	const struct wb_sample *s = wb_ring_get(u->ring, 0), *p = wb_ring_get(u->ring, 1);
	struct wb_settings k;
	char err[256];

	if (u->lim_ok)
		wb_limits_finish(&u->lim);
	if (u->whatif_ok)
		wb_limits_finish(&u->whatif);
	u->lim_ok = u->whatif_ok = false;
	if (!s)
		return;
	u->lim_ok = wb_model_eval(p, s, NULL, NULL, 0, &u->lim) == 0 && u->lim.valid;
	if (!u->lim_ok || u->o->nsets == 0 || wb_settings_from_sample(&k, s))
		return;
	for (int i = 0; i < u->o->nsets; i++) {
		struct wb_setop op;
		if (wb_setop_parse(u->o->sets[i], s, &op, err, sizeof(err)) ||
		    wb_settings_apply(&k, &u->lim, s->page_size, &op, err, sizeof(err))) {
			snprintf(u->status, sizeof(u->status), "what-if: %.180s", err);
			wb_settings_finish(&k);
			return;
		}
	}
	u->whatif_ok = wb_model_eval(p, s, &k, &u->lim, 0, &u->whatif) == 0;
	wb_settings_finish(&k);
}

void ui_log_events(struct ui *u, const struct wb_sample *s)
{
	int cap = (int)(sizeof(u->log) / sizeof(u->log[0]));

	if (!s->ev_valid)
		return;
	memcpy(u->log_names, s->reason_names, sizeof(u->log_names));
	for (size_t i = 0; i < s->nevents; i++) {
		u->log[(u->log_head + u->log_len) % cap] = s->events[i];
		if (u->log_len < cap)
			u->log_len++;
		else
			u->log_head = (u->log_head + 1) % cap;
	}
}

static int take_sample(struct ui *u, struct wb_source *src)
{
	struct wb_sample s;
	int rc;

	wb_sample_init(&s);
	rc = src->read(src->ctx, &s);
	if (rc == 0) {
		wb_ring_push(u->ring, &s);
		ui_log_events(u, &s);
	}
	wb_sample_finish(&s);
	u->diag = src->diag ? src->diag(src->ctx) : NULL;
	if (u->diag && u->diag->n && !u->status[0])
		snprintf(u->status, sizeof(u->status), "%.190s", u->diag->msg[0]);
	return rc;
}

/* ---- keys ---- */

typedef void (*key_fn)(struct ui *u, int ch);

static void k_quit(struct ui *u, int ch) { (void)ch; (void)u; ui_stop = 1; }
static void k_help(struct ui *u, int ch) { (void)ch; u->help = true; }
static void k_pane(struct ui *u, int ch)
{
	if (ch == '\t')
		u->pane = (u->pane + 1) % P_COUNT;
	else if (ch == KEY_BTAB)
		u->pane = (u->pane + P_COUNT - 1) % P_COUNT;
	else
		u->pane = (enum pane)(ch - '1');
}
/* Devices pane: edit the selected device's knobs (the tune pane at its first per-BDI knob). */
static void k_edit(struct ui *u, int ch)
{
	const char *name, *range, *help;
	bool is_bdi;
	int knob;

	(void)ch;
	if (u->pane != P_DEVICES)
		return;
	u->pane = P_TUNE;
	for (size_t i = 0; i < wb_knob_count(); i++) {
		wb_knob_info(i, &name, &is_bdi, &knob, &range, &help);
		if (is_bdi) {
			u->tune_sel = (int)i;
			break;
		}
	}
	u->tune_ok = false;
	u->tune_buf[0] = '\0';
}
static void k_move(struct ui *u, int ch)
{
	int page = LINES > 16 ? LINES - 12 : 4;
	switch (ch) {
	case KEY_UP:
		if (u->pane == P_FLUSHER)
			u->log_scroll++;
		u->sel--;
		break;
	case KEY_DOWN:
		if (u->pane == P_FLUSHER && u->log_scroll > 0)
			u->log_scroll--;
		u->sel++;
		break;
	case KEY_PPAGE: u->sel -= page; break;
	case KEY_NPAGE: u->sel += page; break;
	case KEY_HOME: u->sel = 0; break;
	case KEY_END: u->sel = u->nrows - 1; break;
	}
	if (u->sel >= u->nrows)
		u->sel = u->nrows - 1;
	if (u->sel < 0)
		u->sel = 0;
}
static void k_sort(struct ui *u, int ch)
{
	if (ch == 'S') {
		u->sort_desc = !u->sort_desc;
	} else {
		u->sort_col = (u->sort_col + 1) % ui_dev_columns();
		/* numbers read best largest first, names A-Z */
		u->sort_desc = u->sort_col > 1;
	}
	snprintf(u->status, sizeof(u->status), "sorted by %s %s", ui_dev_column_name(u->sort_col),
		 u->sort_desc ? "(descending)" : "(ascending)");
}
static void k_filter(struct ui *u, int ch) { (void)ch; u->filtering = true; }
static void k_idle(struct ui *u, int ch)
{
	(void)ch;
	u->hide_idle = !u->hide_idle;
	snprintf(u->status, sizeof(u->status), "idle devices %s", u->hide_idle ? "hidden" : "shown");
}
static void k_loop(struct ui *u, int ch)
{
	(void)ch;
	u->hide_loop = !u->hide_loop;
	snprintf(u->status, sizeof(u->status), "loop devices %s", u->hide_loop ? "hidden" : "shown");
}
static void k_freeze(struct ui *u, int ch)
{
	(void)ch;
	u->frozen = !u->frozen;
}
static void k_rate(struct ui *u, int ch)
{
	static const double steps[] = { 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60 };
	int n = (int)(sizeof(steps) / sizeof(steps[0])), i = 0;

	while (i < n - 1 && steps[i] < u->delay - 1e-9)
		i++;
	if (ch == '-' && i > 0)
		i--;
	else if (ch == '+' && i < n - 1 && steps[i] <= u->delay + 1e-9)
		i++;
	u->delay = steps[i];
	snprintf(u->status, sizeof(u->status), "sampling every %.2gs", u->delay);
}
/* Replay: speed, step, seek, next event, jump to a time. */
static void k_replay(struct ui *u, int ch)
{
	double t, len;
	size_t i, n;

	if (!u->src->replay) {
		if (ch == '+' || ch == '-' || ch == '=')
			k_rate(u, ch);
		return;
	}
	u->src->where(u->src->ctx, &t, &len, &i, &n);
	switch (ch) {
	case '+': case '=': case '>': u->speed = u->speed < 64 ? u->speed * 2 : 64; break;
	case '-': case '<': u->speed = u->speed > 0.25 ? u->speed / 2 : 0.25; break;
	case '.': u->step = true; u->frozen = true; break;
	case KEY_RIGHT: u->src->seek(u->src->ctx, t + 10); u->step = true; break;
	case KEY_LEFT: u->src->seek(u->src->ctx, t - 10); u->step = true; break;
	case 'n':
		if (u->src->next_event(u->src->ctx) == 0)
			u->step = true;
		else
			snprintf(u->status, sizeof(u->status), "no further throttling episode or knob change");
		break;
	case 'g': u->jumping = true; u->jump[0] = '\0'; return;
	}
	u->ended = false;
	u->delay = u->src->interval / u->speed;
	if (ch != 'n' || !u->status[0])
		snprintf(u->status, sizeof(u->status), "replay x%g%s", u->speed, u->frozen ? " (paused: space resumes, . steps)" : "");
}

static void k_theme(struct ui *u, int ch)
{
	char err[256];
	(void)ch;
	if (u->nthemes == 0)
		return;
	u->theme_idx = (u->theme_idx + 1) % u->nthemes;
	if (wb_theme_load(&u->theme, u->themes[u->theme_idx], u->o->theme_dirs, err, sizeof(err)) == 0) {
		ui_apply_theme(u);
		snprintf(u->status, sizeof(u->status), "theme %s", u->theme.name);
	} else {
		snprintf(u->status, sizeof(u->status), "%.190s", err);
	}
}

static const struct { int key; key_fn fn; } keymap[] = {
	{ 'q', k_quit }, { 'Q', k_quit }, { KEY_F(10), k_quit },
	{ 'h', k_help }, { '?', k_help }, { KEY_F(1), k_help },
	{ '\t', k_pane }, { KEY_BTAB, k_pane }, { '1', k_pane }, { '2', k_pane }, { '3', k_pane }, { '4', k_pane },
	{ '5', k_pane },
	{ KEY_UP, k_move }, { KEY_DOWN, k_move }, { KEY_PPAGE, k_move }, { KEY_NPAGE, k_move },
	{ KEY_HOME, k_move }, { KEY_END, k_move },
	{ 's', k_sort }, { 'S', k_sort }, { '/', k_filter }, { 'i', k_idle }, { 'l', k_loop },
	{ ' ', k_freeze }, { '+', k_replay }, { '=', k_replay }, { '-', k_replay }, { 't', k_theme },
	{ '>', k_replay }, { '<', k_replay }, { '.', k_replay }, { KEY_LEFT, k_replay }, { KEY_RIGHT, k_replay },
	{ 'n', k_replay }, { 'g', k_replay }, { 'e', k_edit },
};

/* Typing a filter: printable characters, Backspace, Enter keeps, Esc clears. */
static void filter_key(struct ui *u, int ch)
{
	size_t n = strlen(u->filter);

	if (ch == 27) {
		u->filter[0] = '\0';
		u->filtering = false;
	} else if (ch == '\n' || ch == KEY_ENTER) {
		u->filtering = false;
	} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n) {
		u->filter[n - 1] = '\0';
	} else if (ch >= 32 && ch < 127 && n + 1 < sizeof(u->filter)) {
		u->filter[n] = (char)ch;
		u->filter[n + 1] = '\0';
	}
}

/* Typing a time to jump to (seconds from the recording's start). */
static void jump_key(struct ui *u, int ch)
{
	size_t n = strlen(u->jump);

	if (ch == 27) {
		u->jumping = false;
	} else if (ch == '\n' || ch == KEY_ENTER) {
		char *end;
		double t = strtod(u->jump, &end);
		u->jumping = false;
		if (end == u->jump || *end || t < 0) {
			snprintf(u->status, sizeof(u->status), "jump: \"%s\" is not a time in seconds", u->jump);
			return;
		}
		u->src->seek(u->src->ctx, t);
		u->step = true;
		u->ended = false;
		snprintf(u->status, sizeof(u->status), "jumped to %.1f s", t);
	} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n) {
		u->jump[n - 1] = '\0';
	} else if (((ch >= '0' && ch <= '9') || ch == '.') && n + 1 < sizeof(u->jump)) {
		u->jump[n] = (char)ch;
		u->jump[n + 1] = '\0';
	}
}

/*
 * An escape sequence curses did not know (a function key the terminfo entry
 * lacks): drop the rest of it, so that "ESC O Q" or "ESC [ 2 1 q" is never
 * read as the keys Q or q.
 */
static void drop_escape_tail(void)
{
	int c;

	timeout(0);
	c = getch();
	if (c != '[' && c != 'O') { /* a lone Esc: the next key is a key */
		if (c != ERR)
			ungetch(c);
		return;
	}
	for (int i = 0; i < 16 && (c = getch()) != ERR; i++)
		if (c >= 0x40 && c <= 0x7e) /* the final byte */
			break;
}

static void handle_key(struct ui *u, int ch)
{
	if (ch == KEY_RESIZE)
		return;
	if (ch == 27)
		drop_escape_tail();
	if (u->jumping) {
		jump_key(u, ch);
		return;
	}
	if (u->help) {
		u->help = false;
		return;
	}
	u->status[0] = '\0';
	if (u->filtering) {
		filter_key(u, ch);
		return;
	}
	if (u->pane == P_TUNE && ui_tune_key(u, ch))
		return;
	for (size_t i = 0; i < sizeof(keymap) / sizeof(keymap[0]); i++)
		if (keymap[i].key == ch) {
			keymap[i].fn(u, ch);
			return;
		}
}

/* Theme at start: the option, else mono with NO_COLOR, else default. */
static int init_theme(struct ui *u, char *err, size_t errlen)
{
	const char *want = u->o->theme;
	const char *nc = getenv("NO_COLOR");

	if (!want)
		want = nc && *nc ? "mono" : "default";
	if (wb_theme_load(&u->theme, want, u->o->theme_dirs, err, errlen))
		return -1;
	u->nthemes = wb_theme_list(u->o->theme_dirs, u->themes, 16);
	for (int i = 0; i < u->nthemes; i++)
		if (strcmp(u->themes[i], u->theme.name) == 0)
			u->theme_idx = i;
	return 0;
}

static void start_curses(struct ui *u)
{
	initscr();
	curses_on = 1;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (has_colors() && !u->theme.mono) {
		start_color();
		use_default_colors();
	}
	ui_apply_theme(u);
}

int wb_ui_run(const struct wb_ui_opts *o, struct wb_source *src, char *err, size_t errlen)
{
	struct ui u = { .o = o, .delay = src->replay ? src->interval : o->delay, .sort_col = 0, .src = src,
			.speed = 1 };
	double next;
	const char *cs;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "the UI needs a terminal (use --batch for a pipe or a file)");
		return 1;
	}
	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	u.utf8 = cs && strcmp(cs, "UTF-8") == 0;
	if (init_theme(&u, err, errlen))
		return 1;
	u.ring = wb_ring_create(RING_SAMPLES);
	if (!u.ring) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	wb_signals_install();
	wb_signals_at_crash(restore_terminal);
	start_curses(&u);
	if (o->notice)
		snprintf(u.status, sizeof(u.status), "%.190s", o->notice);
	next = now_s();
	bool redraw = true;
	while (!ui_stop && !wb_stop) {
		double t = now_s();
		int ch;

		u.now = t;
		if (u.tune_trial_end > 0) { /* the countdown, and the revert when it runs out */
			ui_tune_tick(&u);
			redraw = true;
		}
		if (t >= next || u.step) {
			if ((!u.frozen && !u.ended) || u.step) {
				if (take_sample(&u, src) != 0) {
					u.ended = true;
					snprintf(u.status, sizeof(u.status), src->replay
						 ? "end of the recording: g jumps, Left seeks back, q quits"
						 : "the source ended; press q to quit");
				} else {
					run_model(&u);
				}
				u.step = false;
				redraw = true;
			}
			next = t + u.delay;
		}
		if (redraw) { /* only after a sample, a key or a resize */
			ui_build_rows(&u);
			ui_draw(&u);
			redraw = false;
		}
		/* wake for the next sample, but never later than 250 ms for keys and resizes */
		timeout((int)fmax(1, fmin(250, (next - now_s()) * 1000)));
		ch = getch();
		if (ch != ERR) {
			handle_key(&u, ch);
			timeout(0);
			while (!ui_stop && !wb_stop && (ch = getch()) != ERR) /* drain typed-ahead keys */
				handle_key(&u, ch);
			redraw = true;
		}
	}
	if (u.tune_trial_end > 0) { /* a change still on trial is not kept by quitting */
		u.now = u.tune_trial_end;
		ui_tune_tick(&u);
	}
	endwin();
	curses_on = 0;
	ui_tune_finish(&u);
	if (u.lim_ok)
		wb_limits_finish(&u.lim);
	if (u.whatif_ok)
		wb_limits_finish(&u.whatif);
	free(u.rows);
	wb_ring_destroy(u.ring);
	return 0;
}
