/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The description of a recorded sample, for format.c only: one section per
 * entity, each a table of fields, in the order of a frame; and the order of
 * the same fields in formats 1 and 2. A new field is one row here (a new
 * entry of an enum that sizes an array, none: the array's row takes it).
 * Not installed.
 */
#ifndef WBTOP_WBREC_FIELDS_H
#define WBTOP_WBREC_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "wbtop/sample.h"

#define MAX_ITEMS WB_MAX_ITEMS  /* zones, BDIs or processes in one frame; the collectors keep to it */
#define MAX_NODES 1024  /* the kernel's MAX_NUMNODES at its largest */


/* How a field is held in memory and written. */
enum ftype {
	T_U64, T_U32, T_U8, T_BOOL, T_INT, T_I32, T_CHAR, T_DBL, /* zigzag varints */
	T_UVI,    /* an int as a plain varint (structure ids) */
	T_STR,    /* a string field of sz bytes: length, then bytes */
	T_MOUNTS, /* a BDI's mount count (plain varint), then that many mount points */
	T_EVTIME, /* an event time: exact-ns flag, then ns delta from the previous event, or the double's bits */
};

/* What a number is stored relative to (BDI figures that mostly repeat another one). */
enum fref { R_NONE, R_BDI_ST };

/* The kinds of items a section walks: the sample itself or one of its arrays. */
enum kind { K_SAMPLE, K_NODE, K_ZONE, K_BDI, K_PROC, K_EVENT };

/* One field: n elements (an array over an enum), each one "slot" of its section. */
struct field {
	const char *name;
	uint8_t type, ref;
	uint16_t off, n, sz;   /* sz: a string's room; numbers' size follows from type */
	int64_t lo, hi;        /* when lo < hi: the values allowed (damage otherwise) */
};

enum { S_COUNTED = 1, S_STRUCT = 2, S_ABS = 4 };

/*
 * One entity's section. S_COUNTED: it carries its item count (and sizes the
 * array); S_STRUCT: key frames only (names and counts: equal structure
 * allows delta frames); S_ABS: never a delta (its shape changes every sample).
 */
struct section {
	uint8_t id, kind, flags;
	const struct field *f;
	size_t nf;
};

#define NUM(st, m, t, nm) { nm, t, R_NONE, offsetof(st, m), 1, 0, 0, 0 }
#define ARR(st, m, t, cnt, nm) { nm, t, R_NONE, offsetof(st, m), cnt, 0, 0, 0 }
#define STR(st, m, nm) { nm, T_STR, R_NONE, offsetof(st, m), 1, sizeof(((st *)0)->m), 0, 0 }
#define STRS(st, m, cnt, nm) { nm, T_STR, R_NONE, offsetof(st, m), cnt, sizeof(((st *)0)->m[0]), 0, 0 }
#define SEC(id, kind, flags, tab) { id, kind, flags, tab, sizeof(tab) / sizeof(tab[0]) }
#define S struct wb_sample
#define B struct wb_bdi

static const struct field f_nodes_st[] = { { "node id", T_UVI, R_NONE, offsetof(struct wb_node, id), 1, 0, 0, 0 } };
static const struct field f_zones_st[] = {
	{ "zone node", T_UVI, R_NONE, offsetof(struct wb_zone, node), 1, 0, 0, 0 },
	STR(struct wb_zone, name, "zone name"),
};
static const struct field f_bdis_st[] = {
	STR(B, name, "BDI name"), STR(B, dev, "device name"), STR(B, fstype, "fs type"),
	{ "mount count", T_MOUNTS, R_NONE, 0, 1, 0, 0, 0 },
};
static const struct field f_names[] = {
	STRS(S, reason_names, WB_REASONS, "reason name"),
	STRS(S, reclaim_names, WB_RECLAIM_REASONS, "reclaim reason name"),
};
static const struct field f_sample[] = {
	NUM(S, mono, T_DBL, "sample time"), NUM(S, wall, T_DBL, "wall clock time"),
	NUM(S, page_size, T_U32, "page size"), NUM(S, ncpus, T_U32, "CPU count"),
	{ "access level", T_INT, R_NONE, offsetof(S, level), 1, 0, WB_LEVEL_PROC, WB_LEVEL_TRACE },
};
/* An entity's validity bits come first, its enum-sized array last: a new enum entry appends a slot. */
static const struct field f_sysctl[] = { NUM(S, sys_valid, T_U64, "sysctl bits"),
					 ARR(S, sys, T_U64, WB_SYS_COUNT, "sysctl") };
static const struct field f_global[] = { NUM(S, g.valid, T_U64, "global bits"),
					 ARR(S, g.v, T_U64, WB_G_COUNT, "global counter") };
static const struct field f_node[] = { NUM(struct wb_node, valid, T_U64, "node bits"),
				       ARR(struct wb_node, v, T_U64, WB_N_COUNT, "node counter") };
static const struct field f_zone[] = { NUM(struct wb_zone, valid, T_U64, "zone bits"),
				       ARR(struct wb_zone, v, T_U64, WB_Z_COUNT, "zone counter") };
static const struct field f_knob[] = { NUM(B, knob_valid, T_U64, "knob bits"),
				       ARR(B, knob, T_U64, WB_K_COUNT, "BDI knob") };
static const struct field f_stats[] = {
	NUM(B, st_valid, T_U64, "stats bits"), NUM(B, stats_cost_us, T_U32, "stats cost"),
	NUM(B, stats_skipped, T_BOOL, "stats skipped"),
	{ "BDI stats value", T_U64, R_BDI_ST, offsetof(B, st), WB_B_COUNT, 0, 0, 0 },
};
static const struct field f_disk[] = { NUM(B, disk_valid, T_U64, "disk bits"),
				       ARR(B, disk, T_U64, WB_D_COUNT, "disk counter") };
static const struct field f_bdi_ev[] = {
	NUM(B, ev.wake_bg, T_U32, "background wakeups"),
	ARR(B, ev.start, T_U32, WB_REASONS, "writeback starts"),
	NUM(B, ev.pauses, T_U32, "pauses"), NUM(B, ev.pause_ms_total, T_U64, "pause total"),
	NUM(B, ev.pause_ms_max, T_U32, "pause max"), NUM(B, ev.task_ratelimit, T_U64, "task ratelimit"),
	NUM(B, ev.dirty_ratelimit, T_U64, "dirty ratelimit"),
	NUM(B, ev.balanced_ratelimit, T_U64, "balanced ratelimit"),
	NUM(B, ev.wb_dirty_at_wake, T_U64, "wb dirty at wake"),
	NUM(B, ev.dirtied_max, T_U32, "dirtied before a pause"),
};
static const struct field f_trace[] = {
	NUM(S, ev_valid, T_BOOL, "events valid"),
	ARR(S, reclaim_throttled, T_U32, WB_RECLAIM_REASONS, "reclaim throttled"),
	NUM(S, reclaim_delay_us, T_U64, "reclaim delay"), NUM(S, dirty_limit_valid, T_BOOL, "dirty limit valid"),
	NUM(S, dirty_limit, T_U64, "dirty limit"), NUM(S, ev_total, T_U64, "events"),
	NUM(S, ev_dropped, T_U64, "events dropped"), NUM(S, ev_lost_log, T_U64, "events not logged"),
	NUM(S, procs_valid, T_BOOL, "processes valid"),
};
static const struct field f_proc[] = {
	NUM(struct wb_proc, pid, T_INT, "process id"), STR(struct wb_proc, comm, "process name"),
	NUM(struct wb_proc, state, T_CHAR, "process state"), NUM(struct wb_proc, throttled, T_BOOL, "throttled"),
	NUM(struct wb_proc, write_bytes, T_U64, "write bytes"),
	NUM(struct wb_proc, cancelled_write_bytes, T_U64, "cancelled write bytes"),
	NUM(struct wb_proc, write_bytes_delta, T_U64, "write bytes delta"),
	NUM(struct wb_proc, cancelled_delta, T_U64, "cancelled delta"),
};
static const struct field f_event[] = {
	{ "event time", T_EVTIME, R_NONE, offsetof(struct wb_event, t), 1, 0, 0, 0 },
	NUM(struct wb_event, kind, T_U8, "event kind"), NUM(struct wb_event, reason, T_U8, "event reason"),
	NUM(struct wb_event, pid, T_I32, "event pid"), STR(struct wb_event, bdi, "event BDI"),
	STR(struct wb_event, comm, "event comm"), NUM(struct wb_event, value, T_U64, "event value"),
	NUM(struct wb_event, extra, T_U64, "event extra"),
};
#undef S
#undef B

/* Section ids leave gaps, so that a later section can be placed between two (ids only grow in a frame). */
enum {
	SEC_NODES_ST = 2, SEC_ZONES_ST = 4, SEC_BDIS_ST = 6, SEC_NAMES = 8, SEC_SAMPLE = 10, SEC_SYSCTL = 12,
	SEC_GLOBAL = 14, SEC_NODE = 16, SEC_ZONE = 18, SEC_KNOB = 20, SEC_STATS = 22, SEC_DISK = 24,
	SEC_BDI_EV = 26, SEC_TRACE = 28, SEC_PROC = 30, SEC_EVENT = 32,
};

/* The recording, entity by entity, in the order of a frame (references come before their users). */
static const struct section sections[] = {
	SEC(SEC_NODES_ST, K_NODE, S_COUNTED | S_STRUCT | S_ABS, f_nodes_st),
	SEC(SEC_ZONES_ST, K_ZONE, S_COUNTED | S_STRUCT | S_ABS, f_zones_st),
	SEC(SEC_BDIS_ST, K_BDI, S_COUNTED | S_STRUCT | S_ABS, f_bdis_st),
	SEC(SEC_NAMES, K_SAMPLE, S_STRUCT | S_ABS, f_names),
	SEC(SEC_SAMPLE, K_SAMPLE, 0, f_sample),
	SEC(SEC_SYSCTL, K_SAMPLE, 0, f_sysctl),
	SEC(SEC_GLOBAL, K_SAMPLE, 0, f_global),
	SEC(SEC_NODE, K_NODE, 0, f_node),
	SEC(SEC_ZONE, K_ZONE, 0, f_zone),
	SEC(SEC_KNOB, K_BDI, 0, f_knob),
	SEC(SEC_STATS, K_BDI, 0, f_stats),
	SEC(SEC_DISK, K_BDI, 0, f_disk),
	SEC(SEC_BDI_EV, K_BDI, 0, f_bdi_ev),
	SEC(SEC_TRACE, K_SAMPLE, 0, f_trace),
	SEC(SEC_PROC, K_PROC, S_COUNTED | S_ABS, f_proc),
	SEC(SEC_EVENT, K_EVENT, S_COUNTED | S_ABS, f_event),
};
#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))

/* The item kinds: what a count is called in messages, and its bound. */
static const struct {
	const char *count;
	size_t max;
} kinds[] = {
	[K_SAMPLE] = { "", 1 }, [K_NODE] = { "node count", MAX_NODES }, [K_ZONE] = { "zone count", MAX_ITEMS },
	[K_BDI] = { "BDI count", MAX_ITEMS }, [K_PROC] = { "process count", MAX_ITEMS },
	[K_EVENT] = { "event count", WB_EVLOG_MAX },
};


/*
 * Formats 1 and 2: the same fields, item by item, in the order they had
 * (validity bits after their arrays, a tail per BDI from minor 1). The
 * historic array lengths are spelled out: a new enum entry is not in them.
 */
struct step {
	uint8_t sec, from, to;  /* slots [from, to) of a section */
};
struct group {
	const struct step *st;
	size_t n;
};
#define GROUP(tab) { tab, sizeof(tab) / sizeof(tab[0]) }
static const struct step l_nodes_st[] = { { SEC_NODES_ST, 0, 1 } };
static const struct step l_zones_st[] = { { SEC_ZONES_ST, 0, 2 } };
static const struct step l_bdis_st[] = { { SEC_BDIS_ST, 0, 4 } };
static const struct step l_names[] = { { SEC_NAMES, 0, 12 } };
static const struct step l_sample[] = { { SEC_SAMPLE, 0, 5 }, { SEC_SYSCTL, 1, 9 }, { SEC_SYSCTL, 0, 1 },
					{ SEC_GLOBAL, 1, 21 }, { SEC_GLOBAL, 0, 1 } };
static const struct step l_node[] = { { SEC_NODE, 1, 9 }, { SEC_NODE, 0, 1 } };
static const struct step l_zone[] = { { SEC_ZONE, 1, 15 }, { SEC_ZONE, 0, 1 } };
static const struct step l_bdi[] = { { SEC_KNOB, 1, 8 }, { SEC_KNOB, 0, 1 }, { SEC_STATS, 3, 19 },
				     { SEC_STATS, 0, 1 }, { SEC_DISK, 1, 3 }, { SEC_DISK, 0, 1 },
				     { SEC_BDI_EV, 0, 16 }, { SEC_STATS, 1, 3 } };
static const struct step l_trace[] = { { SEC_TRACE, 0, 12 } };
static const struct step l_proc[] = { { SEC_PROC, 0, 8 } };
static const struct step l_event[] = { { SEC_EVENT, 0, 8 } };
static const struct step l_minor1[] = { { SEC_BDI_EV, 16, 17 } };
static const struct group legacy_structure[] = { GROUP(l_nodes_st), GROUP(l_zones_st), GROUP(l_bdis_st),
						 GROUP(l_names) };
static const struct group legacy_numbers[] = { GROUP(l_sample), GROUP(l_node), GROUP(l_zone), GROUP(l_bdi),
					       GROUP(l_trace), GROUP(l_proc), GROUP(l_event) };
static const struct group legacy_minor1 = GROUP(l_minor1);

_Static_assert(WB_SYS_COUNT >= 8 && WB_G_COUNT >= 20 && WB_N_COUNT >= 8 && WB_Z_COUNT >= 14 &&
		       WB_K_COUNT >= 7 && WB_B_COUNT >= 16 && WB_D_COUNT >= 2 && WB_REASONS == 8 &&
		       WB_RECLAIM_REASONS == 4,
	       "formats 1 and 2 hold these many: an enum may grow, never shrink");

#endif
