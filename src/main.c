// SPDX-License-Identifier: GPL-2.0-or-later
/* wbtop: command line -> source, sinks, run loop. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "wbtop/apply.h"
#include "wbtop/env.h"
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

#include "cli.h"

#include <curses.h> /* last: term.h's capability macros (lines, columns...) would rename our words */
#include <term.h>

/*
 * --batch: the headless loop with this command line's choices. Its text is quiet
 * beside the metrics, and a recorder's to a closed standard output goes unread
 * as to /dev/null: the recording is its output, the text only what a batch
 * prints unasked (--json, --csv or --openmetrics there is asked for, and fails
 * as closed).
 */
static int run_batch(const struct cli_opts *o, struct wb_source *src)
{
	struct wb_headless_opts ho = { .fmt = o->fmt, .count = o->count, .delay = o->delay, .root = o->root,
				       .quiet_text = o->listen || o->om_file,
				       .text_unread = o->record && o->stdout_closed && o->fmt == WB_FMT_TEXT,
				       .sets = o->sets, .nsets = o->nsets,
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
static void ui_settings(struct wb_ui_opts *uo, const struct cli_opts *o, struct wb_config *cfg, char *path,
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
	if (!(o->typed & CLI_F(CLI_O_THEME)) && cfg->theme[0])
		uo->theme = cfg->theme;
	if (!(o->typed & CLI_F(CLI_O_DELAY)) && cfg->delay > 0)
		uo->delay = cfg->delay;
	if (!(o->typed & CLI_F(CLI_O_WARN)) && cfg->warn > 0)
		uo->warn_pct = cfg->warn;
	if (!(o->typed & CLI_F(CLI_O_CRIT)) && cfg->crit > 0)
		uo->crit_pct = cfg->crit;
	if (uo->warn_pct > uo->crit_pct) { /* the file's value against a typed one: the command line's pair */
		if (!uo->notice) { /* said, as a bad line would be */
			/* each named where it came from: "warn 92" was --warn 92 against the file's crit */
			bool tw = o->typed & CLI_F(CLI_O_WARN), tc = o->typed & CLI_F(CLI_O_CRIT);
			snprintf(msg, mn, "%.300s: %s %g is above %s %g; %g and %g used", path,
				 tw ? "--warn" : "warn", uo->warn_pct, tw ? "its crit" : tc ? "--crit" : "crit",
				 uo->crit_pct, o->warn, o->crit);
			fprintf(stderr, "wbtop: %s\n", msg);
			uo->notice = msg;
		}
		uo->warn_pct = o->warn;
		uo->crit_pct = o->crit;
	}
}

/* The curses UI on src: the terminal checked, themes looked up, the settings file under the command line. */
static int run_ui(const struct cli_opts *o, struct wb_source *src, const char *notice, const char *origin)
{
	char user_dir[512], err[256], cpath[4096], cmsg[512], envw[256];
	struct wb_config cfg;

	/* stderr's lines before the screen are seen only after quitting: the first on the status line */
	if (!notice && wb_env_first_warning(envw, sizeof(envw)))
		notice = envw;
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	const char *dirs[] = { user_dir, WBTOP_THEMES_DIR, WBTOP_SRC_THEMES_DIR, NULL };
	struct wb_ui_opts uo = { .delay = o->delay, .theme = o->theme, .theme_dirs = dirs, .warn_pct = o->warn,
				 .crit_pct = o->crit, .sets = o->sets, .nsets = o->nsets, .notice = notice,
				 .apply = src->replay || strcmp(o->root, "/") != 0 ? WB_UI_APPLY_NONE
					  : geteuid() == 0 ? WB_UI_APPLY_LIVE : WB_UI_APPLY_NOT_ROOT,
				 .origin = origin, .cfg = &cfg, .sinks = o->sinks, .nsinks = o->nsinks,
				 .record = o->rec_sink ? o->record : NULL, .record_sink = o->rec_sink };
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
static int run_until(const struct cli_opts *o, struct wb_source *src)
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
static int clock_range(const struct cli_opts *o, struct wb_rec_reader *r, double *from, double *to)
{
	struct wb_sample s;
	char err[256], a[16], b[16], q[WB_QUOTE_LEN]; /* --from/--to clock times are digits and ':' (cli.c) */
	size_t n = wb_rec_count(r);
	double len, wall;

	*from = o->from;
	*to = o->to;
	if (!o->from_clock && !o->to_clock)
		return 0;
	wb_sample_init(&s);
	if (!n || wb_rec_read(r, 0, &s, err, sizeof(err))) {
		fprintf(stderr, "wbtop: %s: no first sample to put a clock time on%s%s\n",
			wb_quote(o->replay, q, sizeof(q)), n ? ": " : "", n ? err : "");
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
		/* past the last sample nothing is left: say so with the time typed, not the clamped seconds */
		if (text && !k && *t > len + 0.0005) {
			fprintf(stderr, "wbtop: %s: no samples from %s on: the recording runs %s to %s\n",
				wb_quote(o->replay, q, sizeof(q)), text, wb_fmt_clock(wall, "%H:%M:%S", a, sizeof(a)),
				wb_fmt_clock(wall + len, "%H:%M:%S", b, sizeof(b)));
			return 1;
		}
		/* --to a clock time takes its whole second (minute): samples fall at .196, and
		 * --from 23:18:11 --to 23:18:11 matched none */
		if (text && k)
			*t += (strchr(strchr(text, ':') + 1, ':') ? 1 : 60) - 0.001;
		/* before the first sample nothing is: said, not clamped to it (0 is "the first sample") */
		if (text && k && *t < 0) {
			fprintf(stderr, "wbtop: %s: no samples up to %s: the recording runs %s to %s\n",
				wb_quote(o->replay, q, sizeof(q)), text, wb_fmt_clock(wall, "%H:%M:%S", a, sizeof(a)),
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
static int run_replay(const struct cli_opts *o)
{
	double from, to;
	char err[256], warn[256], q[WB_QUOTE_LEN];
	struct wb_rec_reader *r = wb_rec_open(o->replay, err, sizeof(err), warn, sizeof(warn));
	const char *name = wb_quote(o->replay, q, sizeof(q));
	struct wb_replay *p;
	struct wb_source src;
	int rc;

	if (!r) {
		fprintf(stderr, "wbtop: %s: %s\n", name, err);
		return 1;
	}
	if (warn[0] && o->batch)
		fprintf(stderr, "wbtop: %s: %s\n", name, warn);
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
			fprintf(stderr, "wbtop: %s: %s\n", name, warn);
		fprintf(stderr, "wbtop: %s: %s\n", name, err);
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

/* Is path (option opt's FILE) also standard output or error? true with a message ("not <what>"). */
static bool std_clash(const char *opt, const char *path, const char *what)
{
	static const char *const std_name[] = { "standard output", "standard error" };
	char q[WB_QUOTE_LEN];

	for (int fd = 1; fd <= 2; fd++)
		if (wb_fd_is_path(fd, path)) {
			fprintf(stderr, "wbtop: %s %s is also %s: not %s (send that elsewhere, such as /dev/null)\n",
				opt, wb_quote(path, q, sizeof(q)), std_name[fd - 1], what);
			return true;
		}
	return false;
}

/*
 * The --record and --openmetrics-file FILEs against standard output and
 * error and each other, before anything is sampled: true with a message.
 * Standard output or error to the --record file put their lines among its
 * frames (a damaged file); to the textfile, or the --record file as the
 * textfile, the first sample's rename leaves them (or the recording) in the
 * replaced, unlinked file: lost, growing unseen.
 */
static bool outputs_clash(const struct cli_opts *o)
{
	char q[WB_QUOTE_LEN];

	if ((o->record && std_clash("--record", o->record, "recorded")) ||
	    (o->om_file && std_clash("--openmetrics-file", o->om_file, "written")))
		return true;
	if (o->record && o->om_file && wb_paths_same(o->record, o->om_file)) {
		fprintf(stderr, "wbtop: --openmetrics-file %s is also the --record file: not recorded (give each "
			"its own file)\n", wb_quote(o->om_file, q, sizeof(q)));
		return true;
	}
	/* a rotation renames the recording onto FILE.1, and the next sample's textfile over it */
	if (o->record && o->om_file && o->max_size) {
		char old[4096];

		if (wb_rec_rotated_path(o->record, old, sizeof(old)) && wb_paths_same(old, o->om_file)) {
			fprintf(stderr, "wbtop: --openmetrics-file %s is where --max-size moves the --record file: "
				"not recorded (give each its own file)\n", wb_quote(o->om_file, q, sizeof(q)));
			return true;
		}
	}
	return false;
}

/* --record: the writer and the recorder, the pipeline's sink in o. 0, or 1 with a message. */
static int start_recorder(const struct cli_opts *o, struct wb_rec_writer **w, struct wb_recorder **rec,
			  struct wb_pipeline_sink *sink)
{
	struct wb_rec_header h;
	char err[256];

	wb_rec_header_root(&h, o->delay, o->root); /* a --root tree's samples are not this boot's */
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
 * --listen, --openmetrics-file: the endpoint and the textfile on the source.
 * 0, or the exit code with a message.
 */
static int start_metrics(const struct cli_opts *o, struct wb_http **http, struct wb_om_sink **om,
			 struct wb_pipeline_sink *sink)
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
	return 0;
}

/* The endpoint's "serving" line into served: to stderr (batch), or the UI's status line (*notice). */
static void say_served(const struct cli_opts *o, const struct wb_http *http, const char **notice, char *served,
		       size_t n)
{
	if (!http)
		return;
	snprintf(served, n, "serving http://%s/metrics", wb_http_address(http));
	if (o->batch)
		fprintf(stderr, "wbtop: %s\n", served);
	else if (!*notice) /* the UI says it on its status line */
		*notice = served;
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
static int run_live(struct cli_opts *o)
{
	struct wb_live_opts lo = { .root = o->root, .procs = o->procs, .mount_debugfs = o->mount_debugfs,
				   .trace = o->trace };
	struct wb_source src;
	struct wb_rec_writer *writer = NULL;
	struct wb_recorder *recorder = NULL;
	struct wb_http *http = NULL;
	struct wb_om_sink *om = NULL;
	struct wb_pipeline_sink rec_sink, om_sink, sinks[2]; /* the recorder, the metrics */
	size_t nsinks = 0;
	const struct wb_diag *notes;
	const char *notice;
	char err[256], served[96], why[512];
	bool late;

	if (outputs_clash(o))
		return 1;
	/* a FIFO, a socket, a directory or a device: a bad --record, said before anything is sampled, served or made */
	if (o->record && wb_rec_check_path(o->record, why, sizeof(why))) {
		fprintf(stderr, "wbtop: --record %s\n", why);
		return 2;
	}
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
	/* the metrics first: a textfile or an address refused (exit 2) leaves no recording begun */
	if ((o->listen || o->om_file) && (rc = start_metrics(o, &http, &om, &om_sink)))
		goto out;
	if (o->record && start_recorder(o, &writer, &recorder, &rec_sink)) {
		rc = 1;
		goto out;
	}
	say_served(o, http, &notice, served, sizeof(served));
	if (recorder) {
		sinks[nsinks] = rec_sink;
		o->rec_sink = &sinks[nsinks++];
	}
	if (om)
		sinks[nsinks++] = om_sink;
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
static int empty_names(const struct cli_opts *o)
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

/* Standard fds held, the command line parsed; then the one-shot tuning mode, a replay or the live kernel. */
int main(int argc, char **argv)
{
	struct cli_opts o;
	struct wb_apply_opts ao;
	int rc, held;

	if ((held = wb_std_fds_hold()) < 0) { /* stderr may be the one closed: the exit code says it */
		fprintf(stderr, "wbtop: /dev/null for a closed standard descriptor: %s\n", strerror(-held));
		return 1;
	}
	if ((rc = wb_cli_parse(argc, argv, &o)))
		return flushed(rc < 0 ? 0 : rc);
	o.stdout_closed = held & 1 << STDOUT_FILENO;
	wb_env_warn(stderr); /* said, and the default used: a typo there used to change nothing unseen */
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
