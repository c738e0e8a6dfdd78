#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The process table reads a process whose write counters stand still less
# often (src/collect/procs.c). Nothing it writes may be lost: a sleeper that
# wakes to write a little is listed within 8 samples with all its bytes (so
# is one that only read until then: its read counters move), and
# one that wakes to write a lot (more than the processes read explain of
# /proc/vmstat's nr_dirtied) is listed at once. Writes to a disk file
# system (page cache), no root needed.
set -u
W=${WBTOP:?}
D=$(mktemp -d "${MESON_BUILD_ROOT:-$PWD}/procs-sleepers.XXXXXX") || exit 1
PIDS=
trap 'for p in $PIDS; do pkill -P $p 2>/dev/null; done; kill $PIDS 2>/dev/null; wait 2>/dev/null; rm -rf "$D"' EXIT
case $(stat -f -c %T "$D") in
tmpfs|ramfs) echo "SKIP: $D is on $(stat -f -c %T "$D") (no write accounting)"; exit 77 ;;
esac
# sleeper SECONDS KiB [read]: sleeps (or reads a small file 10 times a second),
# writes KiB in one write, notes the wall time, sleeps on.
# -S -B: no site imports (.pth files) and no bytecode written: whatever the
# interpreter writes while starting is counted as the sleeper's (a run under
# load listed 538 KiB for the 512 written; its note file adds one page, 4 KiB)
sleeper() {
	python3 -S -B -c "
import os, sys, time
data = b'x' * ($2 << 10)
end = time.time() + $1
while '${3:-}' == 'read' and time.time() < end:
    open('/proc/self/stat').read()
    time.sleep(0.1)
time.sleep(max(0, end - time.time()))
fd = os.open('$D/f$2', os.O_WRONLY | os.O_CREAT)
os.write(fd, data)
os.close(fd)
open('$D/t$2', 'w').write('%d %f' % (os.getpid(), time.time()))
time.sleep(60)" &
	PIDS="$PIDS $!"
}
# beside them a writer around the page cache (O_DIRECT, a new dd every
# 64 MiB): its write_bytes dirty no pages, and counted as explaining
# nr_dirtied they hid the 32 MiB write from the sweep for 2-6 samples; so did
# the loop's shell, which takes each reaped dd's 64 MiB into its own counts
if dd if=/dev/zero of="$D/direct" bs=1M count=1 oflag=direct status=none 2>/dev/null; then
	(while :; do dd if=/dev/zero of="$D/direct" bs=1M count=64 oflag=direct status=none; sleep 0.5; done) &
	PIDS="$PIDS $!"
else
	echo "note: O_DIRECT not supported here: no direct writer beside the sleepers"
fi
sleeper 9 512       # a little: under the 4 MiB nr_dirtied margin
sleeper 11 32768    # a lot
sleeper 10 640 read # a little, after reading for 10 s
"$W" --batch --json -n 90 -d 0.2 --no-trace >"$D/out" 2>"$D/err" || { echo "FAIL: wbtop: $(cat "$D/err")"; exit 1; }
python3 - "$D" <<'PY'
import json, sys
d = sys.argv[1]
samples = [json.loads(l) for l in open(d + "/out")]
fails = 0
# the first sample after the write: late 1; a sleeper read every 8th sample: up to 8
for kib, late_max in ((512, 8), (32768, 1), (640, 8)):
    try:
        pid, t = open("%s/t%d" % (d, kib)).read().split()
    except OSError:
        # its write held past the run: something else on the machine keeps the
        # dirty level at its limit (a kernel test's lowered vm.dirty_bytes)
        print("FAIL: the %d KiB writer had not written by the end of the run" % kib); fails += 1; continue
    pid, t = int(pid), float(t)
    got, first = 0.0, None
    for prev, s in zip(samples, samples[1:]):
        for p in s.get("procs") or []:
            if p["pid"] == pid and p["write_rate"] > 0:
                got += p["write_rate"] * (s["mono"] - prev["mono"])
                first = first if first is not None else s
    if first is None:
        print("FAIL: the %d KiB writer (pid %d) was never listed" % (kib, pid)); fails += 1; continue
    late = sum(1 for s in samples if t < s["time"] <= first["time"])
    print("%d KiB writer: listed %d sample(s) after its write ended, %.0f KiB in all" % (kib, late, got / 1024))
    if late > late_max:
        print("FAIL: listed %d samples after it wrote (at most %d)" % (late, late_max)); fails += 1
    # 5 %, and 32 KiB at least: the file system's metadata pages the write dirties are
    # the writer's too (a run beside another test listed 540 KiB for the 512 written)
    if abs(got / 1024 - kib) > max(0.05 * kib, 32):
        print("FAIL: %.0f KiB listed, %d written" % (got / 1024, kib)); fails += 1
sys.exit(1 if fails else 0)
PY
[ $? = 0 ] || exit 1
echo "1 passed, 0 failed"
