// SPDX-License-Identifier: GPL-2.0-or-later
/* wbtop's command line: the option table, each value's parsing, the conflict rules. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wbtop/http.h"
#include "wbtop/util.h"

#include "cli.h"

/* The --help text, to f. */
static void usage(FILE *f)
{
	fprintf(f,
		"Usage: wbtop [options]\n"
		"  top for Linux writeback: dirty and writeback pages per device against the\n"
		"  kernel's thresholds.\n\n"
		"  -b, --batch            headless samples to stdout (text unless --json, --csv or\n"
		"                         --openmetrics)\n"
		"  -n, --iterations N     with --batch or --until-clean: stop after N samples (default\n"
		"                         1, a replay's all; 0 = forever; at most 9223372036854775807)\n"
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
		"      --forecast SEC     with --batch, JSON or text: the model's forecast for the\n"
		"                         next SEC seconds (whole, 1 to 3600: 1 s steps; with --set,\n"
		"                         also under the new settings)\n"
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


static const struct option long_opts[] = {
	{ "batch", no_argument, NULL, CLI_O_BATCH },
	{ "iterations", required_argument, NULL, CLI_O_ITER },
	{ "delay", required_argument, NULL, CLI_O_DELAY },
	{ "json", no_argument, NULL, CLI_O_JSON },
	{ "csv", no_argument, NULL, CLI_O_CSV },
	{ "set", required_argument, NULL, CLI_O_SET },
	{ "mount-debugfs", no_argument, NULL, CLI_O_MOUNT },
	{ "no-procs", no_argument, NULL, CLI_O_NOPROCS },
	{ "no-trace", no_argument, NULL, CLI_O_NOTRACE },
	{ "record", required_argument, NULL, CLI_O_RECORD },
	{ "replay", required_argument, NULL, CLI_O_REPLAY },
	{ "from", required_argument, NULL, CLI_O_FROM },
	{ "to", required_argument, NULL, CLI_O_TO },
	{ "max-size", required_argument, NULL, CLI_O_MAXSIZE },
	{ "apply", no_argument, NULL, CLI_O_APPLY },
	{ "trial", required_argument, NULL, CLI_O_TRIAL },
	{ "recover", required_argument, NULL, CLI_O_RECOVER },
	{ "export-sysctl", no_argument, NULL, CLI_O_EXPORT },
	{ "root", required_argument, NULL, CLI_O_ROOT },
	{ "forecast", required_argument, NULL, CLI_O_FORECAST },
	{ "theme", required_argument, NULL, CLI_O_THEME },
	{ "warn", required_argument, NULL, CLI_O_WARN },
	{ "crit", required_argument, NULL, CLI_O_CRIT },
	{ "force", no_argument, NULL, CLI_O_FORCE },
	{ "until-clean", required_argument, NULL, CLI_O_UNTIL },
	{ "openmetrics", no_argument, NULL, CLI_O_OM },
	{ "listen", required_argument, NULL, CLI_O_LISTEN },
	{ "openmetrics-file", required_argument, NULL, CLI_O_OMFILE },
	{ "csv-units", no_argument, NULL, CLI_O_CSV_UNITS },
	{ "help", no_argument, NULL, CLI_O_HELP },
	{ "version", no_argument, NULL, CLI_O_VERSION },
	{ 0 },
};

/* the one-shot tuning mode: no sampling loop */
#define F_TUNE (CLI_F(CLI_O_APPLY) | CLI_F(CLI_O_TRIAL) | CLI_F(CLI_O_EXPORT))

/*
 * What each flag needs (one of) and what it cannot go with: every flag that
 * the chosen mode would silently ignore is a conflict here.
 */
static const struct flag_rule { int opt; unsigned needs, conflicts; } flag_rules[] = {
	{ CLI_O_BATCH, 0, F_TUNE },
	{ CLI_O_ITER, CLI_F(CLI_O_BATCH) | CLI_F(CLI_O_UNTIL), 0 },     /* the UI runs until q */
	{ CLI_O_DELAY, 0, CLI_F(CLI_O_REPLAY) | F_TUNE },               /* a replay keeps its recorded pace */
	{ CLI_O_JSON, CLI_F(CLI_O_BATCH), CLI_F(CLI_O_CSV) },
	{ CLI_O_CSV, CLI_F(CLI_O_BATCH), 0 },
	{ CLI_O_CSV_UNITS, CLI_F(CLI_O_CSV), 0 },
	/* the UI has no forecast option; the CSV and OpenMetrics outputs have no place for one */
	{ CLI_O_FORECAST, CLI_F(CLI_O_BATCH), CLI_F(CLI_O_CSV) | CLI_F(CLI_O_OM) },
	{ CLI_O_MOUNT, 0, CLI_F(CLI_O_REPLAY) | F_TUNE | CLI_F(CLI_O_ROOT) }, /* mounts only on the real / */
	{ CLI_O_NOPROCS, 0, CLI_F(CLI_O_REPLAY) | F_TUNE },
	{ CLI_O_NOTRACE, 0, CLI_F(CLI_O_REPLAY) | F_TUNE },
	{ CLI_O_RECORD, 0, CLI_F(CLI_O_REPLAY) | F_TUNE },
	{ CLI_O_MAXSIZE, CLI_F(CLI_O_RECORD), 0 },
	{ CLI_O_REPLAY, 0, F_TUNE | CLI_F(CLI_O_ROOT) | CLI_F(CLI_O_RECOVER) },
	{ CLI_O_FROM, CLI_F(CLI_O_REPLAY), 0 },
	{ CLI_O_TO, CLI_F(CLI_O_REPLAY), 0 },
	{ CLI_O_APPLY, CLI_F(CLI_O_SET), CLI_F(CLI_O_EXPORT) },
	{ CLI_O_TRIAL, CLI_F(CLI_O_SET), CLI_F(CLI_O_EXPORT) },
	{ CLI_O_EXPORT, CLI_F(CLI_O_SET), 0 },
	{ CLI_O_RECOVER, 0, CLI_F(CLI_O_ROOT) },                        /* the journal is about the real /, not a tree */
	{ CLI_O_THEME, 0, CLI_F(CLI_O_BATCH) | F_TUNE },                /* the UI's */
	{ CLI_O_WARN, 0, CLI_F(CLI_O_BATCH) | F_TUNE },
	{ CLI_O_CRIT, 0, CLI_F(CLI_O_BATCH) | F_TUNE },
	{ CLI_O_FORCE, CLI_F(CLI_O_RECORD), 0 },
	{ CLI_O_OM, CLI_F(CLI_O_BATCH), CLI_F(CLI_O_JSON) | CLI_F(CLI_O_CSV) },
	{ CLI_O_LISTEN, 0, CLI_F(CLI_O_REPLAY) | F_TUNE },
	{ CLI_O_OMFILE, 0, CLI_F(CLI_O_REPLAY) | F_TUNE },
	/* --until-clean is its own batch mode: one device, its own line each sample */
	{ CLI_O_UNTIL, 0, CLI_F(CLI_O_JSON) | CLI_F(CLI_O_CSV) | CLI_F(CLI_O_OM) | CLI_F(CLI_O_SET) |
			  CLI_F(CLI_O_FORECAST) | CLI_F(CLI_O_RECORD) | CLI_F(CLI_O_THEME) | CLI_F(CLI_O_WARN) |
			  CLI_F(CLI_O_CRIT) | F_TUNE | CLI_F(CLI_O_LISTEN) | CLI_F(CLI_O_OMFILE) },
};

/* "--name" (or "-n/--iterations") of an option, for messages. */
static const char *opt_name(int id, char *buf, size_t n)
{
	static const char short_of[] = { [CLI_O_BATCH - CLI_O_BATCH] = 'b', [CLI_O_ITER - CLI_O_BATCH] = 'n',
					 [CLI_O_DELAY - CLI_O_BATCH] = 'd' };
	int i = id - CLI_O_BATCH;

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

		if (!(seen & CLI_F(r->opt)))
			continue;
		if (r->needs && !(seen & r->needs)) {
			fprintf(stderr, "wbtop: %s needs %s\n", opt_name(r->opt, a, sizeof(a)),
				opt_name(CLI_O_BATCH + __builtin_ctz(r->needs), b, sizeof(b)));
			return 2;
		}
		if (bad) {
			fprintf(stderr, "wbtop: %s and %s do not go together (one would be ignored)\n",
				opt_name(r->opt, a, sizeof(a)), opt_name(CLI_O_BATCH + __builtin_ctz(bad), b, sizeof(b)));
			return 2;
		}
	}
	/* serving, the text output is quiet: a forecast would go nowhere (accepted, exit 0, it did) */
	if ((seen & CLI_F(CLI_O_FORECAST)) && (seen & (CLI_F(CLI_O_LISTEN) | CLI_F(CLI_O_OMFILE))) &&
	    !(seen & CLI_F(CLI_O_JSON))) {
		fprintf(stderr, "wbtop: --forecast and %s need --json: serving metrics, the text output is quiet\n",
			opt_name(seen & CLI_F(CLI_O_LISTEN) ? CLI_O_LISTEN : CLI_O_OMFILE, a, sizeof(a)));
		return 2;
	}
	return 0;
}

#define TIME_ARG "seconds from the recording's start or a clock time HH:MM[:SS]"
#define PCT_ARG "a percentage above 0, at most 1000"

/* A number in [lo, hi] from the whole of s; false (and a message) if not. */
static bool num_arg(int id, const char *s, double lo, double hi, const char *what, double *v)
{
	char name[32], q[WB_QUOTE_LEN];

	if (wb_parse_decimal(s, v) && *v >= lo && *v <= hi)
		return true;
	fprintf(stderr, "wbtop: %s '%s': expected %s\n", opt_name(id, name, sizeof(name)), wb_quote(s, q, sizeof(q)),
		what);
	return false;
}

/* A clock time HH:MM[:SS] (which day it is on is worked out once the recording is open). */
static bool clock_arg(int id, const char *s)
{
	char name[32], why[64], q[WB_QUOTE_LEN];
	int hms[3], rc = wb_clock_parse(s, hms, why, sizeof(why));

	if (rc == 0)
		return true;
	fprintf(stderr, "wbtop: %s '%s': %s%s\n", opt_name(id, name, sizeof(name)), wb_quote(s, q, sizeof(q)),
		rc > 0 ? why : "expected ",
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
	char name[32], q[WB_QUOTE_LEN];

	if (wb_parse_u64(s, &end, v) && !*end && *v >= lo && *v <= hi)
		return true;
	fprintf(stderr, "wbtop: %s '%s': expected %s between %llu and %llu\n", opt_name(id, name, sizeof(name)),
		wb_quote(s, q, sizeof(q)), what, (unsigned long long)lo, (unsigned long long)hi);
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
	char q[WB_QUOTE_LEN];

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
		"(powers of 1024), from 1 to 1048576G\n", wb_quote(s, q, sizeof(q)));
	return false;
}

/* --set KEY=VALUE: one more, at most CLI_MAX_SETS, no key twice; false (with a message) if not. */
static bool set_arg(const char *arg, struct cli_opts *o)
{
	if (o->nsets >= CLI_MAX_SETS) {
		fprintf(stderr, "wbtop: at most %d --set options\n", CLI_MAX_SETS);
		return false;
	}
	for (int i = 0; i < o->nsets; i++) { /* the same key twice is a slip: which one was meant? */
		size_t k = strcspn(arg, "=");
		if (strncmp(o->sets[i], arg, k) == 0 && o->sets[i][k] == '=' && arg[k] == '=') {
			char key[WB_QUOTE_LEN], qk[WB_QUOTE_LEN], a[WB_QUOTE_LEN], b[WB_QUOTE_LEN];

			snprintf(key, sizeof(key), "%.*s", (int)k, arg); /* a key is short: cut, not quoted whole */
			fprintf(stderr, "wbtop: --set %s given twice (%s, then %s): give it once\n",
				wb_quote(key, qk, sizeof(qk)), wb_quote(o->sets[i] + k + 1, a, sizeof(a)),
				wb_quote(arg + k + 1, b, sizeof(b)));
			return false;
		}
	}
	o->sets[o->nsets++] = arg;
	return true;
}

/* --from, --to: a clock time (kept as text in *clock) or seconds into *v; false (with a message) if neither. */
static bool time_arg(int id, const char *arg, const char **clock, double *v)
{
	*clock = strchr(arg, ':') ? arg : NULL;
	return *clock ? clock_arg(id, arg) : num_arg(id, arg, 0, 1e9, TIME_ARG, v);
}

/* --forecast (a count of its 1 s steps), --trial (the countdown says whole seconds too): 1 to 3600 into *v. */
static bool secs_arg(int id, const char *arg, double *v)
{
	uint64_t u;

	if (!whole_arg(id, arg, 1, 3600, "whole seconds", &u))
		return false;
	*v = (double)u;
	return true;
}

/* --recover: revert or keep; false (with a message) if neither. */
static bool recover_arg(const char *arg, struct cli_opts *o)
{
	char q[WB_QUOTE_LEN];

	if (strcmp(arg, "revert") && strcmp(arg, "keep")) {
		fprintf(stderr, "wbtop: --recover '%s': expected revert or keep\n", wb_quote(arg, q, sizeof(q)));
		return false;
	}
	o->recover = arg;
	return true;
}

/* --root: a directory that exists; false (with a message) if not. */
static bool root_arg(const char *arg, struct cli_opts *o)
{
	struct stat st = { 0 };
	char q[WB_QUOTE_LEN];

	if (!*arg) { /* "" joined to /proc/vmstat is this machine's: an unset variable, not a tree */
		fprintf(stderr, "wbtop: --root '': expected a directory (/ is this machine)\n");
		return false;
	}
	if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode)) { /* else a line for every file under it, then exit 1 */
		int e = errno;

		fprintf(stderr, "wbtop: --root %s: %s\n", wb_quote(arg, q, sizeof(q)),
			st.st_mode ? "not a directory" : strerror(e));
		return false;
	}
	o->root = arg;
	return true;
}

/* --listen [ADDR:]PORT: an address the endpoint can take; false (with a message) if not. */
static bool listen_arg(const char *arg, struct cli_opts *o)
{
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

/* One option's value into o; false (with a message) if it is bad. */
static bool take_opt(int c, const char *arg, struct cli_opts *o)
{
	uint64_t u;

	switch (c) {
	case CLI_O_BATCH: o->batch = true; return true;
	case CLI_O_ITER:
		if (!whole_arg(c, arg, 0, LONG_MAX, "a whole number", &u))
			return false;
		o->count = (long)u;
		return true;
	case CLI_O_DELAY: return num_arg(c, arg, 0.05, 86400, "seconds between 0.05 and 86400", &o->delay);
	case CLI_O_JSON: o->fmt = WB_FMT_JSON; return true;
	case CLI_O_CSV: o->fmt = WB_FMT_CSV; return true;
	case CLI_O_CSV_UNITS: o->csv_units = true; return true;
	case CLI_O_SET: return set_arg(arg, o);
	case CLI_O_MOUNT: o->mount_debugfs = true; return true;
	case CLI_O_NOPROCS: o->procs = false; return true;
	case CLI_O_NOTRACE: o->trace = false; return true;
	case CLI_O_RECORD: o->record = arg; return true;
	case CLI_O_REPLAY: o->replay = arg; return true;
	case CLI_O_FROM: return time_arg(c, arg, &o->from_clock, &o->from);
	case CLI_O_TO: return time_arg(c, arg, &o->to_clock, &o->to);
	case CLI_O_MAXSIZE: return size_arg(arg, &o->max_size);
	case CLI_O_APPLY: o->apply = true; return true;
	case CLI_O_TRIAL: return secs_arg(c, arg, &o->trial);
	case CLI_O_RECOVER: return recover_arg(arg, o);
	case CLI_O_EXPORT: o->export_sysctl = true; return true;
	case CLI_O_ROOT: return root_arg(arg, o);
	case CLI_O_FORECAST: return secs_arg(c, arg, &o->forecast);
	case CLI_O_THEME: o->theme = arg; return true;
	case CLI_O_WARN: return num_arg(c, arg, 1e-9, 1000, PCT_ARG, &o->warn);
	case CLI_O_CRIT: return num_arg(c, arg, 1e-9, 1000, PCT_ARG, &o->crit);
	case CLI_O_FORCE: o->force = true; return true;
	case CLI_O_UNTIL: o->until = arg; return true;
	case CLI_O_OM: o->fmt = WB_FMT_OM; return true;
	case CLI_O_OMFILE: o->om_file = arg; return true;
	case CLI_O_LISTEN: return listen_arg(arg, o);
	}
	return false;
}

/* What the table cannot say (root for --recover, --to after --from, --warn under --crit) and defaults; 0 or 2. */
static int check_values(struct cli_opts *o, unsigned seen)
{
	if (o->recover && geteuid() != 0) {
		fprintf(stderr, "wbtop: --recover needs root (the changes it acts on were made as root)\n");
		return 2;
	}
	if (o->trial)
		o->apply = true;
	/* two options that cannot go together: 2, as the table's conflicts are (it exited 1, later) */
	if (o->apply && o->root && strcmp(o->root, "/") != 0) { /* --root / is the running kernel */
		fprintf(stderr, "wbtop: %s writes knobs on the running kernel only, not under --root; nothing changed\n",
			seen & CLI_F(CLI_O_TRIAL) ? "--trial" : "--apply");
		return 2;
	}
	o->typed = seen;
	o->has_to = seen & CLI_F(CLI_O_TO);
	if (o->has_to && o->to < o->from && !o->from_clock && !o->to_clock) {
		fprintf(stderr, "wbtop: --to %g is before --from %g\n", o->to, o->from);
		return 2;
	}
	if (o->until) /* its own headless mode */
		o->batch = true;
	if (o->count < 0)
		o->count = o->batch && !o->replay && !o->until ? 1 : 0;
	if (o->warn > o->crit) { /* the one typed named as typed, the other as the default it is */
		if (!(seen & CLI_F(CLI_O_WARN)))
			fprintf(stderr, "wbtop: --crit %g is below --warn's default, %g (give --warn too)\n", o->crit, o->warn);
		else if (!(seen & CLI_F(CLI_O_CRIT)))
			fprintf(stderr, "wbtop: --warn %g is above --crit's default, %g (give --crit too)\n", o->warn, o->crit);
		else
			fprintf(stderr, "wbtop: --warn %g is above --crit %g\n", o->warn, o->crit);
		return 2;
	}
	return 0;
}

/*
 * The long options arg ("--for", "--re=x") abbreviates, when more than one:
 * getopt_long says '?' for an ambiguous abbreviation as for an unknown option
 * ("--for: unknown option", though --forecast and --force are its). Their
 * names into out ("--forecast, --force"); the count (0 when exact or unique).
 */
static int ambiguous(const char *arg, char *out, size_t n)
{
	size_t len = strncmp(arg, "--", 2) == 0 ? strcspn(arg + 2, "=") : 0;
	int k = 0, o = 0;

	out[0] = '\0';
	for (const struct option *lo = long_opts; len && lo->name; lo++) {
		if (strlen(lo->name) == len && strncmp(lo->name, arg + 2, len) == 0)
			return 0; /* exact: never ambiguous */
		if (strncmp(lo->name, arg + 2, len) == 0 && o >= 0 && (size_t)o < n) {
			o += snprintf(out + o, n - (size_t)o, "%s--%s", k ? ", " : "", lo->name);
			k++;
		}
	}
	return k > 1 ? k : 0;
}

/* getopt's '?' (unknown or ambiguous option, or a value given to a flag) or ':' (value missing): one line, 2. */
static int getopt_error(int c, char **argv)
{
	char name[WB_QUOTE_LEN], which[512], typed[64];
	const char *arg = argv[optind - 1];

	if (c == '?' && !optopt && ambiguous(arg, which, sizeof(which))) {
		snprintf(typed, sizeof(typed), "%.*s", (int)strcspn(arg, "="), arg); /* its value left out */
		fprintf(stderr, "wbtop: %s: ambiguous, it abbreviates %s (see --help)\n",
			wb_quote(typed, name, sizeof(name)), which);
		return 2;
	}
	if (optopt && optopt < CLI_O_BATCH)
		wb_quote((char[]){ '-', (char)optopt, '\0' }, name, sizeof(name));
	else
		wb_quote(argv[optind - 1], name, sizeof(name));
	fprintf(stderr, "wbtop: %s: %s (see --help)\n", name,
		c == ':' ? "needs a value" : optopt >= CLI_O_BATCH ? "takes no value" : "unknown option");
	return 2;
}

/* Parse the command line; returns 0, or the exit code to leave with (-1: done, exit 0). */
int wb_cli_parse(int argc, char **argv, struct cli_opts *o)
{
	static const int shorts[][2] = { { 'b', CLI_O_BATCH }, { 'n', CLI_O_ITER }, { 'd', CLI_O_DELAY },
					 { 'h', CLI_O_HELP }, { 'V', CLI_O_VERSION } };
	unsigned seen = 0;
	int c;

	_Static_assert(CLI_O_END - CLI_O_BATCH <= 32, "flag bits fit an unsigned");
	*o = (struct cli_opts){ .count = -1, .delay = 1.0, .root = "/", .procs = true, .trace = true, .warn = 75,
				.crit = 95 };
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":bn:d:hV", long_opts, NULL)) != -1) {
		char name[32], q[WB_QUOTE_LEN];

		if (c == '?' || c == ':')
			return getopt_error(c, argv);
		for (size_t i = 0; i < sizeof(shorts) / sizeof(shorts[0]); i++)
			if (c == shorts[i][0])
				c = shorts[i][1];
		if (c == CLI_O_HELP || c == CLI_O_VERSION) {
			if (c == CLI_O_HELP)
				usage(stdout);
			else
				printf("wbtop %s\n", WBTOP_VERSION);
			return -1;
		}
		if (c < CLI_O_BATCH || c >= CLI_O_HELP)
			return 2; /* not reached: every option is in the tables */
		if ((seen & CLI_F(c)) && c != CLI_O_SET) {
			fprintf(stderr, "wbtop: %s given twice\n", opt_name(c, name, sizeof(name)));
			return 2;
		}
		seen |= CLI_F(c);
		/* "--set --batch": getopt took the next option as the value; say so rather than misread it */
		if (optarg && optarg[0] == '-' && optarg[1] == '-' && isalpha((unsigned char)optarg[2])) {
			fprintf(stderr, "wbtop: %s: needs a value, not the option %s (see --help)\n",
				opt_name(c, name, sizeof(name)), wb_quote(optarg, q, sizeof(q)));
			return 2;
		}
		if (!take_opt(c, optarg, o))
			return 2;
	}
	if (optind < argc) {
		char q[WB_QUOTE_LEN];

		fprintf(stderr, "wbtop: unexpected argument \"%s\" (see --help)\n", wb_quote(argv[optind], q, sizeof(q)));
		return 2;
	}
	if (strcmp(o->root, "/") == 0)
		seen &= ~CLI_F(CLI_O_ROOT); /* --root / is the default: nothing to ignore */
	return check_flag_rules(seen) ? 2 : check_values(o, seen);
}
