#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Seed 3 (distribute dirty pages fairly across zones, 2011): one linear writer
# to a 5 MB/s "stick", on ext4, xfs and btrfs in turn. wbtop must show each
# node's dirty pages against the node's limit, the writeback on the BDI that
# really does it (btrfs: its own btrfs-N), and reclaim writing pages itself
# (nr_vmscan_write), which stays near zero on current kernels.
if [ $# = 0 ]; then
	rc=0 ran=0
	for fs in ext4 xfs btrfs; do
		echo "== $fs"
		"$0" "$fs"; r=$?
		case $r in 0) ran=$((ran + 1)) ;; 77) ;; *) rc=1 ;; esac
	done
	[ $rc = 0 ] && [ $ran = 0 ] && exit 77
	exit $rc
fi
FS=$1
. "$(dirname "$0")/lib.sh"
need_debugfs
save_sysctls
flusher_defaults
settle
device "stick-$FS" 768 "$FS" 5000000
echo $((128 << 20)) > /proc/sys/vm/dirty_bytes
echo $((48 << 20)) > /proc/sys/vm/dirty_background_bytes
bg_job dd if=/dev/zero of="$LOOP_MNT/big" bs=1M count=600 status=none
observe "zone-fair-$FS" 30 --no-procs
python3 - "$TMP/zone-fair-$FS.json" "$LOOP_BDI" <<'PY'
import sys
from scen import *
s = load(sys.argv[1]); dev = sys.argv[2]
late = s[5:]
print(f"BDI seeing the writeback: {dev}")
for n in sorted({nd['node'] for x in s for nd in x['nodes']}):
    nd = [next(v for v in x["nodes"] if v["node"] == n) for x in late]
    d = [v["dirty"] + v["writeback"] for v in nd]
    over = sum(v["over"] for v in nd)
    print(f"node {n}: dirty+writeback median {median(d)/MB:.0f} MiB, max {max(d)/MB:.0f} MiB; "
          f"node limit median {median([v['thresh'] for v in nd])/MB:.0f} MiB; over its share in {over}/{len(nd)} samples")
    check(all("thresh" in v and "dirty" in v for v in nd), f"node {n}: dirty and limit shown every sample")
    check(over == sum((v["dirty"] + v["writeback"]) > v["thresh"] for v in nd) or over == sum(v["dirty"] > v["thresh"] for v in nd),
          f"node {n}: flagged over exactly when its dirty pages pass its limit")
rec = [bdi(x, dev) for x in late]
busy = sum(1 for b in rec if b and b.get("reclaimable", 0) + b.get("writeback", 0) > 0)
check(busy >= 0.9 * len(late), f"{dev} carries the dirty pages ({busy}/{len(late)} samples)")
wr = mean(series(late, dev, "written", 0))
# xfs completes the stick's writeback in bursts of ~20 MB (a whole bio at
# once), so 25 s hold 4 to 6 of them: on xfs 2.9, 3.1, 4.4 and 4.9 MB/s in
# four runs of 2026-12-02. Busy, and never over the throttle.
check(2e6 < wr < 7e6, f"{dev} writes {wr/1e6:.1f} MB/s (throttled at 5)")
vw = sum(x["global"].get("vmscan_write_rate", 0) for x in late)
gw = sum(x["global"].get("written_rate", 0) for x in late)
print(f"reclaim wrote {vw/4096:.0f} pages itself against {gw/4096:.0f} written in all")
check(vw <= 0.01 * gw, "reclaim writeback (nr_vmscan_write) stays near zero")
done()
PY
