// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hostile strings (#23 item 10): a recorded sample whose mount point, device
 * name and fstype hold escape sequences, C1 controls and invalid UTF-8 goes
 * through every sink. Text, CSV and the Devices pane hold no control
 * character (but newlines) and only valid UTF-8; JSON is valid UTF-8 with
 * the controls escaped. A NaN wall time is shown as unknown (no UB).
 *   strings SRCDIR
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/catalog.h"
#include "wbtop/pipeline.h"
#include "wbtop/record.h"
#include "wbtop/ui.h"
#include "wbtop/util.h"

static int failures;

/* Valid UTF-8, and no control byte but '\n' (a terminal would act on it). */
static bool clean(const char *s, bool json)
{
	char safe[1 << 16];
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f)
			return false;
	(void)json;
	if (strstr(s, "\xc2\x9b"))   /* C1 CSI */
		return false;
	/* valid UTF-8: the safe copy of a line changes nothing but controls, which there are none */
	for (const char *p = s; *p;) {
		size_t l = strcspn(p, "\n");
		char line[1 << 15];
		snprintf(line, sizeof(line), "%.*s", (int)l, p);
		if (strcmp(wb_safe_text(line, safe, sizeof(safe)), line) != 0)
			return false;
		p += l + (p[l] == '\n');
	}
	return true;
}

static void expect(const char *what, const char *out, bool json)
{
	if (!clean(out, json)) {
		fprintf(stderr, "not ok - %s output holds a control character or invalid UTF-8\n", what);
		failures++;
	} else {
		printf("ok - %s output is safe\n", what);
	}
}

static char *render(void (*sink)(FILE *, const struct wb_view *), const struct wb_view *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	sink(f, v);
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	static const char evil[] = "/mnt/\x1b]0;owned\x07\x1b[2J\xc2\x9b" "31m\xff\xfe\xed\xa0\x80\r";
	char path[4096], err[256], warn[256];
	struct wb_rec_reader *r;
	struct wb_pipeline_opts po = { 0 };
	struct wb_pipeline *pl = wb_pipeline_create(&po);
	const struct wb_field *col[64];
	size_t nc = wb_ui_dev_columns(col, 64);
	struct wb_sample s;
	char *out;

	if (argc < 2 || !pl)
		return 2;
	snprintf(path, sizeof(path), "%s/examples/usb-stick.wbrec", argv[1]);
	r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	wb_sample_init(&s);
	if (!r || wb_rec_read(r, 1, &s, err, sizeof(err)) || s.nbdis == 0) {
		fprintf(stderr, "not ok - %s: %s\n", path, err);
		return 1;
	}
	snprintf(s.bdis[0].mounts[0], sizeof(s.bdis[0].mounts[0]), "%s", evil);
	s.bdis[0].nmounts = 1;
	snprintf(s.bdis[0].dev, sizeof(s.bdis[0].dev), "sd\x1b[31mX\x9b");
	snprintf(s.bdis[0].fstype, sizeof(s.bdis[0].fstype), "x\x1b\xff");
	wb_pipeline_push(pl, &s, err, sizeof(err));
	out = render(wb_out_text, wb_pipeline_view(pl));
	expect("text", out, false);
	free(out);
	out = render(wb_out_csv, wb_pipeline_view(pl));
	expect("CSV", out, false);
	free(out);
	out = render(wb_out_json, wb_pipeline_view(pl));
	expect("JSON", out, true);
	if (!strstr(out, "\\u001b]0;owned\\u0007") || !strstr(out, "\\ufffd")) {
		fprintf(stderr, "not ok - JSON does not escape the mount point's controls and invalid bytes\n");
		failures++;
	}
	free(out);
	for (size_t k = 0; k < nc; k++) {
		char cell[1024];
		wb_ui_dev_cell(col[k], wb_pipeline_view(pl), 0, cell, sizeof(cell));
		if (!clean(cell, false)) {
			fprintf(stderr, "not ok - Devices pane %s cell is not safe\n", col[k]->title);
			failures++;
		}
	}
	/* #23 item 11: a damaged wall time (NaN) is shown as unknown, never cast to time_t */
	s.wall = 0.0 / 0.0;
	s.mono += 1;
	wb_pipeline_push(pl, &s, err, sizeof(err));
	out = render(wb_out_text, wb_pipeline_view(pl));
	if (!strstr(out, "--:--:--")) {
		fprintf(stderr, "not ok - text with a NaN wall time does not say --:--:--\n");
		failures++;
	} else {
		printf("ok - a NaN wall time reads --:--:--\n");
	}
	free(out);
	out = render(wb_out_csv, wb_pipeline_view(pl));
	if (out[0] != ',') { /* the time cell empty, not "nan" */
		fprintf(stderr, "not ok - CSV with a NaN wall time: %.20s\n", out);
		failures++;
	}
	free(out);
	printf("%d failures\n", failures);
	wb_sample_finish(&s);
	wb_pipeline_destroy(pl);
	wb_rec_close_reader(r);
	return failures ? 1 : 0;
}
