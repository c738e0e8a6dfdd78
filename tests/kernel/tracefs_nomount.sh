#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: wbtop never mounts a tracefs by itself. libtracefs, finding no tracefs
# in /proc/mounts, mounts one at /sys/kernel/tracing and leaves it; debugfs's
# tracing/ is listed there only once something has looked into it. Run in a
# private mount namespace, so the machine's own mounts are never touched:
#  1. no tracefs, no debugfs: wbtop says tracepoints are off, samples, and
#     leaves no mount behind;
#  2. debugfs only (its tracing/ not yet looked into): wbtop traces through it
#     and mounts nothing at /sys/kernel/tracing.
. "$(dirname "$0")/lib.sh"
command -v unshare >/dev/null || skip "needs unshare (util-linux)"
unshare -m --propagation private true 2>/dev/null || skip "cannot make a mount namespace"
export WBTOP TMP
unshare -m --propagation private bash -c '
	set -u
	tracing() { awk "/ - tracefs /{print \$5}" /proc/self/mountinfo | sort; }
	# innermost first: debugfs'"'"'s tracing/ automount before debugfs
	for m in $(awk "/ - (tracefs|debugfs) /{print \$5}" /proc/self/mountinfo | sort -r); do
		umount -l "$m" || { echo "FAIL: cannot unmount $m in the namespace"; exit 1; }
	done
	[ -z "$(tracing)" ] || { echo "FAIL: a tracefs is still mounted: $(tracing)"; exit 1; }

	"$WBTOP" --batch --json -n 2 -d 0.3 --no-procs > $TMP/a.json 2> $TMP/a.err
	rc=$?
	[ $rc = 0 ] || { cat $TMP/a.err; echo "FAIL: no tracefs: wbtop rc $rc"; exit 1; }
	[ "$(wc -l < $TMP/a.json)" = 2 ] || { echo "FAIL: no tracefs: not 2 samples"; exit 1; }
	[ -z "$(tracing)" ] || { echo "FAIL: no tracefs: wbtop left $(tracing) mounted"; exit 1; }
	grep -q "tracepoints off: tracefs is not mounted" $TMP/a.err ||
		{ cat $TMP/a.err; echo "FAIL: no tracefs: not said"; exit 1; }
	echo "ok 1 no tracefs: tracepoints off, said, nothing mounted"

	mount -t debugfs none /sys/kernel/debug || { echo "SKIP: cannot mount debugfs"; exit 77; }
	"$WBTOP" --batch --json -n 3 -d 0.3 --no-procs > $TMP/b.json 2> $TMP/b.err
	rc=$?
	[ $rc = 0 ] || { cat $TMP/b.err; echo "FAIL: debugfs: wbtop rc $rc"; exit 1; }
	grep -q "tracepoints off" $TMP/b.err && { cat $TMP/b.err; echo "FAIL: debugfs: tracepoints off"; exit 1; }
	tail -1 $TMP/b.json | grep -q "\"events\"" || { echo "FAIL: debugfs: no events in the samples"; exit 1; }
	[ "$(tracing)" = /sys/kernel/debug/tracing ] ||
		{ echo "FAIL: debugfs: tracefs mounted at: $(tracing)"; exit 1; }
	ls /sys/kernel/debug/tracing/instances | grep -q "^wbtop-" &&
		{ echo "FAIL: debugfs: the trace instance left"; exit 1; }
	echo "ok 2 debugfs only: traced through its tracing/, nothing mounted"
'
rc=$?
[ $rc = 0 ] && echo "2 passed, 0 failed"
exit $rc
