// SPDX-License-Identifier: GPL-2.0-or-later
/* wbtop: command line -> source, sinks, run loop. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sys/select.h>
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
		"  -n, --iterations N     stop after N samples (batch default: 1)\n"
		"  -d, --delay SEC        seconds between samples (default 1, min 0.05)\n"
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
		"      --forecast SEC     add the model's forecast for the next SEC seconds\n"
		"                         (1 s steps; with --set, also under the new settings)\n"
		"      --mount-debugfs    mount debugfs and tracefs if absent (root); unmounted\n"
		"                         on exit\n"
		"      --no-trace         do not use tracepoints (level 3)\n"
		"      --no-procs         do not read the process table\n"
		"      --theme NAME|PATH  UI colours: default, light, mono, high-contrast or a\n"
		"                         .theme file (NO_COLOR selects mono)\n"
		"      --warn PCT         UI: highlight devices from PCT %% of their threshold (75)\n"
		"      --crit PCT         UI: critical from PCT %% (95) or when writers are throttled\n"
		"      --record FILE      also record every sample to FILE (.wbrec; UI or --batch)\n"
		"      --max-size SIZE    with --record: past SIZE (e.g. 100M) move FILE to FILE.1\n"
		"                         and start a new one\n"
		"      --force            with --record: replace FILE even if it is not a recording\n"
		"                         of this boot (which is appended to)\n"
		"      --replay FILE      replay a recording in the UI; with --batch: export it\n"
		"      --from SEC, --to SEC  with --replay: seconds from the recording's start\n"
		"      --apply            write the --set values to the kernel (root): journaled,\n"
		"                         read back and compared with the prediction\n"
		"      --trial SEC        with --apply: put the old values back after SEC seconds\n"
		"                         unless you type keep (Ctrl-C reverts at once)\n"
		"      --recover revert|keep  what to do with changes a killed wbtop left unconfirmed\n"
		"      --export-sysctl    print the --set values as a sysctl.d snippet and udev rules\n"
		"      --until-clean DEV  follow DEV (loop0, 7:0, /dev/sdb1 or a mount point) until\n"
		"                         nothing on it is dirty or under writeback: exit 0 when\n"
		"                         clean (root and debugfs; a progress bar on a terminal)\n"
		"      --root DIR         read kernel files under DIR (fixture trees)\n"
		"  -h, --help             this text\n"
		"  -V, --version          version\n");
}

/* Parse the command line; returns 0, or the exit code to leave with. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	enum { O_JSON = 256, O_CSV, O_SET, O_MOUNT, O_NOPROCS, O_ROOT, O_FORECAST, O_THEME, O_WARN, O_CRIT, O_NOTRACE,
	       O_RECORD, O_REPLAY, O_FROM, O_TO, O_MAXSIZE, O_FORCE, O_APPLY, O_TRIAL, O_RECOVER, O_EXPORT, O_UNTIL,
	       O_OM, O_LISTEN, O_OMFILE };
	static const struct option lo[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, O_JSON },
		{ "csv", no_argument, NULL, O_CSV },
		{ "openmetrics", no_argument, NULL, O_OM },
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "openmetrics-file", required_argument, NULL, O_OMFILE },
		{ "set", required_argument, NULL, O_SET },
		{ "mount-debugfs", no_argument, NULL, O_MOUNT },
		{ "no-procs", no_argument, NULL, O_NOPROCS },
		{ "no-trace", no_argument, NULL, O_NOTRACE },
		{ "record", required_argument, NULL, O_RECORD },
		{ "replay", required_argument, NULL, O_REPLAY },
		{ "from", required_argument, NULL, O_FROM },
		{ "to", required_argument, NULL, O_TO },
		{ "max-size", required_argument, NULL, O_MAXSIZE },
		{ "force", no_argument, NULL, O_FORCE },
		{ "apply", no_argument, NULL, O_APPLY },
		{ "trial", required_argument, NULL, O_TRIAL },
		{ "recover", required_argument, NULL, O_RECOVER },
		{ "export-sysctl", no_argument, NULL, O_EXPORT },
		{ "until-clean", required_argument, NULL, O_UNTIL },
		{ "root", required_argument, NULL, O_ROOT },
		{ "forecast", required_argument, NULL, O_FORECAST },
		{ "theme", required_argument, NULL, O_THEME },
		{ "warn", required_argument, NULL, O_WARN },
		{ "crit", required_argument, NULL, O_CRIT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;
	char *end;

	*o = (struct opts){ .count = -1, .delay = 1.0, .root = "/", .procs = true, .trace = true, .warn = 75, .crit = 95 };
	while ((c = getopt_long(argc, argv, "bn:d:hV", lo, NULL)) != -1) {
		switch (c) {
		case 'b': o->batch = true; break;
		case 'n':
			errno = 0;
			o->count = strtol(optarg, &end, 10);
			if (errno || *end || o->count < 0) {
				fprintf(stderr, "wbtop: -n %s: expected a whole number >= 0\n", optarg);
				return 2;
			}
			break;
		case 'd':
			o->delay = strtod(optarg, &end);
			if (*end || !isfinite(o->delay) || o->delay < 0.05 || o->delay > 86400) {
				fprintf(stderr, "wbtop: -d %s: expected seconds between 0.05 and 86400\n", optarg);
				return 2;
			}
			break;
		case O_JSON: o->fmt = FMT_JSON; break;
		case O_CSV: o->fmt = FMT_CSV; break;
		case O_OM: o->fmt = FMT_OM; break;
		case O_LISTEN: {
			struct sockaddr_storage ss;
			socklen_t len;
			char err[256];
			if (wb_http_parse_addr(optarg, &ss, &len, err, sizeof(err))) {
				fprintf(stderr, "wbtop: %s\n", err);
				return 2;
			}
			o->listen = optarg;
			break;
		}
		case O_OMFILE: o->om_file = optarg; break;
		case O_SET:
			if (o->nsets >= MAX_SETS) {
				fprintf(stderr, "wbtop: at most %d --set options\n", MAX_SETS);
				return 2;
			}
			o->sets[o->nsets++] = optarg;
			break;
		case O_MOUNT: o->mount_debugfs = true; break;
		case O_NOPROCS: o->procs = false; break;
		case O_NOTRACE: o->trace = false; break;
		case O_RECORD: o->record = optarg; break;
		case O_FORCE: o->force = true; break;
		case O_APPLY: o->apply = true; break;
		case O_EXPORT: o->export_sysctl = true; break;
		case O_UNTIL: o->until = optarg; break;
		case O_TRIAL:
			o->trial = strtod(optarg, &end);
			if (*end || !isfinite(o->trial) || o->trial < 1 || o->trial > 3600) {
				fprintf(stderr, "wbtop: --trial %s: expected seconds between 1 and 3600\n", optarg);
				return 2;
			}
			break;
		case O_RECOVER:
			if (strcmp(optarg, "revert") && strcmp(optarg, "keep")) {
				fprintf(stderr, "wbtop: --recover %s: expected revert or keep\n", optarg);
				return 2;
			}
			o->recover = optarg;
			break;
		case O_REPLAY: o->replay = optarg; break;
		case O_FROM:
		case O_TO: {
			double v = strtod(optarg, &end);
			if (*end || !isfinite(v) || v < 0) {
				fprintf(stderr, "wbtop: %s %s: expected seconds from the recording's start\n",
					c == O_FROM ? "--from" : "--to", optarg);
				return 2;
			}
			*(c == O_FROM ? &o->from : &o->to) = v;
			break;
		}
		case O_MAXSIZE: {
			unsigned long long v = strtoull(optarg, &end, 10);
			uint64_t mul = *end == 'K' ? 1ULL << 10 : *end == 'M' ? 1ULL << 20 : *end == 'G' ? 1ULL << 30 : 1;
			if (mul > 1)
				end++;
			if (*end || v == 0 || v > (1ULL << 50) / mul) {
				fprintf(stderr, "wbtop: --max-size %s: expected a size such as 100M\n", optarg);
				return 2;
			}
			o->max_size = v * mul;
			break;
		}
		case O_ROOT: o->root = optarg; break;
		case O_THEME: o->theme = optarg; break;
		case O_WARN:
		case O_CRIT: {
			double v = strtod(optarg, &end);
			if (*end || !isfinite(v) || v <= 0 || v > 1000) {
				fprintf(stderr, "wbtop: %s %s: expected a percentage above 0\n",
					c == O_WARN ? "--warn" : "--crit", optarg);
				return 2;
			}
			*(c == O_WARN ? &o->warn : &o->crit) = v;
			break;
		}
		case O_FORECAST:
			o->forecast = strtod(optarg, &end);
			if (*end || !isfinite(o->forecast) || o->forecast < 1 || o->forecast > 3600) {
				fprintf(stderr, "wbtop: --forecast %s: expected seconds between 1 and 3600\n", optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return -1;
		case 'V': printf("wbtop %s\n", WBTOP_VERSION); return -1;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "wbtop: unexpected argument \"%s\" (see --help)\n", argv[optind]);
		return 2;
	}
	if ((o->apply || o->trial || o->export_sysctl) && o->nsets == 0) {
		fprintf(stderr, "wbtop: --apply, --trial and --export-sysctl need --set KEY=VALUE\n");
		return 2;
	}
	if (o->trial)
		o->apply = true;
	if (o->record && o->replay) {
		fprintf(stderr, "wbtop: --record and --replay go separately\n");
		return 2;
	}
	if (o->force && !o->record) {
		fprintf(stderr, "wbtop: --force goes with --record\n");
		return 2;
	}
	if ((o->from || o->to) && !o->replay) {
		fprintf(stderr, "wbtop: --from and --to go with --replay\n");
		return 2;
	}
	if (o->to && o->to < o->from) {
		fprintf(stderr, "wbtop: --to %g is before --from %g\n", o->to, o->from);
		return 2;
	}
	if (o->fmt != FMT_TEXT && !o->batch) {
		fprintf(stderr, "wbtop: --json, --csv and --openmetrics go with --batch\n");
		return 2;
	}
	if ((o->listen || o->om_file) && (o->replay || o->apply || o->export_sysctl)) {
		fprintf(stderr, "wbtop: --listen and --openmetrics-file show the live kernel: not with --replay, --apply or --export-sysctl\n");
		return 2;
	}
	if (o->until && (o->fmt != FMT_TEXT || o->nsets || o->forecast || o->record || o->theme)) {
		fprintf(stderr, "wbtop: --until-clean goes alone (with -d, -n, --replay, --root, --mount-debugfs)\n");
		return 2;
	}
	if (o->until)
		o->batch = true;
	if (o->count < 0)
		o->count = o->batch && !o->replay && !o->until ? 1 : 0;
	if (o->warn > o->crit) {
		fprintf(stderr, "wbtop: --warn %g is above --crit %g\n", o->warn, o->crit);
		return 2;
	}
	return 0;
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
		if (o->fmt == FMT_JSON)
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

static int run_ui(const struct opts *o, struct wb_source *src, const char *notice)
{
	char user_dir[512], err[256];
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	const char *dirs[] = { user_dir, WBTOP_THEMES_DIR, WBTOP_SRC_THEMES_DIR, NULL };
	struct wb_ui_opts uo = { .delay = o->delay, .theme = o->theme, .theme_dirs = dirs, .warn_pct = o->warn,
				 .crit_pct = o->crit, .sets = o->sets, .nsets = o->nsets, .notice = notice,
				 .can_apply = !src->replay && strcmp(o->root, "/") == 0 };
	int rc;

	if (xdg && *xdg)
		snprintf(user_dir, sizeof(user_dir), "%s/wbtop/themes", xdg);
	else
		snprintf(user_dir, sizeof(user_dir), "%s/.config/wbtop/themes", home ? home : "/");
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
		       (long long)got->thresh - (long long)after->g.v[WB_G_DIRTY_THRESH]);
	printf("\n%-16s %10s %10s", "background", wb_fmt_bytes(a, 16, now->bg * P), wb_fmt_bytes(b, 16, pred->bg * P));
	if (after)
		printf(" %10s %8lld", wb_fmt_bytes(c, 16, after->g.v[WB_G_BG_THRESH] * P),
		       (long long)got->bg - (long long)after->g.v[WB_G_BG_THRESH]);
	printf("\n");
	for (size_t i = 0; i < pred->nbdis && i < now->nbdis; i++) {
		const struct wb_bdi_limits *x = &now->bdis[i], *y = &pred->bdis[i];
		const struct wb_bdi *k = after ? wb_sample_bdi(after, y->name) : NULL;
		if (x->thresh == y->thresh && !(k && WB_HAS(k->st_valid, WB_B_THRESH) && k->st[WB_B_THRESH] != y->thresh))
			continue;
		printf("%-16s %10s %10s", y->name, wb_fmt_bytes(a, 16, x->thresh * P), wb_fmt_bytes(b, 16, y->thresh * P));
		if (k && WB_HAS(k->st_valid, WB_B_THRESH))
			printf(" %10s %8lld", wb_fmt_bytes(c, 16, k->st[WB_B_THRESH] * P),
			       (long long)y->thresh - (long long)k->st[WB_B_THRESH]);
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
	p = wb_replay_create(r, o->from, o->to);
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
		wb_replay_source(p, &src);
		rc = o->until ? run_until(o, &src) : o->batch ? run_batch(o, &src) : run_ui(o, &src, warn[0] ? warn : NULL);
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
	rc = o.until ? run_until(&o, &src) : o.batch ? run_batch(&o, &src) : run_ui(&o, &src, notice);
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
