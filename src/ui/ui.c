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
#define GRAPH_POINTS 4096  /* the Graph pane's timeline: over an hour at 1 Hz, then merged */

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

/* Show the pipeline's newest view: the model's output as the panes read it. */
static void take_view(struct ui *u)
{
	const struct wb_view *v = wb_pipeline_view(u->pl);

	u->view = v;
	u->lim_ok = v && v->lim && v->lim->valid;
	u->whatif_ok = u->lim_ok && v->whatif;
	memset(&u->lim, 0, sizeof(u->lim));
	memset(&u->whatif, 0, sizeof(u->whatif));
	if (u->lim_ok)
		u->lim = *v->lim;
	if (u->whatif_ok)
		u->whatif = *v->whatif;
}

int ui_push(struct ui *u, const struct wb_sample *s)
{
	char err[256];
	int rc = wb_pipeline_push(u->pl, s, err, sizeof(err));

	if (rc == -EINVAL)
		snprintf(u->status, sizeof(u->status), "what-if: %.180s", err);
	take_view(u);
	if (rc != -ENOMEM)
		ui_log_events(u, s);
	return rc == -EINVAL ? 0 : rc;
}

void ui_resync(struct ui *u)
{
	size_t n;

	if (wb_pipeline_resync(u->pl, u->src))
		snprintf(u->status, sizeof(u->status), "seek: the recording could not be read back");
	u->view = NULL;
	u->lim_ok = u->whatif_ok = false;
	u->log_len = u->log_head = 0;
	n = wb_ring_len(u->ring);
	while (n--)
		ui_log_events(u, wb_ring_get(u->ring, n));
}

void ui_log_events(struct ui *u, const struct wb_sample *s)
{
	int cap = (int)(sizeof(u->log) / sizeof(u->log[0]));

	const struct wb_sample *oldest = wb_ring_get(u->ring, wb_ring_len(u->ring) - 1);

	/* the log holds the events of the samples in the window, as a seek rebuilds it */
	while (u->log_len && oldest && u->log_mono[u->log_head] < oldest->mono) {
		u->log_head = (u->log_head + 1) % cap;
		u->log_len--;
	}
	if (!s->ev_valid)
		return;
	memcpy(u->log_names, s->reason_names, sizeof(u->log_names));
	for (size_t i = 0; i < s->nevents; i++) {
		int at = (u->log_head + u->log_len) % cap;
		u->log[at] = s->events[i];
		u->log_mono[at] = s->mono;
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
	if (rc == 0 && ui_push(u, &s))
		snprintf(u->status, sizeof(u->status), "out of memory");
	wb_sample_finish(&s);
	u->diag = src->diag ? src->diag(src->ctx) : NULL;
	if (u->diag && u->diag->n && !u->status[0])
		snprintf(u->status, sizeof(u->status), "%.190s", u->diag->msg[0]);
	return rc;
}

/* ---- keys ---- */


static void k_quit(struct ui *u, int ch) { (void)ch; (void)u; ui_stop = 1; }
static void k_help(struct ui *u, int ch) { (void)ch; u->help = true; }
static void k_pane(struct ui *u, int ch)
{
	enum pane was = u->pane;

	if (ch == '\t')
		u->pane = (u->pane + 1) % P_COUNT;
	else if (ch == KEY_BTAB)
		u->pane = (u->pane + P_COUNT - 1) % P_COUNT;
	else if (ch == '\n' || ch == KEY_ENTER)
		u->pane = u->pane == P_DEVICES ? P_GRAPH : u->pane;
	else
		u->pane = (enum pane)(ch - '1');
	if ((was == P_GRAPH) != (u->pane == P_GRAPH))
		ui_graph_shown(u, u->pane == P_GRAPH);
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
	/* to the sample nearest 10 s away: sample times jitter around the interval */
	case KEY_RIGHT: u->src->seek(u->src->ctx, t + 10 - u->src->interval / 2); ui_resync(u); u->step = true; break;
	case KEY_LEFT: u->src->seek(u->src->ctx, t - 10 - u->src->interval / 2); ui_resync(u); u->step = true; break;
	case 'n':
		if (u->src->next_event(u->src->ctx) == 0) {
			ui_resync(u);
			u->step = true;
		} else
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

#define K_ALL (UI_K_LIVE | UI_K_REPLAY)
#define K_GRAPH (K_ALL | UI_K_GRAPH)

static void k_graph(struct ui *u, int ch) { ui_graph_key(u, ch); }

/* Every key binding once: its keys, its help, its footer word; help screen and footer are drawn from it. */
static const struct ui_binding bindings[] = {
	{ { 'q', 'Q', KEY_F(10) }, "q, F10", "quit", "q", "Quit", 10, K_ALL, k_quit },
	{ { 'h', '?', KEY_F(1) }, "h, ?, F1", "this help", "F1", "Help", 1, K_ALL, k_help },
	{ { '\t', KEY_BTAB, '1', '2', '3', '4', '5', '6' }, "Tab, 1-6", "switch pane", "Tab", "Pane", 2, K_ALL, k_pane },
	{ { '\n', KEY_ENTER }, "Enter", "Devices: its Graph", NULL, NULL, 0, K_ALL, k_pane },
	/* the Graph pane's own keys come before the replay's (< and > are its speed elsewhere) */
	{ { '<', '>' }, "< / >", "Graph: zoom out/in", "<>", "Zoom", 4, K_GRAPH, k_graph },
	{ { 'f', 'F' }, "f / F", "Graph: pin/unpin fcast", "f", "Pin", 5, K_GRAPH, k_graph },
	{ { 'b' }, "b", "Graph: glyph set", NULL, NULL, 0, K_GRAPH, k_graph },
	{ { KEY_UP, KEY_DOWN }, "Up/Down", "select a device", NULL, NULL, 0, K_ALL, k_move },
	{ { KEY_PPAGE, KEY_NPAGE }, "PgUp/PgDn", "page", NULL, NULL, 0, K_ALL, k_move },
	{ { KEY_HOME, KEY_END }, "Home/End", "first/last", NULL, NULL, 0, K_ALL, k_move },
	{ { 's', 'S' }, "s / S", "sort by next column / reverse the order", "s", "Sort", 3, K_ALL, k_sort },
	{ { '/' }, "/", "filter devices (name, device, mount, fs); Esc clears", "/", "Filter", 4, K_ALL, k_filter },
	{ { 'i' }, "i", "hide idle devices", "i", "Idle", 5, K_ALL, k_idle },
	{ { 'l' }, "l", "hide loop devices", "l", "Loop", 6, K_ALL, k_loop },
	{ { ' ' }, "space", "freeze the display", "Spc", "Freeze", 7, UI_K_LIVE, k_freeze },
	{ { '+', '=', '-' }, "+ / -", "slower / faster sampling", "+-", "Rate", 8, UI_K_LIVE, k_replay },
	{ { 't' }, "t", "next theme", "t", "Theme", 9, K_ALL, k_theme },
	{ { 'e' }, "e", "edit the device's knobs", NULL, NULL, 0, K_ALL, k_edit },
	{ { ' ' }, "space", "pause / resume", "Spc", "Pause", 3, UI_K_REPLAY, k_freeze },
	{ { '.' }, ".", "step one sample", ".", "Step", 3, UI_K_REPLAY, k_replay },
	{ { '+', '=', '>', '-', '<' }, "+/- or >/<", "faster / slower", "+-", "Speed", 3, UI_K_REPLAY, k_replay },
	{ { KEY_LEFT, KEY_RIGHT }, "Left/Right", "seek 10 s back / forward", "Lt/Rt", "Seek", 3, UI_K_REPLAY, k_replay },
	{ { 'n' }, "n", "next throttling or note", "n", "Next", 3, UI_K_REPLAY, k_replay },
	{ { 'g' }, "g", "jump to a time", "g", "Jump", 3, UI_K_REPLAY, k_replay },
};

size_t ui_bindings(const struct ui_binding **b)
{
	*b = bindings;
	return sizeof(bindings) / sizeof(bindings[0]);
}

/* The binding of key ch for this source (live or replay), or NULL. */
static const struct ui_binding *binding_of(const struct ui *u, int ch)
{
	unsigned mode = u->src && u->src->replay ? UI_K_REPLAY : UI_K_LIVE;

	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++) {
		if (!(bindings[i].when & mode) || ((bindings[i].when & UI_K_GRAPH) && u->pane != P_GRAPH))
			continue;
		for (size_t k = 0; k < UI_KEYS_MAX && bindings[i].keys[k]; k++)
			if (bindings[i].keys[k] == ch)
				return &bindings[i];
	}
	return NULL;
}

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
		ui_resync(u);
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
	const struct ui_binding *b = binding_of(u, ch);

	if (b)
		b->fn(u, ch);
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
	{
		struct wb_pipeline_opts po = { .window = RING_SAMPLES, .sets = o->sets, .nsets = o->nsets,
					       .timeline = GRAPH_POINTS };
		u.pl = wb_pipeline_create(&po);
	}
	if (!u.pl) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	u.ring = wb_pipeline_history(u.pl);
	if (src->replay) /* from --from: the window playing from the start would have */
		ui_resync(&u);
	wb_signals_install();
	wb_signals_at_crash(restore_terminal);
	start_curses(&u);
	if (o->notice)
		snprintf(u.status, sizeof(u.status), "%.190s", o->notice);
	next = now_s();
	bool redraw = true, procs_on = true;
	while (!ui_stop && !wb_stop) {
		double t = now_s();
		int ch;

		u.now = t;
		if (src->need_procs && procs_on != (u.pane == P_PROCS)) {
			/* the process table only for its pane; shown again: a sample now */
			procs_on = u.pane == P_PROCS;
			src->need_procs(src->ctx, procs_on);
			u.step = u.step || (procs_on && !u.frozen && !u.ended);
		}
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
		/*
		 * One wakeup a tick when nothing happens: getch() polls the terminal
		 * until the next sample (keys, resizes and signals end it early);
		 * only a change on trial wakes every 250 ms, for its countdown.
		 */
		timeout((int)fmax(1, fmin(u.tune_trial_end > 0 ? 250 : 3600e3,
					  ceil((next - now_s()) * 1000)))); /* up: no 1 ms second wakeup */
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
	ui_graph_finish(&u);
	free(u.rows);
	wb_pipeline_destroy(u.pl);
	return 0;
}
