#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: kill -9 leaves wbtop's trace instance; the next start removes it and
# says so. A SIGTERM'd wbtop removes its own, and so does one whose reader
# closed the pipe.
. "$(dirname "$0")/lib.sh"
TR=/sys/kernel/tracing
[ -d $TR/instances ] || { mount -t tracefs none $TR && at_exit "umount $TR"; } || skip "no tracefs"
"$WBTOP" --batch -n 0 -d 0.2 --no-procs >/dev/null 2>&1 &
P=$!
at_exit "kill -9 $P 2>/dev/null; wait $P 2>/dev/null; rmdir $TR/instances/wbtop-$P 2>/dev/null"
sleep 1
[ -d $TR/instances/wbtop-$P ] || fail "no instance while running"
kill -9 $P; wait $P 2>/dev/null
[ -d $TR/instances/wbtop-$P ] || fail "kill -9 left nothing to clean (expected a stale instance)"
"$WBTOP" --batch -n 1 --no-procs >/dev/null 2>$TMP/err || fail "second start"
grep -q "removed the trace instance wbtop-$P" $TMP/err || { cat $TMP/err; fail "stale instance not reported"; }
[ -d $TR/instances/wbtop-$P ] && fail "stale instance still there"
for sig in TERM INT HUP; do
	"$WBTOP" --batch -n 0 -d 0.2 --no-procs >/dev/null 2>&1 &
	P=$!
	sleep 1
	kill -$sig $P; wait $P
	[ -d $TR/instances/wbtop-$P ] && fail "SIG$sig left the instance"
done
# a reader that closes the pipe: wbtop stops cleanly (exit 0, instance removed)
( "$WBTOP" --batch --json -n 0 -d 0.2 --no-procs 2>/dev/null; echo $? > $TMP/rc ) | head -c 10 >/dev/null
[ "$(cat $TMP/rc)" = 0 ] || fail "a closed pipe: exit $(cat $TMP/rc)"
ls $TR/instances | grep -q '^wbtop-' && fail "a closed pipe left the instance"
echo "3 passed, 0 failed"
