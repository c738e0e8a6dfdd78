// SPDX-License-Identifier: GPL-2.0-or-later
/* Text (top -b style) and CSV sinks. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "wbtop/live.h"
#include "wbtop/out.h"

const char *wb_fmt_bytes(char *buf, size_t len, double b)
{
	static const char unit[] = "BKMGTP";
	int u = 0;

	while (b >= 1024 && u < 5) {
		b /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f%c", b, unit[u]);
	else
		snprintf(buf, len, b < 10 ? "%.1f%c" : "%.0f%c", b, unit[u]);
	return buf;
}

/* A page count as human bytes, or "n/a". */
static const char *hp(char *buf, size_t len, const struct wb_sample *s, bool ok, uint64_t pages)
{
	if (!ok)
		return "n/a";
	return wb_fmt_bytes(buf, len, (double)wb_pages_to_bytes(s, pages));
}

static void text_global(FILE *f, const struct wb_view *v)
{
	const struct wb_sample *s = v->cur;
	const struct wb_limits *l = v->lim;
	bool lok = l && l->valid;
	char a[16], b[16], c[16], d[16], e[16], g[16], h[16], tm[32];
	time_t t = (time_t)s->wall;
	struct tm tmv;
	double r1, r2;

	localtime_r(&t, &tmv);
	strftime(tm, sizeof(tm), "%H:%M:%S", &tmv);
	fprintf(f, "wbtop %s - %s  level %d  page %u  cpus %u\n", WBTOP_VERSION, tm, s->level,
		s->page_size, s->ncpus);
	fprintf(f, "Dirty %s  Writeback %s  Thresh %s (kernel %s)  Bg %s (kernel %s)  Freerun %s\n",
		hp(a, 16, s, WB_HAS(s->g.valid, WB_G_DIRTY), s->g.v[WB_G_DIRTY]),
		hp(b, 16, s, WB_HAS(s->g.valid, WB_G_WRITEBACK), s->g.v[WB_G_WRITEBACK]),
		hp(c, 16, s, lok, lok ? l->thresh : 0),
		hp(d, 16, s, WB_HAS(s->g.valid, WB_G_DIRTY_THRESH), s->g.v[WB_G_DIRTY_THRESH]),
		hp(e, 16, s, lok, lok ? l->bg : 0),
		hp(g, 16, s, WB_HAS(s->g.valid, WB_G_BG_THRESH), s->g.v[WB_G_BG_THRESH]),
		hp(h, 16, s, lok, lok ? l->freerun : 0));
	if (v->prev && wb_rate_global(v->prev, s, WB_G_DIRTIED, &r1) &&
	    wb_rate_global(v->prev, s, WB_G_WRITTEN, &r2))
		fprintf(f, "Dirtied %s/s  Written %s/s  ", wb_fmt_bytes(a, 16, r1 * s->page_size),
			wb_fmt_bytes(b, 16, r2 * s->page_size));
	fprintf(f, "Dirtyable %s\n", hp(c, 16, s, lok, lok ? l->dirtyable : 0));
	fprintf(f, "vm:");
	for (int i = 0; i < WB_SYS_COUNT; i++)
		if (WB_HAS(s->sys_valid, i))
			fprintf(f, " %s=%llu", wb_sysctl_names[i], (unsigned long long)s->sys[i]);
	fputc('\n', f);
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct wb_node *n = &s->nodes[i];
		bool nok = lok && i < l->nnodes;
		fprintf(f, "Node %d: dirty %s writeback %s limit %s%s\n", n->id,
			hp(a, 16, s, WB_HAS(n->valid, WB_N_DIRTY), n->v[WB_N_DIRTY]),
			hp(b, 16, s, WB_HAS(n->valid, WB_N_WRITEBACK), n->v[WB_N_WRITEBACK]),
			hp(c, 16, s, nok, nok ? l->nodes[i].limit : 0),
			nok && l->nodes[i].over ? "  OVER" : "");
	}
}

void wb_out_text(FILE *f, const struct wb_view *v)
{
	const struct wb_sample *s = v->cur;
	const char *hidden[4];
	int nh = wb_level_hidden(s->level, hidden, 4);

	text_global(f, v);
	for (int i = 0; i < nh; i++)
		fprintf(f, "  (%s)\n", hidden[i]);
	fprintf(f, "\n%-10s %-8s %8s %8s %8s %8s %8s %5s %-10s %s\n", "BDI", "DEV", "DIRTY", "WRITEBK",
		"THRESH", "KTHRESH", "BW/s", "MAX%", "STATE", "MOUNT");
	for (size_t i = 0; i < s->nbdis; i++) {
		const struct wb_bdi *b = &s->bdis[i];
		const struct wb_bdi_limits *bl = v->lim ? wb_limits_bdi(v->lim, b->name) : NULL;
		char a[16], c[16], d[16], e[16], g[16], mx[8];
		uint64_t bw = WB_HAS(b->st_valid, WB_B_WB_BW) ? b->st[WB_B_WB_BW] : b->st[WB_B_BDI_BW];
		bool bwok = WB_HAS(b->st_valid, WB_B_WB_BW) || WB_HAS(b->st_valid, WB_B_BDI_BW);

		if (WB_HAS(b->knob_valid, WB_K_MAX_RATIO))
			snprintf(mx, sizeof(mx), "%llu", (unsigned long long)b->knob[WB_K_MAX_RATIO]);
		else
			snprintf(mx, sizeof(mx), "n/a");
		fprintf(f, "%-10s %-8s %8s %8s %8s %8s %8s %5s %-10s %s\n", b->name, b->dev[0] ? b->dev : "-",
			hp(a, 16, s, WB_HAS(b->st_valid, WB_B_RECLAIMABLE), b->st[WB_B_RECLAIMABLE]),
			hp(c, 16, s, WB_HAS(b->st_valid, WB_B_WRITEBACK), b->st[WB_B_WRITEBACK]),
			hp(d, 16, s, bl && bl->valid, bl ? bl->thresh : 0),
			hp(e, 16, s, WB_HAS(b->st_valid, WB_B_THRESH), b->st[WB_B_THRESH]),
			hp(g, 16, s, bwok, bw), mx, bl && bl->valid ? wb_bdi_state_names[bl->state] : "n/a",
			b->nmounts ? b->mounts[0] : "");
	}
	fputc('\n', f);
}

void wb_out_csv_header(FILE *f)
{
	fputs("time,bdi,dev,mount,reclaimable,writeback,thresh,bg_thresh,kernel_thresh,write_bw,"
	      "dirtied,written,min_ratio,max_ratio,strict_limit,state,global_dirty,global_writeback,"
	      "global_thresh,kernel_global_thresh\n", f);
}

/* One CSV cell: a number when known, empty otherwise. */
static void cell_u(FILE *f, bool ok, uint64_t v)
{
	fputc(',', f);
	if (ok)
		fprintf(f, "%llu", (unsigned long long)v);
}

static void cell_d(FILE *f, bool ok, double v)
{
	fputc(',', f);
	if (ok)
		fprintf(f, "%.0f", v);
}

/* Quote a CSV text cell. */
static void cell_s(FILE *f, const char *s)
{
	fputs(",\"", f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void wb_out_csv(FILE *f, const struct wb_view *v)
{
	const struct wb_sample *s = v->cur;
	const struct wb_limits *l = v->lim;
	bool lok = l && l->valid;

	for (size_t i = 0; i < s->nbdis; i++) {
		const struct wb_bdi *b = &s->bdis[i];
		const struct wb_bdi_limits *bl = l ? wb_limits_bdi(l, b->name) : NULL;
		bool bok = bl && bl->valid;
		double r1 = 0, r2 = 0;
		bool o1 = v->prev && wb_rate_bdi(v->prev, s, b->name, WB_B_DIRTIED, &r1);
		bool o2 = v->prev && wb_rate_bdi(v->prev, s, b->name, WB_B_WRITTEN, &r2);
		uint64_t P = s->page_size;

		fprintf(f, "%.3f", s->wall);
		cell_s(f, b->name);
		cell_s(f, b->dev);
		cell_s(f, b->nmounts ? b->mounts[0] : "");
		cell_u(f, WB_HAS(b->st_valid, WB_B_RECLAIMABLE), b->st[WB_B_RECLAIMABLE] * P);
		cell_u(f, WB_HAS(b->st_valid, WB_B_WRITEBACK), b->st[WB_B_WRITEBACK] * P);
		cell_u(f, bok, bok ? bl->thresh * P : 0);
		cell_u(f, bok, bok ? bl->bg_thresh * P : 0);
		cell_u(f, WB_HAS(b->st_valid, WB_B_THRESH), b->st[WB_B_THRESH] * P);
		cell_u(f, WB_HAS(b->st_valid, WB_B_WB_BW), b->st[WB_B_WB_BW] * P);
		cell_d(f, o1, r1 * P);
		cell_d(f, o2, r2 * P);
		cell_u(f, WB_HAS(b->knob_valid, WB_K_MIN_RATIO), b->knob[WB_K_MIN_RATIO]);
		cell_u(f, WB_HAS(b->knob_valid, WB_K_MAX_RATIO), b->knob[WB_K_MAX_RATIO]);
		cell_u(f, WB_HAS(b->knob_valid, WB_K_STRICT_LIMIT), b->knob[WB_K_STRICT_LIMIT]);
		fputc(',', f);
		if (bok)
			fputs(wb_bdi_state_names[bl->state], f);
		cell_u(f, WB_HAS(s->g.valid, WB_G_DIRTY), s->g.v[WB_G_DIRTY] * P);
		cell_u(f, WB_HAS(s->g.valid, WB_G_WRITEBACK), s->g.v[WB_G_WRITEBACK] * P);
		cell_u(f, lok, lok ? l->thresh * P : 0);
		cell_u(f, WB_HAS(s->g.valid, WB_G_DIRTY_THRESH), s->g.v[WB_G_DIRTY_THRESH] * P);
		fputc('\n', f);
	}
}
