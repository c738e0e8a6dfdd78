/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers the unit tests share. */
#ifndef WBTOP_TEST_UTIL_H
#define WBTOP_TEST_UTIL_H

#include <stdbool.h>
#include <string.h>

#include "wbtop/kvfile.h"

/* Does any collected message contain needle? */
static inline bool diag_has(const struct wb_diag *d, const char *needle)
{
	for (int i = 0; i < d->n; i++)
		if (strstr(d->msg[i], needle))
			return true;
	return false;
}

#endif
