// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command line parsed (src/cli.c), in a file with its own F(), O_* and
 * struct opts, as any file that includes cli.h may have: cli.h's names are
 * its own (cli_, CLI_), so none collides. It had F(), O_BATCH... and struct opts.
 */
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#define F(x) ((x) + 1)
enum { O_BATCH = 1, O_JSON, O_END };
struct opts { int verbose; };

#include "cli.h"

/* Parse argv (NULL-ended) afresh into *o; wb_cli_parse's code. */
static int parse(char **argv, struct cli_opts *o)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	optind = 0; /* glibc: a new scan */
	return wb_cli_parse(argc, argv, o);
}

/* --batch --json -n 3: batch, JSON, 3 samples, and those three options typed. */
static void batch_json(void **st)
{
	char *argv[] = { "wbtop", "--batch", "--json", "-n", "3", NULL };
	struct opts mine = { O_JSON };
	struct cli_opts o;

	(void)st;
	assert_int_equal(parse(argv, &o), 0);
	assert_true(o.batch);
	assert_int_equal(o.fmt, WB_FMT_JSON);
	assert_int_equal(o.count, 3);
	assert_int_equal(o.typed, CLI_F(CLI_O_BATCH) | CLI_F(CLI_O_JSON) | CLI_F(CLI_O_ITER));
	assert_int_equal(F(mine.verbose), O_END); /* this file's own names in use: the check is that it builds beside cli.h */
}

/* A flag the mode would ignore is refused (exit 2): --json without --batch. */
static void json_needs_batch(void **st)
{
	char *argv[] = { "wbtop", "--json", NULL };
	struct cli_opts o;

	(void)st;
	assert_int_equal(parse(argv, &o), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(batch_json),
		cmocka_unit_test(json_needs_batch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
