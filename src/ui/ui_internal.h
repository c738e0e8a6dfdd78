/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UI state shared by the loop (ui.c) and the panes (draw.c). Not installed. */
#ifndef WBTOP_UI_INTERNAL_H
#define WBTOP_UI_INTERNAL_H

#include <curses.h>

#include "wbtop/config.h"
#include "wbtop/model.h"
#include "wbtop/pipeline.h"
#include "wbtop/sample.h"
#include "wbtop/theme.h"
#include "wbtop/forecast.h"
#include "wbtop/grid.h"
#include "wbtop/tune.h"
#include "wbtop/ui.h"
#include "wbtop/whatif.h"

enum pane { P_DEVICES, P_ZONES, P_FLUSHER, P_PROCS, P_TUNE, P_GRAPH, P_COUNT };

/* One devices-pane row: a BDI with its model figures and derived values. */
struct devrow {
	const struct wb_bdi *b;
	const struct wb_bdi_limits *bl;   /* NULL when the model did not run */
	const struct wb_bdi_derived *d;   /* the pipeline's figures for b */
	size_t i;                         /* b's index in the sample */
	int hl;                           /* 0 normal, 1 warn, 2 critical */
	char name[WB_NAME_LEN];           /* b's BDI name, kept here: the selection follows it to the next sample */
};

struct ui {
	const struct wb_ui_opts *o;
	struct wb_grid *grid;             /* what is drawn: the terminal's size, flushed by ui_flush() */
	struct wb_pipeline *pl;           /* owns the window and the view */
	const struct wb_ring *ring;       /* the pipeline's window, newest first */
	const struct wb_view *view;       /* the newest sample's view; NULL before one */
	/* shallow copies of the view's model output (owned by the pipeline) */
	struct wb_limits lim;
	bool lim_ok;
	struct wb_limits whatif;
	bool whatif_ok;
	const struct wb_diag *diag;
	enum pane pane;
	int sel, scroll;
	int sort_col;
	bool sort_desc;
	char filter[64];                  /* the Devices pane's (also Tune's and Graph's rows) */
	bool filtering;                   /* typing a filter (into the current pane's) */
	int proc_sort_col;                /* the Processes pane's own sort and filter */
	bool proc_sort_desc;
	char proc_filter[64];
	size_t *proc_idx, proc_cap;       /* ui_proc_rows()'s order */
	int zone_sel, zone_scroll;        /* the Zones and Processes tables' cursors and first rows shown */
	int zone_y;                       /* the screen row of the Zones table's first row (for the mouse) */
	int proc_sel, proc_scroll;
	uint32_t hidden[WB_TABLE_COUNT];  /* columns not shown: bit c is wb_config_columns()' column c */
	bool choosing;                    /* c / F2: the column chooser of the current pane */
	int choose_sel;
	bool quit;                        /* q pressed */
	bool procs_on;                    /* the source reads the process table (its pane shown) */
	int procs_samples;                /* samples taken since it was turned on (live: rates from the 2nd) */
	bool mouse;                       /* the terminal reports mouse events */
	int tab_y;                        /* the tab line as last drawn (mouse); -1 unknown */
	const struct wb_config *cfg;      /* the settings file as read (W keeps what the UI cannot change) */
	bool hide_idle, hide_loop;
	bool frozen, help;
	double delay;
	double sampled_at;                /* ui_tick's clock at the newest sample taken */
	bool sampled;                     /* one was */
	char day0[16];                    /* the first sample's date: the title shows a sample's when it differs */
	bool utf8;
	struct wb_theme theme;
	char theme_arg[4096]; /* what it was loaded by: a name, or a .theme file's path (W saves it) */
	char themes[16][64];
	int nthemes, theme_idx;
	char status[200];
	char cfg_warn[240];              /* the settings file named what does not exist (theme, sort) */
	/* tune pane */
	double now;
	int tune_sel;
	bool tune_editing, tune_ok, tune_pred_ok, tune_confirm;
	bool tune_stale; /* the preview was not made again for the newest sample (its panes hidden) */
	char tune_buf[64], tune_err[200], tune_applied[160];
	struct wb_setop tune_op;
	struct wb_limits tune_pred;
	struct wb_settings tune_set;    /* the settings tune_pred is of (owned with it) */
	struct wb_forecast tune_fc[2];  /* the next minute: current settings, proposed */
	bool tune_fc_ok, tune_verify;   /* verify: tune_pred is of a change just applied */
	double tune_trial_end;         /* > 0 while a change is on trial */
	struct wb_tune tune_stack[16]; /* applied changes, newest last, for undo */
	int tune_nstack;
	int tune_scroll;               /* first row of the before/after table shown */
	int tune_scroll_max;           /* its last first row, as last drawn */
	int tune_page;                 /* its rows shown, as last drawn: what PgUp/PgDn move */
	bool tune_raw;                 /* r: byte counts as raw bytes, not 80M */
	/* replay */
	struct wb_source *src;
	double speed;
	bool jumping, step, ended;
	char jump[16];
	struct devrow *rows;
	int nrows, rows_cap;
	/* the flusher pane's log: the last events of every sample, newest last */
	struct wb_event log[512];
	double log_mono[512];             /* the sample that carried each event */
	char log_names[WB_REASONS][16];
	int log_len, log_head, log_scroll;
	/* graph pane */
	int graph_zoom, graph_glyphs;
	bool graph_pinned;
	double graph_pin_t;
	struct wb_forecast graph_pin;     /* pinned: f, or a change applied */
};

/* A key binding (ui.c's table): the help screen and the footer are drawn from it. */
typedef void (*key_fn)(struct ui *u, int ch);
#define UI_KEYS_MAX 8
enum { UI_K_LIVE = 1, UI_K_REPLAY = 2, UI_K_GRAPH = 4 /* only in the Graph pane */, UI_K_TUNE = 8 /* only in Tune */,
       UI_K_TREE = 16 /* sampled as live, nothing written: a --root tree, or not root */ };
/* The pane-only bindings: in the footer they take the places of the general ones with their foot_pos. */
#define UI_K_PANE (UI_K_GRAPH | UI_K_TUNE)
struct ui_binding {
	int keys[UI_KEYS_MAX];    /* 0-terminated unless full */
	const char *label;        /* the keys as help and the man page name them */
	const char *help;         /* what they do */
	const char *foot_key, *foot; /* in the footer ("F1" "Help"); NULL: not there */
	int foot_pos;             /* the footer's order */
	int foot_prio;            /* when the footer is short of room, the lowest go first (9: always there) */
	unsigned when;            /* the sources (UI_K_LIVE, UI_K_TREE, UI_K_REPLAY); UI_K_GRAPH or UI_K_TUNE: that pane only */
	key_fn fn;
};
size_t ui_bindings(const struct ui_binding **b);
/* The source's bit of a binding's when: UI_K_REPLAY, UI_K_TREE (live, nothing to write) or UI_K_LIVE (root, live). */
unsigned ui_key_mode(const struct ui *u);
/*
 * Binding b's keys as the help names them over the pane shown: the label's alternatives
 * whose keys the pane's own bindings leave alone ("+/- or >/<" over the Graph, where < and
 * > zoom: "+/-"); "" where none is left. In buf (n bytes) or the binding's own label.
 */
const char *ui_binding_label(const struct ui *u, const struct ui_binding *b, char *buf, size_t n);
/* Does binding b work on pane p (the Graph's and Tune's own keys only there)? */
bool ui_binding_here(const struct ui_binding *b, enum pane p);
/* Does it act there too, or only say what pane p lacks? The footer offers only what acts. */
bool ui_binding_acts(const struct ui_binding *b, enum pane p);
/* One key as the loop gives it: the binding of this pane and source, or typing (ui.c). */
void ui_handle_key(struct ui *u, int ch);
/* A mouse event: wheel scrolls, a tab switches pane, the title line sorts, a row selects (ui.c). */
void ui_mouse(struct ui *u, const MEVENT *e);
/* The filter the current pane uses (Processes has its own). */
char *ui_filter(struct ui *u);
/*
 * The Processes pane's rows: indices into s->procs that match its filter, in
 * its sort order, *n of them (owned by u, valid until the next call). For procs_pane.c.
 */
const size_t *ui_proc_rows(struct ui *u, const struct wb_sample *s, size_t *n);
/* The replay's origin for the header ("host 5.15.0-91"), or NULL live / unknown. */
const char *ui_origin(const struct ui *u);
/* The --record file being written (live, the recorder not stopped), or NULL. */
const char *ui_recording(const struct ui *u);
/*
 * The header's title line for sample s into line (n bytes), fitted to the
 * grid's width: items left out by their rank, REC's file name cut to the
 * room the others leave. Returns line.
 */
const char *ui_title(const struct ui *u, const struct wb_sample *s, char *line, size_t n);

/* Append the newest sample's events to the log (ui.c). */
void ui_log_events(struct ui *u, const struct wb_sample *s);
/* Take sample s through the pipeline and show its view (ui.c); 0 or -errno. */
int ui_push(struct ui *u, const struct wb_sample *s);
/* After a seek: rebuild the pipeline's window and the log as playing would have (ui.c). */
void ui_resync(struct ui *u);
/* graph_pane.c */
void ui_draw_graph(struct ui *u, int y, int h);
bool ui_graph_key(struct ui *u, int ch);
/* Keep a copy of forecast f, made at the sample of time made_at, drawn against what comes. */
void ui_graph_pin(struct ui *u, const struct wb_forecast *f, double made_at, const char *why);
/* The pane shown or left: the pipeline forecasts only while it is shown. */
void ui_graph_shown(struct ui *u, bool shown);
void ui_graph_finish(struct ui *u);
/* tune_pane.c */
void ui_draw_tune(struct ui *u, int y, int h,
		  void (*put)(const struct ui *, int, int, enum wb_role, const char *));
bool ui_tune_key(struct ui *u, int ch);
/* Bytes as the other panes show them (80M), or raw after r. Returns buf (>= 24 bytes). */
const char *ui_tune_bytes(const struct ui *u, char *buf, size_t n, double b);
/* tune_table.c: device i (BDI bdi)'s label as the Devices pane shows it, and its mount point ("-": none). */
void ui_tune_dev_name(const struct ui *u, size_t i, const char *bdi, char *name, size_t n, const char **mnt);
/* tune_table.c: the before/after table's rows (indices into the sample), at most max; their count. */
int ui_tune_table_rows(const struct ui *u, size_t *idx, int max);
/* The table from row y (none at or past end): its titles and rows first..last-1 of idx; the row after. */
int ui_tune_table(const struct ui *u, const size_t *idx, int nr, int first, int last, int y, int end,
		  void (*put)(const struct ui *, int, int, enum wb_role, const char *));
/* Why the Tune pane's a, k, u and R do nothing here (a press says it), or NULL where they write. */
const char *ui_tune_no_apply(const struct ui *u);
void ui_tune_tick(struct ui *u);
void ui_tune_revert_all(struct ui *u);
void ui_tune_finish(struct ui *u);
void ui_tune_refresh(struct ui *u);
/* draw.c: widgets shared by the panes */
/* A marker on a meter. */
struct ui_mark {
	double v;
	char c;
	enum wb_role role;
};

/* The screen's size: the grid's (the terminal's, or a test's); 0 with no grid (keys only). */
static inline int ui_cols(const struct ui *u) { return u->grid ? u->grid->w : 0; }
static inline int ui_lines(const struct ui *u) { return u->grid ? u->grid->h : 0; }
/* screen.c: the only drawing that touches curses */
void ui_apply_theme(struct ui *u);
/* Copy the grid to the terminal. */
void ui_flush(const struct ui *u);
/* Draw s at y, x in role r into the grid, clipped to it and made safe for the terminal. */
void ui_put(const struct ui *u, int y, int x, enum wb_role r, const char *s);
/* lead, then v in |w| bytes (w < 0: to the right), cut at a character, then trail spaces; its length. */
size_t ui_pad(char *buf, size_t n, const char *lead, const char *v, int w, int trail);
/*
 * text over as many rows as it needs from row y (none at or past end), each
 * from column x to the screen's end, broken between items (two or more blanks: "a: apply   u:
 * undo" keeps "u: undo" whole) where one falls past a third of the row, else
 * between words (a word longer than a row is cut); the rows it takes (put
 * NULL: only counted).
 */
int ui_put_wrapped(const struct ui *u, const char *text, int y, int x, int end, enum wb_role r,
		   void (*put)(const struct ui *, int, int, enum wb_role, const char *));
/* Bytes as "1.5G", or "-" when not ok. */
const char *ui_bytes(char *buf, size_t n, bool ok, double v);
const char *ui_dev_label(const struct wb_bdi *b, char *buf, size_t n);
/* In place of an empty device list: what hides the devices (the filter, i, l), so a hiding kept in the
 * settings file is not taken for a filter nobody typed (devices_pane.c). */
const char *ui_no_rows_note(const struct ui *u, char *buf, size_t n);
/* A meter of w cells of dirty, then writeback, against the limit lim, the marks over them: the scale the
 * limit's or, over it, the level's, the filled cells past the limit in the critical role. The header's
 * global meter and the Zones pane's node meters. */
void ui_meter(const struct ui *u, int y, int x, int w, double dirty, double wb, const struct ui_mark *m, int nm,
	      double lim, bool over);
/* The figure beside such a meter, level as a percentage of lim and OVER past it ("354%  OVER"; "-" without a
 * limit), into buf; its role as a device row's: warn from --warn percent, critical from --crit or over. */
enum wb_role ui_limit_figure(const struct ui *u, double level, double lim, bool over, char *buf, size_t n);
/* The newest sample, or NULL before one (and right after a seek). */
const struct wb_sample *ui_cur(const struct ui *u);
void ui_sparkline(const struct ui *u, const char *bdi, bool wakes, double top, char *out, size_t n, int w);
/* columns.c: the column chooser (c, F2) and the hidden columns */
/* The table pane p shows, or -1. */
int ui_pane_table(enum pane p);
/* Is column c of table t hidden? */
bool ui_column_hidden(const struct ui *u, enum wb_table t, int c);
/* Why column c of table t is on but not drawn (the width left it out: "no room"), or NULL. */
const char *ui_column_absent(const struct ui *u, enum wb_table t, int c);
/* Table t's columns that show (wb_config_columns() less the hidden ones); how many. */
size_t ui_table_columns(const struct ui *u, enum wb_table t, const struct wb_field **col, size_t max);
/* c / F2: open the chooser on the current pane's table, or say why not. */
void ui_columns_open(struct ui *u);
/* A key while the chooser is open: true when it took it (another key closes it: false). */
bool ui_columns_key(struct ui *u, int ch);
/* The chooser in place of the pane's table. */
void ui_draw_columns(struct ui *u, int y, int h);
/* The settings file's hidden_columns into u, and u's into c (W). */
void ui_columns_from_config(struct ui *u, const struct wb_config *c);
void ui_columns_to_config(const struct ui *u, struct wb_config *c);
/* the panes (devices_pane.c, zones_pane.c, flusher_pane.c, procs_pane.c) */
/* The rows of the current pane's table (Zones and Processes their own; else the Devices rows). */
int ui_table_rows(struct ui *u);
void ui_draw_devices(struct ui *u, int y, int h);
void ui_draw_zones(struct ui *u, int y, int h);
void ui_draw_flusher(struct ui *u, int y, int h);
/*
 * The device an event names (its BDI, "7:1") as the Flusher pane's DEVICE
 * column shows it from the shown sample ("loop1 …/disk": buf of 192 bytes), or the BDI's name
 * where that sample has no such device (gone since). Returns buf.
 */
const char *ui_event_dev(const struct ui *u, const char *bdi, char *buf, size_t n);
void ui_draw_procs(struct ui *u, int y, int h);
/* The line saying processes are missing from the table (and why), NULL when none is. */
const char *ui_procs_missing_note(const struct wb_sample *s, char *buf, size_t n);
/* The line in place of an empty process table (no filter): who did not write. */
const char *ui_procs_idle_note(const struct wb_sample *s);
/* draw.c: the whole screen into the grid (the caller sizes it); no curses */
void ui_render(struct ui *u);
int ui_dev_columns(void);
int ui_dev_column_at(const struct ui *u, int x);
/* Why Devices column c, not hidden, is not in the table as drawn ("no room", "--set only"), or NULL. */
const char *ui_dev_column_absent(const struct ui *u, int c);
/* Does Devices column c show when the table is sorted by it (not hidden, and room at this width)? */
bool ui_dev_column_fits(const struct ui *u, int c);
int ui_proc_column_at(const struct ui *u, int x);
void ui_sort_defaults(struct ui *u);
const char *ui_dev_column_name(int c);
void ui_build_rows(struct ui *u);
/* ui.c: u set up on src without a terminal (theme, pipeline, settings); 0, or -1 with err. */
int ui_init(struct ui *u, const struct wb_ui_opts *o, struct wb_source *src, struct wb_grid *g, char *err,
	    size_t errlen);
void ui_finish(struct ui *u);
/* One sample from the source through the pipeline; 0, or -1 when the source ended. */
int ui_take_sample(struct ui *u);
/*
 * The loop's work at time t (seconds, any clock): the process table follows
 * its pane, a change on trial counts down, and a sample is taken when *next
 * is due (or a step asks), unless paused or ended; *next moves on. Whether
 * the screen needs drawing. The terminal's loop and the screen tests share it.
 */
bool ui_tick(struct ui *u, double t, double *next);
/* The row the tabs were drawn on (the mouse's reference), read from the grid; -1 none. */
int ui_tabs_row(const struct ui *u);

/* The tables' shared parts (table.c). */
/* Keep the cursor *sel of a table of n rows, rows of them shown from *first, in view. */
void ui_scroll_to(int *sel, int *first, int n, int rows);
/* The mark of a sorted column's title: v descending, ^ ascending. */
static inline const char *ui_sort_mark(bool desc) { return desc ? "v" : "^"; }
/*
 * A column's width in a table: a sorted one's title has its mark after it, a
 * blank between ("WRITE/s v", "DEVICE ^"; glued, "WRITE/sv" read as a title,
 * and WRITEBK's mark fell outside its 7 cells); a right-aligned one grows by
 * those two cells, its values still ending under the title's end.
 */
int ui_column_width(const struct wb_field *f, bool sorted);
/* The cells right of a sorted right-aligned column's values: its title's " v". */
static inline int ui_mark_pad(const struct wb_field *f, bool sorted) { return sorted && !f->left ? 2 : 0; }
/* f's title in w cells (buf, n bytes); with the sort mark (not NULL) after it, a blank between. */
void ui_title_cell(const struct wb_field *f, int w, const char *mark, char *buf, size_t n);
/* One line of a pane's table from catalogue columns: the titles (c NULL) or an entity's values;
 * sorted (or NULL) as wide as its marked title. */
void ui_table_line(const struct wb_field *const *col, size_t m, const struct wb_fctx *c,
		   const struct wb_field *sorted, char *line, size_t n);
/* The titles of those columns, sorted's marked v (descending) or ^ beside its title (ui_title_cell). */
void ui_table_titles(const struct wb_field *const *col, size_t m, const struct wb_field *sorted, bool desc, char *line,
		     size_t n);
/* What marks a cut text: the ellipsis, "~" in ASCII (one column either way). */
static inline const char *ui_cut_mark(bool utf8) { return utf8 ? "\u2026" : "~"; }
/*
 * s (n bytes of room) cut to w columns when it is longer, its last column
 * then the cut marker, as htop marks a cut field: "btrfs-3:loop0" in 12
 * columns reads "btrfs-3:loo…", not a name that looks whole. The bytes beyond the
 * columns s takes, for a printf width.
 */
int ui_cut(char *s, size_t n, int w, bool utf8);
/*
 * A mount point (any path; p, n bytes of room) in w columns, the one way every pane shows one:
 * whole where it fits, else as much of its end as fits after the cut marker, whole characters
 * ("/tmp/wbtop-test.IaLBy8/stick" in 12: "…aLBy8/stick"), as a cut label keeps its start: the
 * end is what tells two mounts apart; a fragment of UI_PATH_FRAGMENT columns or fewer is
 * dropped to its '/' (in 9: "…/stick", not "…8/stick"). In one column, the marker. The bytes
 * beyond its columns.
 */
int ui_path_cut(char *p, size_t n, int w, bool utf8);
/* The most columns of a cut component ui_path_cut() drops for the '/' after it ("…8/disk": "…/disk"). */
#define UI_PATH_FRAGMENT 3
/* The least room a mount beside a label is shown in where it is cut: the marker and three
 * characters ("…ick"); in fewer ("…k") it named no mount, and the label goes alone. */
#define UI_MOUNT_LEAST 4
/* The cells row r's cell of column c (field f) takes when cut to w cells (the marker's cell too, where it is in it). */
typedef int (*ui_cell_cols_fn)(const struct ui *u, const struct devrow *r, const struct wb_field *f, int c, int w);
/*
 * The room avail leaves beside a device-row table's shown columns (one blank apart) given to its
 * DEVICE and then MOUNT (the Devices pane's) or its DEV-MOUNT (the Flusher's), each as far as that
 * shows more of its cells among the rows (cols, at the width it would take: a label that fits in 8
 * cells takes 8 of 12) and at most 24, 24 and 40 cells; the room still left.
 */
int ui_grow_columns(const struct ui *u, const struct wb_field *const *col, int nc, int *width, const bool *shown,
		    int avail, ui_cell_cols_fn cols);
/* The most cells ui_grow_columns gives the column titled title (24 DEVICE, 40 MOUNT), 0 one it does not grow. */
int ui_grow_max(const char *title);
/* A table's title, with "3-12/32" (the rows shown, of how many) when not every row fits. */
void ui_title_line(const struct ui *u, int y, const char *title, int first, int rows, int n);
/* The zones the Zones table lists: those with managed pages. */
int ui_zone_count(const struct wb_sample *s);

/* What a key did to a prompt's line. */
enum ui_edit { UI_EDIT_TYPED, UI_EDIT_DONE, UI_EDIT_CANCEL, UI_EDIT_IGNORED };
/*
 * The one line editor: printable characters (spaces if asked), Backspace,
 * ^U clears, Enter is DONE, Esc is CANCEL (the caller decides what the line
 * then keeps); anything else IGNORED.
 */
enum ui_edit ui_line_edit(char *buf, size_t cap, int ch, bool spaces);

#endif
