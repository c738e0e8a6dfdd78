// SPDX-License-Identifier: GPL-2.0-or-later
/* --set with --apply, --trial or --export-sysctl, and --recover: the one-shot tuning modes of the CLI. */
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "wbtop/apply.h"
#include "wbtop/live.h"
#include "wbtop/model.h"
#include "wbtop/signals.h"
#include "wbtop/tune.h"
#include "wbtop/whatif.h"

/*
 * Parse every --set and check it as the kernel would take the writes, in
 * order, on k: one line per bad value (with tail), so all are seen at once.
 * 0, or 2 (a bad value).
 */
static int check_sets(const struct wb_apply_opts *o, const struct wb_sample *s, const struct wb_limits *lim,
		      struct wb_settings *k, struct wb_setop *ops, const char *tail)
{
	char err[256];
	int bad = 0;

	for (int i = 0; i < o->nsets; i++)
		if (wb_setop_parse(o->sets[i], s, &ops[i], err, sizeof(err)) ||
		    wb_setop_clash(ops, i, err, sizeof(err)) ||
		    wb_settings_apply(k, lim, s->page_size, &ops[i], err, sizeof(err))) {
			fprintf(stderr, "wbtop: %s%s\n", err, tail);
			ops[i].knob = -1; /* no knob: the later ones are not said to clash with it */
			bad++;
		}
	return bad ? 2 : 0;
}

/*
 * Can name go into a udev rule's quotes and a shell line as it is? A
 * kernel's BDI and block device names do (7:0, btrfs-1, ceph-FSID.client1,
 * sda1); a tree's may hold a quote, a blank or a newline, which wrote a
 * line of its own into the rules file ("RUN..."). 0, or 2 with a line.
 */
static int name_exportable(const char *key, const char *what, const char *name)
{
	char safe[96], skey[160];

	if (name[0] && strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:+@-") == strlen(name))
		return 0;
	fprintf(stderr, "wbtop: %s: %s \"%s\" holds characters a udev rule or a shell line cannot carry as they are; "
		"nothing exported\n", wb_safe_text(key, skey, sizeof(skey)), what, wb_safe_text(name, safe, sizeof(safe)));
	return 2;
}

/* The knobs as files a person can install: sysctl.d for vm.*, udev rules for BDIs; only if all are valid. */
static int export_sysctl(const struct wb_apply_opts *o, const struct wb_sample *s, const struct wb_limits *lim)
{
	struct wb_setop ops[WB_APPLY_MAX_SETS];
	struct wb_settings k;
	int rc;

	if (wb_settings_from_sample(&k, s))
		return 1;
	rc = check_sets(o, s, lim, &k, ops, "");
	wb_settings_finish(&k);
	if (rc)
		return rc;
	int nvm = 0, nbdi = 0;

	for (int i = 0; i < o->nsets; i++) { /* before anything is printed: all or nothing */
		const struct wb_bdi *b = ops[i].is_bdi ? wb_sample_bdi(s, ops[i].bdi) : NULL;
		if (ops[i].is_bdi && (name_exportable(ops[i].key, "device", ops[i].bdi) ||
				      (b && b->dev[0] && name_exportable(ops[i].key, "block device", b->dev))))
			rc = 2;
	}
	if (rc)
		return rc;
	for (int i = 0; i < o->nsets; i++)
		ops[i].is_bdi ? nbdi++ : nvm++;
	/* a section only for the kind of knob that was set: an empty one is nothing to install */
	if (nvm)
		printf("# wbtop --export-sysctl: install as /etc/sysctl.d/90-writeback.conf\n");
	for (int i = 0; i < o->nsets; i++)
		if (!ops[i].is_bdi)
			printf("%s = %llu\n", ops[i].key, (unsigned long long)ops[i].value);
	if (nbdi)
		printf("%s# per-device knobs: install as /etc/udev/rules.d/90-writeback.rules\n", nvm ? "\n" : "");
	for (int i = 0; i < o->nsets; i++) {
		const struct wb_setop *op = &ops[i];
		const struct wb_bdi *b = op->is_bdi ? wb_sample_bdi(s, op->bdi) : NULL;
		const char *attr = strrchr(op->key, '.') + 1;

		if (!op->is_bdi)
			continue;
		if (b && b->dev[0] && strchr(b->name, ':'))
			printf("ACTION==\"add|change\", SUBSYSTEM==\"block\", KERNEL==\"%s\", ATTR{bdi/%s}=\"%llu\"\n",
			       b->dev, attr, (unsigned long long)op->value);
		else /* a filesystem's own BDI: no block device to match, a boot-time write instead */
			printf("# %s has no block device: echo %llu > /sys/class/bdi/%s/%s after mounting\n", op->bdi,
			       (unsigned long long)op->value, op->bdi, attr);
	}
	return 0;
}

/* One live sample with the model (no tracing, no process table). */
static int one_sample(const struct wb_apply_opts *o, struct wb_sample *s, struct wb_limits *lim, char *err, size_t n)
{
	struct wb_live_opts lo = { .root = o->root };
	struct wb_live *l = wb_live_create(&lo, err, n);

	if (!l)
		return -1;
	wb_live_read(l, s);
	wb_live_destroy(l);
	if (s->level < 0 || wb_model_eval(NULL, s, NULL, NULL, 0, lim) || !lim->valid) {
		snprintf(err, n, "cannot read the kernel's writeback state under %s", o->root);
		return -1;
	}
	return 0;
}

/* "btrfs-1 (loop2)": the BDI and, where its name does not say it, its block device. */
static const char *bdi_label(char *buf, size_t n, const struct wb_sample *s, const char *name)
{
	const struct wb_bdi *b = wb_sample_bdi(s, name);

	if (b && b->dev[0] && strcmp(b->dev, name))
		snprintf(buf, n, "%s (%s)", name, b->dev);
	else
		snprintf(buf, n, "%s", name);
	return buf;
}

/* Was BDI name set by one of ops? */
static bool named(const struct wb_setop *ops, int nops, const char *name)
{
	for (int i = 0; i < nops; i++)
		if (ops[i].is_bdi && strcmp(ops[i].bdi, name) == 0)
			return true;
	return false;
}

/*
 * Print each threshold, global and per BDI, before -> predicted (-> the
 * kernel's, and the error of the model on the read-back sample's own inputs,
 * which excludes memory drift). A device has a row when a --set names it or
 * its threshold moves by more than the per-CPU counters' slack (predicted, or
 * as the kernel reads it): the others' few pages of difference are noise.
 */
static void report(const struct wb_sample *s, const struct wb_limits *now, const struct wb_limits *pred,
		   const struct wb_sample *after, const struct wb_limits *got, const struct wb_setop *ops, int nops)
{
	char a[16], b[16], c[16], label[2 * WB_NAME_LEN + 4];
	double P = s->page_size;
	uint64_t slack = wb_counter_slack(s);

	printf("%-22s %10s %10s", "", "now", "predicted");
	if (after)
		printf(" %10s %8s", "kernel", "error");
	printf("\n%-22s %10s %10s", "dirty thresh", wb_fmt_bytes(a, 16, now->thresh * P), wb_fmt_bytes(b, 16, pred->thresh * P));
	if (after)
		printf(" %10s %8lld", wb_fmt_bytes(c, 16, after->g.v[WB_G_DIRTY_THRESH] * P),
		       (long long)(got->thresh - after->g.v[WB_G_DIRTY_THRESH])); /* wraps, never overflows */
	printf("\n%-22s %10s %10s", "background", wb_fmt_bytes(a, 16, now->bg * P), wb_fmt_bytes(b, 16, pred->bg * P));
	if (after)
		printf(" %10s %8lld", wb_fmt_bytes(c, 16, after->g.v[WB_G_BG_THRESH] * P),
		       (long long)(got->bg - after->g.v[WB_G_BG_THRESH]));
	printf("\n");
	for (size_t i = 0; i < pred->nbdis && i < now->nbdis; i++) {
		const struct wb_bdi_limits *x = &now->bdis[i], *y = &pred->bdis[i];
		const struct wb_bdi *k = after ? wb_sample_bdi(after, y->name) : NULL;
		bool kt = k && WB_HAS(k->st_valid, WB_B_THRESH);
		uint64_t moved = x->thresh > y->thresh ? x->thresh - y->thresh : y->thresh - x->thresh;
		uint64_t off = !kt ? 0 : k->st[WB_B_THRESH] > y->thresh ? k->st[WB_B_THRESH] - y->thresh
								   : y->thresh - k->st[WB_B_THRESH];

		if (!named(ops, nops, y->name) && moved <= slack && off <= slack)
			continue;
		printf("%-22s %10s %10s", bdi_label(label, sizeof(label), s, y->name), wb_fmt_bytes(a, 16, x->thresh * P),
		       wb_fmt_bytes(b, 16, y->thresh * P));
		if (kt)
			printf(" %10s %8lld", wb_fmt_bytes(c, 16, k->st[WB_B_THRESH] * P),
			       (long long)(y->thresh - k->st[WB_B_THRESH]));
		if (x->frac_src == WB_FRAC_CAPPED)
			printf("  (its share was hidden by max_ratio: %s)", wb_hidden_texts[x->frac_hidden ? x->hidden_how : WB_HID_NONE].phrase);
		else if (y->dirty_known && y->wb_dirty >= y->thresh)
			printf("  (more than that is dirty now: its writers will stall)");
		printf("\n");
	}
	if (after)
		printf("(errors in pages, the model on the read-back inputs; devices whose threshold moved by no more\n"
		       " than the per-CPU counters' %llu pages are left out)\n", (unsigned long long)slack);
}

/* The value in a knob's file now, "" if unreadable. */
static void read_knob(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)n, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/* Is key the same knob as other in another unit (max_ratio and max_ratio_fine)? */
static bool same_knob(const char *key, const char *other)
{
	size_t a = strlen(key), b = strlen(other);

	a -= a > 5 && strcmp(key + a - 5, "_fine") == 0 ? 5 : 0;
	b -= b > 5 && strcmp(other + b - 5, "_fine") == 0 ? 5 : 0;
	return a == b && strncmp(key, other, a) == 0 && strcmp(key, other);
}

/*
 * One line per knob the change moved, before -> as read back: what was
 * written, and a twin the kernel changed with it (a ratio cleared by its bytes
 * knob); not the same knob again in another unit (max_ratio_fine for max_ratio).
 */
static void report_knobs(const struct wb_tune *t)
{
	char now[32];

	for (int i = 0; i < t->n; i++) {
		const struct wb_tune_entry *e = &t->e[i];
		bool written = strcmp(e->want, e->orig) != 0, unit_twin = false;

		for (int j = 0; j < t->n; j++)
			unit_twin |= same_knob(e->key, t->e[j].key) && strcmp(t->e[j].want, t->e[j].orig) != 0;
		read_knob(e->path, now, sizeof(now));
		if (strcmp(now, e->orig) == 0 || (!written && unit_twin))
			continue;
		printf("%-40s %s -> %s", e->key, e->orig, now[0] ? now : "?");
		if (!written)
			printf("  (the kernel changed it with its twin)");
		else if (strcmp(now, e->want))
			printf("  (written: %s)", e->want);
		printf("\n");
	}
}

/* A set on a block device that a file system's own BDI writes for (btrfs): its writes go there. */
static void note_fs_bdis(const struct wb_sample *s, const struct wb_setop *ops, int nops)
{
	for (int i = 0; i < nops; i++) {
		const struct wb_bdi *b = ops[i].is_bdi ? wb_sample_bdi(s, ops[i].bdi) : NULL;
		if (!b || !b->dev[0] || !strchr(b->name, ':'))
			continue;
		for (size_t j = 0; j < s->nbdis; j++)
			if (!strchr(s->bdis[j].name, ':') && strcmp(s->bdis[j].dev, b->dev) == 0)
				printf("note: %s's file system writes through %s: %s does not hold its writers\n",
				       b->dev, s->bdis[j].name, ops[i].key);
	}
}

/* Wait the trial out: keep on "keep", revert on timeout or a signal. */
static bool trial_keep(double secs)
{
	struct timespec end;
	bool tty = isatty(STDIN_FILENO);

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	printf("trial: the old values come back in %.0f s%s (Ctrl-C: now)\n", secs,
	       tty ? " unless you type keep and Enter" : "");
	fflush(stdout);
	while (!wb_stop) {
		struct timespec now;
		fd_set fds;
		struct timeval tv = { 0, 200000 };
		char line[64];

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			return false;
		if (!tty) {
			nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
			continue;
		}
		FD_ZERO(&fds);
		FD_SET(STDIN_FILENO, &fds);
		if (select(STDIN_FILENO + 1, &fds, NULL, NULL, &tv) > 0 && fgets(line, sizeof(line), stdin) &&
		    strncmp(line, "keep", 4) == 0)
			return true;
	}
	return false;
}

int wb_apply_run(const struct wb_apply_opts *o)
{
	struct wb_sample s, after;
	struct wb_limits lim, pred, got;
	struct wb_settings k;
	struct wb_setop ops[WB_APPLY_MAX_SETS];
	struct wb_tune t;
	char err[256], q[WB_QUOTE_LEN];
	int rc = 1;

	wb_sample_init(&s);
	wb_sample_init(&after);
	memset(&pred, 0, sizeof(pred));
	if (one_sample(o, &s, &lim, err, sizeof(err))) {
		fprintf(stderr, "wbtop: %s\n", err);
		return 1;
	}
	if (o->export_sysctl) {
		rc = export_sysctl(o, &s, &lim);
		goto out;
	}
	if (wb_settings_from_sample(&k, &s))
		goto out;
	if (check_sets(o, &s, &lim, &k, ops, "; nothing written")) {
		wb_settings_finish(&k);
		rc = 2;
		goto out;
	}
	wb_model_eval(NULL, &s, &k, &lim, 0, &pred);
	wb_settings_finish(&k);
	note_fs_bdis(&s, ops, o->nsets);
	if (!o->apply) {
		report(&s, &lim, &pred, NULL, NULL, ops, o->nsets);
		rc = 0;
		goto out;
	}
	if (geteuid() != 0) {
		report(&s, &lim, &pred, NULL, NULL, ops, o->nsets);
		fprintf(stderr, "wbtop: --apply needs root (this is the prediction only); nothing written\n");
		rc = 1;
		goto out;
	}
	if (wb_tune_apply(&t, o->root, ops, o->nsets, err, sizeof(err))) {
		fprintf(stderr, "wbtop: %s\n", err);
		goto out;
	}
	report_knobs(&t);
	if (one_sample(o, &after, &got, err, sizeof(err)) == 0) {
		report(&s, &lim, &pred, &after, &got, ops, o->nsets);
		wb_limits_finish(&got);
	}
	if (o->trial && !trial_keep(o->trial)) {
		if (wb_tune_revert(&t, err, sizeof(err))) {
			fprintf(stderr, "wbtop: revert: %s (journal kept: %s)\n", err, wb_quote(t.journal, q, sizeof(q)));
			goto out;
		}
		if (t.left[0])
			printf("reverted, but changed by another since and left as they are: %s\n", t.left);
		else
			printf("reverted: the previous values are back\n");
		if (t.gone[0]) /* not a failure: a device removed mid-trial took its knobs along */
			printf("gone meanwhile, with their knobs (nothing to put back): %s\n", t.gone);
	} else {
		wb_tune_confirm(&t);
		printf("applied%s\n", o->trial ? " and kept" : "");
	}
	rc = 0;
out:
	wb_limits_finish(&lim);
	wb_limits_finish(&pred);
	wb_sample_finish(&s);
	wb_sample_finish(&after);
	return rc;
}

int wb_apply_recover(const struct wb_apply_opts *o)
{
	struct wb_tune t;
	char err[512], line[16] = "", q[WB_QUOTE_LEN];
	int st = wb_tune_find_stale(&t, err, sizeof(err));
	bool revert;

	if (st < 0)
		fprintf(stderr, "wbtop: %s\n", err);
	if (st <= 0)
		return st < 0 && o->recover ? -1 : 0;
	fprintf(stderr, "wbtop found unconfirmed changes from a previous run (pid %d):\n", t.pid);
	for (int i = 0; i < t.n; i++)
		fprintf(stderr, "  %s: %s (was %s)%s\n", t.e[i].key, t.e[i].want, t.e[i].orig,
			t.e[i].gone ? ": the device has gone" : "");
	if (o->recover) {
		revert = strcmp(o->recover, "revert") == 0;
	} else if (isatty(STDIN_FILENO)) {
		fprintf(stderr, "revert? y/n ");
		revert = fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y');
	} else {
		fprintf(stderr, "wbtop: left as they are; run with --recover revert or --recover keep\n");
		return 0;
	}
	if (!revert) {
		wb_tune_confirm(&t);
		fprintf(stderr, "wbtop: kept\n");
	} else if (wb_tune_revert(&t, err, sizeof(err)) == 0) {
		if (t.left[0])
			fprintf(stderr, "wbtop: reverted, but changed by another since and left as they are: %s\n",
				t.left);
		else
			fprintf(stderr, "wbtop: reverted\n");
		if (t.gone[0])
			fprintf(stderr, "wbtop: gone since, with their knobs (nothing to put back): %s\n", t.gone);
	} else {
		fprintf(stderr, "wbtop: revert: %s (journal kept: %s)\n", err, wb_quote(t.journal, q, sizeof(q)));
		return o->recover ? -1 : 0;
	}
	return 0;
}
