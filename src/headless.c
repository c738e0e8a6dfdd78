// SPDX-License-Identifier: GPL-2.0-or-later
/* The headless loop (--batch): samples from a source through the pipeline, each view printed. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "wbtop/headless.h"
#include "wbtop/openmetrics.h"
#include "wbtop/out.h"
#include "wbtop/pipeline.h"
#include "wbtop/relay.h"
#include "wbtop/signals.h"
#include "wbtop/util.h"

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

/* Is standard output /dev/null (a headless recorder's usual one: wbtop(1))? Then text, JSON and CSV go unformatted. */
static bool stdout_null(void)
{
	struct stat st;

	/* read-only: a closed stdout held (wb_std_fds_hold), whose writes must fail */
	return fstat(STDOUT_FILENO, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3) &&
	       (fcntl(STDOUT_FILENO, F_GETFL) & O_ACCMODE) != O_RDONLY;
}

/*
 * Where a replay's exposition waits for its end: $TMPDIR, else (unset or
 * empty) /tmp. A relative TMPDIR is from the current directory, as
 * mktemp(1) and mkstemp's callers take it (it was ignored: /tmp); named
 * whole here, so the messages say which directory it was.
 */
static const char *om_tmpdir(void)
{
	static char whole[4096];
	char cwd[4096];
	const char *d = getenv("TMPDIR");

	if (!d || !d[0])
		return "/tmp";
	if (d[0] == '/')
		return d;
	if (!getcwd(cwd, sizeof(cwd)) || snprintf(whole, sizeof(whole), "%s/%s", cwd, d) >= (int)sizeof(whole))
		return d; /* opened as it is: from the current directory all the same */
	return whole;
}

/*
 * --openmetrics: live, one exposition per sample (v); a replay collects every
 * sample with its time and prints one exposition at the end (v NULL). The
 * replay's collection spills to a temporary file (wb_om_spill_to): a family's
 * series must be together, so nothing can be printed before the end, and in
 * memory a long recording took ~2x its exposition (945 MB for 22,500 samples).
 * 0, or 1 with the problem said.
 */
static int print_om(struct wb_om *om, const struct wb_view *v, bool per_sample)
{
	int e;

	if (v && per_sample)
		wb_om_clear(om);
	if (v && (e = wb_om_add(om, v))) {
		if (e == -ENOMEM)
			fprintf(stderr, "wbtop: --openmetrics: out of memory\n");
		else
			fprintf(stderr, "wbtop: --openmetrics: the temporary file in %s that holds the exposition until "
				"the end: %s (TMPDIR names another directory)\n", om_tmpdir(), strerror(-e));
		if (!per_sample) /* live, the next sample may do; a backfill with a hole would not */
			return 1;
	}
	if (v && !per_sample)
		return 0;
	if ((e = wb_om_write(om, WB_OM_OPENMETRICS, stdout))) {
		fprintf(stderr, "wbtop: --openmetrics: reading back the temporary file in %s: %s\n", om_tmpdir(),
			strerror(-e));
		return 1;
	}
	return 0;
}

/* When sample s was taken, for a message: its clock time, else seconds. */
static void sample_at(const struct wb_sample *s, char *at, size_t n)
{
	if (isfinite(s->wall))
		wb_fmt_clock(s->wall, "%H:%M:%S", at, n);
	else
		snprintf(at, n, "%.1f s", s->mono);
}

/*
 * The --set list held for the samples before and no longer does, or holds
 * (again): the settings moved under it (someone wrote a knob, live or in the
 * recording), or a replay's device came. Said once each way; the samples go
 * on without the what-if - stopping there ended a recording and a replay's
 * output halfway (a max_ratio what-if below a min_ratio the recording raises
 * later).
 */
static void whatif_moved(const struct wb_sample *s, int rc, const char *err, bool *off, bool *held)
{
	char at[32];

	sample_at(s, at, sizeof(at));
	if (rc)
		fprintf(stderr, "wbtop: from %s the what-if no longer applies: %s (the samples go on without it)\n",
			at, err);
	else
		fprintf(stderr, "wbtop: from %s the what-if applies%s\n", at, *held ? " again" : "");
	*off = rc != 0;
	*held = *held || rc == 0;
}

/*
 * A replay whose first sample (first) lacks a device the --set list names:
 * a device plugged in while recording comes later, as it would live. Looks
 * ahead for the first sample that has them all and puts the source back
 * where it was. 0 with err saying from when the what-if can apply; -EINVAL
 * with err naming a device no sample replayed has; -EINTR when stopped
 * (Ctrl-C) meanwhile.
 */
static int late_devices(struct wb_pipeline *pl, const struct wb_headless_opts *o, struct wb_source *src,
			const struct wb_sample *first, char *err, size_t n)
{
	uint64_t missing = 0; /* the entries whose device no sample has had yet */
	int nsets = o->nsets, nmiss = 0, one = 0;
	struct wb_sample s;
	size_t i0, i1, cnt;
	double t, len;
	char at[32] = "", q[WB_QUOTE_LEN];
	int rc = -EINVAL;

	for (int j = 0; j < nsets && j < 64; j++)
		if (wb_pipeline_set_absent(pl, j, first)) {
			missing |= 1ull << j;
			one = nmiss++ ? one : j;
		}
	if (!missing || !src->where || !src->rewind)
		return -EINVAL; /* another refusal: err says it */
	src->where(src->ctx, &t, &len, &i0, &cnt);
	wb_sample_init(&s);
	while (rc && !wb_stop && src->read(src->ctx, &s) == 0) {
		bool all = true;

		if (src->diag) /* seen, not said: the replay's own read of it says it */
			src->diag(src->ctx);
		for (int j = 0; j < nsets && j < 64; j++) {
			if (wb_pipeline_set_absent(pl, j, &s))
				all = false;
			else
				missing &= ~(1ull << j);
		}
		if (all) {
			sample_at(&s, at, sizeof(at));
			rc = 0;
		}
	}
	wb_sample_finish(&s);
	src->where(src->ctx, &t, &len, &i1, &cnt);
	src->rewind(src->ctx, i1 - i0);
	if (rc && wb_stop)
		return -EINTR;
	for (int j = 0; rc && j < nsets && j < 64; j++)
		if (missing & 1ull << j) {
			wb_pipeline_absent_msg(pl, j, first, "in any sample replayed", "the first", err, n);
			return rc;
		}
	if (rc)
		snprintf(err, n, "the devices the --set list names are never in one sample replayed");
	else if (nmiss == 1)
		snprintf(err, n, "--set %s: its device is not in the recording before %s: the samples before go "
			 "without the what-if", wb_quote(o->sets[one], q, sizeof(q)), at);
	else
		snprintf(err, n, "--set: %d of its entries name a device not in the recording before %s: the samples "
			 "before go without the what-if", nmiss, at);
	return rc;
}

/* Whether sample s lacks a device the --set list names. */
static bool sets_absent(const struct wb_pipeline *pl, int nsets, const struct wb_sample *s)
{
	for (int j = 0; j < nsets; j++)
		if (wb_pipeline_set_absent(pl, j, s))
			return true;
	return false;
}

/* The what-if over a headless run: off (the samples go on without it), held at some sample, waiting for devices. */
struct whatif_state {
	bool off, held, late;
};

/*
 * After sample i's push (rc): what the --set list's what-if does now, said
 * when it moves. The push's -EINVAL becomes 0 while the samples go on without
 * it; at the first sample it stays (exit 2) unless all that is wrong is a
 * replay's device that comes later.
 */
static int whatif_track(struct whatif_state *w, struct wb_pipeline *pl, const struct wb_headless_opts *o,
			struct wb_source *src, const struct wb_sample *cur, long i, int rc, char *err, size_t n)
{
	char at[32];
	int e;

	if (i == 0) {
		w->held = rc == 0;
		if (rc != -EINVAL || !src->replay || !sets_absent(pl, o->nsets, cur))
			return rc;
		if ((e = wb_pipeline_check_present(pl, err, n))) /* another entry is wrong: that, not the device */
			return e;
		if ((e = late_devices(pl, o, src, cur, err, n)) == -EINVAL)
			return e;
		if (e == 0)
			fprintf(stderr, "wbtop: %s\n", err);
		w->off = w->late = true;
		return 0;
	}
	if (w->late && !sets_absent(pl, o->nsets, cur)) { /* the devices came: said whether it applies */
		w->late = false;
		if (rc == -EINVAL) {
			sample_at(cur, at, sizeof(at));
			fprintf(stderr, "wbtop: from %s the what-if does not apply: %s (the samples go on without it)\n",
				at, err);
			return 0;
		}
	}
	if ((rc == -EINVAL) != w->off)
		whatif_moved(cur, rc, err, &w->off, &w->held);
	return rc == -EINVAL && w->off ? 0 : rc;
}

/* A CSV row, the header (and --csv-units' line) over the first: a run refused before it prints nothing. */
static void csv_row(FILE *f, const struct wb_view *v, bool first, bool units)
{
	if (first)
		wb_out_csv_header(f);
	if (first && units)
		wb_out_csv_units(f);
	wb_out_csv(f, v);
}

int wb_headless_run(const struct wb_headless_opts *o, struct wb_source *src)
{
	struct wb_pipeline_opts po = { .sets = o->sets, .nsets = o->nsets,
				       .forecast_s = o->forecast, .sinks = o->sinks, .nsinks = o->nsinks,
				       .replay = src->replay };
	bool null_out = o->text_unread || stdout_null();
	/*
	 * Nothing reads the views' history when they go unprinted and the only
	 * sink is the recorder (it takes the sample as read; the metrics sink,
	 * which takes derived figures, comes with quiet_text): two samples, not
	 * ten minutes of them (~12 KB each here: 7 MB of copies filled over the
	 * first ten minutes, a page fault every few samples, and the per-minute
	 * walks over them).
	 */
	if (null_out && o->fmt != WB_FMT_OM && !o->quiet_text && !src->replay) {
		po.window = 2;
		po.samples_only = true; /* and nothing derived: ~50 k instructions a sample */
	}
	struct wb_pipeline *pl = wb_pipeline_create(&po);
	struct wb_sample cur;
	struct timespec next;
	unsigned long dh = 0, wh = 0;
	bool told_hidden = false, om_bad = false;
	struct whatif_state wi = { 0 };
	int rc = 0, e;
	char err[256], q[WB_QUOTE_LEN];
	struct wb_om *om = o->fmt == WB_FMT_OM ? wb_om_create(src->replay) : NULL;

	if (om && src->replay && wb_om_spill_to(om, om_tmpdir())) {
		wb_om_destroy(om);
		om = NULL;
	}
	if (!pl || (o->fmt == WB_FMT_OM && !om)) {
		wb_pipeline_destroy(pl);
		fprintf(stderr, "wbtop: out of memory\n");
		return 1;
	}
	wb_sample_init(&cur);
	/* live, the loop must not sleep in balance_dirty_pages for its output (src/out/relay.c) */
	if (!src->replay && (e = wb_relay_stdout()))
		fprintf(stderr, "wbtop: the output is written by the sampling loop: %s\n", strerror(-e));
	clock_gettime(CLOCK_MONOTONIC, &next);
	/* a replay from --from: the window the full export had there (rates, forecast) */
	if (src->replay && wb_pipeline_resync(pl, src))
		fprintf(stderr, "wbtop: the recording before --from could not be read\n");
	if (src->warmup && src->read(src->ctx, &cur) == 0) /* context for the first sample's rates */
		wb_pipeline_push(pl, &cur, err, sizeof(err));
	for (long i = 0; !wb_stop && (o->count == 0 || i < o->count); i++) {
		const struct wb_view *v;

		if (i > 0 && !src->replay)
			wb_sleep_until(&next, o->delay);
		if (wb_stop)
			break;
		if (src->read(src->ctx, &cur) != 0) {
			if (src->diag)
				report_diag(src->diag(src->ctx), &dh);
			if (!src->replay) {
				if (i == 0) /* later, the diagnostics above say what ended it */
					fprintf(stderr, "wbtop: no usable kernel files under %s: nothing to show\n",
						wb_quote(o->root, q, sizeof(q)));
				rc = 1;
			} else if (i == 0) { /* nothing exported (a damaged frame before or at --from): exit 1 */
				fprintf(stderr, "wbtop: no sample could be replayed\n");
				rc = 1;
			}
			break;
		}
		if (src->diag)
			report_diag(src->diag(src->ctx), &dh);
		if (!told_hidden && o->fmt != WB_FMT_TEXT) {
			const char *h[4];
			int nh = wb_level_hidden(cur.level, cur.level_why, cur.ev_valid, h, 4);
			if (cur.level_why == WB_WHY_NO_TRACE && nh && cur.level == WB_LEVEL_DEBUGFS)
				nh--; /* level 3 is off because --no-trace asked for it: nothing to tell */
			for (int j = 0; j < nh; j++)
				fprintf(stderr, "wbtop: %s\n", h[j]);
			told_hidden = true;
		}
		rc = wb_pipeline_push(pl, &cur, err, sizeof(err));
		for (int j = 0; j < wb_pipeline_diag(pl)->n; j++) /* a sink that stopped (the recorder) */
			fprintf(stderr, "wbtop: %s\n", wb_pipeline_diag(pl)->msg[j]);
		report_diag(wb_pipeline_warnings(pl), &wh); /* a textfile it could not write: once a problem */
		if (o->nsets)
			rc = whatif_track(&wi, pl, o, src, &cur, i, rc, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "wbtop: %s\n", rc == -ENOMEM ? "out of memory" : err);
			rc = rc == -ENOMEM ? 1 : 2;
			break;
		}
		/*
		 * A recorder that records nothing must not run on (wbtop(1), EXIT
		 * STATUS), and the sample it refused is not printed either: a
		 * --max-size too small printed the first sample, then exit 2.
		 */
		if (wb_pipeline_diag(pl)->n) {
			rc = 1;
			break;
		}
		v = wb_pipeline_view(pl);
		if (null_out && o->fmt != WB_FMT_OM)
			; /* thrown away: not formatted */
		else if (o->fmt == WB_FMT_JSON)
			wb_out_json(stdout, v);
		else if (o->fmt == WB_FMT_CSV)
			csv_row(stdout, v, i == 0, o->csv_units);
		else if (o->fmt == WB_FMT_OM)
			om_bad = print_om(om, v, !src->replay) && src->replay;
		else if (!o->quiet_text) /* serving: stdout stays quiet unless asked */
			wb_out_text(stdout, v);
		if (!src->replay)
			fflush(stdout); /* live: each sample as it comes */
		if (om_bad) {
			rc = 1;
			break;
		}
		if (ferror(stdout)) {
			int e = wb_relay_errno() ? wb_relay_errno() : errno;

			if (e != EPIPE) { /* a closed pipe is the reader's way to say enough */
				fprintf(stderr, "wbtop: writing the output: %s\n", strerror(e));
				rc = 1;
			} else {
				clearerr(stdout); /* not an error at exit either (main's flushed()) */
			}
			break;
		}
	}
	if (om && src->replay && !om_bad && print_om(om, NULL, false))
		rc = 1;
	wb_om_destroy(om);
	wb_sample_finish(&cur);
	wb_pipeline_destroy(pl);
	/* the rest written; a failure the loop did not see (its last samples were in the pipe) said now */
	if ((e = wb_relay_end()) && !rc) {
		fprintf(stderr, "wbtop: writing the output: %s\n", strerror(e));
		rc = 1;
	}
	return rc;
}
