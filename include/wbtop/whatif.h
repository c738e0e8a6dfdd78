/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What-if: apply proposed knob writes to a settings set with the kernel's
 * write semantics and validation (writeback-model.md 2.3 and 4.4), then run
 * the model on it.
 */
#ifndef WBTOP_WHATIF_H
#define WBTOP_WHATIF_H

#include <stddef.h>

#include "wbtop/model.h"

/* A parsed KEY=VALUE. */
struct wb_setop {
	char key[96];       /* as given: "vm.dirty_ratio", "bdi.loop0.max_ratio" */
	char bdi[WB_NAME_LEN]; /* resolved BDI sysfs name for bdi.* keys */
	int knob;           /* enum wb_sysctl for vm.*, enum wb_knob for bdi.* */
	bool is_bdi;
	uint64_t value;     /* in the kernel's unit for that file */
};

/*
 * Parse "KEY=VALUE" against the sample (BDIs named by MAJ:MIN or device
 * name). Units: bytes keys take K/M/G/T suffixes (powers of 1024), ratio
 * keys an optional '%', *_fine keys ppm. The value is checked against the
 * kernel's range for the knob (wb_knob_check, with s's page size). 0, or
 * -EINVAL (-ERANGE where the kernel says so) with a one-line message.
 */
int wb_setop_parse(const char *arg, const struct wb_sample *s, struct wb_setop *op,
		   char *err, size_t errlen);

/*
 * ops[n] against ops[0..n-1]: the same knob of the same device named twice
 * (bdi.7:0.max_ratio and bdi.loop0.max_ratio): which value was meant? -EINVAL
 * with a one-line message naming both, else 0.
 */
int wb_setop_clash(const struct wb_setop *ops, int n, char *err, size_t errlen);

/*
 * Apply op to k as the kernel would apply the write, given the current
 * limits cur (for the *_bytes conversions and range checks). Invalid writes
 * are refused with the kernel's rule in err: -EINVAL or -ERANGE, k unchanged.
 */
int wb_settings_apply(struct wb_settings *k, const struct wb_limits *cur, uint32_t page_size,
		      const struct wb_setop *op, char *err, size_t errlen);

/* The knob catalogue: how many, and entry i (name, vm or per-BDI, enum, range, help). */
size_t wb_knob_count(void);
void wb_knob_info(size_t i, const char **name, bool *is_bdi, int *knob, const char **range,
		  const char **help);

/* The catalogue index of knob NAME ("dirty_ratio", or a per-BDI "max_ratio"), or -1. */
int wb_knob_find(const char *name, bool is_bdi);

/*
 * Is v within the kernel's range for knob i (page_size: for the bounds the
 * kernel counts in pages; 0 if unknown)? 0, or the kernel's answer with
 * "KEY=V: why" in err: -EINVAL, -ERANGE for bytes over 2^32-1 pages. The
 * rules between knobs (min <= max, the min_ratio sum, bytes of today's
 * threshold) are wb_settings_apply's.
 */
int wb_knob_check(size_t i, const char *key, uint64_t v, uint32_t page_size, char *err, size_t errlen);
/*
 * A caution for a change the kernel takes but that stops every writer: a
 * global dirty threshold of 0 where it is not 0 now (vm.dirty_bytes within
 * a page of 2^64 wraps to 0 pages in the kernel's rounding up). NULL if none.
 */
const char *wb_whatif_caution(const struct wb_limits *now, const struct wb_limits *then);

/* The file a setop writes, relative to "/" (e.g. "proc/sys/vm/dirty_ratio"). */
void wb_setop_path(const struct wb_setop *op, char *buf, size_t len);

#endif
