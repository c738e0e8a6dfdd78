// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel tests' C programs: a failed check is said and counted, the test goes on. */
#ifndef WBTOP_TESTS_KERNEL_CHECK_H
#define WBTOP_TESTS_KERNEL_CHECK_H
#include <stdio.h>

static int fails;
#define CHECK(c, ...)                                                          \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);   \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			fails++;                                               \
		}                                                              \
	} while (0)
#endif
