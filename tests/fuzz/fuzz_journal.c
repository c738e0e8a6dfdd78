// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the journal reader and --set parsing, the two ways a
 * file name or a value reaches wbtop's knob writes. The first byte picks
 * which; the rest is a journal (read against a fixture tree) or a KEY=VALUE.
 * Whatever they accept must name a knob of the catalogue under the tree, by
 * a path with no "..", with a value in the knob's range: else abort().
 * tests/fuzz/run.sh fuzz_journal runs it on tests/fuzz/corpus/journal.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wbtop/tune.h"
#include "wbtop/whatif.h"

static char dir[64], root[96], journal[128];

/* The tree goes with the process (each run left one in /tmp). */
static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_journal: could not remove %s\n", dir);
}

/* A fixture tree with the vm knobs and one BDI, made once per process. */
static void setup(void)
{
	char cmd[512];

	if (dir[0])
		return;
	snprintf(dir, sizeof(dir), "/tmp/wbtop-fuzz-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	atexit(remove_dir);
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(journal, sizeof(journal), "%s/journal", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/proc/sys/vm %s/sys/class/bdi/7:0", root, root);
	if (system(cmd) != 0)
		abort();
}

/* Is path root/proc/sys/vm/NAME or root/sys/class/bdi/BDI/ATTR, with no ".." and a catalogue name? Its index. */
static int check_path(const char *path)
{
	const char *rel = path + strlen(root), *base = strrchr(path, '/') + 1;
	bool bdi = strncmp(rel, "/sys/class/bdi/", 15) == 0;

	if (strncmp(path, root, strlen(root)) || strstr(path, "/..") || (!bdi && strncmp(rel, "/proc/sys/vm/", 13)))
		abort();
	if (wb_knob_find(base, bdi) < 0 || strchr(rel + (bdi ? 15 : 13), '/') != (bdi ? base - 1 : NULL))
		abort();
	return wb_knob_find(base, bdi);
}

/* Is v (digits only) 0 or within knob i's range? */
static void check_value(int i, const char *v)
{
	char err[256], *end;
	unsigned long long x = strtoull(v, &end, 10);

	if (!*v || *end || strspn(v, "0123456789") != strlen(v) ||
	    (x && wb_knob_check((size_t)i, "fuzz", x, (uint32_t)sysconf(_SC_PAGESIZE), err, sizeof(err))))
		abort();
}

static void fuzz_journal(const uint8_t *data, size_t size)
{
	static struct wb_tune t;
	char err[512];
	FILE *f = fopen(journal, "w");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	if (wb_tune_read(&t, journal, root, err, sizeof(err)) == 1)
		for (int i = 0; i < t.n; i++) {
			int k = check_path(t.e[i].path);
			check_value(k, t.e[i].orig);
			check_value(k, t.e[i].want);
		}
	else if (t.n != 0)
		abort();
}

static void fuzz_set(const uint8_t *data, size_t size)
{
	static struct wb_bdi bdis[1] = { { .name = "7:0", .dev = "loop0" } };
	struct wb_sample s;
	struct wb_setop op;
	char arg[256], err[256], rel[192], path[300];

	if (size >= sizeof(arg))
		return;
	memcpy(arg, data, size);
	arg[size] = '\0';
	wb_sample_init(&s);
	s.page_size = 4096;
	s.bdis = bdis;
	s.nbdis = 1;
	if (wb_setop_parse(arg, &s, &op, err, sizeof(err)) != 0)
		return;
	wb_setop_path(&op, rel, sizeof(rel));
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (wb_knob_check((size_t)check_path(path), op.key, op.value, 4096, err, sizeof(err)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	if (size == 0)
		return 0;
	if (data[0] & 1)
		fuzz_set(data + 1, size - 1);
	else
		fuzz_journal(data + 1, size - 1);
	return 0;
}
