/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers every layer shares: strings from a recording or the kernel made
 * safe for a terminal and for JSON, and times that may not be numbers.
 */
#ifndef WBTOP_UTIL_H
#define WBTOP_UTIL_H

#include <stddef.h>
#include <stdio.h>

/*
 * s made safe for a terminal into buf (always terminated): control
 * characters (C0, DEL, C1) and bytes that are not valid UTF-8 become '?',
 * so no escape sequence passes. Returns buf.
 */
const char *wb_safe_text(const char *s, char *buf, size_t n);

/* s as a JSON string (quotes included): valid UTF-8 always, invalid bytes as \ufffd. */
void wb_json_string(FILE *f, const char *s);

/*
 * A wall-clock time in seconds as local time with strftime's fmt, into buf;
 * "--:--:--" when it is not a finite time a time_t holds. Returns buf.
 */
const char *wb_fmt_clock(double wall, const char *fmt, char *buf, size_t n);

#endif
