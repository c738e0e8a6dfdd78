#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Seed 4 (writeback cache thrashing, 2012-13): a heavy writer on a 20 MB/s
# "HDD" and a small read-1M/rewrite-1M/sleep-2s loop on a "flash" device.
# While the global background test holds, the flash device's flusher is woken
# and writes its few dirty pages: wbtop must count those wakeups and show the
# flash device's reclaimable pages at each. Then min_ratio=5 on the flash
# device: wbtop predicts the change of its thresholds before it is applied
# (wbtop --set ... --apply), and the observed change must agree in direction
# and, within 30 %, in size.
. "$(dirname "$0")/lib.sh"
need_debugfs
save_sysctls
flusher_defaults
settle
device hdd 1024 ext4 20000000; HDD=$LOOP_BDI; HM=$LOOP_MNT
device flash 256 ext4 0; FL=$LOOP_BDI; FM=$LOOP_MNT
save_journal; export WBTOP_JOURNAL=$JOURNAL # as root the journal is always $JOURNAL
# a background threshold well below where the HDD's dirty pages settle (the
# blkio queue holds much of them in writeback, which the global test ignores)
echo $((200 << 20)) > /proc/sys/vm/dirty_bytes
echo $((50 << 20)) > /proc/sys/vm/dirty_background_bytes
dd if=/dev/zero of="$FM/small" bs=1M count=1 status=none; sync -f "$FM"
writer_loop "$HM/big" 800
bg_job bash -c "while :; do dd if='$FM/small' of=/dev/null bs=1M status=none; dd if=/dev/zero of='$FM/small' bs=1M count=1 conv=notrunc status=none; sleep 2; done"
sleep 5
# 90 samples, of which the first 23 after the change are judged: in a whole
# CI run the prediction below came 10-16 s late (its samples late under the
# sanitizers), and a fixed 65 left 7-11 samples after the change; 18 s
# before the prediction's 22 samples (with 25 and 16 the samples before
# the change were as many)
observe_start cache-thrash 90 --no-procs
sleep 18
# predicted over ten samples, as the change is observed over medians, and
# over the same seconds: the flash device's threshold swings with its writes
# (its share just after one of them, the idle floor (limit - dirty) / 8
# otherwise), and under min_ratio=5 its share fades: its 1 MiB stays under
# its background threshold (2.5 MiB) and waits for the periodic run. The
# writer rewrites the same 1 MiB, which the model must see (rewrite_set() in
# src/model/forecast.c): taken for a fresh 0.2-0.6 MiB/s writer its pages
# were forecast to pile up past that threshold, be flushed and keep its
# share (+9.4 and +10.3 MiB predicted against +6.5 observed in two CI runs,
# at 30 % a miss). The first twelve samples give the model the history to
# see it in (a span of 4 s or more holding the 1 MiB with nothing dirtied,
# its flush, and 1 MiB dirtied again right after); the Tune pane has 32.
# The point forecast only (WBTOP_FORECAST_MEMBERS=0; the band does not move
# it): in two whole CI runs 16 samples took 26-30 s, and the change came so
# late that 7-9 of a 65-sample recording were left after it.
WBTOP_FORECAST_MEMBERS=0 "$WBTOP" --batch --json -n 22 -d 1 --no-procs --forecast 40 --set "bdi.$FL.min_ratio=5" |
	tail -10 > "$TMP/predict.json" ||
	fail "prediction"
T0=$(mono)
"$WBTOP" --set "bdi.$FL.min_ratio=5" --apply > "$TMP/apply.txt" 2>&1 || { cat "$TMP/apply.txt"; fail "--apply"; }
cat "$TMP/apply.txt"
[ "$(cat /sys/class/bdi/$FL/min_ratio)" = 5 ] || fail "min_ratio not applied"
observe_wait
# SCEN_KEEP=DIR keeps the run and the predictions (to look into a miss)
[ -n "${SCEN_KEEP:-}" ] && cp "$TMP/cache-thrash.json" "$TMP/cache-thrash.wbrec" "$TMP/predict.json" "$SCEN_KEEP/"
python3 - "$TMP/cache-thrash.json" "$TMP/predict.json" "$T0" "$HDD" "$FL" <<'PY'
import sys
from scen import *
run, preds, t0 = load(sys.argv[1]), load(sys.argv[2]), float(sys.argv[3])
hdd, fl = sys.argv[4:6]
before = [x for x in run if x["mono"] < t0 - 1]
after = [x for x in run if x["mono"] > t0 + 1][:23]
print(f"{len(before)} samples before min_ratio=5, {len(after)} after")
wake = sum(bdi(x, fl).get("wakeups", 0) for x in before)
starts = sum(bdi(x, fl).get("events", {}).get("writeback_start", {}).get("background", 0) for x in before)
at = [e for x in before for e in x.get("events", {}).get("log", [])
      if e.get("bdi") == fl and e.get("kind") == "wake_background" and "reclaimable" in e]
print(f"flash {fl}: {wake} background wakeups, {starts} background writeback starts in {len(before)} s")
print("flash reclaimable at its wakeups (KiB): " + " ".join(str(e["reclaimable"] // 1024) for e in at[:20]))
# woken by a writer (writeback_wake_background) or finding the background test
# true on its own (writeback_start reason=background): either is the thrashing
check(wake + starts > 0, "the flash device's flusher does background writeback")
# the log is bounded (the HDD's pauses crowd it); the per-device counts are
# not: the reclaimable pages of the samples in which the flash device was woken
def bg_work(x):
    b = bdi(x, fl)
    return b.get("wakeups", 0) + b.get("events", {}).get("writeback_start", {}).get("background", 0)
woke = [bdi(x, fl)["reclaimable"] for x in before if bg_work(x) > 0]
print("flash reclaimable in the samples with background work (KiB): " + " ".join(str(r // 1024) for r in woke))
check(woke and median(woke) <= 4 * MB,
      "wbtop shows the flash device's (small) reclaimable pages when it writes in the background")
print(f"hdd {hdd}: {sum(bdi(x, hdd).get('wakeups', 0) for x in before)} wakeups")
# the change of each device's threshold: predicted before applying (the
# model's threshold now, and under min_ratio=5 its forecast at the seconds
# observed after the change; medians over the ten predicting samples),
# observed as the kernel's BdiDirtyThresh (medians, before and after)
def pm(dev, key, whatif):
    return median([{b["bdi"]: b for b in (x["whatif"] if whatif else x)["bdis"]}[dev][key] for x in preds])
lo, hi = after[5]["mono"], after[-1]["mono"]
def forecast_after(dev):
    out = []
    for x in preds:
        f = x["whatif"]["forecast"]
        th = {b["bdi"]: b for b in f["bdis"]}[dev]["thresh"]
        out += [v for i, v in enumerate(th) if lo <= x["mono"] + (i + 1) * f["step_s"] <= hi]
    return median(out)
for dev, name in ((fl, "flash"), (hdd, "hdd")):
    p = forecast_after(dev) - pm(dev, "thresh", False)
    o = median(series(after[5:], dev, "kernel_thresh")) - median(series(before[-10:], dev, "kernel_thresh"))
    print(f"{name} {dev} threshold: predicted change {p/MB:+.1f} MiB, observed {o/MB:+.1f} MiB "
          f"(at once {(pm(dev, 'thresh', True) - pm(dev, 'thresh', False))/MB:+.1f} MiB; background "
          f"threshold {pm(dev, 'bg_thresh', False)/MB:.1f} -> {pm(dev, 'bg_thresh', True)/MB:.1f} MiB)")
    if dev == fl:
        ok = p * o > 0 and abs(o - p) <= 0.3 * abs(p)
        check(ok, f"{name}: prediction and observation agree in direction and within 30 %")
        if not ok: # what a miss is made of, for the CI log
            print("  kernel threshold (KiB), last 10 before: " +
                  " ".join(str(v // 1024) for v in series(before[-10:], dev, "kernel_thresh")))
            print("  after: " + " ".join(str(v // 1024) for v in series(after, dev, "kernel_thresh")))
            print("  reclaimable (KiB) after: " + " ".join(str(v // 1024) for v in series(after, dev, "reclaimable")))
            for x in preds:
                f = {b["bdi"]: b for b in x["whatif"]["forecast"]["bdis"]}[dev]
                print(f"  predicted at {x['mono']:.1f}: demand {(f.get('demand') or 0) / 1024:.0f} KiB/s, threshold (KiB) " +
                      " ".join(str(int(v) // 1024) for v in f["thresh"][:25:2]))
wake2 = sum(bdi(x, fl).get("wakeups", 0) for x in after)
# reported, not judged: the model's forecast keeps the global background test
# and predicts no change here, while the kernel woke the flash flusher less
print(f"flash background wakeups per minute: {60*wake/len(before):.0f} before, "
      f"{60*wake2/len(after):.0f} after min_ratio=5")
done()
PY
