#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: every knob applied, read back and reverted by a trial; kill -9 during
# a trial, then recovery at the next start; invalid input refused with
# nothing written. The machine is left exactly as found (lib.sh checks).
. "$(dirname "$0")/lib.sh"
need_debugfs
save_sysctls
make_loop tune 64 ext4; L=$LOOP_MM; LD=$(basename $LOOP_DEV)
save_bdi $L
save_journal
export WBTOP_JOURNAL=$TMP/journal # ignored as root: the journal is $JOURNAL
n=0
before=$(machine_state)

knobs=(vm.dirty_ratio=15 vm.dirty_bytes=100M vm.dirty_background_ratio=5
       vm.dirty_background_bytes=50M vm.dirty_expire_centisecs=1000 vm.dirty_writeback_centisecs=300
       bdi.$LD.min_ratio=5 bdi.$LD.max_ratio=40 bdi.$L.min_ratio_fine=12345 bdi.$L.max_ratio_fine=500000
       bdi.$LD.max_bytes=64M bdi.$LD.min_bytes=8M bdi.$LD.strict_limit=1)
file_of() { # KEY -> file
	case $1 in
	vm.*) echo /proc/sys/vm/${1#vm.} ;;
	bdi.*) local r=${1#bdi.}; local dev=${r%.*} attr=${r##*.}
	       [ "$dev" = "$LD" ] && dev=$L; echo /sys/class/bdi/$dev/$attr ;;
	esac
}
for kv in "${knobs[@]}"; do
	k=${kv%%=*} v=${kv#*=}
	"$WBTOP" --set "$kv" --trial 2 < /dev/null > $TMP/out 2>&1 &
	p=$!
	sleep 1.2
	got=$(cat $(file_of $k))
	case $k in
	*_bytes) ;;  # read back as the bytes the ratio now means: checked through the report
	*) want=$(python3 -c "import sys; v=sys.argv[1]; print(int(v[:-1]) << {'K':10,'M':20,'G':30}[v[-1]] if v[-1] in 'KMG' else int(v))" "$v")
	   [ "$got" = "$want" ] || { cat $TMP/out; fail "$kv: the kernel reads $got during the trial"; } ;;
	esac
	wait $p || { cat $TMP/out; fail "$kv: rc $?"; }
	grep -q "reverted" $TMP/out || { cat $TMP/out; fail "$kv: no revert"; }
	grep -qE "^dirty thresh .* 0$" $TMP/out || { cat $TMP/out; fail "$kv: global threshold prediction not exact"; }
	[ "$(machine_state)" = "$before" ] || fail "$kv: not put back"
	[ -e $JOURNAL ] && fail "$kv: journal left"
done
n=$((n + 1)); echo "ok $n - ${#knobs[@]} knobs applied, read back, predicted exactly, reverted by the trial"

# kill -9 during a trial: the journal survives; the next start offers recovery
"$WBTOP" --set vm.dirty_bytes=77M --set bdi.$LD.max_ratio=20 --trial 60 < /dev/null > /dev/null 2>&1 &
p=$!
sleep 1.5
kill -9 $p; wait $p 2>/dev/null
[ "$(cat /proc/sys/vm/dirty_bytes)" = $((77 << 20)) ] || fail "trial values not in place before the kill"
[ -s $JOURNAL ] || fail "no journal after kill -9"
[ -e $WBTOP_JOURNAL ] && fail "root wrote its journal where \$WBTOP_JOURNAL said"
[ "$(stat -c '%a %U' /var/lib/wbtop) $(stat -c '%a %U' $JOURNAL)" = "700 root 600 root" ] ||
	fail "journal modes: $(stat -c '%a %U' /var/lib/wbtop $JOURNAL | tr '\n' ' ')"
grep -q "^vm.dirty_bytes	" $JOURNAL || { cat $JOURNAL; fail "the journal does not name its knobs by key"; }
"$WBTOP" --batch -n 1 --no-trace < /dev/null > /dev/null 2> $TMP/err
grep -q "unconfirmed changes from a previous run" $TMP/err || { cat $TMP/err; fail "no recovery offer"; }
[ "$(cat /proc/sys/vm/dirty_bytes)" = $((77 << 20)) ] || fail "changed without being asked"
"$WBTOP" --batch -n 1 --no-trace --recover revert < /dev/null > /dev/null 2> $TMP/err
grep -q "reverted" $TMP/err || { cat $TMP/err; fail "recovery did not revert"; }
[ "$(machine_state)" = "$before" ] || { diff <(echo "$before") <(machine_state); fail "recovery left the machine changed"; }
n=$((n + 1)); echo "ok $n - kill -9 mid-trial: the next start finds the journal and restores the values"

# refused, nothing written
for bad in vm.dirty_ratio=101 vm.dirty_bytes=4096 vm.dirty_background_bytes=0 vm.dirty_bytes=10Q \
	   bdi.$LD.min_ratio=101 bdi.nosuchdev.max_ratio=5 vm.dirty_expire_centisecs=18446744073709551615 \
	   vm.dirty_writeback_centisecs=4294967296 bdi.$LD.strict_limit=7 bdi.$LD.max_ratio_fine=1000001; do
	"$WBTOP" --set "$bad" --apply > /dev/null 2> $TMP/err; rc=$?
	[ $rc = 2 ] && grep -q "nothing written" $TMP/err || { cat $TMP/err; fail "$bad: rc $rc"; }
done
"$WBTOP" --set bdi.$LD.max_ratio=10 --set bdi.$LD.min_ratio=20 --apply > /dev/null 2> $TMP/err
[ $? = 2 ] || fail "min above max accepted"
[ "$(machine_state)" = "$before" ] || fail "a refused change wrote something"
n=$((n + 1)); echo "ok $n - invalid values refused with the reason, nothing written"

# the bytes sysctls at their edges: wbtop takes what the kernel takes (near 2^64 its page check
# wraps and takes the value) and predicts the thresholds the kernel then reports (there: 0)
# put back as found, in either mode: of each pair the one that was set (a bytes write zeroes the
# ratio; a ratio write of a changed value zeroes the bytes - the CI machine started at 200M/50M)
was() { echo "$before" | awk -v f=/proc/sys/vm/$1 '$1 == f { print $2 }'; }
put_back() {
	local p
	for p in dirty dirty_background; do
		if [ "$(was ${p}_bytes)" != 0 ]; then echo "$(was ${p}_bytes)" > /proc/sys/vm/${p}_bytes
		else echo "$(was ${p}_ratio)" > /proc/sys/vm/${p}_ratio; fi
	done
}
for kv in vm.dirty_bytes=18446744073709551615 vm.dirty_bytes=18446744073709547521 \
	  vm.dirty_bytes=18446744073709547520 vm.dirty_bytes=17592186040320 vm.dirty_bytes=17592186040321 \
	  vm.dirty_bytes=8192 vm.dirty_bytes=8191 vm.dirty_background_bytes=18446744073709551615 \
	  vm.dirty_background_bytes=17592186040321; do
	k=${kv%%=*} v=${kv#*=}
	"$WBTOP" --set "$kv" --batch -n 1 --no-trace --json < /dev/null > $TMP/pred 2> $TMP/err; ours=$?
	if echo "$v" > $(file_of $k) 2>/dev/null; then theirs=0; else theirs=2; fi
	kt=$(awk '$1 == "nr_dirty_threshold" { print $2 }' /proc/vmstat)
	kb=$(awk '$1 == "nr_dirty_background_threshold" { print $2 }' /proc/vmstat)
	put_back
	[ $ours = $theirs ] || { cat $TMP/err; fail "$kv: wbtop rc $ours, the kernel's write rc $theirs"; }
	[ $theirs = 0 ] || continue
	python3 - "$TMP/pred" "$kt" "$kb" "$kv" <<'PY' || fail "$kv: predicted thresholds differ from the kernel's"
import json, sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
w, page = s["whatif"]["global"], s["page_size"]
got = (w["thresh"] // page, w["bg_thresh"] // page)
want = (int(sys.argv[2]), int(sys.argv[3]))
# a figure from a ratio moves with dirtyable between the sample and the write: 1 % of it
if any(abs(g - k) > k // 100 for g, k in zip(got, want)):
    sys.exit(f"{sys.argv[4]}: predicted {got} pages, the kernel {want}")
PY
done
[ "$(machine_state)" = "$before" ] || { diff <(echo "$before") <(machine_state); fail "the edge values left the machine changed"; }
n=$((n + 1)); echo "ok $n - bytes sysctls at their edges: accepted and refused as the kernel does, thresholds as it reports"

# a read-only /proc/sys (a container, say): refused with the reason, nothing written
if command -v unshare >/dev/null; then
	unshare -m sh -c "mount --bind -o ro /proc/sys /proc/sys && \
		'$WBTOP' --set vm.dirty_bytes=64M --set vm.dirty_background_bytes=16M --apply" > /dev/null 2> $TMP/err
	rc=$?
	[ $rc != 0 ] && grep -q "writable /proc/sys" $TMP/err || { cat $TMP/err; fail "read-only /proc/sys: rc $rc"; }
	[ "$(machine_state)" = "$before" ] || fail "a read-only /proc/sys: something was written"
	[ -e $JOURNAL ] && fail "read-only /proc/sys: journal left"
	n=$((n + 1)); echo "ok $n - a read-only /proc/sys: refused with the reason, nothing written"
fi
echo "$n passed, 0 failed"
