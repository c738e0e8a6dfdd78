/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OpenMetrics / Prometheus exposition of a sample's view: one table of
 * metric families (name, type, unit, help, where the value comes from),
 * walked to render either format. Unknown values are left out, never 0.
 *
 * A wb_om keeps the counters that only grow while wbtop runs (tracepoint
 * events, accumulated from each sample's deltas) and the series of the
 * samples added since the last wb_om_clear(): one sample for a live
 * exposition, a whole recording for a backfill (with timestamps).
 */
#ifndef WBTOP_OPENMETRICS_H
#define WBTOP_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "wbtop/out.h"
#include "wbtop/pipeline.h"
#include "wbtop/source.h"

enum wb_om_fmt {
	WB_OM_TEXT,        /* Prometheus text format 0.0.4 */
	WB_OM_OPENMETRICS, /* OpenMetrics 1.0 text, ends with "# EOF" */
};

#define WB_OM_CTYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define WB_OM_CTYPE_OM   "application/openmetrics-text; version=1.0.0; charset=utf-8"

struct wb_om;

/*
 * timestamps: every series carries its sample's time (backfill; OpenMetrics
 * only). Caller frees with wb_om_destroy(); NULL on out of memory.
 */
struct wb_om *wb_om_create(bool timestamps);
void wb_om_destroy(struct wb_om *m);
/* Count this view's events and add its series. 0 or -ENOMEM. */
int wb_om_add(struct wb_om *m, const struct wb_view *v);
/* Forget the series added so far (the counters stay). */
void wb_om_clear(struct wb_om *m);
/*
 * From now on, a row's series past 64 KiB go to a temporary file in dir
 * (made at the first need, without a name: nothing is left behind), so that
 * a backfill of a long recording holds a few MB, not every sample's text;
 * the file takes about the exposition's size. wb_om_add() then returns
 * -errno when the file cannot be made or written. 0 or -ENOMEM.
 */
int wb_om_spill_to(struct wb_om *m, const char *dir);
/*
 * The families with every series added since the last clear, each family's
 * series together. Returns a NUL-terminated buffer the caller frees (length
 * in *len), NULL on out of memory.
 */
char *wb_om_render(const struct wb_om *m, enum wb_om_fmt fmt, size_t *len);
/* The same written to f as it is made (nothing held whole). 0, or -errno when the
 * temporary file could not be read back; f's own errors are left in ferror(f). */
int wb_om_write(const struct wb_om *m, enum wb_om_fmt fmt, FILE *f);
/* 0 if path can be (re)written as a textfile: absent in a writable directory,
 * or a regular file; else -errno and a message naming it. */
int wb_om_file_check(const char *path, char *err, size_t n);
/* Replace path with buf atomically (temp file beside it + rename); checks path first. 0 or -errno, err set. */
int wb_om_write_file(const char *path, const char *buf, size_t len, char *err, size_t n);
/*
 * The textfile written by a thread (textfile.c), so that a write the kernel
 * throttles does not hold the sampling loop. put: hands over a copy of text
 * and waits up to 100 ms for its write; 0, or the newest finished write's
 * -errno with err filled (this text's when it finished in time). create:
 * NULL on out of memory (without a thread, put writes itself). destroy:
 * writes the newest text first (NULL: nothing).
 */
struct wb_textfile;
struct wb_textfile *wb_textfile_create(const char *path);
int wb_textfile_put(struct wb_textfile *t, const char *text, size_t len, char *err, size_t n);
void wb_textfile_destroy(struct wb_textfile *t);
/* Append value to buf as a label value: \ " and newline escaped, other control bytes and
 * bytes that are not UTF-8 dropped. Exposed for tests. Returns the length written. */
size_t wb_om_escape(char *buf, size_t size, const char *value);

/*
 * A sink of the pipeline: for each view, renders both formats and hands them
 * to publish(cls, text, tlen, om, olen), which takes the buffers; with a file,
 * also rewrites it (Prometheus text, for node_exporter's textfile collector).
 * A failed write is a warning of the sink (retried at the next view).
 * Free with wb_om_sink_destroy(); NULL on out of memory.
 */
typedef void (*wb_om_publish_fn)(void *cls, char *text, size_t tlen, char *om, size_t olen);
struct wb_om_sink;
struct wb_om_sink *wb_om_sink_create(const char *file, wb_om_publish_fn publish, void *cls);
void wb_om_sink_destroy(struct wb_om_sink *t);
void wb_om_sink_bind(struct wb_om_sink *t, struct wb_pipeline_sink *k);

#endif
