#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Cases no other test had, found by a hostile campaign on this kernel: btrfs
# followed by its block device, a fresh 1 MiB/s device's time until clean, a
# textfile path that is a FIFO, per-device figures unprivileged, the what-if
# on a device held at its max_ratio cap (writing, and gone quiet), --apply's report. Root; puts the machine back.
. "$(dirname "$0")/../kernel/lib.sh"
W=$WBTOP bugs=0
command -v setpriv >/dev/null || skip "needs setpriv"
bug() { echo "FAIL $*"; bugs=$((bugs + 1)); }
ok() { echo "ok $*"; }
need_debugfs; save_sysctls; save_journal; settle
echo $((200 * 1048576)) > /proc/sys/vm/dirty_bytes
# F7's devices' images written out first (LOOP_FILL): with sparse images the root disk
# completed about as many pages as the capped device wrote (taken to be the loop's writes into
# holes going through its page cache; not traced), a share the figures hide. The fill's own
# pages age out of the kernel's count before F7.
LOOP_FILL=1 make_loop qabg 100 ext4; BG_MNT=$LOOP_MNT

# F1: --until-clean on the block device of a btrfs says clean while btrfs-N holds dirty pages
LOOP_FILL=1 make_loop qabt 300 btrfs; BT_DEV=$LOOP_DEV BT_BDI=$LOOP_BDI BT_MNT=$LOOP_MNT
throttle "$LOOP_MM" 4194304
dd if=/dev/zero of="$BT_MNT/f" bs=1M count=40 status=none
left=$(awk '/BdiReclaimable/{print $2}' /sys/kernel/debug/bdi/$BT_BDI/stats)
if "$W" --until-clean "$BT_DEV" -n 2 > "$TMP/f1" 2>&1 && [ "$left" -gt 1024 ]; then
	bug "F1: --until-clean $BT_DEV exited 0 ($(tr '\r' '\n' < "$TMP/f1" | tail -1)) while $BT_BDI holds ${left} kB"
else
	ok "F1: --until-clean $BT_DEV follows $BT_BDI"
fi

# F2: a fresh slow device (1 MiB/s): no time from the kernel's unmeasured 100 MiB/s start value;
# a time, when given, is not under half the real one
make_loop qaslow 300 xfs; SLOW_DEV=$LOOP_DEV
throttle "$LOOP_MM" 1048576
dd if=/dev/zero of="$LOOP_MNT/f" bs=1M count=12 status=none
start=$(date +%s)
timeout 120 "$W" --until-clean "$SLOW_DEV" -n 100 > "$TMP/f2" 2>&1
took=$(( $(date +%s) - start ))
first=$(tr '\r' '\n' < "$TMP/f2" | grep -o 'clean in[: ][^(]*' | grep -v measuring | head -1)
secs=$(echo "$first" | sed -nE 's/^clean in ~?([0-9]+)s.*/\1/p')
if [ -n "$secs" ] && [ $((secs * 2)) -lt "$took" ]; then
	bug "F2: first estimate '$first', clean after ${took}s"
elif [ -z "$secs" ] && ! echo "$first" | grep -q 'unknown'; then
	bug "F2: first estimate '$first' is neither a time nor unknown (clean after ${took}s)"
else
	ok "F2: first estimate '$first', clean after ${took}s"
fi

# F3: --openmetrics-file renames over a path that is not a regular file (here a FIFO)
mkfifo "$TMP/fifo"
"$W" --batch --no-trace -n 1 --openmetrics-file "$TMP/fifo" > /dev/null 2>&1
[ -p "$TMP/fifo" ] && ok "F3: the FIFO is left alone" || bug "F3: --openmetrics-file replaced a FIFO with a regular file"

# F4: without root, per-device THRESH is a figure (share taken as 0), not '-'
root_t=$("$W" --batch --no-trace --json -n 1 | python3 -c 'import json,sys; print({b["bdi"]:b.get("kernel_thresh") for b in json.load(sys.stdin)["bdis"]}["'"$BT_BDI"'"])')
user_t=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$W" --batch --json -n 1 2>/dev/null |
	python3 -c 'import json,sys; print({b["bdi"]:b.get("thresh") for b in json.load(sys.stdin)["bdis"]}["'"$BT_BDI"'"])')
[ "$user_t" = None ] && ok "F4: unprivileged THRESH unknown" || bug "F4: unprivileged thresh $user_t, kernel's $root_t"

# F6: --apply's report: one line per knob it changed (not max_ratio_fine again for max_ratio), a row
# for the btrfs device it names, and not every device for a few pages of per-CPU counter difference
save_bdi "$BT_BDI"
# a value other than the one in force (a machine set to 5 already: no change to report)
BR=5; [ "$(cat /proc/sys/vm/dirty_background_ratio)" = 5 ] && BR=7
"$W" --set "bdi.$BT_BDI.max_ratio=50" --set vm.dirty_background_ratio=$BR --apply --trial 1 < /dev/null > "$TMP/f6" 2>&1
nrows=$(grep -cE '^(7|253|254|259|8):[0-9]+ ' "$TMP/f6")
if ! grep -qE "^bdi\.$BT_BDI\.max_ratio +[0-9]+ -> 50$" "$TMP/f6" || grep -q "max_ratio_fine" "$TMP/f6" ||
   ! grep -qE "^vm\.dirty_background_ratio +[0-9]+ -> $BR\$" "$TMP/f6" ||
   ! grep -qE "^$BT_BDI \($(basename "$BT_DEV")\) " "$TMP/f6" || [ "$nrows" -gt 2 ]; then
	bug "F6: --apply report: $(cat "$TMP/f6")"
else
	ok "F6: --apply reports each changed knob once and the btrfs device's row ($nrows other rows)"
fi

# F5: a capped device (max_ratio) gets share 0 in the what-if: strict_limit predicts a collapse.
# The floor alone reaches the cap here, so the kernel's figure hides the share: the model judges
# it by what the device completed over the samples before (3 s, as the UI has them); one sample
# has only its pages to go by, which the writer's truncate can drain to none (a CI run).
save_bdi "$BT_BDI"
bg_job bash -c "while :; do dd if=/dev/zero of=$BT_MNT/g bs=1M count=100 status=none; done"
sleep 6
echo 3 > /sys/class/bdi/$BT_BDI/max_ratio
"$W" --batch --no-trace --json -n 4 -d 1 --set "bdi.$BT_BDI.strict_limit=1" > "$TMP/f5.all"
echo 1 > /sys/class/bdi/$BT_BDI/strict_limit
kern=$(awk '/BdiDirtyThresh/{print $2 * 1024}' /sys/kernel/debug/bdi/$BT_BDI/stats)
tail -1 "$TMP/f5.all" > "$TMP/f5.json"
pred=$(python3 -c 'import json,sys; print([b["thresh"] for b in json.load(open(sys.argv[1]))["whatif"]["bdis"] if b["bdi"]=="'"$BT_BDI"'"][0])' "$TMP/f5.json")
kill -- -"$BG_PID" 2>/dev/null
python3 -c "import sys; p,k=$pred,$kern; sys.exit(0 if abs(p-k) <= 0.02*k + 131072 else 1)" &&
	ok "F5: strict_limit on a capped device: predicted $pred, kernel $kern" ||
	{ bug "F5: strict_limit on a capped device: predicted $pred, kernel $kern"
	  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("  the device now:", [b for b in j["bdis"] if b["bdi"]==sys.argv[2]])' "$TMP/f5.json" "$BT_BDI"; }
# F7: the same device written, drained and quiet under wbtop's watch while another device writes
# on, then everyone quiet, so that the kernel's shares stand still from wbtop's last sample to
# the read of its figure. The other device's steady writes keep the kernel's count of completions
# at thousands of pages; on an idle machine it decays to a handful, each device's part is read
# within its per-CPU slack, several show the whole, and no figure decides a hidden share: not
# judged. The share is then between the floor and the cap.
echo 0 > /sys/class/bdi/$BT_BDI/strict_limit
wait "$BG_PID" 2>/dev/null
BT_MM=$(cat /sys/class/block/$(basename "$BT_DEV")/dev)
rm -f "$BT_MNT/g"
echo "$BT_MM 0" > /sys/fs/cgroup/blkio/blkio.throttle.write_bps_device # F5's leftovers written at full speed
sync -f "$BT_MNT"
echo "$BT_MM 4194304" > /sys/fs/cgroup/blkio/blkio.throttle.write_bps_device
bg_job bash -c "while :; do dd if=/dev/zero of=$BG_MNT/bg bs=1M count=8 status=none; sync -f $BG_MNT; sleep 0.05; done"
sleep 4
"$W" --batch --no-trace --json -n 60 -d 1 --set "bdi.$BT_BDI.strict_limit=1" > "$TMP/f7.all" &
F7_PID=$!
sleep 1
dd if=/dev/zero of="$BT_MNT/h" bs=1M count=24 conv=fsync status=none
sleep 1.5
kill -- -"$BG_PID" 2>/dev/null; wait "$BG_PID" 2>/dev/null; sync -f "$BG_MNT"
sleep 2.5
kill -INT "$F7_PID"; wait "$F7_PID"
echo 1 > /sys/class/bdi/$BT_BDI/strict_limit
kern=$(awk '/BdiDirtyThresh/{print $2 * 1024}' /sys/kernel/debug/bdi/$BT_BDI/stats)
tail -1 "$TMP/f7.all" > "$TMP/f7.json"
pred=$(python3 -c 'import json,sys; print([b["thresh"] for b in json.load(open(sys.argv[1]))["whatif"]["bdis"] if b["bdi"]=="'"$BT_BDI"'"][0])' "$TMP/f7.json")
# within 0.1 % of the threshold more than F5: the kernel reads its counts (the whole and two
# devices' parts) without their per-CPU remainders, 32 pages each on 2 CPUs, of ~100k pages here
# (a named loosening: the runs that failed at F5's bound were 0.1-0.2 % of T off)
T7=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["global"]["thresh"])' "$TMP/f7.json")
# how the model took the hidden share (read from the others' figures, or replayed): said, not judged
how7=$(python3 -c 'import json,sys; print([b.get("share_hidden", "-") for b in json.load(open(sys.argv[1]))["bdis"] if b["bdi"]=="'"$BT_BDI"'"][0])' "$TMP/f7.json")
python3 -c "import sys; p,k,t=$pred,$kern,$T7; sys.exit(0 if abs(p-k) <= 0.02*k + 131072 + 0.001*t else 1)" &&
	ok "F7: strict_limit on a capped device gone quiet: predicted $pred, kernel $kern (share $how7)" ||
	{ bug "F7: strict_limit on a capped device gone quiet: predicted $pred, kernel $kern (share $how7)"
	  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("  the device now:", [b for b in j["bdis"] if b["bdi"]==sys.argv[2]])' "$TMP/f7.json" "$BT_BDI"; }
echo "$bugs failed"
[ "$bugs" = 0 ]
