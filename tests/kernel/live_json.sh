#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: --json against the kernel's own files, with three loop devices
# mounted and a writer on one of them.
. "$(dirname "$0")/lib.sh"
need_debugfs
make_loop a 200 ext4; A=$LOOP_MM; AM=$LOOP_MNT; AD=$(basename $LOOP_DEV)
make_loop b 200 ext4; B=$LOOP_MM
make_loop c 320 xfs; C=$LOOP_MM; CM=$LOOP_MNT

# 1. thresholds, dirty and writeback equal /proc/vmstat read just before and
#    after the sample, whenever the kernel's figures did not move in between
#    (memory drifts on this VM: a moving pair proves nothing either way). A
#    figure can also move and come back between the two reads (a CI run:
#    35 pages off with both reads equal): such mismatches are tolerated while
#    they are fewer than the matches - wbtop reading wrong would miss every time.
#    While wbtop reads, its memory and its launcher's are not free: its
#    thresholds may be lower by their ratios of that memory (the sanitizer
#    build: 188-462 pages lower in 4 of 4 misses of two CI runs).
#    Quiet samples are rarer under the sanitizers: the process's own memory
#    moves free pages and with them the thresholds (8 of 30 samples held
#    still with the address sanitizer, 26 of 30 without, on an idle VM), so
#    the search runs for up to 60 s, not a number of tries.
vm() { awk '/^nr_dirty_threshold |^nr_dirty_background_threshold |^nr_dirty |^nr_writeback /{printf "%s ", $2}' /proc/vmstat; }
stable=0 missed=0 until=$((SECONDS + 60))
while [ $SECONDS -lt $until ]; do
	v0=$(vm)
	# run by python for the memory it and wbtop held (in KiB): theirs while wbtop reads is not
	# free, so the kernel's thresholds are that much lower then than at the reads around it
	held=$(python3 - "$TMP/q.json" "$WBTOP" <<'PY'
import resource, subprocess, sys
with open(sys.argv[1], "w") as o:
    rc = subprocess.run([sys.argv[2], "--batch", "--json", "-n", "1", "--no-procs", "--no-trace"],
                        stdout=o, stderr=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss + resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
      if rc == 0 else -1)
PY
)
	v1=$(vm)
	[ "$held" -ge 0 ] || fail "wbtop rc"
	[ "$v0" = "$v1" ] || { sleep 0.2; continue; }
	python3 - $TMP/q.json "$held" $(cat /proc/sys/vm/dirty_ratio /proc/sys/vm/dirty_background_ratio) $v0 <<'PY' || { missed=$((missed + 1)); continue; }
import json, sys
d = json.load(open(sys.argv[1])); g = d["global"]; P = d["page_size"]
held, ratio, bg_ratio = int(sys.argv[2]) * 1024 // P, int(sys.argv[3]), int(sys.argv[4])
dirty, wb, thr, bg = (int(x) for x in sys.argv[5:9])   # /proc/vmstat order
got = (g["dirty"] // P, g["writeback"] // P, g["kernel_thresh"] // P, g["kernel_bg_thresh"] // P)
# lower by no more than the ratios of the memory wbtop and python held (the sanitizer build's
# wbtop: 188-462 pages under, in two CI runs); equal otherwise
below = lambda k, v, r: 0 <= v - k <= held * r // 100 + 2
assert got[:2] == (dirty, wb) and below(got[2], thr, ratio) and below(got[3], bg, bg_ratio), (got, (dirty, wb, thr, bg), held)
assert g["thresh"] == g["kernel_thresh"] and g["bg_thresh"] == g["kernel_bg_thresh"], g  # the model
PY
	stable=$((stable + 1))
	[ $stable = 3 ] && break
done
[ $((stable + missed)) -ge 1 ] || fail "the kernel's figures never held still for one sample"
# wbtop reading wrong would miss every time; memory that moved and came back misses now and then
# (a CI run beside the sanitizer fuzzers: two misses in a row, 188-376 pages, where it had
# tolerated one: a named loosening to "matched more often than missed")
[ $stable -gt $missed ] || fail "wbtop disagrees with /proc/vmstat in $missed quiet samples, agrees in $stable"
echo "matched /proc/vmstat in $stable quiet samples (thresholds no lower than the memory wbtop held explains; $missed mismatches tolerated)"

# 2. a writer: every loop BDI appears with dev, mount and debugfs figures
bg_job dd if=/dev/zero of=$AM/f bs=1M count=150 status=none
sleep 1
"$WBTOP" --batch --json -n 3 -d 0.5 > $TMP/w.json 2>$TMP/err || fail "wbtop rc $?"
python3 - $TMP/w.json $A $B $C $AD $AM $CM <<'PY' || fail "loop BDIs"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 3
A, B, C, AD, AM, CM = sys.argv[2:8]
seen_dirty = 0
for l in lines:
    d = json.loads(l)
    assert d["level"] >= 2
    b = {x["bdi"]: x for x in d["bdis"]}
    for mm in (A, B, C):
        assert mm in b, mm
        assert "reclaimable" in b[mm] and "writeback" in b[mm] and "kernel_thresh" in b[mm]
    assert b[A]["dev"] == AD and b[A]["mounts"] == [AM] and b[A]["fstype"] == "ext4"
    assert b[C]["mounts"] == [CM] and b[C]["fstype"] == "xfs"
    seen_dirty = max(seen_dirty, b[A]["reclaimable"] + b[A]["writeback"])
    g = d["global"]
    assert abs(g["thresh"] - g["kernel_thresh"]) <= 4 * d["page_size"], g
assert seen_dirty > 0, "writer's BDI never showed dirty pages"
print("writer BDI peak dirty+writeback", seen_dirty)
PY
echo "2 passed, 0 failed"
