// SPDX-License-Identifier: GPL-2.0-or-later
/* Signals: a stop flag for the loops, cleanups for a crash, and the loops' tick sleep that the flag ends. */
#include <errno.h>
#include <math.h>
#include <time.h>

#include "wbtop/signals.h"

#define MAX_CLEANUPS 4

volatile sig_atomic_t wb_stop;
static void (*volatile cleanups[MAX_CLEANUPS])(void);
static volatile sig_atomic_t ncleanups;

static void on_stop(int sig)
{
	(void)sig;
	wb_stop = 1;
}

/* A crash must not leave a trace instance behind or the terminal raw. */
static void on_fatal(int sig)
{
	for (int i = ncleanups - 1; i >= 0; i--)
		cleanups[i]();
	signal(sig, SIG_DFL);
	raise(sig);
}

void wb_signals_install(void)
{
	/*
	 * Every other signal whose default ends wbtop: Ctrl-\ (SIGQUIT) left the
	 * terminal raw, without echo, in the alternate screen with mouse
	 * reporting on. They still end it (with a core where the default dumps one).
	 */
	static const int fatal[] = { SIGSEGV, SIGABRT, SIGBUS, SIGQUIT, SIGILL, SIGFPE, SIGSYS, SIGXCPU,
				     SIGUSR1, SIGUSR2, SIGALRM };
	struct sigaction sa = { .sa_handler = on_stop }, sf = { .sa_handler = on_fatal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sf, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN); /* past RLIMIT_FSIZE write() fails with EFBIG: reported, not a kill */
}

int wb_signals_at_crash(void (*fn)(void))
{
	if (ncleanups >= MAX_CLEANUPS)
		return -1;
	cleanups[ncleanups] = fn;
	ncleanups = ncleanups + 1;
	return 0;
}

void wb_sleep_until(struct timespec *next, double delay)
{
	long ns = (long)((delay - floor(delay)) * 1e9);
	struct timespec now;

	next->tv_sec += (time_t)floor(delay);
	next->tv_nsec += ns;
	if (next->tv_nsec >= 1000000000L) {
		next->tv_sec++;
		next->tv_nsec -= 1000000000L;
	}
	/*
	 * A whole tick late (the machine stalled, or a sample took longer than
	 * the delay): the ticks missed are skipped, as sar and atop do, rather
	 * than taken back to back in the same millisecond.
	 */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((double)(now.tv_sec - next->tv_sec) + (now.tv_nsec - next->tv_nsec) / 1e9 >= delay)
		*next = now;
	while (!wb_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) == EINTR)
		;
	/*
	 * Woken half a tick late or more (the tick before was late too, and
	 * its next fell due at once): from now on, so that the next sample is
	 * not a fraction of a millisecond after this one, in the same
	 * millisecond of a recording's or JSON's time (the likely cause of
	 * one replay of a 0.05 s recording made on a loaded machine whose
	 * times did not rise)
	 */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((double)(now.tv_sec - next->tv_sec) + (now.tv_nsec - next->tv_nsec) / 1e9 >= delay / 2)
		*next = now;
}
