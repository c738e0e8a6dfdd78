#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --until-clean on the shipped USB-stick recording (no root): it follows the
# stick until it is clean and exits 0, with a time-until-clean on the way;
# an unknown device is exit 2; running out of samples first is exit 1; a
# level that cannot see per-device pages is exit 2 with the reason.
set -u
W=${WBTOP:?}
REC=$(cd "$(dirname "$0")/.." && pwd)/examples/usb-stick.wbrec
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0 failed=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }

"$W" --replay "$REC" --from 36 --until-clean loop0 > "$T/out" 2> "$T/err"; rc=$?
cat "$T/out"
if [ $rc = 0 ] && tail -1 "$T/out" | grep -q ' clean$' && grep -q 'clean in ' "$T/out"; then
	ok "the stick is followed until clean (exit 0, an ETA on the way)"
else
	bad "until clean: exit $rc, $(cat "$T/err")"
fi
# the same device by its BDI name and by its mount point
mnt=$("$W" --replay "$REC" --batch --json -n 1 | python3 -c 'import json,sys
print(next(b["mounts"][0] for b in json.loads(sys.stdin.readline())["bdis"] if b["dev"] == "loop0"))')
for d in 7:0 /dev/loop0 "$mnt"; do
	if "$W" --replay "$REC" --from 36 --until-clean "$d" > "$T/o2" 2>&1 && cmp -s "$T/out" "$T/o2"; then
		ok "--until-clean $d names the same device"
	else
		bad "--until-clean $d: $(tail -2 "$T/o2")"
	fi
done
# clean at a replay's first sample (before the copy): exit 0, and the line says how to start later
"$W" --replay "$REC" --until-clean loop0 > "$T/o3" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q ' clean at the first sample replayed (--from SECONDS starts later)$' "$T/o3"; then
	ok "clean at the first sample replayed: said so"
else
	bad "clean at the first sample: exit $rc, $(cat "$T/o3")"
fi
"$W" --replay "$REC" --from 22 -n 3 --until-clean loop0 > /dev/null 2>&1; rc=$?
[ $rc = 1 ] && ok "not clean within -n 3: exit 1" || bad "not clean within -n 3: exit $rc"
"$W" --replay "$REC" --until-clean nosuch > /dev/null 2> "$T/err"; rc=$?
if [ $rc = 2 ] && grep -q 'no device "nosuch"' "$T/err"; then ok "unknown device: exit 2"; else bad "unknown device: exit $rc"; fi
# live and unprivileged, debugfs's per-device pages are unreadable
if [ "$(id -u)" = 0 ]; then run=(setpriv --reuid=65534 --regid=65534 --clear-groups); else run=(); fi
dev=$(lsblk -dno NAME 2>/dev/null | head -1)
if [ -n "$dev" ]; then
	timeout 20 "${run[@]}" "$W" --until-clean "$dev" -n 2 --no-trace > /dev/null 2> "$T/err"; rc=$?
	if [ $rc = 2 ] && grep -q 'level 2' "$T/err"; then
		ok "unprivileged: exit 2 ($(head -1 "$T/err"))"
	else
		bad "unprivileged: exit $rc ($(head -1 "$T/err"))"
	fi
fi
# live, any path names its file system's device, as df resolves it: a directory
# that is no mount point (this one) was "no device"
here=$(cd "$(dirname "$0")" && pwd)
timeout 20 "$W" --until-clean "$here" -n 1 --no-trace > "$T/p" 2> "$T/err"; rc=$?
if grep -q 'no device' "$T/err"; then bad "--until-clean $here: $(cat "$T/err")"
elif { [ $rc -le 1 ] && grep -q left "$T/p"; } || { [ $rc = 2 ] && grep -q 'level 2\|no backing' "$T/err"; }; then
	ok "--until-clean on a directory: exit $rc $(head -c 80 "$T/p" "$T/err" 2>/dev/null | tr '\n' ' ')"
else bad "--until-clean $here: exit $rc $(cat "$T/err")"; fi
# a block device carrying btrfs: its dirty pages are on the file system's BDI (btrfs-1), not loop2's
F=${FIXTURES:?}
"$W" --root "$F/6.18-writing" --until-clean /dev/loop2 -n 1 -d 0.1 > "$T/bt" 2>&1
if grep -q 'loop2 (btrfs-1) 150M left' "$T/bt"; then ok "btrfs on /dev/loop2 is followed on btrfs-1"
else bad "btrfs on /dev/loop2: $(cat "$T/bt")"; fi
# the device goes while followed (a loop device removed, a stick pulled): said, exit 2 - it waited
# in silence for ever
cp -a "$F/6.18-writing" "$T/tree"
timeout 30 "$W" --root "$T/tree" --until-clean loop0 -d 0.1 > "$T/g" 2> "$T/gerr" & gp=$!
for _ in $(seq 100); do [ -s "$T/g" ] && break; sleep 0.1; done
rm -r "$T/tree/sys/class/bdi/7:0" "$T/tree/sys/kernel/debug/bdi/7:0"
wait $gp; rc=$?
if [ $rc = 2 ] && grep -q 'the device (7:0) has gone from /sys/class/bdi, with 124M' "$T/gerr"; then
	ok "the device went: exit 2 ($(cat "$T/gerr"))"
else bad "the device went: exit $rc, $(cat "$T/gerr")"; fi
"$W" --until-clean loop0 --json > /dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "--until-clean with --json: exit 2" || bad "--until-clean with --json: exit $rc"
echo "$pass passed, $failed failed"
[ $failed = 0 ]
