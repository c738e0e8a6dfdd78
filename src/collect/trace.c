// SPDX-License-Identifier: GPL-2.0-or-later
/* Writeback and reclaim tracepoints in a private tracefs instance. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <stdbool.h>
#include <unistd.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <tracefs.h>

#include "wbtop/bdi.h"
#include "wbtop/trace.h"
#include "wbtop/tracebuf.h"
#include "wbtop/util.h"

/* The events wbtop enables: all low-rate (never the per-page ones). */
enum tev { T_WAKE, T_START, T_WRITTEN, T_BDP, T_RATELIMIT, T_GDS, T_VMSCAN, T_COUNT };
static const struct { const char *sys, *name; } tev_names[T_COUNT] = {
	[T_WAKE] = { "writeback", "writeback_wake_background" },
	[T_START] = { "writeback", "writeback_start" },
	[T_WRITTEN] = { "writeback", "writeback_written" },
	[T_BDP] = { "writeback", "balance_dirty_pages" },
	[T_RATELIMIT] = { "writeback", "bdi_dirty_ratelimit" },
	[T_GDS] = { "writeback", "global_dirty_state" },
	[T_VMSCAN] = { "vmscan", "mm_vmscan_throttled" },
};

#define WB_SUBBUF_KB "64"

/* Per-BDI accumulator between drains, by BDI name. */
struct acc {
	char name[WB_NAME_LEN];
	struct wb_bdi_events ev;
};

struct wb_trace {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct wb_tracebuf *buf;         /* kept-open per-CPU buffers (NULL: libtracefs's iterator) */
	char *dir;                       /* instance directory (owned) */
	int id[T_COUNT];                 /* tep event ids, -1 if absent */
	struct tep_format_field *f_name[T_COUNT], *f_reason[T_COUNT], *f_pages[T_COUNT];
	struct tep_format_field *f_pause, *f_dirtied, *f_wb_dirty, *f_task_rl, *f_dirty_rl, *f_bal_rl, *f_limit;
	struct tep_format_field *f_usec_delayed;
	char reason_names[WB_REASONS][16];
	char reclaim_names[WB_RECLAIM_REASONS][16];
	unsigned long long overrun0;     /* overruns already counted */
	/* filled while draining */
	struct acc *acc;
	size_t nacc, cap;
	struct wb_sample *s;
	uint64_t total, lost_log;
	uint32_t page_kb;
	size_t buffer_kb; /* each CPU's buffer as set (0: the kernel's, left alone) */
};

/*
 * A trace buffer grows to at most this a CPU (what one drain takes from a
 * CPU, tracebuf.c's MAX_BYTES: a bigger one would take two drains to
 * empty), and no further once all CPUs' together reach WB_TRACE_ALL_KB
 * (kernel memory, pinned while wbtop runs).
 */
#define WB_TRACE_MAX_KB (16u << 10)
#define WB_TRACE_ALL_KB (256u << 10)

static struct acc *acc_get(struct wb_trace *t, const char *name)
{
	for (size_t i = 0; i < t->nacc; i++)
		if (strncmp(t->acc[i].name, name, WB_NAME_LEN) == 0)
			return &t->acc[i];
	if (t->nacc == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 16;
		struct acc *na = realloc(t->acc, nc * sizeof(*na));
		if (!na)
			return NULL;
		t->acc = na;
		t->cap = nc;
	}
	memset(&t->acc[t->nacc], 0, sizeof(t->acc[0]));
	wb_copy_str(t->acc[t->nacc].name, WB_NAME_LEN, name);
	return &t->acc[t->nacc++];
}

/* Find a symbolic/flags table for a field anywhere in an event's print args. */
static struct tep_print_flag_sym *find_syms(struct tep_print_arg *a, const char *field, int depth)
{
	for (; a && depth < 16; a = a->next) {
		struct tep_print_flag_sym *r = NULL;
		struct tep_print_arg *f = NULL;

		switch (a->type) {
		case TEP_PRINT_SYMBOL:
			f = a->symbol.field;
			if (f && f->type == TEP_PRINT_FIELD && strcmp(f->field.name, field) == 0)
				return a->symbol.symbols;
			break;
		case TEP_PRINT_FLAGS:
			f = a->flags.field;
			if (f && f->type == TEP_PRINT_FIELD && strcmp(f->field.name, field) == 0)
				return a->flags.flags;
			break;
		case TEP_PRINT_OP:
			r = find_syms(a->op.left, field, depth + 1);
			if (!r)
				r = find_syms(a->op.right, field, depth + 1);
			break;
		case TEP_PRINT_TYPE:
			r = find_syms(a->typecast.item, field, depth + 1);
			break;
		default:
			break;
		}
		if (r)
			return r;
	}
	return NULL;
}

/*
 * Writeback reason names from writeback_start's own format
 * (__print_symbolic(REC->reason, { 0, "background" }, ...)).
 */
static void load_reasons(struct wb_trace *t, struct tep_event *e)
{
	struct tep_print_flag_sym *sym = e ? find_syms(e->print_fmt.args, "reason", 0) : NULL;

	for (; sym; sym = sym->next) {
		char *end;
		long v = strtol(sym->value, &end, 0);
		if (*end == '\0' && v >= 0 && v < WB_REASONS)
			snprintf(t->reason_names[v], sizeof(t->reason_names[v]), "%.15s", sym->str);
	}
}

/*
 * Reclaim throttle reasons from mm_vmscan_throttled's __print_flags list.
 * Its values are "(1 << VMSCAN_THROTTLE_X)" with the enum unresolved in the
 * format, so the bit is the entry's position (the list follows the enum).
 */
static void load_reclaim_reasons(struct wb_trace *t, struct tep_event *e)
{
	struct tep_print_flag_sym *sym = e ? find_syms(e->print_fmt.args, "reason", 0) : NULL;
	int i = 0;

	for (; sym && i < WB_RECLAIM_REASONS; sym = sym->next, i++) {
		const char *n = sym->str;
		if (strncmp(n, "VMSCAN_THROTTLE_", 16) == 0)
			n += 16;
		snprintf(t->reclaim_names[i], sizeof(t->reclaim_names[i]), "%.15s", n);
		for (char *c = t->reclaim_names[i]; *c; c++)
			*c = (char)tolower((unsigned char)*c);
	}
}

static struct tep_format_field *field(struct tep_event *e, const char *name)
{
	return e ? tep_find_field(e, name) : NULL;
}

static void setup_fields(struct wb_trace *t)
{
	for (int i = 0; i < T_COUNT; i++) {
		struct tep_event *e = tep_find_event_by_name(t->tep, tev_names[i].sys, tev_names[i].name);
		t->id[i] = e ? e->id : -1;
		t->f_name[i] = field(e, "name");
		if (!t->f_name[i])
			t->f_name[i] = field(e, "bdi");
		t->f_reason[i] = field(e, "reason");
		t->f_pages[i] = field(e, "nr_pages");
		if (i == T_START)
			load_reasons(t, e);
		if (i == T_VMSCAN) {
			load_reclaim_reasons(t, e);
			t->f_usec_delayed = field(e, "usec_delayed");
		}
		if (i == T_BDP) {
			t->f_pause = field(e, "pause");
			t->f_dirtied = field(e, "dirtied");
			t->f_wb_dirty = field(e, "wb_dirty");
			t->f_task_rl = field(e, "task_ratelimit");
			t->f_dirty_rl = field(e, "dirty_ratelimit");
		}
		if (i == T_RATELIMIT)
			t->f_bal_rl = field(e, "balanced_dirty_ratelimit");
		if (i == T_GDS)
			t->f_limit = field(e, "dirty_limit");
	}
}

/* A tracefs to use at dir: its instances/ is there (not a bind of a part, nor mounted over). */
static bool tracefs_at(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	return dir[0] == '/' && (size_t)snprintf(path, sizeof(path), "%s/instances", dir) < sizeof(path) &&
	       stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * From /proc/self/mountinfo: the first whole tracefs (its root is "/") with
 * an instances/ directory, into dir; and debugfs's mount point, into debugfs.
 * Fields: ID PARENT MAJ:MIN ROOT MOUNT-POINT ... " - " TYPE ...
 */
static void scan_mounts(char *dir, size_t dlen, char *debugfs, size_t flen)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *root = NULL, *mnt = NULL, type[64];
	size_t cap = 0;

	while (f && !dir[0] && getline(&line, &cap, f) > 0) {
		const char *sep = strstr(line, " - ");

		free(root);
		free(mnt);
		root = mnt = NULL;
		if (!sep || sscanf(line, "%*s %*s %*s %ms %ms", &root, &mnt) != 2 || sscanf(sep + 3, "%63s", type) != 1)
			continue;
		wb_mountinfo_unescape(mnt);
		/* a bind of a part (root not "/") has no instances/ of its own to make ours in */
		if (strcmp(root, "/") != 0 || strlen(mnt) >= dlen || strlen(mnt) >= flen)
			continue;
		if (strcmp(type, "tracefs") == 0 && tracefs_at(mnt))
			snprintf(dir, dlen, "%s", mnt);
		else if (strcmp(type, "debugfs") == 0 && !debugfs[0] && mnt[0] == '/')
			snprintf(debugfs, flen, "%s", mnt);
	}
	free(root);
	free(mnt);
	free(line);
	if (f)
		fclose(f);
}

/*
 * The tracefs already mounted, or debugfs's tracing/ (the kernel mounts a
 * tracefs there when it is first looked into, and keeps it while debugfs is
 * mounted); NULL where neither is. libtracefs, finding no tracefs in
 * /proc/mounts, mounts one at /sys/kernel/tracing and leaves it there: so
 * the directory is found here and handed to libtracefs, which then never
 * mounts.
 */
const char *wb_tracefs_dir(void)
{
	static char dir[PATH_MAX];
	char debugfs[PATH_MAX - 16] = "";

	if (dir[0])
		return dir;
	scan_mounts(dir, sizeof(dir), debugfs, sizeof(debugfs));
	if (!dir[0] && debugfs[0]) {
		snprintf(dir, sizeof(dir), "%s/tracing", debugfs);
		if (!tracefs_at(dir))
			dir[0] = '\0';
	}
	if (!dir[0] || tracefs_set_tracing_dir(dir) != 0) {
		dir[0] = '\0';
		return NULL;
	}
	return dir;
}

int wb_trace_remove_stale(const char *tracing_dir, char *msg, size_t len)
{
	char path[PATH_MAX];
	int n = 0;
	size_t used = 0;
	const char *td = tracing_dir ? tracing_dir : wb_tracefs_dir();
	DIR *d;
	struct dirent *e;

	if (msg && len)
		msg[0] = '\0';
	if (!td)
		return 0;
	snprintf(path, sizeof(path), "%s/instances", td);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(e->d_name, WB_TRACE_PREFIX, strlen(WB_TRACE_PREFIX)) != 0)
			continue;
		pid = strtol(e->d_name + strlen(WB_TRACE_PREFIX), &end, 10);
		if (*end || pid <= 0 || pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/instances/%s", td, e->d_name);
		if (rmdir(path) == 0) {
			n++;
			if (msg && used < len)
				used += (size_t)snprintf(msg + used, len - used, "%sremoved the trace instance %s "
							 "left by a wbtop that was killed", n > 1 ? "; " : "",
							 e->d_name);
		}
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * An event parser for just the events read here. libtracefs's
 * tracefs_local_events_system() would also load every kernel symbol from
 * /proc/kallsyms - 122,000 on the development VM, 17 s of start-up under the
 * address sanitizer - though no field read here is a kernel address.
 */
static struct tep_handle *load_events(void)
{
	struct tep_handle *tep = tep_alloc();
	int len = 0, parsed = 0;
	char *buf;

	if (!tep)
		return NULL;
	buf = tracefs_instance_file_read(NULL, "events/header_page", &len);
	if (!buf) {
		tep_free(tep);
		return NULL;
	}
	tep_parse_header_page(tep, buf, (unsigned long)len, sizeof(long));
	free(buf);
	for (int i = 0; i < T_COUNT; i++) {
		buf = tracefs_event_file_read(NULL, tev_names[i].sys, tev_names[i].name, "format", &len);
		if (buf && tep_parse_event(tep, buf, (unsigned long)len, tev_names[i].sys) == 0)
			parsed++;
		free(buf);
	}
	if (!parsed) {
		tep_free(tep);
		return NULL;
	}
	return tep;
}

struct wb_trace *wb_trace_create(const char *tracing_dir, size_t buffer_kb, char *err, size_t errlen)
{
	struct wb_trace *t;
	char name[64], filt[64];
	int enabled = 0;
	bool pollable, big;
	const char *how;

	if (geteuid() != 0) {
		snprintf(err, errlen, "tracepoints need root");
		return NULL;
	}
	(void)tracing_dir; /* the mounted tracefs; the argument is for tests of other trees */
	if (!wb_tracefs_dir()) {
		snprintf(err, errlen, "tracefs is not mounted, and wbtop does not mount it (mount -t tracefs none /sys/kernel/tracing)");
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* the formats first: the instance comes last, and goes with any failure */
	t->tep = load_events();
	if (!t->tep) {
		snprintf(err, errlen, "cannot read the writeback event formats from tracefs");
		wb_trace_destroy(t);
		return NULL;
	}
	snprintf(name, sizeof(name), WB_TRACE_PREFIX "%d", (int)getpid());
	t->inst = tracefs_instance_create(name);
	if (!t->inst) {
		snprintf(err, errlen, "cannot create the trace instance %s: %s", name, strerror(errno));
		wb_trace_destroy(t);
		return NULL;
	}
	t->dir = tracefs_instance_get_dir(t->inst);
	setup_fields(t);
	/* our own /proc/vmstat and debugfs reads emit global_dirty_state: filter them out */
	snprintf(filt, sizeof(filt), "common_pid != %d", (int)getpid());
	tracefs_instance_file_write(t->inst, "events/writeback/global_dirty_state/filter", filt);
	tracefs_instance_file_write(t->inst, "trace_clock", "mono");
	/*
	 * 64 KiB sub-buffers (Linux 6.8+; older kernels have no such file and
	 * keep pages): a read() each instead of one a 4 KiB page; under load
	 * the reads were about a third of the recorder's trace time (perf).
	 */
	big = tracefs_instance_file_write(t->inst, "buffer_subbuf_size_kb", WB_SUBBUF_KB) > 0;
	if (buffer_kb && tracefs_instance_set_buffer_size(t->inst, buffer_kb, -1) == 0)
		t->buffer_kb = buffer_kb;
	for (int i = 0; i < T_COUNT; i++)
		if (t->id[i] >= 0 && tracefs_event_enable(t->inst, tev_names[i].sys, tev_names[i].name) == 0)
			enabled++;
	if (enabled == 0) {
		snprintf(err, errlen, "none of the writeback tracepoints could be enabled");
		wb_trace_destroy(t);
		return NULL;
	}
	/* poll() then says readable at the first record, not at half a buffer (tracebuf.h) */
	pollable = tracefs_instance_file_write(t->inst, "buffer_percent", "0") > 0;
	tracefs_trace_on(t->inst);
	t->page_kb = (uint32_t)(sysconf(_SC_PAGESIZE) / 1024);
	/*
	 * Splice by default: the full sub-buffers are handed over whole into a
	 * pipe and read out in one call, where read() takes a call each (a
	 * 4 KiB page where buffer_subbuf_size_kb cannot be set: Linux before
	 * 6.8, or refused); the mapped reader's ioctl (Linux 6.10+) walks every
	 * record with interrupts off to mark it read, which under load cost
	 * 1.4-1.9x the copy (bench/README.md, rounds 9 and 15).
	 * WBTOP_TRACEBUF=read or map takes the other ways, to compare; set to
	 * anything, which one is used goes to stderr.
	 */
	how = getenv("WBTOP_TRACEBUF");
	t->buf = wb_tracebuf_create(t->inst, t->tep, pollable,
				    !how ? WB_TB_SPLICE
				    : strcmp(how, "map") == 0 ? WB_TB_MAP
				    : strcmp(how, "read") == 0 ? WB_TB_READ : WB_TB_SPLICE);
	if (how && t->buf)
		fprintf(stderr, "wbtop: trace buffers: %d of %d CPUs mapped (mmap), the rest %s\n",
			wb_tracebuf_mapped(t->buf), wb_tracebuf_ncpu(t->buf),
			wb_tracebuf_splicing(t->buf) ? "spliced (full sub-buffers) and read()" : "read()");
	else if (how)
		fprintf(stderr, "wbtop: trace buffers: libtracefs's iterator (read())\n");
	if (!t->buf && big) { /* libtracefs's iterator reads a page at a time */
		snprintf(filt, sizeof(filt), "%u", t->page_kb);
		tracefs_trace_off(t->inst);
		tracefs_instance_file_write(t->inst, "buffer_subbuf_size_kb", filt);
		tracefs_trace_on(t->inst);
	}
	return t;
}

struct wb_tracebuf *wb_trace_buffers(struct wb_trace *t)
{
	return t ? t->buf : NULL;
}

void wb_trace_destroy(struct wb_trace *t)
{
	if (!t)
		return;
	wb_tracebuf_destroy(t->buf);
	if (t->inst) {
		tracefs_trace_off(t->inst);
		tracefs_instance_destroy(t->inst);
		tracefs_instance_free(t->inst);
	}
	if (t->tep)
		tep_free(t->tep);
	tracefs_put_tracing_file(t->dir);
	free(t->acc);
	free(t);
}

const char *wb_trace_instance_path(const struct wb_trace *t)
{
	return t ? t->dir : NULL;
}

static unsigned long long num(struct tep_format_field *f, struct tep_record *r)
{
	unsigned long long v = 0;

	if (f)
		tep_read_number_field(f, r->data, &v);
	return v;
}

/* A char[] field (BDI name), NUL-terminated into buf. */
static const char *str_field(struct tep_format_field *f, struct tep_record *r, char *buf, size_t n)
{
	size_t len;

	buf[0] = '\0';
	if (!f || f->offset < 0 || f->size <= 0 || f->offset + f->size > r->size)
		return buf;
	len = (size_t)f->size < n - 1 ? (size_t)f->size : n - 1;
	memcpy(buf, (const char *)r->data + f->offset, len);
	buf[len] = '\0';
	return buf;
}

static void log_event(struct wb_trace *t, struct tep_record *r, uint8_t kind, uint8_t reason,
		      const char *bdi, uint64_t value, uint64_t extra)
{
	struct wb_sample *s = t->s;
	struct wb_event *e;

	if (s->nevents >= WB_EVLOG_MAX) {
		t->lost_log++;
		return;
	}
	e = &s->events[s->nevents++];
	memset(e, 0, sizeof(*e));
	e->t = r->ts / 1e9;
	e->kind = kind;
	e->reason = reason;
	e->pid = tep_data_pid(t->tep, r);
	wb_copy_str(e->bdi, sizeof(e->bdi), bdi);
	e->value = value;
	e->extra = extra;
}

static int on_event(struct tep_event *ev, struct tep_record *r, int cpu, void *ctx)
{
	struct wb_trace *t = ctx;
	char name[WB_NAME_LEN];
	struct acc *a;
	int id = ev->id;
	(void)cpu;

	t->total++;
	if (id == t->id[T_VMSCAN]) {
		unsigned long long reason = num(t->f_reason[T_VMSCAN], r);
		for (int b = 0; b < WB_RECLAIM_REASONS; b++)
			if (reason & (1ULL << b))
				t->s->reclaim_throttled[b]++;
		t->s->reclaim_delay_us += num(t->f_usec_delayed, r);
		log_event(t, r, WB_EV_RECLAIM, (uint8_t)reason, "", num(t->f_usec_delayed, r), 0);
		return 0;
	}
	if (id == t->id[T_GDS]) {
		t->s->dirty_limit = num(t->f_limit, r);
		t->s->dirty_limit_valid = true;
		return 0;
	}
	for (int i = 0; i < T_COUNT; i++) {
		if (id != t->id[i])
			continue;
		str_field(t->f_name[i], r, name, sizeof(name));
		a = acc_get(t, name);
		if (!a)
			return 0;
		switch (i) {
		case T_WAKE:
			a->ev.wake_bg++;
			log_event(t, r, WB_EV_WAKE_BG, 0, name, 0, 0);
			break;
		case T_START: {
			unsigned long long rs = num(t->f_reason[i], r);
			if (rs < WB_REASONS)
				a->ev.start[rs]++;
			if (rs != 0) /* background starts follow wakeups: log the others */
				log_event(t, r, WB_EV_START, (uint8_t)rs, name, num(t->f_pages[i], r), 0);
			break;
		}
		case T_BDP: {
			long long pause = (long long)num(t->f_pause, r);
			a->ev.task_ratelimit = num(t->f_task_rl, r) / t->page_kb;
			a->ev.dirty_ratelimit = num(t->f_dirty_rl, r) / t->page_kb;
			a->ev.wb_dirty_at_wake = num(t->f_wb_dirty, r);
			if (pause > 0) {
				uint64_t dn = t->f_dirtied ? num(t->f_dirtied, r) : 0;
				/* the field is the task's int nr_dirtied, which
				 * folio_account_redirty() decrements: a negative one
				 * would read as 4 billion pages */
				if (dn < WB_DIRTIED_SANE && dn > a->ev.dirtied_max)
					a->ev.dirtied_max = (uint32_t)dn;
				a->ev.pauses++;
				a->ev.pause_ms_total += (uint64_t)pause;
				if ((uint64_t)pause > a->ev.pause_ms_max)
					a->ev.pause_ms_max = (uint32_t)pause;
				log_event(t, r, WB_EV_PAUSE, 0, name, (uint64_t)pause, a->ev.wb_dirty_at_wake);
			}
			break;
		}
		case T_RATELIMIT:
			a->ev.balanced_ratelimit = num(t->f_bal_rl, r) / t->page_kb;
			break;
		default:
			break;
		}
		return 0;
	}
	return 0;
}

/* Events the kernel lost over all CPUs, from per_cpu/cpuN/stats. */
static unsigned long long overruns(struct wb_trace *t)
{
	unsigned long long sum = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	for (long c = 0; c < ncpu && c < 4096; c++) {
		char f[64], *txt;
		snprintf(f, sizeof(f), "per_cpu/cpu%ld/stats", c);
		txt = tracefs_instance_file_read(t->inst, f, NULL);
		sum += wb_rb_lost(txt);
		free(txt);
	}
	return sum;
}

/*
 * Records were lost (overrun, for the most part: the buffer held less than
 * the time from one drain to the next, and a CPU busy elsewhere can hold a
 * drain back for seconds; the count has the kernel's commit overruns and
 * dropped events in it too, which no size mends). Each CPU's buffer
 * doubles, within WB_TRACE_MAX_KB and WB_TRACE_ALL_KB, so that a gap as
 * long loses nothing the next time.
 */
static void grow(struct wb_trace *t, uint64_t lost, struct wb_diag *d)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	size_t cap = WB_TRACE_ALL_KB / (size_t)(ncpu > 0 ? ncpu : 1), kb = t->buffer_kb * 2;

	if (cap > WB_TRACE_MAX_KB)
		cap = WB_TRACE_MAX_KB;
	if (kb > cap)
		kb = cap;
	if (!t->buffer_kb || kb <= t->buffer_kb)
		return;
	if (tracefs_instance_set_buffer_size(t->inst, kb, -1) < 0) {
		/* EBUSY: the kernel resizes no buffer that is mapped (WBTOP_TRACEBUF=map) */
		wb_diag_add(d, "trace: %llu records lost; the buffer could not grow past %zu KiB a CPU: %s%s",
			    (unsigned long long)lost, t->buffer_kb, strerror(errno),
			    errno == EBUSY ? " (a mapped buffer cannot be resized)" : "");
		t->buffer_kb = 0; /* not tried again */
		return;
	}
	wb_diag_add(d, "trace: %llu records lost; the buffer grown from %zu to %zu KiB a CPU",
		    (unsigned long long)lost, t->buffer_kb, kb);
	t->buffer_kb = kb;
}

int wb_trace_drain(struct wb_trace *t, struct wb_sample *s, struct wb_diag *d)
{
	unsigned long long ov;

	free(s->events);
	s->events = calloc(WB_EVLOG_MAX, sizeof(*s->events));
	s->nevents = 0;
	if (!s->events) {
		wb_diag_add(d, "trace: out of memory");
		return -1;
	}
	t->s = s;
	t->nacc = 0;
	t->total = t->lost_log = 0;
	memset(s->reclaim_throttled, 0, sizeof(s->reclaim_throttled));
	s->reclaim_delay_us = 0;
	if (t->buf ? wb_tracebuf_drain(t->buf, on_event, t) < 0
		   : tracefs_iterate_raw_events(t->tep, t->inst, NULL, 0, on_event, t) < 0) {
		wb_diag_add(d, "trace: reading the instance's buffers failed");
		return -1;
	}
	for (size_t i = 0; i < s->nbdis; i++) {
		memset(&s->bdis[i].ev, 0, sizeof(s->bdis[i].ev));
		for (size_t a = 0; a < t->nacc; a++)
			if (strcmp(t->acc[a].name, s->bdis[i].name) == 0)
				s->bdis[i].ev = t->acc[a].ev;
	}
	memcpy(s->reason_names, t->reason_names, sizeof(s->reason_names));
	memcpy(s->reclaim_names, t->reclaim_names, sizeof(s->reclaim_names));
	ov = t->buf ? wb_tracebuf_overruns(t->buf) : overruns(t);
	s->ev_dropped = ov >= t->overrun0 ? ov - t->overrun0 : 0;
	t->overrun0 = ov;
	if (s->ev_dropped)
		grow(t, s->ev_dropped, d);
	s->ev_total = t->total;
	s->ev_lost_log = t->lost_log;
	s->ev_valid = true;
	return (int)t->total;
}
