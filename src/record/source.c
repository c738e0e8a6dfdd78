// SPDX-License-Identifier: GPL-2.0-or-later
/* Replay and recording sources (the UI and batch loops read through these). */
#include <stdarg.h>
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
	wb_sample_init(&s);
	rc = wb_rec_read(p->r, p->first, &s, why, sizeof(why));
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

	wb_diag_clear(&p->diag);
	if (p->i >= p->end)
		return -1;
	if (wb_rec_read(p->r, p->i, s, err, sizeof(err))) {
		wb_diag_add(&p->diag, "recording: %s", err);
		p->end = p->i; /* what follows a damaged frame cannot be decoded */
		return -1;
	}
	p->last_mono = s->mono;
	p->i++;
	return 0;
}

static const struct wb_diag *rp_diag(void *ctx)
{
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

	*t_rel = p->last_mono ? p->last_mono - p->t0 : 0;
	*len = cnt ? wb_rec_time(p->r, cnt - 1) - p->t0 : 0;
	*i = p->i;
	*n = cnt;
}

/* The next sample with writers throttled (after a quiet one), or the next note. */
static int rp_next_event(void *ctx)
{
	struct wb_replay *p = ctx;
	double note_t = -1, t;
	struct wb_sample s;
	bool quiet = false;
	char err[256];

	for (size_t k = 0; k < wb_rec_notes(p->r); k++)
		if (wb_rec_note_at(p->r, k, &t) && t > p->last_mono + 1e-9) {
			note_t = t;
			break;
		}
	wb_sample_init(&s);
	for (size_t i = p->i; i < p->end; i++) {
		bool thr = false;
		if (note_t >= 0 && wb_rec_time(p->r, i) >= note_t) {
			p->i = i;
			wb_sample_finish(&s);
			return 0;
		}
		if (wb_rec_read(p->r, i, &s, err, sizeof(err)))
			break;
		for (size_t b = 0; b < s.nbdis; b++)
			thr |= s.bdis[b].ev.pauses > 0;
		if (thr && (quiet || i > p->i)) {
			p->i = i;
			wb_sample_finish(&s);
			return 0;
		}
		quiet |= !thr;
	}
	wb_sample_finish(&s);
	return -1;
}

static const char *rp_note(void *ctx, double *t_rel)
{
	struct wb_replay *p = ctx;
	const char *best = NULL;
	double t;

	for (size_t k = 0; k < wb_rec_notes(p->r); k++) {
		const char *n = wb_rec_note_at(p->r, k, &t);
		if (t <= p->last_mono + 1e-9) {
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
}

/* A knob wbtop wrote itself (the source's annotate): its change is noted once, by that note. */
struct own_change {
	char bdi[WB_NAME_LEN];  /* as written in the key (name or device), "" for a sysctl */
	int family;
};

struct wb_recording {
	struct wb_source inner;
	struct wb_rec_writer *w;
	struct wb_diag diag;
	bool stop_on_error;     /* batch: end the run when the file cannot be written */
	struct wb_sample last;  /* the previous sample recorded: knob changes are seen against it */
	bool have_last;
	struct own_change own[16]; /* written by wbtop since the last sample */
	int nown;
};

/*
 * Knobs one write changes together (the kernel reads the others back
 * converted): one family each. 0: a family of its own.
 */
static const int sys_family[WB_SYS_COUNT] = {
	[WB_SYS_DIRTY_RATIO] = 1, [WB_SYS_DIRTY_BYTES] = 1, [WB_SYS_BG_RATIO] = 2, [WB_SYS_BG_BYTES] = 2,
};
static const int knob_family[WB_K_COUNT] = {
	[WB_K_MIN_RATIO] = 1, [WB_K_MIN_RATIO_FINE] = 1, [WB_K_MIN_BYTES] = 1,
	[WB_K_MAX_RATIO] = 2, [WB_K_MAX_RATIO_FINE] = 2, [WB_K_MAX_BYTES] = 2,
};

/*
 * The knob that holds a BDI family's setting, and the one to use when it
 * cannot be read (kernels before *_fine): the kernel derives min_bytes and
 * max_bytes from it and the dirty limit, so they move with free memory
 * while nobody writes anything. Only a change of the setting is a change.
 */
static const struct {
	int stored, fallback;
} knob_setting[WB_K_COUNT] = {
	[WB_K_MIN_RATIO] = { WB_K_MIN_RATIO_FINE, WB_K_MIN_RATIO },
	[WB_K_MIN_RATIO_FINE] = { WB_K_MIN_RATIO_FINE, WB_K_MIN_RATIO },
	[WB_K_MIN_BYTES] = { WB_K_MIN_RATIO_FINE, WB_K_MIN_RATIO },
	[WB_K_MAX_RATIO] = { WB_K_MAX_RATIO_FINE, WB_K_MAX_RATIO },
	[WB_K_MAX_RATIO_FINE] = { WB_K_MAX_RATIO_FINE, WB_K_MAX_RATIO },
	[WB_K_MAX_BYTES] = { WB_K_MAX_RATIO_FINE, WB_K_MAX_RATIO },
	[WB_K_STRICT_LIMIT] = { WB_K_STRICT_LIMIT, WB_K_STRICT_LIMIT },
};

/* Knob k readable in both x and y, with another value in y. */
static bool knob_moved(const struct wb_bdi *x, const struct wb_bdi *y, int k)
{
	return WB_HAS(x->knob_valid, k) && WB_HAS(y->knob_valid, k) && x->knob[k] != y->knob[k];
}

/* Was knob k of this BDI changed (its family's setting), not just read back differently? */
static bool knob_changed(const struct wb_bdi *x, const struct wb_bdi *y, int k)
{
	int st = knob_setting[k].stored;
	bool readable = WB_HAS(x->knob_valid, st) && WB_HAS(y->knob_valid, st);

	return knob_moved(x, y, k) &&
	       (readable ? knob_moved(x, y, st) : knob_moved(x, y, knob_setting[k].fallback));
}

static int family(bool bdi, int k)
{
	int f = bdi ? knob_family[k] : sys_family[k];
	return f ? f : 100 + k;
}

/* Index of name in a table of n names, or -1. */
static int name_index(const char *const *names, int n, const char *name, size_t len)
{
	for (int k = 0; k < n; k++)
		if (strlen(names[k]) == len && strncmp(names[k], name, len) == 0)
			return k;
	return -1;
}

/* A note wbtop made ("vm.dirty_ratio=10", "bdi.loop0.max_bytes=16M"): remember which knob it wrote. */
static void own_change(struct wb_recording *r, const char *text)
{
	const char *key = strncmp(text, "set ", 4) == 0 ? text + 4 : text, *eq = strchr(key, '='), *dot;
	struct own_change *o = &r->own[r->nown];
	int k;

	if (!eq || r->nown == (int)(sizeof(r->own) / sizeof(r->own[0])))
		return;
	if (strncmp(key, "vm.", 3) == 0) {
		if ((k = name_index(wb_sysctl_names, WB_SYS_COUNT, key + 3, (size_t)(eq - key - 3))) < 0)
			return;
		o->bdi[0] = '\0';
		o->family = family(false, k);
	} else if (strncmp(key, "bdi.", 4) == 0) {
		for (dot = eq; dot > key + 4 && dot[-1] != '.'; dot--)
			;
		if (dot <= key + 5 || (k = name_index(wb_knob_names, WB_K_COUNT, dot, (size_t)(eq - dot))) < 0)
			return;
		snprintf(o->bdi, sizeof(o->bdi), "%.*s", (int)(dot - 1 - key - 4), key + 4);
		o->family = family(true, k);
	} else {
		return;
	}
	r->nown++;
}

/* Did wbtop itself write knob k (of BDI b, or a sysctl when b is NULL) since the last sample? */
static bool own(const struct wb_recording *r, const struct wb_bdi *b, int k)
{
	for (int i = 0; i < r->nown; i++)
		if (r->own[i].family == family(b != NULL, k) &&
		    (b ? strcmp(r->own[i].bdi, b->name) == 0 || (b->dev[0] && strcmp(r->own[i].bdi, b->dev) == 0)
		       : r->own[i].bdi[0] == '\0'))
			return true;
	return false;
}

/* Append "; " and a formatted change to out (n bytes used of len); the new length. */
static size_t add_change(char *out, size_t len, size_t n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (n + 3 >= len)
		return n;
	if (n)
		n += (size_t)snprintf(out + n, len - n, "; ");
	va_start(ap, fmt);
	k = vsnprintf(out + n, len - n, fmt, ap);
	va_end(ap);
	return k < 0 ? n : n + (size_t)k < len ? n + (size_t)k : len - 1;
}

/*
 * Every sysctl and per-BDI knob readable in both a and b whose setting
 * changed, less those wbtop wrote itself, as one note into out ("" if none):
 * "vm.dirty_ratio 20 -> 10; bdi 7:1 min_ratio 0 -> 5".
 */
static void knob_changes(const struct wb_recording *r, const struct wb_sample *a, const struct wb_sample *b,
			 char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (int k = 0; k < WB_SYS_COUNT; k++)
		if (WB_HAS(a->sys_valid, k) && WB_HAS(b->sys_valid, k) && a->sys[k] != b->sys[k] && !own(r, NULL, k))
			n = add_change(out, len, n, "vm.%s %llu -> %llu", wb_sysctl_names[k],
				       (unsigned long long)a->sys[k], (unsigned long long)b->sys[k]);
	for (size_t i = 0; i < b->nbdis; i++) {
		const struct wb_bdi *y = &b->bdis[i], *x = wb_sample_bdi(a, y->name);
		for (int k = 0; x && k < WB_K_COUNT; k++)
			if (knob_changed(x, y, k) && !own(r, y, k))
				n = add_change(out, len, n, "bdi %s %s %llu -> %llu", y->name, wb_knob_names[k],
					       (unsigned long long)x->knob[k], (unsigned long long)y->knob[k]);
	}
}

/* Before recording s: a note of the knobs that changed since the last sample recorded (issue #20 item 8). */
static void note_changes(struct wb_recording *r, const struct wb_sample *s)
{
	char text[512];

	if (r->have_last) {
		knob_changes(r, &r->last, s, text, sizeof(text));
		if (text[0])
			wb_rec_note(r->w, s->mono, s->wall, text);
	}
	r->nown = 0;
	r->have_last = wb_sample_copy(&r->last, s) == 0;
}

struct wb_recording *wb_recording_create(const struct wb_source *inner, struct wb_rec_writer *w)
{
	struct wb_recording *r = calloc(1, sizeof(*r));

	if (r) {
		r->inner = *inner;
		r->w = w;
		wb_sample_init(&r->last);
	}
	return r;
}

void wb_recording_destroy(struct wb_recording *r)
{
	if (r)
		wb_sample_finish(&r->last);
	free(r);
}

void wb_recording_stop_on_error(struct wb_recording *r)
{
	r->stop_on_error = true;
}

const char *wb_recording_error(const struct wb_recording *r)
{
	return r ? wb_rec_error(r->w) : NULL;
}

/*
 * The inner source's sample, also written to the file. Once writing has
 * failed, every sample's diagnostics start with why (the UI shows it on
 * every frame); with stop_on_error the read after the failure ends the run.
 */
static int rec_read(void *ctx, struct wb_sample *s)
{
	struct wb_recording *r = ctx;
	const struct wb_diag *d;
	bool failed = wb_rec_error(r->w) != NULL;
	int rc = failed && r->stop_on_error ? -1 : r->inner.read(r->inner.ctx, s);

	wb_diag_clear(&r->diag);
	if (rc == 0 && !failed) {
		note_changes(r, s);
		wb_rec_write(r->w, s); /* a failure is kept in the writer */
	}
	if (wb_rec_error(r->w))
		wb_diag_add(&r->diag, "recording stopped: %s", wb_rec_error(r->w));
	d = r->inner.diag && !(failed && r->stop_on_error) ? r->inner.diag(r->inner.ctx) : NULL;
	for (int i = 0; d && i < d->n; i++)
		wb_diag_add(&r->diag, "%s", d->msg[i]);
	return rc;
}

static const struct wb_diag *rec_diag(void *ctx)
{
	return &((struct wb_recording *)ctx)->diag;
}

static void rec_annotate(void *ctx, const char *text)
{
	struct wb_recording *r = ctx;
	struct timespec m, w;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &w);
	wb_rec_note(r->w, m.tv_sec + m.tv_nsec / 1e9, w.tv_sec + w.tv_nsec / 1e9, text);
	own_change(r, text); /* its change, seen in the next sample, is not noted again */
}

void wb_recording_source(struct wb_recording *r, struct wb_source *src)
{
	*src = r->inner;
	src->ctx = r;
	src->read = rec_read;
	src->diag = rec_diag;
	src->annotate = rec_annotate;
}
