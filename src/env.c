// SPDX-License-Identifier: GPL-2.0-or-later
/* The numeric WBTOP_* environment variables: one table, read where used, checked once at the start. */
#include <stdio.h>
#include <stdlib.h>

#include "wbtop/bdi.h"
#include "wbtop/env.h"
#include "wbtop/forecast.h"
#include "wbtop/util.h"

static const struct {
	const char *name, *what;
	long min, max, def;
} vars[WB_ENV_COUNT] = {
	[WB_ENV_BDI_SLOW_US] = { "WBTOP_BDI_SLOW_US", "whole microseconds", 1, 1000000, WB_BDI_STATS_SLOW_US },
	[WB_ENV_FORECAST_MEMBERS] = { "WBTOP_FORECAST_MEMBERS", "a whole number of ensemble members", 0, 64,
				      WB_FORECAST_MEMBERS },
};

/* The value of variable e: 1 taken (*v), 0 unset or empty (the default, nothing to say), -1 not taken. */
static int value(enum wb_env e, long *v)
{
	const char *s = getenv(vars[e].name);
	char *end;

	if (!s || !*s)
		return 0;
	if (*s < '0' || *s > '9') /* strtol takes leading blanks and a sign: " 5", "+5" and "-0" were taken */
		return -1;
	*v = strtol(s, &end, 10); /* decimal, the whole string */
	return !*end && *v >= vars[e].min && *v <= vars[e].max ? 1 : -1;
}

bool wb_env_uint(enum wb_env e, unsigned *v)
{
	long n;

	if (value(e, &n) != 1)
		return false;
	*v = (unsigned)n;
	return true;
}

/* Variable e's warning into buf (without "wbtop: "); false when it has none. */
static bool warning(enum wb_env e, char *buf, size_t n)
{
	char q[WB_QUOTE_LEN];
	long v;

	if (value(e, &v) >= 0)
		return false;
	snprintf(buf, n, "%s=%s: expected %s from %ld to %ld; the default, %ld, is used", vars[e].name,
		 wb_quote(getenv(vars[e].name), q, sizeof(q)), vars[e].what, vars[e].min, vars[e].max, vars[e].def);
	return true;
}

void wb_env_warn(FILE *f)
{
	char buf[WB_QUOTE_LEN + 160];

	for (int e = 0; e < WB_ENV_COUNT; e++)
		if (warning((enum wb_env)e, buf, sizeof(buf)))
			fprintf(f, "wbtop: %s\n", buf);
}

bool wb_env_first_warning(char *buf, size_t n)
{
	for (int e = 0; e < WB_ENV_COUNT; e++)
		if (warning((enum wb_env)e, buf, n))
			return true;
	return false;
}
