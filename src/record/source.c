// SPDX-License-Identifier: GPL-2.0-or-later
/* The replay source: a recording read back as samples, with seeking (the UI and batch loops read through it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wbtop/record.h"
#include "wbtop/source.h"

struct wb_replay {
	struct wb_rec_reader *r;
	size_t i, first, end;   /* next sample to read; [first, end) is the chosen range */
	double t0;              /* mono of the recording's first sample */
	double from, to;        /* as asked, for messages */
	double last_mono;
	struct wb_diag diag;
	bool diag_seen;         /* asked for since the read that said it: the next read clears it */
};

struct wb_replay *wb_replay_create(struct wb_rec_reader *r, double from, double to)
{
	struct wb_replay *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->r = r;
	p->from = from;
	p->to = to;
	p->t0 = wb_rec_count(r) ? wb_rec_time(r, 0) : 0;
	/* to the millisecond, as times are shown: --to 0.95 takes a sample at 0.9504 */
	p->first = from > 0 ? wb_rec_seek_time(r, p->t0 + from - 0.0005) : 0;
	p->end = to > 0 ? wb_rec_seek_time(r, p->t0 + to + 0.0005) : wb_rec_count(r);
	/* start one early so that the range's first sample has rates too */
	p->i = p->first > 0 ? p->first - 1 : p->first;
	return p;
}

/*
 * Is there anything to replay? 0, or -1 with why not: no samples at all, none
 * in the chosen range, or the range's first sample cannot be decoded.
 */
int wb_replay_check(struct wb_replay *p, char *err, size_t errlen)
{
	size_t n = wb_rec_count(p->r);
	struct wb_sample s;
	char why[200];
	int rc;

	if (n == 0) {
		snprintf(err, errlen, "no samples to replay");
		return -1;
	}
	if (p->first >= p->end) {
		char to[64] = " on";
		if (p->to > 0)
			snprintf(to, sizeof(to), " to %g s", p->to);
		snprintf(err, errlen, "no samples from %g s%s: the recording is %.1f s long", p->from, to,
			 wb_rec_time(p->r, n - 1) - p->t0);
		return -1;
	}
	/* a first sample that does not decode: the range's next key frame, if it has one; and
	 * the sample before it, read for the rates' context, only if it decodes (--from 60 just
	 * after a damaged run took the first good sample as that context, unprinted) */
	wb_sample_init(&s);
	size_t i = p->first;
	while ((rc = wb_rec_read(p->r, i, &s, why, sizeof(why))) != 0)
		if ((i = wb_rec_next_key(p->r, i)) >= p->end)
			break;
	if (rc == 0) {
		char skip[200];
		p->first = i;
		p->i = i > 0 && wb_rec_read(p->r, i - 1, &s, skip, sizeof(skip)) == 0 ? i - 1 : i;
	}
	wb_sample_finish(&s);
	if (rc)
		snprintf(err, errlen, "%s: no sample to replay", why);
	return rc;
}

void wb_replay_destroy(struct wb_replay *p)
{
	free(p);
}

static int rp_read(void *ctx, struct wb_sample *s)
{
	struct wb_replay *p = ctx;
	char err[256];

	/* what a read said stays until someone asked (a resync's reads: "N samples lost" was
	 * cleared by the next read, unsaid) */
	if (p->diag_seen) {
		wb_diag_clear(&p->diag);
		p->diag_seen = false;
	}
	if (p->i >= p->end)
		return -1;
	/*
	 * A frame that checks out but does not decode: its key frame's samples
	 * from it on are lost, the next key frame's are not (the replay ended
	 * there, exit 0, with half a recording intact behind it)
	 */
	while (wb_rec_read(p->r, p->i, s, err, sizeof(err))) {
		size_t next = wb_rec_next_key(p->r, p->i);

		if (next >= p->end) {
			wb_diag_add(&p->diag, "recording: %s", err);
			p->end = p->i; /* nothing after it decodes */
			return -1;
		}
		wb_diag_add(&p->diag, "recording: %s; %zu samples lost, the replay goes on at the next key frame (%.1f s)",
			    err, next - p->i, wb_rec_time(p->r, next) - p->t0);
		p->i = next;
	}
	p->last_mono = s->mono;
	p->i++;
	return 0;
}

static const struct wb_diag *rp_diag(void *ctx)
{
	((struct wb_replay *)ctx)->diag_seen = true;
	return &((struct wb_replay *)ctx)->diag;
}

static int rp_seek(void *ctx, double t_rel)
{
	struct wb_replay *p = ctx;
	size_t i = wb_rec_seek_time(p->r, p->t0 + (t_rel < 0 ? 0 : t_rel));

	if (i < p->first)
		i = p->first;
	if (i >= p->end)
		i = p->end ? p->end - 1 : 0;
	p->i = i;
	return 0;
}

static size_t rp_rewind(void *ctx, size_t n)
{
	struct wb_replay *p = ctx;
	size_t k = p->i; /* back to the recording's start, before --from too */

	if (k > n)
		k = n;
	p->i -= k;
	return k;
}

static void rp_where(void *ctx, double *t_rel, double *len, size_t *i, size_t *n)
{
	struct wb_replay *p = ctx;
	size_t cnt = wb_rec_count(p->r);

	/* not below 0: t0, from the index, is in whole microseconds, a hair past the first sample's own time
	 * ("-0.0/29.0s" at Home) */
	*t_rel = p->last_mono ? fmax(p->last_mono - p->t0, 0) : 0;
	*len = cnt ? wb_rec_time(p->r, cnt - 1) - p->t0 : 0;
	*i = p->i;
	*n = cnt;
}

/*
 * A note's time is its frame's, in whole microseconds; the sample it was made
 * at decodes its own to the nanosecond, so the note can read a hair later
 * than the sample it belongs to (n landed on it, then said nothing was
 * there, and showed it a sample late).
 */
#define NOTE_SLACK 1e-3

/*
 * Throttling that does not stop (a device throttled for minutes) still has stops: n goes on
 * this long after the sample it left, as a new episode.
 */
#define EPISODE_MAX_S 30.0

/* Is BDI name throttled (paused) in s? */
static bool throttled_on(const struct wb_sample *s, const char *name)
{
	for (size_t b = 0; b < s->nbdis; b++)
		if (s->bdis[b].ev.pauses > 0 && strcmp(s->bdis[b].name, name) == 0)
			return true;
	return false;
}

/*
 * Does throttled sample s start an episode after prev (NULL: none, or lost)? After a quiet
 * one, when a device is throttled that was not in prev, or from EPISODE_MAX_S after the
 * sample n left (from_t): under continuous throttling an episode never ended, and n had no
 * next one (cache-thrash.wbrec's 63 s of it were one stop).
 */
static bool episode_starts(const struct wb_sample *s, const struct wb_sample *prev, double from_t)
{
	bool quiet = true;

	if (!prev)
		return true;
	for (size_t b = 0; b < prev->nbdis; b++)
		quiet &= prev->bdis[b].ev.pauses == 0;
	if (quiet || s->mono - from_t >= EPISODE_MAX_S - 1e-6)
		return true;
	for (size_t b = 0; b < s->nbdis; b++)
		if (s->bdis[b].ev.pauses > 0 && !throttled_on(prev, s->bdis[b].name))
			return true;
	return false;
}

/* The next sample that starts a throttling episode (episode_starts), or the next note. */
static int rp_next_event(void *ctx)
{
	struct wb_replay *p = ctx;
	double note_t = -1, t, from_t = p->last_mono;
	struct wb_sample a, b, *s = &a, *prev = &b, *swap;
	bool have_prev = false;
	int rc = -1;
	char err[256];

	for (size_t k = 0; k < wb_rec_notes(p->r); k++)
		if (wb_rec_note_at(p->r, k, &t) && t > p->last_mono + NOTE_SLACK) {
			note_t = t;
			break;
		}
	wb_sample_init(&a);
	wb_sample_init(&b);
	/* the sample shown (the one before p->i) decides whether the next throttled one starts an episode;
	 * nothing shown before: a throttled first sample starts one */
	if (p->i > 0 && wb_rec_read(p->r, p->i - 1, prev, err, sizeof(err)) == 0) {
		have_prev = true;
		from_t = prev->mono;
	}
	for (size_t i = p->i; i < p->end; i++) {
		bool thr = false;
		if (note_t >= 0 && wb_rec_time(p->r, i) >= note_t - NOTE_SLACK) {
			p->i = i;
			rc = 0;
			break;
		}
		if (wb_rec_read(p->r, i, s, err, sizeof(err))) { /* lost up to the next key frame, as rp_read */
			size_t nk = wb_rec_next_key(p->r, i);
			if (nk >= p->end)
				break;
			i = nk - 1;
			have_prev = false;
			continue;
		}
		for (size_t k = 0; k < s->nbdis; k++)
			thr |= s->bdis[k].ev.pauses > 0;
		if (thr && episode_starts(s, have_prev ? prev : NULL, from_t)) {
			p->i = i;
			rc = 0;
			break;
		}
		swap = prev;
		prev = s;
		s = swap;
		have_prev = true;
	}
	wb_sample_finish(&a);
	wb_sample_finish(&b);
	return rc;
}

static const char *rp_note(void *ctx, double *t_rel)
{
	struct wb_replay *p = ctx;
	const char *best = NULL;
	double t;

	for (size_t k = 0; k < wb_rec_notes(p->r); k++) {
		const char *n = wb_rec_note_at(p->r, k, &t);
		if (t <= p->last_mono + NOTE_SLACK) {
			best = n;
			if (t_rel)
				*t_rel = t - p->t0;
		}
	}
	return best;
}

void wb_replay_source(struct wb_replay *p, struct wb_source *src)
{
	const struct wb_rec_header *h = wb_rec_header_of(p->r);

	*src = (struct wb_source){ .ctx = p, .read = rp_read, .diag = rp_diag, .replay = true,
				   .interval = h->interval > 0 ? h->interval : 1, .seek = rp_seek,
				   .where = rp_where, .next_event = rp_next_event, .note = rp_note,
				   .rewind = rp_rewind,
				   .warmup = p->i < p->first };
	if (p->first < p->end) {
		src->range_from = wb_rec_time(p->r, p->first) - p->t0;
		src->range_to = wb_rec_time(p->r, p->end - 1) - p->t0;
	}
}
