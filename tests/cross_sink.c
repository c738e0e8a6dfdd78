// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cross-sink: for every shipped recording and every sample, each catalogue
 * field shown by more than one of JSON, CSV, text and the Devices pane
 * (rendered in-process, no curses) has the same value in all of them, and
 * the same fields are unknown. Each sink's output is parsed back from its
 * text, not taken from the catalogue. Then a level-1 sample (debugfs
 * unreadable): the pane shows '-' for the kernel's per-device figures.
 *   cross_sink SRCDIR
 */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/catalog.h"
#include "wbtop/pipeline.h"
#include "wbtop/record.h"
#include "wbtop/ui.h"

#define CELL 512
static int failures, checks;

/* ---- a minimal JSON reader: enough to find members and copy values ---- */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\n')
		p++;
	return p;
}

/* Past the value at p (string, number, literal, object or array). */
static const char *skip_value(const char *p)
{
	int depth = 0;
	bool str = false;

	p = skip_ws(p);
	do {
		if (str) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				str = false;
		} else if (*p == '"') {
			str = true;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			depth--;
		} else if (depth == 0 && (*p == ',')) {
			return p;
		}
		p++;
	} while (*p && (depth > 0 || str || (*p != ',' && *p != '}' && *p != ']')));
	return p;
}

/* The raw value of member key of the object at obj (strings without quotes); false if absent. */
static bool member(const char *obj, const char *key, char *out, size_t n)
{
	const char *p = skip_ws(obj) + 1; /* past '{' */

	while (*(p = skip_ws(p)) == '"') {
		const char *k = p + 1, *ke = strchr(k, '"'), *v = skip_ws(ke + 2), *e = skip_value(v);
		if ((size_t)(ke - k) == strlen(key) && strncmp(k, key, (size_t)(ke - k)) == 0) {
			size_t len = (size_t)(e - v);
			if (*v == '"')
				v++, len -= 2;
			snprintf(out, n, "%.*s", (int)len, v);
			return true;
		}
		p = *e == ',' ? e + 1 : e;
	}
	return false;
}

/* The i-th element of the array member key of obj, or NULL. */
static const char *element(const char *obj, const char *key, size_t i)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":[", key);
	p = strstr(obj, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	for (size_t k = 0; k < i && *p && *p != ']'; k++) {
		p = skip_value(p);
		if (*p == ',')
			p++;
	}
	return *p == '{' ? p : NULL;
}

/* ---- CSV and text ---- */

/* Cell k of a CSV line (quotes removed). */
static void csv_cell(const char *line, size_t k, char *out, size_t n)
{
	size_t o = 0;
	bool q = false;

	for (size_t c = 0; *line && *line != '\n'; line++) {
		if (*line == '"' && q && line[1] == '"') {
			line++;
		} else if (*line == '"') {
			q = !q;
			continue;
		} else if (*line == ',' && !q) {
			c++;
			continue;
		}
		if (c == k && o + 1 < n)
			out[o++] = *line;
	}
	out[o] = '\0';
}

static const char *nth_line(const char *s, size_t i)
{
	for (; i && s; i--)
		if ((s = strchr(s, '\n')))
			s++;
	return s;
}

/* Column k of a text table row: whitespace-split, the last column the rest. */
static void text_cell(const char *line, size_t k, size_t m, char *out, size_t n)
{
	const char *p = line;
	size_t len;

	for (size_t c = 0; c < k; c++) {
		while (*p == ' ')
			p++;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	while (*p == ' ')
		p++;
	len = k + 1 == m ? strcspn(p, "\n") : strcspn(p, " \n");
	snprintf(out, n, "%.*s", (int)len, p);
}

/* "Title value" of the text output's global lines. */
static bool text_pair(const char *text, const char *title, char *out, size_t n)
{
	char pat[64];
	const char *end = strstr(text, "\nvm:"), *p = text;

	snprintf(pat, sizeof(pat), "%s ", title);
	while ((p = strstr(p, pat)) && p < end) {
		if (p[-1] == ' ' || p[-1] == '\n') {
			p += strlen(pat);
			snprintf(out, n, "%.*s", (int)strcspn(p, " \n"), p);
			return true;
		}
		p++;
	}
	return false;
}

/* ---- comparing ---- */

struct shown {
	const char *sink;
	bool has, known;
	char v[CELL];
};

static void fail(const char *path, size_t si, const char *who, const struct wb_field *f, const struct shown *a,
		 const struct shown *b)
{
	if (failures++ < 20)
		fprintf(stderr, "not ok - %s sample %zu %s %s: %s '%s'%s, %s '%s'%s\n", path, si, who,
			f->key ? f->key : f->title, a->sink, a->v, a->known ? "" : " (unknown)", b->sink, b->v,
			b->known ? "" : " (unknown)");
}

/* A cell's number: JSON's true and false are CSV's 1 and 0. */
static double num(const char *v)
{
	return strcmp(v, "true") == 0 ? 1 : strcmp(v, "false") == 0 ? 0 : strtod(v, NULL);
}

/* b agrees with the reference a: same knowledge, and the same value in b's rendering. */
static bool agree(const struct wb_field *f, const struct shown *a, const struct shown *b)
{
	char buf[CELL];
	bool screen_a = strcmp(a->sink, "text") == 0 || strcmp(a->sink, "pane") == 0;
	bool screen_b = strcmp(b->sink, "text") == 0 || strcmp(b->sink, "pane") == 0;
	double x = num(a->v), y = num(b->v);
	struct wb_value w = { .known = true, .u = (uint64_t)llround(x), .d = x, .s = a->v };

	if (a->known != b->known)
		return false;
	if (!a->known || screen_a == screen_b) /* the same rendering: numbers within rounding */
		return !a->known || strcmp(a->v, b->v) == 0 || (f->unit != WB_U_TEXT && fabs(x - y) <= 0.51);
	/* a machine figure against a screen cell: render it as the screen does */
	if (strcmp(b->v, wb_catalog_show(f, &w, buf, sizeof(buf))) == 0)
		return true;
	w.d = x + 0.05; /* JSON rounds rates to 0.1 */
	if (strcmp(b->v, wb_catalog_show(f, &w, buf, sizeof(buf))) == 0)
		return true;
	w.d = x - 0.05;
	return strcmp(b->v, wb_catalog_show(f, &w, buf, sizeof(buf))) == 0;
}

static void compare(const char *path, size_t si, const char *who, const struct wb_field *f, struct shown *s, int n)
{
	int ref = -1;

	for (int k = 0; k < n; k++)
		if (s[k].has && ref < 0)
			ref = k;
	for (int k = ref + 1; ref >= 0 && k < n; k++) {
		if (!s[k].has)
			continue;
		checks++;
		if (!agree(f, &s[ref], &s[k]))
			fail(path, si, who, f, &s[ref], &s[k]);
	}
}

/* Render the view through every sink into strings. */
static void render(const struct wb_view *v, char **json, char **csv, char **text)
{
	size_t len;
	FILE *f = open_memstream(json, &len);

	wb_out_json(f, v);
	fclose(f);
	f = open_memstream(csv, &len);
	wb_out_csv_header(f);
	wb_out_csv(f, v);
	fclose(f);
	f = open_memstream(text, &len);
	wb_out_text(f, v);
	fclose(f);
}

/* Index of CSV column name in the header, or -1. */
static int csv_index(const char *header, const char *name)
{
	char c[64];

	for (int k = 0; k < 64; k++) {
		csv_cell(header, (size_t)k, c, sizeof(c));
		if (!c[0])
			return -1;
		if (strcmp(c, name) == 0)
			return k;
	}
	return -1;
}

static void check_bdis(const char *path, size_t si, const struct wb_view *v, const char *json, const char *csv,
		       const char *text)
{
	size_t n, nt = 0, nu;
	const struct wb_field *t = wb_catalog_bdi(&n), *tcol[64], *ucol[64];
	const char *hdr = strstr(text, "\nBDI ");

	int csvk[64];

	for (size_t r = 0; r < n && r < 64; r++) /* the header's column of each field, once */
		csvk[r] = t[r].pos[WB_SINK_CSV] ? csv_index(csv, t[r].csv) : -1;
	nu = wb_ui_dev_columns(ucol, 64);
	nt = wb_catalog_columns(t, n, WB_SINK_TEXT, tcol, 64);
	if (!v->whatif) { /* IF-THRESH is a text column only with --set */
		size_t o = 0;
		for (size_t k = 0; k < nt; k++)
			if (strcmp(tcol[k]->title, "IF-THRESH") != 0)
				tcol[o++] = tcol[k];
		nt = o;
	}
	for (size_t i = 0; i < v->cur->nbdis; i++) {
		const char *obj = element(json, "bdis", i), *row = nth_line(csv, i + 1);
		const char *trow = hdr ? nth_line(hdr + 1, i + 1) : NULL;
		for (size_t r = 0; r < n; r++) {
			const struct wb_field *f = &t[r];
			struct shown s[4] = { { .sink = "json" }, { .sink = "csv" }, { .sink = "text" }, { .sink = "pane" } };
			if (f->key && f->json != WB_J_HOOK && obj) {
				s[0].has = true;
				s[0].known = member(obj, f->key, s[0].v, CELL);
			}
			if (f->pos[WB_SINK_CSV] && row) {
				int k = csvk[r];
				s[1].has = k >= 0;
				csv_cell(row, (size_t)k, s[1].v, CELL);
				s[1].known = s[1].v[0] != '\0';
			}
			for (size_t k = 0; k < nt && trow; k++)
				if (tcol[k] == f) {
					s[2].has = true;
					text_cell(trow, k, nt, s[2].v, CELL);
					s[2].known = strcmp(s[2].v, "-") != 0;
				}
			for (size_t k = 0; k < nu; k++)
				if (ucol[k] == f && f->json != WB_J_HOOK) {
					s[3].has = true;
					wb_ui_dev_cell(f, v, i, s[3].v, CELL);
					s[3].known = strcmp(s[3].v, "-") != 0;
				}
			compare(path, si, v->cur->bdis[i].name, f, s, 4);
		}
	}
}

/*
 * The tracepoint figures: a BDI's, in its JSON "events" object and in CSV;
 * the system's, in the top-level "events" object and the text's events line.
 */
static void check_events(const char *path, size_t si, const struct wb_view *v, const char *json, const char *csv,
			 const char *text)
{
	size_t n;
	const struct wb_field *t = wb_catalog_bdi_events(&n);
	const char *tev = strstr(text, "\nevents: ");
	static char ev[1 << 16];

	for (size_t i = 0; i < v->cur->nbdis; i++) {
		const char *obj = element(json, "bdis", i), *row = nth_line(csv, i + 1);
		bool has = obj && member(obj, "events", ev, sizeof(ev));
		for (size_t r = 0; r < n; r++) {
			const struct wb_field *f = &t[r];
			struct shown s[2] = { { .sink = "json", .has = f->json != WB_J_HOOK }, { .sink = "csv" } };
			if (s[0].has)
				s[0].known = has && member(ev, f->key, s[0].v, CELL);
			if (f->pos[WB_SINK_CSV] && row) {
				int k = csv_index(csv, f->csv);
				s[1].has = k >= 0;
				csv_cell(row, (size_t)k, s[1].v, CELL);
				s[1].known = s[1].v[0] != '\0';
			}
			compare(path, si, v->cur->bdis[i].name, f, s, 2);
		}
	}
	t = wb_catalog_events(&n);
	const char *g = NULL; /* the system's object: the last "events" (after the BDIs' and the processes) */
	for (const char *p = json; (p = strstr(p, "\"events\":{")); p++)
		g = p;
	for (size_t r = 0; r < n; r++) {
		const struct wb_field *f = &t[r];
		struct shown s[2] = { { .sink = "json", .has = f->json != WB_J_HOOK }, { .sink = "text" } };
		char pat[64];
		if (s[0].has)
			s[0].known = g && v->cur->ev_valid && member(g + 9, f->key, s[0].v, CELL);
		if (f->pos[WB_SINK_TEXT]) {
			const char *p;
			snprintf(pat, sizeof(pat), " %s ", f->title);
			p = tev ? strstr(tev, pat) : NULL;
			s[1].has = true;
			s[1].known = p != NULL;
			if (p)
				snprintf(s[1].v, CELL, "%.*s", (int)strcspn(p + strlen(pat), " \n"), p + strlen(pat));
		}
		compare(path, si, "events", f, s, 2);
	}
}

static void check_global(const char *path, size_t si, const char *json, const char *csv, const char *text)
{
	size_t n;
	const struct wb_field *t = wb_catalog_global(&n);
	const char *g = strstr(json, "\"global\":{"), *row = nth_line(csv, 1);

	for (size_t r = 0; r < n && g; r++) {
		const struct wb_field *f = &t[r];
		struct shown s[3] = { { .sink = "json" }, { .sink = "csv" }, { .sink = "text" } };
		s[0].has = true;
		s[0].known = member(g + 9, f->key, s[0].v, CELL);
		if (f->pos[WB_SINK_CSV] && row && *row) {
			s[1].has = true;
			csv_cell(row, (size_t)csv_index(csv, f->csv), s[1].v, CELL);
			s[1].known = s[1].v[0] != '\0';
		}
		if (f->pos[WB_SINK_TEXT]) {
			s[2].has = text_pair(text, f->title, s[2].v, CELL);
			s[2].known = strcmp(s[2].v, "-") != 0;
		}
		compare(path, si, "global", f, s, 3);
	}
}

static void one_recording(const char *path)
{
	char err[256], warn[256];
	struct wb_rec_reader *r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	struct wb_pipeline_opts po = { 0 };
	struct wb_pipeline *pl = wb_pipeline_create(&po);
	struct wb_replay *p;
	struct wb_source src;
	struct wb_sample s;
	size_t si = 0;

	if (!r || !pl) {
		fprintf(stderr, "not ok - %s: %s\n", path, r ? "out of memory" : err);
		failures++;
		wb_pipeline_destroy(pl);
		return;
	}
	p = wb_replay_create(r, 0, 0);
	wb_replay_source(p, &src);
	wb_sample_init(&s);
	for (; src.read(src.ctx, &s) == 0; si++) {
		char *json, *csv, *text;
		if (wb_pipeline_push(pl, &s, err, sizeof(err)))
			break;
		render(wb_pipeline_view(pl), &json, &csv, &text);
		check_bdis(path, si, wb_pipeline_view(pl), json, csv, text);
		check_global(path, si, json, csv, text);
		check_events(path, si, wb_pipeline_view(pl), json, csv, text);
		free(json);
		free(csv);
		free(text);
	}
	printf("ok - %s: %zu samples\n", path, si);
	wb_sample_finish(&s);
	wb_replay_destroy(p);
	wb_pipeline_destroy(pl);
	wb_rec_close_reader(r);
}

/*
 * Unprivileged (level 1: no debugfs): a recorded sample with its per-device
 * kernel figures taken away. The pane shows '-' for them, never the model's
 * figure or a neighbour's text.
 */
static void level1(const char *path)
{
	static const char *const kernel_cols[] = { "DIRTY", "WRITEBK", "K-THRESH", "BW/s", "%LIM", "CLEAN-IN" };
	char err[256], warn[256], cell[CELL];
	struct wb_rec_reader *r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	struct wb_pipeline_opts po = { 0 };
	struct wb_pipeline *pl = wb_pipeline_create(&po);
	const struct wb_field *col[64];
	size_t nc = wb_ui_dev_columns(col, 64);
	struct wb_sample s;

	wb_sample_init(&s);
	if (!r || !pl || wb_rec_read(r, 0, &s, err, sizeof(err))) {
		fprintf(stderr, "not ok - level 1: %s\n", err);
		failures++;
		goto out;
	}
	s.level = 1;
	for (size_t i = 0; i < s.nbdis; i++)
		s.bdis[i].st_valid = 0;
	wb_pipeline_push(pl, &s, err, sizeof(err));
	for (size_t i = 0; i < s.nbdis; i++)
		for (size_t k = 0; k < nc; k++)
			for (size_t c = 0; c < sizeof(kernel_cols) / sizeof(kernel_cols[0]); c++)
				if (strcmp(col[k]->title, kernel_cols[c]) == 0) {
					checks++;
					wb_ui_dev_cell(col[k], wb_pipeline_view(pl), i, cell, sizeof(cell));
					if (strcmp(cell, "-") != 0 && failures++ < 40)
						fprintf(stderr, "not ok - level 1: %s %s shows '%s', not '-'\n",
							s.bdis[i].name, col[k]->title, cell);
				}
	printf("ok - level 1 sample of %s: kernel columns '-'\n", path);
out:
	wb_sample_finish(&s);
	wb_pipeline_destroy(pl);
	if (r)
		wb_rec_close_reader(r);
}

int main(int argc, char **argv)
{
	static const char *const pat[] = { "examples/*.wbrec", "examples/scenarios/*.wbrec", "tests/fixtures/*.wbrec",
					   "bench/forecast-runs/*.wbrec", "bench/forecast-runs/*/*.wbrec" };
	char path[4096];
	int n = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: cross_sink SRCDIR\n");
		return 2;
	}
	for (size_t k = 0; k < sizeof(pat) / sizeof(pat[0]); k++) {
		glob_t g;
		snprintf(path, sizeof(path), "%s/%s", argv[1], pat[k]);
		if (glob(path, 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++, n++)
			one_recording(g.gl_pathv[i]);
		globfree(&g);
	}
	snprintf(path, sizeof(path), "%s/examples/usb-stick.wbrec", argv[1]);
	level1(path);
	printf("%d recordings, %d checks, %d failures\n", n, checks, failures);
	return n && !failures ? 0 : 1;
}
