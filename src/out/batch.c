// SPDX-License-Identifier: GPL-2.0-or-later
/* Text (top -b style) and CSV sinks: both walk the field catalogue. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "wbtop/catalog.h"
#include "wbtop/out.h"
#include "wbtop/util.h"
#include "wbtop/whatif.h"

#define MAX_COLS 64

/* "Title value" pairs of a table's text fields, wrapped at 100 columns. */
static void text_pairs(FILE *f, const struct wb_field *t, size_t n, const struct wb_fctx *c, bool model_only,
		       const char *lead)
{
	const struct wb_field *col[MAX_COLS];
	size_t m = wb_catalog_columns(t, n, WB_SINK_TEXT, col, MAX_COLS);
	int x = fprintf(f, "%s", lead);

	for (size_t k = 0; k < m; k++) {
		char buf[96], safe[96];
		struct wb_value v;
		if (model_only && !col[k]->model)
			continue;
		v = col[k]->get(c);
		wb_safe_text(wb_catalog_show(col[k], &v, buf, sizeof(buf)), safe, sizeof(safe));
		if (x > (int)strlen(lead) && x + (int)strlen(col[k]->title) + (int)strlen(safe) + 3 > 100) {
			fputc('\n', f);
			x = fprintf(f, "%*s", (int)strlen(lead), "");
		}
		x += fprintf(f, "%s%s %s", x > (int)strlen(lead) ? "  " : "", col[k]->title, safe);
	}
	fputc('\n', f);
}

static void text_global(FILE *f, const struct wb_view *v)
{
	const struct wb_sample *s = v->cur;
	char tm[32];
	struct wb_fctx ctx;
	size_t n;
	const struct wb_field *t = wb_catalog_global(&n);

	fprintf(f, "wbtop %s - %s  level %d  page %u  cpus %u\n", WBTOP_VERSION,
		wb_fmt_clock(s->wall, "%H:%M:%S", tm, sizeof(tm)), s->level, s->page_size, s->ncpus);
	wb_catalog_ctx(&ctx, v, v->lim, SIZE_MAX);
	text_pairs(f, t, n, &ctx, false, "");
	fprintf(f, "vm:");
	for (int i = 0; i < WB_SYS_COUNT; i++)
		if (WB_HAS(s->sys_valid, i))
			fprintf(f, " %s=%llu", wb_sysctl_names[i], (unsigned long long)s->sys[i]);
	fputc('\n', f);
	if (s->ev_valid) { /* tracepoints (level 3): the system's counts since the previous sample */
		t = wb_catalog_events(&n);
		text_pairs(f, t, n, &ctx, false, "events: ");
	}
	t = wb_catalog_node(&n);
	for (size_t i = 0; i < s->nnodes; i++) {
		struct wb_fctx nc = { .v = v, .s = s, .l = v->lim, .i = i };
		char lead[32];
		snprintf(lead, sizeof(lead), "Node %d: ", s->nodes[i].id);
		text_pairs(f, t, n, &nc, false, lead);
	}
}

/* One row of a text table: each column padded to its width, the last one not. */
static void text_row(FILE *f, const struct wb_field *const *col, size_t m, const struct wb_fctx *c)
{
	for (size_t k = 0; k < m; k++) {
		char buf[WB_PATH_LEN + 16], safe[WB_PATH_LEN + 16];
		const char *txt = col[k]->title;
		int w = col[k]->width;
		if (c) {
			struct wb_value v = col[k]->get(c);
			txt = wb_safe_text(wb_catalog_show(col[k], &v, buf, sizeof(buf)), safe, sizeof(safe));
		}
		if (k + 1 == m)
			fprintf(f, "%s\n", txt);
		else
			fprintf(f, col[k]->left ? "%-*s " : "%*s ", w, txt);
	}
}

/* The devices table: the catalogue's text columns (IF-THRESH only with --set). */
static size_t text_columns(const struct wb_view *v, const struct wb_field **col)
{
	size_t n, m, o = 0;
	const struct wb_field *t = wb_catalog_bdi(&n);

	m = wb_catalog_columns(t, n, WB_SINK_TEXT, col, MAX_COLS);
	for (size_t k = 0; k < m; k++)
		if (v->whatif || strcmp(col[k]->title, "IF-THRESH") != 0)
			col[o++] = col[k];
	return o;
}

/* The what-if: global and per-device model figures under the --set list. */
static void text_whatif(FILE *f, const struct wb_view *v)
{
	const struct wb_field *col[MAX_COLS], *t;
	struct wb_fctx c;
	size_t n, m = 0;

	t = wb_catalog_global(&n);
	wb_catalog_ctx(&c, v, v->whatif, SIZE_MAX);
	text_pairs(f, t, n, &c, true, "What-if: ");
	const char *caution = wb_whatif_caution(v->lim, v->whatif);
	if (caution)
		fprintf(f, "  caution: %s\n", caution);
	t = wb_catalog_bdi(&n);
	col[m++] = &t[0]; /* the BDI's name */
	for (size_t k = 0; k < n && m < MAX_COLS; k++)
		if (t[k].model && t[k].title)
			col[m++] = &t[k];
	fputs("  ", f);
	text_row(f, col, m, NULL);
	for (size_t i = 0; i < v->whatif->nbdis && i < v->cur->nbdis; i++) {
		struct wb_fctx w = { .v = v, .s = v->cur, .l = v->whatif, .i = i, .b = &v->cur->bdis[i],
				     .bl = &v->whatif->bdis[i], .d = &v->bdi[i] };
		fputs("  ", f);
		text_row(f, col, m, &w);
	}
}

/*
 * A forecast's drain times per device: at the bandwidth the forecast runs the
 * device at (DRAIN@BW), not CLEAN-IN's rate completed lately - two figures
 * under one name read 1.3 s and 13.0 s for one stick in one report.
 */
static void text_forecast(FILE *f, const char *what, const struct wb_forecast *fc, const struct wb_sample *s)
{
	fprintf(f, "Forecast (%s, next %.0f s):\n  %-10s %8s %9s %10s %9s\n", what, fc->horizon_s, "BDI",
		"DRAIN@BW", "CLEAN-AT", "BG-FLUSH/m", "DEMAND/s");
	for (size_t i = 0; i < fc->nbdis; i++) {
		const struct wb_forecast_bdi *b = &fc->bdis[i];
		char dr[24] = "-", cl[24], dm[16] = "-", nm[WB_NAME_LEN];
		/* not clean within the horizon is not "never": expiry or a flush may come after it */
		snprintf(cl, sizeof(cl), ">%.0fs", fc->horizon_s);
		if (b->drain_s >= 0)
			snprintf(dr, sizeof(dr), "%.1fs", b->drain_s);
		if (b->clean_at_s >= 0)
			snprintf(cl, sizeof(cl), "%.1fs", b->clean_at_s);
		if (b->dirty_rate_in >= 0)
			wb_fmt_bytes(dm, sizeof(dm), b->dirty_rate_in * s->page_size);
		fprintf(f, "  %-10s %8s %9s %10.1f %9s\n", wb_safe_text(b->name, nm, sizeof(nm)), dr, cl,
			b->bg_flushes_per_min, dm);
	}
}

void wb_out_text(FILE *f, const struct wb_view *v)
{
	const struct wb_sample *s = v->cur;
	const struct wb_field *col[MAX_COLS];
	const char *hidden[4];
	int nh = wb_level_hidden(s->level, s->level_why, s->ev_valid, hidden, 4);
	size_t m = text_columns(v, col);

	text_global(f, v);
	for (int i = 0; i < nh; i++)
		fprintf(f, "  (%s)\n", hidden[i]);
	fputc('\n', f);
	text_row(f, col, m, NULL);
	for (size_t i = 0; i < s->nbdis; i++) {
		struct wb_fctx c;
		wb_catalog_ctx(&c, v, v->lim, i);
		text_row(f, col, m, &c);
	}
	if (v->whatif) {
		fputc('\n', f);
		text_whatif(f, v);
	}
	if (v->forecast) {
		fputc('\n', f);
		text_forecast(f, "current settings", v->forecast, s);
	}
	if (v->whatif_forecast)
		text_forecast(f, "what-if", v->whatif_forecast, s);
	fputc('\n', f);
}

/* The CSV columns: the BDI's, its events' and the global entity's, merged by position. */
static size_t csv_columns(const struct wb_field **col)
{
	const struct wb_field *(*const tables[])(size_t *) = { wb_catalog_bdi, wb_catalog_bdi_events,
								wb_catalog_global };
	size_t m = 0, n;

	for (size_t k = 0; k < sizeof(tables) / sizeof(tables[0]); k++) {
		const struct wb_field *t = tables[k](&n);
		m += wb_catalog_columns(t, n, WB_SINK_CSV, col + m, MAX_COLS);
	}
	for (size_t i = 1; i < m; i++) /* by position: insertion sort of a few dozen */
		for (size_t j = i; j > 0 && col[j - 1]->pos[WB_SINK_CSV] > col[j]->pos[WB_SINK_CSV]; j--) {
			const struct wb_field *x = col[j];
			col[j] = col[j - 1];
			col[j - 1] = x;
		}
	return m;
}

/* Where time_iso goes among the m columns: before the first one added after it. */
static size_t csv_iso_at(const struct wb_field *const *col, size_t m)
{
	size_t k = 0;

	while (k < m && col[k]->pos[WB_SINK_CSV] < WB_CSV_POS_TIME_ISO)
		k++;
	return k;
}

void wb_out_csv_header(FILE *f)
{
	const struct wb_field *col[3 * MAX_COLS];
	size_t m = csv_columns(col), iso = csv_iso_at(col, m);

	fputs("time", f);
	for (size_t k = 0; k <= m; k++) {
		if (k == iso)
			fputs(",time_iso", f); /* where it was added: the older columns keep their positions */
		if (k < m)
			fprintf(f, ",%s", col[k]->csv);
	}
	fputc('\n', f);
}

/*
 * The unit of a CSV column as --csv-units names it. The catalogue's unit says
 * how a value is held; these columns hold a rate, a percent or a flag in an
 * integer, so their unit is named here.
 */
static const char *csv_unit(const struct wb_field *f)
{
	static const struct { const char *csv, *unit; } held[] = {
		{ "write_bw", "B/s" }, { "min_ratio", "%" }, { "max_ratio", "%" }, { "strict_limit", "0/1" },
		{ "pause_ms_total", "ms" }, { "pause_ms_max", "ms" },
	};
	static const char *const of_unit[] = {
		[WB_U_TEXT] = "", [WB_U_BYTES] = "B", [WB_U_RATE] = "B/s", [WB_U_COUNT] = "", [WB_U_PCT] = "%",
		[WB_U_SECS] = "s", [WB_U_PER_MIN] = "1/min", [WB_U_REAL] = "", [WB_U_FLAG] = "0/1",
	};

	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		if (strcmp(f->csv, held[i].csv) == 0)
			return held[i].unit;
	return (size_t)f->unit < sizeof(of_unit) / sizeof(of_unit[0]) ? of_unit[f->unit] : "";
}

void wb_out_csv_units(FILE *f)
{
	const struct wb_field *col[3 * MAX_COLS];
	size_t m = csv_columns(col), iso = csv_iso_at(col, m);

	fputs("s", f); /* time: seconds since the epoch */
	for (size_t k = 0; k <= m; k++) { /* the header's order, time_iso included */
		if (k == iso)
			fputs(",UTC", f);
		if (k < m)
			fprintf(f, ",%s", csv_unit(col[k]));
	}
	fputc('\n', f);
}

void wb_out_csv_text(FILE *f, const char *s)
{
	char safe[4 * WB_PATH_LEN];

	fputc('"', f);
	for (const char *p = wb_safe_text(s, safe, sizeof(safe)); *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

/* The sample's wall time as ISO 8601 UTC ("2026-12-02T04:34:52.196Z"); empty when unknown. */
static void csv_time_iso(FILE *f, double wall)
{
	char b[40];
	time_t t;
	struct tm tm;
	double ms;

	fputc(',', f);
	if (!isfinite(wall) || wall < 0 || wall > 253402300799.0) /* past 9999-12-31: not ISO 8601 */
		return;
	t = (time_t)wall;
	ms = floor((wall - (double)t) * 1000 + 0.5);
	if (ms >= 1000) { /* keep the CSV's 3 decimals consistent with the epoch column */
		t++;
		ms = 0;
	}
	if (!gmtime_r(&t, &tm) || !strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm))
		return;
	fprintf(f, "%s.%03dZ", b, (int)ms);
}

void wb_out_csv(FILE *f, const struct wb_view *v)
{
	const struct wb_field *col[3 * MAX_COLS];
	size_t m = csv_columns(col), iso = csv_iso_at(col, m);

	for (size_t i = 0; i < v->cur->nbdis; i++) {
		struct wb_fctx c;
		wb_catalog_ctx(&c, v, v->lim, i);
		if (isfinite(v->cur->wall)) /* a damaged recording's time is unknown: empty */
			fprintf(f, "%.3f", v->cur->wall);
		for (size_t k = 0; k <= m; k++) {
			struct wb_value x;
			if (k == iso)
				csv_time_iso(f, v->cur->wall);
			if (k == m)
				break;
			x = col[k]->get(&c);
			fputc(',', f);
			wb_catalog_csv(f, col[k], &x);
		}
		fputc('\n', f);
	}
}
