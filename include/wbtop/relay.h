/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Live batch output to a regular file through a writer thread (src/out/relay.c). */
#ifndef WBTOP_RELAY_H
#define WBTOP_RELAY_H

/* Standard output, when a regular file, becomes a pipe a thread drains into it. 0, or -errno (left as it was). */
int wb_relay_stdout(void);
/* The errno of the write the thread could not make, 0 none: standard output's EPIPE is then this error. */
int wb_relay_errno(void);
/* Flush standard output, give the file back to fd 1, wait for the thread to write the rest: wb_relay_errno(). */
int wb_relay_end(void);

#endif
