// SPDX-License-Identifier: GPL-2.0-or-later
/* wbtop: command line -> source, sinks, run loop. */
#include <errno.h>
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wbtop/apply.h"
#include "wbtop/headless.h"
#include "wbtop/http.h"
#include "wbtop/live.h"
#include "wbtop/openmetrics.h"
#include "wbtop/pipeline.h"
#include "wbtop/record.h"
#include "wbtop/signals.h"
#include "wbtop/source.h"
#include "wbtop/ui.h"
#include "wbtop/until.h"

#include <curses.h> /* last: term.h's capability macros (lines, columns...) would rename our words */
#include <term.h>

#define MAX_SETS WB_APPLY_MAX_SETS

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
	unsigned typed;        /* F(O_...) of every option on the command line: it wins over the settings file */
	const struct wb_pipeline_sink *sinks; /* the pipeline's own sinks (the recorder), set up by main() */
	size_t nsinks;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: wbtop [options]\n"
		"  top for Linux writeback: dirty and writeback pages per device against the\n"
		"  kernel's thresholds.\n\n"
		"  -b, --batch            headless samples to stdout (text unless --json/--csv)\n"
		"  -n, --iterations N     with --batch: stop after N samples (default 1; 0 = forever;\n"
		"                         at most 9223372036854775807)\n"
		"  -d, --delay SEC        seconds between samples (default 1, min 0.05; not in a replay)\n"
		"      --json             JSON Lines, one object per sample (with --batch)\n"
		"      --csv              CSV, one row per device per sample (with --batch)\n"
		"      --csv-units        with --csv: a second header row, each column's unit\n"
		"      --openmetrics      OpenMetrics, one exposition per sample (with --batch); with\n"
		"                         --replay the whole recording with timestamps (backfill)\n"
		"      --listen [ADDR:]PORT  serve /metrics over HTTP (ADDR default 127.0.0.1); with\n"
		"                         --batch, stdout is quiet unless --json, --csv, --openmetrics\n"
		"      --openmetrics-file PATH  rewrite PATH each sample (node_exporter textfile)\n"
		"      --set KEY=VALUE    what-if: add the model's prediction for this setting\n"
		"                         (vm.dirty_ratio, vm.dirty_bytes, vm.dirty_background_ratio,\n"
		"                         vm.dirty_background_bytes, vm.dirty_expire_centisecs,\n"
		"                         vm.dirty_writeback_centisecs, bdi.<MAJ:MIN|dev>.<attr> with\n"
		"                         attr min_ratio max_ratio min_ratio_fine max_ratio_fine\n"
		"                         min_bytes max_bytes strict_limit); repeatable\n"
		"      --forecast SEC     with --batch: the model's forecast for the next SEC seconds\n"
		"                         (whole, 1 to 3600: 1 s steps; with --set, also under the\n"
		"                         new settings)\n"
		"      --mount-debugfs    mount debugfs and tracefs if absent (root); unmounted\n"
		"                         on exit\n"
		"      --no-trace         do not use tracepoints (level 3)\n"
		"      --no-procs         do not read the process table\n"
		"      --theme NAME|PATH  UI colours: default, light, mono, high-contrast or a\n"
		"                         .theme file of at most 64 KiB (NO_COLOR selects mono)\n"
		"      --warn PCT         UI: highlight devices from PCT %% of their threshold (75)\n"
		"      --crit PCT         UI: critical from PCT %% (95) or when writers are throttled\n"
		"      --record FILE      also record every sample to FILE (.wbrec; UI or --batch)\n"
		"      --max-size SIZE    with --record: past SIZE (e.g. 100M) move FILE to FILE.1\n"
		"                         and start a new one\n"
		"      --force            with --record: replace FILE even if it is not a recording\n"
		"                         of this boot (which is appended to)\n"
		"      --replay FILE      replay a recording in the UI; with --batch: export it\n"
		"      --from T, --to T   with --replay: seconds from the recording's start\n"
		"                         (--to 0: the first sample) or a clock time HH:MM[:SS]\n"
		"      --apply            write the --set values to the kernel (root): journaled,\n"
		"                         read back and compared with the prediction\n"
		"      --trial SEC        with --apply: put the old values back after SEC seconds\n"
		"                         (whole, 1 to 3600) unless you type keep (Ctrl-C reverts\n"
		"                         at once)\n"
		"      --recover revert|keep  (root) what to do with changes a killed wbtop left\n"
		"                         unconfirmed\n"
		"      --export-sysctl    print the --set values as a sysctl.d snippet and udev rules\n"
		"      --until-clean DEV  follow DEV (loop0, 7:0, /dev/sdb1 or any path on it) until\n"
		"                         nothing on it is dirty or under writeback: exit 0 when\n"
		"                         clean (root and debugfs; a progress bar on a terminal)\n"
		"      --root DIR         read kernel files under DIR (fixture trees; not in a replay)\n"
		"  -h, --help             this text\n"
		"  -V, --version          version\n"
		"  An option the chosen mode would ignore, two that conflict, or one given twice\n"
		"  (but --set) is an error (exit 2). The UI needs a terminal with cursor\n"
		"  addressing (not TERM=dumb): use --batch otherwise.\n");
}

/* Every option; the order of the long-option table and of flag_rules' bits. */
enum opt_id { O_BATCH = 256, O_ITER, O_DELAY, O_JSON, O_CSV, O_SET, O_MOUNT, O_NOPROCS, O_NOTRACE, O_RECORD,
	      O_REPLAY, O_FROM, O_TO, O_MAXSIZE, O_APPLY, O_TRIAL, O_RECOVER, O_EXPORT, O_ROOT, O_FORECAST,
	      O_THEME, O_WARN, O_CRIT, O_FORCE, O_UNTIL, O_OM, O_LISTEN, O_OMFILE, O_CSV_UNITS, O_HELP, O_VERSION,
	      O_END };

static const struct option long_opts[] = {
	{ "batch", no_argument, NULL, O_BATCH },
	{ "iterations", required_argument, NULL, O_ITER },
	{ "delay", required_argument, NULL, O_DELAY },
	{ "json", no_argument, NULL, O_JSON },
	{ "csv", no_argument, NULL, O_CSV },
	{ "set", required_argument, NULL, O_SET },
	{ "mount-debugfs", no_argument, NULL, O_MOUNT },
	{ "no-procs", no_argument, NULL, O_NOPROCS },
	{ "no-trace", no_argument, NULL, O_NOTRACE },
	{ "record", required_argument, NULL, O_RECORD },
	{ "replay", required_argument, NULL, O_REPLAY },
	{ "from", required_argument, NULL, O_FROM },
	{ "to", required_argument, NULL, O_TO },
	{ "max-size", required_argument, NULL, O_MAXSIZE },
	{ "apply", no_argument, NULL, O_APPLY },
	{ "trial", required_argument, NULL, O_TRIAL },
	{ "recover", required_argument, NULL, O_RECOVER },
	{ "export-sysctl", no_argument, NULL, O_EXPORT },
	{ "root", required_argument, NULL, O_ROOT },
	{ "forecast", required_argument, NULL, O_FORECAST },
	{ "theme", required_argument, NULL, O_THEME },
	{ "warn", required_argument, NULL, O_WARN },
	{ "crit", required_argument, NULL, O_CRIT },
	{ "force", no_argument, NULL, O_FORCE },
	{ "until-clean", required_argument, NULL, O_UNTIL },
	{ "openmetrics", no_argument, NULL, O_OM },
	{ "listen", required_argument, NULL, O_LISTEN },
	{ "openmetrics-file", required_argument, NULL, O_OMFILE },
	{ "csv-units", no_argument, NULL, O_CSV_UNITS },
	{ "help", no_argument, NULL, O_HELP },
	{ "version", no_argument, NULL, O_VERSION },
	{ 0 },
};

#define F(o) (1u << ((o) - O_BATCH))
#define F_TUNE (F(O_APPLY) | F(O_TRIAL) | F(O_EXPORT))  /* the one-shot tuning mode: no sampling loop */
#define F_LIVE_ONLY (F(O_MOUNT) | F(O_NOPROCS) | F(O_NOTRACE) | F(O_RECORD))

/*
 * What each flag needs (one of) and what it cannot go with: every flag that
 * the chosen mode would silently ignore is a conflict here.
 */
static const struct flag_rule { int opt; unsigned needs, conflicts; } flag_rules[] = {
	{ O_BATCH, 0, F_TUNE },
	{ O_ITER, F(O_BATCH) | F(O_UNTIL), 0 },          /* the UI runs until q */
	{ O_DELAY, 0, F(O_REPLAY) | F_TUNE },            /* a replay keeps its recorded pace */
	{ O_JSON, F(O_BATCH), F(O_CSV) },
	{ O_CSV, F(O_BATCH), 0 },
	{ O_CSV_UNITS, F(O_CSV), 0 },
	{ O_FORECAST, F(O_BATCH), 0 },                   /* the UI has no forecast option */
	{ O_MOUNT, 0, F(O_REPLAY) | F_TUNE | F(O_ROOT) },     /* mounts only on the real / */
	{ O_NOPROCS, 0, F(O_REPLAY) | F_TUNE },
	{ O_NOTRACE, 0, F(O_REPLAY) | F_TUNE },
	{ O_RECORD, 0, F(O_REPLAY) | F_TUNE },
	{ O_MAXSIZE, F(O_RECORD), 0 },
	{ O_REPLAY, 0, F_TUNE | F(O_ROOT) | F(O_RECOVER) },
	{ O_FROM, F(O_REPLAY), 0 },
	{ O_TO, F(O_REPLAY), 0 },
	{ O_APPLY, F(O_SET), F(O_EXPORT) },
	{ O_TRIAL, F(O_SET), F(O_EXPORT) },
	{ O_EXPORT, F(O_SET), 0 },
	{ O_RECOVER, 0, F(O_ROOT) },                     /* the journal is about the real /, not a tree */
	{ O_THEME, 0, F(O_BATCH) | F_TUNE },             /* the UI's */
	{ O_WARN, 0, F(O_BATCH) | F_TUNE },
	{ O_CRIT, 0, F(O_BATCH) | F_TUNE },
	{ O_FORCE, F(O_RECORD), 0 },
	{ O_OM, F(O_BATCH), F(O_JSON) | F(O_CSV) },
	{ O_LISTEN, 0, F(O_REPLAY) | F_TUNE },
	{ O_OMFILE, 0, F(O_REPLAY) | F_TUNE },
	/* --until-clean is its own batch mode: one device, its own line each sample */
	{ O_UNTIL, 0, F(O_JSON) | F(O_CSV) | F(O_OM) | F(O_SET) | F(O_FORECAST) | F(O_RECORD) | F(O_THEME) |
		      F(O_WARN) | F(O_CRIT) | F_TUNE | F(O_LISTEN) | F(O_OMFILE) },
};

/* "--name" (or "-n/--iterations") of an option, for messages. */
static const char *opt_name(int id, char *buf, size_t n)
{
	static const char short_of[] = { [O_BATCH - O_BATCH] = 'b', [O_ITER - O_BATCH] = 'n', [O_DELAY - O_BATCH] = 'd' };
	int i = id - O_BATCH;

	if (i < (int)sizeof(short_of) && short_of[i])
		snprintf(buf, n, "-%c/--%s", short_of[i], long_opts[i].name);
	else
		snprintf(buf, n, "--%s", long_opts[i].name);
	return buf;
}

/* Check the flags seen against flag_rules; 0, or 2 with a one-line message. */
static int check_flag_rules(unsigned seen)
{
	char a[32], b[32];

	for (size_t i = 0; i < sizeof(flag_rules) / sizeof(flag_rules[0]); i++) {
		const struct flag_rule *r = &flag_rules[i];
		unsigned bad = seen & r->conflicts;

		if (!(seen & F(r->opt)))
			continue;
		if (r->needs && !(seen & r->needs)) {
			fprintf(stderr, "wbtop: %s needs %s\n", opt_name(r->opt, a, sizeof(a)),
				opt_name(O_BATCH + __builtin_ctz(r->needs), b, sizeof(b)));
			return 2;
		}
		if (bad) {
			fprintf(stderr, "wbtop: %s and %s do not go together (one would be ignored)\n",
				opt_name(r->opt, a, sizeof(a)), opt_name(O_BATCH + __builtin_ctz(bad), b, sizeof(b)));
			return 2;
		}
	}
	return 0;
}

#define TIME_ARG "seconds from the recording's start or a clock time HH:MM[:SS]"
#define PCT_ARG "a percentage above 0, at most 1000"

/* A number in [lo, hi] from the whole of s; false (and a message) if not. */
static bool num_arg(int id, const char *s, double lo, double hi, const char *what, double *v)
{
	char name[32];

	if (wb_parse_decimal(s, v) && *v >= lo && *v <= hi)
		return true;
	fprintf(stderr, "wbtop: %s '%s': expected %s\n", opt_name(id, name, sizeof(name)), s, what);
	return false;
}

/* A clock time HH:MM[:SS] (which day it is on is worked out once the recording is open). */
static bool clock_arg(int id, const char *s)
{
	char name[32], why[64];
	int hms[3], rc = wb_clock_parse(s, hms, why, sizeof(why));

	if (rc == 0)
		return true;
	fprintf(stderr, "wbtop: %s '%s': %s%s\n", opt_name(id, name, sizeof(name)), s, rc > 0 ? why : "expected ",
		rc > 0 ? "" : TIME_ARG);
	return false;
}

/*
 * A whole number in [lo, hi] from the whole of s: digits only (no sign,
 * blank, point or exponent: --forecast 1.5 or 1e3 is not a count of its
 * 1 s steps); false (and a message naming both bounds, so a value past the
 * top says where it is) if not. what: "whole seconds", "a whole number".
 */
static bool whole_arg(int id, const char *s, uint64_t lo, uint64_t hi, const char *what, uint64_t *v)
{
	const char *end;
	char name[32];

	if (wb_parse_u64(s, &end, v) && !*end && *v >= lo && *v <= hi)
		return true;
	fprintf(stderr, "wbtop: %s '%s': expected %s between %llu and %llu\n", opt_name(id, name, sizeof(name)), s,
		what, (unsigned long long)lo, (unsigned long long)hi);
	return false;
}

#define MAX_SIZE (1ULL << 50) /* --max-size's largest: 1 PiB (1048576G), far past what a recording needs */

/* --max-size: N, NK, NM or NG (powers of 1024), whole, from 1 byte to MAX_SIZE. */
static bool size_arg(const char *s, uint64_t *v)
{
	static const struct { char suffix; uint64_t mul; } units[] = { { 'K', 1ULL << 10 }, { 'M', 1ULL << 20 },
									{ 'G', 1ULL << 30 } };
	const char *end;
	uint64_t mul = 1, n;

	if (wb_parse_u64(s, &end, &n)) {
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (*end == units[i].suffix) {
				mul = units[i].mul;
				end++;
				break;
			}
		if (!*end && n >= 1 && n <= MAX_SIZE / mul) {
			*v = n * mul;
			return true;
		}
	}
	fprintf(stderr, "wbtop: --max-size '%s': expected a size such as 100M: whole bytes, or K, M or G "
		"(powers of 1024), from 1 to 1048576G\n", s);
	return false;
}

/* One option's value into o; false (with a message) if it is bad. */
static bool take_opt(int c, const char *arg, struct opts *o)
{
	struct stat st = { 0 };
	uint64_t u;

	switch (c) {
	case O_BATCH: o->batch = true; return true;
	case O_ITER:
		if (!whole_arg(c, arg, 0, LONG_MAX, "a whole number", &u))
			return false;
		o->count = (long)u;
		return true;
	case O_DELAY: return num_arg(c, arg, 0.05, 86400, "seconds between 0.05 and 86400", &o->delay);
	case O_JSON: o->fmt = WB_FMT_JSON; return true;
	case O_CSV: o->fmt = WB_FMT_CSV; return true;
	case O_CSV_UNITS: o->csv_units = true; return true;
	case O_SET:
		if (o->nsets >= MAX_SETS) {
			fprintf(stderr, "wbtop: at most %d --set options\n", MAX_SETS);
			return false;
		}
		for (int i = 0; i < o->nsets; i++) { /* the same key twice is a slip: which one was meant? */
			size_t k = strcspn(arg, "=");
			if (strncmp(o->sets[i], arg, k) == 0 && o->sets[i][k] == '=' && arg[k] == '=') {
				fprintf(stderr, "wbtop: --set %.*s given twice (%s, then %s): give it once\n", (int)k, arg,
					o->sets[i] + k + 1, arg + k + 1);
				return false;
			}
		}
		o->sets[o->nsets++] = arg;
		return true;
	case O_MOUNT: o->mount_debugfs = true; return true;
	case O_NOPROCS: o->procs = false; return true;
	case O_NOTRACE: o->trace = false; return true;
	case O_RECORD: o->record = arg; return true;
	case O_REPLAY: o->replay = arg; return true;
	case O_FROM:
		o->from_clock = strchr(arg, ':') ? arg : NULL;
		return o->from_clock ? clock_arg(c, arg) : num_arg(c, arg, 0, 1e9, TIME_ARG, &o->from);
	case O_TO:
		o->to_clock = strchr(arg, ':') ? arg : NULL;
		return o->to_clock ? clock_arg(c, arg) : num_arg(c, arg, 0, 1e9, TIME_ARG, &o->to);
	case O_MAXSIZE: return size_arg(arg, &o->max_size);
	case O_APPLY: o->apply = true; return true;
	case O_TRIAL: /* whole seconds, as --forecast: the countdown says whole seconds too */
		if (!whole_arg(c, arg, 1, 3600, "whole seconds", &u))
			return false;
		o->trial = (double)u;
		return true;
	case O_RECOVER:
		if (strcmp(arg, "revert") && strcmp(arg, "keep")) {
			fprintf(stderr, "wbtop: --recover '%s': expected revert or keep\n", arg);
			return false;
		}
		o->recover = arg;
		return true;
	case O_EXPORT: o->export_sysctl = true; return true;
	case O_ROOT:
		if (!*arg) { /* "" joined to /proc/vmstat is this machine's: an unset variable, not a tree */
			fprintf(stderr, "wbtop: --root '': expected a directory (/ is this machine)\n");
			return false;
		}
		if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode)) { /* else a line for every file under it, then exit 1 */
			fprintf(stderr, "wbtop: --root %s: %s\n", arg,
				st.st_mode ? "not a directory" : strerror(errno));
			return false;
		}
		o->root = arg;
		return true;
	case O_FORECAST: /* a count of its 1 s steps */
		if (!whole_arg(c, arg, 1, 3600, "whole seconds", &u))
			return false;
		o->forecast = (double)u;
		return true;
	case O_THEME: o->theme = arg; return true;
	case O_WARN: return num_arg(c, arg, 1e-9, 1000, PCT_ARG, &o->warn);
	case O_CRIT: return num_arg(c, arg, 1e-9, 1000, PCT_ARG, &o->crit);
	case O_FORCE: o->force = true; return true;
	case O_UNTIL: o->until = arg; return true;
	case O_OM: o->fmt = WB_FMT_OM; return true;
	case O_OMFILE: o->om_file = arg; return true;
	case O_LISTEN: {
		struct sockaddr_storage ss;
		socklen_t len;
		char err[256];
		if (wb_http_parse_addr(arg, &ss, &len, err, sizeof(err))) {
			fprintf(stderr, "wbtop: %s\n", err);
			return false;
		}
		o->listen = arg;
		return true;
	}
	}
	return false;
}

/* What the table cannot say (root for --recover, --to after --from, --warn under --crit) and defaults; 0 or 2. */
static int check_values(struct opts *o, unsigned seen)
{
	if (o->recover && geteuid() != 0) {
		fprintf(stderr, "wbtop: --recover needs root (the changes it acts on were made as root)\n");
		return 2;
	}
	if (o->trial)
		o->apply = true;
	o->typed = seen;
	o->has_to = seen & F(O_TO);
	if (o->has_to && o->to < o->from && !o->from_clock && !o->to_clock) {
		fprintf(stderr, "wbtop: --to %g is before --from %g\n", o->to, o->from);
		return 2;
	}
	if (o->until) /* its own headless mode */
		o->batch = true;
	if (o->count < 0)
		o->count = o->batch && !o->replay && !o->until ? 1 : 0;
	if (o->warn > o->crit) {
		fprintf(stderr, "wbtop: --warn %g is above --crit %g\n", o->warn, o->crit);
		return 2;
	}
	return 0;
}

/* getopt's '?' (unknown option, or a value given to a flag) or ':' (value missing): one line, 2. */
static int getopt_error(int c, char **argv)
{
	char name[64];

	if (optopt && optopt < O_BATCH)
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%s", argv[optind - 1]);
	fprintf(stderr, "wbtop: %s: %s (see --help)\n", name,
		c == ':' ? "needs a value" : optopt >= O_BATCH ? "takes no value" : "unknown option");
	return 2;
}

/* Parse the command line; returns 0, or the exit code to leave with (-1: done, exit 0). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	static const int shorts[][2] = { { 'b', O_BATCH }, { 'n', O_ITER }, { 'd', O_DELAY }, { 'h', O_HELP },
					 { 'V', O_VERSION } };
	unsigned seen = 0;
	int c;

	_Static_assert(O_END - O_BATCH <= 32, "flag bits fit an unsigned");
	*o = (struct opts){ .count = -1, .delay = 1.0, .root = "/", .procs = true, .trace = true, .warn = 75, .crit = 95 };
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":bn:d:hV", long_opts, NULL)) != -1) {
		char name[32];

		if (c == '?' || c == ':')
			return getopt_error(c, argv);
		for (size_t i = 0; i < sizeof(shorts) / sizeof(shorts[0]); i++)
			if (c == shorts[i][0])
				c = shorts[i][1];
		if (c == O_HELP || c == O_VERSION) {
			if (c == O_HELP)
				usage(stdout);
			else
				printf("wbtop %s\n", WBTOP_VERSION);
			return -1;
		}
		if (c < O_BATCH || c >= O_HELP)
			return 2; /* not reached: every option is in the tables */
		if ((seen & F(c)) && c != O_SET) {
			fprintf(stderr, "wbtop: %s given twice\n", opt_name(c, name, sizeof(name)));
			return 2;
		}
		seen |= F(c);
		/* "--set --batch": getopt took the next option as the value; say so rather than misread it */
		if (optarg && optarg[0] == '-' && optarg[1] == '-' && isalpha((unsigned char)optarg[2])) {
			fprintf(stderr, "wbtop: %s: needs a value, not the option %s (see --help)\n",
				opt_name(c, name, sizeof(name)), optarg);
			return 2;
		}
		if (!take_opt(c, optarg, o))
			return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "wbtop: unexpected argument \"%s\" (see --help)\n", argv[optind]);
		return 2;
	}
	if (strcmp(o->root, "/") == 0)
		seen &= ~F(O_ROOT); /* --root / is the default: nothing to ignore */
	return check_flag_rules(seen) ? 2 : check_values(o, seen);
}


/* --batch: the headless loop with this command line's choices. */
static int run_batch(const struct opts *o, struct wb_source *src)
{
	struct wb_headless_opts ho = { .fmt = o->fmt, .count = o->count, .delay = o->delay, .root = o->root,
				       .quiet_text = o->listen || o->om_file, .sets = o->sets, .nsets = o->nsets,
				       .forecast = o->forecast, .sinks = o->sinks, .nsinks = o->nsinks,
				       .csv_units = o->csv_units, .no_trace = !o->trace };

	return wb_headless_run(&ho, src);
}

/* The UI needs cursor addressing: refuse TERM=dumb and its kind before curses garbles the screen. */
static int check_terminal(char *err, size_t n)
{
	const char *term = getenv("TERM");
	const char *cup;
	char safe[64];
	int e = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return 0; /* the UI says it needs a terminal */
	wb_safe_text(term ? term : "", safe, sizeof(safe)); /* it goes to the terminal: no escapes */
	if (!term) {
		snprintf(err, n, "TERM is not set; set it (e.g. xterm-256color) or use --batch");
		return -1;
	}
	if (setupterm(NULL, STDOUT_FILENO, &e) != OK) {
		snprintf(err, n, "TERM=%s: no such terminal type here; set TERM (e.g. xterm-256color) or use --batch",
			 safe);
		return -1;
	}
	cup = tigetstr("cup");
	del_curterm(cur_term);
	if (!cup || cup == (char *)-1) {
		snprintf(err, n, "TERM=%s cannot move the cursor: the UI needs a full-screen terminal (use --batch)",
			 safe);
		return -1;
	}
	return 0;
}

/*
 * The settings file under the command line: a setting whose flag was not
 * typed takes the file's value (a typed one wins, even if it is the default).
 * A malformed file: a warning (stderr and the status line) and the defaults.
 */
static void ui_settings(struct wb_ui_opts *uo, const struct opts *o, struct wb_config *cfg, char *path,
			size_t n, char *msg, size_t mn)
{
	if (wb_config_path(path, n)) {
		wb_config_init(cfg);
		return;
	}
	uo->cfg_path = path;
	if (wb_config_load(cfg, path, msg, mn)) {
		char safe[512];
		fprintf(stderr, "wbtop: %s\n", wb_safe_text(msg, safe, sizeof(safe))); /* a file's text: no escapes */
		if (uo->notice) { /* both on the status line */
			size_t l = strlen(msg);
			snprintf(msg + l, mn - l, " (and: %s)", uo->notice);
		}
		uo->notice = msg;
	}
	if (!(o->typed & F(O_THEME)) && cfg->theme[0])
		uo->theme = cfg->theme;
	if (!(o->typed & F(O_DELAY)) && cfg->delay > 0)
		uo->delay = cfg->delay;
	if (!(o->typed & F(O_WARN)) && cfg->warn > 0)
		uo->warn_pct = cfg->warn;
	if (!(o->typed & F(O_CRIT)) && cfg->crit > 0)
		uo->crit_pct = cfg->crit;
	if (uo->warn_pct > uo->crit_pct) { /* the file's value against a typed one: the command line's pair */
		if (!uo->notice) { /* said, as a bad line would be */
			snprintf(msg, mn, "%.300s: warn %g is above crit %g; %g and %g used", path, uo->warn_pct,
				 uo->crit_pct, o->warn, o->crit);
			fprintf(stderr, "wbtop: %s\n", msg);
			uo->notice = msg;
		}
		uo->warn_pct = o->warn;
		uo->crit_pct = o->crit;
	}
}

static int run_ui(const struct opts *o, struct wb_source *src, const char *notice, const char *origin)
{
	char user_dir[512], err[256], cpath[4096], cmsg[512];
	struct wb_config cfg;
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	const char *dirs[] = { user_dir, WBTOP_THEMES_DIR, WBTOP_SRC_THEMES_DIR, NULL };
	struct wb_ui_opts uo = { .delay = o->delay, .theme = o->theme, .theme_dirs = dirs, .warn_pct = o->warn,
				 .crit_pct = o->crit, .sets = o->sets, .nsets = o->nsets, .notice = notice,
				 .can_apply = !src->replay && strcmp(o->root, "/") == 0,
				 .origin = origin, .cfg = &cfg, .sinks = o->sinks, .nsinks = o->nsinks };
	int rc;

	if (check_terminal(err, sizeof(err))) {
		fprintf(stderr, "wbtop: %s\n", err);
		return 1;
	}
	if (xdg && *xdg)
		snprintf(user_dir, sizeof(user_dir), "%s/wbtop/themes", xdg);
	else
		snprintf(user_dir, sizeof(user_dir), "%s/.config/wbtop/themes", home ? home : "/");
	ui_settings(&uo, o, &cfg, cpath, sizeof(cpath), cmsg, sizeof(cmsg));
	rc = wb_ui_run(&uo, src, err, sizeof(err));
	if (rc) /* may quote a theme file's text: no escapes */
		fprintf(stderr, "wbtop: %s\n", wb_safe_text(err, cmsg, sizeof(cmsg)));
	return rc;
}

/* --until-clean: follow one device until it is clean. */
static int run_until(const struct opts *o, struct wb_source *src)
{
	struct wb_until_opts uo = { .dev = o->until, .delay = o->delay, .count = o->count,
				    .bar = !src->replay && isatty(STDOUT_FILENO),
				    .live = !src->replay && strcmp(o->root, "/") == 0 };

	return wb_until_clean(&uo, src, stdout);
}

/*
 * --from/--to as seconds: clock times (the recording's local clock, as the
 * UI's header shows it) on the day that puts them inside the recording. 0,
 * or the exit code with a message: 1 when the recording has no time to put
 * them on, 2 for --to before --from (a bad value, as in seconds).
 */
static int clock_range(const struct opts *o, struct wb_rec_reader *r, double *from, double *to)
{
	struct wb_sample s;
	char err[256], a[16], b[16];
	size_t n = wb_rec_count(r);
	double len, wall;

	*from = o->from;
	*to = o->to;
	if (!o->from_clock && !o->to_clock)
		return 0;
	wb_sample_init(&s);
	if (!n || wb_rec_read(r, 0, &s, err, sizeof(err))) {
		fprintf(stderr, "wbtop: %s: no first sample to put a clock time on%s%s\n", o->replay, n ? ": " : "",
			n ? err : "");
		wb_sample_finish(&s);
		return 1;
	}
	wall = s.wall;
	wb_sample_finish(&s);
	len = wb_rec_time(r, n - 1) - wb_rec_time(r, 0);
	for (int k = 0; k < 2; k++) { /* as sar -s/-e: the day nearest the recording's start (end), clamped to it */
		const char *text = k ? o->to_clock : o->from_clock;
		double *t = k ? to : from;
		if (text && wb_clock_rel(text, wall + (k ? len : 0), k ? len : 0, -43200, len + 43200, t)) {
			fprintf(stderr, "wbtop: --%s '%s': no such time near the recording (%s to %s)\n",
				k ? "to" : "from", text, wb_fmt_clock(wall, "%H:%M:%S", a, sizeof(a)),
				wb_fmt_clock(wall + len, "%H:%M:%S", b, sizeof(b)));
			return 1;
		}
		if (text)
			*t = fmin(fmax(*t, 0), len + 1);
	}
	if (o->has_to && *to < *from) { /* as typed, and where each fell: a clock time may clamp */
		snprintf(a, sizeof(a), "%g", o->from);
		snprintf(b, sizeof(b), "%g", o->to);
		fprintf(stderr, "wbtop: --to %s is before --from %s (%.3f s and %.3f s from the recording's start)\n",
			o->to_clock ? o->to_clock : b, o->from_clock ? o->from_clock : a, *to, *from);
		return 2;
	}
	return 0;
}

/* --replay: the recording as a source, for the UI or an export. */
static int run_replay(const struct opts *o)
{
	double from, to;
	char err[256], warn[256];
	struct wb_rec_reader *r = wb_rec_open(o->replay, err, sizeof(err), warn, sizeof(warn));
	struct wb_replay *p;
	struct wb_source src;
	int rc;

	if (!r) {
		fprintf(stderr, "wbtop: %s: %s\n", o->replay, err);
		return 1;
	}
	if (warn[0] && o->batch)
		fprintf(stderr, "wbtop: %s: %s\n", o->replay, warn);
	if ((rc = clock_range(o, r, &from, &to))) {
		wb_rec_close_reader(r);
		return rc;
	}
	/* wb_replay_create reads a 0 end as "no limit": --to 0 is the first sample's millisecond */
	p = wb_replay_create(r, from, o->has_to ? fmax(to, 1e-9) : 0);
	if (!p) {
		wb_rec_close_reader(r);
		return 1;
	}
	if (wb_replay_check(p, err, sizeof(err))) { /* nothing to replay: exit 1, in the UI too */
		if (warn[0] && !o->batch)
			fprintf(stderr, "wbtop: %s: %s\n", o->replay, warn);
		fprintf(stderr, "wbtop: %s: %s\n", o->replay, err);
		rc = 1;
	} else {
		const struct wb_rec_header *h = wb_rec_header_of(r);
		char origin[160];
		snprintf(origin, sizeof(origin), "%s%s%s", h->host, h->host[0] && h->kernel[0] ? " " : "", h->kernel);
		wb_replay_source(p, &src);
		rc = o->until ? run_until(o, &src)
		     : o->batch ? run_batch(o, &src) : run_ui(o, &src, warn[0] ? warn : NULL, origin);
	}
	wb_replay_destroy(p);
	wb_rec_close_reader(r);
	return rc;
}

/* --record: the writer and the recorder, the pipeline's sink in o. 0, or 1 with a message. */
static int start_recorder(const struct opts *o, struct wb_rec_writer **w, struct wb_recorder **rec,
			  struct wb_pipeline_sink *sink)
{
	static const char *const std_name[] = { "standard output", "standard error" };
	struct wb_rec_header h;
	char err[256];

	for (int fd = 1; fd <= 2; fd++) /* > FILE too: its lines would land among the frames, a damaged file */
		if (wb_fd_is_path(fd, o->record)) {
			fprintf(stderr, "wbtop: --record %s is also %s: not recorded (send that elsewhere, "
				"such as /dev/null)\n", o->record, std_name[fd - 1]);
			return 1;
		}
	wb_rec_header_local(&h, o->delay);
	*w = wb_rec_start(o->record, &h, o->max_size, o->force ? WB_REC_REPLACE : 0, err, sizeof(err));
	if (!*w || !(*rec = wb_recorder_create(*w))) {
		fprintf(stderr, "wbtop: --record: %s\n", *w ? "out of memory" : err);
		wb_rec_close(*w);
		*w = NULL;
		return 1;
	}
	wb_recorder_sink(*rec, sink);
	return 0;
}

/*
 * --listen, --openmetrics-file: the endpoint and the textfile on the source;
 * the "serving" line for stderr (batch) or the status line (*notice). 0, or
 * the exit code with a message.
 */
static int start_metrics(const struct opts *o, struct wb_http **http, struct wb_om_sink **om,
			 struct wb_pipeline_sink *sink, const char **notice, char *served, size_t n)
{
	char err[256];

	if (o->om_file && wb_om_file_check(o->om_file, err, sizeof(err))) {
		fprintf(stderr, "wbtop: --openmetrics-file %s\n", err);
		return 2;
	}
	if (o->listen && !(*http = wb_http_start(o->listen, err, sizeof(err)))) {
		fprintf(stderr, "wbtop: %s\n", err);
		return 2;
	}
	if (!(*om = wb_om_sink_create(o->om_file, *http ? wb_http_publish : NULL, *http))) {
		fprintf(stderr, "wbtop: out of memory\n");
		return 1;
	}
	wb_om_sink_bind(*om, sink);
	snprintf(served, n, "serving http://%s/metrics", *http ? wb_http_address(*http) : "");
	if (*http && o->batch)
		fprintf(stderr, "wbtop: %s\n", served);
	else if (*http && !*notice) /* the UI says it on its status line */
		*notice = served;
	return 0;
}

/*
 * Each BDI keeps its knob and debugfs files open (9 descriptors): under the
 * usual soft limit of 1024 a machine with some 110 BDIs or more (NFS, FUSE,
 * loop devices) ran out, and /sys/class/bdi itself could no longer be listed
 * at the next sample, which then had no devices at all. Take the hard limit
 * (nothing here uses select() past descriptor 0).
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The live kernel as the source; the recorder and the metrics as more sinks; the UI or batch. */
static int run_live(struct opts *o)
{
	struct wb_live_opts lo = { .root = o->root, .procs = o->procs, .mount_debugfs = o->mount_debugfs,
				   .trace = o->trace };
	struct wb_source src;
	struct wb_rec_writer *writer = NULL;
	struct wb_recorder *recorder = NULL;
	struct wb_http *http = NULL;
	struct wb_om_sink *om = NULL;
	struct wb_pipeline_sink sinks[2]; /* the recorder, the metrics */
	size_t nsinks = 0;
	const struct wb_diag *notes;
	const char *notice;
	char err[256], served[96];
	bool late;
	raise_nofile();
	/* a recording always needs the process table */
	struct wb_live *live = wb_live_source_open(&lo, o->record != NULL, &src, err, sizeof(err));
	int rc;

	if (!live) {
		fprintf(stderr, "wbtop: %s\n", err);
		return 1;
	}
	notes = wb_live_notes(live);
	for (int i = 0; o->batch && i < notes->n; i++) /* in the UI the first one goes to the status line */
		fprintf(stderr, "wbtop: %s\n", notes->msg[i]);
	notice = !o->batch && notes->n ? notes->msg[0] : NULL;
	if (o->record && start_recorder(o, &writer, &recorder, &sinks[nsinks++])) {
		wb_live_destroy(live);
		return 1;
	}
	if ((o->listen || o->om_file) &&
	    (rc = start_metrics(o, &http, &om, &sinks[nsinks++], &notice, served, sizeof(served))))
		goto out;
	o->sinks = sinks;
	o->nsinks = nsinks;
	rc = o->until ? run_until(o, &src) : o->batch ? run_batch(o, &src) : run_ui(o, &src, notice, NULL);
	late = wb_recorder_flush(recorder); /* the frames still queued: a failure there is said here */
	if (wb_recorder_error(recorder)) { /* the UI went on sampling; batch has said it already */
		if (!o->batch || late)
			fprintf(stderr, "wbtop: %s\n", wb_recorder_error(recorder));
		rc = wb_rec_least_size(writer) ? 2 : rc ? rc : 1; /* --max-size too small: a bad argument */
	}
out:
	wb_http_stop(http); /* before the sink: no scrape outlives the sample it serves */
	wb_om_sink_destroy(om);
	wb_recorder_destroy(recorder);
	wb_rec_close(writer);
	wb_live_destroy(live);
	return rc;
}

/*
 * rc, or 1 if what went to standard output did not all reach it: a replay's
 * export (in a 1 MiB buffer) and --export-sysctl are written at exit, where
 * a full disk went unsaid (exit 0, the file cut short). A closed pipe is
 * the reader's way to say enough; an error already said keeps its code.
 */
static int flushed(int rc)
{
	if ((fflush(stdout) == 0 && !ferror(stdout)) || errno == EPIPE || rc)
		return rc;
	fprintf(stderr, "wbtop: writing the output: %s\n", strerror(errno));
	return 1;
}

/*
 * --record '' or --replay '': no file at all (an unset variable), said as
 * such rather than as the open's ": No such file or directory" under an
 * empty name. 0, or 1 (as for a file that cannot be opened) with a message.
 */
static int empty_names(const struct opts *o)
{
	const struct { const char *opt, *path, *what; } files[] = {
		{ "--record", o->record, "the file to record to" },
		{ "--replay", o->replay, "the recording to replay" },
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (files[i].path && !files[i].path[0]) {
			fprintf(stderr, "wbtop: %s '': the file name is empty (name %s)\n", files[i].opt, files[i].what);
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct wb_apply_opts ao;
	int rc;

	if ((rc = wb_std_fds_hold())) { /* stderr may be the one closed: the exit code says it */
		fprintf(stderr, "wbtop: /dev/null for a closed standard descriptor: %s\n", strerror(-rc));
		return 1;
	}
	if ((rc = parse_args(argc, argv, &o)))
		return flushed(rc < 0 ? 0 : rc);
	if (empty_names(&o))
		return 1;
	ao = (struct wb_apply_opts){ .root = o.root, .sets = o.sets, .nsets = o.nsets, .apply = o.apply,
				     .export_sysctl = o.export_sysctl, .trial = o.trial, .recover = o.recover };
	/* a closed pipe (wbtop -b | head) ends the loop through its cleanup;
	 * a crash removes our trace instance (the UI adds the terminal) */
	wb_signals_install();
	wb_signals_at_crash(wb_live_crash_cleanup);
	if (!o.replay && strcmp(o.root, "/") == 0 && geteuid() == 0 && wb_apply_recover(&ao))
		return 1;
	if (o.apply || o.export_sysctl)
		return flushed(wb_apply_run(&ao));
	if (o.replay && o.batch) /* exports write a lot: a larger buffer */
		setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	return flushed(o.replay ? run_replay(&o) : run_live(&o));
}
