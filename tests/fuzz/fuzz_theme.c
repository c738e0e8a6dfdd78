// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: theme files (INI: [theme] name/mono, [roles] role =
 * fg, bg[, attrs]) through wb_theme_parse, and single colour specs through
 * wb_theme_parse_color. Must never crash or overrun; a refusal says why;
 * colours stay in curses' range.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wb_theme t;
	char err[256];
	char *text;
	short c, c8;

	if (size > WB_THEME_MAX_BYTES)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (wb_theme_parse(&t, text, "fuzz.theme", err, sizeof(err)) == 0) {
		for (int i = 0; i < WB_R_COUNT; i++)
			if (t.role[i].fg < -1 || t.role[i].fg > 255 || t.role[i].bg < -1 || t.role[i].bg > 255 ||
			    t.role[i].fg8 < -1 || t.role[i].fg8 > 7 || t.role[i].bg8 < -1 || t.role[i].bg8 > 7)
				__builtin_trap();
		if (!memchr(t.name, '\0', sizeof(t.name)))
			__builtin_trap();
	} else if (!err[0]) {
		__builtin_trap(); /* a refusal must say why */
	}
	if (size < 80 && wb_theme_parse_color(text, &c, &c8) && (c < -1 || c > 255 || c8 < -1 || c8 > 7))
		__builtin_trap();
	free(text);
	return 0;
}
