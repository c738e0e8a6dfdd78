#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# With 40 more BDIs (idle: read every 4th sample, figures carried between) and
# writers on two, the per-device writeout shares of a sample sum to at most 1
# (+2 %) when idle devices (no page dirty or under writeback) besides the
# writers' show one: an idle device's threshold read at the floor is the floor
# as of the sample, not a share of ~1/8 (they summed to 1.3-5.5 on the samples
# reading idle devices). A sample where one
# device alone does is printed as known, not failed: not fixed (see bdi.c
# floor_at_read()). The first 5 samples are not judged: after an idle spell the
# kernel's own fractions, read from per-CPU counters without summing, may each
# be 1 (num > den: den = num in fprop_fraction_percpu()), and it applies them.
. "$(dirname "$0")/lib.sh"
need_debugfs
settle
made=0 mine=()
for n in $(seq 260 299); do
	[ -e /sys/class/bdi/7:$n ] && continue
	loop_ctl 0x4C80 "$n" || continue
	at_exit "(for _k in \$(seq 50); do loop_ctl 0x4C81 $n 2>/dev/null && break; sleep 0.1; done)"
	[ -b /dev/loop$n ] || { mknod /dev/loop$n b 7 $n; at_exit "rm -f /dev/loop$n"; }
	truncate -s 300M "$TMP/$n.img"
	losetup /dev/loop$n "$TMP/$n.img" || fail "losetup loop$n"
	at_exit "losetup -d /dev/loop$n"
	mine+=($n)
	made=$((made + 1))
	[ $made = 40 ] && break
done
[ $made -ge 30 ] || fail "only $made loop devices"
# every other one written once and idle since (its writeout fraction decayed but not 0, as on a
# machine whose devices were used before: the CI machine's); the rest never written (fraction 0)
k=0
for n in "${mine[@]}"; do # only the devices made here: one of 260-299 may be another's
	k=$((k + 1)); [ $((k % 2)) = 0 ] || continue
	dd if=/dev/zero of=/dev/loop$n bs=1M count=2 conv=fsync status=none || fail "dd loop$n"
done
echo "$(ls /sys/class/bdi | wc -l) BDIs"
set -- 7:${mine[0]} 7:${mine[1]}
W1=$1 W2=$2
for b in "$1" "$2"; do
	( while :; do dd if=/dev/zero of=/dev/loop${b#7:} bs=1M count=200 status=none; done ) &
	at_exit "kill $!; wait $! 2>/dev/null"
done
# Twice: as it reads, and with every stats read backing off for some samples
# (WBTOP_BDI_SLOW_US=20: each read over 20 us skips the next cost/20, up to
# 30), as on a loaded machine under the sanitizers - a CI run saw 12 idle
# devices keep the threshold of a read behind the back-off, each at 0.038.
judge() {
python3 - "$TMP/j" "$W1" "$W2" "$1" <<'PY'
import json, sys
bad, lone, sums = [], [], []
writers = sys.argv[2:]
for i, l in enumerate(open(sys.argv[1])):
    j = json.loads(l)
    tot = sum(b.get("share") or 0 for b in j["bdis"])
    if i < 5:
        continue
    sums.append(tot)
    # beside the two writers' devices, those with no page dirty or under writeback: the floor
    # taken for a share shows as ~0.1 on each. A device with pages may hold a real share (a
    # CI machine's root disk held the loop devices' backing pages at 0.50)
    others = [b for b in j["bdis"] if b.get("share") and b["bdi"] not in writers
              and not b.get("reclaimable") and not b.get("writeback")]
    line = f"sample {i}: {tot:.3f} " + " ".join(f"{b['bdi']}:{b['share']:.3f}" for b in j["bdis"] if b.get("share"))
    if tot > 1.02 and len(others) >= 2:
        bad.append(line)
    elif tot > 1.02:
        lone.append(line)
print(f"{sys.argv[4]}: shares' sums, samples 5-{i}: {min(sums):.3f}-{max(sums):.3f}")
# not fixed (see the report): one device read at the floor, alone in its sample, while
# the dirty pages moved more than 1/128 of the floor since the vmstat read
for x in lone:
    print("KNOWN (one device at the floor):", x[:400])
for x in bad:
    print("FAIL:", x[:400])
sys.exit(1 if bad else 0)
PY
}
rc=0
for slow in "" 20; do
	WBTOP_BDI_SLOW_US=$slow timeout 60 "$WBTOP" --batch --json -n 30 -d 1 --no-trace > "$TMP/j" 2> "$TMP/err" ||
		{ cat "$TMP/err"; fail "wbtop"; }
	[ -n "${WB_KEEP:-}" ] && [ -d "$WB_KEEP" ] && cp "$TMP/j" "$WB_KEEP/share_sum${slow:+-slow$slow}.json"
	if [ -n "$slow" ]; then judge "reads backing off (WBTOP_BDI_SLOW_US=$slow)" || rc=1
	else judge "as read" || rc=1; fi
done
exit $rc
