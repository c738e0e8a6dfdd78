// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The process table's judgement of writers (src/collect/procs.c, its static
 * functions: the file is included here) against this machine's /proc, with
 * children of this test as the processes: no root, no writes to a disk.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "../../src/collect/procs.c"

#define MIB (1u << 20)

/* A child that waits in pause() until killed, or this test ends (its descriptors: this test's). */
static pid_t sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed assertion does not leave it holding our output */
		pause();
		_exit(0);
	}
	return pid;
}

/* A child that has exited and is not reaped (a zombie: no descriptors left). */
static pid_t zombie(void)
{
	pid_t pid = fork();
	siginfo_t si;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A descriptor placed at a number in a holder()'s table. */
struct slot {
	int num, fd;
};

/*
 * A child whose descriptors are exactly 0 to nfds - 1 (nfds > 0): /dev/null
 * read-only, but those of slots; it waits in pause() until killed. Returned
 * once its table is set (it closed its end of the pipe that says so).
 */
static pid_t holder(int nfds, const struct slot *slots, size_t nslots)
{
	int ready[2], null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid_t pid;
	char c;

	assert_true(null >= 0);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int hi = nfds + (int)nslots + 16, moved[8];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* everything first out of the way, above the table it builds */
		null = fcntl(null, F_DUPFD, hi);
		ready[1] = fcntl(ready[1], F_DUPFD, hi);
		for (size_t i = 0; i < nslots && i < 8; i++)
			moved[i] = fcntl(slots[i].fd, F_DUPFD, hi);
		for (int fd = 0; fd < nfds; fd++)
			dup2(null, fd);
		for (size_t i = 0; i < nslots && i < 8; i++)
			dup2(moved[i], slots[i].num);
		close_range((unsigned)nfds, (unsigned)ready[1] - 1, 0);
		close_range((unsigned)ready[1] + 1, ~0u, 0);
		close(ready[1]);
		pause();
		_exit(0);
	}
	close(null);
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 0); /* EOF: the child's table is set */
	close(ready[0]);
	return pid;
}

/* An empty file here opened with flags (unlinked at once), or -1 if they are refused. */
static int scratch(int flags)
{
	char path[] = "procs-fd.XXXXXX";
	int tmp = mkstemp(path), fd;

	assert_true(tmp >= 0);
	fd = open(path, flags | O_CLOEXEC);
	unlink(path);
	close(tmp);
	return fd;
}

/* fd_kind() of a holder() of nfds descriptors with slots. */
static int kind_of(int nfds, const struct slot *slots, size_t nslots)
{
	pid_t pid = holder(nfds, slots, nslots);
	int kind = fd_kind(pid);

	reap(pid);
	return kind;
}

/*
 * At most FD_SCAN_MAX descriptors are looked at, and those are the
 * process's: /proc/PID/fdinfo's "." and ".." are not among them (counted,
 * a process's 255th and 256th went unseen).
 */
static void fd_scan_counts_descriptors(void **st)
{
	int direct = scratch(O_WRONLY | O_DIRECT);
	(void)st;

	if (direct < 0)
		skip(); /* no O_DIRECT on this file system */
	assert_int_equal(kind_of(FD_SCAN_MAX, (struct slot[]){ { FD_SCAN_MAX - 1, direct } }, 1), W_DIRECT);
	assert_int_equal(kind_of(FD_SCAN_MAX + 1, (struct slot[]){ { FD_SCAN_MAX, direct } }, 1), W_BUFFERED);
	close(direct);
}

/* judge() over one task read in this sample that wrote delta, nr_dirtied having moved by moved. */
static uint64_t explained_by(struct task *t, uint64_t delta, uint64_t moved)
{
	struct wb_procs p = { .t = t, .nt = 1, .tick = 5 };

	t->read = p.tick;
	t->delta = delta;
	judge(&p, moved, true);
	return p.explained;
}

/*
 * A writer first seen writing is judged by its open files; one whose files
 * cannot be seen (it exited since its io was read: gone, or a zombie with no
 * descriptors) is not judged buffered - its bytes would explain another's
 * pages (a dd oflag=direct that had just ended) - and is judged again later.
 */
static void judged_by_files(void **st)
{
	struct task t;
	pid_t live = sleeper(), dead = zombie();
	(void)st;

	t = (struct task){ .pid = live, .io_fd = -1, .stat_fd = -1 };
	assert_int_equal(explained_by(&t, 8 * MIB, 8 * MIB), 8 * MIB); /* stdio, no O_DIRECT */
	assert_int_equal(t.kind, W_BUFFERED);

	t = (struct task){ .pid = dead, .io_fd = -1, .stat_fd = -1 };
	assert_int_equal(explained_by(&t, 8 * MIB, 8 * MIB), 0);
	assert_int_equal(t.kind, W_UNKNOWN);

	reap(dead); /* gone: no /proc/PID at all */
	t = (struct task){ .pid = dead, .io_fd = -1, .stat_fd = -1 };
	assert_int_equal(explained_by(&t, 8 * MIB, 8 * MIB), 0);
	assert_int_equal(t.kind, W_UNKNOWN);
	reap(live);
}

/*
 * A PID reused after a wrap is seen when its kept io fails (the old process's):
 * the task read again is a new process, and the old one's judgement and last
 * delta do not carry over - judged buffered with 8 MiB, the new process
 * explained 8 MiB it never wrote, or was taken as direct for good.
 */
static void reused_pid_starts_afresh(void **st)
{
	struct task t;
	struct wb_procs p = { .tick = 5 };
	struct wb_proc out;
	char path[64];
	pid_t old = sleeper(), now = sleeper();
	int fd;
	(void)st;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)old);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		reap(old);
		reap(now);
		skip(); /* no task I/O accounting in this kernel */
	}
	reap(old); /* its kept io now fails, as when its PID went to another process */
	t = (struct task){ .pid = now, .io_fd = fd, .stat_fd = -1, .have = true, .wrote = 4, .read = 4,
			   .delta = 8 * MIB, .kind = W_BUFFERED };
	p.t = &t;
	p.nt = 1;
	p.kept = 1;
	assert_false(task_update(&p, &t, &out));
	assert_true(t.have); /* read anew: the process now under the PID */
	assert_int_equal(t.read, p.tick);
	assert_int_equal(t.wrote, 0);
	assert_int_equal(t.delta, t.wb); /* a forked child that wrote nothing: 0 */
	judge(&p, 8 * MIB, true);
	assert_int_equal(p.explained, 0);
	task_drop(&p, &t);
	reap(now);
}

/*
 * Which writable descriptors judge a process: a file's (or a block
 * device's) with O_DIRECT make it direct, but beside one without (its
 * writes dirty pages) it is mixed, not direct; pipes, terminals and
 * sockets count for neither (their writes are no disk's: not in
 * write_bytes) - a packet-mode pipe (O_DIRECT) made its writer direct, and
 * a dd oflag=direct writing its report to a pipe is direct still.
 */
static void fd_kind_by_writable_files(void **st)
{
	int direct = scratch(O_WRONLY | O_DIRECT), buffered = scratch(O_WRONLY), ro = scratch(O_RDONLY | O_DIRECT);
	int packet[2], plain[2];
	(void)st;

	if (direct < 0)
		skip(); /* no O_DIRECT on this file system */
	assert_int_equal(pipe2(packet, O_DIRECT), 0);
	assert_int_equal(pipe(plain), 0);
	assert_int_equal(kind_of(4, (struct slot[]){ { 2, plain[1] }, { 3, direct } }, 2), W_DIRECT);
	assert_int_equal(kind_of(4, (struct slot[]){ { 2, direct }, { 3, buffered } }, 2), W_MIXED);
	assert_int_equal(kind_of(4, (struct slot[]){ { 2, buffered }, { 3, direct } }, 2), W_MIXED);
	assert_int_equal(kind_of(3, (struct slot[]){ { 2, packet[1] } }, 1), W_BUFFERED);
	assert_int_equal(kind_of(3, (struct slot[]){ { 2, ro } }, 1), W_BUFFERED);
	close(direct);
	close(buffered);
	close(ro);
	close(packet[0]);
	close(packet[1]);
	close(plain[0]);
	close(plain[1]);
}

/*
 * A mixed writer's write_bytes cannot be split: counted as explaining, its
 * direct bytes explained another's dirtying and kept it from the sweep (as
 * a dd oflag=direct's did), so it explains nothing, like a direct one.
 */
static void mixed_explains_nothing(void **st)
{
	struct task t = { .pid = 1, .io_fd = -1, .stat_fd = -1, .kind = W_MIXED };
	(void)st;

	assert_int_equal(explained_by(&t, 8 * MIB, 8 * MIB), 0);
	assert_int_equal(t.kind, W_MIXED);
	t = (struct task){ .pid = 1, .io_fd = -1, .stat_fd = -1, .kind = W_BUFFERED };
	assert_int_equal(explained_by(&t, 8 * MIB, 8 * MIB), 8 * MIB);
}

/* probe_io() of pid as user uid (a child: this test keeps its own); 1 unreadable, 0 not, -1 read. */
static int unreadable_as(pid_t pid, uid_t uid)
{
	pid_t c = fork();
	int status;

	assert_true(c >= 0);
	if (c == 0) {
		struct wb_procs p = { .tick = 5, .kept = MAX_KEPT_FDS }; /* nothing kept: open/read/close */
		struct task t = { .pid = pid, .io_fd = -1, .stat_fd = -1 };

		if (setresuid(uid, uid, uid) != 0)
			_exit(3);
		probe_io(&p, &t);
		_exit(t.have ? 2 : t.unreadable);
	}
	assert_int_equal(waitpid(c, &status, 0), c);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 3);
	return WEXITSTATUS(status) == 2 ? -1 : WEXITSTATUS(status);
}

/*
 * A task whose io cannot be read is one we may not read (counted: "N
 * processes' io unreadable") only when that is why; one that ended between
 * its stat's read and its io's (ENOENT, ESRCH) is skipped, not counted - it
 * was, until the next whole listing.
 */
static void vanished_is_not_unreadable(void **st)
{
	pid_t gone = zombie();
	(void)st;

	reap(gone);
	assert_int_equal(unreadable_as(gone, geteuid()), 0);
	if (geteuid() == 0) /* another user's: init's, to nobody */
		assert_int_equal(unreadable_as(1, 65534), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(judged_by_files),
		cmocka_unit_test(reused_pid_starts_afresh),
		cmocka_unit_test(fd_scan_counts_descriptors),
		cmocka_unit_test(fd_kind_by_writable_files),
		cmocka_unit_test(mixed_explains_nothing),
		cmocka_unit_test(vanished_is_not_unreadable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
