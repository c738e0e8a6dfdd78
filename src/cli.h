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

#define MAX_SETS WB_APPLY_MAX_SETS

/* Every option; the order of the long-option table and of flag_rules' bits. */
enum opt_id { O_BATCH = 256, O_ITER, O_DELAY, O_JSON, O_CSV, O_SET, O_MOUNT, O_NOPROCS, O_NOTRACE, O_RECORD,
	      O_REPLAY, O_FROM, O_TO, O_MAXSIZE, O_APPLY, O_TRIAL, O_RECOVER, O_EXPORT, O_ROOT, O_FORECAST,
	      O_THEME, O_WARN, O_CRIT, O_FORCE, O_UNTIL, O_OM, O_LISTEN, O_OMFILE, O_CSV_UNITS, O_HELP, O_VERSION,
	      O_END };

/* The bit of option o in struct opts' typed. */
#define F(o) (1u << ((o) - O_BATCH))

/* The command line as parsed: what main() runs, and in which mode. */
struct opts {
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
	const char *sets[MAX_SETS];
	int nsets;
	const char *listen, *om_file; /* --listen [ADDR:]PORT, --openmetrics-file PATH */
	bool csv_units;        /* --csv-units: a units row under the CSV header */
	bool stdout_closed;    /* wbtop >&-: fd 1 held on /dev/null (set by main()) */
	unsigned typed;        /* F(O_...) of every option on the command line: it wins over the settings file */
	const struct wb_pipeline_sink *sinks; /* the pipeline's own sinks (the recorder), set up by main() */
	size_t nsinks;
};

/* Parse and check the command line into *o; returns 0, or the exit code to leave with (-1: done, exit 0). */
int wb_cli_parse(int argc, char **argv, struct opts *o);

#endif
