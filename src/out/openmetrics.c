// SPDX-License-Identifier: GPL-2.0-or-later
/* OpenMetrics / Prometheus text sink: a family table walked over one flat set of values. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wbtop/catalog.h"
#include "wbtop/openmetrics.h"
#include "wbtop/util.h"

/* ---- the values: what the view says, flattened (unknown = bit clear) ---- */

enum gval {
	G_DIRTY, G_WRITEBACK, G_THRESH_K, G_THRESH_M, G_BG_K, G_BG_M, G_FREERUN, G_DIRTYABLE,
	G_VM_RATIO, G_VM_BYTES, G_VM_BG_RATIO, G_VM_BG_BYTES, G_VM_EXPIRE, G_VM_INTERVAL,
	G_VM_DIRTYTIME, G_LEVEL, G_TIME, G_ONE, G_COUNT
};
enum bval {
	B_DIRTY, B_WRITEBACK, B_THRESH_K, B_THRESH_M, B_BG_M, B_BW, B_DIRTIED, B_WRITTEN, B_DRAIN, B_DRAIN_EXPIRY,
	B_MIN_RATIO, B_MAX_RATIO, B_MIN_BYTES, B_MAX_BYTES, B_STRICT, B_WAKE, B_PAUSES, B_PAUSE_S,
	B_COUNT
};
enum nval { N_DIRTY, N_WRITEBACK, N_LIMIT, N_DIRTYABLE, N_FREE, N_COUNT };
enum zval { Z_FREE, Z_MIN, Z_LOW, Z_HIGH, Z_PENDING, Z_COUNT };

/* The stateset's states; near-limit is the UI's warning level (75 % of the threshold). */
enum { ST_IDLE, ST_FLUSHING, ST_NEAR, ST_THROTTLED, ST_OVER, ST_COUNT };
static const char *const state_names[ST_COUNT] = { "idle", "flushing", "near-limit", "throttled",
						   "over-limit" };
#define NEAR_LIMIT 0.75

struct om_bdi {
	char labels[3 * WB_PATH_LEN + 64]; /* bdi="…",dev="…",mount="…" (escaped) */
	double v[B_COUNT];
	uint64_t ok;
	int state;                         /* -1 unknown */
	double start[WB_REASONS];          /* writeback starts by reason, since wbtop started */
};

struct om_node { int id; double v[N_COUNT]; uint64_t ok; };
struct om_zone { int node; char name[16]; double v[Z_COUNT]; uint64_t ok; };

struct om_in {
	double ts;
	double g[G_COUNT];
	uint64_t gok;
	struct om_bdi *b;
	size_t nb;
	struct om_node *n;
	size_t nn;
	struct om_zone *z;
	size_t nz;
	bool ev_ok;
	char reason[WB_REASONS][40];       /* escaped names, "" unused */
	char reclaim[WB_RECLAIM_REASONS][40];
	double reclaim_n[WB_RECLAIM_REASONS];
};

/* ---- the families ---- */

enum ftype { T_GAUGE, T_COUNTER, T_STATESET, T_INFO };
enum scope { S_GLOBAL, S_BDI, S_BDI_REASON, S_BDI_STATE, S_NODE, S_ZONE, S_RECLAIM };

/* One row per series kind; rows with the same name make one family. */
struct fam {
	const char *name;   /* family name (OpenMetrics): counters without _total */
	enum ftype type;
	const char *unit;   /* "" none */
	enum scope scope;
	int idx;            /* value index in its scope's array */
	const char *label;  /* a fixed label ("source=\"kernel\""), or NULL */
	const char *help;
};

#define SRC_K "source=\"kernel\""
#define SRC_M "source=\"model\""
static const struct fam fams[] = {
	{ "wbtop_dirty_bytes", T_GAUGE, "bytes", S_GLOBAL, G_DIRTY, NULL, "Dirty page cache (nr_dirty)." },
	{ "wbtop_writeback_bytes", T_GAUGE, "bytes", S_GLOBAL, G_WRITEBACK, NULL, "Page cache under writeback (nr_writeback)." },
	{ "wbtop_dirty_threshold_bytes", T_GAUGE, "bytes", S_GLOBAL, G_THRESH_K, SRC_K, "Global dirty threshold: the kernel's (vmstat) and wbtop's model." },
	{ "wbtop_dirty_threshold_bytes", T_GAUGE, "bytes", S_GLOBAL, G_THRESH_M, SRC_M, NULL },
	{ "wbtop_background_threshold_bytes", T_GAUGE, "bytes", S_GLOBAL, G_BG_K, SRC_K, "Global background writeback threshold: the kernel's and the model's." },
	{ "wbtop_background_threshold_bytes", T_GAUGE, "bytes", S_GLOBAL, G_BG_M, SRC_M, NULL },
	{ "wbtop_freerun_bytes", T_GAUGE, "bytes", S_GLOBAL, G_FREERUN, NULL, "Dirty level below which writers are never throttled (model)." },
	{ "wbtop_dirtyable_bytes", T_GAUGE, "bytes", S_GLOBAL, G_DIRTYABLE, NULL, "Memory the dirty ratios apply to (model)." },
	{ "wbtop_vm_dirty_ratio", T_GAUGE, "", S_GLOBAL, G_VM_RATIO, NULL, "vm.dirty_ratio as a fraction of 1." },
	{ "wbtop_vm_dirty_bytes", T_GAUGE, "bytes", S_GLOBAL, G_VM_BYTES, NULL, "vm.dirty_bytes (0: the ratio applies)." },
	{ "wbtop_vm_dirty_background_ratio", T_GAUGE, "", S_GLOBAL, G_VM_BG_RATIO, NULL, "vm.dirty_background_ratio as a fraction of 1." },
	{ "wbtop_vm_dirty_background_bytes", T_GAUGE, "bytes", S_GLOBAL, G_VM_BG_BYTES, NULL, "vm.dirty_background_bytes (0: the ratio applies)." },
	{ "wbtop_vm_dirty_expire_seconds", T_GAUGE, "seconds", S_GLOBAL, G_VM_EXPIRE, NULL, "vm.dirty_expire_centisecs in seconds." },
	{ "wbtop_vm_dirty_writeback_interval_seconds", T_GAUGE, "seconds", S_GLOBAL, G_VM_INTERVAL, NULL, "vm.dirty_writeback_centisecs in seconds." },
	{ "wbtop_vm_dirtytime_expire_seconds", T_GAUGE, "seconds", S_GLOBAL, G_VM_DIRTYTIME, NULL, "vm.dirtytime_expire_seconds." },
	{ "wbtop_bdi_dirty_bytes", T_GAUGE, "bytes", S_BDI, B_DIRTY, NULL, "Dirty pages of the device (debugfs BdiReclaimable)." },
	{ "wbtop_bdi_writeback_bytes", T_GAUGE, "bytes", S_BDI, B_WRITEBACK, NULL, "Pages of the device under writeback (debugfs BdiWriteback)." },
	{ "wbtop_bdi_threshold_bytes", T_GAUGE, "bytes", S_BDI, B_THRESH_K, SRC_K, "The device's dirty threshold: the kernel's (BdiDirtyThresh) and the model's." },
	{ "wbtop_bdi_threshold_bytes", T_GAUGE, "bytes", S_BDI, B_THRESH_M, SRC_M, NULL },
	{ "wbtop_bdi_background_threshold_bytes", T_GAUGE, "bytes", S_BDI, B_BG_M, SRC_M, "The device's background threshold (model)." },
	{ "wbtop_bdi_write_bandwidth_bytes_per_second", T_GAUGE, "bytes_per_second", S_BDI, B_BW, NULL, "The kernel's estimate of the device's write bandwidth." },
	{ "wbtop_bdi_dirtied_bytes", T_COUNTER, "bytes", S_BDI, B_DIRTIED, NULL, "Pages dirtied on the device (BdiDirtied; restarts at 0 when the device is re-created)." },
	{ "wbtop_bdi_written_bytes", T_COUNTER, "bytes", S_BDI, B_WRITTEN, NULL, "Pages written on the device (BdiWritten; restarts at 0 when the device is re-created)." },
	{ "wbtop_bdi_drain_seconds", T_GAUGE, "seconds", S_BDI, B_DRAIN, NULL, "Time to write what the device holds at the rate it completed lately (model; CLEAN-IN)." },
	{ "wbtop_bdi_drain_after_expiry", T_GAUGE, "", S_BDI, B_DRAIN_EXPIRY, NULL, "1 where the drain time counts from the dirty pages' expiry, up to vm.dirty_expire_centisecs later (model; CLEAN-IN's +)." },
	{ "wbtop_bdi_state", T_STATESET, "", S_BDI_STATE, 0, NULL, "Writeback state of the device (model; near-limit: 75 % of its threshold)." },
	{ "wbtop_bdi_min_ratio", T_GAUGE, "", S_BDI, B_MIN_RATIO, NULL, "The device's min_ratio knob as a fraction of 1." },
	{ "wbtop_bdi_max_ratio", T_GAUGE, "", S_BDI, B_MAX_RATIO, NULL, "The device's max_ratio knob as a fraction of 1." },
	{ "wbtop_bdi_min_bytes", T_GAUGE, "bytes", S_BDI, B_MIN_BYTES, NULL, "The device's min_bytes knob." },
	{ "wbtop_bdi_max_bytes", T_GAUGE, "bytes", S_BDI, B_MAX_BYTES, NULL, "The device's max_bytes knob." },
	{ "wbtop_bdi_strict_limit", T_GAUGE, "", S_BDI, B_STRICT, NULL, "The device's strict_limit knob (0 or 1)." },
	{ "wbtop_flusher_wakeups", T_COUNTER, "", S_BDI, B_WAKE, "reason=\"background\"", "Flusher wakeups seen since wbtop started (tracepoints)." },
	{ "wbtop_writeback_starts", T_COUNTER, "", S_BDI_REASON, 0, NULL, "Writeback work started, by reason, since wbtop started (tracepoints)." },
	{ "wbtop_throttle_pauses", T_COUNTER, "", S_BDI, B_PAUSES, NULL, "Writers paused by balance_dirty_pages since wbtop started." },
	{ "wbtop_throttle_pause_seconds", T_COUNTER, "seconds", S_BDI, B_PAUSE_S, NULL, "Time writers were paused by balance_dirty_pages since wbtop started." },
	{ "wbtop_reclaim_throttled", T_COUNTER, "", S_RECLAIM, 0, NULL, "Reclaim throttling events, by reason, since wbtop started." },
	{ "wbtop_node_dirty_bytes", T_GAUGE, "bytes", S_NODE, N_DIRTY, NULL, "Dirty pages of the memory node." },
	{ "wbtop_node_writeback_bytes", T_GAUGE, "bytes", S_NODE, N_WRITEBACK, NULL, "Pages of the node under writeback." },
	{ "wbtop_node_dirty_limit_bytes", T_GAUGE, "bytes", S_NODE, N_LIMIT, NULL, "The node's dirty limit (model)." },
	{ "wbtop_node_dirtyable_bytes", T_GAUGE, "bytes", S_NODE, N_DIRTYABLE, NULL, "The node's dirtyable memory (model)." },
	{ "wbtop_node_free_bytes", T_GAUGE, "bytes", S_NODE, N_FREE, NULL, "Free memory of the node." },
	{ "wbtop_zone_free_bytes", T_GAUGE, "bytes", S_ZONE, Z_FREE, NULL, "Free memory of the zone." },
	{ "wbtop_zone_watermark_bytes", T_GAUGE, "bytes", S_ZONE, Z_MIN, "watermark=\"min\"", "The zone's watermarks (high includes boost)." },
	{ "wbtop_zone_watermark_bytes", T_GAUGE, "bytes", S_ZONE, Z_LOW, "watermark=\"low\"", NULL },
	{ "wbtop_zone_watermark_bytes", T_GAUGE, "bytes", S_ZONE, Z_HIGH, "watermark=\"high\"", NULL },
	{ "wbtop_zone_write_pending_bytes", T_GAUGE, "bytes", S_ZONE, Z_PENDING, NULL, "Dirty and writeback pages of the zone (nr_zone_write_pending)." },
	{ "wbtop_level", T_GAUGE, "", S_GLOBAL, G_LEVEL, NULL, "wbtop's access level: 0 /proc, 1 sysfs, 2 debugfs, 3 tracepoints." },
	{ "wbtop_sample_timestamp_seconds", T_GAUGE, "seconds", S_GLOBAL, G_TIME, NULL, "Wall-clock time of the sample shown." },
	{ "wbtop_build", T_INFO, "", S_GLOBAL, G_ONE, "version=\"" WBTOP_VERSION "\"", "wbtop's version." },
};
#define NFAMS (sizeof(fams) / sizeof(fams[0]))

/* ---- growable text ---- */

struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void sb_grow(struct sbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	while (cap < b->len + need + 1)
		cap *= 2;
	if (cap == b->cap)
		return;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	sb_grow(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* printf onto the end of b, growing it as needed (never truncated). */
static void __attribute__((format(printf, 2, 3))) sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (int pass = 0; pass < 2 && !b->oom; pass++) {
		size_t room = b->cap > b->len ? b->cap - b->len : 0;
		va_start(ap, fmt);
		n = vsnprintf(room ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		sb_grow(b, (size_t)n); /* then format again into the room made */
	}
}

/* ---- the state ---- */

/* Counters accumulated per BDI; kept when the BDI goes, continued when it returns. */
struct acc {
	char name[WB_NAME_LEN];
	double wake, pauses, pause_s, start[WB_REASONS];
};

/* A row's series moved to the spill file: its bytes at off, in the order they were added. */
struct chunk {
	size_t row;
	off_t off;
	size_t len;
};

/* A row's text held in memory before it goes to the spill file (wb_om_spill_to). */
#define SPILL_AT (64 * 1024)

struct wb_om {
	bool timestamps;
	struct acc *acc;
	size_t nacc;
	double reclaim[WB_RECLAIM_REASONS];
	struct sbuf series[NFAMS]; /* per row; rendered per family */
	bool oom;
	char *spill_dir;           /* NULL: everything in memory */
	int spill_fd;              /* -1 until the first row spills */
	off_t spill_end;
	struct chunk *chunks;
	size_t nchunks, capchunks;
};

struct wb_om *wb_om_create(bool timestamps)
{
	struct wb_om *m = calloc(1, sizeof(*m));

	if (m) {
		m->timestamps = timestamps;
		m->spill_fd = -1;
	}
	return m;
}

void wb_om_destroy(struct wb_om *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < NFAMS; i++)
		free(m->series[i].p);
	if (m->spill_fd >= 0)
		close(m->spill_fd);
	free(m->spill_dir);
	free(m->chunks);
	free(m->acc);
	free(m);
}

void wb_om_clear(struct wb_om *m)
{
	for (size_t i = 0; i < NFAMS; i++) {
		m->series[i].len = 0;
		if (m->series[i].p)
			m->series[i].p[0] = '\0';
	}
	m->nchunks = 0;
	m->spill_end = 0;
	if (m->spill_fd >= 0) /* its space back; a new one at the next spill */
		close(m->spill_fd);
	m->spill_fd = -1;
}

int wb_om_spill_to(struct wb_om *m, const char *dir)
{
	char *d = strdup(dir);

	if (!d)
		return -ENOMEM;
	free(m->spill_dir);
	m->spill_dir = d;
	return 0;
}

/* The spill file: a new file in spill_dir that has no name (O_TMPFILE, else unlinked at once). */
static int spill_open(struct wb_om *m)
{
	char path[4096];
	int fd = open(m->spill_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) { /* a file system without it */
		if (snprintf(path, sizeof(path), "%s/.wbtop-om.XXXXXX", m->spill_dir) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		if ((fd = mkostemp(path, O_CLOEXEC)) >= 0)
			unlink(path); /* nothing left behind, whatever ends wbtop */
	}
	if (fd < 0)
		return -errno;
	m->spill_fd = fd;
	return 0;
}

/* Row r's text so far appended to the spill file, its memory emptied. 0 or -errno. */
static int spill_row(struct wb_om *m, size_t r)
{
	struct sbuf *b = &m->series[r];
	int rc = m->spill_fd < 0 ? spill_open(m) : 0;

	if (rc == 0 && m->nchunks == m->capchunks) {
		size_t cap = m->capchunks ? 2 * m->capchunks : 256;
		struct chunk *c = realloc(m->chunks, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		m->chunks = c;
		m->capchunks = cap;
	}
	for (size_t off = 0; rc == 0 && off < b->len;) {
		ssize_t w = pwrite(m->spill_fd, b->p + off, b->len - off, m->spill_end + (off_t)off);
		if (w < 0 && errno != EINTR)
			rc = -errno;
		else if (w > 0)
			off += (size_t)w;
	}
	if (rc)
		return rc; /* the text stays in memory; written at the next try */
	m->chunks[m->nchunks++] = (struct chunk){ .row = r, .off = m->spill_end, .len = b->len };
	m->spill_end += (off_t)b->len;
	b->len = 0;
	b->p[0] = '\0';
	return 0;
}

/* The accumulator of a BDI, created on first sight; NULL on out of memory. */
static struct acc *acc_get(struct wb_om *m, const char *name)
{
	struct acc *a;

	for (size_t i = 0; i < m->nacc; i++)
		if (strcmp(m->acc[i].name, name) == 0)
			return &m->acc[i];
	a = realloc(m->acc, (m->nacc + 1) * sizeof(*a));
	if (!a)
		return NULL;
	m->acc = a;
	a = &m->acc[m->nacc++];
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", name);
	return a;
}

/* ---- label escaping ---- */

/* Length of the valid UTF-8 sequence at s (>= 0x80 lead byte), 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

size_t wb_om_escape(char *buf, size_t size, const char *value)
{
	const unsigned char *s = (const unsigned char *)value;
	size_t o = 0;

	if (!size)
		return 0;
	while (*s) {
		char esc[2] = { '\\', (char)(*s == '\n' ? 'n' : *s) };
		const char *put = (const char *)s;
		size_t in = 1, out = 1;

		if (*s == '\\' || *s == '"' || *s == '\n')
			put = esc, out = 2;
		else if (*s < 0x20 || *s == 0x7f || (*s >= 0x80 && !(in = out = utf8_len(s)))) {
			s++; /* a control byte or broken UTF-8: dropped */
			continue;
		}
		if (o + out >= size)
			break; /* no room: cut here, never inside a sequence */
		memcpy(buf + o, put, out);
		o += out;
		s += in;
	}
	buf[o] = '\0';
	return o;
}

/* ---- view -> values: the one place that reads the view ---- */

#define SET(arr, ok, i, val) ((arr)[i] = (val), (ok) |= WB_BIT(i))

static void global_vals(struct om_in *in, const struct wb_view *v)
{
	const struct wb_sample *s = v->cur;
	const struct wb_limits *l = v->lim && v->lim->valid ? v->lim : NULL;
	static const struct { int g, sys; double scale; } sys[] = {
		{ G_VM_RATIO, WB_SYS_DIRTY_RATIO, 0.01 }, { G_VM_BYTES, WB_SYS_DIRTY_BYTES, 1 },
		{ G_VM_BG_RATIO, WB_SYS_BG_RATIO, 0.01 }, { G_VM_BG_BYTES, WB_SYS_BG_BYTES, 1 },
		{ G_VM_EXPIRE, WB_SYS_EXPIRE_CS, 0.01 }, { G_VM_INTERVAL, WB_SYS_WRITEBACK_CS, 0.01 },
		{ G_VM_DIRTYTIME, WB_SYS_DIRTYTIME_EXPIRE, 1 },
	};
	static const struct { int g, k; } gk[] = {
		{ G_DIRTY, WB_G_DIRTY }, { G_WRITEBACK, WB_G_WRITEBACK },
		{ G_THRESH_K, WB_G_DIRTY_THRESH }, { G_BG_K, WB_G_BG_THRESH },
	};
	double P = s->page_size;

	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (WB_HAS(s->sys_valid, sys[i].sys))
			SET(in->g, in->gok, sys[i].g, (double)s->sys[sys[i].sys] * sys[i].scale);
	for (size_t i = 0; i < sizeof(gk) / sizeof(gk[0]); i++)
		if (WB_HAS(s->g.valid, gk[i].k))
			SET(in->g, in->gok, gk[i].g, (double)s->g.v[gk[i].k] * P);
	if (l) {
		SET(in->g, in->gok, G_THRESH_M, (double)l->thresh * P);
		SET(in->g, in->gok, G_BG_M, (double)l->bg * P);
		SET(in->g, in->gok, G_FREERUN, (double)l->freerun * P);
		SET(in->g, in->gok, G_DIRTYABLE, (double)l->dirtyable * P);
	}
	SET(in->g, in->gok, G_LEVEL, s->level);
	SET(in->g, in->gok, G_TIME, s->wall);
	SET(in->g, in->gok, G_ONE, 1);
}

/* bdi="…",dev="…",mount="…": the labels a device's series carry, where known. */
static void bdi_labels(char *out, size_t n, const struct wb_bdi *b)
{
	char e[2 * WB_PATH_LEN];
	int o;

	wb_om_escape(e, sizeof(e), b->name);
	o = snprintf(out, n, "bdi=\"%s\"", e);
	if (b->dev[0] && o > 0 && (size_t)o < n) {
		wb_om_escape(e, sizeof(e), b->dev);
		o += snprintf(out + o, n - (size_t)o, ",dev=\"%s\"", e);
	}
	if (b->nmounts > 0 && o > 0 && (size_t)o < n) {
		wb_om_escape(e, sizeof(e), b->mounts[0]);
		snprintf(out + o, n - (size_t)o, ",mount=\"%s\"", e);
	}
}

/* The model's state of a BDI as the stateset's index. */
static int bdi_state(const struct wb_bdi_limits *bl)
{
	static const int map[WB_ST_COUNT] = { [WB_ST_IDLE] = ST_IDLE, [WB_ST_FLUSHING] = ST_FLUSHING,
					      [WB_ST_THROTTLED] = ST_THROTTLED, [WB_ST_OVER] = ST_OVER };
	int st = map[bl->state];

	if (st < ST_THROTTLED && bl->dirty_known && bl->thresh &&
	    (double)bl->wb_dirty >= NEAR_LIMIT * (double)bl->thresh)
		st = ST_NEAR;
	return st;
}

/* One BDI's values; its event counters go into the accumulator a first. */
/* A BDI row of the catalogue by its JSON key: the one source of the figures JSON and CSV show too. */
static const struct wb_field *bdi_field(const char *key)
{
	size_t n;
	const struct wb_field *t = wb_catalog_bdi(&n);

	for (size_t i = 0; i < n; i++)
		if (t[i].key && strcmp(t[i].key, key) == 0)
			return &t[i];
	return NULL;
}

static void bdi_vals(struct om_bdi *o, const struct wb_view *v, size_t i_bdi, struct acc *a)
{
	const struct wb_bdi *b = &v->cur->bdis[i_bdi];
	static const struct { int o, st; } st[] = {
		{ B_DIRTY, WB_B_RECLAIMABLE }, { B_WRITEBACK, WB_B_WRITEBACK }, { B_THRESH_K, WB_B_THRESH },
		{ B_DIRTIED, WB_B_DIRTIED }, { B_WRITTEN, WB_B_WRITTEN },
	};
	static const struct { int o, k, fine; } kn[] = {
		{ B_MIN_RATIO, WB_K_MIN_RATIO, WB_K_MIN_RATIO_FINE }, { B_MAX_RATIO, WB_K_MAX_RATIO, WB_K_MAX_RATIO_FINE },
		{ B_MIN_BYTES, WB_K_MIN_BYTES, -1 }, { B_MAX_BYTES, WB_K_MAX_BYTES, -1 },
		{ B_STRICT, WB_K_STRICT_LIMIT, -1 },
	};
	const struct wb_bdi_limits *bl = v->lim ? wb_limits_bdi(v->lim, b->name) : NULL;
	double P = v->cur->page_size;
	static const struct wb_field *f; /* drain_after_expiry's row, looked up once */

	bdi_labels(o->labels, sizeof(o->labels), b);
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		if (WB_HAS(b->st_valid, st[i].st))
			SET(o->v, o->ok, st[i].o, (double)b->st[st[i].st] * P);
	if (WB_HAS(b->st_valid, WB_B_WB_BW) || WB_HAS(b->st_valid, WB_B_BDI_BW))
		SET(o->v, o->ok, B_BW, (double)b->st[WB_HAS(b->st_valid, WB_B_WB_BW) ? WB_B_WB_BW : WB_B_BDI_BW] * P);
	for (size_t i = 0; i < sizeof(kn) / sizeof(kn[0]); i++) {
		if (kn[i].fine >= 0 && WB_HAS(b->knob_valid, kn[i].fine))
			SET(o->v, o->ok, kn[i].o, (double)b->knob[kn[i].fine] / (double)WB_RATIO_FULL);
		else if (WB_HAS(b->knob_valid, kn[i].k))
			SET(o->v, o->ok, kn[i].o, (double)b->knob[kn[i].k] / (kn[i].fine >= 0 ? 100.0 : 1.0));
	}
	o->state = -1;
	if (bl && bl->valid) {
		SET(o->v, o->ok, B_THRESH_M, (double)bl->thresh * P);
		SET(o->v, o->ok, B_BG_M, (double)bl->bg_thresh * P);
		if (bl->drain_s >= 0)
			SET(o->v, o->ok, B_DRAIN, bl->drain_s);
		if ((f = f ? f : bdi_field("drain_after_expiry"))) {
			struct wb_fctx c;
			struct wb_value x;

			wb_catalog_ctx(&c, v, v->lim, i_bdi);
			if ((x = f->get(&c)).known)
				SET(o->v, o->ok, B_DRAIN_EXPIRY, (double)x.u);
		}
		o->state = bdi_state(bl);
	}
	if (v->cur->ev_valid && a) {
		a->wake += b->ev.wake_bg;
		a->pauses += b->ev.pauses;
		a->pause_s += (double)b->ev.pause_ms_total / 1000.0;
		for (int r = 0; r < WB_REASONS; r++)
			a->start[r] += b->ev.start[r];
		SET(o->v, o->ok, B_WAKE, a->wake);
		SET(o->v, o->ok, B_PAUSES, a->pauses);
		SET(o->v, o->ok, B_PAUSE_S, a->pause_s);
		memcpy(o->start, a->start, sizeof(o->start));
	}
}

/* Nodes and zones: the sample's pages, the model's node limits. */
static void mem_vals(struct om_in *in, const struct wb_view *v)
{
	const struct wb_sample *s = v->cur;
	static const struct { int o, k; } nk[] = {
		{ N_DIRTY, WB_N_DIRTY }, { N_WRITEBACK, WB_N_WRITEBACK }, { N_FREE, WB_N_MEMFREE },
	};
	static const struct { int o, k; } zk[] = {
		{ Z_FREE, WB_Z_FREE }, { Z_MIN, WB_Z_MIN }, { Z_LOW, WB_Z_LOW }, { Z_HIGH, WB_Z_HIGH },
		{ Z_PENDING, WB_Z_WRITE_PENDING },
	};
	double P = s->page_size;

	for (size_t i = 0; i < in->nn; i++) {
		struct om_node *o = &in->n[i];
		o->id = s->nodes[i].id;
		for (size_t k = 0; k < sizeof(nk) / sizeof(nk[0]); k++)
			if (WB_HAS(s->nodes[i].valid, nk[k].k))
				SET(o->v, o->ok, nk[k].o, (double)s->nodes[i].v[nk[k].k] * P);
		if (v->lim && v->lim->valid && i < v->lim->nnodes) {
			SET(o->v, o->ok, N_LIMIT, (double)v->lim->nodes[i].limit * P);
			SET(o->v, o->ok, N_DIRTYABLE, (double)v->lim->nodes[i].dirtyable * P);
		}
	}
	for (size_t i = 0; i < in->nz; i++) {
		struct om_zone *o = &in->z[i];
		o->node = s->zones[i].node;
		wb_om_escape(o->name, sizeof(o->name), s->zones[i].name);
		for (size_t k = 0; k < sizeof(zk) / sizeof(zk[0]); k++)
			if (WB_HAS(s->zones[i].valid, zk[k].k))
				SET(o->v, o->ok, zk[k].o, (double)s->zones[i].v[zk[k].k] * P);
	}
}

/* The view as flat values, counting its events into m. Arrays freed by in_finish(). */
static int from_view(struct wb_om *m, const struct wb_view *v, struct om_in *in)
{
	const struct wb_sample *s = v->cur;

	memset(in, 0, sizeof(*in));
	in->ts = s->wall;
	in->nb = s->nbdis, in->nn = s->nnodes, in->nz = s->nzones;
	in->b = calloc(in->nb + 1, sizeof(*in->b));
	in->n = calloc(in->nn + 1, sizeof(*in->n));
	in->z = calloc(in->nz + 1, sizeof(*in->z));
	if (!in->b || !in->n || !in->z)
		return -ENOMEM;
	global_vals(in, v);
	for (size_t i = 0; i < s->nbdis; i++)
		bdi_vals(&in->b[i], v, i, s->ev_valid ? acc_get(m, s->bdis[i].name) : NULL);
	mem_vals(in, v);
	in->ev_ok = s->ev_valid;
	for (int r = 0; r < WB_REASONS; r++)
		wb_om_escape(in->reason[r], sizeof(in->reason[r]), s->reason_names[r]);
	for (int r = 0; s->ev_valid && r < WB_RECLAIM_REASONS; r++) {
		m->reclaim[r] += s->reclaim_throttled[r];
		in->reclaim_n[r] = m->reclaim[r];
		wb_om_escape(in->reclaim[r], sizeof(in->reclaim[r]), s->reclaim_names[r]);
	}
	return 0;
}

static void in_finish(struct om_in *in)
{
	free(in->b);
	free(in->n);
	free(in->z);
}

/* ---- series ---- */

/* The name a family's samples carry. */
static void sample_name(char *out, size_t n, const struct fam *f)
{
	snprintf(out, n, "%s%s", f->name, f->type == T_COUNTER ? "_total" : f->type == T_INFO ? "_info" : "");
}

/* A value, exact: integers in full, others in the fewest digits that read back the same. */
static void put_value(struct sbuf *b, double v)
{
	char tmp[40];

	if (v == floor(v) && fabs(v) < 1e17) {
		sb_printf(b, " %.0f", v);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v || prec == 17)
			break;
	}
	sb_printf(b, " %s", tmp);
}

/* One series line: name{labels,fixed} value[ timestamp]. */
static void put_series(struct wb_om *m, struct sbuf *b, const struct fam *f, const char *labels,
		       double val, double ts)
{
	char name[96];
	const char *fixed = f->label ? f->label : "";
	bool any = (labels && *labels) || *fixed;

	sample_name(name, sizeof(name), f);
	sb_printf(b, "%s%s%s%s%s%s", name, any ? "{" : "", labels ? labels : "",
		  labels && *labels && *fixed ? "," : "", fixed, any ? "}" : "");
	put_value(b, val);
	if (m->timestamps)
		sb_printf(b, " %.3f", ts);
	sb_put(b, "\n", 1);
}

/* All series of one table row for these values. */
static void row_series(struct wb_om *m, size_t r, const struct om_in *in)
{
	const struct fam *f = &fams[r];
	struct sbuf *b = &m->series[r];
	char lab[sizeof(in->b[0].labels) + 96];

	switch (f->scope) {
	case S_GLOBAL:
		if (WB_HAS(in->gok, f->idx))
			put_series(m, b, f, NULL, in->g[f->idx], in->ts);
		break;
	case S_BDI:
		for (size_t i = 0; i < in->nb; i++)
			if (WB_HAS(in->b[i].ok, f->idx))
				put_series(m, b, f, in->b[i].labels, in->b[i].v[f->idx], in->ts);
		break;
	case S_BDI_REASON:
		for (size_t i = 0; in->ev_ok && i < in->nb; i++)
			for (int k = 0; k < WB_REASONS; k++) {
				if (!in->reason[k][0])
					continue;
				/* labels and a reason always fit (lab has room for both); checked, not assumed */
				if (snprintf(lab, sizeof(lab), "%s,reason=\"%s\"", in->b[i].labels, in->reason[k]) >=
				    (int)sizeof(lab))
					continue;
				put_series(m, b, f, lab, in->b[i].start[k], in->ts);
			}
		break;
	case S_BDI_STATE:
		for (size_t i = 0; i < in->nb; i++)
			for (int k = 0; in->b[i].state >= 0 && k < ST_COUNT; k++) {
				snprintf(lab, sizeof(lab), "%s,%s=\"%s\"", in->b[i].labels, f->name, state_names[k]);
				put_series(m, b, f, lab, in->b[i].state == k, in->ts);
			}
		break;
	case S_NODE:
		for (size_t i = 0; i < in->nn; i++)
			if (WB_HAS(in->n[i].ok, f->idx)) {
				snprintf(lab, sizeof(lab), "node=\"%d\"", in->n[i].id);
				put_series(m, b, f, lab, in->n[i].v[f->idx], in->ts);
			}
		break;
	case S_ZONE:
		for (size_t i = 0; i < in->nz; i++)
			if (WB_HAS(in->z[i].ok, f->idx)) {
				snprintf(lab, sizeof(lab), "node=\"%d\",zone=\"%s\"", in->z[i].node, in->z[i].name);
				put_series(m, b, f, lab, in->z[i].v[f->idx], in->ts);
			}
		break;
	case S_RECLAIM:
		for (int k = 0; in->ev_ok && k < WB_RECLAIM_REASONS; k++)
			if (in->reclaim[k][0]) {
				snprintf(lab, sizeof(lab), "reason=\"%s\"", in->reclaim[k]);
				put_series(m, b, f, lab, in->reclaim_n[k], in->ts);
			}
		break;
	}
}

int wb_om_add(struct wb_om *m, const struct wb_view *v)
{
	struct om_in in;
	int rc = from_view(m, v, &in);

	for (size_t r = 0; rc == 0 && r < NFAMS; r++) {
		row_series(m, r, &in);
		if (m->series[r].oom)
			rc = -ENOMEM;
		else if (m->spill_dir && m->series[r].len >= SPILL_AT)
			rc = spill_row(m, r);
	}
	in_finish(&in);
	return rc;
}

/* ---- rendering ---- */

/* HELP, TYPE and UNIT of the family starting at row r, in the format's order and names. */
static void family_header(struct sbuf *b, const struct fam *f, enum wb_om_fmt fmt)
{
	static const char *const om_type[] = { "gauge", "counter", "stateset", "info" };
	static const char *const prom_type[] = { "gauge", "counter", "gauge", "gauge" };
	char name[96];

	if (fmt == WB_OM_OPENMETRICS) {
		sb_printf(b, "# TYPE %s %s\n", f->name, om_type[f->type]);
		if (f->unit[0])
			sb_printf(b, "# UNIT %s %s\n", f->name, f->unit);
		sb_printf(b, "# HELP %s %s\n", f->name, f->help);
	} else {
		sample_name(name, sizeof(name), f);
		sb_printf(b, "# HELP %s %s\n", name, f->help);
		sb_printf(b, "# TYPE %s %s\n", name, prom_type[f->type]);
	}
}

/* Where a rendering goes: a growing buffer (f NULL) or a stream. */
struct dest {
	struct sbuf *b;
	FILE *f;
};

static void dest_put(struct dest *d, const char *s, size_t n)
{
	if (d->f)
		fwrite(s, 1, n, d->f);
	else
		sb_put(d->b, s, n);
}

/* Row r's spilled chunks, in order, copied to d through buf (SPILL_AT bytes). 0 or -errno. */
static int copy_spilled(const struct wb_om *m, size_t r, struct dest *d, char *buf)
{
	for (size_t i = 0; i < m->nchunks; i++) {
		const struct chunk *c = &m->chunks[i];

		for (size_t off = 0; c->row == r && off < c->len;) {
			size_t want = c->len - off < SPILL_AT ? c->len - off : SPILL_AT;
			ssize_t got = pread(m->spill_fd, buf, want, c->off + (off_t)off);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return got < 0 ? -errno : -EIO; /* cut short: a file no one else can name */
			dest_put(d, buf, (size_t)got);
			off += (size_t)got;
		}
	}
	return 0;
}

/* The families in order, each with its spilled series and then those in memory; 0 or -errno. */
static int render(const struct wb_om *m, enum wb_om_fmt fmt, struct dest *d)
{
	struct sbuf h = { 0 };
	char *buf = m->nchunks ? malloc(SPILL_AT) : NULL;
	int rc = m->nchunks && !buf ? -ENOMEM : 0;

	for (size_t r = 0; r < NFAMS && rc == 0; r++) {
		if (r == 0 || strcmp(fams[r].name, fams[r - 1].name)) {
			h.len = 0;
			family_header(&h, &fams[r], fmt);
			if (h.oom)
				rc = -ENOMEM;
			else
				dest_put(d, h.p, h.len);
		}
		if (rc == 0 && m->nchunks)
			rc = copy_spilled(m, r, d, buf);
		if (rc == 0 && m->series[r].len)
			dest_put(d, m->series[r].p, m->series[r].len);
	}
	if (rc == 0 && fmt == WB_OM_OPENMETRICS) /* a stream cut short must not read as whole */
		dest_put(d, "# EOF\n", 6);
	free(h.p);
	free(buf);
	return rc;
}

char *wb_om_render(const struct wb_om *m, enum wb_om_fmt fmt, size_t *len)
{
	struct sbuf b = { 0 };
	struct dest d = { .b = &b };

	sb_grow(&b, 4096);
	if (render(m, fmt, &d) || b.oom || !b.p) {
		free(b.p);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

int wb_om_write(const struct wb_om *m, enum wb_om_fmt fmt, FILE *f)
{
	struct dest d = { .f = f };

	return render(m, fmt, &d);
}

/*
 * An existing regular file at path is replaced each sample: only an empty one
 * or one that holds wbtop's own exposition (a run before this one), never
 * another file (--openmetrics-file day.wbrec, a slip, replaced a recording).
 */
static int other_file(const char *path, char *err, size_t n)
{
	static const char ours[] = "# HELP wbtop_";
	char head[sizeof(ours)] = "", q[WB_QUOTE_LEN];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, head, sizeof(head) - 1) : -1;

	int e = errno;

	if (fd >= 0)
		close(fd);
	if (got == 0 || (got == (ssize_t)sizeof(head) - 1 && memcmp(head, ours, sizeof(head) - 1) == 0))
		return 0;
	if (got < 0) { /* not readable (another user's 0600 file): what it holds is not known, said so */
		snprintf(err, n, "%s: exists and cannot be read to see whether it is wbtop's output (%s): not replaced",
			 wb_quote(path, q, sizeof(q)), strerror(e));
		return -e;
	}
	snprintf(err, n, "%s: exists and is not wbtop's textfile output: not replaced (remove it, or name another)",
		 wb_quote(path, q, sizeof(q)));
	return -EEXIST;
}

/* path can be replaced by a rename: absent or a regular file, in a directory wbtop can write in. */
static int replaceable(const char *path, char *err, size_t n)
{
	struct stat st;
	char dir[4096], q[WB_QUOTE_LEN], qd[WB_QUOTE_LEN];
	const char *slash = strrchr(path, '/');

	if (!path[0]) {
		snprintf(err, n, "an empty path");
		return -EINVAL;
	}
	if (lstat(path, &st) == 0) {
		if (S_ISREG(st.st_mode))
			return 0;
		/* the file is replaced by a rename: a device, FIFO or link would be lost */
		snprintf(err, n, "%s: exists and is not a regular file", wb_quote(path, q, sizeof(q)));
		return -EEXIST;
	}
	if (errno != ENOENT) {
		int e = errno;
		snprintf(err, n, "%s: %s", wb_quote(path, q, sizeof(q)), strerror(e));
		return -e;
	}
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
		int e = access(dir, F_OK) ? ENOENT : !S_ISDIR(st.st_mode) ? ENOTDIR : EACCES;
		snprintf(err, n, "%s: %s is not a directory wbtop can write in", wb_quote(path, q, sizeof(q)),
			 wb_quote(dir, qd, sizeof(qd)));
		return -e;
	}
	return 0;
}

int wb_om_file_check(const char *path, char *err, size_t n)
{
	char q[WB_QUOTE_LEN];
	struct stat st;
	int rc = replaceable(path, err, n);
	const char *fs = rc ? NULL : wb_pseudo_fs(path);

	if (rc)
		return rc;
	if (fs) { /* /proc/self/comm failed at each sample, exit 0 */
		snprintf(err, n, "%s: on %s, the kernel's own files, not storage", wb_quote(path, q, sizeof(q)), fs);
		return -EINVAL;
	}
	return lstat(path, &st) == 0 ? other_file(path, err, n) : 0;
}

int wb_om_write_file(const char *path, const char *buf, size_t len, char *err, size_t n)
{
	char tmp[4096], q[WB_QUOTE_LEN];
	int fd, rc = 0;

	if ((rc = replaceable(path, err, n)) != 0) /* the rest was checked once, at the start */
		return rc;
	/*
	 * A new file of a name no one can plant beforehand (a link at a
	 * name made of the PID let anyone who can write in the directory
	 * have root overwrite its target), short enough beside any name
	 * that fits (the PID's suffix took a 250-byte name past NAME_MAX),
	 * hidden from the textfile collector's *.prom.
	 */
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) + 1 : 0;

	if (snprintf(tmp, sizeof(tmp), "%.*s.wbtop-om.XXXXXX", dirlen, path) >= (int)sizeof(tmp)) {
		snprintf(err, n, "%s: path too long", wb_quote(path, q, sizeof(q)));
		return -ENAMETOOLONG;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto said;
	}
	if (fchmod(fd, 0644)) /* what a scraper run as another user reads; mkostemp's is 0600 */
		rc = -errno;
	for (size_t off = 0; off < len && rc == 0;) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0 && errno != EINTR)
			rc = -errno;
		else if (w > 0)
			off += (size_t)w;
	}
	if (close(fd) && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
said:
	/*
	 * One text a cause, whichever step met it: a directory removed between
	 * the check and the open or the rename was said in two or three ways
	 * (the tmp file's name, the file's, the check's), each once, so the
	 * warning said once came back.
	 */
	if (rc && wb_om_file_check(path, err, n) == 0)
		snprintf(err, n, "%s: %s", wb_quote(path, q, sizeof(q)), strerror(-rc));
	return rc;
}

/* ---- the sink: each view of the pipeline published to the endpoint and the textfile ---- */

struct wb_om_sink {
	struct wb_om *om;
	struct wb_textfile *file; /* --openmetrics-file; NULL without */
	wb_om_publish_fn publish;
	void *cls;
	struct wb_diag warn;  /* the textfile's problem at the last view: retried, never fatal */
};

struct wb_om_sink *wb_om_sink_create(const char *file, wb_om_publish_fn publish, void *cls)
{
	struct wb_om_sink *t = calloc(1, sizeof(*t));

	if (!t || !(t->om = wb_om_create(false)) || (file && !(t->file = wb_textfile_create(file)))) {
		if (t)
			wb_om_destroy(t->om);
		free(t);
		return NULL;
	}
	t->publish = publish;
	t->cls = cls;
	return t;
}

void wb_om_sink_destroy(struct wb_om_sink *t)
{
	if (!t)
		return;
	wb_textfile_destroy(t->file);
	wb_om_destroy(t->om);
	free(t);
}

/* Render the pipeline's view (its limits and derived figures: nothing computed here) in both formats. */
static int sink_take(void *ctx, const struct wb_view *v)
{
	struct wb_om_sink *t = ctx;
	size_t tl = 0, ol = 0;
	char *text, *om = NULL, err[256];

	wb_diag_clear(&t->warn);
	wb_om_clear(t->om);
	if (wb_om_add(t->om, v) != 0 || !(text = wb_om_render(t->om, WB_OM_TEXT, &tl))) {
		wb_diag_add(&t->warn, "--listen/--openmetrics-file: out of memory for this sample");
		return 0;
	}
	if (t->file && wb_textfile_put(t->file, text, tl, err, sizeof(err)))
		wb_diag_add(&t->warn, "--openmetrics-file %s", err);
	if (t->publish && (om = wb_om_render(t->om, WB_OM_OPENMETRICS, &ol)))
		t->publish(t->cls, text, tl, om, ol);
	else
		free(text);
	return 0;
}

static const struct wb_diag *sink_warnings(void *ctx)
{
	return &((struct wb_om_sink *)ctx)->warn;
}

void wb_om_sink_bind(struct wb_om_sink *t, struct wb_pipeline_sink *k)
{
	*k = (struct wb_pipeline_sink){ .ctx = t, .take = sink_take, .warnings = sink_warnings };
}
