/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one data contract: a wb_sample is everything wbtop knows at one
 * instant. Sources (live, replay) fill it; sinks (UI, batch, recorder) and
 * the model read it. Every field group carries validity bits: a missing or
 * unreadable kernel file leaves its bits clear, it is not an error.
 *
 * Units inside are the kernel's: page counters in pages, bandwidth in
 * pages/s, sysctls as the kernel stores them. Outputs convert to bytes.
 */
#ifndef WBTOP_SAMPLE_H
#define WBTOP_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WB_NAME_LEN   32
#define WB_PATH_LEN   128
#define WB_MAX_MOUNTS 4
#define WB_MAX_ITEMS  4096 /* zones, BDIs or processes in a sample: what a recording's frame may hold */
#define WB_MAX_COUNT  (1ULL << 62) /* a page or sector count at or past it is damage: the model
				    * computes with them as int64 (and see wb_count_ok()) */
#define WB_COMM_LEN   16

/* Bit helpers for the validity masks. */
#define WB_BIT(i)          (1ULL << (i))
#define WB_HAS(mask, i)    (((mask) & WB_BIT(i)) != 0)

/* Access levels (design.md): each level adds a kind of kernel source. */
enum wb_level {
	WB_LEVEL_PROC = 0,    /* /proc only */
	WB_LEVEL_SYSFS = 1,   /* + /sys/class/bdi knobs and device names */
	WB_LEVEL_DEBUGFS = 2, /* + debugfs per-BDI stats (root) */
	WB_LEVEL_TRACE = 3,   /* + writeback tracepoints (root, tracefs) */
};

/* Why the levels above the one reached are missing: what the hint says. */
enum wb_level_why {
	WB_WHY_KERNEL = 0,    /* the kernel files were not readable: run as root, mount */
	WB_WHY_NO_TRACE,      /* level 3 turned off (--no-trace) */
	WB_WHY_FIXTURE,       /* a fixture tree (--root) has no more */
	WB_WHY_RECORDING,     /* the recording has no more */
	WB_WHY_NEED_ROOT,     /* live: debugfs is mounted, but root's: run as root */
	WB_WHY_NEED_MOUNT,    /* live, as root: debugfs is not mounted: --mount-debugfs */
	WB_WHY_NEED_ROOT_NO_TRACE,  /* the two above, level 3 turned off too (--no-trace) */
	WB_WHY_NEED_MOUNT_NO_TRACE,
	WB_WHY_COUNT
};

enum wb_sysctl {
	WB_SYS_DIRTY_RATIO,
	WB_SYS_DIRTY_BYTES,
	WB_SYS_BG_RATIO,
	WB_SYS_BG_BYTES,
	WB_SYS_EXPIRE_CS,
	WB_SYS_WRITEBACK_CS,
	WB_SYS_DIRTYTIME_EXPIRE,
	WB_SYS_LAPTOP_MODE,
	WB_SYS_COUNT
};

/* Global counters, all in pages except where noted. */
enum wb_gstat {
	WB_G_MEMTOTAL,        /* meminfo MemTotal */
	WB_G_MEMFREE,         /* meminfo MemFree: what dirtyable memory follows */
	WB_G_FREE_PAGES,      /* vmstat nr_free_pages */
	WB_G_ACTIVE_FILE,
	WB_G_INACTIVE_FILE,
	WB_G_DIRTY,           /* nr_dirty */
	WB_G_WRITEBACK,       /* nr_writeback */
	WB_G_WRITEBACK_TEMP,  /* nr_writeback_temp */
	WB_G_DIRTIED,         /* cumulative nr_dirtied */
	WB_G_WRITTEN,         /* cumulative nr_written */
	WB_G_DIRTY_THRESH,    /* kernel's nr_dirty_threshold */
	WB_G_BG_THRESH,       /* kernel's nr_dirty_background_threshold */
	WB_G_ZONE_WRITE_PENDING,
	WB_G_VMSCAN_WRITE,
	WB_G_VMSCAN_IMMEDIATE,
	WB_G_THROTTLED_WRITTEN,
	WB_G_PGROTATED,
	WB_G_PGSCAN,          /* sum of pgscan_* (events) */
	WB_G_PGSTEAL,         /* sum of pgsteal_* (events) */
	WB_G_ALLOCSTALL,      /* sum of allocstall_* (events) */
	WB_G_PROCS_UNREADABLE, /* processes whose /proc/PID/io we may not read (other users'); valid with the process table */
	WB_G_COUNT
};

struct wb_global {
	uint64_t v[WB_G_COUNT];
	uint64_t valid;
};

/* Per NUMA node, pages. */
enum wb_nstat {
	WB_N_MEMFREE,         /* node meminfo MemFree */
	WB_N_ACTIVE_FILE,
	WB_N_INACTIVE_FILE,
	WB_N_DIRTY,
	WB_N_WRITEBACK,
	WB_N_VMSCAN_WRITE,
	WB_N_VMSCAN_IMMEDIATE,
	WB_N_THROTTLED_WRITTEN,
	WB_N_COUNT
};

struct wb_node {
	int id;
	uint64_t v[WB_N_COUNT];
	uint64_t valid;
};

/* Per zone, pages (zoneinfo). */
enum wb_zstat {
	WB_Z_FREE,
	WB_Z_MIN,
	WB_Z_LOW,
	WB_Z_HIGH,            /* includes boost, as zoneinfo prints it */
	WB_Z_BOOST,
	WB_Z_SPANNED,
	WB_Z_PRESENT,
	WB_Z_MANAGED,
	WB_Z_PROTECTION,      /* max of lowmem_reserve[j] for j >= this zone */
	WB_Z_WRITE_PENDING,   /* nr_zone_write_pending */
	WB_Z_ACTIVE_FILE,
	WB_Z_INACTIVE_FILE,
	WB_Z_DIRTY,           /* only pre-4.8 kernels count dirty per zone */
	WB_Z_WRITEBACK,
	WB_Z_COUNT
};

struct wb_zone {
	int node;
	char name[16];
	uint64_t v[WB_Z_COUNT];
	uint64_t valid;
};

/* Per-BDI sysfs knobs, as the kernel reads them back. */
enum wb_knob {
	WB_K_MIN_RATIO,       /* percent */
	WB_K_MAX_RATIO,       /* percent */
	WB_K_MIN_RATIO_FINE,  /* parts per million */
	WB_K_MAX_RATIO_FINE,  /* parts per million */
	WB_K_MIN_BYTES,       /* bytes */
	WB_K_MAX_BYTES,       /* bytes */
	WB_K_STRICT_LIMIT,    /* 0/1 */
	WB_K_COUNT
};

/* Per-BDI debugfs figures (stats, and the root wb of wb_stats). */
enum wb_bstat {
	WB_B_WRITEBACK,       /* BdiWriteback, pages */
	WB_B_RECLAIMABLE,     /* BdiReclaimable, pages */
	WB_B_THRESH,          /* BdiDirtyThresh, pages */
	WB_B_DIRTY_THRESH,    /* DirtyThresh (global, at read time), pages */
	WB_B_BG_THRESH,       /* BackgroundThresh (global), pages */
	WB_B_DIRTIED,         /* BdiDirtied, pages, cumulative */
	WB_B_WRITTEN,         /* BdiWritten, pages, cumulative */
	WB_B_BDI_BW,          /* BdiWriteBandwidth, pages/s (0 while no dirty inode) */
	WB_B_B_DIRTY,         /* inode list lengths */
	WB_B_B_IO,
	WB_B_B_MORE_IO,
	WB_B_B_DIRTY_TIME,
	WB_B_STATE,           /* wb state bits */
	WB_B_WB_BW,           /* wb_stats WbWriteBandwidth (root wb), pages/s */
	WB_B_WB_THRESH,       /* wb_stats WbDirtyThresh (root wb), pages */
	WB_B_NR_WBS,          /* number of wbs in wb_stats */
	WB_B_COUNT
};

/* Block-device side (diskstats), when the BDI is a block device. */
enum wb_dstat {
	WB_D_WRITE_SECTORS,   /* cumulative 512-byte sectors written */
	WB_D_INFLIGHT,
	WB_D_COUNT
};

#define WB_REASONS 8          /* writeback reasons (decoded from the tracepoint format) */
#define WB_RECLAIM_REASONS 4  /* reclaim throttle reasons */
#define WB_EVLOG_MAX 64       /* events kept per sample for the live log */

/* Per-BDI tracepoint figures since the previous sample (level 3). */
struct wb_bdi_events {
	uint32_t wake_bg;             /* writeback_wake_background */
	uint32_t start[WB_REASONS];   /* writeback_start by reason */
	uint32_t pauses;              /* balance_dirty_pages with pause > 0 */
	uint64_t pause_ms_total;
	uint32_t pause_ms_max;
	uint64_t task_ratelimit;      /* last seen, pages/s */
	uint64_t dirty_ratelimit;     /* last seen, pages/s */
	uint64_t balanced_ratelimit;  /* last seen (bdi_dirty_ratelimit), pages/s */
	uint64_t wb_dirty_at_wake;    /* wb_dirty of the last throttle event, pages */
	uint32_t dirtied_max;         /* most pages a task dirtied before one pause
				       * (balance_dirty_pages "dirtied"); 0 unknown */
};
/* "dirtied" values from here up are not counts (see trace.c) */
#define WB_DIRTIED_SANE (1u << 24)

enum wb_evkind { WB_EV_WAKE_BG, WB_EV_START, WB_EV_PAUSE, WB_EV_RECLAIM, WB_EV_COUNT };

/* One event for the live log. */
struct wb_event {
	double t;                     /* CLOCK_MONOTONIC seconds (trace_clock mono) */
	uint8_t kind, reason;
	int32_t pid;
	char bdi[WB_NAME_LEN];
	char comm[WB_COMM_LEN];
	uint64_t value;               /* start: nr_pages; pause: ms; reclaim: usec delayed */
	uint64_t extra;               /* pause: wb_dirty pages; wake: reclaimable pages */
};

struct wb_bdi {
	char name[WB_NAME_LEN];      /* /sys/class/bdi entry: "7:0", "btrfs-3" */
	char dev[WB_NAME_LEN];       /* block device name ("loop0"), or "" */
	char fstype[16];             /* of the first mount, or "" */
	char mounts[WB_MAX_MOUNTS][WB_PATH_LEN];
	int nmounts;
	uint64_t knob[WB_K_COUNT];
	uint64_t knob_valid;
	uint64_t st[WB_B_COUNT];
	uint64_t st_valid;
	uint64_t disk[WB_D_COUNT];
	uint64_t disk_valid;
	struct wb_bdi_events ev;     /* valid when the sample's ev_valid */
	uint32_t stats_cost_us;      /* what reading debugfs stats cost */
	bool stats_skipped;          /* stats not re-read this sample (back-off) */
};

struct wb_proc {
	int pid;
	char comm[WB_COMM_LEN];
	char state;                  /* R, S, D, ... */
	bool throttled;              /* wchan is balance_dirty_pages */
	uint64_t write_bytes;        /* cumulative, /proc/PID/io */
	uint64_t cancelled_write_bytes;
	uint64_t write_bytes_delta;  /* since the previous sample */
	uint64_t cancelled_delta;
};

struct wb_sample {
	double mono;                 /* CLOCK_MONOTONIC, seconds */
	double wall;                 /* CLOCK_REALTIME, seconds */
	uint32_t page_size;
	uint32_t ncpus;              /* online CPUs */
	int level;                   /* enum wb_level reached */
	int level_why;               /* enum wb_level_why: why not higher (not recorded) */
	uint64_t sys[WB_SYS_COUNT];
	uint64_t sys_valid;
	struct wb_global g;
	struct wb_node *nodes;
	size_t nnodes;
	struct wb_zone *zones;
	size_t nzones;
	struct wb_bdi *bdis;
	size_t nbdis;
	struct wb_proc *procs;
	size_t nprocs;
	bool procs_valid;            /* the process table was read */
	/* level 3: tracepoints since the previous sample */
	bool ev_valid;
	char reason_names[WB_REASONS][16];
	char reclaim_names[WB_RECLAIM_REASONS][16];
	uint32_t reclaim_throttled[WB_RECLAIM_REASONS];
	uint64_t reclaim_delay_us;
	bool dirty_limit_valid;
	uint64_t dirty_limit;        /* the smoothed hard limit (global_dirty_state), pages */
	uint64_t ev_total, ev_dropped, ev_lost_log; /* handled, lost in the kernel, not kept in the log */
	struct wb_event *events;     /* bounded log, oldest first */
	size_t nevents;
};

/*
 * Can a kernel have count v of things of unit bytes (a page size; 512 for
 * sectors; 0: not bytes)? Under WB_MAX_COUNT, and in bytes within 64 bits:
 * every output shows pages as bytes, and 2^62-1 pages of 4 KiB wrapped to
 * 18446744073709547520 bytes in the JSON. 16 EiB is no kernel's.
 */
static inline bool wb_count_ok(uint64_t v, uint64_t unit)
{
	return v < WB_MAX_COUNT && (unit == 0 || v <= UINT64_MAX / unit);
}

/* Names of the table-driven fields, for outputs (index = enum value). */
extern const char *const wb_sysctl_names[WB_SYS_COUNT];
extern const char *const wb_knob_names[WB_K_COUNT];
/*
 * The most a kernel's file holds for each (0 is the least); more is damage
 * in a tree or a recording, never a kernel's, and is not taken (the model
 * took dirty_ratio 2^64-1 as it was: a 16 TiB threshold).
 */
extern const uint64_t wb_sysctl_max[WB_SYS_COUNT];
extern const uint64_t wb_knob_max[WB_K_COUNT];

/* Zero a sample; wb_sample_finish() frees its arrays (NULL-safe). */
void wb_sample_init(struct wb_sample *s);
void wb_sample_finish(struct wb_sample *s);
/* Deep copy; dst must be initialised. Returns 0 or -ENOMEM. */
int wb_sample_copy(struct wb_sample *dst, const struct wb_sample *src);
/* Find a BDI by its sysfs name; NULL if absent. */
const struct wb_bdi *wb_sample_bdi(const struct wb_sample *s, const char *name);
/* The same, looking at index hint first: where the device is in another sample of the same machine. */
const struct wb_bdi *wb_sample_bdi_at(const struct wb_sample *s, const char *name, size_t hint);
/*
 * A count at time t estimated from its values at t0 and t1 (t0 < t1), linearly;
 * t outside [t0, t1] takes the nearer end. t1 <= t0 gives the value at t1.
 */
uint64_t wb_lerp_count(uint64_t v0, double t0, uint64_t v1, double t1, double t);
/* Pages to bytes with the sample's page size. */
static inline uint64_t wb_pages_to_bytes(const struct wb_sample *s, uint64_t pages)
{
	return pages * (uint64_t)s->page_size;
}

/*
 * History ring: the last N samples (deep copies, owned by the ring), for
 * rates and sparklines.
 */
struct wb_ring;
/* Caller frees with wb_ring_destroy(). NULL on out of memory. */
struct wb_ring *wb_ring_create(size_t capacity);
void wb_ring_destroy(struct wb_ring *r);
/* Copy s into the ring. 0 or -ENOMEM. */
int wb_ring_push(struct wb_ring *r, const struct wb_sample *s);
size_t wb_ring_len(const struct wb_ring *r);
/* i = 0 is the newest sample; NULL if out of range. Owned by the ring. */
const struct wb_sample *wb_ring_get(const struct wb_ring *r, size_t i);
void wb_ring_clear(struct wb_ring *r);

/*
 * Per-second rates between two samples (older a, newer b). Counters that went
 * backwards (a BDI re-created, a counter reset) give an invalid rate: false.
 */
bool wb_rate_global(const struct wb_sample *a, const struct wb_sample *b,
		    enum wb_gstat k, double *per_s);
bool wb_rate_bdi(const struct wb_sample *a, const struct wb_sample *b,
		 const char *bdi, enum wb_bstat k, double *per_s);

#endif
