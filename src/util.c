// SPDX-License-Identifier: GPL-2.0-or-later
/* Shared helpers: terminal-safe and JSON-safe strings, clock times (see util.h). */
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "wbtop/util.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

/* A C1 control (U+0080..U+009F) encoded at s (2 bytes). */
static bool is_c1(const unsigned char *s)
{
	return s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F;
}

const char *wb_safe_text(const char *s, char *buf, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (n == 0)
		return buf;
	while (*p && o + 1 < n) {
		size_t len = utf8_len(p);
		if (len == 0 || *p < 0x20 || *p == 0x7F || (len == 2 && is_c1(p))) {
			buf[o++] = '?';
			p += len ? len : 1;
			continue;
		}
		if (o + len >= n)
			break;
		memcpy(buf + o, p, len);
		o += len;
		p += len;
	}
	buf[o] = '\0';
	return buf;
}

/* Bytes at p that JSON takes as they are: printable ASCII but '"' and '\\', whole UTF-8 characters. */
static size_t json_run(const unsigned char *p)
{
	size_t n = 0, len;

	for (;;) {
		if (p[n] >= 0x20 && p[n] < 0x80 && p[n] != '"' && p[n] != '\\') {
			n++;
			continue;
		}
		if (p[n] < 0x80 || (len = utf8_len(p + n)) == 0 || (len == 2 && is_c1(p + n)))
			return n;
		n += len;
	}
}

void wb_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc_unlocked('"', f);
	while (*p) {
		size_t run = json_run(p);
		if (run) {
			fwrite_unlocked(p, 1, run, f);
			p += run;
		} else if (*p == '"' || *p == '\\') {
			fputc_unlocked('\\', f);
			fputc_unlocked(*p++, f);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else if (utf8_len(p) == 2) { /* C1 controls: escaped too, for terminals */
			fprintf(f, "\\u%04x", p[1]);
			p += 2;
		} else {
			fputs("\\ufffd", f);
			p++;
		}
	}
	fputc_unlocked('"', f);
}

const char *wb_fmt_clock(double wall, const char *fmt, char *buf, size_t n)
{
	struct tm tmv;
	time_t t;

	/* (time_t)NaN or out of range is undefined: check before converting */
	if (!isfinite(wall) || wall < -9e15 || wall > 9e15) {
		snprintf(buf, n, "--:--:--");
		return buf;
	}
	t = (time_t)wall;
	if (!localtime_r(&t, &tmv) || strftime(buf, n, fmt, &tmv) == 0)
		snprintf(buf, n, "--:--:--");
	return buf;
}
