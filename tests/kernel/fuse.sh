#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: a FUSE mount's BDI (bindfs over a tmpfs directory, so the FUSE device
# is the one writing back), which the kernel sets to strict_limit and a
# max_ratio of 1 % (kernel-notes.md), written through a shared mmap (FUSE
# without its writeback cache dirties page-cache pages only that way):
# - wbtop lists it by its anonymous MAJ:MIN with its mount, fstype fuse,
#   strict_limit 1 and max_ratio 1;
# - while it is written, the model's threshold is the kernel's (within the
#   per-CPU counters' slack and 1 %) in every sample that read it;
# - a what-if of max_ratio 5 (its share is held at the 1 % cap: it writes
#   back far more than anyone) predicts the threshold the kernel shows a
#   second or more after the change, within 10 %, in the instant what-if and
#   in the what-if forecast's first 5 s (the instant one kept the held share
#   before: 47M where the kernel showed 235M).
# The machine is left as found (lib.sh): the mount, the knobs, the sysctls.
. "$(dirname "$0")/lib.sh"
command -v bindfs >/dev/null || skip "needs bindfs"
[ -c /dev/fuse ] || skip "no /dev/fuse"
grep -qw fuse /proc/filesystems || skip "no fuse in this kernel"
need_debugfs
save_sysctls
flusher_defaults
# the ratios the figures below were measured with, whatever the machine had
echo 20 > /proc/sys/vm/dirty_ratio
echo 10 > /proc/sys/vm/dirty_background_ratio
settle
SRC=$(mktemp -d /dev/shm/wbtop-test-fuse.XXXXXX) || fail "mktemp in /dev/shm"
at_exit "rm -rf $SRC"
MNT=$TMP/fmnt
mkdir -p "$MNT"
bindfs "$SRC" "$MNT" || skip "bindfs cannot mount here"
at_exit "fusermount -u $MNT || umount -l $MNT"
B=$(mountpoint -d "$MNT") || fail "no MAJ:MIN for $MNT"
[ -d /sys/class/bdi/$B ] || fail "no BDI $B for the FUSE mount"
save_bdi "$B"
[ "$(cat /sys/class/bdi/$B/strict_limit)" = 1 ] || skip "this kernel's FUSE BDI is not strict_limit"

# a writer through a shared mapping, for 45 s
cat > $TMP/mmapw.py <<'PY'
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
size = 256 << 20
os.ftruncate(fd, size)
m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
end, page = time.time() + float(sys.argv[2]), b"w" * 4096
while time.time() < end:
    for off in range(0, size, 4096 * 64):
        m[off:off + 4096] = page
    for off in range(0, size, 4096):
        m[off:off + 4096] = page
m.close()
PY
bg_job python3 $TMP/mmapw.py "$MNT/f" 45
sleep 5
"$WBTOP" --batch --json -n 6 -d 1 --no-procs --forecast 5 --set bdi.$B.max_ratio=5 > $TMP/pred 2> $TMP/pred.err ||
	{ cat $TMP/pred.err; fail "wbtop (prediction): rc $?"; }
echo 5 > /sys/class/bdi/$B/max_ratio || fail "max_ratio 5 on $B"
"$WBTOP" --batch --json -n 8 -d 1 --no-procs > $TMP/after 2> $TMP/after.err ||
	{ cat $TMP/after.err; fail "wbtop (after): rc $?"; }
python3 - "$TMP" "$B" "$MNT" <<'PY' || fail "the FUSE device was not shown, or its thresholds were off"
import json, sys
d, bdi, mnt = sys.argv[1:]
rows = lambda f: [json.loads(l) for l in open(d + "/" + f) if l.strip()]
pred, after = rows("pred"), rows("after")
dev = lambda r: next((b for b in r["bdis"] if b["bdi"] == bdi), None)
fails = 0
def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok
M = 1 << 20
first = dev(pred[0])
check(first is not None, "%s listed" % bdi)
if first is None:
    sys.exit(1)
check(first.get("fstype") == "fuse" and mnt in (first.get("mounts") or []),
      "fstype %s, mounts %s" % (first.get("fstype"), first.get("mounts")))
check(first.get("strict_limit") in (1, True) and first.get("max_ratio") == 1,
      "strict_limit %s, max_ratio %s" % (first.get("strict_limit"), first.get("max_ratio")))
# the model against the kernel, every sample of both runs that read its figure
slack = 32 * 4096 * 2
for r in pred + after:
    b = dev(r)
    if b and b.get("kernel_thresh") is not None and b.get("thresh") is not None:
        k, m = b["kernel_thresh"], b["thresh"]
        check(abs(m - k) <= max(slack, k / 100), "model %.1fM, kernel %.1fM (max_ratio %s)" % (m / M, k / M, b["max_ratio"]))
written = sum(1 for r in pred if (dev(r) or {}).get("reclaimable", 0) + (dev(r) or {}).get("writeback", 0) > 0)
check(written >= 3, "written while predicted: %d of %d samples with pages" % (written, len(pred)))
# the kernel a second and more after the change
truth = [dev(r)["kernel_thresh"] for r in after[1:] if dev(r) and dev(r).get("kernel_thresh")]
check(len(truth) >= 5, "%d samples of the kernel's threshold after the change" % len(truth))
if not truth:
    sys.exit(1)
k = sorted(truth)[len(truth) // 2]
last = pred[-1]
wi = next((b for b in last.get("whatif", {}).get("bdis", []) if b["bdi"] == bdi), None)
check(wi is not None and abs(wi["thresh"] - k) <= k / 10,
      "what-if threshold %.1fM, the kernel's after %.1fM (median of %d)" % ((wi or {"thresh": 0})["thresh"] / M, k / M, len(truth)))
fc = next((b for b in last.get("whatif", {}).get("forecast", {}).get("bdis", []) if b["bdi"] == bdi), None)
check(fc is not None and all(abs(x - k) <= k / 10 for x in fc["thresh"][:5]),
      "what-if forecast %s M" % ([round(x / M, 1) for x in (fc or {"thresh": []})["thresh"][:5]]))
sys.exit(1 if fails else 0)
PY
echo "PASS"
