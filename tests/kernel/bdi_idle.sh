#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: live, an idle BDI's debugfs wb_stats are read every 4th sample only
# (src/collect/bdi.c). Nothing may be lost: on two idle loop devices, a small
# write (2 MiB, under the 4 MiB of unexplained /proc/vmstat nr_dirtied)
# shows in its BDI's reclaimable within 4 samples, whole, and a large one
# (16 MiB) in the first sample after it ended - on three BDIs in turn, at
# other times in their turns: without the nr_dirtied check 1 in 64 would
# pass (16 MiB moves the kernel's threshold floor by 2 MiB, too little to
# have the BDIs read for that: under 1/128 of it). Between their reads, an idle
# BDI's kernel threshold is the kernel's floor worked out from the sample:
# on a third, never written, it stays within 2 % of its wb_stats file read
# beside wbtop (of either read around the sample: the floor moves between
# them). The machine is left as found (lib.sh).
. "$(dirname "$0")/lib.sh"
need_debugfs
settle
make_loop small 64 ext4; SMALL=$LOOP_BDI SMALL_MNT=$LOOP_MNT
LARGE=() LARGE_MNT=()
for i in 1 2 3; do make_loop large$i 64 ext4; LARGE+=($LOOP_BDI); LARGE_MNT+=($LOOP_MNT); done
make_loop quiet 64 ext4; QUIET=$LOOP_BDI
sync
# become idle (4 reads), then sit through a few turns before each write
"$WBTOP" --batch --json -n 60 -d 0.2 --no-trace --no-procs > $TMP/out 2> $TMP/err &
p=$!
# the third BDI's file beside wbtop, 10 times a second: time and threshold (kB)
python3 - /sys/kernel/debug/bdi/$QUIET/wb_stats > $TMP/side <<'PY' &
import sys, time
end = time.time() + 11
while time.time() < end:
    t = time.time()
    v = [l.split()[1] for l in open(sys.argv[1]) if l.startswith("WbDirtyThresh:")][0]
    print(t, v, flush=True)
    time.sleep(0.1)
PY
side=$!
at_exit "kill $side"
sleep 3.1
date +%s.%N > $TMP/t_small0
dd if=/dev/zero of=$SMALL_MNT/f bs=1M count=2 status=none
date +%s.%N > $TMP/t_small
for i in 0 1 2; do
	sleep 1.1
	date +%s.%N > $TMP/t_large${i}0
	dd if=/dev/zero of=${LARGE_MNT[i]}/f bs=1M count=16 status=none
	date +%s.%N > $TMP/t_large$i
done
wait $p || { cat $TMP/err; fail "wbtop: rc $?"; }
wait $side
python3 - $TMP $SMALL $QUIET ${LARGE[*]} <<'PY' || fail "an idle BDI's write was seen late, or not whole, or its threshold was off"
import json, os, sys
d, small, quiet, large = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
rows = [json.loads(l) for l in open(d + "/out")]
t = lambda n: float(open("%s/%s" % (d, n)).read())
fails = 0
writes = [(small, t("t_small0"), t("t_small"), 2048, 4)]
writes += [(bdi, t("t_large%d0" % i), t("t_large%d" % i), 16384, 1) for i, bdi in enumerate(large)]
for bdi, t0, t1, kib, late_max in writes:
    before = [r for r in rows if r["time"] < t0]
    after = [r for r in rows if r["time"] > t1]
    dev = lambda r: next(b for b in r["bdis"] if b["bdi"] == bdi)
    if len(before) < 8 or not after:
        print("FAIL: %s: %d samples before its write, %d after" % (bdi, len(before), len(after))); fails += 1; continue
    # idle before: nothing reclaimable beyond the wb counters' per-CPU batching (16
    # pages a CPU here): the count read is the shared part, which can sit a page
    # or more off zero while a CPU holds the rest (a CI run read 4 KiB on a device
    # just made, mounted and synced, and 2048 + 4 KiB after its 2 MiB write)
    if any((dev(r).get("reclaimable") or 0) > 64 * os.cpu_count() * 1024 for r in before):
        print("FAIL: %s: reclaimable before the write: %s KiB" %
              (bdi, max((dev(r).get("reclaimable") or 0) // 1024 for r in before))); fails += 1
    # whole: to the kernel's per-CPU batching of the wb counters (16 pages a CPU here), 5 % at least
    slack = max(0.05 * kib, 64 * os.cpu_count())
    seen = next((i for i, r in enumerate(after) if (dev(r).get("reclaimable") or 0) >= (kib - slack) * 1024), None)
    print("%s: %d KiB written, reclaimable (KiB) in the samples after: %s; seen whole in sample %s after" %
          (bdi, kib, [dev(r).get("reclaimable", 0) // 1024 for r in after[:6]], None if seen is None else seen + 1))
    if seen is None or seen + 1 > late_max:
        print("FAIL: %s: %d KiB seen whole %s sample(s) after the write (at most %d)" %
              (bdi, kib, "no" if seen is None else seen + 1, late_max)); fails += 1
side = [tuple(map(float, l.split())) for l in open(d + "/side")]
worst, compared, at = 0.0, 0, None
for i, r in enumerate(rows):
    if r["time"] > t("t_small0") - 0.3: # a write moves the floor by its pages (dirty): the quiet stretch only
        break
    k = next(b for b in r["bdis"] if b["bdi"] == quiet).get("kernel_thresh")
    # the file's reads on either side of the sample: the floor moves with the
    # global dirty count, so a move between them makes either one the truth
    # at some moment of the sample (a CI run: wbtop 863820 kB, the file 843208
    # 15 ms before and 863820 from its next read on)
    pre = [x for x in side if x[0] <= r["time"]]
    post = [x for x in side if x[0] > r["time"]]
    if k is None or not pre or not post or post[0][0] - pre[-1][0] > 0.25:
        continue
    lo, hi = min(pre[-1][1], post[0][1]), max(pre[-1][1], post[0][1])
    off = max(lo - k / 1024, k / 1024 - hi, 0) / lo
    s = pre[-1] if abs(k / 1024 - pre[-1][1]) <= abs(k / 1024 - post[0][1]) else post[0]
    if off > worst:
        worst, at = off, (i, k // 1024, s)
    compared += 1
print("%s (never written): kernel threshold within %.2f %% of the file read around it (%d samples)" %
      (quiet, worst * 100, compared))
if at and worst > 0.02:  # the file's figures around that sample, to tell a jump of the kernel's from a stale one of ours
    i, k, s = at
    print("  worst at sample %d: wbtop %d kB, the file %d kB %.3f s apart; the file then: %s" %
          (i, k, s[1], s[0] - rows[i]["time"], [int(x[1]) for x in side if abs(x[0] - s[0]) < 0.55]))
    print("  wbtop and the file (kB) at each sample from the start: %s" %
          [((next(b for b in x["bdis"] if b["bdi"] == quiet).get("kernel_thresh") or 0) // 1024,
            int(min(side, key=lambda y: abs(y[0] - x["time"]))[1])) for x in rows[:i + 3]])
if compared < 5:
    print("FAIL: %s: %d samples beside a read of its file (5 wanted)" % (quiet, compared)); fails += 1
if worst > 0.02:
    print("FAIL: %s: kernel threshold %.2f %% off" % (quiet, worst * 100)); fails += 1
sys.exit(1 if fails else 0)
PY
echo "ok 1 - idle BDIs: a small write seen within 4 samples, large ones at once, the threshold kept up"
