/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Themes: semantic roles (dirty, writeback, threshold, warn, critical, ...)
 * mapped to colours and attributes, read from INI files (inih). Drawing code
 * asks for a role, never for a colour.
 */
#ifndef WBTOP_THEME_H
#define WBTOP_THEME_H

#include <stdbool.h>
#include <stddef.h>

enum wb_role {
	WB_R_NORMAL, WB_R_HEADER, WB_R_TITLE, WB_R_DIRTY, WB_R_WRITEBACK, WB_R_THRESHOLD,
	WB_R_BACKGROUND, WB_R_WARN, WB_R_CRITICAL, WB_R_IDLE, WB_R_SELECTED, WB_R_TAB,
	WB_R_TAB_ACTIVE, WB_R_HINT, WB_R_BAR_EMPTY, WB_R_NA, WB_R_GOOD,
	WB_R_COUNT
};
extern const char *const wb_role_names[WB_R_COUNT];

struct wb_style {
	short fg, bg;        /* curses colour numbers, -1 = terminal default */
	short fg8, bg8;      /* what to use on an 8-colour terminal */
	unsigned attrs;      /* WB_A_* */
};
#define WB_A_BOLD 1u
#define WB_A_REVERSE 2u
#define WB_A_UNDERLINE 4u
#define WB_A_DIM 8u

struct wb_theme {
	char name[64];
	bool mono;           /* no colour at all: attributes only */
	struct wb_style role[WB_R_COUNT];
};

/* The compiled-in default (dark) theme. */
void wb_theme_default(struct wb_theme *t);
/*
 * Load NAME (from dirs, then the built-ins "default" and "mono") or a PATH
 * (contains '/' or ends in .theme). Unknown keys and bad values are errors
 * naming file and line; a file that is not regular, over WB_THEME_MAX_BYTES
 * or WB_THEME_MAX_LINES, or has NUL bytes is refused without blocking.
 * 0, or -1 with a message in err.
 */
int wb_theme_load(struct wb_theme *t, const char *name_or_path, const char *const *dirs,
		  char *err, size_t errlen);
/* A theme file's bounds: anything larger is refused, not read. */
#define WB_THEME_MAX_BYTES (64 * 1024)
#define WB_THEME_MAX_LINES 2000
/*
 * Parse a theme from NUL-terminated text; label (a path) names it in
 * messages and gives its default name. 0, or -1 with "label:line: why".
 */
int wb_theme_parse(struct wb_theme *t, const char *text, const char *label, char *err, size_t errlen);

/*
 * inih's reader over a string, for themes and the settings file. inih's own
 * string reader handed a line longer than its buffer over in pieces that it
 * counted as lines, so the error was named a line late (or a piece's text
 * read as a line of its own): here such a line stops the parse, its number
 * in too_long.
 */
struct wb_ini_lines {
	const char *p;
	int line;      /* lines handed over: inih's own count */
	int too_long;  /* the line that did not fit inih's buffer (0: none), which ended the parse */
	int max;       /* the most characters a line may have (inih's buffer less \r, \n and \0) */
	bool flat;     /* leading blanks dropped: no line goes on from the one before (themes) */
};
char *wb_ini_read_line(char *str, int num, void *stream);
/* Parse one colour spec "214|yellow" / "default" / "7"; false if bad. */
bool wb_theme_parse_color(const char *s, short *c256, short *c8);
/* Names of the themes found in dirs plus built-ins (for cycling); count returned. */
int wb_theme_list(const char *const *dirs, char names[][64], int max);

#endif
