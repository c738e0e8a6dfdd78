// SPDX-License-Identifier: GPL-2.0-or-later
/* The one line editor of every prompt (filter, jump, the Tune pane's value). */
#include <curses.h>
#include <string.h>

#include "ui_internal.h"

enum ui_edit ui_line_edit(char *buf, size_t cap, int ch, bool spaces)
{
	size_t n = strlen(buf);

	if (ch == 27)
		return UI_EDIT_CANCEL;
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
		return UI_EDIT_DONE;
	if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (n)
			buf[n - 1] = '\0';
		return UI_EDIT_TYPED;
	}
	if (ch == 21) { /* ^U, as a shell: the whole line */
		buf[0] = '\0';
		return UI_EDIT_TYPED;
	}
	if (ch >= (spaces ? 32 : 33) && ch < 127 && n + 1 < cap) {
		buf[n] = (char)ch;
		buf[n + 1] = '\0';
		return UI_EDIT_TYPED;
	}
	return UI_EDIT_IGNORED;
}
