#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: a throttled loop "stick" (5 MB/s), vm.dirty_bytes lowered, a writer.
# wbtop's per-BDI counts of background wakeups, writeback starts and
# balance_dirty_pages pauses equal an independent count of the same events
# from a second tracefs instance read as text, over the same interval.
# Also: a user's own tracing in the top-level buffer is left as it was, and
# wbtop's instance is gone after it exits.
. "$(dirname "$0")/lib.sh"
need_debugfs
TR=/sys/kernel/tracing
[ -d $TR/instances ] || { mount -t tracefs none $TR && at_exit "umount $TR"; } || skip "no tracefs"
save_sysctls
make_loop stick 512 ext4; S=$LOOP_MM; SM=$LOOP_MNT
echo $((32 << 20)) > /proc/sys/vm/dirty_bytes
throttle $S $((5 << 20))

# a "user" tracer in the top-level buffer: one event enabled there
echo 1 > $TR/events/writeback/writeback_dirty_inode_enqueue/enable
at_exit "echo 0 > $TR/events/writeback/writeback_dirty_inode_enqueue/enable"

# the independent counter: a plain text instance
CHK=$TR/instances/wbtop-test-check
mkdir $CHK || fail "mkdir check instance"
at_exit "rmdir $CHK"
for e in writeback_wake_background writeback_start balance_dirty_pages; do
	echo 1 > $CHK/events/writeback/$e/enable
done
echo > $CHK/trace

"$WBTOP" --batch --json -n 0 -d 1 --no-procs > $TMP/w.json 2>$TMP/err &
WP=$!
at_exit "kill $WP 2>/dev/null; wait $WP 2>/dev/null"
# both tracers record from before the writer starts ...
# (wbtop's first sample means its instance is set up and its events enabled)
for i in $(seq 200); do [ -s $TMP/w.json ] && break; sleep 0.1; done
[ -d $TR/instances/wbtop-$WP ] || fail "wbtop made no trace instance"
sleep 1
dd if=/dev/zero of=$SM/f bs=1M count=60 status=none &
DD=$!
at_exit "kill $DD 2>/dev/null"
sleep 6
kill $DD 2>/dev/null; wait $DD 2>/dev/null
sync -f $SM
sleep 1
# ... and stop at the same moment; wbtop's next sample drains what is left
echo 0 > $CHK/tracing_on
echo 0 > $TR/instances/wbtop-$WP/tracing_on
sleep 2.5
kill -INT $WP; wait $WP || fail "wbtop rc $?"
cat $CHK/trace > $TMP/check.txt

python3 - $TMP/w.json $TMP/check.txt $S <<'PY' || fail "counts differ"
import json, re, sys
samples = [json.loads(l) for l in open(sys.argv[1])]
S = sys.argv[3]
assert all(d["level"] == 3 for d in samples), [d["level"] for d in samples]
# the first sample's drain covers wbtop's start; both tracers were running by then
got = {"wake": 0, "start": 0, "pause": 0}
for d in samples:
    b = {x["bdi"]: x for x in d["bdis"]}[S]
    got["wake"] += b["events"]["wake_background"]
    got["start"] += sum(b["events"]["writeback_start"].values())
    got["pause"] += b["events"]["pauses"]
    assert d["events"]["dropped"] == 0, ("dropped", d["events"]["dropped"])
want = {"wake": 0, "start": 0, "pause": 0}
for line in open(sys.argv[2]):
    if f"writeback_wake_background: bdi {S}:" in line: want["wake"] += 1
    elif f"writeback_start: bdi {S}:" in line: want["start"] += 1
    elif f"balance_dirty_pages: bdi {S}:" in line:
        m = re.search(r" pause=(-?\d+)", line)
        want["pause"] += int(m.group(1)) > 0
print("wbtop", got, "independent", want)
assert got["pause"] > 0 and got["wake"] > 0, "the scenario produced no throttling or wakeups"
assert got == want
PY
[ "$(cat $TR/events/writeback/writeback_dirty_inode_enqueue/enable)" = 1 ] || fail "wbtop disturbed the top-level tracer"
ls $TR/instances | grep -q "^wbtop-[0-9]" && fail "wbtop's instance left behind"
echo "1 passed, 0 failed"
