#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: a device removed while a change to it is on trial (a loop device removed, a stick
# pulled) took its knobs along. The trial's revert puts the rest back, names the device and
# removes the journal; so does the recovery after a wbtop killed mid-trial. Both failed: "could
# not put back", and a journal that every later start refused as damaged (the rest never put back).
. "$(dirname "$0")/lib.sh"
save_sysctls
save_journal
E=/proc/sys/vm/dirty_expire_centisecs
EXP=$(cat $E)
n=0
# a loop device of its own, removed in the test (lib.sh's make_loop keeps its own until the end)
gone_loop() { # sets N: loopN made, attached, its removal registered
	for N in $(seq 200 250); do [ -e /sys/class/bdi/7:$N ] || break; done
	truncate -s 16M $TMP/g$N.img
	loop_ctl 0x4C80 $N || fail "LOOP_CTL_ADD $N"
	at_exit "(for _k in \$(seq 50); do loop_ctl 0x4C81 $N 2>/dev/null && break; sleep 0.1; done)"
	losetup /dev/loop$N $TMP/g$N.img || fail "losetup $N"
	at_exit "losetup -d /dev/loop$N"
}
remove_loop() { # N
	losetup -d /dev/loop$1
	for _k in $(seq 50); do loop_ctl 0x4C81 $1 2>/dev/null && break; sleep 0.1; done
	[ -e /sys/class/bdi/7:$1 ] && fail "7:$1 could not be removed"
}
change="--set vm.dirty_expire_centisecs=$((EXP + 100))"

gone_loop
"$WBTOP" $change --set bdi.loop$N.max_ratio=50 --apply --trial 4 < /dev/null > $TMP/out 2>&1 & p=$!
for _ in $(seq 100); do [ "$(cat /sys/class/bdi/7:$N/max_ratio 2>/dev/null)" = 50 ] && break; sleep 0.1; done
[ "$(cat $E)" = $((EXP + 100)) ] || fail "the trial was not applied: $(cat $TMP/out)"
remove_loop $N
wait $p; rc=$?
[ $rc = 0 ] && grep -q "gone meanwhile, with their knobs (nothing to put back): 7:$N" $TMP/out ||
	{ cat $TMP/out; fail "the trial's revert: rc $rc"; }
[ "$(cat $E)" = "$EXP" ] || fail "the trial's revert did not put the rest back"
[ -e "$JOURNAL" ] && fail "the trial's revert kept the journal"
n=$((n + 1)); echo "ok $n - removed mid-trial: the rest put back, 7:$N named, no journal left"

gone_loop
"$WBTOP" $change --set bdi.loop$N.max_ratio=50 --apply --trial 60 < /dev/null > $TMP/out 2>&1 & p=$!
for _ in $(seq 100); do [ "$(cat /sys/class/bdi/7:$N/max_ratio 2>/dev/null)" = 50 ] && break; sleep 0.1; done
kill -9 $p; wait $p 2>/dev/null
remove_loop $N
"$WBTOP" --batch -n 1 --no-trace --recover revert < /dev/null > /dev/null 2> $TMP/err; rc=$?
[ $rc = 0 ] && grep -q "7:$N.max_ratio: 50 (was 100): the device has gone" $TMP/err &&
	grep -q "gone since, with their knobs (nothing to put back): 7:$N" $TMP/err ||
	{ cat $TMP/err; fail "the recovery: rc $rc"; }
[ "$(cat $E)" = "$EXP" ] || fail "the recovery did not put the rest back"
[ -e "$JOURNAL" ] && fail "the recovery kept the journal"
n=$((n + 1)); echo "ok $n - killed mid-trial, then removed: recovered, 7:$N named, no journal left"
echo "$n passed"
