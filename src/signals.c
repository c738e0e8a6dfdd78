// SPDX-License-Identifier: GPL-2.0-or-later
/* Signals: a stop flag for the loops, cleanups for a crash. */
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
	struct sigaction sa = { .sa_handler = on_stop }, sf = { .sa_handler = on_fatal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGSEGV, &sf, NULL);
	sigaction(SIGABRT, &sf, NULL);
	sigaction(SIGBUS, &sf, NULL);
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
