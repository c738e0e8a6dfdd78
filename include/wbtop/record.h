/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recordings (.wbrec, see wbrec(5)): a versioned header, then append-only
 * frames. Each frame is one sample (or a note such as a knob change),
 * serialized losslessly, delta-encoded against the previous sample when the
 * set of nodes/zones/BDIs is unchanged, and compressed with zstd as one
 * stream per keyframe group (a keyframe every WB_REC_KEYEVERY frames or when
 * the structure changes) so that any keyframe starts an independent decode.
 * Every frame carries its length and a CRC: a torn last frame (crash,
 * kill -9) is detected and everything before it replays.
 */
#ifndef WBTOP_RECORD_H
#define WBTOP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wbtop/sample.h"

#define WB_REC_MAJOR 3  /* 3: a section per entity (format.c); 1 and 2 are still read */
#define WB_REC_MINOR 0
#define WB_REC_KEYEVERY 256
#define WB_REC_MAX_FRAME (16u << 20)  /* larger lengths are damage, not data */

/*
 * What a recording says about where it was made (for a replay's header):
 * host name, kernel release (uname -r), boot id, wbtop version; page size.
 * Read back, strings are NUL-terminated, cut to their fields, with control
 * characters replaced by '?'; "" or 0 when the file does not have them.
 */
struct wb_rec_header {
	uint16_t major, minor;
	char host[64], kernel[64], boot_id[40], tool[32];
	uint32_t page_size;
	double interval;
	double created;             /* wall clock */
};

/* ---- serialization (format.c), pure: used by the writer and reader ---- */

/* A growable byte buffer. */
struct wb_buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};
void wb_buf_free(struct wb_buf *b);

/* The sample's structure (names, counts) as bytes; equal structure => deltas allowed. */
void wb_rec_structure(const struct wb_sample *s, struct wb_buf *out);
/* Would a and b give the same wb_rec_structure() bytes? Compared field by field, nothing encoded. */
bool wb_rec_same_structure(const struct wb_sample *a, const struct wb_sample *b);
/*
 * Encode s in the current format. With prev (same structure), numbers are
 * deltas against it (a delta frame); without, a key frame with the structure.
 */
void wb_rec_encode(const struct wb_sample *s, const struct wb_sample *prev, struct wb_buf *out);
/* The same in format major.minor (1.0, 2.0, 2.1 or 3.0: tests write old formats). 0, or -1. */
int wb_rec_encode_as(const struct wb_sample *s, const struct wb_sample *prev, unsigned major, unsigned minor,
		     struct wb_buf *out);
/*
 * Decode a frame of format major.minor into s (initialised or filled). prev
 * is the previous decoded sample for delta frames; sc (format 3) what the
 * key frame said about its sections, filled by a key frame (may be NULL) and
 * needed by the delta frames after it. What a newer writer added (a field, a
 * section; a newer minor's tail in format 2) is skipped. 0, or -1 with a
 * message naming the problem.
 */
struct wbrec_schema;
int wb_rec_decode(const uint8_t *p, size_t len, bool key, unsigned major, unsigned minor,
		  const struct wb_sample *prev, struct wbrec_schema *sc, struct wb_sample *s, char *err,
		  size_t errlen);

/* ---- writer (writer.c) ---- */
struct wb_rec_writer;
#define WB_REC_REPLACE 1u  /* wb_rec_start: replace an existing regular file (--force) */
/*
 * Start recording to FILE (--record). Never through a symlink, never to
 * anything but a regular file. New or empty: a header is written. An
 * existing recording of this boot, format and page size is appended to,
 * after its last whole frame, with a note "recording resumed"; any other
 * existing file is refused with a message, unless flags has WB_REC_REPLACE
 * (then it is emptied at the first frame written, not here).
 * max_bytes > 0: when the file would grow past it, rotate to FILE.1 (one
 * old file kept); under twice a file's header and first sample, nothing is
 * written of that sample, the file is left as it was before this start (or
 * removed, if it made it) and writing stops (wb_rec_least_size()). FILE.1 is replaced only
 * when absent, empty or a recording (wb_rec_is_recording()): anything else
 * is refused here, before FILE is opened, or, put there since, stops
 * writing at the rotation as a write error does. NULL with a message
 * (naming the file) on error.
 */
struct wb_rec_writer *wb_rec_start(const char *path, const struct wb_rec_header *h, uint64_t max_bytes,
				   unsigned flags, char *err, size_t errlen);
/*
 * Can a recording go to path? 0, or -EINVAL with a message naming it when it
 * is a FIFO or a socket (a stream: a recording is appended to, its size
 * checked at every sample, read back after a restart). Nothing is opened,
 * so no reader of the pipe sees an end. wb_rec_start() checks it first too.
 */
int wb_rec_check_path(const char *path, char *err, size_t errlen);
/* FILE.1, where --max-size moves the recording at path, into out (n bytes). false if it does not fit. */
bool wb_rec_rotated_path(const char *path, char *out, size_t n);
/* wb_rec_start(..., WB_REC_REPLACE, ...): a new recording, whatever regular file was there. */
struct wb_rec_writer *wb_rec_create(const char *path, const struct wb_rec_header *h,
				    uint64_t max_bytes, char *err, size_t errlen);
/*
 * Append a sample: the frame is queued for the writer's thread (so that a
 * write throttled by the kernel does not hold the caller), or written
 * (write()) where no thread could be started. On a write error (a full
 * disk, a size limit), found by this call or a later one (or wb_rec_flush()),
 * the file is cut back to its last whole frame, wb_rec_error() says why, and
 * every later write fails.
 */
int wb_rec_write(struct wb_rec_writer *w, const struct wb_sample *s);
/* Wait until every queued frame is in the file: 0, or -errno as wb_rec_write (w NULL: 0). */
int wb_rec_flush(struct wb_rec_writer *w);
/* Append a note (e.g. "set vm.dirty_ratio=10 (was 20)") at time mono. */
int wb_rec_note(struct wb_rec_writer *w, double mono, double wall, const char *text);
uint64_t wb_rec_bytes(const struct wb_rec_writer *w);
/* The max_bytes refused as too small for the first sample: the least that makes sense, bytes; 0: none (w NULL too). */
uint64_t wb_rec_least_size(const struct wb_rec_writer *w);
/* Why writing stopped (names the file and the error; owned by w), or NULL. */
const char *wb_rec_error(const struct wb_rec_writer *w);
void wb_rec_close(struct wb_rec_writer *w);
/* Fill a header for this machine (host, kernel, boot id, page size, version). */
void wb_rec_header_local(struct wb_rec_header *h, double interval);
/*
 * The same for samples read under root (--root DIR, a fixture tree): the
 * boot id is the tree's own (DIR/proc/sys/kernel/random/boot_id), else
 * "tree:" and a hash of DIR's real path and this boot's id: never a running
 * kernel's (a UUID), so that a recording of a tree and one of the kernel are
 * not appended to each other, while the same tree recorded again in this
 * boot (its samples' clock is this boot's) goes on in one recording. root
 * NULL or "/": wb_rec_header_local().
 */
void wb_rec_header_root(struct wb_rec_header *h, double interval, const char *root);

/* ---- recorder (recorder.c): the pipeline's sink that writes to a writer ---- */
struct wb_recorder;
struct wb_pipeline_sink;
/*
 * A recorder of every sample the pipeline takes into w (which the caller
 * keeps and closes after wb_recorder_destroy), with a note for each knob
 * changed between two samples by someone other than wbtop. NULL on out of
 * memory; free with wb_recorder_destroy() (NULL-safe).
 */
struct wb_recorder *wb_recorder_create(struct wb_rec_writer *w);
void wb_recorder_destroy(struct wb_recorder *r);
/* The recorder as a pipeline sink (wb_pipeline_opts.sinks); sink is filled, r stays the owner. */
void wb_recorder_sink(struct wb_recorder *r, struct wb_pipeline_sink *sink);
/* "recording stopped: <the file and the error>" once writing failed, else NULL (also for r NULL). */
const char *wb_recorder_error(const struct wb_recorder *r);
/* Wait until what was recorded is in the file; true if writing failed only now (r NULL: false). */
bool wb_recorder_flush(struct wb_recorder *r);

/* ---- reader (reader.c) ---- */
struct wb_rec_reader;
/*
 * Open and index FILE (mmap). A torn tail is not an error: it is reported
 * in *warn (may be NULL) and the frames before it are available. NULL with
 * a message (naming the offset) when the file cannot be used at all.
 */
struct wb_rec_reader *wb_rec_open(const char *path, char *err, size_t errlen, char *warn,
				  size_t warnlen);
void wb_rec_close_reader(struct wb_rec_reader *r);
/*
 * Does the file open at fd begin as a recording (its magic, or as much of it
 * as a file cut short there holds: what wb_rec_open() checks first)? 1 yes,
 * 0 no (an empty file too), -errno when it cannot be read.
 */
int wb_rec_is_recording(int fd);
/* The recording's header (owned by r): host, kernel release, page size, interval... */
const struct wb_rec_header *wb_rec_header_of(const struct wb_rec_reader *r);
size_t wb_rec_count(const struct wb_rec_reader *r);       /* sample frames */
double wb_rec_time(const struct wb_rec_reader *r, size_t i); /* mono of sample i */
/* Sample i (0-based) into s. 0, or -1 with err. */
int wb_rec_read(struct wb_rec_reader *r, size_t i, struct wb_sample *s, char *err, size_t errlen);
/* The first sample after i that a key frame starts (decodes without those before it); count() if none. */
size_t wb_rec_next_key(const struct wb_rec_reader *r, size_t i);
/* First sample at or after mono time t (count() if none). */
size_t wb_rec_seek_time(const struct wb_rec_reader *r, double t);
/* Notes: count, and note k's time and text (owned by r). */
size_t wb_rec_notes(const struct wb_rec_reader *r);
const char *wb_rec_note_at(const struct wb_rec_reader *r, size_t k, double *mono);

#endif
