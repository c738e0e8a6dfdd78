/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line: the options main() runs on, parsed and checked (cli.c). Not installed. */
#ifndef WBTOP_CLI_H
#define WBTOP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wbtop/apply.h"
#include "wbtop/headless.h"
#include "wbtop/pipeline.h"

#define CLI_MAX_SETS WB_APPLY_MAX_SETS

/* Every option; the order of the long-option table and of flag_rules' bits. */
enum cli_opt_id { CLI_O_BATCH = 256, CLI_O_ITER, CLI_O_DELAY, CLI_O_JSON, CLI_O_CSV, CLI_O_SET, CLI_O_MOUNT,
		  CLI_O_NOPROCS, CLI_O_NOTRACE, CLI_O_RECORD, CLI_O_REPLAY, CLI_O_FROM, CLI_O_TO,
		  CLI_O_MAXSIZE, CLI_O_APPLY, CLI_O_TRIAL, CLI_O_RECOVER, CLI_O_EXPORT, CLI_O_ROOT,
		  CLI_O_FORECAST, CLI_O_THEME, CLI_O_WARN, CLI_O_CRIT, CLI_O_FORCE, CLI_O_UNTIL, CLI_O_OM,
		  CLI_O_LISTEN, CLI_O_OMFILE, CLI_O_CSV_UNITS, CLI_O_HELP, CLI_O_VERSION, CLI_O_END };

/* The bit of option o in struct cli_opts' typed. */
#define CLI_F(o) (1u << ((o) - CLI_O_BATCH))

/* The command line as parsed: what main() runs, and in which mode. */
struct cli_opts {
	bool batch;
	enum wb_fmt fmt;
	long count;            /* -n; 0 = forever */
	double delay;          /* -d seconds */
	const char *root;
	bool mount_debugfs;
	bool procs;
	bool trace;
	double forecast;       /* --forecast horizon, 0 = none */
	const char *theme;
	const char *record, *replay;
	double from, to;       /* replay range, seconds from the recording's start */
	const char *from_clock, *to_clock; /* or as clock times HH:MM[:SS], made seconds once it is open */
	bool has_to;           /* --to given (0 is a time, not "no limit") */
	uint64_t max_size;     /* --record rotation size, 0 = none */
	bool force;            /* --record: replace a file that is not a recording of this boot */
	bool apply, export_sysctl;
	double trial;          /* --trial seconds, 0 = none */
	const char *recover;   /* --recover revert|keep */
	const char *until;     /* --until-clean DEV */
	double warn, crit;     /* UI row highlighting, percent */
	const char *sets[CLI_MAX_SETS];
	int nsets;
	const char *listen, *om_file; /* --listen [ADDR:]PORT, --openmetrics-file PATH */
	bool csv_units;        /* --csv-units: a units row under the CSV header */
	bool stdout_closed;    /* wbtop >&-: fd 1 held on /dev/null (set by main()) */
	unsigned typed;        /* CLI_F(CLI_O_...) of every option on the command line: it wins over the settings file */
	const struct wb_pipeline_sink *sinks; /* the pipeline's own sinks (the recorder), set up by main() */
	size_t nsinks;
	const struct wb_pipeline_sink *rec_sink; /* the recorder, one of sinks (set up by main()); NULL: none */
};

/* Parse and check the command line into *o; returns 0, or the exit code to leave with (-1: done, exit 0). */
int wb_cli_parse(int argc, char **argv, struct cli_opts *o);

#endif
