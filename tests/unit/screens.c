// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The UI's screens without a terminal: the UI is built on a source (a
 * fixture tree or a recording), driven on a virtual clock, fed keys through
 * ui_handle_key(), drawn into the grid and printed as text.
 *
 *   screens COLSxLINES [--root DIR [--record FILE] | --replay FILE] [-d SEC]
 *           [--theme NAME] [--set K=V]... [--roles] [--ascii] [-- KEY...]
 *
 * Timing is the tmux test's, on a clock of its own: the keys start at 1.2 s
 * and come 0.4 s apart; samples are taken when due, so no test sleeps. A KEY
 * is a character, a curses key name as tmux spells it (Enter, Space, Down,
 * NPage, ...), or resize=COLSxLINES. --roles: after the text, each cell's
 * theme role as a letter ('a' + enum wb_role; capital when the selection's
 * bold is added; '.' a blank in the normal role). --ascii: a locale that is
 * not UTF-8 (the C locale), where the UI draws its ASCII glyphs and markers.
 * --record: the samples recorded to FILE as wbtop --record does (the title's REC).
 */
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui_internal.h"
#include "wbtop/live.h"
#include "wbtop/record.h"
#include "wbtop/source.h"

#define FIRST_KEY_S 1.2
#define KEY_GAP_S 0.4
#define MAX_SETS 16

struct args {
	int w, h;
	const char *root, *replay, *theme, *record;
	double delay, from, to; /* the replay's --from / --to (0: the whole recording) */
	const char *sets[MAX_SETS];
	int nsets;
	bool roles, ascii;
	char **keys;
	int nkeys;
};

/* The keys by the names tmux's send-keys takes. */
static const struct {
	const char *name;
	int ch;
} key_names[] = {
	{ "Enter", '\n' }, { "Space", ' ' }, { "Tab", '\t' }, { "BTab", KEY_BTAB }, { "Escape", 27 },
	{ "BSpace", KEY_BACKSPACE }, { "Up", KEY_UP }, { "Down", KEY_DOWN }, { "Left", KEY_LEFT },
	{ "Right", KEY_RIGHT }, { "Home", KEY_HOME }, { "End", KEY_END }, { "PPage", KEY_PPAGE },
	{ "NPage", KEY_NPAGE }, { "F1", KEY_F(1) }, { "F10", KEY_F(10) },
};

/* A key's code, or -1 for an unknown name. */
static int key_code(const char *k)
{
	if (k[0] && !k[1])
		return (unsigned char)k[0];
	for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
		if (strcmp(key_names[i].name, k) == 0)
			return key_names[i].ch;
	return -1;
}

static int parse(int argc, char **argv, struct args *a)
{
	*a = (struct args){ .delay = 1.0, .root = "/" };
	if (argc < 2 || sscanf(argv[1], "%dx%d", &a->w, &a->h) != 2 || a->w < 1 || a->h < 1 || a->w > 1000 ||
	    a->h > 500)
		return -1;
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(o, "--roles") == 0 || strcmp(o, "--ascii") == 0) {
			*(o[2] == 'r' ? &a->roles : &a->ascii) = true;
			continue;
		}
		if (strcmp(o, "--") == 0) {
			a->keys = argv + i + 1;
			a->nkeys = argc - i - 1;
			return 0;
		}
		if (!v)
			return -1;
		if (strcmp(o, "--root") == 0)
			a->root = v;
		else if (strcmp(o, "--replay") == 0)
			a->replay = v;
		else if (strcmp(o, "--record") == 0)
			a->record = v;
		else if (strcmp(o, "-d") == 0)
			a->delay = atof(v);
		else if (strcmp(o, "--from") == 0)
			a->from = atof(v);
		else if (strcmp(o, "--to") == 0)
			a->to = atof(v);
		else if (strcmp(o, "--theme") == 0)
			a->theme = v;
		else if (strcmp(o, "--set") == 0 && a->nsets < MAX_SETS)
			a->sets[a->nsets++] = v;
		else
			return -1;
		i++;
	}
	return a->delay > 0 ? 0 : -1;
}

/* The UI on a virtual clock: t now, the next sample due at next. */
struct drive {
	struct ui u;
	struct wb_grid g;
	double t, next;
};

static void draw(struct drive *d)
{
	ui_build_rows(&d->u);
	ui_render(&d->u);
}

/* Let the clock run to end: samples as they fall due, the screen drawn after each (as the loop does). */
static void run_to(struct drive *d, double end)
{
	while (!d->u.quit) {
		if (ui_tick(&d->u, d->t, &d->next))
			draw(d);
		if (d->next > end + 1e-9)
			break;
		d->t = d->next;
	}
	d->t = end;
}

/* One key (or a resize) at the current time, then the next 0.4 s. 0, or -1 for an unknown key. */
static int press(struct drive *d, const char *k)
{
	int w, h, ch = key_code(k);

	if (sscanf(k, "resize=%dx%d", &w, &h) == 2) {
		if (wb_grid_resize(&d->g, w, h))
			return -1;
		ch = KEY_RESIZE;
	}
	if (ch < 0)
		return -1;
	ui_handle_key(&d->u, ch);
	draw(d);
	run_to(d, d->t + KEY_GAP_S);
	return 0;
}

static void print_grid(const struct wb_grid *g, bool roles)
{
	char line[8192];

	for (int y = 0; y < g->h; y++) {
		wb_grid_line(g, y, line, sizeof(line));
		puts(line);
	}
	for (int y = 0; roles && y < g->h; y++) {
		int len = 0;
		for (int x = 0; x < g->w && x < (int)sizeof(line) - 1; x++) {
			const struct wb_cell *c = wb_grid_at(g, y, x);
			bool blank = c->role == WB_R_NORMAL && !c->attrs && strcmp(c->ch, " ") == 0;
			line[x] = blank ? '.' : (char)((c->attrs ? 'A' : 'a') + c->role);
			len = blank ? len : x + 1;
		}
		line[len] = '\0';
		puts(line);
	}
}

/* Drive the UI on src: the first screen, the keys, the screen last drawn printed. */
static int drive(const struct args *a, const struct wb_ui_opts *o, struct wb_source *src)
{
	static struct drive d;
	char err[256] = "out of memory";
	int rc = 0;

	wb_grid_init(&d.g);
	if (wb_grid_resize(&d.g, a->w, a->h) || ui_init(&d.u, o, src, &d.g, err, sizeof(err))) {
		fprintf(stderr, "screens: %s\n", err);
		ui_finish(&d.u);
		wb_grid_finish(&d.g);
		return 1;
	}
	draw(&d);
	run_to(&d, FIRST_KEY_S);
	for (int i = 0; i < a->nkeys && !d.u.quit && rc == 0; i++)
		if (press(&d, a->keys[i])) {
			fprintf(stderr, "screens: unknown key \"%s\"\n", a->keys[i]);
			rc = 2;
		}
	if (rc == 0)
		print_grid(&d.g, a->roles);
	ui_finish(&d.u);
	wb_grid_finish(&d.g);
	return rc;
}

/* The live source on a root, as wbtop's UI has it (never tracing: the tests change nothing). */
static int drive_live(const struct args *a, struct wb_ui_opts *o)
{
	struct wb_live_opts lo = { .root = a->root, .procs = true };
	char err[256];
	struct wb_source src;
	struct wb_live *l = wb_live_source_open(&lo, false, &src, err, sizeof(err)); /* wbtop's own live source */
	struct wb_rec_writer *w = NULL;
	struct wb_recorder *rec = NULL;
	struct wb_pipeline_sink sink;
	int rc;

	if (!l) {
		fprintf(stderr, "screens: %s\n", err);
		return 1;
	}
	o->notice = wb_live_notes(l)->n ? wb_live_notes(l)->msg[0] : NULL;
	if (a->record) { /* the recorder as wbtop's one sink, the title told which */
		struct wb_rec_header h;
		wb_rec_header_local(&h, a->delay);
		if (!(w = wb_rec_start(a->record, &h, 0, 0, err, sizeof(err))) || !(rec = wb_recorder_create(w))) {
			fprintf(stderr, "screens: --record: %s\n", w ? "out of memory" : err);
			wb_rec_close(w);
			wb_live_destroy(l);
			return 1;
		}
		wb_recorder_sink(rec, &sink);
		o->sinks = o->record_sink = &sink;
		o->nsinks = 1;
		o->record = a->record;
	}
	rc = drive(a, o, &src);
	if (rec && (wb_recorder_flush(rec) || wb_recorder_error(rec))) {
		fprintf(stderr, "screens: %s\n", wb_recorder_error(rec));
		rc = 1;
	}
	wb_recorder_destroy(rec);
	wb_rec_close(w);
	wb_live_destroy(l);
	return rc;
}

/* A recording replayed from its start, its host and kernel in the header. */
static int drive_replay(const struct args *a, struct wb_ui_opts *o)
{
	char err[256], warn[256], origin[160];
	struct wb_rec_reader *r = wb_rec_open(a->replay, err, sizeof(err), warn, sizeof(warn));
	struct wb_replay *p = r ? wb_replay_create(r, a->from, a->to) : NULL;
	struct wb_source src;
	int rc = 1;

	if (!p || wb_replay_check(p, err, sizeof(err))) {
		fprintf(stderr, "screens: %s: %s\n", a->replay, r && !p ? "out of memory" : err);
	} else {
		const struct wb_rec_header *h = wb_rec_header_of(r);
		snprintf(origin, sizeof(origin), "%s%s%s", h->host, h->host[0] && h->kernel[0] ? " " : "", h->kernel);
		o->origin = origin;
		o->notice = warn[0] ? warn : NULL;
		wb_replay_source(p, &src);
		rc = drive(a, o, &src);
	}
	wb_replay_destroy(p);
	wb_rec_close_reader(r);
	return rc;
}

int main(int argc, char **argv)
{
	static const char *const dirs[] = { THEMES, NULL };
	struct args a;
	struct wb_ui_opts o;

	if (parse(argc, argv, &a)) {
		fprintf(stderr, "usage: screens COLSxLINES [--root DIR [--record FILE] | --replay FILE [--from S] [--to S]] [-d SEC] "
				"[--theme NAME] [--set K=V]... [--roles] [--ascii] [-- KEY...]\n");
		return 2;
	}
	setlocale(LC_ALL, a.ascii ? "C" : "C.UTF-8"); /* as the tmux test runs wbtop */
	o = (struct wb_ui_opts){ .delay = a.delay, .theme = a.theme, .theme_dirs = dirs, .warn_pct = 75,
				 .crit_pct = 95, .sets = a.sets, .nsets = a.nsets };
	return a.replay ? drive_replay(&a, &o) : drive_live(&a, &o);
}
