// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/zoneinfo: zone watermarks, managed pages, lowmem protection and
 * write-pending counts; the "per-node stats" block (4.8+) for node dirty and
 * writeback. Older kernels (< 4.8) keep nr_dirty/nr_writeback per zone: they
 * are summed into the node so the rest of wbtop sees one shape.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/procfs.h"
#include "wbtop/zoneinfo.h"

static const struct wb_kv_key node_keys[] = {
	WB_KV("nr_active_file", WB_N_ACTIVE_FILE, WB_KV_NUM, false, false),
	WB_KV("nr_inactive_file", WB_N_INACTIVE_FILE, WB_KV_NUM, false, false),
	WB_KV("nr_dirty", WB_N_DIRTY, WB_KV_NUM, false, false),
	WB_KV("nr_writeback", WB_N_WRITEBACK, WB_KV_NUM, false, false),
	WB_KV("nr_vmscan_write", WB_N_VMSCAN_WRITE, WB_KV_NUM, false, false),
	WB_KV("nr_vmscan_immediate_reclaim", WB_N_VMSCAN_IMMEDIATE, WB_KV_NUM, false, false),
	WB_KV("nr_throttled_written", WB_N_THROTTLED_WRITTEN, WB_KV_NUM, false, false),
};

static const struct wb_kv_key zone_keys[] = {
	WB_KV("boost", WB_Z_BOOST, WB_KV_NUM, false, false),
	WB_KV("min", WB_Z_MIN, WB_KV_NUM, false, false),
	WB_KV("low", WB_Z_LOW, WB_KV_NUM, false, false),
	WB_KV("high", WB_Z_HIGH, WB_KV_NUM, false, false),
	WB_KV("spanned", WB_Z_SPANNED, WB_KV_NUM, false, false),
	WB_KV("present", WB_Z_PRESENT, WB_KV_NUM, false, false),
	WB_KV("managed", WB_Z_MANAGED, WB_KV_NUM, false, false),
	WB_KV("nr_zone_write_pending", WB_Z_WRITE_PENDING, WB_KV_NUM, false, false),
	WB_KV("nr_zone_active_file", WB_Z_ACTIVE_FILE, WB_KV_NUM, false, false),
	WB_KV("nr_zone_inactive_file", WB_Z_INACTIVE_FILE, WB_KV_NUM, false, false),
	/* < 4.8: per-zone counters under the node's names */
	WB_KV("nr_active_file", WB_Z_ACTIVE_FILE, WB_KV_NUM, false, false),
	WB_KV("nr_inactive_file", WB_Z_INACTIVE_FILE, WB_KV_NUM, false, false),
	WB_KV("nr_dirty", WB_Z_DIRTY, WB_KV_NUM, false, false),
	WB_KV("nr_writeback", WB_Z_WRITEBACK, WB_KV_NUM, false, false),
};

static const struct wb_kv_key node_meminfo_keys[] = {
	WB_KV("MemFree", WB_N_MEMFREE, WB_KV_KB, false, true),
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

enum section { S_NONE, S_NODE, S_ZONE, S_SKIP };

/* Find or append node id; NULL on ENOMEM. */
static struct wb_node *node_slot(struct wb_node **nodes, size_t *n, int id)
{
	struct wb_node *nn;

	for (size_t i = 0; i < *n; i++)
		if ((*nodes)[i].id == id)
			return &(*nodes)[i];
	nn = realloc(*nodes, (*n + 1) * sizeof(**nodes));
	if (!nn)
		return NULL;
	*nodes = nn;
	memset(&nn[*n], 0, sizeof(*nn));
	nn[*n].id = id;
	return &nn[(*n)++];
}

/* "protection: (0, 3018, 4426)": the largest entry (entries up to the zone's own index are 0). */
static bool parse_protection(const char *p, uint64_t *out)
{
	uint64_t best = 0, v;

	p = strchr(p, '(');
	if (!p)
		return false;
	p++;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!wb_parse_u64(p, &p, &v))
			return false;
		if (v > best)
			best = v;
		while (*p == ' ')
			p++;
		if (*p == ')')
			break;
		if (*p != ',')
			return false;
		p++;
	}
	*out = best;
	return true;
}

/* Copy one line (without newline) into buf, cut to cap - 1 characters. */
static void copy_line(const char *p, const char *eol, char *buf, size_t cap)
{
	size_t len = (size_t)(eol - p);

	if (len >= cap)
		len = cap - 1;
	memcpy(buf, p, len);
	buf[len] = '\0';
}

/*
 * "Node N, zone NAME" as the kernel writes it (N of up to 6 digits, blanks,
 * NAME of 1-31 bytes up to the line's end): true with N and NAME, as the
 * sscanf below reads them, without its cost (five zones a sample). Any
 * other shape is left to sscanf.
 */
static bool zone_head(const char *p, const char *eol, int *id, char *zname)
{
	const char *q = p + 5, *n;
	int v = 0, nd = 0;

	if (eol - p < 14 || eol - p >= 512 || memcmp(p, "Node ", 5) != 0)
		return false;
	for (; nd < 6 && (unsigned)(*q - '0') <= 9; q++, nd++)
		v = v * 10 + (*q - '0');
	if (!nd || eol - q < 8 || memcmp(q, ", zone ", 7) != 0)
		return false;
	for (q += 7; q < eol && *q == ' '; q++)
		;
	for (n = q; n < eol && !isspace((unsigned char)*n); n++)
		;
	if (n != eol || n == q || n - q > 31)
		return false;
	memcpy(zname, q, (size_t)(n - q));
	zname[n - q] = '\0';
	*id = v;
	return true;
}

/* Does the line [t, eol) read exactly s? */
static bool line_is(const char *t, const char *eol, const char *s, size_t len)
{
	return (size_t)(eol - t) == len && memcmp(t, s, len) == 0;
}

/*
 * One "key value" counter line, [t, eol), t past the indent: what
 * wb_kv_parse() does with a line (the key up to a blank or ':', one
 * optional ':', a number ending the line or followed by a blank), in
 * place: zoneinfo has some 200 lines a sample, and copying each and
 * setting up the table parser for it cost more than the rest.
 */
static void counter_line(const char *t, const char *eol, const struct wb_kv_index *ix, uint64_t *v,
			 uint64_t *valid, const char *what, int lineno, struct wb_diag *d)
{
	const struct wb_kv_key *e;
	const char *q, *end;
	size_t klen = 0;
	uint64_t val;

	while (t < eol && (*t == ' ' || *t == '\t'))
		t++;
	if (eol - t > 5 && memcmp(t, "Node ", 5) == 0) { /* as wb_kv_parse: a node meminfo prefix */
		t += 5;
		while (t < eol && isdigit((unsigned char)*t))
			t++;
		while (t < eol && *t == ' ')
			t++;
	}
	e = wb_kv_find(ix, t, eol, &klen);
	if (!e)
		return;
	q = t + klen;
	if (q < eol && *q == ':')
		q++;
	while (q < eol && (*q == ' ' || *q == '\t'))
		q++;
	if (wb_parse_u64(q, &end, &val) && (end >= eol || isspace((unsigned char)*end)) && val >= WB_MAX_COUNT) {
		/* recorded, a replay refused the sample */
		wb_diag_add(d, "%s:%d: %.*s: %.*s is more than a kernel counts (ignored)", what, lineno, (int)klen, t,
			    (int)((eol - q) > 24 ? 24 : (eol - q)), q);
	} else if (wb_parse_u64(q, &end, &val) && (end >= eol || isspace((unsigned char)*end))) {
		v[e->index] = val;
		*valid |= WB_BIT(e->index);
	} else {
		wb_diag_add(d, "%s:%d: %.*s: bad value \"%.*s\" (ignored)", what, lineno, (int)klen, t,
			    (int)((eol - q) > 24 ? 24 : (eol - q)), q);
	}
}

/* Fold < 4.8 per-zone dirty/writeback into their node when it has none. */
static void fold_zone_counters(struct wb_node *nodes, size_t nn, const struct wb_zone *zones,
			       size_t nz)
{
	static const struct { int z, n; } fold[] = {
		{ WB_Z_DIRTY, WB_N_DIRTY }, { WB_Z_WRITEBACK, WB_N_WRITEBACK },
		{ WB_Z_ACTIVE_FILE, WB_N_ACTIVE_FILE }, { WB_Z_INACTIVE_FILE, WB_N_INACTIVE_FILE },
	};
	for (size_t i = 0; i < nn; i++)
		for (size_t f = 0; f < NELEM(fold); f++) {
			uint64_t sum = 0;
			bool any = false;

			if (WB_HAS(nodes[i].valid, fold[f].n))
				continue;
			for (size_t j = 0; j < nz; j++)
				if (zones[j].node == nodes[i].id && WB_HAS(zones[j].valid, fold[f].z)) {
					sum = wb_sat_add(sum, zones[j].v[fold[f].z]); /* past 2^62: drop_impossible() */
					any = true;
				}
			if (any) {
				nodes[i].v[fold[f].n] = sum;
				nodes[i].valid |= WB_BIT(fold[f].n);
			}
		}
}

int wb_zoneinfo_parse(const char *buf, const char *what, struct wb_node **nodes,
		      size_t *nnodes, struct wb_zone **zones, size_t *nzones,
		      struct wb_diag *d)
{
	const struct wb_kv_index *node_ix = wb_kv_index_of(node_keys, NELEM(node_keys)),
				 *zone_ix = wb_kv_index_of(zone_keys, NELEM(zone_keys));
	enum section sec = S_NONE;
	struct wb_node *node = NULL;
	char line[512];
	const char *p = buf;
	int lineno = 0;

	*nodes = NULL;
	*zones = NULL;
	*nnodes = *nzones = 0;
	while (*p) {
		const char *eol = strchr(p, '\n'), *t = p;
		int id;
		char zname[32];
		uint64_t v;

		if (!eol)
			eol = p + strlen(p);
		lineno++;
		if (*p == 'N') {
			bool head = zone_head(p, eol, &id, zname);
			if (!head) {
				copy_line(p, eol, line, sizeof(line));
				head = sscanf(line, "Node %d, zone %31s", &id, zname) == 2;
			}
			if (head) {
				struct wb_zone *nz;

				if (id < 0 || id >= WB_MAX_NODES) {
					wb_diag_add(d, "%s:%d: node %d out of range; rest ignored", what, lineno, id);
					break;
				}
				if (*nzones >= WB_MAX_ITEMS) { /* a kernel has a few a node; a frame holds this many */
					wb_diag_add(d, "%s:%d: more than %d zones; rest ignored", what, lineno, WB_MAX_ITEMS);
					break;
				}
				node = node_slot(nodes, nnodes, id);
				nz = realloc(*zones, (*nzones + 1) * sizeof(**zones));
				if (!node || !nz)
					goto nomem;
				*zones = nz;
				memset(&nz[*nzones], 0, sizeof(*nz));
				nz[*nzones].node = id;
				/* "%.15s" into the zeroed zone, without snprintf */
				memcpy(nz[*nzones].name, zname, strnlen(zname, sizeof(nz->name) - 1));
				(*nzones)++;
				sec = S_ZONE;
				p = *eol ? eol + 1 : eol;
				continue;
			}
		}
		p = *eol ? eol + 1 : eol;
		if (*nzones == 0)
			continue; /* garbage before the first zone */
		struct wb_zone *z = &(*zones)[*nzones - 1];

		while (*t == ' ')
			t++;
		if (line_is(t, eol, "per-node stats", 14)) {
			sec = S_NODE;
		} else if (eol - t >= 10 && memcmp(t, "pages free", 10) == 0) {
			sec = S_ZONE;
			t += 10;
			while (*t == ' ')
				t++;
			if (wb_parse_u64(t, NULL, &v)) {
				z->v[WB_Z_FREE] = v;
				z->valid |= WB_BIT(WB_Z_FREE);
			} else {
				wb_diag_add(d, "%s:%d: bad \"pages free\" value", what, lineno);
			}
		} else if (eol - t >= 11 && memcmp(t, "protection:", 11) == 0) {
			copy_line(t, eol, line, sizeof(line));
			if (parse_protection(line, &v)) {
				z->v[WB_Z_PROTECTION] = v;
				z->valid |= WB_BIT(WB_Z_PROTECTION);
			} else {
				wb_diag_add(d, "%s:%d: bad protection tuple", what, lineno);
			}
		} else if (line_is(t, eol, "pagesets", 8)) {
			sec = S_SKIP;
		} else if (sec == S_NODE) {
			counter_line(t, eol, node_ix, node->v, &node->valid, what, lineno, d);
		} else if (sec == S_ZONE) {
			counter_line(t, eol, zone_ix, z->v, &z->valid, what, lineno, d);
		}
	}
	fold_zone_counters(*nodes, *nnodes, *zones, *nzones);
	if (*nzones == 0)
		wb_diag_add(d, "%s: no \"Node N, zone X\" line: no zones known", what);
	return 0;
nomem:
	free(*nodes);
	free(*zones);
	*nodes = NULL;
	*zones = NULL;
	*nnodes = *nzones = 0;
	return -ENOMEM;
}

int wb_node_list_last(const char *s)
{
	long last = -1;

	while (*s && *s != '\n') {
		char *end;
		long v;

		if (!isdigit((unsigned char)*s))
			return -1;
		v = strtol(s, &end, 10);
		if (v < last || v >= WB_MAX_NODES)
			return -1;
		last = v;
		s = end;
		if (*s == '-' || *s == ',') {
			if (!isdigit((unsigned char)*++s))
				return -1;
		} else if (*s && *s != '\n')
			return -1;
	}
	return (int)last;
}

/*
 * zoneinfo is one record a node, in node order (mm/vmstat.c frag_start()):
 * the highest possible node's record is the last. Unknown (no sysfs, bad
 * text): two preads a read, the second finding the end.
 */
static void mark_last_node(struct wb_zoneinfo *z, const char *root)
{
	struct wb_kvfile f;
	char *p = wb_path_join(root, "/sys/devices/system/node/possible");
	int last;

	if (!p || wb_kvfile_init(&f, p)) {
		free(p);
		return;
	}
	free(p);
	f.one_shot = true;
	if (wb_kvfile_read(&f, NULL) == 0 && (last = wb_node_list_last(f.buf)) >= 0)
		snprintf(z->zoneinfo.last_mark, sizeof(z->zoneinfo.last_mark), "Node %d, zone", last);
	wb_kvfile_finish(&f);
}

int wb_zoneinfo_open(struct wb_zoneinfo *z, const char *root)
{
	char *p;
	int err;

	memset(z, 0, sizeof(*z));
	z->root = strdup(root);
	p = wb_path_join(root, "/proc/zoneinfo");
	if (!z->root || !p) {
		free(p);
		free(z->root);
		return -ENOMEM;
	}
	err = wb_kvfile_init(&z->zoneinfo, p);
	free(p);
	z->live = strcmp(root, "/") == 0;
	if (!err)
		mark_last_node(z, root);
	return err;
}

void wb_zoneinfo_close(struct wb_zoneinfo *z)
{
	wb_kvfile_finish(&z->zoneinfo);
	for (int i = 0; i < WB_MAX_NODES; i++)
		if (z->node_open[i])
			wb_kvfile_finish(&z->node_meminfo[i]);
	free(z->root);
	memset(z, 0, sizeof(*z));
}

/*
 * A node's MemFree is its zones' free pages: node_read_meminfo() shows
 * si_meminfo_node()'s freeram, sum_zone_node_page_state(nid,
 * NR_FREE_PAGES), and zoneinfo each zone's zone_page_state(NR_FREE_PAGES)
 * as "pages free" (mm/vmstat.c) - the same counters (equal in 300 of 300
 * back-to-back reads here, on a busy machine). Live, the sum is taken
 * from the zoneinfo just read, one file fewer a node and a sample; a
 * fixture tree's files need not agree, and a node with a zone lacking
 * "pages free" has its file read.
 */
static bool node_free_from_zones(const struct wb_zoneinfo *z, struct wb_node *n, const struct wb_zone *zones,
				 size_t nz)
{
	uint64_t sum = 0;
	size_t k = 0;

	if (!z->live)
		return false;
	for (size_t j = 0; j < nz; j++) {
		if (zones[j].node != n->id)
			continue;
		if (!WB_HAS(zones[j].valid, WB_Z_FREE))
			return false;
		sum += zones[j].v[WB_Z_FREE];
		k++;
	}
	if (k == 0)
		return false;
	n->v[WB_N_MEMFREE] = sum;
	n->valid |= WB_BIT(WB_N_MEMFREE);
	return true;
}

/* Node MemFree from sysfs: a fixture tree's, or a node a zone of which lacks "pages free". */
static void read_node_meminfo(struct wb_zoneinfo *z, struct wb_node *n, uint32_t page_size,
			      struct wb_diag *d)
{
	struct wb_kvfile *f = &z->node_meminfo[n->id];

	if (!z->node_open[n->id]) {
		char rel[80], *p;

		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/meminfo", n->id);
		p = wb_path_join(z->root, rel);
		if (!p || wb_kvfile_init(f, p)) {
			free(p);
			return;
		}
		free(p);
		f->one_shot = true; /* a sysfs attribute */
		z->node_open[n->id] = true;
	}
	if (wb_kvfile_read(f, d) == 0)
		wb_kv_parse(f->buf, node_meminfo_keys, NELEM(node_meminfo_keys), page_size, n->v, &n->valid,
			    f->path, d);
}

void wb_zoneinfo_read(struct wb_zoneinfo *z, struct wb_sample *s, struct wb_diag *d)
{
	struct wb_node *nodes;
	struct wb_zone *zones;
	size_t nn, nz;

	free(s->nodes);
	free(s->zones);
	s->nodes = NULL;
	s->zones = NULL;
	s->nnodes = s->nzones = 0;
	if (wb_kvfile_read(&z->zoneinfo, d) != 0) {
		wb_diag_add(d, "%s: unreadable: zones and nodes unknown", z->zoneinfo.path);
		return;
	}
	if (wb_zoneinfo_parse(z->zoneinfo.buf, z->zoneinfo.path, &nodes, &nn, &zones, &nz, d))
		return;
	for (size_t i = 0; i < nn; i++)
		if (!node_free_from_zones(z, &nodes[i], zones, nz))
			read_node_meminfo(z, &nodes[i], s->page_size, d);
	s->nodes = nodes;
	s->nnodes = nn;
	s->zones = zones;
	s->nzones = nz;
}
