// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Live batch output to a regular file, written by a thread of its own. Over
 * the machine's dirty limit every task that dirties a page sleeps in
 * balance_dirty_pages, and `wbtop -b --json > log` dirties the log's pages
 * every sample: the sampling loop would sleep exactly while the machine is
 * held, and the samples of the stall come late or not at all (as the
 * recorder's did before src/record/bgwrite.c). Standard output becomes a
 * pipe (1 MiB where the kernel allows it: tens of samples) that the thread
 * drains into the file; the loop's stdio calls are unchanged. A pipe or a
 * terminal is not relayed (nothing of the loop's own is dirtied there).
 *
 * A write the thread cannot make (a full disk, RLIMIT_FSIZE) ends it: it
 * closes its end, the loop's next write fails with EPIPE, and
 * wb_relay_errno() tells the loop that this closed pipe is the file's error,
 * not a reader that had enough.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wbtop/relay.h"
#include "wbtop/util.h"

#define PIPE_BYTES (1 << 20)

static struct {
	pthread_t thread;
	int in, out; /* the pipe's read end; the file */
	bool on;
	atomic_int err; /* the thread's failed write: errno, 0 none */
} R = { .in = -1, .out = -1 };

static void *run(void *arg)
{
	static char buf[64 << 10];
	ssize_t n;

	(void)arg;
	for (;;) {
		n = read(R.in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		int e = wb_write_all(R.out, buf, (size_t)n);

		if (e) {
			atomic_store(&R.err, e);
			break;
		}
	}
	close(R.in); /* the loop's next write: EPIPE */
	R.in = -1;
	return NULL;
}

int wb_relay_stdout(void)
{
	struct stat st;
	int p[2];

	if (R.on || fstat(STDOUT_FILENO, &st) || !S_ISREG(st.st_mode))
		return 0;
	fflush(stdout);
	if ((R.out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0)
		return -errno;
	if (pipe2(p, O_CLOEXEC)) {
		int e = errno;

		close(R.out);
		R.out = -1;
		return -e;
	}
	(void)fcntl(p[1], F_SETPIPE_SZ, PIPE_BYTES); /* else the default 64 KiB */
	R.in = p[0];
	if (dup2(p[1], STDOUT_FILENO) < 0 || (errno = wb_thread_start(&R.thread, run, NULL))) {
		int e = errno;

		dup2(R.out, STDOUT_FILENO); /* back as it was: written directly */
		close(p[0]);
		close(p[1]);
		close(R.out);
		R.in = R.out = -1;
		return -e;
	}
	close(p[1]);
	R.on = true;
	return 0;
}

int wb_relay_errno(void)
{
	return atomic_load(&R.err);
}

int wb_relay_end(void)
{
	if (!R.on)
		return 0;
	fflush(stdout);
	/* the file back on fd 1: the pipe's last write end closes, the thread drains it and ends */
	dup2(R.out, STDOUT_FILENO);
	pthread_join(R.thread, NULL);
	close(R.out);
	R.out = -1;
	R.on = false;
	return wb_relay_errno();
}
