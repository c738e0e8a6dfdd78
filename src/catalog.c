// SPDX-License-Identifier: GPL-2.0-or-later
/* The field catalogue: one row per field, one getter each (see catalog.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "wbtop/catalog.h"
#include "wbtop/pipeline.h"

#define KNOWN_U(x) ((struct wb_value){ .known = true, .u = (x) })
#define KNOWN_D(x) ((struct wb_value){ .known = true, .d = (x) })
#define KNOWN_S(x) ((struct wb_value){ .known = true, .s = (x) })
#define UNKNOWN ((struct wb_value){ .known = false })

/* A page counter of the BDI's stats, as bytes. */
static struct wb_value bst(const struct wb_fctx *c, enum wb_bstat k)
{
	return WB_HAS(c->b->st_valid, k) ? KNOWN_U(wb_pages_to_bytes(c->s, c->b->st[k])) : UNKNOWN;
}

static struct wb_value knob(const struct wb_fctx *c, enum wb_knob k)
{
	return WB_HAS(c->b->knob_valid, k) ? KNOWN_U(c->b->knob[k]) : UNKNOWN;
}

static bool model_ok(const struct wb_fctx *c)
{
	return c->bl && c->bl->valid;
}

static struct wb_value b_name(const struct wb_fctx *c) { return KNOWN_S(c->b->name); }
static struct wb_value b_dev(const struct wb_fctx *c) { return c->b->dev[0] ? KNOWN_S(c->b->dev) : UNKNOWN; }
static struct wb_value b_fstype(const struct wb_fctx *c) { return c->b->fstype[0] ? KNOWN_S(c->b->fstype) : UNKNOWN; }
static struct wb_value b_mount(const struct wb_fctx *c) { return c->b->nmounts ? KNOWN_S(c->b->mounts[0]) : UNKNOWN; }
static struct wb_value b_mounts(const struct wb_fctx *c) { (void)c; return KNOWN_U(0); }
static struct wb_value b_reclaimable(const struct wb_fctx *c) { return bst(c, WB_B_RECLAIMABLE); }
static struct wb_value b_writeback(const struct wb_fctx *c) { return bst(c, WB_B_WRITEBACK); }
static struct wb_value b_kthresh(const struct wb_fctx *c) { return bst(c, WB_B_THRESH); }
static struct wb_value b_kgthresh(const struct wb_fctx *c) { return bst(c, WB_B_DIRTY_THRESH); }

/* A device's label: its block device, or a filesystem's own BDI with what it sits on. */
static struct wb_value b_label(const struct wb_fctx *c)
{
	struct wb_value x = { .known = true };
	const struct wb_bdi *b = c->b;

	if (b->dev[0] && !strchr(b->name, ':'))
		snprintf(x.tmp, sizeof(x.tmp), "%s:%s", b->name, b->dev);
	else
		snprintf(x.tmp, sizeof(x.tmp), "%s", b->dev[0] ? b->dev : b->name);
	return x;
}


/* The Flusher pane's DEVICE: the label, a getter of its own for its own title (own_titles);
 * the pane adds the mount, cut to the room its column leaves (flusher_pane.c). */
static struct wb_value b_flabel(const struct wb_fctx *c)
{
	return b_label(c);
}

/* The flusher thread: "running" (writeback under way) or "idle", from the debugfs state bits: the
 * CSV's flusher column, that bit alone (the Flusher pane says more: b_flusher_pane). */
static struct wb_value b_flusher(const struct wb_fctx *c)
{
	if (!WB_HAS(c->b->st_valid, WB_B_STATE))
		return UNKNOWN;
	return KNOWN_S(c->b->st[WB_B_STATE] & 2 ? "running" : "idle");
}

/*
 * The Flusher pane's FLUSHER: what the flusher and the device's pages are doing. The debugfs
 * bit (WB_writeback_running) is set only while the flusher works: it submits its pages to the
 * block layer and returns, and "idle" beside 40M under writeback read as wrong. So: "running";
 * else "io 40M" (submitted, still under writeback in the device); else "waiting" (dirty pages,
 * none under writeback: their expiry or the background threshold wakes it); else "idle".
 */
static struct wb_value b_flusher_pane(const struct wb_fctx *c)
{
	const uint64_t need = WB_BIT(WB_B_STATE) | WB_BIT(WB_B_WRITEBACK) | WB_BIT(WB_B_RECLAIMABLE);
	const uint64_t *st = c->b->st;
	struct wb_value x = { .known = true };
	char b[16];

	if ((c->b->st_valid & need) != need)
		return UNKNOWN;
	if (st[WB_B_STATE] & 2)
		return KNOWN_S("running");
	if (st[WB_B_WRITEBACK] == 0)
		return KNOWN_S(st[WB_B_RECLAIMABLE] ? "waiting" : "idle");
	/* "io " and at most 4 characters: the column's 7 cells. wb_fmt_bytes() goes up a unit at
	 * 1024, so 1000K-1023K (and M, G) take 5 ("io 1000K" was cut to "io 100…"): those as a
	 * tenth of the unit above ("1.0M") */
	static const char units[] = "KMGTPE";
	double wbytes = (double)wb_pages_to_bytes(c->s, st[WB_B_WRITEBACK]);
	size_t len = strlen(wb_fmt_bytes(b, sizeof(b), wbytes));
	const char *unit = len > 4 ? strchr(units, b[len - 1]) : NULL;

	if (unit && *unit && unit[1])
		snprintf(b, sizeof(b), "%.1f%c", wbytes / pow(1024, (double)(unit - units + 2)), unit[1]);
	snprintf(x.tmp, sizeof(x.tmp), "io %s", b);
	return x;
}

static struct wb_value b_bio(const struct wb_fctx *c)
{
	return WB_HAS(c->b->st_valid, WB_B_B_IO) ? KNOWN_U(c->b->st[WB_B_B_IO]) : UNKNOWN;
}

/*
 * A device's thresholds need its writeout share, which only debugfs shows:
 * without it the model has a lower bound (reserve and idle floor), not the
 * figure, so the figure is unknown rather than a guess.
 */
static bool share_ok(const struct wb_fctx *c)
{
	return wb_bdi_thresh_known(c->bl);
}

static struct wb_value m_thresh(const struct wb_fctx *c)
{
	return share_ok(c) ? KNOWN_U(wb_pages_to_bytes(c->s, c->bl->thresh)) : UNKNOWN;
}

static struct wb_value m_bg_thresh(const struct wb_fctx *c)
{
	return share_ok(c) ? KNOWN_U(wb_pages_to_bytes(c->s, c->bl->bg_thresh)) : UNKNOWN;
}

/* The writeout share, and how it is known (capped: at least this). */
static struct wb_value m_share(const struct wb_fctx *c)
{
	const struct wb_bdi_limits *bl = c->bl;

	if (!model_ok(c) || bl->frac_src == WB_FRAC_NONE)
		return UNKNOWN;
	return KNOWN_D(bl->frac_den ? (double)bl->frac_num / (double)bl->frac_den : 0);
}

static struct wb_value m_share_src(const struct wb_fctx *c)
{
	static const char *const src[] = { "none", "debugfs", "floor", "capped" };

	if (!model_ok(c) || c->bl->frac_src == WB_FRAC_NONE)
		return UNKNOWN;
	return KNOWN_S(src[c->bl->frac_src]);
}

/* How a share the kernel's figure hides was taken; unknown where it is not hidden. */
static struct wb_value m_share_hidden(const struct wb_fctx *c)
{
	if (!model_ok(c) || !c->bl->frac_hidden || c->bl->hidden_how >= WB_HID_COUNT ||
	    !wb_hidden_texts[c->bl->hidden_how].word)
		return UNKNOWN;
	return KNOWN_S(wb_hidden_texts[c->bl->hidden_how].word);
}

/* State st as text, its enum in u: a sort goes by severity, not by the words. */
static struct wb_value state_value(enum wb_bdi_state st)
{
	struct wb_value x = KNOWN_S(wb_bdi_state_names[st]);

	x.u = st;
	return x;
}

/* The state needs the device's dirty pages and its thresholds: unknown without either. */
static struct wb_value m_state(const struct wb_fctx *c)
{
	return share_ok(c) && c->bl->dirty_known ? state_value(c->bl->state) : UNKNOWN;
}

/* The limit that holds the writers, under the limits c shows (the current or the what-if). */
static enum wb_held_by held_of(const struct wb_fctx *c)
{
	if (!c->d)
		return WB_HELD_NONE;
	return c->l && c->l == c->v->whatif ? c->d->if_held_by : c->d->held_by;
}

/* A state x with the limit h that holds the writers: "throttled:global" (no space: text columns split on whitespace). */
static struct wb_value with_held(struct wb_value x, enum wb_held_by h)
{
	if (x.known && h != WB_HELD_NONE) {
		snprintf(x.tmp, sizeof(x.tmp), "%s:%s", x.s, wb_held_by_names[h]);
		x.s = NULL;
	}
	return x;
}

/* The state with the limit that holds the writers (text, CSV, pane). */
static struct wb_value m_state_held(const struct wb_fctx *c)
{
	return with_held(m_state(c), held_of(c));
}

/* The limit that holds its writers ("global", "device"); absent when none. */
static struct wb_value m_held_by(const struct wb_fctx *c)
{
	enum wb_held_by h = held_of(c);

	return m_state(c).known && h != WB_HELD_NONE ? KNOWN_S(wb_held_by_names[h]) : UNKNOWN;
}

/* Past its background threshold: the flusher writes it back now. Under the global one only the
 * device's own pages (level 2) can tell: without them "no" would be a guess. */
static struct wb_value m_over_bg(const struct wb_fctx *c)
{
	if (!model_ok(c) || (!c->bl->over_bg && !WB_HAS(c->b->st_valid, WB_B_RECLAIMABLE)))
		return UNKNOWN;
	return KNOWN_U(c->bl->over_bg ? 1 : 0);
}

static struct wb_value m_drain(const struct wb_fctx *c)
{
	return model_ok(c) && c->bl->drain_s >= 0 ? KNOWN_D(c->bl->drain_s) : UNKNOWN;
}

static bool controlled(const struct wb_fctx *c)
{
	return model_ok(c) && c->bl->pos_ratio >= 0;
}

static struct wb_value m_pos_ratio(const struct wb_fctx *c)
{
	return controlled(c) ? KNOWN_D(c->bl->pos_ratio / 1024.0) : UNKNOWN;
}

static struct wb_value m_task_rl(const struct wb_fctx *c)
{
	return controlled(c) ? KNOWN_U(c->bl->task_ratelimit * c->s->page_size) : UNKNOWN;
}

static struct wb_value m_pause(const struct wb_fctx *c)
{
	return controlled(c) ? KNOWN_U(c->bl->pause_ms) : UNKNOWN;
}

/* Write bandwidth as the pipeline chose it (wb_bdi_write_bw), whole bytes/s. */
static struct wb_value b_write_bw(const struct wb_fctx *c)
{
	return c->d->bw_ok ? KNOWN_U((uint64_t)c->d->bw) : UNKNOWN;
}

static struct wb_value d_dirtied(const struct wb_fctx *c) { return c->d->dirtied_ok ? KNOWN_D(c->d->dirtied) : UNKNOWN; }
static struct wb_value d_written(const struct wb_fctx *c) { return c->d->written_ok ? KNOWN_D(c->d->written) : UNKNOWN; }
static struct wb_value d_disk(const struct wb_fctx *c) { return c->d->disk_ok ? KNOWN_D(c->d->disk_write) : UNKNOWN; }
static struct wb_value d_pct(const struct wb_fctx *c) { return c->d->pct_ok ? KNOWN_D(c->d->pct) : UNKNOWN; }
static struct wb_value d_wake(const struct wb_fctx *c) { return c->d->wake_pm >= 0 ? KNOWN_D(c->d->wake_pm) : UNKNOWN; }
static struct wb_value d_throttle(const struct wb_fctx *c) { return c->d->throttle_pm >= 0 ? KNOWN_D(c->d->throttle_pm) : UNKNOWN; }

/* Time to clean: 0 when nothing is dirty, else the model's drain time. */
/*
 * Periodic writeback off (vm.dirty_writeback_centisecs 0): the flusher writes
 * only down to the background thresholds, so a device's dirty pages (not those
 * under writeback) wait for sync, fsync or reclaim: never clean by itself.
 */
static bool held_dirty(const struct wb_fctx *c)
{
	const struct wb_sample *s = c->s;
	uint64_t cs = s->sys[WB_SYS_WRITEBACK_CS];
	/* a preview's setting is the sample's (known or not) unless the change set it */
	bool known = s->sys_valid & WB_BIT(WB_SYS_WRITEBACK_CS) || (c->k && c->k->writeback_cs != cs);

	if (c->k)
		cs = c->k->writeback_cs;
	return known && cs == 0 && WB_HAS(c->b->st_valid, WB_B_RECLAIMABLE) && c->b->st[WB_B_RECLAIMABLE] > 0;
}

/*
 * The device's dirty pages wait for their expiry: none under writeback and the background
 * condition off (the model's), so the flusher takes them only once dirty_expire_centisecs old.
 * The drain time is then the time from that moment, which nobody here knows (--until-clean
 * gives the range): "1.3s" stood still for 30 s beside --until-clean's "2s-31s".
 */
static bool waits_expiry(const struct wb_fctx *c)
{
	return model_ok(c) && !c->bl->over_bg && WB_HAS(c->b->st_valid, WB_B_WRITEBACK) &&
	       c->b->st[WB_B_WRITEBACK] == 0 && WB_HAS(c->b->st_valid, WB_B_RECLAIMABLE) &&
	       c->b->st[WB_B_RECLAIMABLE] > 0;
}

/* CLEAN-IN's "+" for scripts: 1 where drain_s counts from the dirty pages' expiry, unknown with drain_s */
static struct wb_value m_drain_expiry(const struct wb_fctx *c)
{
	return model_ok(c) && c->b && c->bl->drain_s >= 0 ? KNOWN_U(c->bl->drain_s >= 0.05 && waits_expiry(c))
								 : UNKNOWN;
}

static struct wb_value d_clean(const struct wb_fctx *c)
{
	const struct wb_bdi_derived *d = c->d;
	struct wb_value x;

	if (d->dirty_ok && held_dirty(c))
		return KNOWN_D(INFINITY); /* shown "never" */
	if (!d->dirty_ok || (d->dirty > 0 && d->drain_s < 0))
		return UNKNOWN;
	x = KNOWN_D(d->dirty > 0 ? d->drain_s : 0);
	if (x.d >= 0.05 && waits_expiry(c)) /* "1.3s+": after a wait for the pages' expiry */
		snprintf(x.tmp, sizeof(x.tmp), "+");
	return x;
}

static struct wb_value k_min(const struct wb_fctx *c) { return knob(c, WB_K_MIN_RATIO); }
static struct wb_value k_max(const struct wb_fctx *c) { return knob(c, WB_K_MAX_RATIO); }
static struct wb_value k_min_fine(const struct wb_fctx *c) { return knob(c, WB_K_MIN_RATIO_FINE); }
static struct wb_value k_max_fine(const struct wb_fctx *c) { return knob(c, WB_K_MAX_RATIO_FINE); }
static struct wb_value k_min_bytes(const struct wb_fctx *c) { return knob(c, WB_K_MIN_BYTES); }
static struct wb_value k_max_bytes(const struct wb_fctx *c) { return knob(c, WB_K_MAX_BYTES); }
static struct wb_value k_strict(const struct wb_fctx *c) { return knob(c, WB_K_STRICT_LIMIT); }

/* MAX% on screen: the ratio, "s" when the limit is strict. */
static struct wb_value k_max_shown(const struct wb_fctx *c)
{
	struct wb_value x = knob(c, WB_K_MAX_RATIO);

	if (x.known)
		snprintf(x.tmp, sizeof(x.tmp), "%llu%s", (unsigned long long)x.u,
			 c->b->knob[WB_K_STRICT_LIMIT] ? "s" : "");
	return x;
}

static struct wb_value b_inodes(const struct wb_fctx *c)
{
	return WB_HAS(c->b->st_valid, WB_B_B_DIRTY) ? KNOWN_U(c->b->st[WB_B_B_DIRTY]) : UNKNOWN;
}

static struct wb_value b_events(const struct wb_fctx *c) { return c->s->ev_valid ? KNOWN_U(0) : UNKNOWN; }
static struct wb_value e_wakeups(const struct wb_fctx *c) { return c->s->ev_valid ? KNOWN_U(c->b->ev.wake_bg) : UNKNOWN; }
static struct wb_value b_stale(const struct wb_fctx *c) { return c->b->stats_skipped ? KNOWN_U(1) : UNKNOWN; }
static struct wb_value b_strip(const struct wb_fctx *c) { (void)c; return KNOWN_U(0); }

/* The same BDI under the what-if limits. */
static const struct wb_bdi_limits *whatif_bdi(const struct wb_fctx *c)
{
	const struct wb_bdi_limits *w = c->v->whatif ? wb_limits_bdi(c->v->whatif, c->b->name) : NULL;

	return w && w->valid ? w : NULL;
}

static struct wb_value w_thresh(const struct wb_fctx *c)
{
	const struct wb_bdi_limits *w = whatif_bdi(c);
	return w ? KNOWN_U(wb_pages_to_bytes(c->s, w->thresh)) : UNKNOWN;
}

static struct wb_value w_bg_thresh(const struct wb_fctx *c)
{
	const struct wb_bdi_limits *w = whatif_bdi(c);
	return w ? KNOWN_U(wb_pages_to_bytes(c->s, w->bg_thresh)) : UNKNOWN;
}

/* As the state column: with the limit that would hold the writers ("over-limit" beside "throttled:global" read as a change of form) */
static struct wb_value w_state(const struct wb_fctx *c)
{
	const struct wb_bdi_limits *w = whatif_bdi(c);

	return with_held(w ? state_value(w->state) : UNKNOWN, c->d ? c->d->if_held_by : WB_HELD_NONE);
}

/*
 * pr: a narrow Devices pane drops the highest first (a narrower column may fill the room a
 * wider one left). MOUNT (2) goes before STATE (1): a sorted column is two cells wider for its
 * mark, and at 80 columns MOUNT, listed first at the same priority, kept its place while
 * STATE gave its room to BG and BW/s.
 */
/*    key                  csv             title        unit         json          w  pr left model  {csv,text,ui,flusher} */
static const struct wb_field bdi_fields[] = {
	{ "bdi", "bdi", "BDI", WB_U_TEXT, WB_J_STR, 10, 0, true, false, { 1, 1, 0 }, b_name },
	{ NULL, NULL, "DEVICE", WB_U_TEXT, WB_J_STR, 13, 0, true, false, { 0, 0, 1 }, b_label },
	{ NULL, NULL, "DEV-MOUNT", WB_U_TEXT, WB_J_STR, 13, 0, true, false, { 0, 0, 0, 1 }, b_flabel },
	{ NULL, "flusher", "FLUSHER", WB_U_TEXT, WB_J_STR, 7, 0, true, false, { 24, 0, 0, 0 }, b_flusher },
	{ NULL, NULL, "FL-STATE", WB_U_TEXT, WB_J_STR, 7, 0, true, false, { 0, 0, 0, 2 }, b_flusher_pane },
	{ NULL, "over_bg", "OVER-BG", WB_U_FLAG, WB_J_BOOL, 7, 0, true, false, { 25, 0, 0, 3 }, m_over_bg },
	{ "dev", "dev", "DEV", WB_U_TEXT, WB_J_STR, 8, 0, true, false, { 2, 2, 0 }, b_dev },
	{ "fstype", NULL, NULL, WB_U_TEXT, WB_J_STR, 0, 0, true, false, { 0, 0, 0 }, b_fstype },
	{ "mounts", NULL, NULL, WB_U_TEXT, WB_J_HOOK, 0, 0, true, false, { 0, 0, 0 }, b_mounts },
	{ NULL, "mount", "MOUNT", WB_U_TEXT, WB_J_STR, 8, 2, true, false, { 3, 13, 2 }, b_mount },
	{ "reclaimable", "reclaimable", "DIRTY", WB_U_BYTES, WB_J_INT, 7, 0, false, false, { 4, 3, 3, 6 }, b_reclaimable },
	{ "writeback", "writeback", "WRITEBK", WB_U_BYTES, WB_J_INT, 7, 0, false, false, { 5, 4, 4 }, b_writeback },
	{ "thresh", "thresh", "THRESH", WB_U_BYTES, WB_J_INT, 7, 0, false, true, { 6, 5, 5 }, m_thresh },
	{ "bg_thresh", "bg_thresh", "BG", WB_U_BYTES, WB_J_INT, 7, 3, false, true, { 7, 0, 7, 7 }, m_bg_thresh },
	{ "share", NULL, "SHARE", WB_U_REAL, WB_J_REAL6, 8, 0, false, true, { 0, 0, 0 }, m_share },
	{ "share_src", NULL, NULL, WB_U_TEXT, WB_J_STR, 0, 0, false, true, { 0, 0, 0 }, m_share_src },
	{ "share_hidden", NULL, NULL, WB_U_TEXT, WB_J_STR, 0, 0, false, true, { 0, 0, 0 }, m_share_hidden },
	{ "state", NULL, NULL, WB_U_TEXT, WB_J_STR, 0, 0, true, true, { 0, 0, 0 }, m_state },
	{ NULL, "state", "STATE", WB_U_TEXT, WB_J_STR, 17, 1, true, true, { 15, 9, 15 }, m_state_held },
	{ "held_by", NULL, NULL, WB_U_TEXT, WB_J_STR, 0, 0, true, true, { 0, 0, 0 }, m_held_by },
	/* csv: appended after the level-3 columns (34), so the older columns keep their places */
	{ "drain_s", "drain_s", "DRAIN", WB_U_SECS, WB_J_REAL3, 8, 0, false, true, { 34, 0, 0 }, m_drain },
	{ "drain_after_expiry", "drain_after_expiry", NULL, WB_U_FLAG, WB_J_BOOL, 0, 0, false, true, { 35, 0, 0 },
	  m_drain_expiry },
	{ "pos_ratio", NULL, "POS-RATIO", WB_U_REAL, WB_J_REAL4, 9, 0, false, true, { 0, 0, 0 }, m_pos_ratio },
	{ "task_ratelimit", NULL, "TASK-RL/s", WB_U_BYTES, WB_J_INT, 9, 0, false, true, { 0, 0, 0 }, m_task_rl },
	{ "pause_ms", NULL, "PAUSE-MS", WB_U_COUNT, WB_J_INT, 8, 0, false, true, { 0, 0, 0 }, m_pause },
	{ "kernel_thresh", "kernel_thresh", "K-THRESH", WB_U_BYTES, WB_J_INT, 8, 3, false, false, { 8, 6, 6 }, b_kthresh },
	{ "kernel_global_thresh", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0, 0, 0 }, b_kgthresh },
	{ "write_bw", "write_bw", "BW/s", WB_U_BYTES, WB_J_INT, 7, 2, false, false, { 9, 7, 9 }, b_write_bw },
	{ "dirtied", "dirtied", "DIRTIED/s", WB_U_RATE, WB_J_REAL1, 9, 2, false, false, { 10, 0, 10 }, d_dirtied },
	{ "written", "written", "WRITTEN/s", WB_U_RATE, WB_J_REAL1, 9, 3, false, false, { 11, 0, 11 }, d_written },
	{ "disk_write_rate", NULL, NULL, WB_U_RATE, WB_J_REAL1, 0, 0, false, false, { 0, 0, 0 }, d_disk },
	{ "min_ratio", "min_ratio", "MIN%", WB_U_COUNT, WB_J_INT, 4, 4, false, false, { 12, 0, 13 }, k_min },
	{ "max_ratio", "max_ratio", NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 13, 0, 0 }, k_max },
	{ "min_ratio_fine", NULL, NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0, 0, 0 }, k_min_fine },
	{ "max_ratio_fine", NULL, NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0, 0, 0 }, k_max_fine },
	{ "min_bytes", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0, 0, 0 }, k_min_bytes },
	{ "max_bytes", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0, 0, 0 }, k_max_bytes },
	{ "strict_limit", "strict_limit", NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 14, 0, 0 }, k_strict },
	{ NULL, NULL, "MAX%", WB_U_TEXT, WB_J_STR, 4, 4, false, false, { 0, 8, 14 }, k_max_shown },
	{ NULL, NULL, "%LIM", WB_U_PCT, WB_J_REAL1, 5, 0, false, false, { 0, 0, 8 }, d_pct },
	{ NULL, NULL, "CLEAN-IN", WB_U_SECS, WB_J_REAL3, 8, 0, false, false, { 0, 0, 12 }, d_clean },
	{ NULL, "wake_per_min", "WAKE/m", WB_U_PER_MIN, WB_J_REAL1, 6, 5, false, false, { 29, 11, 16, 8 }, d_wake },
	{ NULL, "throttle_per_min", "THROTTLE/m", WB_U_PER_MIN, WB_J_REAL1, 10, 5, false, false, { 30, 12, 0, 9 }, d_throttle },
	{ "dirty_inodes", "dirty_inodes", "INODES", WB_U_COUNT, WB_J_INT, 6, 0, false, false, { 26, 0, 0, 4 }, b_inodes },
	{ NULL, "b_io", "B_IO", WB_U_COUNT, WB_J_INT, 5, 0, false, false, { 27, 0, 0, 5 }, b_bio },
	{ "wakeups", "wakeups", NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 28, 0, 0 }, e_wakeups },
	{ "events", NULL, NULL, WB_U_COUNT, WB_J_HOOK, 0, 0, false, false, { 0, 0, 0 }, b_events },
	{ "stats_stale", NULL, NULL, WB_U_FLAG, WB_J_TRUE, 0, 0, false, false, { 0, 0, 0 }, b_stale },
	{ NULL, "if_thresh", "IF-THRESH", WB_U_BYTES, WB_J_INT, 9, 0, false, false, { 20, 10, 17 }, w_thresh },
	{ NULL, "if_bg_thresh", NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 21, 0, 0 }, w_bg_thresh },
	{ NULL, "if_state", NULL, WB_U_TEXT, WB_J_STR, 0, 0, false, false, { 22, 0, 0 }, w_state },
	{ NULL, NULL, "DIRTY HISTORY", WB_U_TEXT, WB_J_HOOK, 13, 5, true, false, { 0, 0, 18 }, b_strip },
};

const struct wb_field *wb_catalog_bdi(size_t *n)
{
	*n = sizeof(bdi_fields) / sizeof(bdi_fields[0]);
	return bdi_fields;
}

/* ---- tracepoint figures: a BDI's "events" object and the system's ---- */

#define EV(c, x) ((c)->s->ev_valid ? KNOWN_U(x) : UNKNOWN)

/* Pages/s of a rate limit as bytes/s, shown only when cond. */
static struct wb_value ev_rate(const struct wb_fctx *c, bool cond, uint64_t pages_s)
{
	return c->s->ev_valid && cond ? KNOWN_U(pages_s * c->s->page_size) : UNKNOWN;
}

static struct wb_value be_wake(const struct wb_fctx *c) { return EV(c, c->b->ev.wake_bg); }
static struct wb_value be_known(const struct wb_fctx *c) { return EV(c, 0); }
static struct wb_value be_pauses(const struct wb_fctx *c) { return EV(c, c->b->ev.pauses); }
static struct wb_value be_pause_total(const struct wb_fctx *c) { return EV(c, c->b->ev.pause_ms_total); }
static struct wb_value be_pause_max(const struct wb_fctx *c) { return EV(c, c->b->ev.pause_ms_max); }
/* The task and dirty rate limits of the last pause (while throttling: shown as the kernel logged them). */
static struct wb_value be_task_rl(const struct wb_fctx *c)
{
	return ev_rate(c, c->b->ev.pauses || c->b->ev.task_ratelimit, c->b->ev.task_ratelimit);
}
static struct wb_value be_dirty_rl(const struct wb_fctx *c)
{
	return ev_rate(c, c->b->ev.pauses || c->b->ev.task_ratelimit, c->b->ev.dirty_ratelimit);
}
static struct wb_value be_balanced(const struct wb_fctx *c)
{
	return ev_rate(c, c->b->ev.balanced_ratelimit != 0, c->b->ev.balanced_ratelimit);
}
static struct wb_value be_dirtied_max(const struct wb_fctx *c)
{
	return c->s->ev_valid && c->b->ev.dirtied_max ? KNOWN_U((uint64_t)c->b->ev.dirtied_max * c->s->page_size)
						      : UNKNOWN;
}

/*    key                         csv               title  unit        json       w pr left model {csv,text,ui,flusher} */
static const struct wb_field bdi_event_fields[] = {
	{ "wake_background", NULL, NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0 }, be_wake },
	{ "writeback_start", NULL, NULL, WB_U_COUNT, WB_J_HOOK, 0, 0, false, false, { 0 }, be_known },
	{ "pauses", "pauses", NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 31 }, be_pauses },
	{ "pause_ms_total", "pause_ms_total", NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 32 }, be_pause_total },
	{ "pause_ms_max", "pause_ms_max", NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 33 }, be_pause_max },
	{ "task_ratelimit", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0 }, be_task_rl },
	{ "dirty_ratelimit", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0 }, be_dirty_rl },
	{ "balanced_ratelimit", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0 }, be_balanced },
	{ "dirtied_before_pause_max", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0 }, be_dirtied_max },
};

static uint32_t ev_wake(const struct wb_bdi_events *e) { return e->wake_bg; }
static uint32_t ev_pauses(const struct wb_bdi_events *e) { return e->pauses; }
static uint32_t ev_pause_max(const struct wb_bdi_events *e) { return e->pause_ms_max; }

/* The sum (or the largest) of one per-BDI event count over the sample's BDIs. */
static struct wb_value ev_sum(const struct wb_fctx *c, uint32_t (*get)(const struct wb_bdi_events *), bool max)
{
	uint64_t v = 0;

	for (size_t i = 0; i < c->s->nbdis; i++) {
		uint32_t x = get(&c->s->bdis[i].ev);
		v = max ? (x > v ? x : v) : v + x;
	}
	return EV(c, v);
}

static struct wb_value ge_wake(const struct wb_fctx *c) { return ev_sum(c, ev_wake, false); }
static struct wb_value ge_known(const struct wb_fctx *c) { return EV(c, 0); }
static struct wb_value ge_throttled(const struct wb_fctx *c) { return ev_sum(c, ev_pauses, false); }
static struct wb_value ge_pause_max(const struct wb_fctx *c) { return ev_sum(c, ev_pause_max, true); }
static struct wb_value ge_reclaim_us(const struct wb_fctx *c) { return EV(c, c->s->reclaim_delay_us); }
static struct wb_value ge_dirty_limit(const struct wb_fctx *c)
{
	return c->s->ev_valid && c->s->dirty_limit_valid ? KNOWN_U(c->s->dirty_limit * c->s->page_size) : UNKNOWN;
}
static struct wb_value ge_handled(const struct wb_fctx *c) { return EV(c, c->s->ev_total); }
static struct wb_value ge_dropped(const struct wb_fctx *c) { return EV(c, c->s->ev_dropped); }
static struct wb_value ge_not_logged(const struct wb_fctx *c) { return EV(c, c->s->ev_lost_log); }

/*    key                  csv   title            unit        json       w pr left model {csv,text,ui,flusher} */
static const struct wb_field event_fields[] = {
	{ "wake_background", NULL, "Wakeups", WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0, 1 }, ge_wake },
	{ "writeback_start", NULL, NULL, WB_U_COUNT, WB_J_HOOK, 0, 0, false, false, { 0 }, ge_known },
	{ "throttled", NULL, "Throttled", WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0, 2 }, ge_throttled },
	{ "pause_ms_max", NULL, "Pause-max-ms", WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0, 3 }, ge_pause_max },
	{ "reclaim_throttled", NULL, NULL, WB_U_COUNT, WB_J_HOOK, 0, 0, false, false, { 0 }, ge_known },
	{ "reclaim_delay_us", NULL, "Reclaim-delay-us", WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0, 4 }, ge_reclaim_us },
	{ "dirty_limit", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0 }, ge_dirty_limit },
	{ "handled", NULL, "Handled", WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0, 5 }, ge_handled },
	{ "dropped", NULL, "Dropped", WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0, 6 }, ge_dropped },
	{ "not_logged", NULL, NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0 }, ge_not_logged },
	{ "log", NULL, NULL, WB_U_COUNT, WB_J_HOOK, 0, 0, false, false, { 0 }, ge_known },
};

/* ---- the event log: one row per logged event (the getter context's i) ---- */

static const char *const ev_kind_names[WB_EV_COUNT] = { "wake_background", "writeback_start",
							 "pause", "reclaim_throttled" };

static const struct wb_event *ev_of(const struct wb_fctx *c)
{
	return &c->s->events[c->i];
}

static struct wb_value l_t(const struct wb_fctx *c) { return KNOWN_D(ev_of(c)->t); }
static struct wb_value l_kind(const struct wb_fctx *c)
{
	return KNOWN_S(ev_of(c)->kind < WB_EV_COUNT ? ev_kind_names[ev_of(c)->kind] : "?");
}
static struct wb_value l_bdi(const struct wb_fctx *c) { return ev_of(c)->bdi[0] ? KNOWN_S(ev_of(c)->bdi) : UNKNOWN; }
static struct wb_value l_pid(const struct wb_fctx *c) { return (struct wb_value){ .known = true, .i = ev_of(c)->pid }; }
static struct wb_value l_reason(const struct wb_fctx *c)
{
	const struct wb_event *e = ev_of(c);
	return e->kind == WB_EV_START && e->reason < WB_REASONS ? KNOWN_S(c->s->reason_names[e->reason]) : UNKNOWN;
}
/* The event's value or extra (pages as bytes), for one kind only. */
static struct wb_value l_of(const struct wb_fctx *c, enum wb_evkind k, bool extra)
{
	const struct wb_event *e = ev_of(c);

	if (e->kind != k || (extra && e->extra == UINT64_MAX)) /* UINT64_MAX: a wakeup's unknown reclaimable */
		return UNKNOWN;
	return KNOWN_U(extra ? e->extra * c->s->page_size : e->value);
}
static struct wb_value l_pause_ms(const struct wb_fctx *c) { return l_of(c, WB_EV_PAUSE, false); }
static struct wb_value l_wb_dirty(const struct wb_fctx *c) { return l_of(c, WB_EV_PAUSE, true); }
static struct wb_value l_nr_pages(const struct wb_fctx *c) { return l_of(c, WB_EV_START, false); }
static struct wb_value l_delayed(const struct wb_fctx *c) { return l_of(c, WB_EV_RECLAIM, false); }
/* estimated: see wake_reclaimable() in collect/live.c */
static struct wb_value l_reclaimable(const struct wb_fctx *c) { return l_of(c, WB_EV_WAKE_BG, true); }

/*    key            csv   title unit        json        w pr left model {csv,text,ui,flusher} */
static const struct wb_field log_fields[] = {
	{ "t", NULL, NULL, WB_U_SECS, WB_J_REAL6, 0, 0, false, false, { 0 }, l_t },
	{ "kind", NULL, NULL, WB_U_TEXT, WB_J_STR, 0, 0, true, false, { 0 }, l_kind },
	{ "bdi", NULL, NULL, WB_U_TEXT, WB_J_STR, 0, 0, true, false, { 0 }, l_bdi },
	{ "pid", NULL, NULL, WB_U_COUNT, WB_J_SINT, 0, 0, false, false, { 0 }, l_pid },
	{ "reason", NULL, NULL, WB_U_TEXT, WB_J_STR, 0, 0, true, false, { 0 }, l_reason },
	{ "pause_ms", NULL, NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0 }, l_pause_ms },
	{ "wb_dirty", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0 }, l_wb_dirty },
	{ "nr_pages", NULL, NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0 }, l_nr_pages },
	{ "delayed_us", NULL, NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0 }, l_delayed },
	{ "reclaimable", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0 }, l_reclaimable },
};

/* ---- the global entity ---- */

static struct wb_value gpages(const struct wb_fctx *c, enum wb_gstat k)
{
	return WB_HAS(c->s->g.valid, k) ? KNOWN_U(wb_pages_to_bytes(c->s, c->s->g.v[k])) : UNKNOWN;
}

/* A global counter's rate from the view (page counters as bytes/s). */
static struct wb_value grate(const struct wb_fctx *c, enum wb_gstat k, bool is_pages)
{
	double r = c->v->g_rate[k];

	if (!c->v->g_rate_ok[k])
		return UNKNOWN;
	return KNOWN_D(is_pages ? r * c->s->page_size : r);
}

static bool gmodel(const struct wb_fctx *c)
{
	return c->l && c->l->valid;
}

static struct wb_value g_dirty(const struct wb_fctx *c) { return gpages(c, WB_G_DIRTY); }
static struct wb_value g_writeback(const struct wb_fctx *c) { return gpages(c, WB_G_WRITEBACK); }
static struct wb_value g_kthresh(const struct wb_fctx *c) { return gpages(c, WB_G_DIRTY_THRESH); }
static struct wb_value g_kbg(const struct wb_fctx *c) { return gpages(c, WB_G_BG_THRESH); }
static struct wb_value g_free(const struct wb_fctx *c) { return gpages(c, WB_G_MEMFREE); }
static struct wb_value g_pending(const struct wb_fctx *c) { return gpages(c, WB_G_ZONE_WRITE_PENDING); }
static struct wb_value g_dirtyable(const struct wb_fctx *c) { return gmodel(c) ? KNOWN_U(wb_pages_to_bytes(c->s, c->l->dirtyable)) : UNKNOWN; }
static struct wb_value g_thresh(const struct wb_fctx *c) { return gmodel(c) ? KNOWN_U(wb_pages_to_bytes(c->s, c->l->thresh)) : UNKNOWN; }
static struct wb_value g_bg(const struct wb_fctx *c) { return gmodel(c) ? KNOWN_U(wb_pages_to_bytes(c->s, c->l->bg)) : UNKNOWN; }
static struct wb_value g_freerun(const struct wb_fctx *c) { return gmodel(c) ? KNOWN_U(wb_pages_to_bytes(c->s, c->l->freerun)) : UNKNOWN; }
static struct wb_value g_setpoint(const struct wb_fctx *c) { return gmodel(c) ? KNOWN_U(wb_pages_to_bytes(c->s, c->l->setpoint)) : UNKNOWN; }
static struct wb_value g_reserve(const struct wb_fctx *c) { return gmodel(c) ? KNOWN_U(wb_pages_to_bytes(c->s, c->l->reserve)) : UNKNOWN; }
static struct wb_value g_calibrated(const struct wb_fctx *c) { return gmodel(c) && c->l->calibrated ? KNOWN_U(1) : UNKNOWN; }

static struct wb_value g_file_lru(const struct wb_fctx *c)
{
	uint64_t m = c->s->g.valid;

	if (!WB_HAS(m, WB_G_ACTIVE_FILE) || !WB_HAS(m, WB_G_INACTIVE_FILE))
		return UNKNOWN;
	return KNOWN_U(wb_pages_to_bytes(c->s, c->s->g.v[WB_G_ACTIVE_FILE] + c->s->g.v[WB_G_INACTIVE_FILE]));
}

static struct wb_value g_dirtied(const struct wb_fctx *c) { return grate(c, WB_G_DIRTIED, true); }
static struct wb_value g_written(const struct wb_fctx *c) { return grate(c, WB_G_WRITTEN, true); }
static struct wb_value g_vmscan(const struct wb_fctx *c) { return grate(c, WB_G_VMSCAN_WRITE, true); }
static struct wb_value g_immediate(const struct wb_fctx *c) { return grate(c, WB_G_VMSCAN_IMMEDIATE, true); }
static struct wb_value g_thr_written(const struct wb_fctx *c) { return grate(c, WB_G_THROTTLED_WRITTEN, true); }
static struct wb_value g_pgscan(const struct wb_fctx *c) { return grate(c, WB_G_PGSCAN, false); }
static struct wb_value g_pgsteal(const struct wb_fctx *c) { return grate(c, WB_G_PGSTEAL, false); }
static struct wb_value g_allocstall(const struct wb_fctx *c) { return grate(c, WB_G_ALLOCSTALL, false); }
static struct wb_value g_unreadable(const struct wb_fctx *c)
{
	return WB_HAS(c->s->g.valid, WB_G_PROCS_UNREADABLE) ? KNOWN_U(c->s->g.v[WB_G_PROCS_UNREADABLE]) : UNKNOWN;
}

/*    key                  csv                    title        unit         json         w  pr left model {csv,text,ui} */
static const struct wb_field global_fields[] = {
	{ "dirty", "global_dirty", "Dirty", WB_U_BYTES, WB_J_INT, 7, 0, false, false, { 16, 1, 0 }, g_dirty },
	{ "writeback", "global_writeback", "Writeback", WB_U_BYTES, WB_J_INT, 7, 0, false, false, { 17, 2, 0 }, g_writeback },
	{ "dirtyable", NULL, "Dirtyable", WB_U_BYTES, WB_J_INT, 7, 0, false, true, { 0, 10, 0 }, g_dirtyable },
	{ "thresh", "global_thresh", "Thresh", WB_U_BYTES, WB_J_INT, 7, 0, false, true, { 18, 3, 0 }, g_thresh },
	{ "bg_thresh", NULL, "Bg", WB_U_BYTES, WB_J_INT, 7, 0, false, true, { 0, 5, 0 }, g_bg },
	{ "freerun", NULL, "Freerun", WB_U_BYTES, WB_J_INT, 7, 0, false, true, { 0, 7, 0 }, g_freerun },
	{ "setpoint", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, true, { 0, 0, 0 }, g_setpoint },
	{ "reserve", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, true, { 0, 0, 0 }, g_reserve },
	{ "calibrated", NULL, NULL, WB_U_FLAG, WB_J_TRUE, 0, 0, false, true, { 0, 0, 0 }, g_calibrated },
	{ "kernel_thresh", "kernel_global_thresh", "K-Thresh", WB_U_BYTES, WB_J_INT, 7, 0, false, false, { 19, 4, 0 }, g_kthresh },
	{ "kernel_bg_thresh", NULL, "K-Bg", WB_U_BYTES, WB_J_INT, 7, 0, false, false, { 0, 6, 0 }, g_kbg },
	{ "free", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0, 0, 0 }, g_free },
	{ "file_lru", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0, 0, 0 }, g_file_lru },
	{ "write_pending", NULL, NULL, WB_U_BYTES, WB_J_INT, 0, 0, false, false, { 0, 0, 0 }, g_pending },
	{ "dirtied_rate", NULL, "Dirtied/s", WB_U_RATE, WB_J_REAL1, 7, 0, false, false, { 0, 8, 0 }, g_dirtied },
	{ "written_rate", NULL, "Written/s", WB_U_RATE, WB_J_REAL1, 7, 0, false, false, { 0, 9, 0 }, g_written },
	{ "vmscan_write_rate", NULL, NULL, WB_U_RATE, WB_J_REAL1, 0, 0, false, false, { 0, 0, 0 }, g_vmscan },
	{ "vmscan_immediate_rate", NULL, NULL, WB_U_RATE, WB_J_REAL1, 0, 0, false, false, { 0, 0, 0 }, g_immediate },
	{ "throttled_written_rate", NULL, NULL, WB_U_RATE, WB_J_REAL1, 0, 0, false, false, { 0, 0, 0 }, g_thr_written },
	{ "pgscan_per_s", NULL, NULL, WB_U_REAL, WB_J_REAL1, 0, 0, false, false, { 0, 0, 0 }, g_pgscan },
	{ "pgsteal_per_s", NULL, NULL, WB_U_REAL, WB_J_REAL1, 0, 0, false, false, { 0, 0, 0 }, g_pgsteal },
	{ "allocstall_per_s", NULL, NULL, WB_U_REAL, WB_J_REAL1, 0, 0, false, false, { 0, 0, 0 }, g_allocstall },
	{ "procs_unreadable", NULL, NULL, WB_U_COUNT, WB_J_INT, 0, 0, false, false, { 0, 0, 0 }, g_unreadable },
};

const struct wb_field *wb_catalog_global(size_t *n)
{
	*n = sizeof(global_fields) / sizeof(global_fields[0]);
	return global_fields;
}

/* ---- nodes, zones, processes ---- */

static struct wb_value npages(const struct wb_fctx *c, enum wb_nstat k)
{
	const struct wb_node *n = &c->s->nodes[c->i];
	return WB_HAS(n->valid, k) ? KNOWN_U(wb_pages_to_bytes(c->s, n->v[k])) : UNKNOWN;
}

static const struct wb_node_limits *node_lim(const struct wb_fctx *c)
{
	return c->l && c->l->valid && c->i < c->l->nnodes ? &c->l->nodes[c->i] : NULL;
}

static struct wb_value n_id(const struct wb_fctx *c) { return (struct wb_value){ .known = true, .i = c->s->nodes[c->i].id }; }
static struct wb_value n_dirty(const struct wb_fctx *c) { return npages(c, WB_N_DIRTY); }
static struct wb_value n_writeback(const struct wb_fctx *c) { return npages(c, WB_N_WRITEBACK); }
static struct wb_value n_free(const struct wb_fctx *c) { return npages(c, WB_N_MEMFREE); }
static struct wb_value n_dirtyable(const struct wb_fctx *c) { return node_lim(c) ? KNOWN_U(wb_pages_to_bytes(c->s, node_lim(c)->dirtyable)) : UNKNOWN; }
static struct wb_value n_limit(const struct wb_fctx *c) { return node_lim(c) ? KNOWN_U(wb_pages_to_bytes(c->s, node_lim(c)->limit)) : UNKNOWN; }
static struct wb_value n_over(const struct wb_fctx *c) { return node_lim(c) ? KNOWN_U(node_lim(c)->over) : UNKNOWN; }

/*    key           csv   title        unit        json        w  pr left model {csv,text,ui} */
static const struct wb_field node_fields[] = {
	{ "node", NULL, "Node", WB_U_COUNT, WB_J_SINT, 4, 0, false, false, { 0, 0, 0 }, n_id },
	{ "dirty", NULL, "dirty", WB_U_BYTES, WB_J_INT, 8, 0, false, false, { 0, 1, 0 }, n_dirty },
	{ "writeback", NULL, "writeback", WB_U_BYTES, WB_J_INT, 8, 0, false, false, { 0, 2, 0 }, n_writeback },
	{ "free", NULL, "free", WB_U_BYTES, WB_J_INT, 8, 0, false, false, { 0, 0, 0 }, n_free },
	{ "dirtyable", NULL, "dirtyable", WB_U_BYTES, WB_J_INT, 8, 0, false, true, { 0, 0, 0 }, n_dirtyable },
	{ "thresh", NULL, "limit", WB_U_BYTES, WB_J_INT, 8, 0, false, true, { 0, 3, 0 }, n_limit },
	{ "over", NULL, "over", WB_U_FLAG, WB_J_BOOL, 4, 0, false, true, { 0, 4, 0 }, n_over },
};

static struct wb_value zpages(const struct wb_fctx *c, enum wb_zstat k)
{
	const struct wb_zone *z = &c->s->zones[c->i];
	return WB_HAS(z->valid, k) ? KNOWN_U(wb_pages_to_bytes(c->s, z->v[k])) : UNKNOWN;
}

static struct wb_value z_node(const struct wb_fctx *c) { return (struct wb_value){ .known = true, .i = c->s->zones[c->i].node }; }
static struct wb_value z_name(const struct wb_fctx *c) { return KNOWN_S(c->s->zones[c->i].name); }
static struct wb_value z_free(const struct wb_fctx *c) { return zpages(c, WB_Z_FREE); }
static struct wb_value z_min(const struct wb_fctx *c) { return zpages(c, WB_Z_MIN); }
static struct wb_value z_low(const struct wb_fctx *c) { return zpages(c, WB_Z_LOW); }
static struct wb_value z_high(const struct wb_fctx *c) { return zpages(c, WB_Z_HIGH); }
static struct wb_value z_boost(const struct wb_fctx *c) { return zpages(c, WB_Z_BOOST); }
static struct wb_value z_managed(const struct wb_fctx *c) { return zpages(c, WB_Z_MANAGED); }
static struct wb_value z_protection(const struct wb_fctx *c) { return zpages(c, WB_Z_PROTECTION); }
static struct wb_value z_pending(const struct wb_fctx *c) { return zpages(c, WB_Z_WRITE_PENDING); }

/*    key              csv   title      unit        json       w  pr left  model {csv,text,ui} */
static const struct wb_field zone_fields[] = {
	{ "node", NULL, "NODE", WB_U_COUNT, WB_J_SINT, 4, 0, false, false, { 0, 0, 1 }, z_node },
	{ "zone", NULL, "ZONE", WB_U_TEXT, WB_J_STR, 8, 0, true, false, { 0, 0, 2 }, z_name },
	{ "free", NULL, "FREE", WB_U_BYTES, WB_J_INT, 8, 0, false, false, { 0, 0, 3 }, z_free },
	{ "min_wmark", NULL, "MIN", WB_U_BYTES, WB_J_INT, 8, 0, false, false, { 0, 0, 4 }, z_min },
	{ "low_wmark", NULL, "LOW", WB_U_BYTES, WB_J_INT, 8, 0, false, false, { 0, 0, 5 }, z_low },
	{ "high_wmark", NULL, "HIGH", WB_U_BYTES, WB_J_INT, 8, 0, false, false, { 0, 0, 6 }, z_high },
	{ "boost", NULL, "BOOST", WB_U_BYTES, WB_J_INT, 8, 0, false, false, { 0, 0, 0 }, z_boost },
	{ "managed", NULL, "MANAGED", WB_U_BYTES, WB_J_INT, 8, 0, false, false, { 0, 0, 7 }, z_managed },
	{ "protection", NULL, "PROTECT", WB_U_BYTES, WB_J_INT, 8, 0, false, false, { 0, 0, 0 }, z_protection },
	{ "write_pending", NULL, "WR-PEND", WB_U_BYTES, WB_J_INT, 8, 0, false, false, { 0, 0, 8 }, z_pending },
};

static struct wb_value p_pid(const struct wb_fctx *c) { return (struct wb_value){ .known = true, .i = c->s->procs[c->i].pid }; }
static struct wb_value p_comm(const struct wb_fctx *c) { return KNOWN_S(c->s->procs[c->i].comm); }
static struct wb_value p_write(const struct wb_fctx *c) { return c->v->proc[c->i].ok ? KNOWN_D(c->v->proc[c->i].write_rate) : UNKNOWN; }
static struct wb_value p_cancel(const struct wb_fctx *c) { return c->v->proc[c->i].ok ? KNOWN_D(c->v->proc[c->i].cancelled_rate) : UNKNOWN; }
static struct wb_value p_throttled(const struct wb_fctx *c) { return KNOWN_U(c->s->procs[c->i].throttled); }

/*    key               csv   title       unit          json        w  pr left  model {csv,text,ui} */
static const struct wb_field proc_fields[] = {
	{ "pid", NULL, "PID", WB_U_COUNT, WB_J_SINT, 7, 0, false, false, { 0, 0, 1 }, p_pid },
	{ "comm", NULL, "COMM", WB_U_TEXT, WB_J_STR, 16, 0, true, false, { 0, 0, 2 }, p_comm },
	{ "write_rate", NULL, "WRITE/s", WB_U_RATE, WB_J_REAL1, 8, 0, false, false, { 0, 0, 3 }, p_write },
	{ "cancelled_rate", NULL, "CANCEL/s", WB_U_RATE, WB_J_REAL1, 9, 0, false, false, { 0, 0, 4 }, p_cancel },
	{ "throttled", NULL, NULL, WB_U_FLAG, WB_J_BOOL, 0, 0, false, false, { 0, 0, 0 }, p_throttled },
};

#define TABLE(fn, t)                                   \
	const struct wb_field *fn(size_t *n)           \
	{                                              \
		*n = sizeof(t) / sizeof(t[0]);         \
		return t;                              \
	}
TABLE(wb_catalog_node, node_fields)
TABLE(wb_catalog_zone, zone_fields)
TABLE(wb_catalog_proc, proc_fields)
TABLE(wb_catalog_bdi_events, bdi_event_fields)
TABLE(wb_catalog_events, event_fields)
TABLE(wb_catalog_event_log, log_fields)

size_t wb_catalog_columns(const struct wb_field *t, size_t n, enum wb_sink k, const struct wb_field **out,
			  size_t max)
{
	size_t m = 0;

	/* positions are small: pick them in order */
	for (int pos = 1; pos < 128 && m < max; pos++)
		for (size_t i = 0; i < n && m < max; i++)
			if (t[i].pos[k] == pos)
				out[m++] = &t[i];
	return m;
}

/* Where a sink heads a field its own way: the Flusher pane's headings, older than the catalogue
 * (titles are unique within a table: DEVICE is the Devices pane's label). Its reclaimable pages
 * are DIRTY and its background threshold BG as in the Devices pane (RECLAIM read as the Zones pane's
 * vmscan reclaim, BG-THRESH as another figure). */
static const struct {
	struct wb_value (*get)(const struct wb_fctx *c);
	enum wb_sink sink;
	const char *title;
	int width;
} own_titles[] = {
	{ b_flabel, WB_SINK_FLUSHER, "DEVICE", 13 },
	{ b_flusher_pane, WB_SINK_FLUSHER, "FLUSHER", 7 },
};

const char *wb_catalog_title(const struct wb_field *f, enum wb_sink k, int *width)
{
	for (size_t i = 0; i < sizeof(own_titles) / sizeof(own_titles[0]); i++)
		if (own_titles[i].get == f->get && own_titles[i].sink == k) {
			*width = own_titles[i].width;
			return own_titles[i].title;
		}
	*width = f->width;
	return f->title;
}

void wb_catalog_ctx(struct wb_fctx *c, const struct wb_view *v, const struct wb_limits *l, size_t i)
{
	*c = (struct wb_fctx){ .v = v, .s = v->cur, .l = l, .i = i };
	if (i < v->cur->nbdis) {
		c->b = &v->cur->bdis[i];
		c->bl = l ? wb_limits_bdi_at(l, c->b->name, i) : NULL;
		c->d = &v->bdi[i];
	}
}

/* Seconds as "1.5s", "2m13s", "1.2h"; "clean" under 50 ms, "never" for infinity. */
static const char *secs(char *buf, size_t n, double s)
{
	if (isinf(s))
		return "never";
	if (s < 0.05)
		return "clean";
	if (s < 60)
		snprintf(buf, n, "%.1fs", s);
	else if (s < 3600)
		snprintf(buf, n, "%.0fm%02.0fs", floor(s / 60), fmod(s, 60));
	else
		snprintf(buf, n, "%.1fh", s / 3600);
	return buf;
}

const char *wb_catalog_show(const struct wb_field *f, const struct wb_value *x, char *buf, size_t n)
{
	if (!x->known)
		return "-";
	switch (f->unit) {
	case WB_U_TEXT: snprintf(buf, n, "%s", wb_value_text(x)); break;
	case WB_U_BYTES: wb_fmt_bytes(buf, n, (double)x->u); break;
	case WB_U_RATE: wb_fmt_bytes(buf, n, x->d); break;
	case WB_U_COUNT: /* counts abbreviated, never cut (1.2k) */
		if (f->json == WB_J_SINT)
			snprintf(buf, n, "%lld", (long long)x->i);
		else
			wb_fmt_count(buf, n, (double)x->u);
		break;
	case WB_U_PCT: snprintf(buf, n, "%.0f%%", x->d); break;
	case WB_U_SECS: { /* with a getter's mark after the figure ("1.3s+": a wait comes first) */
		char t[32];
		snprintf(buf, n, "%s%s", secs(t, sizeof(t), x->d), x->tmp);
		break;
	}
	case WB_U_PER_MIN: wb_fmt_count(buf, n, x->d); break;
	case WB_U_REAL: snprintf(buf, n, "%.4g", x->d); break;
	case WB_U_FLAG: snprintf(buf, n, "%s", x->u ? "yes" : "no"); break;
	}
	return buf;
}

void wb_catalog_csv(FILE *out, const struct wb_field *f, const struct wb_value *x)
{
	if (!x->known)
		return;
	switch (f->unit) {
	case WB_U_TEXT: wb_out_csv_text(out, wb_value_text(x)); break;
	case WB_U_BYTES: case WB_U_COUNT: fprintf(out, "%llu", (unsigned long long)x->u); break;
	case WB_U_RATE: fprintf(out, "%.0f", x->d); break;
	case WB_U_FLAG: fputs(x->u ? "1" : "0", out); break;
	default: fprintf(out, "%.6g", x->d); break;
	}
}
