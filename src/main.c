// SPDX-License-Identifier: GPL-2.0-or-later
/* wbtop: command line -> source, sinks, run loop. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wbtop/forecast.h"
#include "wbtop/http.h"
#include "wbtop/live.h"
#include "wbtop/model.h"
#include "wbtop/openmetrics.h"
#include "wbtop/out.h"
#include "wbtop/pipeline.h"
#include "wbtop/record.h"
#include "wbtop/signals.h"
#include "wbtop/source.h"
#include "wbtop/tune.h"
#include "wbtop/ui.h"
#include "wbtop/until.h"
#include "wbtop/whatif.h"

#include <curses.h> /* last: term.h's capability macros (lines, columns...) would rename our words */
#include <term.h>

#define MAX_SETS 64

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_OM };

struct opts {
	bool batch;
	enum fmt fmt;
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
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: wbtop [options]\n"
		"  top for Linux writeback: dirty and writeback pages per device against the\n"
		"  kernel's thresholds.\n\n"
		"  -b, --batch            headless samples to stdout (text unless --json/--csv)\n"
		"  -n, --iterations N     with --batch: stop after N samples (default 1; 0 = forever)\n"
		"  -d, --delay SEC        seconds between samples (default 1, min 0.05; not in a replay)\n"
		"      --json             JSON Lines, one object per sample (with --batch)\n"
		"      --csv              CSV, one row per device per sample (with --batch)\n"
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
		"                         (1 s steps; with --set, also under the new settings)\n"
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
		"      --from SEC, --to SEC  with --replay: seconds from the recording's start\n"
		"                         (--to 0: the first sample)\n"
		"      --apply            write the --set values to the kernel (root): journaled,\n"
		"                         read back and compared with the prediction\n"
		"      --trial SEC        with --apply: put the old values back after SEC seconds\n"
		"                         unless you type keep (Ctrl-C reverts at once)\n"
		"      --recover revert|keep  (root) what to do with changes a killed wbtop left\n"
		"                         unconfirmed\n"
		"      --export-sysctl    print the --set values as a sysctl.d snippet and udev rules\n"
		"      --until-clean DEV  follow DEV (loop0, 7:0, /dev/sdb1 or a mount point) until\n"
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
	      O_THEME, O_WARN, O_CRIT, O_FORCE, O_UNTIL, O_OM, O_LISTEN, O_OMFILE, O_HELP, O_VERSION, O_END };

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

/* A number in [lo, hi] from the whole of s; false (and a message) if not. */
static bool num_arg(int id, const char *s, double lo, double hi, const char *what, double *v)
{
	char *end, name[32];

	errno = 0;
	*v = strtod(s, &end);
	if (end != s && !*end && !errno && isfinite(*v) && *v >= lo && *v <= hi)
		return true;
	fprintf(stderr, "wbtop: %s '%s': expected %s\n", opt_name(id, name, sizeof(name)), s, what);
	return false;
}

/* -n: a whole number >= 0, nothing else. */
static bool count_arg(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (end != s && !*end && !errno && *v >= 0 && s[0] >= '0' && s[0] <= '9')
		return true;
	fprintf(stderr, "wbtop: -n/--iterations '%s': expected a whole number >= 0\n", s);
	return false;
}

/* --max-size: N, NK, NM or NG. */
static bool size_arg(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long n;
	uint64_t mul;

	errno = 0;
	n = strtoull(s, &end, 10);
	mul = *end == 'K' ? 1ULL << 10 : *end == 'M' ? 1ULL << 20 : *end == 'G' ? 1ULL << 30 : 1;
	if (mul > 1)
		end++;
	if (end != s && !*end && !errno && s[0] >= '0' && s[0] <= '9' && n > 0 && n <= (1ULL << 50) / mul) {
		*v = n * mul;
		return true;
	}
	fprintf(stderr, "wbtop: --max-size '%s': expected a size such as 100M\n", s);
	return false;
}

/* One option's value into o; false (with a message) if it is bad. */
static bool take_opt(int c, const char *arg, struct opts *o)
{
	switch (c) {
	case O_BATCH: o->batch = true; return true;
	case O_ITER: return count_arg(arg, &o->count);
	case O_DELAY: return num_arg(c, arg, 0.05, 86400, "seconds between 0.05 and 86400", &o->delay);
	case O_JSON: o->fmt = FMT_JSON; return true;
	case O_CSV: o->fmt = FMT_CSV; return true;
	case O_SET:
		if (o->nsets >= MAX_SETS) {
			fprintf(stderr, "wbtop: at most %d --set options\n", MAX_SETS);
			return false;
		}
		o->sets[o->nsets++] = arg;
		return true;
	case O_MOUNT: o->mount_debugfs = true; return true;
	case O_NOPROCS: o->procs = false; return true;
	case O_NOTRACE: o->trace = false; return true;
	case O_RECORD: o->record = arg; return true;
	case O_REPLAY: o->replay = arg; return true;
	case O_FROM: return num_arg(c, arg, 0, 1e9, "seconds from the recording's start", &o->from);
	case O_TO: return num_arg(c, arg, 0, 1e9, "seconds from the recording's start", &o->to);
	case O_MAXSIZE: return size_arg(arg, &o->max_size);
	case O_APPLY: o->apply = true; return true;
	case O_TRIAL: return num_arg(c, arg, 1, 3600, "seconds between 1 and 3600", &o->trial);
	case O_RECOVER:
		if (strcmp(arg, "revert") && strcmp(arg, "keep")) {
			fprintf(stderr, "wbtop: --recover '%s': expected revert or keep\n", arg);
			return false;
		}
		o->recover = arg;
		return true;
	case O_EXPORT: o->export_sysctl = true; return true;
	case O_ROOT: o->root = arg; return true;
	case O_FORECAST: return num_arg(c, arg, 1, 3600, "seconds between 1 and 3600", &o->forecast);
	case O_THEME: o->theme = arg; return true;
	case O_WARN: return num_arg(c, arg, 1e-9, 1000, "a percentage above 0", &o->warn);
	case O_CRIT: return num_arg(c, arg, 1e-9, 1000, "a percentage above 0", &o->crit);
	case O_FORCE: o->force = true; return true;
	case O_UNTIL: o->until = arg; return true;
	case O_OM: o->fmt = FMT_OM; return true;
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
	o->has_to = seen & F(O_TO);
	if (o->has_to && o->to < o->from) {
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


/* Print collector problems, once per distinct set. */
static void report_diag(const struct wb_diag *d, unsigned long *last_hash)
{
	unsigned long h = 5381;

	for (int i = 0; i < d->n; i++)
		for (const char *p = d->msg[i]; *p; p++)
			h = h * 33 + (unsigned char)*p;
	if (h == *last_hash)
		return;
	*last_hash = h;
	for (int i = 0; i < d->n; i++)
		fprintf(stderr, "wbtop: %s\n", d->msg[i]);
	if (d->dropped)
		fprintf(stderr, "wbtop: (%d more problems not shown)\n", d->dropped);
}

static void sleep_until(struct timespec *next, double delay)
{
	long ns = (long)((delay - floor(delay)) * 1e9);

	next->tv_sec += (time_t)floor(delay);
	next->tv_nsec += ns;
	if (next->tv_nsec >= 1000000000L) {
		next->tv_sec++;
		next->tv_nsec -= 1000000000L;
	}
	while (!wb_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) == EINTR)
		;
}

/*
 * --openmetrics: live, one exposition per sample (v); a replay collects every
 * sample with its time and prints one exposition at the end (v NULL).
 */
static void print_om(struct wb_om *om, const struct wb_view *v, bool per_sample)
{
	size_t len;
	char *buf;

	if (v && per_sample)
		wb_om_clear(om);
	if (v && wb_om_add(om, v))
		fprintf(stderr, "wbtop: --openmetrics: out of memory\n");
	if (v && !per_sample)
		return;
	if ((buf = wb_om_render(om, WB_OM_OPENMETRICS, &len)))
		fwrite(buf, 1, len, stdout);
	free(buf);
}

/* Headless loop: sample, pipeline, print the view. */
/* Is standard output /dev/null (a headless recorder's usual one: wbtop(1))? Then text, JSON and CSV go unformatted. */
static bool stdout_null(void)
{
	struct stat st;

	return fstat(STDOUT_FILENO, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

static int run_batch(const struct opts *o, struct wb_source *src)
{
	struct wb_pipeline_opts po = { .sets = o->sets, .nsets = o->nsets,
				       .forecast_s = o->forecast };
	struct wb_pipeline *pl = wb_pipeline_create(&po);
	struct wb_sample cur;
	struct timespec next;
	unsigned long dh = 0;
	bool told_hidden = false;
	int rc = 0;
	char err[256];
	struct wb_om *om = o->fmt == FMT_OM ? wb_om_create(src->replay) : NULL;
	bool null_out = stdout_null();

	if (!pl) {
		fprintf(stderr, "wbtop: out of memory\n");
		return 1;
	}
	wb_sample_init(&cur);
	clock_gettime(CLOCK_MONOTONIC, &next);
	if (o->fmt == FMT_CSV)
		wb_out_csv_header(stdout);
	/* a replay from --from: the window the full export had there (rates, forecast) */
	if (src->replay && wb_pipeline_resync(pl, src))
		fprintf(stderr, "wbtop: the recording before --from could not be read\n");
	if (src->warmup && src->read(src->ctx, &cur) == 0) /* context for the first sample's rates */
		wb_pipeline_push(pl, &cur, err, sizeof(err));
	for (long i = 0; !wb_stop && (o->count == 0 || i < o->count); i++) {
		const struct wb_view *v;

		if (i > 0 && !src->replay)
			sleep_until(&next, o->delay);
		if (wb_stop)
			break;
		if (src->read(src->ctx, &cur) != 0) {
			if (src->diag)
				report_diag(src->diag(src->ctx), &dh);
			if (!src->replay) {
				if (i == 0) /* later, the diagnostics above say what ended it */
					fprintf(stderr, "wbtop: no usable kernel files under %s: nothing to show\n", o->root);
				rc = 1;
			}
			break;
		}
		if (src->diag)
			report_diag(src->diag(src->ctx), &dh);
		if (!told_hidden && o->fmt != FMT_TEXT) {
			const char *h[4];
			int nh = wb_level_hidden(cur.level, h, 4);
			for (int j = 0; j < nh; j++)
				fprintf(stderr, "wbtop: %s\n", h[j]);
			told_hidden = true;
		}
		rc = wb_pipeline_push(pl, &cur, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "wbtop: %s\n", rc == -ENOMEM ? "out of memory" : err);
			rc = rc == -ENOMEM ? 1 : 2;
			break;
		}
		v = wb_pipeline_view(pl);
		if (null_out && o->fmt != FMT_OM)
			; /* thrown away: not formatted */
		else if (o->fmt == FMT_JSON)
			wb_out_json(stdout, v);
		else if (o->fmt == FMT_CSV)
			wb_out_csv(stdout, v);
		else if (o->fmt == FMT_OM && om)
			print_om(om, v, !src->replay);
		else if (!o->listen && !o->om_file) /* serving: stdout stays quiet unless asked */
			wb_out_text(stdout, v);
		if (!src->replay)
			fflush(stdout); /* live: each sample as it comes */
		if (ferror(stdout)) {
			if (errno != EPIPE) { /* a closed pipe is the reader's way to say enough */
				fprintf(stderr, "wbtop: writing the output: %s\n", strerror(errno));
				rc = 1;
			}
			break;
		}
	}
	if (om && src->replay)
		print_om(om, NULL, false);
	wb_om_destroy(om);
	wb_sample_finish(&cur);
	wb_pipeline_destroy(pl);
	return rc;
}

/* The UI's source: the live collectors. */
static int live_read(void *ctx, struct wb_sample *s)
{
	wb_live_read(ctx, s);
	return s->level < 0 ? -1 : 0;
}

static const struct wb_diag *live_diag(void *ctx)
{
	return wb_live_diag(ctx);
}

static void live_need_procs(void *ctx, bool on)
{
	wb_live_need_procs(ctx, on);
}

/* The UI needs cursor addressing: refuse TERM=dumb and its kind before curses garbles the screen. */
static int check_terminal(char *err, size_t n)
{
	const char *term = getenv("TERM");
	const char *cup;
	int e = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return 0; /* the UI says it needs a terminal */
	if (setupterm(NULL, STDOUT_FILENO, &e) != OK) {
		snprintf(err, n, "TERM=%s: no such terminal type here; set TERM (e.g. xterm-256color) or use --batch",
			 term ? term : "");
		return -1;
	}
	cup = tigetstr("cup");
	del_curterm(cur_term);
	if (!cup || cup == (char *)-1) {
		snprintf(err, n, "TERM=%s cannot move the cursor: the UI needs a full-screen terminal (use --batch)",
			 term ? term : "");
		return -1;
	}
	return 0;
}

/*
 * The settings file under the command line: a flag left at its default takes
 * the file's value. A malformed file: a warning (stderr and the status line)
 * and the defaults.
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
		fprintf(stderr, "wbtop: %s\n", msg);
		if (uo->notice) { /* both on the status line */
			size_t l = strlen(msg);
			snprintf(msg + l, mn - l, " (and: %s)", uo->notice);
		}
		uo->notice = msg;
	}
	if (!o->theme && cfg->theme[0])
		uo->theme = cfg->theme;
	if (o->delay == 1.0 && cfg->delay > 0)
		uo->delay = cfg->delay;
	if (o->warn == 75 && o->crit == 95 && cfg->warn > 0 && cfg->crit >= cfg->warn) {
		uo->warn_pct = cfg->warn;
		uo->crit_pct = cfg->crit;
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
				 .origin = origin, .cfg = &cfg };
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
	if (rc)
		fprintf(stderr, "wbtop: %s\n", err);
	return rc;
}

/*
 * Parse every --set and check it as the kernel would take the writes, in
 * order, on k: one line per bad value (with tail), so all are seen at once.
 * 0, or 2 (a bad value).
 */
static int check_sets(const struct opts *o, const struct wb_sample *s, const struct wb_limits *lim,
		      struct wb_settings *k, struct wb_setop *ops, const char *tail)
{
	char err[256];
	int bad = 0;

	for (int i = 0; i < o->nsets; i++)
		if (wb_setop_parse(o->sets[i], s, &ops[i], err, sizeof(err)) ||
		    wb_settings_apply(k, lim, s->page_size, &ops[i], err, sizeof(err))) {
			fprintf(stderr, "wbtop: %s%s\n", err, tail);
			bad++;
		}
	return bad ? 2 : 0;
}

/* The knobs as files a person can install: sysctl.d for vm.*, udev rules for BDIs; only if all are valid. */
static int export_sysctl(const struct opts *o, const struct wb_sample *s, const struct wb_limits *lim)
{
	struct wb_setop ops[MAX_SETS];
	struct wb_settings k;
	int rc;

	if (wb_settings_from_sample(&k, s))
		return 1;
	rc = check_sets(o, s, lim, &k, ops, "");
	wb_settings_finish(&k);
	if (rc)
		return rc;
	printf("# wbtop --export-sysctl: install as /etc/sysctl.d/90-writeback.conf\n");
	for (int i = 0; i < o->nsets; i++)
		if (!ops[i].is_bdi)
			printf("%s = %llu\n", ops[i].key, (unsigned long long)ops[i].value);
	printf("\n# per-device knobs: install as /etc/udev/rules.d/90-writeback.rules\n");
	for (int i = 0; i < o->nsets; i++) {
		const struct wb_setop *op = &ops[i];
		const struct wb_bdi *b = op->is_bdi ? wb_sample_bdi(s, op->bdi) : NULL;
		const char *attr = strrchr(op->key, '.') + 1;

		if (!op->is_bdi)
			continue;
		if (b && b->dev[0] && strchr(b->name, ':'))
			printf("ACTION==\"add|change\", SUBSYSTEM==\"block\", KERNEL==\"%s\", ATTR{bdi/%s}=\"%llu\"\n",
			       b->dev, attr, (unsigned long long)op->value);
		else /* a filesystem's own BDI: no block device to match, a boot-time write instead */
			printf("# %s has no block device: echo %llu > /sys/class/bdi/%s/%s after mounting\n", op->bdi,
			       (unsigned long long)op->value, op->bdi, attr);
	}
	return 0;
}

/* One live sample with the model (no tracing, no process table). */
static int one_sample(const struct opts *o, struct wb_sample *s, struct wb_limits *lim, char *err, size_t n)
{
	struct wb_live_opts lo = { .root = o->root };
	struct wb_live *l = wb_live_create(&lo, err, n);

	if (!l)
		return -1;
	wb_live_read(l, s);
	wb_live_destroy(l);
	if (s->level < 0 || wb_model_eval(NULL, s, NULL, NULL, 0, lim) || !lim->valid) {
		snprintf(err, n, "cannot read the kernel's writeback state under %s", o->root);
		return -1;
	}
	return 0;
}

/*
 * Print each threshold, global and per BDI, before -> predicted (-> the
 * kernel's, and the error of the model on the read-back sample's own inputs,
 * which excludes memory drift).
 */
static void report(const struct wb_sample *s, const struct wb_limits *now, const struct wb_limits *pred,
		   const struct wb_sample *after, const struct wb_limits *got)
{
	char a[16], b[16], c[16];
	double P = s->page_size;

	printf("%-16s %10s %10s", "", "now", "predicted");
	if (after)
		printf(" %10s %8s", "kernel", "error");
	printf("\n%-16s %10s %10s", "dirty thresh", wb_fmt_bytes(a, 16, now->thresh * P), wb_fmt_bytes(b, 16, pred->thresh * P));
	if (after)
		printf(" %10s %8lld", wb_fmt_bytes(c, 16, after->g.v[WB_G_DIRTY_THRESH] * P),
		       (long long)(got->thresh - after->g.v[WB_G_DIRTY_THRESH])); /* wraps, never overflows */
	printf("\n%-16s %10s %10s", "background", wb_fmt_bytes(a, 16, now->bg * P), wb_fmt_bytes(b, 16, pred->bg * P));
	if (after)
		printf(" %10s %8lld", wb_fmt_bytes(c, 16, after->g.v[WB_G_BG_THRESH] * P),
		       (long long)(got->bg - after->g.v[WB_G_BG_THRESH]));
	printf("\n");
	for (size_t i = 0; i < pred->nbdis && i < now->nbdis; i++) {
		const struct wb_bdi_limits *x = &now->bdis[i], *y = &pred->bdis[i];
		const struct wb_bdi *k = after ? wb_sample_bdi(after, y->name) : NULL;
		if (x->thresh == y->thresh && !(k && WB_HAS(k->st_valid, WB_B_THRESH) && k->st[WB_B_THRESH] != y->thresh))
			continue;
		printf("%-16s %10s %10s", y->name, wb_fmt_bytes(a, 16, x->thresh * P), wb_fmt_bytes(b, 16, y->thresh * P));
		if (k && WB_HAS(k->st_valid, WB_B_THRESH))
			printf(" %10s %8lld", wb_fmt_bytes(c, 16, k->st[WB_B_THRESH] * P),
			       (long long)(y->thresh - k->st[WB_B_THRESH]));
		if (x->frac_src == WB_FRAC_CAPPED)
			printf("  (its share was hidden by max_ratio: at least this)");
		else if (y->dirty_known && y->wb_dirty >= y->thresh)
			printf("  (more than that is dirty now: its writers will stall)");
		printf("\n");
	}
	if (after)
		printf("(errors in pages, of the model on the read-back inputs; per device the prediction made\n"
		       " before writing, where shares and the kernel's per-CPU counters allow about 32 pages)\n");
}

/* Wait the trial out: keep on "keep", revert on timeout or a signal. */
static bool trial_keep(double secs)
{
	struct timespec end;
	bool tty = isatty(STDIN_FILENO);

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	printf("trial: the old values come back in %.0f s%s (Ctrl-C: now)\n", secs,
	       tty ? " unless you type keep and Enter" : "");
	fflush(stdout);
	while (!wb_stop) {
		struct timespec now;
		fd_set fds;
		struct timeval tv = { 0, 200000 };
		char line[64];

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			return false;
		if (!tty) {
			nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
			continue;
		}
		FD_ZERO(&fds);
		FD_SET(STDIN_FILENO, &fds);
		if (select(STDIN_FILENO + 1, &fds, NULL, NULL, &tv) > 0 && fgets(line, sizeof(line), stdin) &&
		    strncmp(line, "keep", 4) == 0)
			return true;
	}
	return false;
}

/* --set ... --apply [--trial SEC]: validate, predict, journal, write, read back. */
static int run_apply(const struct opts *o)
{
	struct wb_sample s, after;
	struct wb_limits lim, pred, got;
	struct wb_settings k;
	struct wb_setop ops[MAX_SETS];
	struct wb_tune t;
	char err[256];
	int rc = 1;

	wb_sample_init(&s);
	wb_sample_init(&after);
	memset(&pred, 0, sizeof(pred));
	if (one_sample(o, &s, &lim, err, sizeof(err))) {
		fprintf(stderr, "wbtop: %s\n", err);
		return 1;
	}
	if (o->export_sysctl) {
		rc = export_sysctl(o, &s, &lim);
		goto out;
	}
	if (wb_settings_from_sample(&k, &s))
		goto out;
	if (check_sets(o, &s, &lim, &k, ops, "; nothing written")) {
		wb_settings_finish(&k);
		rc = 2;
		goto out;
	}
	wb_model_eval(NULL, &s, &k, &lim, 0, &pred);
	wb_settings_finish(&k);
	if (!o->apply) {
		report(&s, &lim, &pred, NULL, NULL);
		rc = 0;
		goto out;
	}
	if (geteuid() != 0) {
		report(&s, &lim, &pred, NULL, NULL);
		fprintf(stderr, "wbtop: --apply needs root (this is the prediction only); nothing written\n");
		rc = 1;
		goto out;
	}
	if (wb_tune_apply(&t, o->root, ops, o->nsets, err, sizeof(err))) {
		fprintf(stderr, "wbtop: %s\n", err);
		goto out;
	}
	if (one_sample(o, &after, &got, err, sizeof(err)) == 0) {
		report(&s, &lim, &pred, &after, &got);
		wb_limits_finish(&got);
	}
	if (o->trial && !trial_keep(o->trial)) {
		if (wb_tune_revert(&t, err, sizeof(err))) {
			fprintf(stderr, "wbtop: revert: %s (journal kept: %s)\n", err, t.journal);
			goto out;
		}
		printf("reverted: the previous values are back\n");
	} else {
		wb_tune_confirm(&t);
		printf("applied%s\n", o->trial ? " and kept" : "");
	}
	rc = 0;
out:
	wb_limits_finish(&lim);
	wb_limits_finish(&pred);
	wb_sample_finish(&s);
	wb_sample_finish(&after);
	return rc;
}

/*
 * Changes a killed wbtop left unconfirmed: revert, keep, or ask. -1 if a
 * --recover the user asked for could not be done (a damaged journal, a
 * failed revert).
 */
static int recover(const struct opts *o)
{
	struct wb_tune t;
	char err[512], line[16] = "";
	int st = wb_tune_find_stale(&t, err, sizeof(err));
	bool revert;

	if (st < 0)
		fprintf(stderr, "wbtop: %s\n", err);
	if (st <= 0)
		return st < 0 && o->recover ? -1 : 0;
	fprintf(stderr, "wbtop found unconfirmed changes from a previous run (pid %d):\n", t.pid);
	for (int i = 0; i < t.n; i++)
		fprintf(stderr, "  %s: %s (was %s)\n", t.e[i].key, t.e[i].want, t.e[i].orig);
	if (o->recover) {
		revert = strcmp(o->recover, "revert") == 0;
	} else if (isatty(STDIN_FILENO)) {
		fprintf(stderr, "revert? y/n ");
		revert = fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y');
	} else {
		fprintf(stderr, "wbtop: left as they are; run with --recover revert or --recover keep\n");
		return 0;
	}
	if (!revert) {
		wb_tune_confirm(&t);
		fprintf(stderr, "wbtop: kept\n");
	} else if (wb_tune_revert(&t, err, sizeof(err)) == 0) {
		fprintf(stderr, "wbtop: reverted\n");
	} else {
		fprintf(stderr, "wbtop: revert: %s (journal kept: %s)\n", err, t.journal);
		return o->recover ? -1 : 0;
	}
	return 0;
}

/* --replay: the recording as a source, for the UI or an export. */
/* --until-clean: follow one device until it is clean. */
static int run_until(const struct opts *o, struct wb_source *src)
{
	struct wb_until_opts uo = { .dev = o->until, .delay = o->delay, .count = o->count,
				    .bar = !src->replay && isatty(STDOUT_FILENO) };

	return wb_until_clean(&uo, src, stdout);
}

static int run_replay(const struct opts *o)
{
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
	/* wb_replay_create reads a 0 end as "no limit": --to 0 is the first sample's millisecond */
	p = wb_replay_create(r, o->from, o->has_to ? fmax(o->to, 1e-9) : 0);
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

int main(int argc, char **argv)
{
	struct opts o;
	struct wb_live_opts lo;
	struct wb_live *live;
	struct wb_source src;
	struct wb_rec_writer *writer = NULL;
	struct wb_recording *recording = NULL;
	struct wb_http *http = NULL;
	struct wb_om_tap *tap = NULL;
	const char *notice;
	char err[256], served[96];
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	/* a closed pipe (wbtop -b | head) ends the loop through its cleanup;
	 * a crash removes our trace instance (the UI adds the terminal) */
	wb_signals_install();
	wb_signals_at_crash(wb_live_crash_cleanup);
	if (!o.replay && strcmp(o.root, "/") == 0 && geteuid() == 0 && recover(&o))
		return 1;
	if (o.apply || o.export_sysctl)
		return run_apply(&o);
	if (o.replay && o.batch) /* exports write a lot: a larger buffer */
		setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (o.replay)
		return run_replay(&o);
	lo = (struct wb_live_opts){ .root = o.root, .procs = o.procs, .mount_debugfs = o.mount_debugfs,
				    .trace = o.trace };
	live = wb_live_create(&lo, err, sizeof(err));
	if (!live) {
		fprintf(stderr, "wbtop: %s\n", err);
		return 1;
	}
	{
		const struct wb_diag *n = wb_live_notes(live);
		/* in the UI the first one goes to the status line instead */
		for (int i = 0; o.batch && i < n->n; i++)
			fprintf(stderr, "wbtop: %s\n", n->msg[i]);
		notice = !o.batch && n->n ? n->msg[0] : NULL;
	}
	/* a recording always needs the process table (and would wrap ctx) */
	src = (struct wb_source){ .ctx = live, .read = live_read, .diag = live_diag,
				  .need_procs = o.record ? NULL : live_need_procs };
	if (o.record) {
		struct wb_rec_header h;

		wb_rec_header_local(&h, o.delay);
		writer = wb_rec_start(o.record, &h, o.max_size, o.force ? WB_REC_REPLACE : 0, err, sizeof(err));
		if (!writer || !(recording = wb_recording_create(&src, writer))) {
			fprintf(stderr, "wbtop: --record: %s\n", writer ? "out of memory" : err);
			wb_rec_close(writer);
			wb_live_destroy(live);
			return 1;
		}
		wb_recording_source(recording, &src);
		if (o.batch) /* a recorder that records nothing must not run on (wbtop(1), EXIT STATUS) */
			wb_recording_stop_on_error(recording);
	}
	if (o.listen || o.om_file) { /* the endpoint and the textfile: one more sink on the source */
		if (o.listen && !(http = wb_http_start(o.listen, err, sizeof(err)))) {
			fprintf(stderr, "wbtop: %s\n", err);
			rc = 2;
			goto out;
		}
		if (!(tap = wb_om_tap_create(&src, o.om_file, http ? wb_http_publish : NULL, http))) {
			rc = 1;
			goto out;
		}
		wb_om_tap_source(tap, &src);
		snprintf(served, sizeof(served), "serving http://%s/metrics", http ? wb_http_address(http) : "");
		if (http && o.batch)
			fprintf(stderr, "wbtop: %s\n", served);
		else if (http && !notice) /* the UI says it on its status line */
			notice = served;
	}
	rc = o.until ? run_until(&o, &src) : o.batch ? run_batch(&o, &src) : run_ui(&o, &src, notice, NULL);
	if (wb_recording_error(recording)) { /* the UI went on sampling; batch has said it already */
		if (!o.batch)
			fprintf(stderr, "wbtop: recording stopped: %s\n", wb_recording_error(recording));
		rc = rc ? rc : 1;
	}
out:
	wb_http_stop(http); /* before the tap: no scrape outlives the sample it serves */
	wb_om_tap_destroy(tap);
	wb_recording_destroy(recording);
	wb_rec_close(writer);
	wb_live_destroy(live);
	return rc;
}
