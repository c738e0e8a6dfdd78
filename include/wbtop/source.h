/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sources of samples: the live kernel or a recording. Sinks (UI, batch)
 * read through this and cannot tell them apart, except that a replay can
 * also seek.
 */
#ifndef WBTOP_SOURCE_H
#define WBTOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "wbtop/util.h"
#include "wbtop/sample.h"

struct wb_source {
	void *ctx;
	/* Fill s with the next sample; 0, or -1 when the source has ended. */
	int (*read)(void *ctx, struct wb_sample *s);
	/* Problems met by the last read (may be NULL). */
	const struct wb_diag *(*diag)(void *ctx);
	/* Live only (else NULL): whether the next reads need the process table. */
	void (*need_procs)(void *ctx, bool on);
	/* Live: the process table is read at all (not with --no-procs or on a --root tree). */
	bool procs;
	/* Replay only (NULL when live). */
	bool replay;
	double interval;                        /* the recording's sampling interval */
	double range_from, range_to;            /* the range replayed (--from/--to): its first and
						 * last sample, seconds from the recording's start */
	bool warmup;                            /* the first read is the sample before the range: context for rates */
	int (*seek)(void *ctx, double t_rel);   /* next read: first sample at or after t_rel s */
	void (*where)(void *ctx, double *t_rel, double *len, size_t *i, size_t *n);
	int (*next_event)(void *ctx);           /* next read: next throttling episode or note */
	/* Move the next read back by up to n samples (not before the recording's
	 * start); how many it moved. For the pipeline to rebuild its window. */
	size_t (*rewind)(void *ctx, size_t n);
	/* The newest note (e.g. a knob change) up to the last sample read, or NULL. */
	const char *(*note)(void *ctx, double *t_rel);
};

struct wb_rec_reader;
struct wb_live;
struct wb_live_opts;

/*
 * The live kernel as a source (collect/live_source.c): the collectors of o
 * behind src. The UI turns the process table off while its pane is hidden
 * (src->need_procs) unless procs_always (a recording keeps every sample
 * whole). The live state to free with wb_live_destroy() after the last read
 * (its wb_live_notes() say what happened at the start), or NULL with a
 * message in err.
 */
struct wb_live *wb_live_source_open(const struct wb_live_opts *o, bool procs_always, struct wb_source *src,
				    char *err, size_t errlen);

/* A replay source over an open reader, samples [from, to] in seconds from its start. */
struct wb_replay;
struct wb_replay *wb_replay_create(struct wb_rec_reader *r, double from, double to);
/* 0 when there is a sample to replay, else -1 with why not (exit 1: nothing to replay). */
int wb_replay_check(struct wb_replay *p, char *err, size_t errlen);
void wb_replay_destroy(struct wb_replay *p);
void wb_replay_source(struct wb_replay *p, struct wb_source *src);

#endif
