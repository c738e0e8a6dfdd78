// SPDX-License-Identifier: GPL-2.0-or-later
/* The recorder: a sink of the pipeline that writes each view's sample to a recording. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wbtop/pipeline.h"
#include "wbtop/record.h"

/* A knob wbtop wrote itself (the sink's annotate): its change is noted once, by that note. */
struct own_change {
	char bdi[WB_NAME_LEN];  /* as written in the key (name or device), "" for a sysctl */
	int family;
};

struct wb_recorder {
	struct wb_rec_writer *w;
	char err[600];          /* "recording stopped: ..." once writing has failed */
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
static void own_change(struct wb_recorder *r, const char *text)
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
static bool own(const struct wb_recorder *r, const struct wb_bdi *b, int k)
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
static void knob_changes(const struct wb_recorder *r, const struct wb_sample *a, const struct wb_sample *b,
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
static void note_changes(struct wb_recorder *r, const struct wb_sample *s)
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

struct wb_recorder *wb_recorder_create(struct wb_rec_writer *w)
{
	struct wb_recorder *r = calloc(1, sizeof(*r));

	if (r) {
		r->w = w;
		wb_sample_init(&r->last);
	}
	return r;
}

void wb_recorder_destroy(struct wb_recorder *r)
{
	if (r)
		wb_sample_finish(&r->last);
	free(r);
}

const char *wb_recorder_error(const struct wb_recorder *r)
{
	return r && r->err[0] ? r->err : NULL;
}

/*
 * The sink's take: the view's sample, written to the file with a note of the
 * knobs someone else changed since the last one. Once writing has failed
 * nothing more is written, and every later sample says why (-1).
 */
static int rec_take(void *ctx, const struct wb_view *v)
{
	struct wb_recorder *r = ctx;

	if (!r->err[0]) {
		note_changes(r, v->cur);
		wb_rec_write(r->w, v->cur); /* a failure is kept in the writer */
		if (wb_rec_error(r->w))
			snprintf(r->err, sizeof(r->err), "recording stopped: %s", wb_rec_error(r->w));
	}
	return r->err[0] ? -1 : 0;
}

bool wb_recorder_flush(struct wb_recorder *r)
{
	if (!r || r->err[0] || wb_rec_flush(r->w) == 0)
		return false;
	snprintf(r->err, sizeof(r->err), "recording stopped: %s", wb_rec_error(r->w));
	return true;
}

static const char *rec_error(void *ctx)
{
	return wb_recorder_error(ctx);
}

/* The sink's annotate: a note now (wbtop wrote a knob), whose change the next sample does not note again. */
static void rec_annotate(void *ctx, const char *text)
{
	struct wb_recorder *r = ctx;
	struct timespec m, w;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &w);
	wb_rec_note(r->w, m.tv_sec + m.tv_nsec / 1e9, w.tv_sec + w.tv_nsec / 1e9, text);
	own_change(r, text);
}

void wb_recorder_sink(struct wb_recorder *r, struct wb_pipeline_sink *sink)
{
	*sink = (struct wb_pipeline_sink){ .ctx = r, .take = rec_take, .error = rec_error, .annotate = rec_annotate };
}
