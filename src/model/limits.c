// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The limits layer: dirtyable memory and every threshold the kernel derives
 * from it, in the kernel's own integer arithmetic (writeback-model.md
 * sections 1-4; mm/page-writeback.c of 6.14+).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wb_model_internal.h"
#include "wbtop/model.h"

const char *const wb_bdi_state_names[WB_ST_COUNT] = {
	[WB_ST_IDLE] = "idle",
	[WB_ST_FLUSHING] = "flushing",
	[WB_ST_THROTTLED] = "throttled",
	[WB_ST_OVER] = "over-limit",
};

const struct wb_hidden_text wb_hidden_texts[WB_HID_COUNT] = {
	[WB_HID_NONE] = { NULL, "at least this" },
	[WB_HID_GUESS] = { "guessed", "the cap's share or none, by its own pages" },
	[WB_HID_READ] = { "read", "what the other devices' figures leave" },
	[WB_HID_REPLAYED] = { "replayed", "replayed from what it wrote back" },
};

/* Knob values in ppm from a sample BDI: the _fine twin when present. */
static uint64_t ppm_of(const struct wb_bdi *b, enum wb_knob fine, enum wb_knob coarse,
		       uint64_t dflt)
{
	if (WB_HAS(b->knob_valid, fine))
		return b->knob[fine];
	if (WB_HAS(b->knob_valid, coarse))
		return b->knob[coarse] * (WB_RATIO_FULL / 100);
	return dflt;
}

int wb_settings_from_sample(struct wb_settings *k, const struct wb_sample *s)
{
	memset(k, 0, sizeof(*k));
	k->dirty_ratio = s->sys[WB_SYS_DIRTY_RATIO];
	k->dirty_bytes = s->sys[WB_SYS_DIRTY_BYTES];
	k->bg_ratio = s->sys[WB_SYS_BG_RATIO];
	k->bg_bytes = s->sys[WB_SYS_BG_BYTES];
	k->expire_cs = s->sys[WB_SYS_EXPIRE_CS];
	k->writeback_cs = s->sys[WB_SYS_WRITEBACK_CS];
	if (s->nbdis == 0)
		return 0;
	k->bdis = calloc(s->nbdis, sizeof(*k->bdis));
	if (!k->bdis)
		return -ENOMEM;
	k->nbdis = s->nbdis;
	for (size_t i = 0; i < s->nbdis; i++) {
		const struct wb_bdi *b = &s->bdis[i];
		struct wb_bdi_knobs *x = &k->bdis[i];

		memcpy(x->name, b->name, sizeof(x->name));
		x->min_ppm = ppm_of(b, WB_K_MIN_RATIO_FINE, WB_K_MIN_RATIO, 0);
		x->max_ppm = ppm_of(b, WB_K_MAX_RATIO_FINE, WB_K_MAX_RATIO, WB_RATIO_FULL);
		x->strict = WB_HAS(b->knob_valid, WB_K_STRICT_LIMIT) && b->knob[WB_K_STRICT_LIMIT];
	}
	return 0;
}

void wb_settings_finish(struct wb_settings *k)
{
	if (!k)
		return;
	free(k->bdis);
	memset(k, 0, sizeof(*k));
}

int wb_settings_copy(struct wb_settings *dst, const struct wb_settings *src)
{
	struct wb_settings t = *src;

	t.bdis = NULL;
	if (src->nbdis) {
		t.bdis = malloc(src->nbdis * sizeof(*t.bdis));
		if (!t.bdis)
			return -ENOMEM;
		memcpy(t.bdis, src->bdis, src->nbdis * sizeof(*t.bdis));
	}
	wb_settings_finish(dst);
	*dst = t;
	return 0;
}

struct wb_bdi_knobs *wb_settings_bdi(struct wb_settings *k, const char *name)
{
	for (size_t i = 0; i < k->nbdis; i++)
		if (strcmp(k->bdis[i].name, name) == 0)
			return &k->bdis[i];
	return NULL;
}

uint64_t wb_reserve_pages(const struct wb_zone *z, size_t nz)
{
	uint64_t r = 0;

	for (size_t i = 0; i < nz; i++) {
		uint64_t high = z[i].v[WB_Z_HIGH], boost = z[i].v[WB_Z_BOOST];
		uint64_t want = (high > boost ? high - boost : 0) + z[i].v[WB_Z_PROTECTION];

		r += want < z[i].v[WB_Z_MANAGED] ? want : z[i].v[WB_Z_MANAGED];
	}
	return r;
}

uint64_t wb_dirtyable(uint64_t free, uint64_t reserve, uint64_t file_lru)
{
	return free - (free < reserve ? free : reserve) + file_lru + 1;
}

void wb_domain_limits(const struct wb_settings *k, uint64_t avail, uint32_t page_size,
		      uint64_t *thresh, uint64_t *bg)
{
	uint64_t P = page_size, rP = k->dirty_ratio * P / 100, rbP = k->bg_ratio * P / 100;
	uint64_t t, b;

	t = k->dirty_bytes ? wb_kernel_div_round_up(k->dirty_bytes, P) : rP * avail / P;
	b = k->bg_bytes ? wb_kernel_div_round_up(k->bg_bytes, P) : rbP * avail / P;
	if (t > WB_THRESH_CAP)
		t = WB_THRESH_CAP;
	if (b >= t)
		b = t / 2;
	*thresh = t;
	*bg = b;
}

uint64_t wb_node_dirty_limit(const struct wb_settings *k, uint64_t node_avail,
			     uint64_t global_avail, uint32_t page_size)
{
	uint64_t d;

	if (k->dirty_bytes)
		d = wb_kernel_div_round_up(k->dirty_bytes, page_size) * node_avail /
		    (global_avail ? global_avail : 1);
	else
		d = k->dirty_ratio * node_avail / 100;
	return d > WB_THRESH_CAP ? WB_THRESH_CAP : d;
}

/* The unreserved part of T: what is shared by writeout fraction. */
static uint64_t unreserved(uint64_t T, uint64_t sum_min_ppm)
{
	uint64_t free_ppm = sum_min_ppm < WB_RATIO_FULL ? WB_RATIO_FULL - sum_min_ppm : 0;
	return T * free_ppm / WB_RATIO_FULL;
}

static uint64_t idle_floor(uint64_t T, uint64_t D, bool strict)
{
	if (T <= D)
		return 0;
	return strict ? (T - D) / 100 : (T - D) / 8;
}

uint64_t wb_calc_thresh(uint64_t T, uint64_t D, uint64_t sum_min_ppm, uint64_t min_ppm,
			uint64_t max_ppm, bool strict, uint64_t num, uint64_t den)
{
	uint64_t a = unreserved(T, sum_min_ppm), fl, mx;

	a = den ? wb_mul_div(a, num, den) : 0;
	a += T * min_ppm / WB_RATIO_FULL;
	fl = idle_floor(T, D, strict);
	if (a < fl)
		a = fl;
	mx = T * max_ppm / WB_RATIO_FULL;
	return a < mx ? a : mx;
}

/* Pages the floor may differ by when D was read a moment apart from K. */
#define FLOOR_SLACK 2

enum wb_frac_src wb_frac_invert(uint64_t K, uint64_t T, uint64_t D, uint64_t sum_min_ppm,
				uint64_t min_ppm, uint64_t max_ppm, bool strict,
				uint64_t *num, uint64_t *den)
{
	uint64_t U = unreserved(T, sum_min_ppm), res = T * min_ppm / WB_RATIO_FULL;
	uint64_t fl = idle_floor(T, D, strict), mx = T * max_ppm / WB_RATIO_FULL;
	enum wb_frac_src src = WB_FRAC_DEBUGFS;

	*num = 0;
	*den = 1;
	/*
	 * The kernel caps last, so a figure over the cap the knobs give cannot
	 * be of these knobs (read apart from them): it says only "at the cap",
	 * not a share past it (taken as one, a cap lifted would be predicted
	 * the whole threshold: a CI run, 240665 pages where the kernel showed
	 * 150426, for a device the knobs capped at 20 %).
	 */
	if (K > mx)
		K = mx;
	if (K + FLOOR_SLACK >= mx && mx <= T) {
		src = max_ppm < WB_RATIO_FULL ? WB_FRAC_CAPPED : WB_FRAC_DEBUGFS;
		if (src == WB_FRAC_CAPPED && fl >= mx)
			return src; /* the floor alone reaches the cap: share unknown, take 0 (see frac_held) */
	} else if (K <= fl + FLOOR_SLACK) {
		return WB_FRAC_FLOOR;
	}
	if (U == 0 || K <= res)
		return src == WB_FRAC_CAPPED ? src : WB_FRAC_FLOOR;
	*num = K - res;
	*den = U;
	if (*num > *den)
		*num = *den;
	return src;
}

/* a - b, saturated to int64: a damaged recording's figures may be any uint64. */
static int64_t diff_sat(uint64_t a, uint64_t b)
{
	if (a >= b)
		return a - b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(a - b);
	return b - a > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)(b - a);
}

/* Global avail recovered from the kernel's ratio-mode thresholds (sec. 1.5). */
static bool calibrate_avail(const struct wb_sample *s, uint64_t *avail)
{
	uint64_t P = s->page_size, rP = s->sys[WB_SYS_DIRTY_RATIO] * P / 100;
	uint64_t rbP = s->sys[WB_SYS_BG_RATIO] * P / 100;
	uint64_t T = s->g.v[WB_G_DIRTY_THRESH], Tb = s->g.v[WB_G_BG_THRESH], lo, hi;

	if (s->sys[WB_SYS_DIRTY_BYTES] || rP == 0 || T >= WB_THRESH_CAP)
		return false;
	lo = wb_div_round_up(T * P, rP);
	hi = wb_div_round_up((T + 1) * P, rP) - 1;
	if (!s->sys[WB_SYS_BG_BYTES] && rbP && Tb < T) {
		uint64_t blo = wb_div_round_up(Tb * P, rbP), bhi = wb_div_round_up((Tb + 1) * P, rbP) - 1;
		if (blo > lo && blo <= hi)
			lo = blo;
		if (bhi < hi && bhi >= lo)
			hi = bhi;
	}
	*avail = lo;
	return true;
}

/* Sum of every BDI's min_ratio, ppm. */
static uint64_t sum_min(const struct wb_settings *k)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < k->nbdis; i++)
		sum += k->bdis[i].min_ppm;
	return sum;
}

static void compute_nodes(const struct wb_sample *s, const struct wb_settings *k,
			  struct wb_limits *out)
{
	for (size_t n = 0; n < s->nnodes; n++) {
		struct wb_node_limits *nl = &out->nodes[n];
		const struct wb_node *nd = &s->nodes[n];
		uint64_t free = 0, res = 0;

		nl->id = nd->id;
		for (size_t z = 0; z < s->nzones; z++)
			if (s->zones[z].node == nd->id) {
				free += s->zones[z].v[WB_Z_FREE];
				res += wb_reserve_pages(&s->zones[z], 1);
			}
		nl->dirtyable = free - (free < res ? free : res) + nd->v[WB_N_ACTIVE_FILE] +
				nd->v[WB_N_INACTIVE_FILE];
		nl->limit = wb_node_dirty_limit(k, nl->dirtyable, out->dirtyable, s->page_size);
		nl->dirty = nd->v[WB_N_DIRTY] + nd->v[WB_N_WRITEBACK];
		nl->over = nl->dirty > nl->limit;
	}
	out->nnodes = s->nnodes;
}

/* The smallest share (of the unreserved threshold) that reaches bl's cap by itself. */
static void cap_share(const struct wb_bdi_limits *bl, uint64_t T, uint64_t sum_min_ppm, uint64_t *num, uint64_t *den)
{
	uint64_t mx = T * bl->max_ppm / WB_RATIO_FULL, res = T * bl->min_ppm / WB_RATIO_FULL;
	uint64_t U = unreserved(T, sum_min_ppm);

	*num = mx > res ? (mx - res < U ? mx - res : U) : 0;
	*den = U ? U : 1;
	/*
	 * The kernel counts a device's completions only up to its max_ratio's
	 * share (__fprop_add_percpu_max): others' min_ratio reserves can make
	 * the cap out of its reach.
	 */
	if (*num > wb_mul_div(*den, bl->max_ppm, WB_RATIO_FULL))
		*num = wb_mul_div(*den, bl->max_ppm, WB_RATIO_FULL);
}

/*
 * A device at its max_ratio cap whose idle floor alone reaches the cap: the
 * kernel's figure says nothing of its share, which inverts to 0 (marked
 * frac_hidden, for wb_model_hidden_shares(), which judges it by what the
 * device completed when there is a history). With more pages of its own
 * dirty or under writeback than the per-CPU counters' slack (someone writes
 * it, or it is completing), take the smallest share that reaches the cap by
 * itself: 0 predicted a collapse under strict_limit or a lower limit that
 * the kernel did not show (1.2M against its 6.0M; a CI run at 2.0M against
 * 6.0M, when the test then asked for half the cap, and a writer's truncate
 * had drained the device below it). An idle capped device keeps 0.
 */
static void frac_held(struct wb_bdi_limits *bl, const struct wb_sample *s, const struct wb_bdi *b,
		      const struct wb_limits *out)
{
	uint64_t own = WB_HAS(b->st_valid, WB_B_RECLAIMABLE) && WB_HAS(b->st_valid, WB_B_WRITEBACK)
			       ? b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK] : 0;
	uint64_t num, den;

	if (bl->frac_src != WB_FRAC_CAPPED || bl->frac_num)
		return;
	cap_share(bl, out->thresh, out->sum_min_ppm, &num, &den);
	if (!num) /* nothing unreserved, or a cap at or under its own reserve: the figure says it all */
		return;
	bl->frac_hidden = true;
	bl->hidden_how = WB_HID_GUESS;
	if (own > wb_counter_slack(s)) {
		bl->frac_num = num;
		bl->frac_den = den;
	}
}

/* bl's thresholds from its share and knobs, against out's global figures (ndirty: nr_dirty, for the background one). */
static void bdi_thresholds(struct wb_bdi_limits *bl, const struct wb_limits *out, uint64_t ndirty)
{
	bl->thresh = wb_calc_thresh(out->thresh, out->dirty, out->sum_min_ppm, bl->min_ppm, bl->max_ppm, bl->strict,
				    bl->frac_num, bl->frac_den);
	bl->bg_thresh = wb_calc_thresh(out->bg, ndirty, out->sum_min_ppm, bl->min_ppm, bl->max_ppm, bl->strict,
				       bl->frac_num, bl->frac_den);
	bl->bdp_bg_thresh = out->thresh ? wb_mul_div(bl->thresh, out->bg, out->thresh) : 0;
}

void wb_limits_set_share(struct wb_limits *l, const struct wb_sample *s, size_t i, double share)
{
	struct wb_bdi_limits *bl;
	uint64_t num, den;

	if (!l || i >= l->nbdis || !(share >= 0))
		return;
	bl = &l->bdis[i];
	cap_share(bl, l->thresh, l->sum_min_ppm, &num, &den);
	/* at or past the cap's share: the least that reaches it (what the kernel's figure shows) */
	if (share * (double)den < (double)num)
		num = (uint64_t)(share * (double)den + 0.5);
	bl->frac_num = num;
	bl->frac_den = den;
	bdi_thresholds(bl, l, s->g.v[WB_G_DIRTY]);
}

/* Per-BDI thresholds; fractions from the matching BDI of frac_from. */
static void compute_bdi(const struct wb_sample *s, const struct wb_settings *k,
			const struct wb_limits *frac_from, struct wb_limits *out, size_t i)
{
	const struct wb_bdi *b = &s->bdis[i];
	struct wb_bdi_limits *bl = &out->bdis[i];
	struct wb_bdi_knobs dflt = { .max_ppm = WB_RATIO_FULL };
	struct wb_bdi_knobs *kn = wb_settings_bdi((struct wb_settings *)k, b->name);
	const struct wb_bdi_limits *src = frac_from ? wb_limits_bdi(frac_from, b->name) : NULL;
	uint64_t ndirty = s->g.v[WB_G_DIRTY];

	if (!kn)
		kn = &dflt;
	memcpy(bl->name, b->name, sizeof(bl->name));
	bl->strict = kn->strict;
	bl->min_ppm = kn->min_ppm;
	bl->max_ppm = kn->max_ppm;
	if (src) {
		bl->frac_src = src->frac_src;
		bl->frac_num = src->frac_num;
		bl->frac_den = src->frac_den;
		bl->frac_hidden = src->frac_hidden;
		bl->hidden_how = src->hidden_how;
	} else if (WB_HAS(b->st_valid, WB_B_THRESH) && WB_HAS(b->st_valid, WB_B_DIRTY_THRESH)) {
		/* invert with the settings the kernel had (the sample's) */
		bl->frac_src = wb_frac_invert(b->st[WB_B_THRESH], b->st[WB_B_DIRTY_THRESH], out->dirty,
					      out->sum_min_ppm, kn->min_ppm, kn->max_ppm, kn->strict,
					      &bl->frac_num, &bl->frac_den);
		frac_held(bl, s, b, out);
	} else {
		bl->frac_src = WB_FRAC_NONE;
		bl->frac_num = 0;
		bl->frac_den = 1;
	}
	bdi_thresholds(bl, out, ndirty);
	bl->wb_max = out->thresh * kn->max_ppm / WB_RATIO_FULL;
	bl->floor = idle_floor(out->thresh, out->dirty, kn->strict);
	bl->dirty_known = WB_HAS(b->st_valid, WB_B_RECLAIMABLE) && WB_HAS(b->st_valid, WB_B_WRITEBACK);
	bl->wb_dirty = bl->dirty_known ? b->st[WB_B_RECLAIMABLE] + b->st[WB_B_WRITEBACK] : 0;
	bl->valid = true;
	bl->pos_ratio = -1;
	bl->drain_s = -1;
}

int wb_limits_compute(const struct wb_sample *s, const struct wb_settings *k,
		      const struct wb_limits *frac_from, struct wb_limits *out)
{
	struct wb_settings own;
	uint64_t free, lru, kernel_avail;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!k) {
		if (wb_settings_from_sample(&own, s))
			return -ENOMEM;
		k = &own;
	}
	out->nodes = s->nnodes ? calloc(s->nnodes, sizeof(*out->nodes)) : NULL;
	out->bdis = s->nbdis ? calloc(s->nbdis, sizeof(*out->bdis)) : NULL;
	if ((s->nnodes && !out->nodes) || (s->nbdis && !out->bdis)) {
		err = -ENOMEM;
		goto done;
	}
	out->reserve = wb_reserve_pages(s->zones, s->nzones);
	out->dirty = s->g.v[WB_G_DIRTY] + s->g.v[WB_G_WRITEBACK];
	free = s->g.v[WB_G_MEMFREE];
	lru = s->g.v[WB_G_ACTIVE_FILE] + s->g.v[WB_G_INACTIVE_FILE];
	if (!WB_HAS(s->g.valid, WB_G_MEMFREE) || !WB_HAS(s->g.valid, WB_G_ACTIVE_FILE) ||
	    !WB_HAS(s->g.valid, WB_G_INACTIVE_FILE) || s->page_size < 1024 ||
	    (s->sys_valid & 0xf) != 0xf)
		goto done;
	out->dirtyable = wb_dirtyable(free, out->reserve, lru);
	out->kernel_known = WB_HAS(s->g.valid, WB_G_DIRTY_THRESH);
	if (out->kernel_known) {
		/*
		 * With the sample's own settings, do we agree with the kernel?
		 * Any difference is memory that moved between the meminfo read
		 * and the kernel's own: its figure is the one the knobs act on.
		 */
		struct wb_settings cur;
		uint64_t t0, b0;

		wb_settings_from_sample(&cur, s);
		wb_domain_limits(&cur, out->dirtyable, s->page_size, &t0, &b0);
		wb_settings_finish(&cur);
		if ((t0 != s->g.v[WB_G_DIRTY_THRESH] ||
		     (WB_HAS(s->g.valid, WB_G_BG_THRESH) && b0 != s->g.v[WB_G_BG_THRESH])) &&
		    calibrate_avail(s, &kernel_avail)) {
			out->dirtyable = kernel_avail;
			out->calibrated = true;
		}
	}
	wb_domain_limits(k, out->dirtyable, s->page_size, &out->thresh, &out->bg);
	if (out->kernel_known)
		out->kernel_diff = diff_sat(out->thresh, s->g.v[WB_G_DIRTY_THRESH]);
	out->freerun = (out->thresh + out->bg) / 2;
	out->limit = out->thresh;
	out->setpoint = (out->freerun + out->limit) / 2;
	{
		uint64_t r = out->thresh / ((s->ncpus ? s->ncpus : 1) * 32ULL);
		out->ratelimit_pages = r < 16 ? 16 : r;
	}
	out->sum_min_ppm = sum_min(k);
	out->valid = true;
	compute_nodes(s, k, out);
	for (size_t i = 0; i < s->nbdis; i++)
		compute_bdi(s, k, frac_from, out, i);
	out->nbdis = s->nbdis;
done:
	if (k == &own)
		wb_settings_finish(&own);
	if (err)
		wb_limits_finish(out);
	return err;
}

void wb_limits_finish(struct wb_limits *l)
{
	if (!l)
		return;
	free(l->nodes);
	free(l->bdis);
	memset(l, 0, sizeof(*l));
}

const struct wb_bdi_limits *wb_limits_bdi_at(const struct wb_limits *l, const char *name, size_t hint)
{
	size_t n = l->nbdis, i = hint < n ? hint : 0;

	for (size_t k = 0; k < n; k++, i = i + 1 < n ? i + 1 : 0)
		if (strcmp(l->bdis[i].name, name) == 0)
			return &l->bdis[i];
	return NULL;
}

const struct wb_bdi_limits *wb_limits_bdi(const struct wb_limits *l, const char *name)
{
	return wb_limits_bdi_at(l, name, 0);
}
