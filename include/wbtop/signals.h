// SPDX-License-Identifier: GPL-2.0-or-later
/* wbtop's signal handling, in one place for the batch loop and the UI. */
#ifndef WBTOP_SIGNALS_H
#define WBTOP_SIGNALS_H

#include <signal.h>

/* Set by SIGINT, SIGTERM and SIGHUP: the main loops end and clean up. */
extern volatile sig_atomic_t wb_stop;

/*
 * Installs the handlers: INT/TERM/HUP set wb_stop; SEGV/ABRT/BUS, QUIT and
 * every other signal whose default ends the process run the crash cleanups
 * (newest first) and then die of the same signal; a closed
 * pipe is ignored (the write fails and the loop ends through its cleanup).
 */
void wb_signals_install(void);

/*
 * Adds a cleanup for a crash (at most 4): it runs in the signal handler,
 * so it may only do what is safe there (remove a trace instance, put the
 * terminal back). Returns 0, or -1 when the table is full.
 */
int wb_signals_at_crash(void (*fn)(void));

/*
 * Sleeps until *next + delay on the monotonic clock (the next tick, so a
 * sample's own cost does not stretch the interval), sets *next to it, and
 * wakes early on wb_stop.
 */
struct timespec;
void wb_sleep_until(struct timespec *next, double delay);

#endif
