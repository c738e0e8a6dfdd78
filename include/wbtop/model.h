/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model: the kernel's writeback arithmetic (shared/docs/writeback-model.md)
 * as pure functions of a sample and a set of knobs. No I/O, no globals.
 *
 *   limits   - dirtyable memory, global/background/node/per-BDI thresholds
 *   control  - freerun/throttled state, position ratio, pause (control.c)
 *   forecast - time-stepped prediction (forecast.c)
 *   whatif   - the same on a proposed knob set (whatif.c)
 */
#ifndef WBTOP_MODEL_H
#define WBTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wbtop/sample.h"

#define WB_RATIO_FULL 1000000ULL   /* 100 % in the kernel's ppm units (100 * BDI_RATIO_SCALE) */
#define WB_THRESH_CAP 0xffffffffULL /* thresholds fit in 32 bits (6.10+) */

/* The writeback settings the model computes with. */
struct wb_settings {
	uint64_t dirty_ratio, dirty_bytes, bg_ratio, bg_bytes;
	uint64_t expire_cs, writeback_cs;
	size_t nbdis;
	struct wb_bdi_knobs {
		char name[WB_NAME_LEN];
		uint64_t min_ppm, max_ppm; /* parts per million */
		bool strict;
	} *bdis;                        /* owned */
};

/* Where a BDI's writeout fraction came from. */
enum wb_frac_src {
	WB_FRAC_NONE,      /* unknown: only the reserve and the idle floor are certain */
	WB_FRAC_DEBUGFS,   /* inverted from the kernel's BdiDirtyThresh: exact */
	WB_FRAC_FLOOR,     /* kernel showed the idle floor: fraction below it, taken as 0 */
	WB_FRAC_CAPPED,    /* kernel showed the max_ratio cap: fraction at least this */
};

/* Per-BDI control state, from least to most constrained. */
enum wb_bdi_state {
	WB_ST_IDLE,        /* nothing dirty */
	WB_ST_FLUSHING,    /* background writeback condition holds or pages under writeback */
	WB_ST_THROTTLED,   /* writers would be paused by balance_dirty_pages */
	WB_ST_OVER,        /* at or over its hard limit: writers blocked */
	WB_ST_COUNT
};
extern const char *const wb_bdi_state_names[WB_ST_COUNT];

/* How a share the kernel's figure hides (frac_hidden) was taken. */
enum wb_hidden_how {
	WB_HID_NONE,       /* not hidden */
	WB_HID_GUESS,      /* no history: the cap's share with its own pages, else 0 */
	WB_HID_READ,       /* what the other devices' figures leave (exact to their slack) */
	WB_HID_REPLAYED,   /* the figures said nothing: the kernel's count replayed from completions */
	WB_HID_COUNT
};

/*
 * What outputs say of each: the JSON's share_hidden word (NULL: absent) and
 * --apply's phrase (WB_HID_NONE's: a cap that shows a share, at least it).
 */
extern const struct wb_hidden_text {
	const char *word, *phrase;
} wb_hidden_texts[WB_HID_COUNT];

struct wb_bdi_limits {
	char name[WB_NAME_LEN];
	bool valid;                /* thresholds computed */
	enum wb_frac_src frac_src;
	uint64_t frac_num, frac_den; /* writeout fraction num/den */
	bool frac_hidden;          /* capped, the floor alone at the cap: the kernel's figure hides the share */
	enum wb_hidden_how hidden_how;
	bool lifted;               /* what-if: a cap raised over the share it held, frac_* a second after (wb_model_lift_caps) */
	uint64_t min_ppm, max_ppm; /* the knobs the thresholds were computed with */
	uint64_t thresh;           /* wb_thresh against the dirty threshold */
	uint64_t bg_thresh;        /* flusher's per-wb background threshold */
	uint64_t bdp_bg_thresh;    /* wb_bg_thresh in balance_dirty_pages: thresh*bg/thresh */
	uint64_t wb_max;           /* the max_ratio cap */
	uint64_t floor;            /* the idle-device floor */
	bool dirty_known;
	uint64_t wb_dirty;         /* reclaimable + writeback */
	bool strict;
	/* control layer (control.c) */
	enum wb_bdi_state state;
	int8_t dirtying;           /* a writer since the previous sample: 1 more pages dirtied than the
				    * counters' slack or a traced pause, -1 not, 0 unknown (wb_model_eval) */
	bool over_bg;              /* wb_over_bg_thresh holds now */
	int64_t pos_ratio;         /* 1024 = 1.0; -1 when freerun */
	uint64_t dirty_ratelimit;  /* pages/s: the kernel's (tracepoint) or the bandwidth */
	bool ratelimit_traced;     /* dirty_ratelimit is the kernel's, from this interval */
	uint64_t task_ratelimit;   /* pages/s a single writer is let dirty now: 0 blocked */
	uint32_t pause_ms;         /* pause per check interval, a single writer */
	double drain_s;            /* wb_dirty / write bandwidth; < 0 unknown */
	double bw;                 /* write bandwidth used, pages/s; 0 unknown */
};

/*
 * bl's thresholds are the device's own: computed, with its writeout share
 * known (debugfs, level 2). Without the share the model holds a lower bound,
 * which every output shows as unknown ("-").
 */
static inline bool wb_bdi_thresh_known(const struct wb_bdi_limits *bl)
{
	return bl && bl->valid && bl->frac_src != WB_FRAC_NONE;
}

struct wb_node_limits {
	int id;
	uint64_t dirtyable, limit, dirty;
	bool over;                 /* node_dirty_ok fails: page cache steered elsewhere */
};

struct wb_limits {
	bool valid;                /* global thresholds computed */
	uint64_t reserve;          /* totalreserve_pages from zoneinfo */
	uint64_t dirtyable;        /* avail_global */
	bool calibrated;           /* avail recovered from the kernel's thresholds */
	uint64_t thresh, bg, freerun, limit, setpoint;
	uint64_t dirty;            /* nr_dirty + nr_writeback */
	bool kernel_known;
	int64_t kernel_diff;       /* thresh - kernel nr_dirty_threshold */
	uint64_t sum_min_ppm;
	uint64_t ratelimit_pages;
	size_t nnodes;
	struct wb_node_limits *nodes; /* owned */
	size_t nbdis;
	struct wb_bdi_limits *bdis;   /* owned, same order as the sample's BDIs */
};

/* Settings as the sample shows them. Caller frees with wb_settings_finish(). */
int wb_settings_from_sample(struct wb_settings *k, const struct wb_sample *s);
void wb_settings_finish(struct wb_settings *k);
int wb_settings_copy(struct wb_settings *dst, const struct wb_settings *src);
struct wb_bdi_knobs *wb_settings_bdi(struct wb_settings *k, const char *name);

/* ---- limits: pure integer arithmetic ---- */
/* totalreserve_pages from the zones (high - boost + max protection, capped at managed). */
uint64_t wb_reserve_pages(const struct wb_zone *z, size_t nz);
/* avail = free - min(free, reserve) + file LRU + 1 */
uint64_t wb_dirtyable(uint64_t free, uint64_t reserve, uint64_t file_lru);
/* Global (thresh, bg) for avail under the settings (non-RT task). */
void wb_domain_limits(const struct wb_settings *k, uint64_t avail, uint32_t page_size,
		      uint64_t *thresh, uint64_t *bg);
/* Node dirty limit (section 3). */
uint64_t wb_node_dirty_limit(const struct wb_settings *k, uint64_t node_avail,
			     uint64_t global_avail, uint32_t page_size);
/* __wb_calc_thresh (6.14+) for domain threshold T and domain dirty D. */
uint64_t wb_calc_thresh(uint64_t T, uint64_t D, uint64_t sum_min_ppm, uint64_t min_ppm,
			uint64_t max_ppm, bool strict, uint64_t num, uint64_t den);
/*
 * Recover the fraction from the kernel's BdiDirtyThresh K (same T, D).
 * Returns the source kind and sets num/den.
 */
enum wb_frac_src wb_frac_invert(uint64_t K, uint64_t T, uint64_t D, uint64_t sum_min_ppm,
				uint64_t min_ppm, uint64_t max_ppm, bool strict,
				uint64_t *num, uint64_t *den);

/*
 * Everything in the limits layer for sample s under settings k (k == NULL:
 * the sample's own). Fractions come from `frac_from` (the sample whose
 * debugfs figures are inverted; usually s itself). out is freed with
 * wb_limits_finish(). Returns 0 or -ENOMEM.
 */
int wb_limits_compute(const struct wb_sample *s, const struct wb_settings *k,
		      const struct wb_limits *frac_from, struct wb_limits *out);
void wb_limits_finish(struct wb_limits *l);
const struct wb_bdi_limits *wb_limits_bdi(const struct wb_limits *l, const char *name);
/* The same, looking at index hint first (limits list their sample's devices in its order). */
const struct wb_bdi_limits *wb_limits_bdi_at(const struct wb_limits *l, const char *name, size_t hint);
/*
 * BDI i of l (computed for sample s) takes writeout share `share` (0..1),
 * no more than the least that reaches its cap, and its thresholds again.
 */
void wb_limits_set_share(struct wb_limits *l, const struct wb_sample *s, size_t i, double share);

/* ---- control (control.c) ---- */
/* Cubic global control line: 1024 at setpoint, 0 at limit, up to 2048. */
int64_t wb_pos_polynom(int64_t setpoint, int64_t dirty, int64_t limit);
/*
 * Pages a device's counters may show with nothing dirty: per-CPU counters
 * read without summing keep up to their batch per CPU (8 * (1 + ilog2 CPUs)).
 */
uint64_t wb_counter_slack(const struct wb_sample *s);
/*
 * Fill the control fields of every BDI of l: state, position ratio,
 * single-writer rate and pause, drain time. bw_pages_s[i] is the write
 * bandwidth of BDI i (pages/s, 0 = unknown); hz the kernel's HZ. The task
 * rate limit is the kernel's dirty_ratelimit times the position ratio when
 * s's tracepoints showed it, else the bandwidth times it.
 */
void wb_control_compute(struct wb_limits *l, const struct wb_sample *s,
			const double *bw_pages_s, unsigned hz);

/*
 * What BDI `name` completed over the samples of hist (newest first; those
 * no older than cur skipped, so it may hold cur) in which it had writeback
 * in flight throughout, up to WB_DRAIN_WINDOW_S back from cur: *pages and
 * *secs (0 seconds when it had none in flight at cur).
 */
#define WB_DRAIN_WINDOW_S 30.0
void wb_model_completed(const struct wb_sample *cur, const struct wb_ring *hist, const char *name,
			double *pages, double *secs);
/*
 * Re-time every BDI's drain_s in l (filled by wb_control_compute from the
 * kernel's bandwidth estimate) by what the device has shown it completes:
 * with writeback in flight for WB_DRAIN_MIN_S or more, its dirty pages over
 * the rate it completed meanwhile; unknown (-1) when it completed none
 * (stalled: --until-clean says so too). Watched for less, the estimate's.
 * The kernel's estimate moves only while someone dirties pages and a new
 * device's starts at 100 MB/s: a loop device throttled to 4 MiB/s still
 * showed 62-103 MB/s, 55M read 0.4-1.0 s against a real 10-13 s.
 */
#define WB_DRAIN_MIN_S 2.0
/*
 * Is pages_s (pages of page_size bytes a second) the kernel's starting
 * estimate (INIT_BW, 100 MiB/s), i.e. a device it has not measured? A
 * drain time from it would be a guess shown as a figure.
 */
static inline bool wb_bw_unmeasured(double pages_s, uint32_t page_size)
{
	return page_size && pages_s == (double)((100u << 20) / page_size);
}
void wb_model_drain(struct wb_limits *l, const struct wb_sample *cur, const struct wb_ring *hist);
/*
 * Every BDI of l whose share the kernel's figure hides (frac_hidden) takes
 * its part of the kernel's count of pages written back, replayed from the
 * samples of hist up to WB_SHARE_BACK_S back the kernel's way (every count
 * halved each WB_SHARE_PERIOD_S, a capped device's pages counted only up to
 * its cap), when over 4 MiB were written back; no more than the least that
 * reaches its cap. wb_model_eval_hist() calls it before the control layer,
 * which the thresholds feed.
 */
#define WB_SHARE_PERIOD_S 3.0
#define WB_SHARE_BACK_S 30.0
void wb_model_hidden_shares(struct wb_limits *l, const struct wb_sample *cur, const struct wb_ring *hist);
/*
 * What-if w of base: a BDI at its max_ratio cap in base (its share a least)
 * whose cap w raises takes the share replayed from hist a second after the
 * change (the kernel counts its completions again), marked lifted; the
 * forecast starts from it. wb_model_eval_hist() with a base calls it.
 */
void wb_model_lift_caps(struct wb_limits *w, const struct wb_limits *base, const struct wb_sample *cur,
			const struct wb_ring *hist);

/*
 * Write bandwidth per BDI of cur, pages/s (0 unknown): wb_stats' smoothed
 * estimate, else the BDI's, else the written-pages rate since prev.
 */
void wb_model_bandwidths(const struct wb_sample *prev, const struct wb_sample *cur, double *bw);
/*
 * limits + control in one call: the model of cur under settings k (NULL:
 * cur's own), fractions from base (NULL: inverted from cur). hz 0 = 250.
 */
int wb_model_eval(const struct wb_sample *prev, const struct wb_sample *cur,
		  const struct wb_settings *k, const struct wb_limits *base, unsigned hz,
		  struct wb_limits *out);
/* ... with the history that judges the shares the kernel's figures hide (hist: newest first, may hold cur). */
int wb_model_eval_hist(const struct wb_sample *prev, const struct wb_sample *cur, const struct wb_ring *hist,
		       const struct wb_settings *k, const struct wb_limits *base, unsigned hz, struct wb_limits *out);

#endif
