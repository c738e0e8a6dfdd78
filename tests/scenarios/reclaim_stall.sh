#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Seed 5 (congestion_wait after direct reclaim, 2009): a writer to a 5 MB/s
# device inside a 64 MiB cgroup-v1 memory cgroup, so reclaim meets its own
# dirty pages. wbtop must show reclaim throttled on writeback (by reason, with
# the time reclaimers were held, and whose allocations stalled), reclaim
# scanning, and flusher work started for reclaim (reason vmscan). The memcg may OOM-kill the writer on some
# filesystems: the writer is restarted and the kills are counted.
. "$(dirname "$0")/lib.sh"
need_debugfs
save_sysctls
flusher_defaults
settle
device stick 1024 ext4 5000000
memcg wbtop-test-reclaim $((64 << 20))
bg_job bash -c "while :; do bash -c 'echo \$\$ > $MEMCG/cgroup.procs; exec dd if=/dev/zero of=$LOOP_MNT/f bs=1M count=700 status=none'; done"
sleep 3
observe reclaim-stall 35
echo "memcg OOM kills: $(awk '/^oom_kill /{print $2}' $MEMCG/memory.oom_control 2>/dev/null || echo ?)"
python3 - "$TMP/reclaim-stall.json" "$LOOP_BDI" <<'PY'
import sys
from scen import *
s = load(sys.argv[1]); dev = sys.argv[2]
ev = [x.get("events", {}) for x in s[3:]]
thr = {}
for e in ev:
    for r, n in e.get("reclaim_throttled", {}).items():
        thr[r] = thr.get(r, 0) + n
delay = sum(e.get("reclaim_delay_us", 0) for e in ev)
vms = sum(bdi(x, dev).get("events", {}).get("writeback_start", {}).get("vmscan", 0) for x in s[3:])
g = [x["global"] for x in s[3:]]
scan = mean([x.get("pgscan_per_s", 0) for x in g]); steal = mean([x.get("pgsteal_per_s", 0) for x in g])
stall = sum(x.get("allocstall_per_s", 0) for x in g)
print(f"reclaim throttled by reason: {thr}; held {delay/1e6:.1f} s in all")
print(f"reclaim scanned {scan:.0f} pages/s, reclaimed {steal:.0f} pages/s; allocation stalls (global direct reclaim) {stall:.0f}")
print(f"flusher work for reclaim (writeback_start reason=vmscan) on {dev}: {vms}")
check(sum(thr.values()) > 0, "wbtop shows reclaim throttled, by reason")
check(thr.get("writeback", 0) > 0, "reclaimers are throttled on writeback (reason writeback)")
check(delay > 0, "wbtop shows how long the reclaimers were held")
check(scan > 0 and steal > 0, "wbtop shows reclaim scanning and reclaiming")
logged = [e for x in s for e in x.get("events", {}).get("log", []) if e["kind"] == "reclaim_throttled"]
check(len(logged) > 0, f"the event log lists reclaim throttling ({len(logged)} entries, e.g. "
      f"{logged[0] if logged else None})")
check(vms > 0, "reclaim asks the flusher to write (writeback_start reason=vmscan)")
# the allocations that stalled: whose were they? (a memcg-limit reclaim is not
# counted in the global allocstall counter; the event's pid says who waited)
dd = {p["pid"] for x in s for p in x.get("procs", []) if p["comm"] == "dd"}
who = {e["pid"] for e in logged}
print(f"stalled in reclaim: pids {sorted(who)}; writers (dd) in wbtop's process table: {sorted(dd)}")
check(who & dd, "the writer's own page-cache allocations are the ones stalled")
done()
PY
