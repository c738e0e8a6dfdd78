/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tuning: the only path that writes to the kernel. A change is validated
 * with the model's rules, journaled (original values, before anything is
 * written), written, read back, and can be reverted; a journal left by a
 * wbtop that died mid-change is found at the next start.
 */
#ifndef WBTOP_TUNE_H
#define WBTOP_TUNE_H

#include <stddef.h>

#include "wbtop/whatif.h"

#define WB_TUNE_MAX 64
#define WB_TUNE_ROOT_DIR "/var/lib/wbtop" /* root's journal folder (0700) */

struct wb_tune_entry {
	char key[96];        /* the knob: "vm.dirty_ratio", "bdi.7:0.max_ratio_fine" */
	char path[192];      /* the file written, derived from key and checked */
	char orig[32];       /* its value before */
	char want[32];       /* what was written */
	char after[32];      /* read back once the whole change was written ("" unknown: a journal of version
			      * 2 or older, or one the writer died before completing) */
	bool gone;           /* a BDI's knob whose device has gone (its folder with it): nothing to put back */
};

struct wb_tune {
	char journal[512];
	int pid;             /* the wbtop that wrote the journal */
	int n;
	struct wb_tune_entry e[WB_TUNE_MAX];
	char left[256];      /* after a revert: the knobs another changed since, left as they are ("" if none) */
	char gone[256];      /* after a revert: the devices that have gone, with their knobs ("7:200, btrfs-3") */
};

/*
 * The journal's path: as root always WB_TUNE_ROOT_DIR/journal (no
 * environment decides where root writes); otherwise $WBTOP_JOURNAL, else
 * $XDG_STATE_HOME/wbtop/journal, else ~/.local/state/wbtop/journal.
 */
void wb_tune_journal_path(char *buf, size_t len);

/*
 * Read and check the journal at path, its knobs under root (normally "/"):
 * it must be a regular file of ours writable by no one else, every line
 * whole (at most 511 bytes), every key a knob of the catalogue (a BDI's on a
 * valid BDI name: one missing under root/sys/class/bdi has gone since, its
 * entry marked gone), every value a number in the knob's range.
 * 1 and t filled, 0 if there is no journal (or no entry), -1 with
 * "path:line: why" in err if it is damaged or foreign (t then holds nothing).
 */
int wb_tune_read(struct wb_tune *t, const char *path, const char *root, char *err, size_t errlen);

/*
 * Write ops (already validated against the model) to the kernel (root must
 * be "/": a journal names knobs, and its revert writes them there). Every file whose value may change, including the twin of a
 * ratio/bytes pair, is journaled first (refused if the journal holds another
 * wbtop's unconfirmed changes or damage). Writes never follow a symbolic
 * link. On any refused write, what was written is put back and -1 returned
 * with the kernel's reason in err.
 */
int wb_tune_apply(struct wb_tune *t, const char *root, const struct wb_setop *ops, int nops, char *err,
		  size_t errlen);
/*
 * Put every journaled file back (sysctl pairs and min/max in a safe order); remove the journal.
 * A knob (with its twin) that no longer reads what this process left in it was changed by
 * another since: it is left as it is and named in t->left, not overwritten with the old value.
 * A device that has gone (unplugged, a loop device removed) took its knobs with it: nothing to
 * put back, no failure; it is named in t->gone.
 */
int wb_tune_revert(struct wb_tune *t, char *err, size_t errlen);
/* Keep the change: remove the journal. */
void wb_tune_confirm(struct wb_tune *t);
/*
 * A journal left by a wbtop that is no longer running: 1 and t filled, 0 if
 * none (or its writer is alive), -1 if unreadable (message in err).
 */
int wb_tune_find_stale(struct wb_tune *t, char *err, size_t errlen);

#endif
