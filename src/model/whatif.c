// SPDX-License-Identifier: GPL-2.0-or-later
/* What-if: KEY=VALUE parsing and the kernel's write semantics per knob. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_model_internal.h"
#include "wbtop/util.h"
#include "wbtop/whatif.h"

enum unit { U_PERCENT, U_BYTES, U_PPM, U_CS, U_BOOL };

struct keydef {
	const char *name;   /* after "vm." or "bdi.<dev>." */
	bool is_bdi;
	int knob;
	enum unit unit;
	uint64_t min, max;  /* the kernel's range, in the knob's unit ... */
	uint32_t min_pages, max_pages; /* ... and, for bytes, in pages (0: none) */
	const char *range;  /* the same, for a person */
	const char *help;
};

#define INT_MAX_CS 2147483647ULL /* proc_dointvec: an int */

/*
 * The knob table the CLI, the journal and the tune pane walk. The ranges are
 * the kernel's (mm/page-writeback.c, mm/backing-dev.c; measured on 6.18):
 * dirty_bytes refuses less than two pages, 0 included; the bytes sysctls
 * refuse more than 2^32-1 pages (ERANGE); the centisecs are ints.
 */
static const struct keydef keys[] = {
	{ "dirty_ratio", false, WB_SYS_DIRTY_RATIO, U_PERCENT, 0, 100, 0, 0, "0-100 %",
	  "writers are throttled past this share of dirtyable memory; clears dirty_bytes" },
	{ "dirty_bytes", false, WB_SYS_DIRTY_BYTES, U_BYTES, 0, UINT64_MAX, 2, UINT32_MAX, ">= 2 pages",
	  "the same limit in bytes; clears dirty_ratio" },
	{ "dirty_background_ratio", false, WB_SYS_BG_RATIO, U_PERCENT, 0, 100, 0, 0, "0-100 %",
	  "the flusher starts writing past this share; clears dirty_background_bytes" },
	{ "dirty_background_bytes", false, WB_SYS_BG_BYTES, U_BYTES, 1, UINT64_MAX, 0, UINT32_MAX, ">= 1 byte",
	  "the background limit in bytes; clears dirty_background_ratio" },
	{ "dirty_expire_centisecs", false, WB_SYS_EXPIRE_CS, U_CS, 0, INT_MAX_CS, 0, 0, "0-2^31-1 cs",
	  "data older than this is written by the periodic flush" },
	{ "dirty_writeback_centisecs", false, WB_SYS_WRITEBACK_CS, U_CS, 0, INT_MAX_CS, 0, 0, "0-2^31-1 cs, 0 off",
	  "how often the periodic flush runs" },
	{ "min_ratio", true, WB_K_MIN_RATIO, U_PERCENT, 0, 100, 0, 0, "0-max %, sum < 100 %",
	  "a share of the threshold reserved for this device" },
	{ "max_ratio", true, WB_K_MAX_RATIO, U_PERCENT, 0, 100, 0, 0, "min-100 %",
	  "the most of the threshold this device may use" },
	{ "min_ratio_fine", true, WB_K_MIN_RATIO_FINE, U_PPM, 0, 1000000, 0, 0, "0-1000000 ppm",
	  "min_ratio in parts per million" },
	{ "max_ratio_fine", true, WB_K_MAX_RATIO_FINE, U_PPM, 0, 1000000, 0, 0, "0-1000000 ppm",
	  "max_ratio in parts per million" },
	{ "min_bytes", true, WB_K_MIN_BYTES, U_BYTES, 0, UINT64_MAX, 0, 0, "<= dirty thresh",
	  "min_ratio as bytes of today's threshold" },
	{ "max_bytes", true, WB_K_MAX_BYTES, U_BYTES, 0, UINT64_MAX, 0, 0, "<= dirty thresh",
	  "max_ratio as bytes of today's threshold" },
	{ "strict_limit", true, WB_K_STRICT_LIMIT, U_BOOL, 0, 1, 0, 0, "0 or 1",
	  "throttle this device's writers at its own limit, whatever the global state" },
};

size_t wb_knob_count(void)
{
	return sizeof(keys) / sizeof(keys[0]);
}

void wb_knob_info(size_t i, const char **name, bool *is_bdi, int *knob, const char **range,
		  const char **help)
{
	*name = keys[i].name;
	*is_bdi = keys[i].is_bdi;
	*knob = keys[i].knob;
	*range = keys[i].range;
	*help = keys[i].help;
}

int wb_knob_find(const char *name, bool is_bdi)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].is_bdi == is_bdi && strcmp(keys[i].name, name) == 0)
			return (int)i;
	return -1;
}

static const struct keydef *find_key(const char *name, bool is_bdi)
{
	int i = wb_knob_find(name, is_bdi);

	return i < 0 ? NULL : &keys[i];
}

/* The kernel's bounds for knob d on a kernel with page size P (0: unknown, page bounds not applied). */
static void bounds(const struct keydef *d, uint32_t P, uint64_t *lo, uint64_t *hi)
{
	*lo = d->min;
	*hi = d->max;
	if (P && d->min_pages && (uint64_t)d->min_pages * P > *lo)
		*lo = (uint64_t)d->min_pages * P;
	if (P && d->max_pages && (uint64_t)d->max_pages * P < *hi)
		*hi = (uint64_t)d->max_pages * P; /* DIV_ROUND_UP(v, P) <= max_pages */
}

/* The upper bound hi is the page count's (the kernel's ERANGE), not the type's (its EINVAL). */
#define P_BOUND(d, P, hi) ((P) && (d)->max_pages && (hi) < (d)->max)

int wb_knob_check(size_t i, const char *key, uint64_t v, uint32_t page_size, char *err, size_t errlen)
{
	const struct keydef *d = &keys[i];
	uint64_t lo, hi;

	bounds(d, page_size, &lo, &hi);
	/* the kernel's page check wraps within a page of 2^64: it takes those (a threshold of 0) */
	if (v >= lo && (v <= hi || (P_BOUND(d, page_size, hi) && wb_kernel_div_round_up(v, page_size) <= d->max_pages)))
		return 0;
	snprintf(err, errlen, "%s=%llu: %s the kernel's %s of %llu (it takes %s)", key, (unsigned long long)v,
		 v < lo ? "below" : "above", v < lo ? "minimum" : "maximum",
		 (unsigned long long)(v < lo ? lo : hi), d->range);
	return v > hi && P_BOUND(d, page_size, hi) ? -ERANGE : -EINVAL; /* as the kernel answers */
}

const char *wb_whatif_caution(const struct wb_limits *now, const struct wb_limits *then)
{
	if (!now || !then || then->thresh || !now->thresh)
		return NULL;
	/* both ways there, named: after vm.dirty_ratio=0 it explained only the second */
	return "the global dirty threshold would be 0: every writer is throttled at once "
	       "(vm.dirty_ratio 0 with vm.dirty_bytes 0, or vm.dirty_bytes within a page of 2^64, "
	       "which wraps to 0 in the kernel's rounding)";
}

/* Number with an optional unit suffix allowed by u. */
static int parse_value(const char *v, enum unit u, uint64_t *out, char *err, size_t errlen)
{
	const char *end;
	uint64_t x, mul = 1;
	char q[WB_QUOTE_LEN];

	wb_quote(v, q, sizeof(q)); /* the value as typed, for the messages */
	if (!wb_parse_u64(v, &end, &x)) {
		/* say which: 2^64 and more (digits that overflowed), a sign, or no number at all */
		if (isdigit((unsigned char)v[0]))
			snprintf(err, errlen, "\"%s\" is too large", q);
		else if (v[0] == '-' && isdigit((unsigned char)v[1]))
			snprintf(err, errlen, "\"%s\" is negative: the kernel takes 0 or more", q);
		else
			snprintf(err, errlen, "\"%s\" is not a whole number", q);
		return -EINVAL;
	}
	if (u == U_BYTES && *end) {
		static const char sfx[] = "KMGT";
		const char *p = strchr(sfx, toupper((unsigned char)*end));
		if (!p || !(end[1] == '\0' || ((end[1] == 'i' || end[1] == 'B') &&
					       (end[2] == '\0' || (end[2] == 'B' && !end[3])))))
			goto bad_unit;
		mul = 1ULL << (10 * (p - sfx + 1));
		end = "";
	} else if (u == U_PERCENT && *end == '%' && !end[1]) {
		end = "";
	}
	if (*end)
		goto bad_unit;
	if (x > UINT64_MAX / mul) {
		snprintf(err, errlen, "\"%s\" is too large", q);
		return -ERANGE;
	}
	*out = x * mul;
	return 0;
bad_unit:
	snprintf(err, errlen, "\"%s\": unknown unit (%s)", q,
		 u == U_BYTES ? "use bytes or K, M, G, T" : u == U_PERCENT ? "use a percent" : "no unit");
	return -EINVAL;
}

/* Resolve a BDI given by sysfs name or device name. */
static const struct wb_bdi *find_bdi(const struct wb_sample *s, const char *id)
{
	for (size_t i = 0; i < s->nbdis; i++)
		if (strcmp(s->bdis[i].name, id) == 0 || (s->bdis[i].dev[0] && strcmp(s->bdis[i].dev, id) == 0))
			return &s->bdis[i];
	return NULL;
}

int wb_setop_clash(const struct wb_setop *ops, int n, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++)
		if (ops[i].is_bdi == ops[n].is_bdi && ops[i].knob == ops[n].knob &&
		    (!ops[n].is_bdi || strcmp(ops[i].bdi, ops[n].bdi) == 0)) {
			snprintf(err, errlen, "%s and %s are the same knob: give it once", ops[i].key, ops[n].key);
			return -EINVAL;
		}
	return 0;
}

int wb_setop_parse(const char *arg, const struct wb_sample *s, struct wb_setop *op,
		   char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	const struct keydef *kd;
	char name[96], q[WB_QUOTE_LEN], qn[WB_QUOTE_LEN];

	memset(op, 0, sizeof(*op));
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(op->key)) {
		snprintf(err, errlen, "--set %s: expected KEY=VALUE", wb_quote(arg, q, sizeof(q)));
		return -EINVAL;
	}
	snprintf(op->key, sizeof(op->key), "%.*s", (int)(eq - arg), arg);
	wb_quote(op->key, q, sizeof(q)); /* as typed, for the messages: a known knob's key is plain */
	if (strncmp(op->key, "vm.", 3) == 0) {
		kd = find_key(op->key + 3, false);
	} else if (strncmp(op->key, "bdi.", 4) == 0) {
		const char *dot = strrchr(op->key + 4, '.');
		const struct wb_bdi *b;

		if (!dot || dot == op->key + 4) {
			snprintf(err, errlen, "%s: expected bdi.<MAJ:MIN or device>.<attribute>", q);
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(dot - op->key - 4), op->key + 4);
		b = find_bdi(s, name);
		if (!b) {
			snprintf(err, errlen, "%s: no backing device \"%s\" (see /sys/class/bdi)", q,
				 wb_quote(name, qn, sizeof(qn)));
			return -EINVAL;
		}
		snprintf(op->bdi, sizeof(op->bdi), "%s", b->name);
		kd = find_key(dot + 1, true);
	} else {
		kd = NULL;
	}
	if (!kd) {
		snprintf(err, errlen, "%s: unknown knob (vm.dirty_*, or bdi.<dev>.{min,max}_ratio[_fine], "
			 "{min,max}_bytes, strict_limit)", q);
		return -EINVAL;
	}
	op->is_bdi = kd->is_bdi;
	op->knob = kd->knob;
	if (parse_value(eq + 1, kd->unit, &op->value, err, errlen)) {
		char m[160];
		snprintf(m, sizeof(m), "%s", err);
		snprintf(err, errlen, "%s: %s", op->key, m);
		return -EINVAL;
	}
	return wb_knob_check((size_t)(kd - keys), op->key, op->value, s ? s->page_size : 0, err, errlen);
}

void wb_setop_path(const struct wb_setop *op, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].is_bdi == op->is_bdi && keys[i].knob == op->knob) {
			if (op->is_bdi)
				snprintf(buf, len, "sys/class/bdi/%s/%s", op->bdi, keys[i].name);
			else
				snprintf(buf, len, "proc/sys/vm/%s", keys[i].name);
			return;
		}
	snprintf(buf, len, "?");
}

/* sysctl writes (section 2.3). */
static int apply_vm(struct wb_settings *k, uint32_t P, const struct wb_setop *op, char *err,
		    size_t errlen)
{
	uint64_t v = op->value;

	switch (op->knob) {
	case WB_SYS_DIRTY_RATIO:
	case WB_SYS_BG_RATIO:
		if (v > 100) {
			snprintf(err, errlen, "%s=%llu: must be 0..100 (kernel: EINVAL)", op->key,
				 (unsigned long long)v);
			return -EINVAL;
		}
		if (op->knob == WB_SYS_BG_RATIO) {
			k->bg_ratio = v;
			k->bg_bytes = 0; /* on every successful write */
		} else if (v != k->dirty_ratio) { /* only a change switches modes */
			k->dirty_ratio = v;
			k->dirty_bytes = 0;
		}
		return 0;
	case WB_SYS_DIRTY_BYTES:
	case WB_SYS_BG_BYTES: {
		bool fg = op->knob == WB_SYS_DIRTY_BYTES;
		uint64_t min = fg ? 2ULL * P : 1;

		if (v < min) {
			snprintf(err, errlen, "%s=%llu: below the minimum of %llu bytes (kernel: EINVAL, value kept)",
				 op->key, (unsigned long long)v, (unsigned long long)min);
			return -EINVAL;
		}
		if (wb_kernel_div_round_up(v, P) > WB_THRESH_CAP) { /* as the kernel checks: near 2^64 passes */
			snprintf(err, errlen, "%s=%llu: more than 2^32-1 pages (kernel: ERANGE)", op->key,
				 (unsigned long long)v);
			return -ERANGE;
		}
		if (!fg) {
			k->bg_bytes = v;
			k->bg_ratio = 0;
		} else if (v != k->dirty_bytes) {
			k->dirty_bytes = v;
			k->dirty_ratio = 0;
		}
		return 0;
	}
	case WB_SYS_EXPIRE_CS:
		k->expire_cs = v;
		return 0;
	case WB_SYS_WRITEBACK_CS:
		k->writeback_cs = v;
		return 0;
	}
	snprintf(err, errlen, "%s: not a writable knob", op->key);
	return -EINVAL;
}

/* Per-BDI writes (section 4.4): all end up as ppm ratios or the strict flag. */
static int apply_bdi(struct wb_settings *k, const struct wb_limits *cur, uint32_t P,
		     const struct wb_setop *op, char *err, size_t errlen)
{
	struct wb_bdi_knobs *b = wb_settings_bdi(k, op->bdi);
	uint64_t v = op->value, ppm, sum = 0;
	bool is_min;

	if (!b) {
		snprintf(err, errlen, "%s: backing device %s has gone", op->key, op->bdi);
		return -ENODEV;
	}
	switch (op->knob) {
	case WB_K_STRICT_LIMIT:
		if (v > 1) {
			snprintf(err, errlen, "%s=%llu: must be 0 or 1 (kernel: EINVAL)", op->key,
				 (unsigned long long)v);
			return -EINVAL;
		}
		b->strict = v;
		return 0;
	case WB_K_MIN_RATIO:
	case WB_K_MAX_RATIO:
		if (v > 100)
			goto range;
		ppm = v * (WB_RATIO_FULL / 100);
		break;
	case WB_K_MIN_RATIO_FINE:
	case WB_K_MAX_RATIO_FINE:
		if (v > WB_RATIO_FULL)
			goto range;
		ppm = v;
		break;
	case WB_K_MIN_BYTES:
	case WB_K_MAX_BYTES: {
		uint64_t pages = v / P;
		if (!cur || !cur->valid || cur->thresh == 0) {
			snprintf(err, errlen, "%s: the current threshold is unknown, cannot convert bytes",
				 op->key);
			return -EINVAL;
		}
		if (pages > cur->dirtyable) {
			snprintf(err, errlen, "%s=%llu: more than the dirtyable memory (kernel: EINVAL)",
				 op->key, (unsigned long long)v);
			return -EINVAL;
		}
		ppm = wb_mul_div(pages, WB_RATIO_FULL, cur->thresh);
		if (ppm > WB_RATIO_FULL) { /* "above 100%" said nothing of what the bytes are a share of */
			snprintf(err, errlen, "%s=%llu: above the dirty threshold, %llu bytes now (the kernel "
				 "takes bytes as a share of it: EINVAL)", op->key, (unsigned long long)v,
				 (unsigned long long)cur->thresh * P);
			return -EINVAL;
		}
		break;
	}
	default:
		snprintf(err, errlen, "%s: not a writable knob", op->key);
		return -EINVAL;
	}
	is_min = op->knob == WB_K_MIN_RATIO || op->knob == WB_K_MIN_RATIO_FINE || op->knob == WB_K_MIN_BYTES;
	if (is_min) {
		if (ppm > b->max_ppm) {
			snprintf(err, errlen, "%s: min above this device's max ratio (kernel: EINVAL)", op->key);
			return -EINVAL;
		}
		for (size_t i = 0; i < k->nbdis; i++)
			sum += k->bdis[i].min_ppm;
		if (ppm > b->min_ppm && sum + (ppm - b->min_ppm) >= WB_RATIO_FULL) {
			snprintf(err, errlen, "%s: the min_ratio sum over all devices would reach 100%% "
				 "(kernel: EINVAL)", op->key);
			return -EINVAL;
		}
		b->min_ppm = ppm;
	} else {
		if (ppm < b->min_ppm) {
			snprintf(err, errlen, "%s: max below this device's min ratio (kernel: EINVAL)", op->key);
			return -EINVAL;
		}
		b->max_ppm = ppm;
	}
	return 0;
range:
	snprintf(err, errlen, "%s=%llu: above 100%% (kernel: EINVAL)", op->key, (unsigned long long)v);
	return -EINVAL;
}

int wb_settings_apply(struct wb_settings *k, const struct wb_limits *cur, uint32_t page_size,
		      const struct wb_setop *op, char *err, size_t errlen)
{
	return op->is_bdi ? apply_bdi(k, cur, page_size, op, err, errlen)
			  : apply_vm(k, page_size, op, err, errlen);
}
