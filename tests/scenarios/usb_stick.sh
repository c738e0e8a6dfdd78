#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's demo (examples/usb-stick.wbrec is made by this script with
# SCENARIO_RECORD_DIR): a 200 MB copy to a 5 MB/s "stick" next to a fast disk.
# dd returns long before the stick is done; wbtop's time-until-clean at that
# moment must match when the stick really becomes clean; a copy to the fast
# disk meanwhile is held up behind the stick, and wbtop shows it throttled.
. "$(dirname "$0")/lib.sh"
need_debugfs
save_sysctls
flusher_defaults
settle
device stick 512 ext4 5000000; STICK=$LOOP_BDI; SM=$LOOP_MNT
device disk 512 ext4 0; DISK=$LOOP_BDI; DM=$LOOP_MNT
echo $((80 << 20)) > /proc/sys/vm/dirty_bytes
echo $((40 << 20)) > /proc/sys/vm/dirty_background_bytes
observe_start usb-stick 100
sleep 3
(t=$(mono); dd if=/dev/zero of="$SM/copy" bs=1M count=200 status=none; echo "$t $(mono)" > "$TMP/stick.t") &
sleep 12
(t=$(mono); dd if=/dev/zero of="$DM/copy" bs=1M count=100 status=none; echo "$t $(mono)" > "$TMP/disk.t") &
observe_wait
wait
python3 - "$TMP/usb-stick.json" "$STICK" "$DISK" $(cat "$TMP/stick.t" "$TMP/disk.t") <<'PY'
import sys
from scen import *
s = load(sys.argv[1]); stick, disk = sys.argv[2:4]
t0, t1, d0, d1 = map(float, sys.argv[4:8])
start = s[0]["mono"]
print(f"dd to the stick: {t1 - t0:.1f} s (returned at t={t1 - start:.1f} s); to the disk: {d1 - d0:.1f} s")
at = min(s, key=lambda x: abs(x["mono"] - t1))
b = bdi(at, stick)
left = b["reclaimable"] + b["writeback"]
# clean: under 1 MiB left (a few metadata pages wait for their expiry)
clean = next((x["mono"] for x in s if x["mono"] > t1 and bdi(x, stick)["reclaimable"] + bdi(x, stick)["writeback"] < MB), None)
print(f"when dd returned the stick still held {left/MB:.0f} MiB; wbtop said clean in {b.get('drain_s', -1):.0f} s; "
      f"it was clean {clean - t1:.0f} s later" if clean else "the stick was never clean")
check(left > 20 * MB, "dd returns while the stick is still busy (over 20 MiB not yet written)")
check(clean is not None, "the stick becomes clean within the recording")
if clean:
    # CLEAN-IN is the time to write it all at the measured bandwidth; the
    # flusher stops at the background threshold and what is left waits for
    # its expiry (dirty_expire, then the next periodic pass): so the stick is
    # clean between CLEAN-IN and CLEAN-IN + expire + interval
    d, real = b.get("drain_s", -1), clean - t1
    check(0.5 * d <= real <= d + 30 + 5 + 2,
          f"the stick is clean {real:.0f} s after dd's return: between CLEAN-IN ({d:.0f} s) and "
          f"CLEAN-IN plus the expiry wait")
# the phenomenon of the seed threads: the disk has no writeout share yet and
# the stick holds the dirty limit, so the fast disk's writer is throttled too
dp = sum(bdi(x, disk).get("events", {}).get("pauses", 0) for x in s if d0 <= x["mono"] <= d1 + 1)
print(f"the disk's writer paused {dp} times during its copy")
check(dp > 0, "wbtop shows the fast disk's writer throttled behind the stick")
st = {bdi(x, stick)["state"] for x in s}
print(f"stick states: {sorted(st)}")
# which limit held the disk's writer, second by second during its copy, and
# what the disk wrote in the interval that followed
held = [(x, s[i + 1]) for i, x in enumerate(s[:-1]) if d0 <= x["mono"] <= d1]
for h in ("global", "device"):
    xs = [nx for x, nx in held if bdi(x, disk).get("held_by") == h]
    if xs:
        w = [bdi(nx, disk).get("written", 0) for nx in xs]
        print(f"the disk held by the {h} limit: {len(xs)} samples, wrote {sum(w) / len(w) / MB:.1f} MiB/s on average in the next second")
done()
PY
