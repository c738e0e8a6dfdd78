// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Exact seek: for every shipped recording and 10 random moments T, the
 * pipeline's view after seeking to T (forward and backward, and with the
 * next-event key's jump) equals the view reached by playing up to T. And
 * n, from the start, lands on every note of a recording with notes, and
 * the note is there where it lands (it was found a sample late).
 *   seek SRCDIR        (recordings: SRCDIR/examples/{,scenarios/}*.wbrec,
 *                       notes: SRCDIR/tests/fixtures/fuse-max-ratio.wbrec and
 *                       SRCDIR/bench/scenario-gen/stick2/run01.wbrec)
 */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/pipeline.h"
#include "wbtop/record.h"

#define MOMENTS 10

static int failures;

/* A hash of a timeline series (NaN as one value), to compare whole series cheaply. */
static unsigned long long series_hash(const double *v, size_t n)
{
	unsigned long long h = 1469598103934665603ULL;

	for (size_t i = 0; v && i < n; i++) {
		double x = isnan(v[i]) ? NAN : v[i];
		unsigned char b[sizeof(double)];
		memcpy(b, &x, sizeof(b));
		for (size_t k = 0; k < sizeof(b); k++)
			h = (h ^ b[k]) * 1099511628211ULL;
	}
	return h;
}

/* The Graph pane's timeline (when kept): its length and every device's series, hashed. */
static void dump_timeline(FILE *f, const struct wb_pipeline *pl, const struct wb_sample *cur)
{
	const struct wb_timeline *tl = wb_pipeline_timeline(pl);
	size_t n = tl ? wb_timeline_len(tl) : 0;

	if (!tl)
		return;
	fprintf(f, "timeline %zu %llx\n", n, series_hash(wb_timeline_mono(tl), n));
	for (int k = 0; k < WB_TL_G_COUNT; k++)
		fprintf(f, "tg%d %llx\n", k, series_hash(wb_timeline_global(tl, (enum wb_tl_g)k), n));
	for (size_t i = 0; i < cur->nbdis; i++)
		for (int k = 0; k < WB_TL_B_COUNT; k++)
			fprintf(f, "t %s %d %llx\n", cur->bdis[i].name, k,
				series_hash(wb_timeline_bdi(tl, cur->bdis[i].name, (enum wb_tl_b)k), n));
}

/* Everything a sink can show of the view, as text: JSON plus the derived figures, strips and timeline. */
static char *dump(const struct wb_pipeline *pl)
{
	const struct wb_view *v = wb_pipeline_view(pl);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	double strip[WB_PIPELINE_WINDOW];

	if (!f)
		abort();
	wb_out_json(f, v);
	for (int k = 0; k < WB_G_COUNT; k++)
		fprintf(f, "g%d %d %.17g\n", k, v->g_rate_ok[k], v->g_rate_ok[k] ? v->g_rate[k] : 0);
	for (size_t i = 0; i < v->cur->nbdis; i++) {
		const struct wb_bdi_derived *d = &v->bdi[i];
		fprintf(f, "%s %d%d%d%d%d%d %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
			v->cur->bdis[i].name, d->dirtied_ok, d->written_ok, d->bw_ok, d->dirty_ok, d->pct_ok,
			d->disk_ok, d->dirtied, d->written, d->bw, d->dirty, d->pct, d->disk_write, d->drain_s,
			d->wake_pm, d->throttle_pm);
		for (int w = 0; w < 2; w++) {
			wb_pipeline_strip(pl, v->cur->bdis[i].name, w, strip, WB_PIPELINE_WINDOW);
			for (int k = 0; k < WB_PIPELINE_WINDOW; k++)
				fprintf(f, "%.17g ", strip[k]);
			fputc('\n', f);
		}
	}
	dump_timeline(f, pl, v->cur);
	fclose(f);
	return buf;
}

/* Read the next sample into the pipeline. */
static int step(struct wb_source *src, struct wb_pipeline *pl)
{
	struct wb_sample s;
	char err[256];
	int rc;

	wb_sample_init(&s);
	rc = src->read(src->ctx, &s);
	if (rc == 0)
		rc = wb_pipeline_push(pl, &s, err, sizeof(err));
	wb_sample_finish(&s);
	return rc;
}

static void check(const char *path, const char *how, size_t i, char *const *played, const struct wb_pipeline *pl)
{
	char *got = dump(pl);

	if (strcmp(got, played[i]) != 0) {
		fprintf(stderr, "not ok - %s: sample %zu after %s differs from playing to it\n", path, i, how);
		failures++;
	}
	free(got);
}

/* Where the next read is, as an index. */
static size_t position(struct wb_source *src)
{
	double t, len;
	size_t i, n;

	src->where(src->ctx, &t, &len, &i, &n);
	return i;
}

static void one_recording(const char *path, unsigned seed, size_t window)
{
	char err[256], warn[256];
	struct wb_rec_reader *r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	/* the full window with the Graph pane's timeline, as the UI keeps them */
	struct wb_pipeline_opts po = { .window = window, .timeline = window == WB_PIPELINE_WINDOW ? 4096 : 0 };
	struct wb_pipeline *pl;
	struct wb_replay *p;
	struct wb_source src;
	char **played;
	size_t n, got = 0, moments[MOMENTS];
	double t0;

	if (!r) {
		fprintf(stderr, "not ok - %s: %s\n", path, err);
		failures++;
		return;
	}
	n = wb_rec_count(r);
	t0 = n ? wb_rec_time(r, 0) : 0;
	played = calloc(n ? n : 1, sizeof(*played));
	/* play it through, keeping every view */
	p = wb_replay_create(r, 0, 0);
	pl = wb_pipeline_create(&po);
	wb_replay_source(p, &src);
	while (got < n && step(&src, pl) == 0)
		played[got++] = dump(pl);
	wb_pipeline_destroy(pl);
	wb_replay_destroy(p);
	/* then seek around in a fresh replay: forward, backward, anywhere */
	srand(seed);
	for (int k = 0; k < MOMENTS && got; k++)
		moments[k] = (size_t)rand() % got;
	p = wb_replay_create(r, 0, 0);
	pl = wb_pipeline_create(&po);
	wb_replay_source(p, &src);
	for (int k = 0; k < MOMENTS && got; k++) {
		size_t i = moments[k];
		src.seek(src.ctx, wb_rec_time(r, i) - t0);
		wb_pipeline_resync(pl, &src);
		i = position(&src);
		if (step(&src, pl) == 0 && i < got)
			check(path, k && i < moments[k - 1] ? "a backward seek" : "a forward seek", i, played, pl);
		if (src.next_event(src.ctx) == 0) { /* n: the next throttling episode or note */
			wb_pipeline_resync(pl, &src);
			i = position(&src);
			if (step(&src, pl) == 0 && i < got)
				check(path, "n (next event)", i, played, pl);
		}
	}
	printf("ok - %s: %zu samples, window %zu, %d seeks\n", path, got, window, got ? MOMENTS : 0);
	wb_pipeline_destroy(pl);
	wb_replay_destroy(p);
	for (size_t i = 0; i < got; i++)
		free(played[i]);
	free(played);
	wb_rec_close_reader(r);
}

/* n from the start: each note landed on, shown where it lands, none skipped. */
static void notes_found(const char *path)
{
	char err[256], warn[256];
	struct wb_rec_reader *r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	struct wb_pipeline_opts po = { .window = WB_PIPELINE_WINDOW };
	struct wb_pipeline *pl;
	struct wb_replay *p;
	struct wb_source src;
	size_t nn, seen = 0, i, n;
	double t0, t, len, want;

	if (!r || !(nn = wb_rec_notes(r))) {
		fprintf(stderr, "not ok - %s: %s\n", path, r ? "no notes" : err);
		failures++;
		wb_rec_close_reader(r);
		return;
	}
	t0 = wb_rec_time(r, 0);
	p = wb_replay_create(r, 0, 0);
	pl = wb_pipeline_create(&po);
	wb_replay_source(p, &src);
	if (step(&src, pl) == 0)
		while (src.next_event(src.ctx) == 0) {
			double nt = -1;
			const char *note;

			wb_pipeline_resync(pl, &src);
			if (step(&src, pl))
				break;
			src.where(src.ctx, &t, &len, &i, &n);
			note = src.note(src.ctx, &nt);
			while (seen < nn && wb_rec_note_at(r, seen, &want) && want - t0 <= t + src.interval / 2) {
				if (!note || fabs(nt - t) > src.interval / 2) {
					fprintf(stderr, "not ok - %s: n landed at %.3f s, the note at %.6f s not shown there\n",
						path, t, want - t0);
					failures++;
				}
				seen++;
			}
		}
	if (seen != nn) {
		fprintf(stderr, "not ok - %s: n landed on %zu of %zu notes\n", path, seen, nn);
		failures++;
	} else {
		printf("ok - %s: n finds its %zu notes\n", path, nn);
	}
	wb_pipeline_destroy(pl);
	wb_replay_destroy(p);
	wb_rec_close_reader(r);
}

int main(int argc, char **argv)
{
	static const char *const pat[] = { "examples/*.wbrec", "examples/scenarios/*.wbrec" };
	char path[4096];
	int n = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: seek SRCDIR\n");
		return 2;
	}
	for (size_t k = 0; k < sizeof(pat) / sizeof(pat[0]); k++) {
		glob_t g;
		snprintf(path, sizeof(path), "%s/%s", argv[1], pat[k]);
		if (glob(path, 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++, n++) {
			one_recording(g.gl_pathv[i], 17u + (unsigned)n, WB_PIPELINE_WINDOW);
			/* a short window: samples leave it while playing */
			one_recording(g.gl_pathv[i], 91u + (unsigned)n, 12);
		}
		globfree(&g);
	}
	if (n == 0) {
		fprintf(stderr, "not ok - no recordings under %s\n", argv[1]);
		return 1;
	}
	/* the second's note reads later than its sample (whole microseconds against the sample's own) */
	static const char *const noted[] = { "tests/fixtures/fuse-max-ratio.wbrec", "bench/scenario-gen/stick2/run01.wbrec" };
	for (size_t k = 0; k < sizeof(noted) / sizeof(noted[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", argv[1], noted[k]);
		notes_found(path);
	}
	printf("%d recordings, %d failures\n", n, failures);
	return failures ? 1 : 0;
}
