#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A knob another process writes while wbtop's trial runs keeps the other's
# value when the trial reverts (a sysctl, a sysctl pair through its twin, a
# BDI's max_ratio through max_ratio_fine), and the revert says so; a knob
# nobody touched is put back. Root; puts the machine back.
. "$(dirname "$0")/lib.sh"
W=$WBTOP
save_sysctls; save_journal
make_loop tex 64 ext4
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }

# trial KEY=VALUE FILE VALUE: a 3 s trial of KEY=VALUE; 1 s in, VALUE is written to FILE
trial() {
	( sleep 1; echo "$3" > "$2" ) &
	"$W" --set "$1" --apply --trial 3 < /dev/null > "$TMP/out" 2>&1
	wait
}

echo 20 > /proc/sys/vm/dirty_ratio
trial vm.dirty_ratio=30 /proc/sys/vm/dirty_ratio 25
got=$(cat /proc/sys/vm/dirty_ratio)
[ "$got" = 25 ] || { cat "$TMP/out"; fail "dirty_ratio written 25 by another during the trial reads $got after it"; }
grep -q "changed by another.*vm.dirty_ratio is 25" "$TMP/out" || { cat "$TMP/out"; fail "the revert did not say it left dirty_ratio"; }
ok "vm.dirty_ratio written by another during the trial keeps its value"

# the pair: wbtop writes dirty_bytes, another dirty_ratio (which zeroes dirty_bytes)
trial vm.dirty_bytes=300M /proc/sys/vm/dirty_ratio 15
got="$(cat /proc/sys/vm/dirty_ratio) $(cat /proc/sys/vm/dirty_bytes)"
[ "$got" = "15 0" ] || { cat "$TMP/out"; fail "dirty_ratio 15 by another during a dirty_bytes trial: ratio, bytes now $got"; }
ok "dirty_bytes' twin written by another: the pair is left in the other's mode"

# a BDI's percent view written by wbtop, its exact ppm by another
B=/sys/class/bdi/$LOOP_MM
save_bdi "$LOOP_MM"
trial "bdi.$LOOP_MM.max_ratio=30" "$B/max_ratio_fine" 400000
got=$(cat "$B/max_ratio_fine")
[ "$got" = 400000 ] || { cat "$TMP/out"; fail "max_ratio_fine 400000 by another during a max_ratio trial reads $got after it"; }
ok "a BDI's max_ratio_fine written by another during the trial keeps its value"

# nobody else: everything comes back
echo 20 > /proc/sys/vm/dirty_ratio
"$W" --set vm.dirty_ratio=30 --set "bdi.$LOOP_MM.max_ratio=30" --apply --trial 1 < /dev/null > "$TMP/out" 2>&1
got="$(cat /proc/sys/vm/dirty_ratio) $(cat "$B/max_ratio_fine")"
[ "$got" = "20 400000" ] && grep -q "^reverted: the previous values are back" "$TMP/out" ||
	{ cat "$TMP/out"; fail "an untouched trial reverted to $got"; }
ok "a trial nobody else touched is put back whole"

# after a crash: wbtop killed in its trial, another writes dirty_ratio, then
# --recover revert. The journal records what each knob read after the change,
# so the other's value stays and is named; the knob nobody touched comes back.
# (Before, the journal had no such record and the recovery wrote 20 over 25.)
E=/proc/sys/vm/dirty_expire_centisecs EXP=$(cat /proc/sys/vm/dirty_expire_centisecs)
echo 20 > /proc/sys/vm/dirty_ratio
"$W" --set vm.dirty_ratio=30 --set vm.dirty_expire_centisecs=$((EXP + 100)) --apply --trial 60 \
	< /dev/null > "$TMP/out" 2>&1 &
PID=$!
# the trial is under way once it reports the knobs it wrote
for _i in $(seq 100); do [ "$(cat /proc/sys/vm/dirty_ratio)" = 30 ] && grep -q . "$TMP/out" && break; sleep 0.1; done
sleep 0.5
grep -q "^vm.dirty_ratio	20	30" "$JOURNAL" || { kill $PID; cat "$TMP/out"; fail "no journal during the trial"; }
kill -9 $PID; wait $PID 2>/dev/null
echo 25 > /proc/sys/vm/dirty_ratio
"$W" --batch -n 1 --no-trace --recover revert < /dev/null > /dev/null 2> "$TMP/err"; rc=$?
got="$(cat /proc/sys/vm/dirty_ratio) $(cat $E)"
[ $rc = 0 ] && [ "$got" = "25 $EXP" ] || { cat "$TMP/err"; fail "recovery after a crash: rc $rc, dirty_ratio and expire $got (25 $EXP expected)"; }
grep -q "changed by another.*vm.dirty_ratio is 25" "$TMP/err" || { cat "$TMP/err"; fail "the recovery did not say it left dirty_ratio"; }
[ ! -e "$JOURNAL" ] || fail "the journal stayed after the recovery"
ok "after a crash, --recover revert leaves a knob another changed since and puts back the rest"
