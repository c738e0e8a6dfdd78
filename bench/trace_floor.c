// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The floor under wbtop's trace reading: a process that sets up its trace
 * instance as wbtop does (named wbtop-PID, the same seven events, 64 KiB
 * sub-buffers, 4 MiB a CPU, mono clock, buffer_percent 0) and once a second
 * read()s every CPU's trace_pipe_raw until it is empty, doing nothing with
 * the bytes. What it costs is what the kernel charges any reader for handing
 * the records over (the copy, the partial sub-buffer's walk, the calls):
 * bench/vs-peers prints it beside wbtop's recorder with VS_FLOOR=1 (root).
 * With TRACE_FLOOR_SPLICE=1 the full sub-buffers, where they are a page,
 * are spliced into a pipe and read from it in one call, the partial one
 * read() as before.
 * Runs until SIGTERM or SIGINT, then removes its instance.
 * Usage: trace_floor [seconds between reads, default 1]
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "wbtop/trace.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	static const char *const ev[] = { "writeback_wake_background", "writeback_start", "writeback_written",
					  "balance_dirty_pages", "bdi_dirty_ratelimit", "global_dirty_state" };
	double every = argc > 1 ? atof(argv[1]) : 1.0;
	struct sigaction sa = { .sa_handler = on_signal };
	struct tracefs_instance *inst;
	char name[64], rel[64];
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), *fd;
	size_t sub = 64 << 10;
	char *buf = malloc(sub);
	unsigned long long bytes = 0, reads = 0;
	const char *sp = getenv("TRACE_FLOOR_SPLICE");
	int pp[2] = { -1, -1 };
	size_t psz = 1 << 20;
	char *big = NULL;

	if (every <= 0 || !buf || ncpu <= 0 || !(fd = calloc((size_t)ncpu, sizeof(*fd)))) {
		fprintf(stderr, "trace_floor: bad interval or out of memory\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	snprintf(name, sizeof(name), "wbtop-%d", (int)getpid());
	/* wbtop's finder: left to itself, libtracefs mounts a tracefs where none is listed */
	if (!wb_tracefs_dir()) {
		fprintf(stderr, "trace_floor: no tracefs mounted (nor debugfs)\n");
		return 1;
	}
	if (!(inst = tracefs_instance_create(name))) {
		fprintf(stderr, "trace_floor: cannot create instance %s: %s\n", name, strerror(errno));
		return 1;
	}
	tracefs_instance_file_write(inst, "trace_clock", "mono");
	if (tracefs_instance_file_write(inst, "buffer_subbuf_size_kb", "64") <= 0)
		sub = (size_t)sysconf(_SC_PAGESIZE);
	tracefs_instance_set_buffer_size(inst, 4096, -1);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		tracefs_event_enable(inst, "writeback", ev[i]);
	tracefs_event_enable(inst, "vmscan", "mm_vmscan_throttled");
	tracefs_instance_file_write(inst, "buffer_percent", "0");
	tracefs_trace_on(inst);
	for (int c = 0; c < ncpu; c++) {
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", c);
		fd[c] = tracefs_instance_file_open(inst, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	}
	/* page-sized sub-buffers only, as wbtop */
	if (sp && *sp == '1' && sub == (size_t)sysconf(_SC_PAGESIZE) && pipe2(pp, O_CLOEXEC | O_NONBLOCK) == 0) {
		fcntl(pp[1], F_SETPIPE_SZ, (int)psz);
		psz = (size_t)fcntl(pp[1], F_GETPIPE_SZ);
		big = malloc(psz);
	}
	while (!stop) {
		struct timespec ts = { (time_t)every, (long)((every - (time_t)every) * 1e9) };

		for (int c = 0; c < ncpu; c++) {
			ssize_t n;
			while (big && fd[c] >= 0 &&
			       (n = splice(fd[c], NULL, pp[1], NULL, psz, SPLICE_F_NONBLOCK)) > 0) {
				reads++;
				for (ssize_t r; n > 0 && (r = read(pp[0], big, psz)) > 0; n -= r)
					bytes += (unsigned long long)r;
			}
			while (fd[c] >= 0 && (n = read(fd[c], buf, sub)) > 0) {
				bytes += (unsigned long long)n;
				reads++;
			}
		}
		nanosleep(&ts, NULL);
	}
	for (int c = 0; c < ncpu; c++)
		if (fd[c] >= 0)
			close(fd[c]);
	tracefs_trace_off(inst);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	fprintf(stderr, "trace_floor: %llu bytes in %llu reads\n", bytes, reads);
	free(fd);
	free(buf);
	return 0;
}
